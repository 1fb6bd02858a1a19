import { sql } from 'kysely'
import type { Db } from '../../db/index.js'
import type { EnvironmentRow } from '../../db/schema.js'

type NewEnvironment = Omit<EnvironmentRow, 'id'>

/** The project's environments with one of these exact names. */
export function selectEnvironmentsByNames(db: Db, projectId: number, names: readonly string[]): Promise<EnvironmentRow[]> {
  if (names.length === 0) return Promise.resolve([])
  return db
    .selectFrom('environments')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('name', 'in', [...new Set(names)])
    .execute()
}

export interface EnvironmentFilter {
  name?: string
  /** Names starting with this, case-insensitively (GL Environment.for_name_like). */
  namePrefix?: string
  state?: string
}

/** A LIKE pattern for names starting with `prefix`, its own wildcards escaped. */
function startingWith(prefix: string): string {
  return `${prefix.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** The project's environments matching the filter, oldest first. */
export function selectEnvironments(db: Db, projectId: number, filter: EnvironmentFilter) {
  let query = db.selectFrom('environments').selectAll().where('project_id', '=', projectId)
  if (filter.name !== undefined) query = query.where('name', '=', filter.name)
  if (filter.namePrefix !== undefined) query = query.where(sql<boolean>`lower(name) like ${startingWith(filter.namePrefix)} escape '\\'`)
  if (filter.state !== undefined) query = query.where('state', '=', filter.state)
  return query.orderBy('id', 'asc')
}

export function findEnvironmentInProject(db: Db, projectId: number, id: number): Promise<EnvironmentRow | undefined> {
  return db.selectFrom('environments').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
}

export function findEnvironmentRowById(db: Db, id: number): Promise<EnvironmentRow | undefined> {
  return db.selectFrom('environments').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Which of these values another environment of the project already has, by column. */
export async function findTakenNameAndSlug(db: Db, projectId: number, name: string, slug: string) {
  const rows = await db
    .selectFrom('environments')
    .select(['name', 'slug'])
    .where('project_id', '=', projectId)
    .where((eb) => eb.or([eb('name', '=', name), eb('slug', '=', slug)]))
    .execute()
  return { name: rows.some((row) => row.name === name), slug: rows.some((row) => row.slug === slug) }
}

export function insertEnvironment(db: Db, row: NewEnvironment): Promise<EnvironmentRow> {
  return db.insertInto('environments').values(row).returningAll().executeTakeFirstOrThrow()
}

export function updateEnvironmentRow(
  db: Db,
  id: number,
  changes: Partial<Pick<EnvironmentRow, 'external_url' | 'tier' | 'state' | 'auto_stop_at' | 'updated_at'>>,
): Promise<EnvironmentRow> {
  return db.updateTable('environments').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

export async function deleteEnvironmentRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('environments').where('id', '=', id).execute()
}
