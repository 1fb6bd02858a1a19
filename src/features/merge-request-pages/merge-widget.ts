import type { MergeRequestRow, ProjectRow } from '../../db/schema.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { timeOf } from '../../web/list-page.js'
import { canUpdateMergeRequest, type LoadedProject } from '../access/index.js'
import { shortCommitId } from '../commits/index.js'
import { userLink } from '../issuable-pages/index.js'
import { requiresFastForward, type ClosingIssue, type MergePanel } from '../merge-requests/index.js'
import { projectPath } from '../projects/index.js'
import { mergeRequestPath } from './paths.js'

// The merge request's state and what can be done about it (GL vue_merge_request_widget): why it cannot be merged, in
// GitLab's words, each check svc knows with whether it passed, how far the source branch is behind, and for those who
// may merge a form with the project's merge method and squash option.

/** GL FAILURE_REASONS: each merge check as the widget lists it. */
const CHECK_NAMES: Record<string, string> = {
  commits_status: 'Source branch exists and contains commits.',
  discussions_not_resolved: 'Unresolved discussions must be resolved.',
  ci_must_pass: 'Pipeline must succeed.',
  conflict: 'Merge conflicts must be resolved.',
  need_rebase: 'Merge request must be rebased, because a fast-forward merge is not possible.',
  draft_status: 'Merge request must not be draft.',
}

/** The checks in GitLab's order (MergeRequest.mergeable_state_checks, then mergeable_git_state_checks). */
const CHECK_ORDER = ['draft_status', 'commits_status', 'discussions_not_resolved', 'ci_must_pass', 'conflict', 'need_rebase'] as const

/** Which checks apply to the project: the pipeline and thread checks only when its settings ask for them. */
function checksOf(project: ProjectRow): string[] {
  return CHECK_ORDER.filter((check) => {
    if (check === 'ci_must_pass') return project.only_allow_merge_if_pipeline_succeeds === 1
    if (check === 'discussions_not_resolved') return project.only_allow_merge_if_all_discussions_are_resolved === 1
    if (check === 'need_rebase') return requiresFastForward(project)
    return true
  })
}

/** The widget's first line when a check failed, as GitLab's merge widget words each state. */
function blockedSentence(status: string, panel: MergePanel, row: MergeRequestRow): Html {
  switch (status) {
    case 'conflict':
      return html`Merge blocked: merge conflicts must be resolved.`
    case 'need_rebase':
      return html`Merge blocked: the source branch must be rebased onto the target branch.`
    case 'discussions_not_resolved':
      return html`Merge blocked: all threads must be resolved.`
    case 'ci_must_pass':
      return html`Merge blocked: pipeline must succeed. Push a commit that fixes the failure.`
    case 'draft_status':
      return html`Merge blocked: Select Mark as ready to remove it from Draft status.`
    case 'commits_status':
      if (panel.sourceBranchExists === false)
        return html`Merge blocked: the source branch <code>${row.source_branch}</code> does not exist.`
      if (panel.targetBranchExists === false)
        return html`Merge blocked: the target branch <code>${row.target_branch}</code> does not exist.`
      return html`Merge blocked: the source branch has no changes to merge.`
    default:
      return html`Merge blocked: the merge request cannot be merged.`
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

/** The merge form: delete the source branch, squash, the commit messages, Merge. */
function mergeForm(loaded: LoadedProject, row: MergeRequestRow, panel: MergePanel, csrfToken: string): Html {
  const { project } = loaded
  const squashOption = project.squash_option
  const squashes = squashOption === 'always' || (squashOption !== 'never' && row.squash === 1)
  return html`<form method="post" action="${mergeRequestPath(loaded, row.iid, '/merge')}" class="mr-merge-form">
    ${csrfField(csrfToken)}
    <input type="hidden" name="sha" value="${panel.view.sha ?? ''}" />
    ${
      panel.mayRemoveSourceBranch
        ? html`<div class="mr-checkbox-field">
            <input type="hidden" name="should_remove_source_branch" value="0" />
            <input
              type="checkbox"
              id="should_remove_source_branch"
              name="should_remove_source_branch"
              value="1"
              ${row.remove_source_branch === 1 ? html`checked` : ''}
            />
            <label class="mr-checkbox-label" for="should_remove_source_branch">Delete source branch</label>
          </div>`
        : ''
    }
    ${
      squashOption === 'always'
        ? html`<p class="help">Squash commits: required in this project.</p>`
        : squashOption === 'never'
          ? ''
          : html`<div class="mr-checkbox-field">
              <input type="hidden" name="squash" value="0" />
              <input type="checkbox" id="squash" name="squash" value="1" ${squashes ? html`checked` : ''} />
              <label class="mr-checkbox-label" for="squash">Squash commits</label>
            </div>`
    }
    <details class="mr-commit-messages">
      <summary>Edit commit message</summary>
      ${
        project.merge_method !== 'ff'
          ? html`<label for="commit_message">Merge commit message</label>
              <textarea id="commit_message" name="commit_message" rows="5">
${panel.mergeMessage}</textarea
              >`
          : ''
      }
      ${
        squashOption !== 'never'
          ? html`<label for="squash_commit_message">Squash commit message</label>
              <textarea id="squash_commit_message" name="squash_commit_message" rows="3">
${panel.squashMessage}</textarea
              >
              <p class="help">Used when the commits are squashed.</p>`
          : ''
      }
    </details>
    <div class="button-row">
      <button type="submit" class="primary">Merge</button>
      <span class="muted"
        >${project.merge_method === 'ff' ? 'Fast-forward merge without a merge commit.' : project.merge_method === 'rebase_merge' ? 'Merge commit with semi-linear history.' : 'Merge commit.'}</span
      >
    </div>
  </form>`
}

/** GL mr_widget_related_links: "Closes issue #2", "Closes issues #1 and #2", each linking to its issue. */
function closingLine(loaded: LoadedProject, closing: readonly ClosingIssue[]): Html {
  if (closing.length === 0) return html``
  const links = closing.map(({ loaded: issueProject, issue }) => {
    const prefix =
      issueProject.project.id === loaded.project.id
        ? ''
        : issueProject.project.namespace_id === loaded.project.namespace_id
          ? issueProject.project.path
          : issueProject.project.full_path
    return html`<a href="/${issueProject.project.full_path}/-/issues/${issue.iid}" title="${issue.title}">${prefix}#${issue.iid}</a>`
  })
  const joined = links.map((link, index) => (index === 0 ? link : index === links.length - 1 ? html` and ${link}` : html`, ${link}`))
  return html`<p class="mr-related">${closing.length === 1 ? 'Closes issue' : 'Closes issues'} ${joined}</p>`
}

/** GL mr_widget_alert_message: why the last rebase (or merge) failed, as one sentence. */
function mergeErrorLine(row: MergeRequestRow, panel: MergePanel): Html {
  if (row.merge_error === null || panel.rebaseInProgress) return html``
  const sentence = row.merge_error.endsWith('.') ? row.merge_error : `${row.merge_error}.`
  return html`<p class="flash mr-merge-error" role="alert">${sentence}</p>`
}

/**
 * What can be done about a draft or a branch behind (GL work_in_progress.vue, mr_widget_rebase.vue): Mark as ready for
 * those who may update it, Rebase for those who may push to the source branch of a project that merges fast-forward
 * or semi-linear (unless it conflicts), "Rebase in progress" while a rebase runs.
 */
function widgetActions(loaded: LoadedProject, row: MergeRequestRow, panel: MergePanel, csrfToken: string | null): Html {
  const user = loaded.access.caller.user
  const assigneeIds = panel.view.assignees.map((assignee) => assignee.id)
  const mayUpdate = user !== null && canUpdateMergeRequest(loaded.access, loaded.project, row, assigneeIds)
  // A conflicting branch cannot be rebased here either: it is rebased locally.
  const status = panel.view.mergeability?.detailedMergeStatus
  const behind = requiresFastForward(loaded.project) && panel.commitsBehind > 0 && status !== 'conflict'
  const markReady =
    row.draft === 1 && mayUpdate && csrfToken !== null
      ? html`<form method="post" action="${mergeRequestPath(loaded, row.iid)}" class="mr-mark-ready">
          ${csrfField(csrfToken)}<input type="hidden" name="_method" value="put" />
          <input type="hidden" name="merge_request[wip_event]" value="ready" />
          <button type="submit" class="primary">Mark as ready</button>
        </form>`
      : ''
  const rebase = panel.rebaseInProgress
    ? html`<span class="mr-rebase-status"
        ><strong>Rebase in progress</strong> &middot; <a href="${mergeRequestPath(loaded, row.iid)}">Refresh</a></span
      >`
    : behind && panel.mayRebase && csrfToken !== null
      ? html`<form method="post" action="${mergeRequestPath(loaded, row.iid, '/rebase')}" class="mr-rebase">
          ${csrfField(csrfToken)}
          <button type="submit" class="${row.draft === 1 ? '' : 'primary'}">Rebase</button>
        </form>`
      : ''
  if (markReady === '' && rebase === '') return html``
  return html`<div class="button-row mr-widget-actions">${markReady} ${rebase}</div>`
}

/** The widget of an open merge request. */
function openWidget(
  loaded: LoadedProject,
  row: MergeRequestRow,
  panel: MergePanel,
  csrfToken: string | null,
  closing: readonly ClosingIssue[],
): Html {
  const status = panel.view.mergeability?.detailedMergeStatus ?? 'unchecked'
  const canMerge = panel.view.detail?.canMerge ?? false
  const checks = checksOf(loaded.project)
  const failed = status !== 'mergeable' && status !== 'unchecked' && status !== 'not_open' ? status : null
  const headline = failed
    ? html`<strong>${blockedSentence(failed, panel, row)}</strong>`
    : status === 'unchecked'
      ? html`<strong>Checking if merge request can be merged&hellip;</strong>`
      : canMerge
        ? html`<strong>Ready to merge!</strong>`
        : html`<strong>Ready to merge by members who can write to the target branch.</strong>`
  // detailed_merge_status names the first check that failed; those after it were not reached.
  const failedAt = failed ? checks.indexOf(failed) : -1
  return html`<section class="box mr-widget ${failed ? 'blocked' : 'ready'}" aria-labelledby="merge-widget-heading">
    <header><h2 id="merge-widget-heading" class="mr-widget-status">${headline}</h2></header>
    <div class="body">
      <ul class="plain mr-checks" aria-label="Merge checks">
        ${checks.map((check, index) => {
          const state = failed === null || index < failedAt ? 'passed' : index === failedAt ? 'failed' : 'pending'
          const word = { passed: 'Passed', failed: 'Failed', pending: 'Not checked yet' }[state]
          return html`<li class="mr-check ${state}" data-check="${check}">
            <span class="badge mr-check-state">${word}</span> ${CHECK_NAMES[check]}
          </li>`
        })}
      </ul>
      ${
        panel.commitsBehind > 0
          ? html`<p class="mr-behind">
              The source branch is
              <a href="${projectPath(loaded, `/-/commits/${row.target_branch}`)}">${plural(panel.commitsBehind, 'commit')} behind</a>
              the target branch.
            </p>`
          : ''
      }
      ${
        failed === 'conflict' && !canMerge
          ? html`<p class="muted">Users who can write to the source or target branches can resolve the conflicts.</p>`
          : ''
      }
      ${mergeErrorLine(row, panel)} ${widgetActions(loaded, row, panel, csrfToken)} ${closingLine(loaded, closing)}
      ${!failed && canMerge && csrfToken !== null ? mergeForm(loaded, row, panel, csrfToken) : ''}
    </div>
  </section>`
}

/** The merge widget for the merge request's state. */
export function mergeWidget(
  loaded: LoadedProject,
  row: MergeRequestRow,
  panel: MergePanel,
  csrfToken: string | null,
  closing: readonly ClosingIssue[] = [],
): Html {
  const { view } = panel
  const target = html`<code class="ref-name">${row.target_branch}</code>`
  if (row.state === 'merged') {
    return html`<section class="box mr-widget merged" aria-labelledby="merge-widget-heading">
      <header>
        <h2 id="merge-widget-heading" class="mr-widget-status">
          Merged by ${view.mergedBy ? userLink(view.mergedBy) : 'someone'} ${row.merged_at ? timeOf(row.merged_at) : ''}
        </h2>
      </header>
      <div class="body">
        <p class="merge-status">
          The changes were merged into ${target}${
            row.merge_commit_sha || row.squash_commit_sha
              ? html` with
                  <a href="${projectPath(loaded, `/-/commit/${row.merge_commit_sha ?? row.squash_commit_sha}`)}"
                    ><code>${shortCommitId((row.merge_commit_sha ?? row.squash_commit_sha)!)}</code></a
                  >`
              : ''
          }.
        </p>
      </div>
    </section>`
  }
  if (row.state === 'closed') {
    return html`<section class="box mr-widget closed" aria-labelledby="merge-widget-heading">
      <header>
        <h2 id="merge-widget-heading" class="mr-widget-status">
          Closed by ${view.closedBy ? userLink(view.closedBy) : 'someone'} ${row.closed_at ? timeOf(row.closed_at) : ''}
        </h2>
      </header>
      <div class="body"><p>The changes were not merged into ${target}.</p></div>
    </section>`
  }
  return openWidget(loaded, row, panel, csrfToken, closing)
}
