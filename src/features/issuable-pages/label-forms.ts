import { Invalid } from '../../core/errors.js'
import { describedBy, errorIdOf } from '../../web/described-by.js'
import { errorList, fieldError, refusalOf, type Refusal } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import { isFeatureAvailable, type LoadedProject } from '../access/index.js'
import {
  canAdminLabels,
  createLabel,
  DEFAULT_LABEL_COLOR,
  deleteLabel,
  prioritizeLabels,
  showLabel,
  subscribeToLabel,
  unprioritizeLabel,
  updateLabel,
  type LabelParent,
} from '../labels/index.js'
import { projectPage, projectPageRoutes, projectPath, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { submitForm } from './form-submission.js'
import { modelFields, seeOther } from './forms.js'
import { iidOf } from './shared.js'

// Creating, editing, deleting, prioritising and following labels from the labels page (GL Projects::LabelsController),
// through the labels feature's services, so the page refuses what they refuse, in their words.

/** GL LabelsHelper#suggested_colors: the presets under the colour field, with their names. */
export const SUGGESTED_COLORS: readonly (readonly [string, string])[] = [
  ['#009966', 'Green-cyan'],
  ['#8fbc8f', 'Dark sea green'],
  ['#3cb371', 'Medium sea green'],
  ['#00b140', 'Green screen'],
  ['#013220', 'Dark green'],
  ['#6699cc', 'Blue-gray'],
  ['#0000ff', 'Blue'],
  ['#e6e6fa', 'Lavendar'],
  ['#9400d3', 'Dark violet'],
  ['#330066', 'Deep violet'],
  ['#808080', 'Gray'],
  ['#36454f', 'Charcoal grey'],
  ['#f7e7ce', 'Champagne'],
  ['#c21e56', 'Rose red'],
  ['#cc338b', 'Magenta-pink'],
  ['#dc143c', 'Crimson'],
  ['#ff0000', 'Red'],
  ['#cd5b45', 'Dark coral'],
  ['#eee600', 'Titanium yellow'],
  ['#ed9121', 'Carrot orange'],
  ['#c39953', 'Aztec Gold'],
]

/** GL `check_issuables_available!`: the labels pages exist while the project's issues or merge requests do. */
export function labelsAvailable(loaded: LoadedProject): boolean {
  return isFeatureAvailable(loaded.access, loaded.project, 'issues') || isFeatureAvailable(loaded.access, loaded.project, 'merge_requests')
}

export function labelsPath(loaded: LoadedProject, suffix = ''): string {
  return projectPath(loaded, `/-/labels${suffix}`)
}

interface LabelValues {
  title: string
  description: string
  color: string
}

function parentOf(loaded: LoadedProject): LabelParent {
  return { kind: 'project', loaded }
}

/** Whether the page exists for this visitor: GL `check_issuables_available!`, then `authorize_admin_labels!` (404). */
function mayManage(loaded: LoadedProject): boolean {
  return labelsAvailable(loaded) && canAdminLabels(loaded.access)
}

/** The form's values: a chosen preset wins over the typed colour, as choosing a swatch fills the field in GitLab. */
function valuesOf(w: WebRequest): LabelValues {
  const fields = modelFields(w, 'label')
  const preset = textOf(w.params.suggested_color)
  const isPreset = SUGGESTED_COLORS.some(([hex]) => hex === preset)
  return { title: fields.title ?? '', description: fields.description ?? '', color: isPreset ? preset : (fields.color ?? '') }
}

/** The presets as radio swatches, each drawn as an SVG square of its colour (no inline style under the CSP). */
function swatches(color: string): Html {
  const chosen = SUGGESTED_COLORS.find(([hex]) => hex === color.toLowerCase())?.[0] ?? ''
  return html`<fieldset class="suggested-colors">
    <legend>Suggested colors</legend>
    <label class="inline-label swatch-typed"
      ><input type="radio" name="suggested_color" value="" ${chosen === '' ? html`checked` : ''} /> The color typed above</label
    >
    <div class="swatches">
      ${SUGGESTED_COLORS.map(
        ([hex, name]) =>
          html`<label class="swatch" title="${name}"
            ><input type="radio" name="suggested_color" value="${hex}" data-color-field="label_color" ${hex === chosen ? html`checked` : ''} /><svg
              width="28"
              height="28"
              viewBox="0 0 28 28"
              aria-hidden="true"
              focusable="false"
            >
              <rect x="2" y="2" width="24" height="24" rx="4" fill="${hex}" /></svg
            ><span class="visually-hidden">${name} ${hex}</span></label
          >`,
      )}
    </div>
  </fieldset>`
}

/** GET …/labels/new and …/labels/<id>/edit: the label form; a refused one comes back with its values and messages. */
async function labelForm(w: WebRequest, loaded: LoadedProject, labelId: number | null, values: LabelValues, refusal: Refusal | null) {
  const token = await w.csrfToken()
  const editing = labelId !== null
  const action = editing ? labelsPath(loaded, `/${labelId}`) : labelsPath(loaded)
  const described = (attribute: string, id: string) => describedBy(errorIdOf(refusal, attribute, id))
  const title = editing ? 'Edit label' : 'New label'
  const body = html`<h1>${title}</h1>
    ${errorList(refusal?.messages ?? [])}
    <form method="post" action="${action}" class="label-form">
      ${csrfField(token)} ${editing ? html`<input type="hidden" name="_method" value="put" />` : ''}
      <label for="label_title">Title</label>
      <input type="text" id="label_title" name="label[title]" value="${values.title}" required ${described('title', 'label_title')} />
      ${fieldError(refusal, 'title', 'label_title')}
      <label for="label_description">Description (optional)</label>
      <textarea id="label_description" name="label[description]" rows="4" ${described('description', 'label_description')}>${values.description}</textarea>
      ${fieldError(refusal, 'description', 'label_description')}
      <label for="label_color">Background color</label>
      <input
        type="text"
        id="label_color"
        name="label[color]"
        value="${values.color}"
        class="color-input"
        data-resets="suggested_color"
        ${describedBy('label_color_help', errorIdOf(refusal, 'color', 'label_color'))}
      />
      <p class="help" id="label_color_help">A hex color (#RRGGBB or #RGB) or a CSS color name, or one of the suggested colors below.</p>
      ${fieldError(refusal, 'color', 'label_color')} ${swatches(values.color)}
      <div class="button-row">
        <button type="submit" class="primary">${editing ? 'Save changes' : 'Create label'}</button>
        <a class="button" href="${labelsPath(loaded)}">Cancel</a>
      </div>
    </form>`
  return renderProjectPage(
    w,
    loaded,
    {
      title,
      section: 'labels',
      crumbs: [{ text: 'Labels', href: labelsPath(loaded) }, { text: editing ? 'Edit' : 'New' }],
      status: refusal ? 422 : 200,
    },
    body,
  )
}

/** The project's own label the path names (GL `@project.labels.find`): a group label or another project's is a 404. */
async function projectLabelOf(w: WebRequest, loaded: LoadedProject) {
  const id = iidOf(w.params.label_id)
  if (id === null) return null
  const { label } = await showLabel(w.ctx, parentOf(loaded), String(id), { includeAncestorGroups: false })
  return label.id === id && label.project_id === loaded.project.id ? label : null
}

/** A service's refusal of the form, or null when the error is not one. */
function formRefusal(error: unknown): Refusal | null {
  return error instanceof Invalid ? refusalOf(error) : null
}

async function createFromForm(w: WebRequest, loaded: LoadedProject) {
  if (!mayManage(loaded)) return w.notFound()
  const values = valuesOf(w)
  return submitForm(
    w,
    () =>
      createLabel(
        w.ctx,
        parentOf(loaded),
        { name: values.title, color: values.color, description: values.description },
        { refuseAvailableTitle: false },
      ),
    {
      refusalOf: formRefusal,
      showRefused: (refusal) => labelForm(w, loaded, null, values, refusal),
      saved: () => w.redirect(labelsPath(loaded)),
    },
  )
}

async function updateFromForm(w: WebRequest, loaded: LoadedProject) {
  if (!mayManage(loaded)) return w.notFound()
  const label = await projectLabelOf(w, loaded)
  if (!label) return w.notFound()
  const values = valuesOf(w)
  return submitForm(
    w,
    () =>
      updateLabel(w.ctx, parentOf(loaded), String(label.id), {
        newName: values.title,
        color: values.color,
        description: values.description,
      }),
    {
      refusalOf: formRefusal,
      showRefused: (refusal) => labelForm(w, loaded, label.id, values, refusal),
      saved: () => w.redirect(labelsPath(loaded)),
    },
  )
}

async function deleteFromForm(w: WebRequest, loaded: LoadedProject) {
  if (!mayManage(loaded)) return w.notFound()
  const label = await projectLabelOf(w, loaded)
  if (!label) return w.notFound()
  await deleteLabel(w.ctx, parentOf(loaded), String(label.id), null)
  await w.flash('notice', `${label.title} was removed`)
  return seeOther(w, labelsPath(loaded))
}

/** POST …/labels/set_priorities: `label_ids[]` in their new order (GL set_priorities; the page's forms send the whole order). */
async function setPriorities(w: WebRequest, loaded: LoadedProject) {
  if (!mayManage(loaded)) return w.notFound()
  const given = w.params.label_ids ?? w.params['label_ids[]']
  const ids = (Array.isArray(given) ? given : [given]).map(iidOf).filter((id): id is number => id !== null)
  await prioritizeLabels(w.ctx, loaded, ids)
  return w.redirect(labelsPath(loaded))
}

async function removePriority(w: WebRequest, loaded: LoadedProject) {
  if (!mayManage(loaded)) return w.notFound()
  const id = iidOf(w.params.label_id)
  if (id === null) return w.notFound()
  await unprioritizeLabel(w.ctx, loaded, id)
  return w.redirect(labelsPath(loaded))
}

/** POST …/labels/<id>/toggle_subscription: follows the label in this project, or stops (GL ToggleSubscriptionAction). */
async function toggleSubscription(w: WebRequest, loaded: LoadedProject) {
  if (!labelsAvailable(loaded)) return w.notFound()
  if (!w.ctx.caller.user) return w.redirectToSignIn()
  const id = iidOf(w.params.label_id)
  if (id === null) return w.notFound()
  const parent = parentOf(loaded)
  const view = await showLabel(w.ctx, parent, String(id), { includeAncestorGroups: true })
  if (view.label.id !== id) return w.notFound()
  await subscribeToLabel(w.ctx, parent, String(id), !view.subscribed)
  return w.redirect(labelsPath(loaded))
}

export function registerLabelForms(web: WebRouter) {
  for (const url of projectPageRoutes('/-/labels')) web.post(url, projectPage(createFromForm))
  for (const url of projectPageRoutes('/-/labels/new')) {
    web.get(
      url,
      projectPage(async (w, loaded) =>
        mayManage(loaded) ? labelForm(w, loaded, null, { title: '', description: '', color: DEFAULT_LABEL_COLOR }, null) : w.notFound(),
      ),
    )
  }
  for (const url of projectPageRoutes('/-/labels/set_priorities')) web.post(url, projectPage(setPriorities))
  for (const url of projectPageRoutes('/-/labels/:label_id/edit')) {
    web.get(
      url,
      projectPage(async (w, loaded) => {
        if (!mayManage(loaded)) return w.notFound()
        const label = await projectLabelOf(w, loaded)
        if (!label) return w.notFound()
        return labelForm(w, loaded, label.id, { title: label.title, description: label.description ?? '', color: label.color }, null)
      }),
    )
  }
  for (const url of projectPageRoutes('/-/labels/:label_id')) {
    web.put(url, projectPage(updateFromForm))
    web.route('PATCH', url, projectPage(updateFromForm))
    web.delete(url, projectPage(deleteFromForm))
  }
  for (const url of projectPageRoutes('/-/labels/:label_id/remove_priority')) web.post(url, projectPage(removePriority))
  for (const url of projectPageRoutes('/-/labels/:label_id/toggle_subscription')) web.post(url, projectPage(toggleSubscription))
}
