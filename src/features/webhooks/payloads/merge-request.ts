import { AccessLevel } from '../../../core/access.js'
import type { Change } from '../../../core/changes.js'
import type { Context } from '../../../core/context.js'
import type { Db } from '../../../db/index.js'
import type { MergeRequestRow } from '../../../db/schema.js'
import { withAccess } from '../../access/index.js'
import { projectRepositoryDirectory } from '../../repositories/index.js'
import {
  absoluteImageUrls,
  commitAt,
  commitHookAttrs,
  findHookProject,
  projectHookAttrs,
  repositoryHookAttrs,
  userHookAttrs,
  type HookProject,
} from './common.js'
import { rubyUtc } from './formats.js'
import type { HookPayload } from './index.js'
import { hookChanges, labelsHookAttrs, NO_TIME_TRACKING, peopleHookAttrs } from './issuable.js'
import {
  findAssigneeIdsOf,
  findHookMergeRequest,
  findHookUserRow,
  findHookUsers,
  findLabelIdsOf,
  findReviewerIdsOf,
  hasMergedMergeRequestBy,
  hasUnresolvedThread,
} from './issuable-store.js'

// A merge request opened, edited, closed, reopened, merged, approved or updated by a push to its source branch (GL
// MergeRequests::BaseService#execute_hooks with Issuable#to_hook_data and Gitlab::HookData::MergeRequestBuilder).

/** GL Gitlab::HookData::MergeRequestBuilder.safe_hook_attributes, then safe_hook_relations: what `changes` may hold. */
export const MERGE_REQUEST_SAFE_KEYS = [
  'assignee_id',
  'author_id',
  'blocking_discussions_resolved',
  'created_at',
  'description',
  'draft',
  'head_pipeline_id',
  'id',
  'iid',
  'last_edited_at',
  'last_edited_by_id',
  'merge_commit_sha',
  'merge_error',
  'merge_params',
  'merge_status',
  'merge_user_id',
  'merge_when_pipeline_succeeds',
  'milestone_id',
  'reviewer_ids',
  'source_branch',
  'source_project_id',
  'state_id',
  'target_branch',
  'target_project_id',
  'time_estimate',
  'title',
  'updated_at',
  'updated_by_id',
  'prepared_at',
  'assignees',
  'labels',
  'reviewers',
  'total_time_spent',
  'time_change',
]

const STATE_IDS: Record<string, number> = { opened: 1, closed: 2, merged: 3, locked: 4 }

/** GL MergeRequest#diff_head_commit: the source branch's head, else the head the merge request kept. */
async function headCommit(ctx: Context, row: MergeRequestRow, target: HookProject, source: HookProject | null) {
  const targetDir = projectRepositoryDirectory(ctx.config, target.project)
  if (source && row.state !== 'merged') {
    const commit = await commitAt(projectRepositoryDirectory(ctx.config, source.project), `refs/heads/${row.source_branch}`)
    if (commit) return commit
  }
  return commitAt(targetDir, `refs/merge-requests/${row.iid}/head`)
}

/** GL MergeRequest#first_contribution?: an author with no role above Guest and no merged merge request here. */
async function isFirstContribution(ctx: Context, trx: Db, row: MergeRequestRow, target: HookProject): Promise<boolean> {
  const author = await findHookUserRow(trx, row.author_id)
  if (!author) return false
  const tctx = { ...ctx, db: trx, caller: { user: author, credential: null, sudoFrom: null } }
  const { access } = await withAccess(tctx, target.project)
  return access.level <= AccessLevel.GUEST && !(await hasMergedMergeRequestBy(trx, row.project_id, row.author_id))
}

/**
 * GL Gitlab::HookData::MergeRequestBuilder#build: the safe columns as the merge request's attributes hold them, then
 * what the builder adds. Mergeability is checked after a change, as GitLab checks it in the background: an open merge
 * request is `unchecked` when its hooks are told.
 */
export async function mergeRequestHookAttrs(ctx: Context, trx: Db, row: MergeRequestRow, target: HookProject) {
  const { externalUrl } = ctx.config
  const sourceId = row.source_project_id ?? row.project_id
  const source = sourceId === target.project.id ? target : await findHookProject(trx, sourceId)
  const [assigneeIds, reviewerIds, labelIds] = await Promise.all([
    findAssigneeIdsOf(trx, 'MergeRequest', row.id),
    findReviewerIdsOf(trx, row.id),
    findLabelIdsOf(trx, 'MergeRequest', row.id),
  ])
  const unresolved = target.project.only_allow_merge_if_all_discussions_are_resolved === 1 && (await hasUnresolvedThread(trx, row.id))
  const last = await headCommit(ctx, row, target, source)
  const targetAttrs = projectHookAttrs(target, externalUrl)
  return {
    assignee_id: assigneeIds[0] ?? null,
    author_id: row.author_id,
    created_at: rubyUtc(row.created_at),
    description: absoluteImageUrls(row.description, target.project.full_path, externalUrl),
    draft: row.draft === 1,
    head_pipeline_id: null,
    id: row.id,
    iid: row.iid,
    last_edited_at: null,
    last_edited_by_id: null,
    merge_commit_sha: row.merge_commit_sha,
    merge_error: row.merge_error,
    merge_params: row.remove_source_branch === 1 ? { force_remove_source_branch: true } : {},
    merge_status: row.state === 'merged' ? 'can_be_merged' : 'unchecked',
    merge_user_id: row.merged_by_id,
    merge_when_pipeline_succeeds: false,
    milestone_id: row.milestone_id,
    source_branch: row.source_branch,
    source_project_id: sourceId,
    state_id: STATE_IDS[row.state] ?? 1,
    target_branch: row.target_branch,
    target_project_id: row.project_id,
    time_estimate: 0,
    title: row.title,
    updated_at: rubyUtc(row.updated_at),
    updated_by_id: row.updated_by_id,
    prepared_at: rubyUtc(row.created_at),
    assignee_ids: assigneeIds,
    blocking_discussions_resolved: !unresolved,
    detailed_merge_status: row.state === 'opened' ? 'unchecked' : 'not_open',
    first_contribution: await isFirstContribution(ctx, trx, row, target),
    human_time_change: null,
    human_time_estimate: null,
    human_total_time_spent: null,
    labels: await labelsHookAttrs(trx, labelIds),
    last_commit: last ? commitHookAttrs(last, `${externalUrl}/${(source ?? target).project.full_path}`) : null,
    reviewer_ids: reviewerIds,
    source: source ? projectHookAttrs(source, externalUrl) : null,
    state: row.state,
    target: targetAttrs,
    time_change: NO_TIME_TRACKING.time_change,
    total_time_spent: NO_TIME_TRACKING.total_time_spent,
    url: `${targetAttrs.web_url}/-/merge_requests/${row.iid}`,
    work_in_progress: row.draft === 1,
  }
}

/**
 * What a merge request's change sends: `Merge Request Hook`, heard by the target project's hooks and by the system
 * hooks that listen for `merge_requests_events`.
 */
export async function mergeRequestPayloads(
  ctx: Context,
  trx: Db,
  change: Extract<Change, { kind: 'merge_request' }>,
): Promise<HookPayload[]> {
  const row = await findHookMergeRequest(trx, change.mergeRequestId)
  const target = row && (await findHookProject(trx, row.project_id))
  const [actor] = await findHookUsers(trx, [change.actorId])
  if (!row || !target || !actor) return []
  const project = projectHookAttrs(target, ctx.config.externalUrl)
  const objectAttributes: Record<string, unknown> = { ...(await mergeRequestHookAttrs(ctx, trx, row, target)), action: change.action }
  if (change.oldrev !== undefined && !/^0+$/.test(change.oldrev)) objectAttributes.oldrev = change.oldrev
  const assigneeIds = objectAttributes.assignee_ids as number[]
  const reviewerIds = objectAttributes.reviewer_ids as number[]
  const body: Record<string, unknown> = {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: userHookAttrs(actor),
    project,
    object_attributes: objectAttributes,
    labels: objectAttributes.labels,
    changes: await hookChanges(trx, change.changes, MERGE_REQUEST_SAFE_KEYS),
    repository: repositoryHookAttrs(project),
  }
  if (assigneeIds.length > 0) body.assignees = await peopleHookAttrs(trx, assigneeIds)
  if (reviewerIds.length > 0) body.reviewers = await peopleHookAttrs(trx, reviewerIds)
  return [{ event: 'Merge Request Hook', trigger: 'merge_requests_events', scope: 'project', body }]
}
