import { canRead } from '../../core/access.js'
import type { Context } from '../../core/context.js'
import { findProjectById, findRedirectedProjectId, withAccess } from '../access/index.js'

/**
 * Where a web URL of a moved project now lives (spec rule 6, for web URLs): `/<old path>`, `/<old path>.git…`
 * and `/<old path>/-/…` go to the same place under the project's current path. Null when nothing moved
 * there or the caller may not see the project.
 */
export async function findMovedProjectLocation(ctx: Context, url: string): Promise<string | null> {
  const queryAt = url.indexOf('?')
  const path = queryAt === -1 ? url : url.slice(0, queryAt)
  const query = queryAt === -1 ? '' : url.slice(queryAt)
  const match = /^\/(.+?)(\.git(?:\/.*)?|\/-\/.*)?\/?$/.exec(path)
  if (!match || !match[1].includes('/')) return null
  let oldPath: string
  try {
    oldPath = decodeURIComponent(match[1])
  } catch {
    return null
  }
  const redirect = await findRedirectedProjectId(ctx.db, oldPath)
  const project = redirect?.project_id ? (await findProjectById(ctx.db, redirect.project_id))[0] : undefined
  if (!project || !canRead((await withAccess(ctx, project)).access)) return null
  return `${ctx.config.externalUrl}/${project.full_path}${match[2] ?? ''}${query}`
}
