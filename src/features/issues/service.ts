import { explicitSubscription, setSubscription } from '../notifications/index.js'
import { sql, type SqlBool } from 'kysely'
import { canRead } from '../../core/access.js'
import type { Context } from '../../core/context.js'
import { Forbidden, Invalid, NotAllowed, NotFound, RecordNotFound } from '../../core/errors.js'
import { fetchKeysetPage, fetchOffsetPage, type KeysetPage, type KeysetPosition, type OffsetPage } from '../../db/pagination.js'
import { allocateInternalId } from '../../db/internal-ids.js'
import type { IssueRow, IssueUpdate, LabelRow, MilestoneRow, NamespaceRow, ProjectRow, UserRow } from '../../db/schema.js'
import {
  canCreateIncident,
  canCreateIssue,
  canOwnIssues,
  canReadConfidentialIssues,
  canReadIssue,
  canSetIssueMetadata,
  canUpdateIssue,
  findIssueAssigneeIds,
  findIssue,
  findIssueByIid,
  findProjectsByIds,
  type LoadedProject,
  readableIssuesCondition,
  withAccess,
} from '../access/index.js'
import {
  applyMetadata,
  dueDateChangeNote,
  currentLabelsAndAssignees,
  hasCommented,
  issuableEditChanges,
  issuablePartsOf,
  issuableFilterConditions,
  issueCreationChanges,
  issueWire,
  issuableSortColumn,
  recordCreation,
  recordStateChange,
  resolveMetadata,
  type IssuableFilters,
  type MetadataInput,
} from '../issuables/index.js'
import { noticeChange } from '../change-notices/index.js'
import { createSystemNote, deleteNotesOf } from '../notes/index.js'
import { findUsersByIds } from '../users/index.js'
import { checkSpam, type SpamRequest } from '../spam/index.js'
import { quickActionTargetOf, withDescriptionCommands } from './quick-actions.js'
import { ISSUE_KEYSET_ORDERS, type IssueOrder } from './schemas.js'
import { deleteIssueRow, findIssuesByIds, insertIssue, selectIssues, updateIssueRow } from './store.js'

/** An issue with everything its entity shows. */
export interface IssueView {
  issue: IssueRow
  project: ProjectRow
  author: UserRow
  closedBy: UserRow | null
  labels: LabelRow[]
  assignees: UserRow[]
  milestone: MilestoneRow | null
  userNotesCount: number
  /** Shown on single issues only (GL Entities::Issue `include_subscribed`). */
  subscribed?: boolean
}

/** Where a list was asked from, for the entity's `references.relative`. */
export type ListOrigin = { kind: 'project' } | { kind: 'group'; group: NamespaceRow } | { kind: 'none' }

const TITLE_MAX = 255
const DESCRIPTION_MAX = 1_048_576

/** Loads what the entity needs for a page of issues in a handful of queries. */
export async function issueViewsOf(
  ctx: Context,
  issues: readonly IssueRow[],
  options: { subscribed?: boolean } = {},
): Promise<IssueView[]> {
  const [parts, projects] = await Promise.all([
    issuablePartsOf(ctx.db, 'Issue', issues),
    findProjectsByIds(ctx.db, [...new Set(issues.map((issue) => issue.project_id))]),
  ])
  const userIds = new Set(issues.flatMap((issue) => [issue.author_id, ...(issue.closed_by_id === null ? [] : [issue.closed_by_id])]))
  const users = new Map((await findUsersByIds(ctx.db, [...userIds])).map((user) => [user.id, user]))
  const projectById = new Map(projects.map((project) => [project.id, project]))
  const views: IssueView[] = []
  for (const issue of issues) {
    const view: IssueView = {
      issue,
      project: projectById.get(issue.project_id)!,
      author: users.get(issue.author_id)!,
      closedBy: issue.closed_by_id === null ? null : (users.get(issue.closed_by_id) ?? null),
      ...parts.get(issue.id)!,
    }
    if (options.subscribed) view.subscribed = await isSubscribed(ctx, view)
    views.push(view)
  }
  return views
}

/** GL Subscribable#subscribed?: an explicit subscription or unsubscription, else participants (author, assignees, commenters). */
async function isSubscribed(ctx: Context, view: IssueView): Promise<boolean> {
  const user = ctx.caller.user
  if (!user) return false
  const explicit = await explicitSubscription(ctx, 'Issue', view.issue.id)
  if (explicit !== null) return explicit
  if (view.issue.author_id === user.id || view.assignees.some((assignee) => assignee.id === user.id)) return true
  return hasCommented(ctx.db, 'Issue', view.issue.id, user.id)
}

/**
 * POST /projects/:id/issues/:issue_iid/subscribe and /unsubscribe (GL API::Subscriptions): the issue once the caller's
 * subscription changed; null, for GitLab's 304, when it already was as asked.
 */
export async function subscribeToIssue(ctx: Context, issue: IssueRow, subscribed: boolean): Promise<IssueView | null> {
  const [view] = await issueViewsOf(ctx, [issue], { subscribed: true })
  if (view.subscribed === subscribed) return null
  await setSubscription(ctx, { type: 'Issue', id: issue.id, projectId: issue.project_id }, subscribed)
  return { ...view, subscribed }
}

/** GET /projects/:id/issues/:issue_iid. */
export async function showIssue(ctx: Context, loaded: LoadedProject, issue: IssueRow): Promise<IssueView> {
  void loaded
  const [view] = await issueViewsOf(ctx, [issue], { subscribed: true })
  return view
}

/**
 * The project's issue with this global id as the caller may see it (a comment form names its issue so, as GitLab's
 * `target_id`); NotFound otherwise.
 */
export async function findProjectIssueById(ctx: Context, loaded: LoadedProject, id: number): Promise<IssueRow> {
  const [row] = Number.isSafeInteger(id) && id > 0 && id <= 2147483647 ? await findIssuesByIds(ctx.db, [id]) : []
  if (!row || row.project_id !== loaded.project.id) throw new NotFound('Issue')
  return findIssue(ctx, loaded, row.iid)
}

export interface ListIssuesInput {
  filters: IssuableFilters & { confidential?: boolean; issueType?: string; dueDate?: string }
  orderBy: IssueOrder
  sort: 'asc' | 'desc'
  pagination: { kind: 'offset'; page: number; perPage: number } | { kind: 'keyset'; perPage: number; after: KeysetPosition | null }
}

export type IssuePage = { kind: 'offset'; page: OffsetPage<IssueRow> } | { kind: 'keyset'; page: KeysetPage<IssueRow> }

/** GL IssuesFinder: the issues the caller may read (access's finder), in a project or a group, filtered. */
async function listIssuesWhere(
  ctx: Context,
  scope: { projectId?: number; group?: NamespaceRow },
  input: ListIssuesInput,
): Promise<IssuePage> {
  const { filters } = input
  const column = issuableSortColumn(input.orderBy)
  const query = selectIssues(
    ctx.db,
    (eb) => {
      const conditions = [readableIssuesCondition(ctx, eb), ...issuableFilterConditions(ctx, eb, 'Issue', filters)]
      if (scope.projectId !== undefined) conditions.push(eb('issues.project_id', '=', scope.projectId))
      if (scope.group) {
        conditions.push(
          sql<SqlBool>`projects.namespace_id in (select id from namespaces where traversal_ids like ${`${scope.group.traversal_ids}%`})`,
        )
      }
      if (filters.confidential !== undefined) conditions.push(eb('issues.confidential', '=', filters.confidential ? 1 : 0))
      if (filters.issueType !== undefined) conditions.push(eb('issues.issue_type', '=', filters.issueType))
      return eb.and(conditions)
    },
    column,
    input.sort,
  )
  if (input.pagination.kind === 'keyset') {
    const page = await fetchKeysetPage(query, {
      column: column === 'id' ? 'id' : 'sort_key',
      direction: input.sort,
      after: input.pagination.after,
      perPage: input.pagination.perPage,
    })
    return { kind: 'keyset', page: { ...page, rows: page.rows.map(stripSortKey) } }
  }
  const ordered = column === 'id' ? query.orderBy('id', input.sort) : query.orderBy('sort_key', input.sort).orderBy('id', input.sort)
  const page = await fetchOffsetPage(ctx.db, ordered, input.pagination.page, input.pagination.perPage)
  return { kind: 'offset', page: { ...page, rows: page.rows.map(stripSortKey) } }
}

function stripSortKey(row: IssueRow & { sort_key?: unknown }): IssueRow {
  const { sort_key: _sortKey, ...issue } = row
  return issue
}

/** Keyset pages exist for project issues in the orders the contract lists (spec: Pagination, keyset table). */
function refuseUnsupportedKeyset(input: ListIssuesInput, projectList: boolean) {
  if (input.pagination.kind !== 'keyset') return
  if (!projectList || !ISSUE_KEYSET_ORDERS.includes(input.orderBy)) {
    throw new NotAllowed('Keyset pagination is not yet available for this type of request')
  }
}

/** GET /projects/:id/issues. */
export function listProjectIssues(ctx: Context, loaded: LoadedProject, input: ListIssuesInput): Promise<IssuePage> {
  refuseUnsupportedKeyset(input, true)
  return listIssuesWhere(ctx, { projectId: loaded.project.id }, { ...input, filters: { scope: 'all', ...input.filters } })
}

/** GET /groups/:id/issues: issues of the group's projects and its subgroups' projects. */
export function listGroupIssues(ctx: Context, group: NamespaceRow, input: ListIssuesInput): Promise<IssuePage> {
  refuseUnsupportedKeyset(input, false)
  return listIssuesWhere(ctx, { group }, { ...input, filters: { scope: 'all', ...input.filters } })
}

/** GET /issues: the caller's issues, `created_by_me` unless another scope is asked for. */
export function listIssues(ctx: Context, input: ListIssuesInput): Promise<IssuePage> {
  refuseUnsupportedKeyset(input, false)
  return listIssuesWhere(ctx, {}, { ...input, filters: { ...input.filters, scope: input.filters.scope ?? 'created_by_me' } })
}

export interface IssueInput extends MetadataInput {
  title?: string
  description?: string | null
  confidential?: boolean
  discussionLocked?: boolean
  dueDate?: string | null
  issueType?: string
  createdAt?: string
  updatedAt?: string
  stateEvent?: 'close' | 'reopen'
}

function validateText(title: string | undefined, description: string | null | undefined) {
  const errors: Record<string, string[]> = {}
  if (title !== undefined) {
    if (title.trim() === '') errors.title = ["can't be blank"]
    else if ([...title].length > TITLE_MAX) errors.title = [`is too long (maximum is ${TITLE_MAX} characters)`]
  }
  if (description !== undefined && description !== null && [...description].length > DESCRIPTION_MAX) {
    errors.description = [`is too long (maximum is ${DESCRIPTION_MAX} characters)`]
  }
  if (Object.keys(errors).length > 0) throw new Invalid(errors)
}

/** `due_date` as GitLab's Date parse reads a YEAR-MONTH-DAY string; blank clears it; unreadable is refused as the model would. */
function dueDateOf(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value
  const text = value.trim()
  if (text === '') return null
  const match = /^(\d{4})-(\d{1,2})-(\d{1,2})/.exec(text)
  const date = match ? `${match[1]}-${match[2].padStart(2, '0')}-${match[3].padStart(2, '0')}` : ''
  const parsed = new Date(`${date}T00:00:00.000Z`)
  if (!match || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== date)
    throw new Invalid({ due_date: ['is invalid'] })
  return date
}

/**
 * The requested assignees who can read the project's issues (GL `can?(user, :read_issue, issuable)`, taken at
 * the project), read before the write's transaction.
 */
async function assignableIn(ctx: Context, loaded: LoadedProject, ids: readonly number[] | undefined) {
  const allowed = new Set<number>()
  for (const user of await findUsersByIds(ctx.db, [...new Set(ids ?? [])])) {
    const { access } = await withAccess({ ...ctx, caller: { user, credential: null, sudoFrom: null } }, loaded.project)
    if (canRead(access) && canReadIssue(access, loaded.project, { confidential: 0 } as IssueRow, [])) allowed.add(user.id)
  }
  return async (user: UserRow) => allowed.has(user.id)
}

/** The issue type a caller may set: incidents need Reporter (GL `create_incident`); test cases and tasks are not offered. */
function issueTypeFor(loaded: LoadedProject, wanted: string | undefined): 'issue' | 'incident' | undefined {
  if (wanted === 'issue') return 'issue'
  if (wanted === 'incident' && canCreateIncident(loaded.access)) return 'incident'
  return undefined
}

/** POST /projects/:id/issues (GL Issues::CreateService). */
export async function createIssue(
  ctx: Context,
  loaded: LoadedProject,
  input: IssueInput & { title: string },
  spam: SpamRequest,
): Promise<IssueView> {
  const user = ctx.caller.user
  if (!user || !canCreateIssue(loaded.access, loaded.project)) throw new Forbidden()
  input = { ...(await withDescriptionCommands(ctx, quickActionTargetOf(loaded, null), input, null)), title: input.title }
  const mayAdmin = canSetIssueMetadata(loaded.access, loaded.project)
  validateText(input.title, input.description)
  const dueDate = mayAdmin ? dueDateOf(input.dueDate) : undefined
  await checkSpam(ctx, spam, { type: 'Issue', title: input.title, description: input.description ?? null })
  const now = ctx.now()
  const createdAt = input.createdAt !== undefined && canOwnIssues(loaded.access) ? new Date(input.createdAt) : now
  const at = createdAt.toISOString()
  const canAssign = await assignableIn(ctx, loaded, input.assigneeIds)
  const issue = await ctx.db.transaction().execute(async (trx) => {
    const inserted = await insertIssue(trx, {
      project_id: loaded.project.id,
      iid: await allocateInternalId(trx, loaded.project.id, 'issues'),
      author_id: user.id,
      title: input.title,
      description: input.description ?? null,
      state: 'opened',
      issue_type: issueTypeFor(loaded, input.issueType) ?? 'issue',
      confidential: mayAdmin && input.confidential ? 1 : 0,
      discussion_locked: mayAdmin && input.discussionLocked !== undefined ? (input.discussionLocked ? 1 : 0) : 0,
      due_date: dueDate ?? null,
      created_at: at,
      updated_at: at,
    })
    const noteable = { type: 'Issue' as const, id: inserted.id, projectId: loaded.project.id }
    const change = await resolveMetadata(ctx, trx, loaded, { labels: [], assigneeIds: [], milestoneId: null }, input, {
      maySetMetadata: mayAdmin,
      canAssign,
    })
    await applyMetadata(trx, noteable, user.id, change, { assignees: [], milestoneId: null }, { at: now, assigneeNote: false })
    let row = inserted
    if (change.milestone) row = await updateIssueRow(trx, inserted.id, { milestone_id: change.milestone.id })
    if (row.due_date !== null) await createSystemNote(trx, noteable, user.id, dueDateChangeNote(row.due_date), now)
    await recordCreation(trx, noteable, user.id, now)
    const changes = issueCreationChanges(row)
    await noticeChange(ctx, trx, {
      kind: 'issue',
      action: 'open',
      projectId: row.project_id,
      issueId: row.id,
      actorId: user.id,
      changes,
      at: now,
    })
    return row
  })
  const [view] = await issueViewsOf(ctx, [issue], { subscribed: true })
  return view
}

/** PUT /projects/:id/issues/:issue_iid (GL Issues::UpdateService, CloseService, ReopenService). */
export async function updateIssue(
  ctx: Context,
  loaded: LoadedProject,
  iid: number,
  input: IssueInput,
  spam: SpamRequest,
): Promise<IssueView> {
  const user = ctx.caller.user
  const issue = await findIssueByIid(ctx.db, loaded.project.id, iid)
  if (!issue) throw new RecordNotFound()
  const assigneeIds = await findIssueAssigneeIds(ctx.db, issue.id)
  if (!user || !canUpdateIssue(loaded.access, loaded.project, issue, assigneeIds)) throw new Forbidden()
  if (input.description !== undefined) {
    const [current] = await issueViewsOf(ctx, [issue])
    input = await withDescriptionCommands(ctx, quickActionTargetOf(loaded, current), input, issue.description)
  }
  const mayAdmin = canSetIssueMetadata(loaded.access, loaded.project)
  validateText(input.title, input.description)
  const dueDate = mayAdmin ? dueDateOf(input.dueDate) : undefined
  if (input.title !== undefined || input.description !== undefined) {
    await checkSpam(ctx, spam, {
      type: 'Issue',
      title: input.title ?? issue.title,
      description: input.description !== undefined ? input.description : issue.description,
    })
  }
  const now = ctx.now()
  const owner = canOwnIssues(loaded.access)
  const canAssign = await assignableIn(ctx, loaded, input.assigneeIds)
  const updated = await ctx.db.transaction().execute(async (trx) => {
    const noteable = { type: 'Issue' as const, id: issue.id, projectId: loaded.project.id }
    const { labels: currentLabels, assignees: currentAssignees } = await currentLabelsAndAssignees(trx, 'Issue', issue.id)
    const change = await resolveMetadata(ctx, trx, loaded, { labels: currentLabels, assigneeIds, milestoneId: issue.milestone_id }, input, {
      maySetMetadata: mayAdmin,
      canAssign,
    })
    const row: IssueUpdate = {}
    if (input.title !== undefined && input.title !== issue.title) row.title = input.title
    if (input.description !== undefined && input.description !== issue.description) row.description = input.description
    if (mayAdmin && input.confidential !== undefined && (input.confidential ? 1 : 0) !== issue.confidential)
      row.confidential = input.confidential ? 1 : 0
    if (mayAdmin && input.discussionLocked !== undefined && (input.discussionLocked ? 1 : 0) !== issue.discussion_locked) {
      row.discussion_locked = input.discussionLocked ? 1 : 0
    }
    if (dueDate !== undefined && dueDate !== issue.due_date) row.due_date = dueDate
    const issueType = mayAdmin ? issueTypeFor(loaded, input.issueType) : undefined
    if (issueType !== undefined && issueType !== issue.issue_type) row.issue_type = issueType
    if (change.milestone !== undefined && (change.milestone?.id ?? null) !== issue.milestone_id)
      row.milestone_id = change.milestone?.id ?? null
    if (owner && input.createdAt !== undefined) row.created_at = new Date(input.createdAt).toISOString()
    let stateChange: 'closed' | 'reopened' | null = null
    if (input.stateEvent === 'close' && issue.state === 'opened') {
      stateChange = 'closed'
      Object.assign(row, { state: 'closed', closed_at: now.toISOString(), closed_by_id: user.id })
    } else if (input.stateEvent === 'reopen' && issue.state === 'closed') {
      stateChange = 'reopened'
      Object.assign(row, { state: 'opened', closed_at: null, closed_by_id: null })
    }
    const metadataChanged =
      change.addedLabels.length > 0 ||
      change.removedLabels.length > 0 ||
      (change.assignees !== undefined && change.assignees.map((u) => u.id).join(',') !== currentAssignees.map((u) => u.id).join(','))
    if (Object.keys(row).length === 0 && !metadataChanged) return issue
    row.updated_at = owner && input.updatedAt !== undefined ? new Date(input.updatedAt).toISOString() : now.toISOString()
    row.updated_by_id = user.id
    const saved = await updateIssueRow(trx, issue.id, row)
    await applyMetadata(
      trx,
      noteable,
      user.id,
      change,
      { assignees: currentAssignees, milestoneId: issue.milestone_id },
      { at: now, assigneeNote: true },
    )
    if (row.confidential !== undefined) {
      const body = row.confidential ? 'made the issue confidential' : 'made the issue visible to everyone'
      await createSystemNote(trx, noteable, user.id, body, now)
    }
    if (row.due_date !== undefined) await createSystemNote(trx, noteable, user.id, dueDateChangeNote(row.due_date), now)
    if (stateChange) await recordStateChange(trx, noteable, user.id, stateChange, now)
    const before = { labelIds: currentLabels.map((label) => label.id), assigneeIds: currentAssignees.map((u) => u.id) }
    const removed = new Set(change.removedLabels.map((label) => label.id))
    const after = {
      labelIds: [...before.labelIds.filter((id) => !removed.has(id)), ...change.addedLabels.map((label) => label.id)],
      assigneeIds: change.assignees ? change.assignees.map((u) => u.id) : before.assigneeIds,
    }
    // GL Issues::UpdateService: the state_event's close or reopen is told first, then the rest of the edit.
    const told = issuableEditChanges({ row: issueWire(issue), links: before }, { row: issueWire(saved), links: after })
    const subject = { kind: 'issue', projectId: saved.project_id, issueId: saved.id, actorId: user.id, at: now } as const
    if (told.state && stateChange) {
      await noticeChange(ctx, trx, { ...subject, action: stateChange === 'closed' ? 'close' : 'reopen', changes: told.state })
    }
    if (told.edit) await noticeChange(ctx, trx, { ...subject, action: 'update', changes: told.edit })
    return saved
  })
  const [view] = await issueViewsOf(ctx, [updated], { subscribed: true })
  return view
}

/** DELETE /projects/:id/issues/:issue_iid: the project's Owner or an administrator (GL `destroy_issue`). */
export async function deleteIssue(ctx: Context, loaded: LoadedProject, iid: number): Promise<void> {
  const issue = await findIssueByIid(ctx.db, loaded.project.id, iid)
  if (!issue) throw new NotFound('Issue')
  if (!canOwnIssues(loaded.access)) throw new Forbidden()
  await ctx.db.transaction().execute(async (trx) => {
    await deleteNotesOf(trx, { type: 'Issue', id: issue.id })
    await deleteIssueRow(trx, issue.id)
  })
}

export { canReadConfidentialIssues }
