import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as tar from 'tar'
import type { Config } from '../../config/index.js'
import { engineOf, isDatabaseEmpty, knownMigrations, restoreDatabase } from '../../db/dump.js'
import { MANIFEST_NAME, manifestProblem, type ArchivedFile, type Manifest } from './manifest.js'
import { forEachLimited, Progress } from './progress.js'
import { restoreRepository } from './repositories.js'

/** A restore refused before anything was written. */
export class RestoreRefused extends Error {}

/** Repositories made at once: mostly the start of git processes, so more than the cores, with no server to share them. */
const RESTORE_CONCURRENCY = Math.max(4, Math.min(8, 2 * os.availableParallelism()))

/** Entries a data directory may hold and still count as empty: where archives are kept by default. */
const IGNORED_IN_DATA_DIR = new Set(['backups'])

function isEmptyDirectory(directory: string, ignored: ReadonlySet<string> = new Set()): boolean {
  try {
    return fs.readdirSync(directory).every((name) => ignored.has(name))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true
    throw error
  }
}

/** Refuses a target that holds anything: restoring merges nothing, it makes an instance again. */
async function checkTargetIsEmpty(config: Config): Promise<void> {
  if (!isEmptyDirectory(config.dataDir, IGNORED_IN_DATA_DIR)) {
    throw new RestoreRefused(`the data directory ${config.dataDir} is not empty: restore into an empty one`)
  }
  for (const [name, root] of Object.entries(config.storages)) {
    if (!isEmptyDirectory(root)) throw new RestoreRefused(`the storage ${name} (${root}) is not empty: restore into an empty one`)
  }
  if (!(await isDatabaseEmpty(config))) throw new RestoreRefused('the database of SVC_DATABASE_URL is not empty: restore into an empty one')
}

/** Reads the archive once, writing nothing: its manifest, and the size and SHA-256 of every other entry. */
async function readArchive(file: string): Promise<{ manifest: unknown; files: Map<string, ArchivedFile>; manifestFirst: boolean }> {
  const files = new Map<string, ArchivedFile>()
  let manifestText: string | null = null
  let manifestFirst = false
  const pending: Promise<void>[] = []
  await tar.t({
    file,
    strict: true,
    onReadEntry(entry) {
      const name = entry.path
      if (name === MANIFEST_NAME) manifestFirst = files.size === 0 && manifestText === null
      const hash = createHash('sha256')
      const chunks: Buffer[] = []
      let size = 0
      entry.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (name === MANIFEST_NAME) chunks.push(chunk)
        else hash.update(chunk)
      })
      pending.push(
        new Promise((resolve) =>
          entry.on('end', () => {
            if (name === MANIFEST_NAME) manifestText = Buffer.concat(chunks).toString('utf8')
            else if (entry.type === 'File') files.set(name, { name, size, sha256: hash.digest('hex') })
            resolve()
          }),
        ),
      )
    },
  })
  await Promise.all(pending)
  let manifest: unknown
  try {
    manifest = manifestText === null ? null : JSON.parse(manifestText)
  } catch {
    manifest = null
  }
  return { manifest, files, manifestFirst }
}

/** Everything that must hold before a byte is written: the archive whole, and a target this code can restore it into. */
function checkArchive(config: Config, manifest: Manifest, files: Map<string, ArchivedFile>): void {
  const known = knownMigrations()
  if (manifest.schemaVersion !== null && !known.includes(manifest.schemaVersion)) {
    const newest = known[known.length - 1]
    throw new RestoreRefused(
      `the backup's schema (${manifest.schemaVersion}) is newer than this svc knows (${newest}): restore it with svc ${manifest.svcVersion} or later`,
    )
  }
  const engine = engineOf(config)
  if (manifest.engine !== engine) {
    throw new RestoreRefused(`the backup holds a ${manifest.engine} database and this svc is configured for ${engine}`)
  }
  const missingStorages = manifest.repositories.map((entry) => entry.storage).filter((storage) => !Object.hasOwn(config.storages, storage))
  if (missingStorages.length > 0) {
    throw new RestoreRefused(`the backup has repositories on storages not configured here: ${[...new Set(missingStorages)].join(', ')}`)
  }
  const listed = new Set(manifest.files.map((file) => file.name))
  for (const expected of manifest.files) {
    const found = files.get(expected.name)
    if (!found) throw new RestoreRefused(`the archive is damaged: ${expected.name} is missing`)
    if (found.size !== expected.size || found.sha256 !== expected.sha256) {
      throw new RestoreRefused(`the archive is damaged: the checksum of ${expected.name} does not match the manifest`)
    }
  }
  for (const name of files.keys()) {
    if (!listed.has(name)) throw new RestoreRefused(`the archive is damaged: ${name} is not in the manifest`)
  }
  if (!listed.has(manifest.database)) throw new RestoreRefused('the archive is damaged: it holds no database')
  for (const entry of manifest.repositories) {
    if (entry.bundle !== null && !listed.has(entry.bundle)) throw new RestoreRefused(`the archive is damaged: ${entry.bundle} is missing`)
    if (path.isAbsolute(entry.path) || entry.path.split('/').includes('..')) {
      throw new RestoreRefused(`the archive is damaged: ${entry.path} is not a path inside a storage`)
    }
  }
}

export interface RestoreSummary {
  manifest: Manifest
  repositories: number
}

/**
 * Makes the instance of `file` again in an empty data directory, empty storages and an empty database. Every check
 * (target empty, schema known, every entry's checksum) passes before anything is written; then the database is
 * loaded and every repository made again from its bundle.
 */
export async function restoreBackup(config: Config, file: string, progress: Progress): Promise<RestoreSummary> {
  const archive = path.resolve(file)
  if (!fs.existsSync(archive)) throw new RestoreRefused(`there is no file ${archive}`)
  await checkTargetIsEmpty(config)
  progress.line('Verifying the archive ...')
  let read
  try {
    read = await readArchive(archive)
  } catch (error) {
    throw new RestoreRefused(`${archive} is not a readable tar archive: ${(error as Error).message}`)
  }
  const problem = manifestProblem(read.manifest)
  if (problem) throw new RestoreRefused(`${archive} cannot be restored: ${problem}`)
  const manifest = read.manifest as Manifest
  checkArchive(config, manifest, read.files)
  progress.line(`Verifying the archive ... done (svc ${manifest.svcVersion}, taken at ${manifest.createdAt})`)

  fs.mkdirSync(config.dataDir, { recursive: true })
  const staging = fs.mkdtempSync(path.join(config.dataDir, '.svc-restore-'))
  try {
    await tar.x({ file: archive, cwd: staging, strict: true, preserveOwner: false })
    progress.line('Restoring database ...')
    await restoreDatabase(config, path.join(staging, manifest.database))
    progress.line('Restoring database ... done')
    let done = 0
    await forEachLimited(manifest.repositories, RESTORE_CONCURRENCY, async (entry) => {
      await restoreRepository(config.storages[entry.storage], entry, entry.bundle === null ? null : path.join(staging, entry.bundle))
      done += 1
      if (done % 10 === 0 || done === manifest.repositories.length)
        progress.count('Restoring repositories', done, manifest.repositories.length)
    })
    progress.endCount()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw new Error(`${message}; the target holds part of the backup now: empty it before restoring again`, { cause: error })
  } finally {
    fs.rmSync(staging, { recursive: true, force: true })
  }
  return { manifest, repositories: manifest.repositories.length }
}
