import { sql, type Expression, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import type { MilestoneRow, NewMilestoneRow } from '../../db/schema.js'

export interface MilestoneFilters {
  state: 'active' | 'closed' | null
  iids: number[] | null
  title: string | null
  /** Fuzzy words over title or description (GL Milestone.search). */
  search: string | null
  /** Fuzzy words over the title alone (GL Milestone.search_title). */
  searchTitle: string | null
  updatedBefore: string | null
  updatedAfter: string | null
}

/** Minimum length of a word matched anywhere in the text (GL Gitlab::SQL::Pattern::MIN_CHARS_FOR_PARTIAL_MATCHING). */
const MIN_PARTIAL_CHARS = 3

function likePattern(word: string): string {
  return `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** The words of a fuzzy query: quoted phrases kept whole, short words dropped (GL Gitlab::SQL::Pattern). */
function fuzzyWords(query: string): string[] {
  const words: string[] = []
  for (const match of query.matchAll(/"([^"]+)"|(\S+)/g)) words.push(match[1] ?? match[2])
  return words.filter((word) => word.length >= MIN_PARTIAL_CHARS)
}

/** GL `fuzzy_arel_match`: every long word somewhere in the column, or the whole short query equal to it; case-insensitive. */
function fuzzyMatch(column: 'title' | 'description', query: string): Expression<SqlBool> {
  const squished = query.trim().replace(/\s+/g, ' ')
  const words = fuzzyWords(squished)
  if (words.length === 0) return sql<SqlBool>`lower(${sql.ref(column)}) = ${squished.toLowerCase()}`
  const parts = words.map((word) => sql<SqlBool>`lower(${sql.ref(column)}) like ${likePattern(word.toLowerCase())} escape '\\'`)
  return sql<SqlBool>`(${sql.join(parts, sql` and `)})`
}

/** How a list orders milestones: newest first (the API's `order_id_desc`), or due soonest first (the pages' `due_date_asc`). */
export type MilestoneOrder = 'id_desc' | 'due_date_asc'

/** A project's milestones, newest first (GL MilestoneResponses `order_id_desc`) unless told. */
export function selectMilestones(db: Db, projectId: number, filters: MilestoneFilters, order: MilestoneOrder = 'id_desc') {
  let query = db.selectFrom('milestones').selectAll().where('project_id', '=', projectId)
  if (filters.state) query = query.where('state', '=', filters.state)
  if (filters.iids) query = filters.iids.length > 0 ? query.where('iid', 'in', filters.iids) : query.where(sql<SqlBool>`1 = 0`)
  if (filters.title !== null) query = query.where('title', '=', filters.title)
  const search = filters.search
  if (search !== null) {
    query = query.where(sql<SqlBool>`(${fuzzyMatch('title', search)} or ${fuzzyMatch('description', search)})`)
  }
  if (filters.searchTitle !== null) query = query.where(fuzzyMatch('title', filters.searchTitle))
  if (filters.updatedBefore !== null) query = query.where('updated_at', '<', filters.updatedBefore)
  if (filters.updatedAfter !== null) query = query.where('updated_at', '>', filters.updatedAfter)
  // GL Milestone.sort_by_attribute('due_date_asc'): dates first, soonest first, those without one last.
  if (order === 'due_date_asc') query = query.orderBy(sql`case when due_date is null then 1 else 0 end`).orderBy('due_date', 'asc')
  return query.orderBy('id', 'desc')
}

export function findMilestoneInProject(db: Db, projectId: number, milestoneId: number): Promise<MilestoneRow | undefined> {
  return db.selectFrom('milestones').selectAll().where('project_id', '=', projectId).where('id', '=', milestoneId).executeTakeFirst()
}

/** Whether another milestone of the project has exactly this title. */
export async function isMilestoneTitleTaken(db: Db, projectId: number, title: string, exceptId: number | null): Promise<boolean> {
  let query = db.selectFrom('milestones').select('id').where('project_id', '=', projectId).where('title', '=', title)
  if (exceptId !== null) query = query.where('id', '!=', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

export function insertMilestone(db: Db, row: NewMilestoneRow): Promise<MilestoneRow> {
  return db.insertInto('milestones').values(row).returningAll().executeTakeFirstOrThrow()
}

export function updateMilestoneRow(
  db: Db,
  milestoneId: number,
  changes: Partial<Pick<MilestoneRow, 'title' | 'description' | 'due_date' | 'start_date' | 'state' | 'updated_at'>>,
): Promise<MilestoneRow> {
  return db.updateTable('milestones').set(changes).where('id', '=', milestoneId).returningAll().executeTakeFirstOrThrow()
}

export async function deleteMilestoneRow(db: Db, milestoneId: number): Promise<void> {
  await db.deleteFrom('milestones').where('id', '=', milestoneId).execute()
}

/** Issues of these milestones by milestone and state, joined with their projects for the caller's visibility condition. */
export function selectIssueCountsByMilestone(db: Db, milestoneIds: readonly number[]) {
  return db
    .selectFrom('issues')
    .innerJoin('projects', 'projects.id', 'issues.project_id')
    .select(['issues.milestone_id as milestone_id', 'issues.state as state'])
    .select(sql<number>`count(*)`.as('count'))
    .where('issues.milestone_id', 'in', milestoneIds)
    .groupBy(['issues.milestone_id', 'issues.state'])
}

/** Merge requests of these milestones by milestone, joined with their projects for the caller's visibility condition. */
export function selectMergeRequestCountsByMilestone(db: Db, milestoneIds: readonly number[]) {
  return db
    .selectFrom('merge_requests')
    .innerJoin('projects', 'projects.id', 'merge_requests.project_id')
    .select(['merge_requests.milestone_id as milestone_id'])
    .select(sql<number>`count(*)`.as('count'))
    .where('merge_requests.milestone_id', 'in', milestoneIds)
    .groupBy('merge_requests.milestone_id')
}
