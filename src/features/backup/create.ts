import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as tar from 'tar'
import type { Config } from '../../config/index.js'
import { dumpDatabase, placeWhenDurable } from '../../db/dump.js'
import { SVC_VERSION } from '../../version.js'
import { describeFile, MANIFEST_FORMAT, MANIFEST_NAME, type ArchivedFile, type Manifest } from './manifest.js'
import { forEachLimited, formatBytes, Progress } from './progress.js'
import { bundleRepository, listRepositories, type RepositoryEntry } from './repositories.js'

/**
 * Repositories bundled at once. A small repository's bundle costs mostly the start of its git processes, time spent
 * waiting rather than computing, so a few run together even on two cores; few enough to leave the server its share.
 */
const BUNDLE_CONCURRENCY = Math.max(2, Math.min(4, os.availableParallelism()))

/** GitLab's backup name, `<unix time>_<YYYY_MM_DD>_<version>_gitlab_backup.tar`, with svc's brand. */
export function defaultArchiveName(at: Date): string {
  const day = at.toISOString().slice(0, 10).replaceAll('-', '_')
  return `${Math.floor(at.getTime() / 1000)}_${day}_${SVC_VERSION}_svc_backup.tar`
}

export interface BackupSummary {
  file: string
  bytes: number
  repositories: number
  emptyRepositories: number
  /** Repositories listed but gone (deleted meanwhile) or not yet complete (being created) when read. */
  vanished: number
}

/**
 * Writes one tar archive of the instance while it serves: the database first (one consistent snapshot), then every
 * repository of every storage at the refs it had when read, so every project of the snapshot has its repository and
 * every ref that existed when the backup began is in it. The archive appears at `file` only once complete.
 */
export async function createBackup(config: Config, file: string | null, progress: Progress): Promise<BackupSummary> {
  const startedAt = new Date()
  const archive = path.resolve(file ?? path.join(config.dataDir, 'backups', defaultArchiveName(startedAt)))
  fs.mkdirSync(path.dirname(archive), { recursive: true })
  // Staged beside the archive: the same file system, and nowhere a storage or the database looks.
  const staging = fs.mkdtempSync(path.join(path.dirname(archive), '.svc-backup-'))
  const partial = `${archive}.partial`
  const cleanUp = () => {
    fs.rmSync(staging, { recursive: true, force: true })
    fs.rmSync(partial, { force: true })
  }
  // Interrupted, the command leaves nothing behind: no staging directory, no partial archive.
  const onSignal = (signal: NodeJS.Signals) => {
    cleanUp()
    process.stderr.write(`svc backup: interrupted (${signal}); no archive was written\n`)
    process.exit(signal === 'SIGINT' ? 130 : 143)
  }
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal)
  try {
    fs.mkdirSync(path.join(staging, 'database'))
    progress.line('Dumping database ...')
    const databaseName = `database/${config.databaseUrl ? 'svc.pgdump' : 'svc.sqlite3'}`
    const { engine, schemaVersion } = await dumpDatabase(config, path.join(staging, databaseName))
    const files: ArchivedFile[] = [await describeFile(path.join(staging, databaseName), databaseName)]
    progress.line(`Dumping database ... done (${formatBytes(files[0].size)}, schema ${schemaVersion ?? 'none'})`)

    const listed: { storage: string; root: string; relative: string }[] = []
    for (const [storage, root] of Object.entries(config.storages)) {
      for (const relative of await listRepositories(root)) listed.push({ storage, root, relative })
    }
    progress.line(`Dumping ${listed.length} repositories ...`)
    const entries: (RepositoryEntry | null)[] = new Array(listed.length).fill(null)
    let done = 0
    await forEachLimited(listed, BUNDLE_CONCURRENCY, async ({ storage, root, relative }, index) => {
      const name = `repositories/${storage}/${relative}.bundle`
      entries[index] = await bundleRepository(storage, root, relative, path.join(staging, name), name, path.join(staging, 'scratch'))
      done += 1
      if (done % 10 === 0 || done === listed.length) progress.count('Dumping repositories', done, listed.length)
    })
    progress.endCount()
    fs.rmSync(path.join(staging, 'scratch'), { recursive: true, force: true })
    const repositories = entries.filter((entry): entry is RepositoryEntry => entry !== null)
    for (const entry of repositories) {
      if (entry.bundle) files.push(await describeFile(path.join(staging, entry.bundle), entry.bundle))
    }

    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      svcVersion: SVC_VERSION,
      schemaVersion,
      createdAt: startedAt.toISOString(),
      engine,
      database: databaseName,
      storages: Object.keys(config.storages),
      repositories,
      files,
    }
    fs.writeFileSync(path.join(staging, MANIFEST_NAME), `${JSON.stringify(manifest, null, 2)}\n`)
    progress.line('Writing the archive ...')
    // Readable by its owner alone, from its first byte: it holds every secret's digest (GitLab's backups are 0600 too).
    fs.writeFileSync(partial, '', { mode: 0o600 })
    await tar.c({ cwd: staging, file: partial, portable: true, strict: true }, [MANIFEST_NAME, ...files.map((f) => f.name)])
    placeWhenDurable(partial, archive)
    const bytes = fs.statSync(archive).size
    return {
      file: archive,
      bytes,
      repositories: repositories.length,
      emptyRepositories: repositories.filter((entry) => entry.bundle === null).length,
      vanished: listed.length - repositories.length,
    }
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal)
    cleanUp()
  }
}
