import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Context } from '../../core/context.js'
import { ParamError } from '../../core/errors.js'
import { toSentence } from '../../core/sentence.js'
import type { Db } from '../../db/index.js'
import type { Database, LabelRow, MilestoneRow, UserRow } from '../../db/schema.js'
import { type LoadedProject } from '../access/index.js'
import { recordEvent } from '../event-log/index.js'
import { findOrCreateLabelsByTitles, relabel } from '../labels/index.js'
import { createSystemNote, type Noteable } from '../notes/index.js'
import type { IssuableFilterParams } from './schemas.js'
import { findUsersByIds } from '../users/index.js'
import { clearMilestone, findProjectMilestone, replaceAssignees, touchIssuableRow, type IssuableType } from './store.js'

// Lists join issuables with projects under aliases, so the builder's table set varies by query.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Eb = ExpressionBuilder<Database, any>

/** What an issue or merge request carries besides its own columns. */
export interface IssuableLinks {
  labels: LabelRow[]
  assigneeIds: number[]
  milestoneId: number | null
}

/** Label, assignee and milestone params as the API takes them. */
export interface MetadataInput {
  labels?: string[]
  addLabels?: string[]
  removeLabels?: string[]
  assigneeIds?: number[]
  milestoneId?: number | null
}

/** What a write changes in labels, assignees and milestone; undefined parts stay as they are. */
export interface MetadataChange {
  addedLabels: LabelRow[]
  removedLabels: LabelRow[]
  assignees?: UserRow[]
  milestone?: MilestoneRow | null
}

/** Label titles from `labels=a, b` or arrays whose items hold commas themselves, trimmed, blanks dropped. */
export function labelTitlesOf(values: readonly string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined
  return values.flatMap((value) => value.split(',').map((title) => title.trim())).filter((title) => title !== '')
}

/**
 * GL IssuableBaseService#filter_params and process_label_ids: callers who may not set metadata have their
 * labels, assignees and milestone dropped silently; unknown milestones clear it, assignees who cannot see the
 * project are dropped, and only one assignee stays unless the tier allows several.
 */
export async function resolveMetadata(
  ctx: Context,
  trx: Db,
  loaded: LoadedProject,
  current: IssuableLinks,
  input: MetadataInput,
  options: { maySetMetadata: boolean; canAssign: (user: UserRow) => Promise<boolean> },
): Promise<MetadataChange> {
  const change: MetadataChange = { addedLabels: [], removedLabels: [] }
  if (!options.maySetMetadata) return change
  const at = ctx.now()
  const currentIds = new Set(current.labels.map((label) => label.id))
  const labels = labelTitlesOf(input.labels)
  const adding = labelTitlesOf(input.addLabels)
  const removing = labelTitlesOf(input.removeLabels)
  let wanted: LabelRow[] | null = null
  if (labels !== undefined) {
    wanted = await findOrCreateLabelsByTitles(trx, loaded.project, loaded.namespace, labels, { mayCreate: true, at })
  } else if (adding !== undefined || removing !== undefined) {
    const added = adding ? await findOrCreateLabelsByTitles(trx, loaded.project, loaded.namespace, adding, { mayCreate: true, at }) : []
    const removedTitles = new Set(removing ?? [])
    wanted = [...current.labels, ...added].filter((label) => !removedTitles.has(label.title))
  }
  if (wanted !== null) {
    const wantedIds = new Set(wanted.map((label) => label.id))
    const seen = new Set<number>()
    change.addedLabels = wanted.filter((label) => !currentIds.has(label.id) && !seen.has(label.id) && seen.add(label.id))
    change.removedLabels = current.labels.filter((label) => !wantedIds.has(label.id))
  }
  if (input.assigneeIds !== undefined) {
    const multiple = ctx.config.tier !== 'free'
    const ids = [...new Set(input.assigneeIds.filter((id) => id > 0))]
    const users = new Map((await findUsersByIds(trx, ids)).map((user) => [user.id, user]))
    const assignees: UserRow[] = []
    for (const id of ids) {
      const user = users.get(id)
      if (user && (await options.canAssign(user))) assignees.push(user)
    }
    change.assignees = multiple ? assignees : assignees.slice(0, 1)
  }
  if (input.milestoneId !== undefined) {
    const id = input.milestoneId
    change.milestone = id === null || id <= 0 ? null : ((await findProjectMilestone(trx, loaded.project.id, id)) ?? null)
  }
  return change
}

/** GL SystemNotes::IssuablesService#change_label: "added ~1 ~2 and removed ~3 labels". */
export function labelChangeNote(added: readonly LabelRow[], removed: readonly LabelRow[]): string | null {
  if (added.length === 0 && removed.length === 0) return null
  const parts: string[] = []
  if (added.length > 0) {
    parts.push(`added ${added.map((label) => `~${label.id}`).join(' ')}`)
    if (removed.length > 0) parts.push('and')
  }
  if (removed.length > 0) parts.push(`removed ${removed.map((label) => `~${label.id}`).join(' ')}`)
  parts.push(added.length + removed.length === 1 ? 'label' : 'labels')
  return parts.join(' ')
}

/** A note on who was added to and removed from a list of users: "<added> @a and <removed> @b"; null for no change. */
export function peopleChangeNote(
  before: readonly UserRow[],
  after: readonly UserRow[],
  words: { added: string; removed: string },
): string | null {
  const beforeIds = new Set(before.map((user) => user.id))
  const afterIds = new Set(after.map((user) => user.id))
  const added = after.filter((user) => !beforeIds.has(user.id))
  const removed = before.filter((user) => !afterIds.has(user.id))
  const parts: string[] = []
  if (added.length > 0) parts.push(`${words.added} ${toSentence(added.map((user) => `@${user.username}`))}`)
  if (removed.length > 0) parts.push(`${words.removed} ${toSentence(removed.map((user) => `@${user.username}`))}`)
  return parts.length > 0 ? parts.join(' and ') : null
}

/** GL SystemNotes::IssuablesService#change_issuable_assignees: "assigned to @a and unassigned @b". */
export function assigneeChangeNote(before: readonly UserRow[], after: readonly UserRow[]): string | null {
  return peopleChangeNote(before, after, { added: 'assigned to', removed: 'unassigned' })
}

/** GL SystemNotes::IssuablesService#change_milestone: "changed milestone to %3" or "removed milestone". */
export function milestoneChangeNote(milestone: MilestoneRow | null): string {
  return milestone ? `changed milestone to %${milestone.iid}` : 'removed milestone'
}

/**
 * Writes the label, assignee and milestone parts of a change with their system notes, in the caller's
 * transaction. `previousAssignees` are the users assigned before, for the assignee note.
 */
export async function applyMetadata(
  trx: Db,
  noteable: Noteable,
  authorId: number,
  change: MetadataChange,
  previous: { assignees: UserRow[]; milestoneId: number | null },
  options: { at: Date; assigneeNote: boolean },
): Promise<void> {
  const type: IssuableType = noteable.type
  const note = async (body: string | null) => {
    if (body !== null) await createSystemNote(trx, noteable, authorId, body, options.at)
  }
  if (change.addedLabels.length > 0 || change.removedLabels.length > 0) {
    await relabel(
      trx,
      { type, id: noteable.id },
      { add: change.addedLabels.map((label) => label.id), remove: change.removedLabels.map((label) => label.id) },
    )
    await note(labelChangeNote(change.addedLabels, change.removedLabels))
  }
  if (change.milestone !== undefined && (change.milestone?.id ?? null) !== previous.milestoneId) {
    await note(milestoneChangeNote(change.milestone))
  }
  if (change.assignees !== undefined) {
    const before = previous.assignees.map((user) => user.id).join(',')
    const after = change.assignees.map((user) => user.id).join(',')
    if (before !== after) {
      await replaceAssignees(
        trx,
        type,
        noteable.id,
        change.assignees.map((user) => user.id),
      )
      if (options.assigneeNote) await note(assigneeChangeNote(previous.assignees, change.assignees))
    }
  }
}

/** A close, reopen or merge: its system note ("closed", "reopened", "merged") and its event, in the caller's transaction. */
export async function recordStateChange(trx: Db, noteable: Noteable, authorId: number, action: 'closed' | 'reopened' | 'merged', at: Date) {
  await createSystemNote(trx, noteable, authorId, action, at)
  await recordEvent(trx, { projectId: noteable.projectId, authorId, action, target: { type: noteable.type, id: noteable.id }, at })
}

/** The creation event of an issue or merge request. */
export async function recordCreation(trx: Db, noteable: Noteable, authorId: number, at: Date) {
  await recordEvent(trx, {
    projectId: noteable.projectId,
    authorId,
    action: 'created',
    target: { type: noteable.type, id: noteable.id },
    at,
  })
}

/** The filters both lists share (GL IssuableFinder), read from the API's params. */
export interface IssuableFilters {
  state?: string
  labels?: string[]
  milestone?: string
  /** A milestone by id (the milestone's own issues and merge requests). */
  milestoneId?: number
  iids?: number[]
  search?: string
  in?: string
  authorId?: number
  authorUsername?: string
  assigneeId?: string
  assigneeUsernames?: string[]
  createdAfter?: string
  createdBefore?: string
  updatedAfter?: string
  updatedBefore?: string
  scope?: string
}

/** The shared filters of a list request's params (GL IssuableFinder params). */
export function issuableFiltersOf(input: IssuableFilterParams & { state?: string }): IssuableFilters {
  return {
    state: input.state,
    labels: input.labels,
    milestone: input.milestone,
    iids: input.iids,
    search: input.search,
    in: input.in,
    authorId: input.author_id,
    authorUsername: input.author_username,
    assigneeId: input.assignee_id,
    assigneeUsernames: input.assignee_username,
    createdAfter: input.created_after,
    createdBefore: input.created_before,
    updatedAfter: input.updated_after,
    updatedBefore: input.updated_before,
    scope: input.scope,
  }
}

/** The column a list order sorts by; orders GitLab ranks by data svc does not keep fall back to creation order. */
export function issuableSortColumn(orderBy: string): string {
  switch (orderBy) {
    case 'label_priority':
    case 'priority':
      return 'created_at'
    case 'popularity':
      return 'id'
    default:
      return orderBy
  }
}

/** A user filter such as `assignee_id`: a user id, `None` or `Any` (Grape's values check); anything else is refused. */
export function userFilterOf(name: string, value: string | undefined): 'none' | 'any' | number | undefined {
  if (value === undefined) return undefined
  const lower = value.toLowerCase()
  if (lower === 'none' || lower === 'any') return lower
  if (/^\d+$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value)
  throw new ParamError(`${name} does not have a valid value`)
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`)
}

/**
 * GL IssuableFinder's filters as conditions on `table` (issues or merge_requests), joined with `projects`.
 * `scope` needs the caller; anonymous callers' own-items scopes match nothing, as GitLab answers them.
 */
export function issuableFilterConditions(ctx: Context, eb: Eb, type: IssuableType, filters: IssuableFilters): Expression<SqlBool>[] {
  const table = type === 'Issue' ? 'issues' : 'merge_requests'
  const col = (name: string) => sql.ref(`${table}.${name}`)
  const labelJoin =
    type === 'Issue' ? { table: 'issue_labels', key: 'issue_id' } : { table: 'merge_request_labels', key: 'merge_request_id' }
  const assigneeJoin =
    type === 'Issue' ? { table: 'issue_assignees', key: 'issue_id' } : { table: 'merge_request_assignees', key: 'merge_request_id' }
  const conditions: Expression<SqlBool>[] = []
  const user = ctx.caller.user
  const assignedTo = (userIds: Expression<unknown>) =>
    sql<SqlBool>`exists (select 1 from ${sql.table(assigneeJoin.table)} a where a.${sql.ref(assigneeJoin.key)} = ${col('id')} and a.user_id in (${userIds}))`
  if (filters.state && filters.state !== 'all') conditions.push(eb(col('state'), '=', filters.state))
  const scope = filters.scope?.replace(/-/g, '_')
  if (scope === 'created_by_me') conditions.push(user ? eb(col('author_id'), '=', user.id) : sql<SqlBool>`1 = 0`)
  if (scope === 'assigned_to_me') conditions.push(user ? assignedTo(sql`${user.id}`) : sql<SqlBool>`1 = 0`)
  if (filters.iids && filters.iids.length > 0) conditions.push(eb(col('iid'), 'in', filters.iids))
  if (filters.authorId !== undefined) conditions.push(eb(col('author_id'), '=', filters.authorId))
  if (filters.authorUsername !== undefined) {
    conditions.push(sql<SqlBool>`${col('author_id')} in (select id from users where lower(username) = lower(${filters.authorUsername}))`)
  }
  const assignee = userFilterOf('assignee_id', filters.assigneeId)
  const anyAssignee = sql<SqlBool>`exists (select 1 from ${sql.table(assigneeJoin.table)} a where a.${sql.ref(assigneeJoin.key)} = ${col('id')})`
  if (assignee === 'none') conditions.push(sql<SqlBool>`not ${anyAssignee}`)
  else if (assignee === 'any') conditions.push(anyAssignee)
  else if (assignee !== undefined) conditions.push(assignedTo(sql`${assignee}`))
  if (filters.assigneeUsernames && filters.assigneeUsernames.length > 0 && assignee === undefined) {
    for (const username of filters.assigneeUsernames) {
      conditions.push(assignedTo(sql`select id from users where lower(username) = lower(${username})`))
    }
  }
  if (filters.labels !== undefined) {
    const titles = labelTitlesOf(filters.labels) ?? []
    const lower = titles.map((title) => title.toLowerCase())
    const labelled = (extra: Expression<unknown> = sql``) =>
      sql<SqlBool>`exists (select 1 from ${sql.table(labelJoin.table)} j join labels l on l.id = j.label_id where j.${sql.ref(labelJoin.key)} = ${col('id')}${extra})`
    if (lower.includes('none')) conditions.push(sql<SqlBool>`not ${labelled()}`)
    else if (lower.includes('any')) conditions.push(labelled())
    else for (const title of new Set(titles)) conditions.push(labelled(sql` and l.title = ${title}`))
  }
  if (filters.milestone !== undefined) {
    const lower = filters.milestone.toLowerCase()
    if (lower === 'none') conditions.push(eb(col('milestone_id'), 'is', null))
    else if (lower === 'any') conditions.push(eb(col('milestone_id'), 'is not', null))
    else conditions.push(sql<SqlBool>`${col('milestone_id')} in (select id from milestones where title = ${filters.milestone})`)
  }
  if (filters.milestoneId !== undefined) conditions.push(eb(col('milestone_id'), '=', filters.milestoneId))
  if (filters.search !== undefined && filters.search.trim() !== '') {
    const fields = (filters.in ?? 'title,description')
      .split(',')
      .map((field) => field.trim())
      .filter((field) => field === 'title' || field === 'description')
    const term = filters.search.trim()
    // GL Gitlab::SQL::Pattern: terms under three characters must match whole; longer ones match inside.
    const matches = (field: string) =>
      term.length >= 3
        ? sql<SqlBool>`lower(coalesce(${col(field)}, '')) like ${`%${escapeLike(term.toLowerCase())}%`} escape '\\'`
        : sql<SqlBool>`lower(coalesce(${col(field)}, '')) = ${term.toLowerCase()}`
    conditions.push(fields.length > 0 ? eb.or(fields.map(matches)) : sql<SqlBool>`1 = 0`)
  }
  if (filters.createdAfter) conditions.push(eb(col('created_at'), '>=', filters.createdAfter))
  if (filters.createdBefore) conditions.push(eb(col('created_at'), '<=', filters.createdBefore))
  if (filters.updatedAfter) conditions.push(eb(col('updated_at'), '>=', filters.updatedAfter))
  if (filters.updatedBefore) conditions.push(eb(col('updated_at'), '<=', filters.updatedBefore))
  return conditions
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']

/** GL SystemNotes::TimeTrackingService#change_due_date: "changed due date to November 20, 2022" or "removed due date". */
export function dueDateChangeNote(dueDate: string | null): string {
  if (dueDate === null) return 'removed due date'
  const [year, month, day] = dueDate.split('-').map(Number)
  return `changed due date to ${MONTHS[month - 1]} ${day}, ${year}`
}

/**
 * A deleted milestone leaves every issue and merge request it was on, each touched (GL Milestones::DestroyService);
 * call it inside the transaction that deletes the milestone.
 */
export async function detachMilestoneFromIssuables(trx: Db, milestoneId: number, at: Date): Promise<void> {
  await clearMilestone(trx, milestoneId, at.toISOString())
}

/**
 * A note's save touches its issue or merge request (GL Note `after_save :touch_noteable`); the notes routes run it
 * inside the note's transaction.
 */
export async function touchIssuable(trx: Db, noteable: Noteable, at: string): Promise<void> {
  await touchIssuableRow(trx, noteable.type, noteable.id, at)
}
