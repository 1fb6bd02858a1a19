import { Forbidden, Invalid } from '../../core/errors.js'
import type { MilestoneRow } from '../../db/schema.js'
import { describedBy, errorIdOf } from '../../web/described-by.js'
import { errorList, fieldError, refusalOf, type Refusal } from '../../web/form-errors.js'
import { csrfField, html } from '../../web/html.js'
import { canAdminMilestones, canReadMilestones, type LoadedProject } from '../access/index.js'
import { createMilestone, deleteMilestone, InvalidMilestone, listMilestones, updateMilestone } from '../milestones/index.js'
import { projectPage, projectPageRoutes, projectPath, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { submitForm } from './form-submission.js'
import { modelFields, seeOther } from './forms.js'
import { iidOf } from './shared.js'

// Creating, editing, closing, reopening and deleting milestones (GL Projects::MilestonesController), through the
// milestones services, so the page refuses what the API refuses, each message beside its field.

export const NO_FILTERS = { iids: null, title: null, search: null, searchTitle: null, updatedBefore: null, updatedAfter: null }

export function milestonesPath(loaded: LoadedProject, suffix = ''): string {
  return projectPath(loaded, `/-/milestones${suffix}`)
}

export function milestonePath(loaded: LoadedProject, milestone: Pick<MilestoneRow, 'iid'>, suffix = ''): string {
  return milestonesPath(loaded, `/${milestone.iid}${suffix}`)
}

/** The project's milestone of the path's iid, when the visitor may read milestones; null otherwise. */
export async function milestoneOf(w: WebRequest, loaded: LoadedProject): Promise<MilestoneRow | null> {
  const iid = iidOf(w.params.milestone_iid)
  if (iid === null || !canReadMilestones(loaded.access, loaded.project)) return null
  const found = await listMilestones(w.ctx, loaded, { ...NO_FILTERS, state: null, iids: [iid], page: 1, perPage: 1 })
  return found.rows[0] ?? null
}

interface MilestoneValues {
  title: string
  start_date: string
  due_date: string
  description: string
}

const FIELD_NAMES = { start_date: 'Start date', due_date: 'Due date' }

function valuesOf(milestone: MilestoneRow | null): MilestoneValues {
  return {
    title: milestone?.title ?? '',
    start_date: milestone?.start_date ?? '',
    due_date: milestone?.due_date ?? '',
    description: milestone?.description ?? '',
  }
}

/** GET …/milestones/new and …/milestones/<iid>/edit; a refused form comes back with its values and messages. */
async function milestoneForm(
  w: WebRequest,
  loaded: LoadedProject,
  milestone: MilestoneRow | null,
  values: MilestoneValues,
  refusal: Refusal | null,
) {
  const token = await w.csrfToken()
  const heading = milestone ? `Edit Milestone %${milestone.title}` : 'New milestone'
  const described = (attribute: string, id: string) => describedBy(errorIdOf(refusal, attribute, id))
  const body = html`<h1>${heading}</h1>
    ${errorList(refusal?.messages ?? [])}
    <form method="post" action="${milestone ? milestonePath(loaded, milestone) : milestonesPath(loaded)}" class="milestone-form">
      ${csrfField(token)} ${milestone ? html`<input type="hidden" name="_method" value="put" />` : ''}
      <label for="milestone_title">Title</label>
      <input
        type="text"
        id="milestone_title"
        name="milestone[title]"
        value="${values.title}"
        maxlength="255"
        required
        ${described('title', 'milestone_title')}
      />
      ${fieldError(refusal, 'title', 'milestone_title')}
      <div class="date-fields">
        <div>
          <label for="milestone_start_date">Start date</label>
          <input
            type="date"
            id="milestone_start_date"
            name="milestone[start_date]"
            value="${values.start_date}"
            ${described('start_date', 'milestone_start_date')}
          />
          ${fieldError(refusal, 'start_date', 'milestone_start_date')}
        </div>
        <div>
          <label for="milestone_due_date">Due date</label>
          <input type="date" id="milestone_due_date" name="milestone[due_date]" value="${values.due_date}" ${described('due_date', 'milestone_due_date')} />
          ${fieldError(refusal, 'due_date', 'milestone_due_date')}
        </div>
      </div>
      <label for="milestone_description">Description</label>
      <textarea id="milestone_description" name="milestone[description]" rows="8" placeholder="Write milestone description...">${values.description}</textarea>
      <p class="help">Markdown is supported.</p>
      <div class="button-row">
        <button type="submit" class="primary">${milestone ? 'Save changes' : 'Create milestone'}</button>
        <a class="button" href="${milestone ? milestonePath(loaded, milestone) : milestonesPath(loaded)}">Cancel</a>
      </div>
    </form>`
  return renderProjectPage(
    w,
    loaded,
    {
      title: milestone ? `Edit ${milestone.title}` : 'New milestone',
      section: 'milestones',
      crumbs: [
        { text: 'Milestones', href: milestonesPath(loaded) },
        ...(milestone ? [{ text: milestone.title, href: milestonePath(loaded, milestone) }, { text: 'Edit' }] : [{ text: 'New' }]),
      ],
      status: refusal ? 422 : 200,
    },
    body,
  )
}

/** GL `authorize_admin_milestone!`: the forms are the 404 page for whoever may not manage milestones. */
function mayManage(loaded: LoadedProject): boolean {
  return canReadMilestones(loaded.access, loaded.project) && canAdminMilestones(loaded.access, loaded.project)
}

/** What the milestones model refused, field by field. */
function refusalOfMilestone(error: unknown): Refusal | null {
  return error instanceof InvalidMilestone ? refusalOf(new Invalid(error.errors), FIELD_NAMES) : null
}

async function createFromForm(w: WebRequest, loaded: LoadedProject) {
  if (!mayManage(loaded)) return w.notFound()
  const fields = modelFields(w, 'milestone')
  const values = { ...valuesOf(null), ...fields }
  return submitForm(
    w,
    () =>
      createMilestone(w.ctx, loaded, {
        title: values.title,
        description: values.description === '' ? undefined : values.description,
        startDate: values.start_date,
        dueDate: values.due_date,
      }),
    {
      refusalOf: refusalOfMilestone,
      showRefused: (refusal) => milestoneForm(w, loaded, null, values, refusal),
      saved: (created) => w.redirect(milestonePath(loaded, created)),
    },
  )
}

/** PUT …/milestones/<iid>: the form's fields, or only `state_event` from the Close and Reopen buttons. */
async function updateFromForm(w: WebRequest, loaded: LoadedProject) {
  if (!mayManage(loaded)) return w.notFound()
  const milestone = await milestoneOf(w, loaded)
  if (!milestone) return w.notFound()
  const fields = modelFields(w, 'milestone')
  const stateEvent = fields.state_event === 'close' || fields.state_event === 'activate' ? fields.state_event : undefined
  return submitForm(
    w,
    () =>
      updateMilestone(w.ctx, loaded, milestone.id, {
        title: fields.title,
        description: fields.description,
        startDate: fields.start_date,
        dueDate: fields.due_date,
        stateEvent,
      }),
    {
      refusalOf: refusalOfMilestone,
      showRefused: (refusal) => milestoneForm(w, loaded, milestone, { ...valuesOf(milestone), ...fields }, refusal),
      saved: () => w.redirect(milestonePath(loaded, milestone)),
    },
  )
}

async function deleteFromForm(w: WebRequest, loaded: LoadedProject) {
  if (!mayManage(loaded)) return w.notFound()
  const milestone = await milestoneOf(w, loaded)
  if (!milestone) return w.notFound()
  try {
    await deleteMilestone(w.ctx, loaded, milestone.id)
  } catch (error) {
    if (error instanceof Forbidden) return w.notFound()
    throw error
  }
  return seeOther(w, milestonesPath(loaded))
}

export function registerMilestoneForms(web: WebRouter) {
  for (const url of projectPageRoutes('/-/milestones')) web.post(url, projectPage(createFromForm))
  for (const url of projectPageRoutes('/-/milestones/new')) {
    web.get(
      url,
      projectPage(async (w, loaded) => (mayManage(loaded) ? milestoneForm(w, loaded, null, valuesOf(null), null) : w.notFound())),
    )
  }
  for (const url of projectPageRoutes('/-/milestones/:milestone_iid/edit')) {
    web.get(
      url,
      projectPage(async (w, loaded) => {
        if (!mayManage(loaded)) return w.notFound()
        const milestone = await milestoneOf(w, loaded)
        return milestone ? milestoneForm(w, loaded, milestone, valuesOf(milestone), null) : w.notFound()
      }),
    )
  }
  for (const url of projectPageRoutes('/-/milestones/:milestone_iid')) {
    web.put(url, projectPage(updateFromForm))
    web.route('PATCH', url, projectPage(updateFromForm))
    web.delete(url, projectPage(deleteFromForm))
  }
}
