import type { Context } from '../../core/context.js'
import { NotFound } from '../../core/errors.js'
import type { LoadedProject } from '../access/index.js'
import { isClientRevision, readObject, type GitObject } from '../repositories/index.js'
import { openRepository, readIfPresent } from './repository.js'

/**
 * A blob by its object id (GL `Gitlab::Git::Blob.raw`; Gitaly reads any revision it accepts that names a blob);
 * `404 Blob Not Found` when it names nothing, or something other than a blob.
 */
export async function readBlob(ctx: Context, loaded: LoadedProject, sha: string): Promise<GitObject> {
  const repository = openRepository(ctx, loaded)
  if (!isClientRevision(sha)) throw new NotFound('Blob')
  const object = await readIfPresent(repository, () => readObject(repository.directory, sha))
  if (!object || object.type !== 'blob') throw new NotFound('Blob')
  return object
}
