import { canRead, type Access } from '../../core/access.js'
import type { Context } from '../../core/context.js'
import { NotFound } from '../../core/errors.js'
import type { NamespaceRow } from '../../db/schema.js'
import { groupAccess } from '../access/index.js'
import { findGroupByIdOrFullPath } from './store.js'

/** A group with what the caller may do there. */
export interface LoadedGroup {
  group: NamespaceRow
  access: Access
}

/** A group by id or full path as the caller may see it (GL helpers.rb `find_group!`): else 404 "Group Not Found". */
export async function findGroup(ctx: Context, idOrPath: string | number): Promise<LoadedGroup> {
  const group = await findGroupByIdOrFullPath(ctx.db, String(idOrPath))
  if (!group) throw new NotFound('Group')
  const access = await groupAccess(ctx, group)
  if (!canRead(access)) throw new NotFound('Group')
  return { group, access }
}

export { jobHandlers } from './deletion.js'
