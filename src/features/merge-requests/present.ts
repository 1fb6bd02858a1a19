import { isoDate } from '../../core/time.js'
import { NO_TIME_STATS, presentLabels, referencesOf, taskCompletionOf } from '../issuables/index.js'
import { presentMilestone } from '../milestones/index.js'
import { presentUserBasic, type PresentOptions } from '../users/index.js'
import { mergeabilityOf, squashesOnMerge } from './mergeability.js'
import type { MergeRequestVersion } from './review.js'
import type { ApprovalState } from './approvals.js'
import type { MergeRequestApprovalsJson, MergeRequestBasicJson, MergeRequestDiffJson, MergeRequestJson } from './schemas.js'
import type { MergeRequestView } from './service.js'

export interface MergeRequestPresentOptions extends PresentOptions {
  withLabelsDetails: boolean
  origin: Parameters<typeof referencesOf>[3]
}

/**
 * GL Entities::MergeRequestBasic. Lists do not check mergeability (GL rechecks asynchronously): merge_status and
 * detailed_merge_status of open merge requests stay "unchecked" there, while sha is read from the refs; the single
 * merge request shows the repository's answer. Pipelines are always null.
 */
export function presentMergeRequestBasic(view: MergeRequestView, options: MergeRequestPresentOptions): MergeRequestBasicJson {
  const { mergeRequest: mr, project } = view
  const assignees = view.assignees.map((user) => presentUserBasic(user, options))
  const mergedBy = view.mergedBy ? presentUserBasic(view.mergedBy, options) : null
  const draft = mr.draft === 1
  const mergeability = view.mergeability ?? mergeabilityOf(mr, project, null)
  return {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.project_id,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: mr.created_at,
    updated_at: mr.updated_at,
    merged_by: mergedBy,
    merge_user: mergedBy,
    merged_at: mr.merged_at,
    closed_by: view.closedBy ? presentUserBasic(view.closedBy, options) : null,
    closed_at: mr.closed_at,
    target_branch: mr.target_branch,
    source_branch: mr.source_branch,
    user_notes_count: view.userNotesCount,
    upvotes: 0,
    downvotes: 0,
    author: presentUserBasic(view.author, options),
    assignees,
    assignee: assignees[0] ?? null,
    reviewers: view.reviewers.map((reviewer) => presentUserBasic(reviewer.user, options)),
    source_project_id: mr.source_project_id ?? mr.project_id,
    target_project_id: mr.project_id,
    labels: presentLabels(view.labels, options.withLabelsDetails),
    draft,
    imported: false,
    imported_from: 'none',
    work_in_progress: draft,
    milestone: view.milestone
      ? presentMilestone(view.milestone, {
          externalUrl: options.externalUrl,
          projectFullPath: project.full_path,
          today: isoDate(options.now),
        })
      : null,
    merge_when_pipeline_succeeds: false,
    merge_status: mergeability.mergeStatus,
    detailed_merge_status: mergeability.detailedMergeStatus,
    merge_after: null,
    sha: view.mergeability ? view.mergeability.sha : view.sha,
    merge_commit_sha: mr.merge_commit_sha,
    squash_commit_sha: mr.squash_commit_sha,
    discussion_locked: mr.discussion_locked === 1 ? true : null,
    should_remove_source_branch: null,
    force_remove_source_branch: mr.remove_source_branch === 1,
    prepared_at: null,
    reference: `!${mr.iid}`,
    references: referencesOf('!', mr.iid, project, options.origin),
    web_url: `${options.externalUrl}/${project.full_path}/-/merge_requests/${mr.iid}`,
    time_stats: NO_TIME_STATS,
    squash: mr.squash === 1,
    squash_on_merge: squashesOnMerge(project, mr),
    task_completion_status: taskCompletionOf(mr.description),
    has_conflicts: mergeability.hasConflicts,
    blocking_discussions_resolved: true,
  }
}

/** GL Entities::MergeRequest: the basic entity and what only a single merge request shows. */
export function presentMergeRequest(view: MergeRequestView, options: MergeRequestPresentOptions): MergeRequestJson {
  const detail = view.detail ?? { subscribed: false, firstContribution: false, canMerge: false, buildsAvailable: false }
  return {
    ...presentMergeRequestBasic(view, options),
    subscribed: detail.subscribed,
    changes_count: view.mergeability?.changesCount ?? null,
    ...(detail.buildsAvailable
      ? {
          latest_build_started_at: null,
          latest_build_finished_at: null,
          first_deployed_to_production_at: null,
          pipeline: null,
          head_pipeline: null,
        }
      : {}),
    diff_refs: view.mergeability?.diffRefs ?? null,
    merge_error: view.mergeRequest.merge_error,
    first_contribution: detail.firstContribution,
    user: { can_merge: detail.canMerge },
  }
}

/** GL Entities::MergeRequestDiff. */
export function presentMergeRequestVersion(version: MergeRequestVersion): MergeRequestDiffJson {
  return {
    id: version.id,
    head_commit_sha: version.head_commit_sha,
    base_commit_sha: version.base_commit_sha,
    start_commit_sha: version.start_commit_sha,
    created_at: version.created_at,
    merge_request_id: version.merge_request_id,
    state: version.state,
    real_size: version.real_size,
    patch_id_sha: version.patch_id_sha,
  }
}

export function presentMergeRequestApprovals(state: ApprovalState, options: PresentOptions): MergeRequestApprovalsJson {
  return {
    user_has_approved: state.userHasApproved,
    user_can_approve: state.userCanApprove,
    approved: state.approvals.length > 0,
    approved_by: state.approvals.map((approval) => ({ user: presentUserBasic(approval.user, options), approved_at: approval.approvedAt })),
  }
}
