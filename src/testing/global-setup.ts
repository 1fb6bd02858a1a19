import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import type { TestProject } from 'vitest/node'
import { createMigratedTemplate } from './databases.js'

const BUILT = 'dist/svc.mjs'
const BUILD_INPUTS = ['src', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']

/** The newest modification time among `entry` and, for a directory, everything below it. */
function newestModification(entry: string): number {
  const stat = fs.statSync(entry, { throwIfNoEntry: false })
  if (!stat) return 0
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const child of fs.readdirSync(entry)) {
    const childPath = path.join(entry, child)
    // The program leaves tests and their helpers out (tsconfig.build.json), so editing them needs no new build.
    if (!child.endsWith('.test.ts') && childPath !== path.join('src', 'testing')) newest = Math.max(newest, newestModification(childPath))
  }
  return newest
}

/** Whether `dist/` was built after the last change to anything the build reads (`npm ci` builds it through `prepare`). */
function isBuildCurrent(): boolean {
  const built = fs.statSync(BUILT, { throwIfNoEntry: false })
  return built !== undefined && BUILD_INPUTS.every((input) => newestModification(input) < built.mtimeMs)
}

/**
 * Tests of the command run the built program, exactly as `npm start` does, so build it once before any test.
 * Then migrate one template database, which every test server's fresh database copies. `SVC_TEST_NO_BUILD=1` skips the
 * build, for a few files that do not run the command, while other files are half edited.
 */
export default async function setUpTestRun(project: TestProject) {
  if (!process.env.SVC_TEST_NO_BUILD && !isBuildCurrent()) execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' })
  const { template, drop } = await createMigratedTemplate()
  project.provide('migratedTemplate', template)
  return drop
}
