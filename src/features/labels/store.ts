import { sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import type { PreparedList } from '../../db/pagination.js'
import { preparedQuery } from '../../db/prepared.js'
import type { Database, LabelRow, NewLabelRow } from '../../db/schema.js'

// Owns labels, their priorities and subscriptions, and the links that put labels on issues and merge requests
// (`issue_labels`, `merge_request_labels`).

/** What a label can be put on. */
export type LabelledType = 'Issue' | 'MergeRequest'

/** The labels a project can use: its own and those of every group above it (GL `include_ancestor_groups`). */
export function selectAvailableLabels(db: Db, projectId: number, groupIds: readonly number[]) {
  return db
    .selectFrom('labels')
    .selectAll()
    .where((eb) =>
      groupIds.length > 0 ? eb.or([eb('project_id', '=', projectId), eb('group_id', 'in', groupIds)]) : eb('project_id', '=', projectId),
    )
}

export function findAvailableLabelsByTitles(
  db: Db,
  projectId: number,
  groupIds: readonly number[],
  titles: readonly string[],
): Promise<LabelRow[]> {
  if (titles.length === 0) return Promise.resolve([])
  return selectAvailableLabels(db, projectId, groupIds)
    .where('title', 'in', [...new Set(titles)])
    .execute()
}

export function insertLabel(db: Db, row: NewLabelRow): Promise<LabelRow> {
  return db.insertInto('labels').values(row).returningAll().executeTakeFirstOrThrow()
}

/**
 * A new project label, or the one a concurrent transaction has just created with the same title: PostgreSQL waits for
 * that transaction and skips the insert, and the look-up that follows sees its label.
 */
export async function insertProjectLabelOnce(db: Db, row: NewLabelRow & { project_id: number }): Promise<LabelRow> {
  const inserted = await db
    .insertInto('labels')
    .values(row)
    .onConflict((conflict) => conflict.columns(['project_id', 'title']).doNothing())
    .returningAll()
    .executeTakeFirst()
  return (
    inserted ??
    db.selectFrom('labels').selectAll().where('project_id', '=', row.project_id).where('title', '=', row.title).executeTakeFirstOrThrow()
  )
}

/** Which labels a request may see: those of these projects and of these groups. */
export interface LabelScope {
  projectIds: readonly number[]
  groupIds: readonly number[]
}

type Eb = ExpressionBuilder<Database, 'labels'>

function inScope(eb: Eb, scope: LabelScope): Expression<SqlBool> {
  const parts: Expression<SqlBool>[] = []
  if (scope.projectIds.length > 0) parts.push(eb('labels.project_id', 'in', scope.projectIds))
  if (scope.groupIds.length > 0) parts.push(eb('labels.group_id', 'in', scope.groupIds))
  return parts.length > 0 ? eb.or(parts) : sql<SqlBool>`1 = 0`
}

/** A LIKE pattern matching `term` anywhere, with its own wildcards escaped. */
function containing(term: string): string {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** Every word in the column, case-insensitively (GL Gitlab::SQL::Pattern `fuzzy_arel_match`). */
function matchesAll(eb: Eb, column: 'title' | 'description', words: readonly string[]): Expression<SqlBool> {
  return eb.and(words.map((word) => sql<SqlBool>`lower(${sql.ref(`labels.${column}`)}) like ${containing(word)} escape '\\'`))
}

/** The labels in scope, by title (GL Label default scope), optionally whose title or description has every search word. */
function selectLabelsInScope(db: Db, scope: LabelScope, searchWords: readonly string[] = []) {
  let query = db
    .selectFrom('labels')
    .selectAll()
    .where((eb) => inScope(eb, scope))
  if (searchWords.length > 0) {
    query = query.where((eb) => eb.or([matchesAll(eb, 'title', searchWords), matchesAll(eb, 'description', searchWords)]))
  }
  return query.orderBy('labels.title').orderBy('labels.id')
}

const labelsWindow = preparedQuery((db: Db, projectIds: readonly number[], groupIds: readonly number[], limit: number, offset: number) =>
  selectLabelsInScope(db, { projectIds, groupIds }).limit(limit).offset(offset),
)

/** The same list to page through; without search words, its pages are read by a prepared query. */
export function labelsInScope(
  db: Db,
  scope: LabelScope,
  searchWords: readonly string[],
): PreparedList<LabelRow> | SelectQueryBuilder<Database, 'labels', LabelRow> {
  if (searchWords.length > 0) return selectLabelsInScope(db, scope, searchWords)
  return {
    window: (limit, offset) => labelsWindow(db, scope.projectIds, scope.groupIds, limit, offset),
    query: () => selectLabelsInScope(db, scope),
  }
}

/**
 * The labels in scope that have a priority in the project, by priority then title (GL Label.prioritized), or those that
 * have none, by title (GL Label.unprioritized), optionally with every search word in the title or description.
 */
export function selectLabelsByPriority(db: Db, scope: LabelScope, projectId: number, prioritized: boolean, searchWords: readonly string[]) {
  let query = db
    .selectFrom('labels')
    .selectAll('labels')
    .where((eb) => inScope(eb, scope))
  if (searchWords.length > 0) {
    query = query.where((eb) => eb.or([matchesAll(eb, 'title', searchWords), matchesAll(eb, 'description', searchWords)]))
  }
  const priority = (eb: Eb) =>
    eb
      .selectFrom('label_priorities')
      .select('label_priorities.priority')
      .whereRef('label_priorities.label_id', '=', 'labels.id')
      .where('label_priorities.project_id', '=', projectId)
  if (!prioritized)
    return query
      .where((eb) => eb.not(eb.exists(priority(eb))))
      .orderBy('labels.title')
      .orderBy('labels.id')
  return query
    .where((eb) => eb.exists(priority(eb)))
    .orderBy((eb) => priority(eb))
    .orderBy('labels.title')
    .orderBy('labels.id')
}

/** Which of these ids are labels in scope. */
export async function findLabelIdsInScope(db: Db, scope: LabelScope, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set()
  const rows = await db
    .selectFrom('labels')
    .select('id')
    .where('id', 'in', ids)
    .where((eb) => inScope(eb, scope))
    .execute()
  return new Set(rows.map((row) => row.id))
}

export function findLabelInScopeById(db: Db, scope: LabelScope, id: number): Promise<LabelRow | undefined> {
  return db
    .selectFrom('labels')
    .selectAll()
    .where('id', '=', id)
    .where((eb) => inScope(eb, scope))
    .executeTakeFirst()
}

/** A label in scope with exactly this title; a project's own before a group's. */
export function findLabelInScopeByTitle(db: Db, scope: LabelScope, title: string): Promise<LabelRow | undefined> {
  return db
    .selectFrom('labels')
    .selectAll()
    .where('title', '=', title)
    .where((eb) => inScope(eb, scope))
    .orderBy(sql`case when project_id is null then 1 else 0 end`)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()
}

/** Another label of the same owner with this title (GL `validates :title, uniqueness: { scope: [:group_id, :project_id] }`). */
export async function hasSiblingWithTitle(
  db: Db,
  owner: { projectId: number | null; groupId: number | null },
  title: string,
  exceptId: number | null,
) {
  let query = db.selectFrom('labels').select('id').where('title', '=', title)
  query = owner.projectId !== null ? query.where('project_id', '=', owner.projectId) : query.where('project_id', 'is', null)
  query = owner.groupId !== null ? query.where('group_id', '=', owner.groupId) : query.where('group_id', 'is', null)
  if (exceptId !== null) query = query.where('id', '<>', exceptId)
  return (await query.limit(1).executeTakeFirst()) !== undefined
}

export function updateLabelRow(
  db: Db,
  id: number,
  changes: Partial<Pick<LabelRow, 'title' | 'color' | 'description' | 'project_id' | 'group_id' | 'updated_at'>>,
): Promise<LabelRow> {
  return db.updateTable('labels').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

/** Removes labels; their issue and merge request links, priorities, subscriptions and counters go by cascade. */
export async function deleteLabelRows(db: Db, ids: readonly number[]) {
  if (ids.length === 0) return
  await db.deleteFrom('labels').where('id', 'in', ids).execute()
}

// A project's priorities and a user's subscriptions in one scope are few: they are read whole, by one query of fixed
// shape (prepared once), and the page's labels picked from them.
const prioritiesOfProject = preparedQuery((db: Db, projectId: number) =>
  db.selectFrom('label_priorities').select(['label_id', 'priority']).where('project_id', '=', projectId),
)

export async function findPriorities(db: Db, projectId: number, labelIds: readonly number[]) {
  if (labelIds.length === 0) return []
  const wanted = new Set(labelIds)
  return (await prioritiesOfProject(db, projectId)).filter((row) => wanted.has(row.label_id))
}

export async function setPriority(db: Db, projectId: number, labelId: number, priority: number) {
  await db
    .insertInto('label_priorities')
    .values({ project_id: projectId, label_id: labelId, priority })
    .onConflict((oc) => oc.columns(['project_id', 'label_id']).doUpdateSet({ priority }))
    .execute()
}

export async function deletePriority(db: Db, projectId: number, labelId: number) {
  await db.deleteFrom('label_priorities').where('project_id', '=', projectId).where('label_id', '=', labelId).execute()
}

/** The labels among `labelIds` the user follows everywhere (project_id null) or, when given, in `projectId`. */
/** A null project matches only subscriptions to labels everywhere (`project_id = null` is never true). */
const subscriptionsInScope = preparedQuery((db: Db, userId: number, projectId: number | null) =>
  db
    .selectFrom('label_subscriptions')
    .select('label_id')
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('project_id', 'is', null), eb('project_id', '=', projectId)])),
)

export async function findSubscribedLabelIds(db: Db, userId: number, labelIds: readonly number[], projectId: number | null) {
  if (labelIds.length === 0) return new Set<number>()
  const wanted = new Set(labelIds)
  return new Set((await subscriptionsInScope(db, userId, projectId)).map((row) => row.label_id).filter((id) => wanted.has(id)))
}

/** Whether the user follows the label at exactly this level (a project, or everywhere when null). */
export async function hasSubscription(db: Db, userId: number, labelId: number, projectId: number | null) {
  const row = await db
    .selectFrom('label_subscriptions')
    .select('id')
    .where('user_id', '=', userId)
    .where('label_id', '=', labelId)
    .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb('project_id', '=', projectId)))
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/** Drops the user's subscriptions to the label at the other level: per-project ones for a global one and back. */
export async function deleteOtherLevelSubscriptions(db: Db, userId: number, labelId: number, projectId: number | null) {
  await db
    .deleteFrom('label_subscriptions')
    .where('user_id', '=', userId)
    .where('label_id', '=', labelId)
    .where((eb) => (projectId === null ? eb('project_id', 'is not', null) : eb('project_id', 'is', null)))
    .execute()
}

export async function insertSubscription(db: Db, userId: number, labelId: number, projectId: number | null, at: string) {
  await db.insertInto('label_subscriptions').values({ user_id: userId, label_id: labelId, project_id: projectId, created_at: at }).execute()
}

export async function deleteSubscription(db: Db, userId: number, labelId: number, projectId: number | null) {
  await db
    .deleteFrom('label_subscriptions')
    .where('user_id', '=', userId)
    .where('label_id', '=', labelId)
    .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb('project_id', '=', projectId)))
    .execute()
}

/** The counter rows of these labels, one per project the label is used in. */
export function findLabelCounts(db: Db, labelIds: readonly number[]) {
  if (labelIds.length === 0) return Promise.resolve([])
  return db.selectFrom('label_counts').selectAll().where('label_id', 'in', labelIds).execute()
}

/**
 * For each (label, state) pair, the confidential issues of these projects carrying one of the labels that the
 * user wrote or is assigned to: the only confidential issues a caller without Planner or Reporter sees.
 */
export function countOwnConfidentialIssues(db: Db, userId: number, labelIds: readonly number[], projectIds: readonly number[]) {
  return db
    .selectFrom('issue_labels')
    .innerJoin('issues', 'issues.id', 'issue_labels.issue_id')
    .select(['issue_labels.label_id as label_id', 'issues.project_id as project_id', 'issues.state as state'])
    .select(sql<number>`count(*)`.as('count'))
    .where('issue_labels.label_id', 'in', labelIds)
    .where('issues.project_id', 'in', projectIds)
    .where('issues.confidential', '<>', 0)
    .where((eb) =>
      eb.or([
        eb('issues.author_id', '=', userId),
        eb.exists(
          eb
            .selectFrom('issue_assignees')
            .select('issue_assignees.user_id')
            .whereRef('issue_assignees.issue_id', '=', 'issues.id')
            .where('issue_assignees.user_id', '=', userId),
        ),
      ]),
    )
    .groupBy(['issue_labels.label_id', 'issues.project_id', 'issues.state'])
    .execute()
}

/** Groups strictly below the one with these traversal ids. */
export function selectDescendantGroups(db: Db, traversalIds: string) {
  return db
    .selectFrom('namespaces')
    .select(['namespaces.id'])
    .where('namespaces.kind', '=', 'group')
    .where('namespaces.traversal_ids', 'like', `${traversalIds}%`)
    .where('namespaces.traversal_ids', '<>', traversalIds)
}

/** Projects directly in these groups. */
export function selectProjectsOfGroups(db: Db, groupIds: readonly number[]) {
  return db.selectFrom('projects').select(['projects.id']).where('projects.namespace_id', 'in', groupIds)
}

export function findProjectsByIds(db: Db, ids: readonly number[]) {
  return db.selectFrom('projects').selectAll('projects').where('projects.id', 'in', ids)
}

/** Promotion (GL Labels::PromoteService): the labels of the group and of its own projects with this title, but one. */
export function findLabelsToMerge(db: Db, groupId: number, title: string, survivorId: number) {
  return db
    .selectFrom('labels')
    .select('id')
    .where('title', '=', title)
    .where('id', '<>', survivorId)
    .where((eb) =>
      eb.or([
        eb('group_id', '=', groupId),
        eb('project_id', 'in', eb.selectFrom('projects').select('projects.id').where('projects.namespace_id', '=', groupId)),
      ]),
    )
    .execute()
}

/** Moves the issue and merge request links of `fromIds` to `toId`; an item linked to both keeps one link. */
export async function moveLabelLinks(db: Db, fromIds: readonly number[], toId: number) {
  await db
    .insertInto('issue_labels')
    .columns(['issue_id', 'label_id'])
    .expression((eb) =>
      eb
        .selectFrom('issue_labels as l')
        .select(['l.issue_id', sql.lit(toId).as('label_id')])
        .distinct()
        .where('l.label_id', 'in', fromIds)
        .where('l.issue_id', 'not in', eb.selectFrom('issue_labels as s').select('s.issue_id').where('s.label_id', '=', toId)),
    )
    .execute()
  await db.deleteFrom('issue_labels').where('label_id', 'in', fromIds).execute()
  await db
    .insertInto('merge_request_labels')
    .columns(['merge_request_id', 'label_id'])
    .expression((eb) =>
      eb
        .selectFrom('merge_request_labels as l')
        .select(['l.merge_request_id', sql.lit(toId).as('label_id')])
        .distinct()
        .where('l.label_id', 'in', fromIds)
        .where(
          'l.merge_request_id',
          'not in',
          eb.selectFrom('merge_request_labels as s').select('s.merge_request_id').where('s.label_id', '=', toId),
        ),
    )
    .execute()
  await db.deleteFrom('merge_request_labels').where('label_id', 'in', fromIds).execute()
}

/** Moves priorities of `fromIds` to `toId`; in a project where `toId` (or an earlier label) has one already, that one stays. */
export async function movePriorities(db: Db, fromIds: readonly number[], toId: number) {
  const rows = await db
    .selectFrom('label_priorities')
    .selectAll()
    .where('label_id', 'in', [toId, ...fromIds])
    .orderBy(sql`case when label_id = ${toId} then 0 else 1 end`)
    .orderBy('label_id')
    .execute()
  const kept = new Map<number, number>()
  for (const row of rows) if (!kept.has(row.project_id)) kept.set(row.project_id, row.priority)
  await db
    .deleteFrom('label_priorities')
    .where('label_id', 'in', [toId, ...fromIds])
    .execute()
  if (kept.size > 0) {
    await db
      .insertInto('label_priorities')
      .values([...kept].map(([projectId, priority]) => ({ project_id: projectId, label_id: toId, priority })))
      .execute()
  }
}

/** Moves subscriptions of `fromIds` to `toId`, one per user: the newest (GL PromoteService `subscribe_users`). */
export async function moveSubscriptions(db: Db, fromIds: readonly number[], toId: number) {
  const labelIds = [toId, ...fromIds]
  const newest = await db
    .selectFrom('label_subscriptions')
    .select(sql<number>`max(id)`.as('id'))
    .where('label_id', 'in', labelIds)
    .groupBy('user_id')
    .execute()
  const keep = newest.map((row) => Number(row.id))
  let removal = db.deleteFrom('label_subscriptions').where('label_id', 'in', labelIds)
  if (keep.length > 0) removal = removal.where('id', 'not in', keep)
  await removal.execute()
  if (keep.length > 0) await db.updateTable('label_subscriptions').set({ label_id: toId }).where('id', 'in', keep).execute()
}

export async function replaceLabelLinks(db: Db, type: LabelledType, id: number, add: readonly number[], remove: readonly number[]) {
  if (type === 'Issue') {
    if (remove.length > 0)
      await db
        .deleteFrom('issue_labels')
        .where('issue_id', '=', id)
        .where('label_id', 'in', [...remove])
        .execute()
    if (add.length > 0)
      await db
        .insertInto('issue_labels')
        .values(add.map((labelId) => ({ issue_id: id, label_id: labelId })))
        .execute()
  } else {
    if (remove.length > 0)
      await db
        .deleteFrom('merge_request_labels')
        .where('merge_request_id', '=', id)
        .where('label_id', 'in', [...remove])
        .execute()
    if (add.length > 0)
      await db
        .insertInto('merge_request_labels')
        .values(add.map((labelId) => ({ merge_request_id: id, label_id: labelId })))
        .execute()
  }
}
