import { NotFound } from '../../core/errors.js'
import type { IssueRow } from '../../db/schema.js'
import { errorList, type Refusal } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { capitalized, timeOf } from '../../web/list-page.js'
import {
  canCreateNote,
  canReadProjectIssues,
  canSetIssueMetadata,
  canUpdateIssue,
  findIssue,
  findIssueAssigneeIds,
  type LoadedProject,
} from '../access/index.js'
import { findIncidentAlert, type IncidentAlert } from '../alerts/index.js'
import { issueViewsOf, type IssueView } from '../issues/index.js'
import { projectPage, projectPageRoutes, projectPath, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { commentForm, postIssueComment, type CommentState } from './issue-comments.js'
import {
  choicesFor,
  confidentialInput,
  createIssueFromForm,
  issueFormValuesOf,
  metadataInputs,
  showEditIssueForm,
  showNewIssueForm,
  updateIssueFromForm,
  type IssueFormValues,
  type SidebarRefusal,
} from './issue-forms.js'
import { renderIssueList } from './issue-list.js'
import {
  avatar,
  descriptionOf,
  discussionOf,
  iidOf,
  labelBadge,
  labelIssuesPath,
  loadDiscussion,
  metadataFields,
  sidebarField,
  stateBadge,
  userLink,
} from './shared.js'

// An issue's page (GL Projects::IssuesController#show): its description, details and discussion, and for those who
// may, the comment form, Edit, Close issue / Reopen issue, and the sidebar's form for assignees, labels, milestone, due
// date and confidentiality. An incident shows the alert it was opened for.

/** Where an issue's page is: incidents live under issues/incident, as the API's web_url says (GL Gitlab::UrlBuilder). */
export function issuePath(loaded: LoadedProject, issue: Pick<IssueRow, 'iid' | 'issue_type'>): string {
  return projectPath(loaded, `/-/issues/${issue.issue_type === 'incident' ? 'incident/' : ''}${issue.iid}`)
}

/** One row of an issue list: its title, labels, who opened it when, its milestone, due date and assignees. */
export function issueRow(loaded: LoadedProject, view: IssueView): Html {
  const { issue } = view
  return html`<li class="issuable-row issue-row" id="issue_${issue.iid}">
    <div class="grow">
      <a class="title" href="${issuePath(loaded, issue)}">${issue.title}</a>
      ${issue.confidential === 1 ? html`<span class="badge confidential-badge">Confidential</span>` : ''}
      ${view.labels.map((label) => labelBadge(label, labelIssuesPath(loaded, label.title)))}
      <div class="meta">
        #${issue.iid} · opened ${timeOf(issue.created_at)} by ${view.author.name}
        ${view.milestone ? html` · <span class="milestone-ref">${view.milestone.title}</span>` : ''}
        ${issue.due_date ? html` · due <time datetime="${issue.due_date}">${issue.due_date}</time>` : ''}
      </div>
    </div>
    <div class="meta row-side">
      ${issue.state === 'closed' ? stateBadge('closed') : ''}
      ${view.assignees.length > 0 ? html`<span class="assignee-avatars">${view.assignees.map((user) => avatar(user))}</span>` : ''}
      <span class="comments-count" title="Comments">${view.userNotesCount} ${view.userNotesCount === 1 ? 'comment' : 'comments'}</span>
    </div>
  </li>`
}

/** What the issue page shows again after a refused or previewed form. */
export interface IssuePageState {
  comment?: CommentState
  sidebar?: SidebarRefusal
  status?: number
}

/** The incident's alert: a link to its details page, with its severity, status, start and events (GL's highlight bar). */
function alertBox(alert: IncidentAlert): Html {
  return html`<section class="incident-alert" aria-labelledby="incident-alert-heading">
    <h2 id="incident-alert-heading">Original alert: <a href="${alert.path}">#${alert.iid} ${alert.title}</a></h2>
    <dl class="fields">
      <dt>Severity</dt>
      <dd class="alert-severity">${capitalized(alert.severity)}</dd>
      <dt>Status</dt>
      <dd><span class="badge status-${alert.status}">${capitalized(alert.status)}</span></dd>
      <dt>Alert start time</dt>
      <dd>${timeOf(alert.startedAt)}</dd>
      <dt>Alert events</dt>
      <dd>${alert.events}</dd>
    </dl>
  </section>`
}

/** The sidebar's form: the metadata of the issue, changed in one save (GitLab saves each field from its dropdown). */
async function sidebarForm(
  w: WebRequest,
  loaded: LoadedProject,
  view: IssueView,
  values: IssueFormValues,
  refusal: Refusal | null,
  token: string,
): Promise<Html> {
  const choices = await choicesFor(w, loaded)
  return html`<details class="sidebar-edit" ${refusal ? html`open` : ''}>
    <summary class="button">Edit details</summary>
    <form method="post" action="${issuePath(loaded, view.issue)}" class="issue-sidebar-form" aria-label="Issue details">
      ${csrfField(token)}
      <input type="hidden" name="_method" value="put" />
      ${errorList(refusal?.messages ?? [])}
      ${metadataInputs(values, choices, {
        prefix: 'sidebar',
        multipleAssignees: w.ctx.config.tier !== 'free',
        refusal,
        current: { assignees: view.assignees },
      })}
      <fieldset class="label-choices">
        <legend>Confidentiality</legend>
        ${confidentialInput(values, 'sidebar')}
      </fieldset>
      <div class="button-row"><button type="submit" class="primary">Save changes</button></div>
    </form>
  </details>`
}

/** GET /<project>/-/issues/<iid> (and a refused or previewed form shown again on it). */
export async function renderIssue(w: WebRequest, loaded: LoadedProject, issue: IssueRow, state: IssuePageState = {}) {
  const [[view], description, discussion, assigneeIds, alert] = await Promise.all([
    issueViewsOf(w.ctx, [issue]),
    descriptionOf(w.ctx, loaded, issue.description),
    loadDiscussion(w.ctx, loaded, 'Issue', issue.iid),
    findIssueAssigneeIds(w.ctx.db, issue.id),
    issue.issue_type === 'incident' ? findIncidentAlert(w.ctx, loaded, issue.id) : Promise.resolve(null),
  ])
  const notes = await discussionOf(w.ctx, loaded, discussion)
  const user = w.ctx.caller.user
  const mayUpdate = user !== null && canUpdateIssue(loaded.access, loaded.project, issue, assigneeIds)
  const mayAdmin = user !== null && canSetIssueMetadata(loaded.access, loaded.project)
  const mayComment = user !== null && canCreateNote(loaded.access, loaded.project, { discussionLocked: issue.discussion_locked === 1 })
  const token = user ? await w.csrfToken() : null
  const path = issuePath(loaded, issue)
  const listPath = projectPath(loaded, '/-/issues')
  const stateAction = issue.state === 'closed' ? { value: 'reopen', label: 'Reopen issue' } : { value: 'close', label: 'Close issue' }
  const actions =
    mayUpdate && token
      ? html`<div class="issuable-actions">
          <a class="button" href="${path}/edit">Edit</a>
          <form method="post" action="${path}" class="inline">
            ${csrfField(token)}
            <input type="hidden" name="_method" value="put" />
            <input type="hidden" name="issue[state_event]" value="${stateAction.value}" />
            <button type="submit">${stateAction.label}</button>
          </form>
        </div>`
      : ''
  const sidebar =
    mayAdmin && token
      ? await sidebarForm(w, loaded, view, state.sidebar?.values ?? issueFormValuesOf(view), state.sidebar?.refusal ?? null, token)
      : ''
  const body = html`<div class="issuable-header">
      ${stateBadge(issue.state)}
      ${issue.confidential === 1 ? html`<span class="badge confidential-badge" role="note">Confidential</span>` : ''}
      ${issue.discussion_locked === 1 ? html`<span class="badge locked-badge">Discussion locked</span>` : ''}
      <span class="meta">
        ${issue.issue_type === 'incident' ? 'Incident' : 'Issue'} created ${timeOf(issue.created_at)} by ${userLink(view.author)}
      </span>
      ${actions}
    </div>
    <h1 class="issuable-title">${issue.title}</h1>
    <div class="issuable-layout">
      <div class="issuable-main">
        ${alert ? alertBox(alert) : ''} ${description} ${notes}
        ${commentForm(loaded, issue, { signedIn: user !== null, mayComment, mayUpdate, csrfToken: token, state: state.comment ?? null })}
      </div>
      <aside class="issuable-sidebar" aria-label="Issue details">
        ${sidebar} ${metadataFields(loaded, view)}
        ${sidebarField('Due date', issue.due_date ? html`<time datetime="${issue.due_date}">${issue.due_date}</time>` : '', 'due-date')}
        ${sidebarField('Confidentiality', issue.confidential === 1 ? 'Confidential: only project members with at least the Planner role, the author and assignees can see it.' : 'Not confidential', 'confidentiality')}
        ${
          issue.state === 'closed' && issue.closed_at
            ? sidebarField('Closed', html`${timeOf(issue.closed_at)}${view.closedBy ? html` by ${userLink(view.closedBy)}` : ''}`, 'closed')
            : ''
        }
      </aside>
    </div>`
  return renderProjectPage(
    w,
    loaded,
    {
      title: `${issue.title} (#${issue.iid})`,
      section: 'issues',
      crumbs: [{ text: 'Issues', href: listPath }, { text: `#${issue.iid}` }],
      status: state.status,
    },
    body,
  )
}

/** The issue of the path as the caller may see it (GL IssuePolicy: confidential ones only for those allowed). */
async function findIssueOfPage(w: WebRequest, loaded: LoadedProject): Promise<IssueRow> {
  const iid = iidOf(w.params.issue_iid)
  if (iid === null) throw new NotFound('Issue')
  return findIssue(w.ctx, loaded, iid)
}

/** A page of the project's issues: 404 when the caller may not read them. */
function issuesPage(handler: (w: WebRequest, loaded: LoadedProject) => Promise<unknown>) {
  return projectPage(async (w, loaded) => {
    if (!canReadProjectIssues(loaded.access, loaded.project)) return w.notFound()
    return handler(w, loaded)
  })
}

export function registerIssuePages(web: WebRouter) {
  for (const url of projectPageRoutes('/-/issues')) {
    web.get(url, issuesPage(renderIssueList))
    web.post(url, issuesPage(createIssueFromForm))
  }
  for (const url of projectPageRoutes('/-/issues/new')) web.get(url, issuesPage(showNewIssueForm))
  const showIssue = projectPage(async (w, loaded) => renderIssue(w, loaded, await findIssueOfPage(w, loaded)))
  const updateIssue = projectPage(async (w, loaded) => {
    const issue = await findIssueOfPage(w, loaded)
    return updateIssueFromForm(w, loaded, issue, (sidebar) => renderIssue(w, loaded, issue, { sidebar, status: 422 }))
  })
  const editIssue = projectPage(async (w, loaded) => showEditIssueForm(w, loaded, await findIssueOfPage(w, loaded)))
  for (const prefix of ['/-/issues', '/-/issues/incident']) {
    for (const url of projectPageRoutes(`${prefix}/:issue_iid`)) {
      web.get(url, showIssue)
      web.put(url, updateIssue)
    }
    for (const url of projectPageRoutes(`${prefix}/:issue_iid/edit`)) web.get(url, editIssue)
  }
  // GL `resources :notes` sits outside `/-/`: /<project>/notes?target_type=issue&target_id=<id>.
  for (const url of projectPageRoutes('/notes')) web.post(url, projectPage(postIssueComment))
}
