import { createHash } from 'node:crypto'
import fs from 'node:fs'
import type { Engine } from '../../db/index.js'
import type { RepositoryEntry } from './repositories.js'

/** The archive's first entry: what the backup holds, and the size and digest of every other entry. */
export const MANIFEST_NAME = 'manifest.json'
export const MANIFEST_FORMAT = 'svc-backup/1'

export interface ArchivedFile {
  name: string
  size: number
  sha256: string
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT
  svcVersion: string
  /** The newest migration applied to the dumped database; null when it had none. */
  schemaVersion: string | null
  /** When the backup began, ISO 8601 UTC. */
  createdAt: string
  engine: Engine
  /** The dump's name in the archive. */
  database: string
  /** The names of the storages configured when the backup was taken. */
  storages: string[]
  repositories: RepositoryEntry[]
  files: ArchivedFile[]
}

/** The size and SHA-256 of a file, read as a stream. */
export async function describeFile(file: string, name: string): Promise<ArchivedFile> {
  const hash = createHash('sha256')
  let size = 0
  for await (const chunk of fs.createReadStream(file)) {
    hash.update(chunk as Buffer)
    size += (chunk as Buffer).length
  }
  return { name, size, sha256: hash.digest('hex') }
}

/** The manifest's problem, when it is not one this code wrote. */
export function manifestProblem(value: unknown): string | null {
  const manifest = value as Partial<Manifest> | null
  if (typeof manifest !== 'object' || manifest === null || manifest.format !== MANIFEST_FORMAT)
    return `it is not an svc backup (${MANIFEST_FORMAT})`
  if (!Array.isArray(manifest.files) || !Array.isArray(manifest.repositories) || !Array.isArray(manifest.storages)) {
    return 'its manifest is incomplete'
  }
  if (manifest.engine !== 'sqlite' && manifest.engine !== 'postgres') return 'its manifest names no database engine'
  return null
}
