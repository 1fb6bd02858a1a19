import { DomainError, Forbidden, NotFound } from '../../core/errors.js'
import type { MergeRequestRow } from '../../db/schema.js'
import { errorList, refusalOf, type Refusal } from '../../web/form-errors.js'
import { csrfField, html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import { canSetMergeRequestMetadata, canUpdateMergeRequest, type LoadedProject } from '../access/index.js'
import { mergeRequestViewsOf, setMergeRequestDraft, updateMergeRequest, type MergeRequestView } from '../merge-requests/index.js'
import { projectPage, projectPageRoutes, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { labelChoices, milestoneChoices, peopleChoices } from '../issuable-pages/index.js'
import { branchNamesOf } from './choices.js'
import {
  allowsSeveralPeople,
  formValuesOf,
  mergeRequestFields,
  mergeRequestParams,
  serviceInputOf,
  type FormChoices,
  type MergeRequestFormValues,
} from './form.js'
import { findMergeRequestOfPage } from './pages.js'
import { mergeRequestPath, mergeRequestsPath } from './paths.js'

// Editing a merge request (GL Projects::MergeRequestsController#edit and #update, MergeRequests::UpdateService): title,
// description, target branch, and for Developers assignees, reviewers, labels and milestone; its merge options. The
// same PUT closes and reopens it from the page's buttons (`merge_request[state_event]`), and marks it as a draft or as
// ready (`merge_request[wip_event]`).

async function viewOf(w: WebRequest, row: MergeRequestRow): Promise<MergeRequestView> {
  const [view] = await mergeRequestViewsOf(w.ctx, [row])
  return view
}

/** GL `update_merge_request`: Developers, the author, an assignee. */
function mayUpdate(w: WebRequest, loaded: LoadedProject, view: MergeRequestView): boolean {
  return (
    w.ctx.caller.user !== null &&
    canUpdateMergeRequest(
      loaded.access,
      loaded.project,
      view.mergeRequest,
      view.assignees.map((user) => user.id),
    )
  )
}

function valuesOf(view: MergeRequestView): MergeRequestFormValues {
  const mr = view.mergeRequest
  return {
    title: mr.title,
    description: mr.description ?? '',
    targetBranch: mr.target_branch,
    assigneeIds: view.assignees.map((user) => user.id),
    reviewerIds: view.reviewers.map((reviewer) => reviewer.user.id),
    labels: view.labels.map((label) => label.title),
    milestoneId: view.milestone?.id ?? null,
    squash: mr.squash === 1,
    removeSourceBranch: mr.remove_source_branch === 1,
  }
}

async function choicesOf(w: WebRequest, loaded: LoadedProject, row: MergeRequestRow): Promise<FormChoices> {
  const mayAdmin = canSetMergeRequestMetadata(loaded.access, loaded.project)
  const [people, labels, milestones, branches] = await Promise.all([
    mayAdmin ? peopleChoices(w.ctx, loaded) : [],
    mayAdmin ? labelChoices(w.ctx, loaded) : [],
    mayAdmin ? milestoneChoices(w.ctx, loaded) : [],
    branchNamesOf(w.ctx, loaded),
  ])
  // The target branch as it is stays a choice even when it is gone.
  const targetBranches = branches.includes(row.target_branch) ? branches : [row.target_branch, ...branches]
  return { mayAdmin, people, labels, milestones, multiplePeople: allowsSeveralPeople(w.ctx), targetBranches, project: loaded.project }
}

async function editForm(
  w: WebRequest,
  loaded: LoadedProject,
  view: MergeRequestView,
  values: MergeRequestFormValues,
  refusal: Refusal | null,
) {
  const mr = view.mergeRequest
  const token = await w.csrfToken()
  const body = html`<h1>Edit merge request !${mr.iid}</h1>
    <p class="mr-compare-line">
      From <code class="ref-name">${mr.source_branch}</code> into <code class="ref-name">${mr.target_branch}</code>
    </p>
    ${errorList(refusal?.messages ?? [])}
    <form method="post" action="${mergeRequestPath(loaded, mr.iid)}" class="mr-form">
      ${csrfField(token)}<input type="hidden" name="_method" value="put" />
      ${mergeRequestFields(values, await choicesOf(w, loaded, mr), refusal)}
      <div class="button-row">
        <button type="submit" class="primary">Save changes</button>
        <a class="button" href="${mergeRequestPath(loaded, mr.iid)}">Cancel</a>
      </div>
    </form>`
  return renderProjectPage(
    w,
    loaded,
    {
      title: `Edit ${mr.title} (!${mr.iid})`,
      section: 'merge_requests',
      crumbs: [
        { text: 'Merge requests', href: mergeRequestsPath(loaded) },
        { text: `!${mr.iid}`, href: mergeRequestPath(loaded, mr.iid) },
        { text: 'Edit' },
      ],
      status: refusal ? 422 : 200,
    },
    body,
  )
}

/** GET /-/merge_requests/<iid>/edit: the 404 page for those who may not update it. */
async function showEdit(w: WebRequest, loaded: LoadedProject) {
  const view = await viewOf(w, await findMergeRequestOfPage(w, loaded))
  if (!mayUpdate(w, loaded, view)) return w.notFound()
  return editForm(w, loaded, view, valuesOf(view), null)
}

/** PUT /-/merge_requests/<iid>: the edit form's changes, or Close / Reopen; then the merge request's page. */
async function update(w: WebRequest, loaded: LoadedProject) {
  const view = await viewOf(w, await findMergeRequestOfPage(w, loaded))
  if (!mayUpdate(w, loaded, view)) return w.notFound()
  const mr = view.mergeRequest
  const form = mergeRequestParams(w.params)
  const stateEvent = textOf(form.state_event)
  try {
    if (form.title === undefined && (stateEvent === 'close' || stateEvent === 'reopen')) {
      await updateMergeRequest(w.ctx, loaded, mr.iid, { stateEvent })
      return w.redirect(mergeRequestPath(loaded, mr.iid))
    }
    // GL toggle_draft_merge_request_path: Mark as draft and Mark as ready send `wip_event` alone.
    const wipEvent = textOf(form.wip_event)
    if (form.title === undefined && (wipEvent === 'draft' || wipEvent === 'ready')) {
      await setMergeRequestDraft(w.ctx, loaded, mr.iid, wipEvent === 'draft')
      return w.redirect(mergeRequestPath(loaded, mr.iid))
    }
    const values = formValuesOf(w.params)
    try {
      const choices = await choicesOf(w, loaded, mr)
      await updateMergeRequest(w.ctx, loaded, mr.iid, {
        ...serviceInputOf(values, choices),
        targetBranch: values.targetBranch === '' ? undefined : values.targetBranch,
      })
    } catch (error) {
      if (!(error instanceof DomainError) || error instanceof NotFound || error instanceof Forbidden) throw error
      return editForm(w, loaded, view, values, refusalOf(error))
    }
    return w.redirect(mergeRequestPath(loaded, mr.iid))
  } catch (error) {
    if (error instanceof Forbidden) return w.notFound()
    throw error
  }
}

export function registerEditMergeRequestPages(web: WebRouter) {
  for (const url of projectPageRoutes('/-/merge_requests/:merge_request_iid/edit')) web.get(url, projectPage(showEdit))
  for (const url of projectPageRoutes('/-/merge_requests/:merge_request_iid')) web.put(url, projectPage(update))
}
