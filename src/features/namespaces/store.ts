import { sql } from 'kysely'
import type { Db } from '../../db/index.js'
import { preparedQuery } from '../../db/prepared.js'
import type { NamespaceRow, NewNamespaceRow } from '../../db/schema.js'

export const findNamespaceById = preparedQuery((db: Db, id: number) => db.selectFrom('namespaces').selectAll().where('id', '=', id))

export function findNamespaceByFullPath(db: Db, fullPath: string) {
  return db
    .selectFrom('namespaces')
    .selectAll()
    .where(sql`lower(full_path)`, '=', fullPath.toLowerCase())
    .executeTakeFirst()
}

export function findPersonalNamespace(db: Db, userId: number) {
  return db.selectFrom('namespaces').selectAll().where('owner_id', '=', userId).where('kind', '=', 'user').executeTakeFirst()
}

/** Whether a full path is used by a namespace or a project other than the ones excepted (one path space, as GitLab's routes). */
export async function isFullPathTaken(
  db: Db,
  fullPath: string,
  except: { namespaceId?: number; projectId?: number } = {},
): Promise<boolean> {
  const lower = fullPath.toLowerCase()
  let namespaces = db
    .selectFrom('namespaces')
    .select('id')
    .where(sql`lower(full_path)`, '=', lower)
  if (except.namespaceId !== undefined) namespaces = namespaces.where('id', '<>', except.namespaceId)
  if (await namespaces.executeTakeFirst()) return true
  let projects = db
    .selectFrom('projects')
    .select('id')
    .where(sql`lower(full_path)`, '=', lower)
  if (except.projectId !== undefined) projects = projects.where('id', '<>', except.projectId)
  return (await projects.executeTakeFirst()) !== undefined
}

export async function insertNamespace(db: Db, row: NewNamespaceRow, parent: NamespaceRow | null): Promise<NamespaceRow> {
  const inserted = await db.insertInto('namespaces').values(row).returning('id').executeTakeFirstOrThrow()
  return db
    .updateTable('namespaces')
    .set({ traversal_ids: `${parent ? parent.traversal_ids : ''}${inserted.id}/` })
    .where('id', '=', inserted.id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** The project a redirect route points at, by an old full path. */
export function findRedirectedProjectId(db: Db, fullPath: string) {
  return db
    .selectFrom('redirect_routes')
    .select('project_id')
    .where(sql`lower(path)`, '=', fullPath.toLowerCase())
    .where('project_id', 'is not', null)
    .executeTakeFirst()
}

/** A path in use again belongs to its new owner: redirects from it go. */
export async function deleteRedirectsFrom(db: Db, fullPaths: string[]) {
  if (fullPaths.length === 0) return
  await db
    .deleteFrom('redirect_routes')
    .where(
      sql`lower(path)`,
      'in',
      fullPaths.map((p) => p.toLowerCase()),
    )
    .execute()
}

/**
 * Moves a namespace (and everything below it) to a new full path and full name: namespaces and projects
 * below get the new prefix, their ancestry follows a new parent, and every old path becomes a redirect.
 */
export async function relocateNamespace(
  db: Db,
  namespace: NamespaceRow,
  target: { name: string; path: string; fullPath: string; fullName: string; parent: NamespaceRow | null | undefined },
  at: string,
): Promise<NamespaceRow> {
  const oldPath = namespace.full_path
  const oldName = namespace.full_name
  const oldTraversal = namespace.traversal_ids
  const newTraversal = target.parent === undefined ? oldTraversal : `${target.parent ? target.parent.traversal_ids : ''}${namespace.id}/`
  const descendants = await db
    .selectFrom('namespaces')
    .select(['id', 'full_path', 'full_name', 'traversal_ids'])
    .where('traversal_ids', 'like', `${oldTraversal}%`)
    .execute()
  const projects = await db
    .selectFrom('projects')
    .select(['id', 'full_path', 'full_name'])
    .where(
      'namespace_id',
      'in',
      descendants.map((d) => d.id),
    )
    .execute()
  const pathOf = (full: string) => target.fullPath + full.slice(oldPath.length)
  const nameOf = (full: string) => target.fullName + full.slice(oldName.length)
  if (target.fullPath.toLowerCase() !== oldPath.toLowerCase() || target.fullPath !== oldPath) {
    const redirects = [
      ...descendants.map((d) => ({ path: d.full_path, namespace_id: d.id, project_id: null, created_at: at })),
      ...projects.map((p) => ({ path: p.full_path, namespace_id: null, project_id: p.id, created_at: at })),
    ].filter((r) => r.path.toLowerCase() !== pathOf(r.path).toLowerCase())
    await deleteRedirectsFrom(db, [...descendants.map((d) => pathOf(d.full_path)), ...projects.map((p) => pathOf(p.full_path))])
    await deleteRedirectsFrom(
      db,
      redirects.map((r) => r.path),
    )
    if (redirects.length > 0) await db.insertInto('redirect_routes').values(redirects).execute()
  }
  for (const d of descendants) {
    await db
      .updateTable('namespaces')
      .set({
        full_path: pathOf(d.full_path),
        full_name: nameOf(d.full_name),
        traversal_ids: newTraversal + d.traversal_ids.slice(oldTraversal.length),
      })
      .where('id', '=', d.id)
      .execute()
  }
  for (const p of projects) {
    await db
      .updateTable('projects')
      .set({ full_path: pathOf(p.full_path), full_name: nameOf(p.full_name) })
      .where('id', '=', p.id)
      .execute()
  }
  return db
    .updateTable('namespaces')
    .set({
      name: target.name,
      path: target.path,
      parent_id: target.parent === undefined ? namespace.parent_id : (target.parent?.id ?? null),
      updated_at: at,
    })
    .where('id', '=', namespace.id)
    .returningAll()
    .executeTakeFirstOrThrow()
}
