import { explicitSubscription, setSubscription } from '../notifications/index.js'
import { sql, type SqlBool } from 'kysely'
import { canRead } from '../../core/access.js'
import type { Context } from '../../core/context.js'
import { Conflict, Forbidden, Invalid, RecordNotFound, Unprocessable } from '../../core/errors.js'
import { allocateInternalId } from '../../db/internal-ids.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { LabelRow, MergeRequestRow, MergeRequestUpdate, MilestoneRow, NamespaceRow, ProjectRow, UserRow } from '../../db/schema.js'
import {
  applyMetadata,
  currentLabelsAndAssignees,
  hasCommented,
  issuableEditChanges,
  issuablePartsOf,
  issuableFilterConditions,
  issuableSortColumn,
  mergeRequestCreationChanges,
  mergeRequestWire,
  recordCreation,
  recordStateChange,
  resolveMetadata,
  type IssuableFilters,
  type MetadataInput,
} from '../issuables/index.js'
import { noticeChange } from '../change-notices/index.js'
import { renderMarkdownField, renderSingleLineField } from '../markdown/index.js'
import { createSystemNote, deleteNotesOf } from '../notes/index.js'
import { inSameForkNetwork } from '../projects/index.js'
import { canUpdateBranch, loadRefSubject } from '../protected-refs/index.js'
import { findUsersByIds } from '../users/index.js'
import { headShasOf, loadBranches, mergeabilityOf, mergeChecksInputOf, type LoadedBranches, type MergeabilityView } from './mergeability.js'
import { recordMentions } from './mentions.js'
import {
  findReviewersOf,
  replaceReviewers,
  requestedReviewers,
  reviewerChangeNote,
  reviewerConditions,
  type Reviewer,
} from './reviewers.js'
import { applyApproval, mergeRequestTargetOf, withDescriptionCommands } from './quick-actions.js'
import type { MergeRequestOrder } from './schemas.js'
import {
  deleteMergeRequestRow,
  findMergeRequestAssigneeIds,
  findOpenDuplicate,
  hasMergedMergeRequest,
  insertMergeRequest,
  selectMergeRequests,
  updateMergeRequestRow,
} from './store.js'
import {
  canCreateMergeRequest,
  canDestroyMergeRequest,
  canReadMergeRequests,
  canSetMergeRequestMetadata,
  canTargetMergeRequestsAt,
  canUpdateMergeRequest,
  findMergeRequestByIid,
  findProjectsByIds,
  isFeatureAvailable,
  type LoadedProject,
  readableMergeRequestsCondition,
  withAccess,
} from '../access/index.js'

/** A merge request with everything its entities show. */
export interface MergeRequestView {
  mergeRequest: MergeRequestRow
  project: ProjectRow
  author: UserRow
  mergedBy: UserRow | null
  closedBy: UserRow | null
  labels: LabelRow[]
  assignees: UserRow[]
  reviewers: Reviewer[]
  milestone: MilestoneRow | null
  userNotesCount: number
  /** The head commit as the repositories have it (GL `diff_head_sha`). */
  sha: string | null
  /** Only for the single-merge-request entity. */
  detail?: { subscribed: boolean; firstContribution: boolean; canMerge: boolean; buildsAvailable: boolean }
  /** What the repository says (single merge request only; lists show what was recorded). */
  mergeability?: MergeabilityView
}

const TITLE_MAX = 255
const DESCRIPTION_MAX = 1_048_576

// GL MergeRequest::DRAFT_REGEX: a title starting with [Draft], (Draft) or Draft: marks a draft.
const DRAFT_PATTERN = /^\s*(\[draft\]|\(draft\)|draft:)/i

export function isDraftTitle(title: string): boolean {
  return DRAFT_PATTERN.test(title)
}

/** GL MergeRequest.draft_title and draftless_title: the title with GitLab's "Draft: " prefix, or without any. */
export function draftTitleOf(title: string, draft: boolean): string {
  if (draft) return isDraftTitle(title) ? title : `Draft: ${title}`
  return title.replace(/^\s*(\[draft\]|\(draft\)|draft:)\s*/i, '')
}

/** Loads what the entities need for a page of merge requests. */
export async function mergeRequestViewsOf(ctx: Context, rows: readonly MergeRequestRow[]): Promise<MergeRequestView[]> {
  const [parts, reviewers, projects] = await Promise.all([
    issuablePartsOf(ctx.db, 'MergeRequest', rows),
    findReviewersOf(
      ctx.db,
      rows.map((row) => row.id),
    ),
    findProjectsByIds(ctx.db, [...new Set(rows.map((row) => row.project_id))]),
  ])
  const shas = await headShasOf(ctx, rows, projects)
  const userIds = new Set(
    rows.flatMap((row) => [row.author_id, row.merged_by_id, row.closed_by_id].filter((id): id is number => id !== null)),
  )
  const users = new Map((await findUsersByIds(ctx.db, [...userIds])).map((user) => [user.id, user]))
  const projectById = new Map(projects.map((project) => [project.id, project]))
  return rows.map((row) => ({
    mergeRequest: row,
    project: projectById.get(row.project_id)!,
    author: users.get(row.author_id)!,
    mergedBy: row.merged_by_id === null ? null : (users.get(row.merged_by_id) ?? null),
    closedBy: row.closed_by_id === null ? null : (users.get(row.closed_by_id) ?? null),
    ...parts.get(row.id)!,
    reviewers: reviewers.get(row.id) ?? [],
    sha: shas.get(row.id) ?? null,
  }))
}

/** GL MergeRequest#can_be_merged_by?: the caller may push to, or merge into, the target branch, under its protection. */
export async function canBeMergedBy(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<boolean> {
  return ctx.caller.user !== null && canUpdateBranch(await loadRefSubject(ctx, loaded), row.target_branch)
}

/** The single-merge-request view: the list view plus subscription, first contribution and the caller's `can_merge`. */
export async function showMergeRequest(
  ctx: Context,
  loaded: LoadedProject,
  row: MergeRequestRow,
  loadedBranches?: LoadedBranches | null,
): Promise<MergeRequestView> {
  const [view] = await mergeRequestViewsOf(ctx, [row])
  const user = ctx.caller.user
  // GL Subscribable#subscribed?: the caller's own subscription or unsubscription, else participation.
  const explicit = await explicitSubscription(ctx, 'MergeRequest', row.id)
  const subscribed =
    explicit ??
    (user !== null &&
      (row.author_id === user.id ||
        view.assignees.some((assignee) => assignee.id === user.id) ||
        (await hasCommented(ctx.db, 'MergeRequest', row.id, user.id))))
  // GL MergeRequest#first_contribution?: authors without a role above Guest and without a merged merge request here.
  const author = await withAccess({ ...ctx, caller: { user: view.author, credential: null, sudoFrom: null } }, loaded.project)
  const firstContribution = author.access.level <= 10 && !(await hasMergedMergeRequest(ctx.db, loaded.project.id, row.author_id))
  view.detail = {
    subscribed,
    firstContribution,
    canMerge: await canBeMergedBy(ctx, loaded, row),
    buildsAvailable: isFeatureAvailable(loaded.access, loaded.project, 'builds'),
  }
  const [branches, checks] = await Promise.all([
    loadedBranches !== undefined ? loadedBranches : loadBranches(ctx, row, loaded.project),
    mergeChecksInputOf(ctx, row, loaded.project),
  ])
  view.mergeability = mergeabilityOf(row, loaded.project, branches, checks)
  return view
}

/**
 * POST …/merge_requests/:merge_request_iid/subscribe and /unsubscribe (GL API::Subscriptions): the merge request once
 * the caller's subscription changed; null, for GitLab's 304, when it already was as asked.
 */
export async function subscribeToMergeRequest(
  ctx: Context,
  loaded: LoadedProject,
  row: MergeRequestRow,
  subscribed: boolean,
): Promise<MergeRequestView | null> {
  const view = await showMergeRequest(ctx, loaded, row)
  if (view.detail?.subscribed === subscribed) return null
  await setSubscription(ctx, { type: 'MergeRequest', id: row.id, projectId: row.project_id }, subscribed)
  return { ...view, detail: { ...view.detail!, subscribed } }
}

export interface ListMergeRequestsInput {
  filters: IssuableFilters & { reviewerId?: string; reviewerUsername?: string; sourceBranch?: string; targetBranch?: string }
  orderBy: MergeRequestOrder
  sort: 'asc' | 'desc'
  page: number
  perPage: number
}

/** GL MergeRequestsFinder: merge requests of projects whose merge requests the caller may read. */
async function listWhere(
  ctx: Context,
  scope: { projectId?: number; group?: NamespaceRow },
  input: ListMergeRequestsInput,
): Promise<OffsetPage<MergeRequestRow>> {
  const { filters } = input
  const column = issuableSortColumn(input.orderBy)
  const query = selectMergeRequests(
    ctx.db,
    (eb) => {
      const conditions = [
        readableMergeRequestsCondition(ctx, eb),
        ...issuableFilterConditions(ctx, eb, 'MergeRequest', filters),
        ...reviewerConditions(filters),
      ]
      if (scope.projectId !== undefined) conditions.push(eb('merge_requests.project_id', '=', scope.projectId))
      if (scope.group) {
        conditions.push(
          sql<SqlBool>`projects.namespace_id in (select id from namespaces where traversal_ids like ${`${scope.group.traversal_ids}%`})`,
        )
      }
      if (filters.sourceBranch !== undefined) conditions.push(eb('merge_requests.source_branch', '=', filters.sourceBranch))
      if (filters.targetBranch !== undefined) conditions.push(eb('merge_requests.target_branch', '=', filters.targetBranch))
      return eb.and(conditions)
    },
    column,
    input.sort,
  )
  const ordered = column === 'id' ? query.orderBy('id', input.sort) : query.orderBy('sort_key', input.sort).orderBy('id', input.sort)
  const page = await fetchOffsetPage(ctx.db, ordered, input.page, input.perPage)
  return {
    ...page,
    rows: page.rows.map((row) => {
      const { sort_key: _sortKey, ...mergeRequest } = row as MergeRequestRow & { sort_key?: unknown }
      return mergeRequest
    }),
  }
}

/** GET /projects/:id/merge_requests: refused when the caller may not read the project's merge requests. */
export function listProjectMergeRequests(ctx: Context, loaded: LoadedProject, input: ListMergeRequestsInput) {
  if (!canReadMergeRequests(loaded.access, loaded.project)) throw new Forbidden()
  return listWhere(ctx, { projectId: loaded.project.id }, { ...input, filters: { scope: 'all', ...input.filters } })
}

/** GET /groups/:id/merge_requests: the group's and its subgroups' projects. */
export function listGroupMergeRequests(ctx: Context, group: NamespaceRow, input: ListMergeRequestsInput) {
  return listWhere(ctx, { group }, { ...input, filters: { scope: 'all', ...input.filters } })
}

/** GET /merge_requests: `created_by_me` unless another scope is asked for. */
export function listMergeRequests(ctx: Context, input: ListMergeRequestsInput) {
  return listWhere(ctx, {}, { ...input, filters: { ...input.filters, scope: input.filters.scope ?? 'created_by_me' } })
}

export interface MergeRequestInput extends MetadataInput {
  reviewerIds?: number[]
  title?: string
  description?: string | null
  sourceBranch?: string
  targetBranch?: string
  targetProjectId?: number
  removeSourceBranch?: boolean
  squash?: boolean
  discussionLocked?: boolean
  stateEvent?: 'close' | 'reopen'
  /** GL `wip_event`: marks the merge request as a draft or as ready through its title (the given one or the current). */
  draft?: boolean
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

/** GL MergeRequest#validate_branches: distinct branches, and no other open merge request between the same ones. */
async function validateBranches(
  ctx: Context,
  projects: { target: number; source: number },
  source: string,
  target: string,
  exceptId: number | null,
) {
  const errors: Record<string, string[]> = {}
  if (source.trim() === '') errors.source_branch = ["can't be blank"]
  if (target.trim() === '') errors.target_branch = ["can't be blank"]
  if (Object.keys(errors).length > 0) throw new Invalid(errors)
  if (projects.target === projects.source && source === target) {
    throw new Unprocessable(["You can't use same project/branch for source and target"])
  }
  const duplicate = await findOpenDuplicate(ctx.db, projects, source, target, exceptId)
  if (duplicate) throw new Conflict([`Another open merge request already exists for this source branch: !${duplicate.iid}`])
}

/** The requested assignees and reviewers who can read the project's merge requests, read before the write's transaction. */
async function assignableIn(ctx: Context, loaded: LoadedProject, ids: readonly number[] | undefined) {
  const allowed = new Set<number>()
  for (const user of await findUsersByIds(ctx.db, [...new Set(ids ?? [])])) {
    const { access } = await withAccess({ ...ctx, caller: { user, credential: null, sudoFrom: null } }, loaded.project)
    if (canRead(access) && canReadMergeRequests(access, loaded.project)) allowed.add(user.id)
  }
  return async (user: UserRow) => allowed.has(user.id)
}

/** POST /projects/:id/merge_requests (GL MergeRequests::CreateService), within one project. */
export async function createMergeRequest(
  ctx: Context,
  loaded: LoadedProject,
  input: MergeRequestInput & { title: string; sourceBranch: string; targetBranch: string },
): Promise<MergeRequestView> {
  const user = ctx.caller.user
  if (!user || !canCreateMergeRequest(loaded.access, loaded.project)) throw new Forbidden()
  const source = loaded.project
  const target = await targetProjectOf(ctx, loaded, input.targetProjectId)
  if (target.project.id !== source.id && !(await inSameForkNetwork(ctx.db, source, target.project))) {
    throw new Unprocessable(['Source project is not a fork of the target project'])
  }
  // The description's commands act on the target project, as the merge request will be there.
  input = { ...(await withDescriptionCommands(ctx, mergeRequestTargetOf(ctx, target, null), input, null)).input, title: input.title }
  const title = input.draft === undefined ? input.title : draftTitleOf(input.title, input.draft)
  validateText(title, input.description)
  const projects = { target: target.project.id, source: source.id }
  await validateBranches(ctx, projects, input.sourceBranch, input.targetBranch, null)
  const mayAdmin = canSetMergeRequestMetadata(target.access, target.project)
  const canAssign = await assignableIn(ctx, target, [...(input.assigneeIds ?? []), ...(input.reviewerIds ?? [])])
  const reviewers = mayAdmin && input.reviewerIds ? await requestedReviewers(ctx, ctx.db, input.reviewerIds, canAssign) : []
  const now = ctx.now()
  const at = now.toISOString()
  const row = await ctx.db.transaction().execute(async (trx) => {
    const inserted = await insertMergeRequest(trx, {
      project_id: target.project.id,
      source_project_id: source.id,
      iid: await allocateInternalId(trx, target.project.id, 'merge_requests'),
      author_id: user.id,
      title,
      description: input.description ?? null,
      state: 'opened',
      source_branch: input.sourceBranch,
      target_branch: input.targetBranch,
      draft: isDraftTitle(title) ? 1 : 0,
      squash: input.squash ? 1 : 0,
      remove_source_branch: input.removeSourceBranch ? 1 : 0,
      created_at: at,
      updated_at: at,
    })
    const noteable = { type: 'MergeRequest' as const, id: inserted.id, projectId: target.project.id }
    const change = await resolveMetadata(ctx, trx, target, { labels: [], assigneeIds: [], milestoneId: null }, input, {
      maySetMetadata: mayAdmin,
      canAssign,
    })
    await applyMetadata(trx, noteable, user.id, change, { assignees: [], milestoneId: null }, { at: now, assigneeNote: false })
    await replaceReviewers(trx, inserted.id, [], reviewers, at)
    const saved = change.milestone ? await updateMergeRequestRow(trx, inserted.id, { milestone_id: change.milestone.id }) : inserted
    await recordCreation(trx, noteable, user.id, now)
    await noticeChange(ctx, trx, {
      kind: 'merge_request',
      action: 'open',
      projectId: saved.project_id,
      mergeRequestId: saved.id,
      actorId: user.id,
      changes: mergeRequestCreationChanges(saved),
      at: now,
    })
    return saved
  })
  await recordMentions(ctx, target, row)
  return showMergeRequest(ctx, target, row)
}

/**
 * GL MergeRequests::BuildService#find_target_project: the asked-for project when the caller may create merge requests
 * in it, else the project's default target (its upstream for a fork, unless `mr_default_target_self`), else itself.
 */
async function targetProjectOf(ctx: Context, loaded: LoadedProject, targetProjectId: number | undefined): Promise<LoadedProject> {
  const usable = async (id: number | null | undefined) => {
    if (id === undefined || id === null) return null
    if (id === loaded.project.id) return loaded
    const [project] = await findProjectsByIds(ctx.db, [id])
    if (!project || project.pending_delete) return null
    const candidate = await withAccess(ctx, project)
    return canTargetMergeRequestsAt(candidate.access, project) ? candidate : null
  }
  const asked = await usable(targetProjectId)
  if (asked) return asked
  const upstream = loaded.project.mr_default_target_self === 1 ? null : await usable(loaded.project.forked_from_project_id)
  return upstream ?? loaded
}

/** PUT /projects/:id/merge_requests/:merge_request_iid (GL MergeRequests::UpdateService, CloseService, ReopenService). */
export async function updateMergeRequest(
  ctx: Context,
  loaded: LoadedProject,
  iid: number,
  input: MergeRequestInput,
): Promise<MergeRequestView> {
  const user = ctx.caller.user
  if (!canReadMergeRequests(loaded.access, loaded.project)) throw new RecordNotFound()
  const current = await findMergeRequestByIid(ctx.db, loaded.project.id, iid)
  if (!current) throw new RecordNotFound()
  const assigneeIds = await findMergeRequestAssigneeIds(ctx.db, current.id)
  if (!user || !canUpdateMergeRequest(loaded.access, loaded.project, current, assigneeIds)) throw new Forbidden()
  let approval: 'approve' | 'unapprove' | undefined
  if (input.description !== undefined) {
    const [view] = await mergeRequestViewsOf(ctx, [current])
    ;({ input, approval } = await withDescriptionCommands(ctx, mergeRequestTargetOf(ctx, loaded, view), input, current.description))
  }
  const title = input.draft === undefined ? input.title : draftTitleOf(input.title ?? current.title, input.draft)
  validateText(title, input.description)
  const mayAdmin = canSetMergeRequestMetadata(loaded.access, loaded.project)
  const targetBranch = input.targetBranch ?? current.target_branch
  // GL: closing leaves merged merge requests as they are; only opened and locked ones close, only closed ones reopen.
  const closing = input.stateEvent === 'close' && (current.state === 'opened' || current.state === 'locked')
  const reopening = input.stateEvent === 'reopen' && current.state === 'closed'
  const willBeOpen = reopening || (current.state === 'opened' && !closing)
  if (targetBranch !== current.target_branch || reopening) {
    const sameProject = (current.source_project_id ?? loaded.project.id) === loaded.project.id
    if (sameProject && current.source_branch === targetBranch)
      throw new Unprocessable(["You can't use same project/branch for source and target"])
    if (willBeOpen) {
      const projects = { target: loaded.project.id, source: current.source_project_id ?? loaded.project.id }
      await validateBranches(ctx, projects, current.source_branch, targetBranch, current.id)
    }
  }
  const canAssign = await assignableIn(ctx, loaded, [...(input.assigneeIds ?? []), ...(input.reviewerIds ?? [])])
  const reviewers = mayAdmin && input.reviewerIds ? await requestedReviewers(ctx, ctx.db, input.reviewerIds, canAssign) : undefined
  const now = ctx.now()
  const saved = await ctx.db.transaction().execute(async (trx) => {
    const noteable = { type: 'MergeRequest' as const, id: current.id, projectId: loaded.project.id }
    const { labels: currentLabels, assignees: currentAssignees } = await currentLabelsAndAssignees(trx, 'MergeRequest', current.id)
    const currentReviewers = ((await findReviewersOf(trx, [current.id])).get(current.id) ?? []).map((reviewer) => reviewer.user)
    const reviewersChanged = reviewers !== undefined && reviewers.map((u) => u.id).join(',') !== currentReviewers.map((u) => u.id).join(',')
    const change = await resolveMetadata(
      ctx,
      trx,
      loaded,
      { labels: currentLabels, assigneeIds, milestoneId: current.milestone_id },
      input,
      { maySetMetadata: mayAdmin, canAssign },
    )
    const row: MergeRequestUpdate = {}
    if (title !== undefined && title !== current.title) {
      row.title = title
      row.draft = isDraftTitle(title) ? 1 : 0
    }
    if (input.description !== undefined && input.description !== current.description) row.description = input.description
    if (targetBranch !== current.target_branch) row.target_branch = targetBranch
    if (input.squash !== undefined && (input.squash ? 1 : 0) !== current.squash) row.squash = input.squash ? 1 : 0
    if (input.removeSourceBranch !== undefined && (input.removeSourceBranch ? 1 : 0) !== current.remove_source_branch) {
      row.remove_source_branch = input.removeSourceBranch ? 1 : 0
    }
    if (mayAdmin && input.discussionLocked !== undefined && (input.discussionLocked ? 1 : 0) !== current.discussion_locked) {
      row.discussion_locked = input.discussionLocked ? 1 : 0
    }
    if (change.milestone !== undefined && (change.milestone?.id ?? null) !== current.milestone_id)
      row.milestone_id = change.milestone?.id ?? null
    if (closing) Object.assign(row, { state: 'closed', closed_at: now.toISOString(), closed_by_id: user.id })
    if (reopening) Object.assign(row, { state: 'opened' })
    const metadataChanged =
      change.addedLabels.length > 0 ||
      change.removedLabels.length > 0 ||
      (change.assignees !== undefined && change.assignees.map((u) => u.id).join(',') !== currentAssignees.map((u) => u.id).join(','))
    if (Object.keys(row).length === 0 && !metadataChanged && !reviewersChanged) return current
    row.updated_at = now.toISOString()
    row.updated_by_id = user.id
    const updated = await updateMergeRequestRow(trx, current.id, row)
    await applyMetadata(
      trx,
      noteable,
      user.id,
      change,
      { assignees: currentAssignees, milestoneId: current.milestone_id },
      { at: now, assigneeNote: true },
    )
    if (reviewers !== undefined && (await replaceReviewers(trx, current.id, currentReviewers, reviewers, now.toISOString()))) {
      await createSystemNote(trx, noteable, user.id, reviewerChangeNote(currentReviewers, reviewers)!, now)
    }
    // GL SystemNotes::MergeRequestsService#handle_merge_request_draft.
    if (row.draft !== undefined && row.draft !== current.draft) {
      await createSystemNote(trx, noteable, user.id, `marked this merge request as **${row.draft === 1 ? 'draft' : 'ready'}**`, now)
    }
    // GL SystemNotes::MergeRequestsService#change_branch.
    if (row.target_branch !== undefined) {
      await createSystemNote(trx, noteable, user.id, `changed target branch from \`${current.target_branch}\` to \`${targetBranch}\``, now)
    }
    if (closing) await recordStateChange(trx, noteable, user.id, 'closed', now)
    if (reopening) await recordStateChange(trx, noteable, user.id, 'reopened', now)
    const removed = new Set(change.removedLabels.map((label) => label.id))
    const linksBefore = {
      labelIds: currentLabels.map((label) => label.id),
      assigneeIds: currentAssignees.map((u) => u.id),
      reviewerIds: currentReviewers.map((u) => u.id),
    }
    const linksAfter = {
      labelIds: [...linksBefore.labelIds.filter((id) => !removed.has(id)), ...change.addedLabels.map((label) => label.id)],
      assigneeIds: change.assignees ? change.assignees.map((u) => u.id) : linksBefore.assigneeIds,
      reviewerIds: reviewers ? reviewers.map((u) => u.id) : linksBefore.reviewerIds,
    }
    // GL MergeRequests::UpdateService: the state_event's close or reopen is told first, then the rest of the edit.
    const told = issuableEditChanges(
      { row: mergeRequestWire(current), links: linksBefore },
      { row: mergeRequestWire(updated), links: linksAfter },
    )
    const subject = { kind: 'merge_request', projectId: updated.project_id, mergeRequestId: updated.id, actorId: user.id, at: now } as const
    if (told.state && (closing || reopening))
      await noticeChange(ctx, trx, { ...subject, action: closing ? 'close' : 'reopen', changes: told.state })
    if (told.edit) await noticeChange(ctx, trx, { ...subject, action: 'update', changes: told.edit })
    return updated
  })
  if (saved.title !== current.title || saved.description !== current.description) await recordMentions(ctx, loaded, saved)
  await applyApproval(ctx, loaded, saved, approval)
  return showMergeRequest(ctx, loaded, saved)
}

/** Marks a merge request as a draft or as ready (GL `wip_event` draft and ready): its title gains or loses "Draft: ". */
export function setMergeRequestDraft(ctx: Context, loaded: LoadedProject, iid: number, draft: boolean): Promise<MergeRequestView> {
  return updateMergeRequest(ctx, loaded, iid, { draft })
}

/** DELETE /projects/:id/merge_requests/:merge_request_iid: the project's Owner or an administrator. */
export async function deleteMergeRequest(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<void> {
  if (!canDestroyMergeRequest(loaded.access)) throw new Forbidden()
  await ctx.db.transaction().execute(async (trx) => {
    await deleteNotesOf(trx, { type: 'MergeRequest', id: row.id })
    await deleteMergeRequestRow(trx, row.id)
  })
}

/** GL MergeRequestBasic with `render_html`: the title by the single-line pipeline, the description by the full one. */
export async function renderMergeRequestHtml(ctx: Context, loaded: LoadedProject, mergeRequest: MergeRequestRow) {
  const [title, description] = await Promise.all([
    renderSingleLineField(ctx, mergeRequest.title, { project: loaded }),
    renderMarkdownField(ctx, mergeRequest.description, { project: loaded }),
  ])
  return { title_html: title.html, description_html: description.html }
}
