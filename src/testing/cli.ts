import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import net from 'node:net'
import path from 'node:path'
import { onTestFinished } from 'vitest'
import { openDatabase } from '../db/index.js'
import { freshDatabase } from './databases.js'
import { TEST_PASSWORD_HASH_COST } from './server.js'

/** The built program, as `npm start` runs it (the global setup builds it). */
export const MAIN = path.resolve('dist/svc.mjs')

export interface SvcRun {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `svc <args>` with only PATH and `env` in its environment; `input`, when given, is its whole standard input (a pipe). */
export function runSvc(args: string[], env: Record<string, string>, input?: string): Promise<SvcRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    if (input !== undefined) child.stdin.end(input)
  })
}

/**
 * Environment naming a fresh database for a run of svc, dropped after the test that asks for it; `open` reads it
 * from the test; it serves from one process (SVC_WORKERS=1). The database is empty unless `migrated`, then it holds every migration as `svc migrate` leaves it.
 */
export async function freshInstanceEnv(options: { migrated?: boolean } = {}) {
  const fresh = await freshDatabase(options)
  // Registered per test: with modules shared between test files, a module-level hook would serve only the first file.
  onTestFinished(fresh.drop)
  const env: Record<string, string> = {
    SVC_DATA_DIR: fresh.dataDir,
    SVC_ROOT_PASSWORD: 'root-password-for-tests',
    SVC_LOG_LEVEL: 'silent',
    SVC_PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST),
    // One process, as before workers existed; tests of several ask for them.
    SVC_WORKERS: '1',
    ...(fresh.databaseUrl ? { SVC_DATABASE_URL: fresh.databaseUrl } : {}),
  }
  return { env, open: () => openDatabase({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir }) }
}

/** A port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address() as net.AddressInfo
      probe.close(() => resolve(address.port))
    })
  })
}

/** Starts `svc serve` (the default command) with only PATH and `env` in its environment, to be killed by the test. */
export function startSvc(env: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ...env } })
}

/** Waits until the server at `url` answers its readiness check; fails if it exits first or takes 20 s. */
export async function waitUntilReady(url: string, child: ChildProcessWithoutNullStreams) {
  for (let i = 0; i < 400; i++) {
    if (child.exitCode !== null) throw new Error('server exited')
    try {
      if ((await fetch(`${url}/-/readiness`)).status === 200) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('server did not become ready')
}
