import type { Readable } from 'node:stream'
import type { Context } from '../../core/context.js'
import { NotFound } from '../../core/errors.js'
import type { LoadedProject } from '../access/index.js'
import {
  isClientRevision,
  openBlob,
  readObjectOrLargeBlob,
  unlessRepositoryMissing,
  type GitObject,
  type LargeBlob,
} from '../repositories/index.js'
import { openRepository } from './repository.js'

export interface FoundBlob {
  /** The blob with its content, or without it when it is large. */
  blob: GitObject | LargeBlob
  /** Its whole content as a stream from git: read only by callers that send a large blob's bytes. */
  open: () => Promise<Readable>
}

/**
 * A blob by its object id (GL `Gitlab::Git::Blob.raw`; Gitaly reads any revision it accepts that names a blob);
 * `404 Blob Not Found` when it names nothing, or something other than a blob.
 */
export async function readBlob(ctx: Context, loaded: LoadedProject, sha: string): Promise<FoundBlob> {
  const repository = openRepository(ctx, loaded)
  if (!isClientRevision(sha)) throw new NotFound('Blob')
  const object = await unlessRepositoryMissing(repository.directory, () => readObjectOrLargeBlob(repository.directory, sha))
  if (!object || object.type !== 'blob') throw new NotFound('Blob')
  return { blob: object, open: () => openBlob(repository.directory, object.oid) }
}
