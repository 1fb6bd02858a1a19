import { DomainError, NotFound } from '../../core/errors.js'
import type { IssueRow, LabelRow, MilestoneRow, UserRow } from '../../db/schema.js'
import { errorList, fieldError, refusalOf, type Refusal } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { canCreateIssue, canSetIssueMetadata, canUpdateIssue, findIssueAssigneeIds, type LoadedProject } from '../access/index.js'
import { createIssue, issueViewsOf, updateIssue, type IssueInput, type IssueView } from '../issues/index.js'
import { projectPath, renderProjectPage } from '../projects/index.js'
import type { WebRequest } from '../sessions/index.js'
import { spamRequestOf } from '../spam/index.js'
import { peopleChoices, labelChoices, milestoneChoices } from './choices.js'
import { issuePath } from './issues.js'
import { previewOf } from './shared.js'

// The issue forms (GL Projects::IssuesController#new, #create, #edit, #update): title, description with a preview
// that works without JavaScript, confidentiality, and for those who may set them (as the API's service decides)
// assignees, labels, milestone and due date. They act through the API's own services, so a page refuses what the
// API refuses, in the same words, beside the field.

/** What an issue form holds, as typed. */
export interface IssueFormValues {
  title: string
  description: string
  confidential: boolean
  assigneeIds: number[]
  labelIds: number[]
  milestoneId: number | null
  dueDate: string
}

/** Which fields the form sent: the sidebar sends only the metadata, a Close button only the state. */
interface IssueFormFields {
  values: IssueFormValues
  sent: Set<keyof IssueFormValues>
  stateEvent: 'close' | 'reopen' | null
}

/** The choices the metadata fields offer. */
export interface IssueChoices {
  labels: LabelRow[]
  milestones: MilestoneRow[]
  assignees: UserRow[]
}

/** How the refusals name the fields, as GitLab's forms label them. */
const ATTRIBUTES = { due_date: 'Due date' }

function lastText(value: unknown): string {
  if (Array.isArray(value)) return lastText(value[value.length - 1])
  return typeof value === 'string' ? value : ''
}

function idsOf(value: unknown): number[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value]
  return [
    ...new Set(
      list
        .filter((item): item is string => typeof item === 'string' && /^\d{1,10}$/.test(item))
        .map(Number)
        .filter((id) => id > 0),
    ),
  ]
}

/** The `issue[...]` fields of a form (Rails' names: `issue[label_ids][]`, `issue[assignee_ids][]`, `issue[milestone_id]`). */
export function readIssueForm(params: Record<string, unknown>): IssueFormFields {
  const form = params.issue
  const fields = form && typeof form === 'object' && !Array.isArray(form) ? (form as Record<string, unknown>) : {}
  const sent = new Set<keyof IssueFormValues>()
  const has = (name: string, key: keyof IssueFormValues) => {
    if (name in fields) sent.add(key)
    return fields[name]
  }
  const milestone = lastText(has('milestone_id', 'milestoneId'))
  const state = lastText(fields.state_event)
  return {
    values: {
      title: lastText(has('title', 'title')),
      description: lastText(has('description', 'description')),
      confidential: lastText(has('confidential', 'confidential')) === '1',
      assigneeIds: idsOf(has('assignee_ids', 'assigneeIds')),
      labelIds: idsOf(has('label_ids', 'labelIds')),
      milestoneId: /^\d{1,10}$/.test(milestone) && Number(milestone) > 0 ? Number(milestone) : null,
      dueDate: lastText(has('due_date', 'dueDate')).trim(),
    },
    sent,
    stateEvent: state === 'close' || state === 'reopen' ? state : null,
  }
}

/** The values of an issue as it is, for its edit form and sidebar. */
export function issueFormValuesOf(view: IssueView): IssueFormValues {
  return {
    title: view.issue.title,
    description: view.issue.description ?? '',
    confidential: view.issue.confidential === 1,
    assigneeIds: view.assignees.map((user) => user.id),
    labelIds: view.labels.map((label) => label.id),
    milestoneId: view.issue.milestone_id,
    dueDate: view.issue.due_date ?? '',
  }
}

const EMPTY_VALUES: IssueFormValues = {
  title: '',
  description: '',
  confidential: false,
  assigneeIds: [],
  labelIds: [],
  milestoneId: null,
  dueDate: '',
}

/** The service's input for the fields the form sent; labels go by title, as the API takes them. */
function issueInputOf(fields: IssueFormFields, labels: readonly LabelRow[]): IssueInput {
  const { values, sent } = fields
  const input: IssueInput = {}
  if (sent.has('title')) input.title = values.title
  if (sent.has('description')) input.description = values.description
  if (sent.has('confidential')) input.confidential = values.confidential
  if (sent.has('assigneeIds')) input.assigneeIds = values.assigneeIds
  if (sent.has('labelIds')) {
    const byId = new Map(labels.map((label) => [label.id, label.title]))
    input.labels = values.labelIds.flatMap((id) => byId.get(id) ?? [])
  }
  if (sent.has('milestoneId')) input.milestoneId = values.milestoneId
  if (sent.has('dueDate')) input.dueDate = values.dueDate
  if (fields.stateEvent) input.stateEvent = fields.stateEvent
  return input
}

export async function choicesFor(w: WebRequest, loaded: LoadedProject): Promise<IssueChoices> {
  const [labels, milestones, assignees] = await Promise.all([
    labelChoices(w.ctx, loaded),
    milestoneChoices(w.ctx, loaded),
    peopleChoices(w.ctx, loaded),
  ])
  return { labels, milestones, assignees }
}

function option(value: string | number, label: string, selected: boolean): Html {
  return html`<option value="${value}" ${selected ? html`selected` : ''}>${label}</option>`
}

/**
 * Assignees, labels, milestone and due date, under `prefix` ids. One assignee on the free tier, as GitLab's free
 * sidebar offers; several otherwise. Labels are checkboxes; a hidden empty value says "none" when none is ticked.
 */
export function metadataInputs(
  values: IssueFormValues,
  choices: IssueChoices,
  options: { prefix: string; multipleAssignees: boolean; refusal: Refusal | null; current?: { assignees: readonly UserRow[] } },
): Html {
  const { prefix, refusal } = options
  const people = new Map([...(options.current?.assignees ?? []), ...choices.assignees].map((user) => [user.id, user]))
  const assignees = [...people.values()].sort((a, b) => a.name.localeCompare(b.name))
  const milestones = choices.milestones.filter((milestone) => milestone.state === 'active' || milestone.id === values.milestoneId)
  const dueDateState = refusal?.byField.due_date ? html`aria-invalid="true" aria-describedby="${prefix}_due_date_error"` : ''
  return html`<label for="${prefix}_assignee_ids">${options.multipleAssignees ? 'Assignees' : 'Assignee'}</label>
    ${
      options.multipleAssignees
        ? html`<input type="hidden" name="issue[assignee_ids][]" value="0" />
            <select id="${prefix}_assignee_ids" name="issue[assignee_ids][]" multiple size="4">
              ${assignees.map((user) => option(user.id, `${user.name} (@${user.username})`, values.assigneeIds.includes(user.id)))}
            </select>`
        : html`<select id="${prefix}_assignee_ids" name="issue[assignee_ids][]">
            ${option(0, 'Unassigned', values.assigneeIds.length === 0)}
            ${assignees.map((user) => option(user.id, `${user.name} (@${user.username})`, values.assigneeIds[0] === user.id))}
          </select>`
    }
    <fieldset class="label-choices">
      <legend>Labels</legend>
      <input type="hidden" name="issue[label_ids][]" value="" />
      ${
        choices.labels.length === 0
          ? html`<p class="help">This project has no labels yet.</p>`
          : html`<div class="checkbox-list">
              ${choices.labels.map(
                (label) =>
                  html`<label class="checkbox-label" for="${prefix}_label_${label.id}"
                    ><input type="checkbox" id="${prefix}_label_${label.id}" name="issue[label_ids][]" value="${label.id}" ${
                      values.labelIds.includes(label.id) ? html`checked` : ''
                    } />
                    <svg class="label-dot" width="10" height="10" viewBox="0 0 10 10" aria-hidden="true" focusable="false">
                      <circle cx="5" cy="5" r="5" fill="${label.color}" /></svg
                    >${label.title}</label
                  >`,
              )}
            </div>`
      }
    </fieldset>
    <label for="${prefix}_milestone_id">Milestone</label>
    <select id="${prefix}_milestone_id" name="issue[milestone_id]">
      ${option('', 'No milestone', values.milestoneId === null)}
      ${milestones.map((milestone) => option(milestone.id, milestone.title, values.milestoneId === milestone.id))}
    </select>
    <label for="${prefix}_due_date">Due date</label>
    <input type="date" id="${prefix}_due_date" name="issue[due_date]" value="${values.dueDate}" ${dueDateState} />
    ${fieldError(refusal, 'due_date', `${prefix}_due_date`)}`
}

/** The confidentiality checkbox (Rails' check_box: a hidden 0, then the box's 1). */
export function confidentialInput(values: IssueFormValues, prefix: string): Html {
  return html`<div class="checkbox-field">
    <input type="hidden" name="issue[confidential]" value="0" />
    <input type="checkbox" id="${prefix}_confidential" name="issue[confidential]" value="1" ${values.confidential ? html`checked` : ''} />
    <label class="checkbox-label" for="${prefix}_confidential">This issue is confidential and should only be visible to team members with at least the Planner role.</label>
  </div>`
}

interface IssueFormState {
  mode: 'new' | 'edit'
  issue: IssueRow | null
  values: IssueFormValues
  refusal: Refusal | null
  preview: Html | null
}

/** The new and edit forms. */
async function renderIssueForm(w: WebRequest, loaded: LoadedProject, state: IssueFormState) {
  const { values, refusal } = state
  const mayAdmin = canSetIssueMetadata(loaded.access, loaded.project)
  const choices = mayAdmin ? await choicesFor(w, loaded) : null
  const token = await w.csrfToken()
  const listPath = projectPath(loaded, '/-/issues')
  const action = state.issue ? issuePath(loaded, state.issue) : listPath
  const invalid = (attribute: string, id: string) =>
    refusal?.byField[attribute] ? html`aria-invalid="true" aria-describedby="${id}_error"` : html`aria-describedby="${id}_help"`
  const heading = state.mode === 'new' ? 'New issue' : `Edit issue #${state.issue!.iid}`
  const body = html`<h1>${heading}</h1>
    ${errorList(refusal?.messages ?? [])}
    <form method="post" action="${action}" class="issue-form" novalidate>
      ${csrfField(token)} ${state.issue ? html`<input type="hidden" name="_method" value="put" />` : ''}
      <label for="issue_title">Title (required)</label>
      <input type="text" id="issue_title" name="issue[title]" value="${values.title}" maxlength="255" required ${invalid('title', 'issue_title')} />
      ${fieldError(refusal, 'title', 'issue_title')}
      <label for="issue_description">Description</label>
      <textarea id="issue_description" name="issue[description]" rows="10" ${invalid('description', 'issue_description')}>${values.description}</textarea>
      ${fieldError(refusal, 'description', 'issue_description')}
      <p class="help" id="issue_description_help">
        Supports Markdown. Quick actions such as <code>/label ~bug</code>, <code>/assign me</code> or <code>/due tomorrow</code> run when
        the issue is saved.
      </p>
      ${state.preview ?? ''} ${mayAdmin ? confidentialInput(values, 'issue') : ''}
      ${
        choices
          ? metadataInputs(values, choices, {
              prefix: 'issue',
              multipleAssignees: w.ctx.config.tier !== 'free',
              refusal,
            })
          : ''
      }
      <div class="button-row">
        <button type="submit" class="primary" name="button" value="save">${state.mode === 'new' ? 'Create issue' : 'Save changes'}</button>
        <button type="submit" name="button" value="preview">Preview</button>
        <a class="button" href="${state.issue ? issuePath(loaded, state.issue) : listPath}">Cancel</a>
      </div>
    </form>`
  const crumbs = [
    { text: 'Issues', href: listPath },
    ...(state.issue ? [{ text: `#${state.issue.iid}`, href: issuePath(loaded, state.issue) }, { text: 'Edit' }] : [{ text: 'New' }]),
  ]
  return renderProjectPage(
    w,
    loaded,
    {
      title: state.mode === 'new' ? 'New issue' : `Edit ${state.issue!.title} (#${state.issue!.iid})`,
      section: 'issues',
      crumbs,
      status: refusal ? 422 : 200,
    },
    body,
  )
}

/** GET /<project>/-/issues/new: anyone who may open an issue; a visitor is sent to sign in. */
export async function showNewIssueForm(w: WebRequest, loaded: LoadedProject) {
  if (!w.ctx.caller.user) return w.redirectToSignIn()
  if (!canCreateIssue(loaded.access, loaded.project)) return w.notFound()
  // GitLab's new-issue links may fill the form: `?issue[title]=...&issue[description]=...`.
  const values = { ...EMPTY_VALUES, ...readIssueForm(w.params).values }
  return renderIssueForm(w, loaded, { mode: 'new', issue: null, values, refusal: null, preview: null })
}

/** POST /<project>/-/issues: opens the issue through the API's service and shows it. */
export async function createIssueFromForm(w: WebRequest, loaded: LoadedProject) {
  if (!w.ctx.caller.user || !canCreateIssue(loaded.access, loaded.project)) return w.notFound()
  const fields = readIssueForm(w.params)
  const values = { ...EMPTY_VALUES, ...fields.values }
  if (w.params.button === 'preview') {
    const preview = await previewOf(w.ctx, loaded, values.description, 'issue_description_preview')
    return renderIssueForm(w, loaded, { mode: 'new', issue: null, values, refusal: null, preview })
  }
  try {
    const labels = fields.sent.has('labelIds') ? await labelChoices(w.ctx, loaded) : []
    const input = { ...issueInputOf(fields, labels), title: values.title }
    const view = await createIssue(w.ctx, loaded, input, spamRequestOf(w.request.headers, w.request.ip))
    return w.redirect(issuePath(loaded, view.issue))
  } catch (error) {
    if (!(error instanceof DomainError) || error instanceof NotFound) throw error
    return renderIssueForm(w, loaded, { mode: 'new', issue: null, values, refusal: refusalOf(error, ATTRIBUTES), preview: null })
  }
}

async function mayUpdate(loaded: LoadedProject, w: WebRequest, issue: IssueRow): Promise<boolean> {
  if (!w.ctx.caller.user) return false
  return canUpdateIssue(loaded.access, loaded.project, issue, await findIssueAssigneeIds(w.ctx.db, issue.id))
}

/** GET /<project>/-/issues/<iid>/edit: for those who may edit the issue (its author, assignees, Planners and up). */
export async function showEditIssueForm(w: WebRequest, loaded: LoadedProject, issue: IssueRow) {
  if (!(await mayUpdate(loaded, w, issue))) return w.notFound()
  const [view] = await issueViewsOf(w.ctx, [issue])
  return renderIssueForm(w, loaded, { mode: 'edit', issue, values: issueFormValuesOf(view), refusal: null, preview: null })
}

/** How the issue page shows a refused sidebar form. */
export type SidebarRefusal = { values: IssueFormValues; refusal: Refusal }

/**
 * PUT /<project>/-/issues/<iid>: the edit form, the sidebar's form, and the Close and Reopen buttons, through the
 * API's update. A caller who may not update the issue gets the 404 page, as GitLab's `authorize_update_issuable!`.
 */
export async function updateIssueFromForm(
  w: WebRequest,
  loaded: LoadedProject,
  issue: IssueRow,
  renderWithSidebarRefusal: (refused: SidebarRefusal) => Promise<unknown>,
) {
  if (!(await mayUpdate(loaded, w, issue))) return w.notFound()
  const fields = readIssueForm(w.params)
  const isEditForm = fields.sent.has('title')
  const [current] = await issueViewsOf(w.ctx, [issue])
  const values = { ...issueFormValuesOf(current), ...Object.fromEntries([...fields.sent].map((key) => [key, fields.values[key]])) }
  if (isEditForm && w.params.button === 'preview') {
    const preview = await previewOf(w.ctx, loaded, values.description, 'issue_description_preview')
    return renderIssueForm(w, loaded, { mode: 'edit', issue, values, refusal: null, preview })
  }
  try {
    const labels = fields.sent.has('labelIds') ? await labelChoices(w.ctx, loaded) : []
    const updated = await updateIssue(
      w.ctx,
      loaded,
      issue.iid,
      issueInputOf(fields, labels),
      spamRequestOf(w.request.headers, w.request.ip),
    )
    if (fields.stateEvent && updated.issue.state !== issue.state) {
      await w.flash('notice', fields.stateEvent === 'close' ? 'Closed this issue.' : 'Reopened this issue.')
    }
    return w.redirect(issuePath(loaded, updated.issue))
  } catch (error) {
    if (!(error instanceof DomainError) || error instanceof NotFound) throw error
    const refusal = refusalOf(error, ATTRIBUTES)
    if (isEditForm) return renderIssueForm(w, loaded, { mode: 'edit', issue, values, refusal, preview: null })
    return renderWithSidebarRefusal({ values, refusal })
  }
}
