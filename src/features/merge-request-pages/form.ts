import type { Context } from '../../core/context.js'
import type { LabelRow, MilestoneRow, ProjectRow, UserRow } from '../../db/schema.js'
import { fieldError, type Refusal } from '../../web/form-errors.js'
import { html, type Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import type { MergeRequestInput } from '../merge-requests/index.js'

// The fields of the new and edit merge request forms, named as GitLab's form names them (`merge_request[title]`,
// `merge_request[assignee_ids][]`, …), and what they send read back into the service's input.

/** What the form shows and sends. */
export interface MergeRequestFormValues {
  title: string
  description: string
  targetBranch: string
  assigneeIds: number[]
  reviewerIds: number[]
  labels: string[]
  milestoneId: number | null
  squash: boolean
  removeSourceBranch: boolean
}

/** What the form may offer: the choices, and whether the caller may set labels, people and milestone. */
export interface FormChoices {
  mayAdmin: boolean
  people: UserRow[]
  labels: LabelRow[]
  milestones: MilestoneRow[]
  /** Only one assignee and one reviewer on the Free tier. */
  multiplePeople: boolean
  /** The target branches to choose from (edit only). */
  targetBranches: string[] | null
  project: ProjectRow
}

/** The `merge_request[...]` hash of the params. */
export function mergeRequestParams(params: Record<string, unknown>): Record<string, unknown> {
  const value = params.merge_request
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

function listOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(textOf)
  if (typeof value === 'object' && value !== null) return Object.values(value).map(textOf)
  return typeof value === 'string' ? [value] : []
}

function idsOf(value: unknown): number[] {
  return [
    ...new Set(
      listOf(value)
        .filter((text) => /^\d{1,10}$/.test(text))
        .map(Number),
    ),
  ].filter((id) => id > 0)
}

/** A Rails check box: a hidden "0" then the box's "1"; the last value sent wins. */
function checked(value: unknown): boolean {
  const values = listOf(value)
  return values.length > 0 && values[values.length - 1] === '1'
}

/** The values a submitted form carries. */
export function formValuesOf(params: Record<string, unknown>): MergeRequestFormValues {
  const form = mergeRequestParams(params)
  const milestone = textOf(form.milestone_id)
  return {
    title: textOf(form.title),
    description: textOf(form.description),
    targetBranch: textOf(form.target_branch),
    assigneeIds: idsOf(form.assignee_ids),
    reviewerIds: idsOf(form.reviewer_ids),
    labels: [...new Set(listOf(form.labels).filter((title) => title !== ''))],
    milestoneId: /^\d{1,10}$/.test(milestone) && Number(milestone) > 0 ? Number(milestone) : null,
    squash: checked(form.squash),
    removeSourceBranch: checked(form.force_remove_source_branch),
  }
}

/** The service's input from the form: labels, people and milestone only from those who may set them. */
export function serviceInputOf(values: MergeRequestFormValues, choices: FormChoices): MergeRequestInput {
  const input: MergeRequestInput = {
    title: values.title,
    description: values.description,
    squash: choices.project.squash_option === 'never' ? false : values.squash,
    removeSourceBranch: values.removeSourceBranch,
  }
  if (choices.mayAdmin) {
    Object.assign(input, {
      assigneeIds: values.assigneeIds,
      reviewerIds: values.reviewerIds,
      labels: values.labels,
      milestoneId: values.milestoneId ?? 0,
    })
  }
  return input
}

function peopleField(
  name: 'assignee_ids' | 'reviewer_ids',
  legend: string,
  none: string,
  chosen: readonly number[],
  choices: FormChoices,
): Html {
  const id = `merge_request_${name}`
  if (!choices.multiplePeople) {
    return html`<label for="${id}">${legend}</label>
      <select id="${id}" name="merge_request[${name}][]">
        <option value="0">${none}</option>
        ${choices.people.map(
          (user) =>
            html`<option value="${user.id}" ${chosen.includes(user.id) ? html`selected` : ''}>${user.name} (@${user.username})</option>`,
        )}
      </select>`
  }
  return html`<fieldset class="mr-choices">
    <legend>${legend}</legend>
    <input type="hidden" name="merge_request[${name}][]" value="0" />
    <div class="mr-checkbox-list">
      ${
        choices.people.length === 0
          ? html`<p class="muted">No members to choose from.</p>`
          : choices.people.map(
              (user) => html`<label class="mr-checkbox-label"
                ><input type="checkbox" name="merge_request[${name}][]" value="${user.id}" ${chosen.includes(user.id) ? html`checked` : ''} />
                ${user.name} <span class="muted">@${user.username}</span></label
              >`,
            )
      }
    </div>
  </fieldset>`
}

/**
 * The form's fields: title and description, then (for those who may set them) assignees, reviewers, labels and
 * milestone, then the merge options the project leaves to the merge request.
 */
export function mergeRequestFields(values: MergeRequestFormValues, choices: FormChoices, refusal: Refusal | null): Html {
  const { project } = choices
  const titleError = fieldError(refusal, 'title', 'merge_request_title')
  const descriptionError = fieldError(refusal, 'description', 'merge_request_description')
  return html`<label for="merge_request_title">Title (required)</label>
    <input
      type="text"
      id="merge_request_title"
      name="merge_request[title]"
      value="${values.title}"
      required
      maxlength="255"
      ${titleError.text ? html`aria-describedby="merge_request_title_error" aria-invalid="true"` : ''}
    />
    ${titleError}
    <p class="help">Start the title with <code>Draft:</code> to prevent a merge request draft from merging before it's ready.</p>
    ${
      choices.targetBranches
        ? html`<label for="merge_request_target_branch">Target branch</label>
            <select id="merge_request_target_branch" name="merge_request[target_branch]">
              ${choices.targetBranches.map(
                (name) => html`<option value="${name}" ${name === values.targetBranch ? html`selected` : ''}>${name}</option>`,
              )}
            </select>`
        : ''
    }
    <label for="merge_request_description">Description</label>
    <textarea
      id="merge_request_description"
      name="merge_request[description]"
      rows="8"
      ${descriptionError.text ? html`aria-describedby="merge_request_description_error" aria-invalid="true"` : ''}
    >
${values.description}</textarea
    >
    ${descriptionError}
    <p class="help">Markdown is supported. <code>Closes #1</code> closes the issue once this is merged into the default branch.</p>
    ${
      choices.mayAdmin
        ? html`<div class="mr-form-grid">
            <div>${peopleField('assignee_ids', 'Assignees', 'Unassigned', values.assigneeIds, choices)}</div>
            <div>${peopleField('reviewer_ids', 'Reviewers', 'No reviewer', values.reviewerIds, choices)}</div>
            <div>
              <fieldset class="mr-choices">
                <legend>Labels</legend>
                <input type="hidden" name="merge_request[labels][]" value="" />
                <div class="mr-checkbox-list">
                  ${
                    choices.labels.length === 0
                      ? html`<p class="muted">This project has no labels yet.</p>`
                      : choices.labels.map(
                          (label) => html`<label class="mr-checkbox-label"
                            ><input
                              type="checkbox"
                              name="merge_request[labels][]"
                              value="${label.title}"
                              ${values.labels.includes(label.title) ? html`checked` : ''}
                            />
                            <svg class="label-dot" width="10" height="10" viewBox="0 0 10 10" aria-hidden="true" focusable="false">
                              <circle cx="5" cy="5" r="5" fill="${label.color}" /></svg
                            >${label.title}</label
                          >`,
                        )
                  }
                </div>
              </fieldset>
            </div>
            <div>
              <label for="merge_request_milestone_id">Milestone</label>
              <select id="merge_request_milestone_id" name="merge_request[milestone_id]">
                <option value="">No milestone</option>
                ${choices.milestones.map(
                  (milestone) =>
                    html`<option value="${milestone.id}" ${values.milestoneId === milestone.id ? html`selected` : ''}>
                      ${milestone.title}${milestone.state === 'closed' ? ' (closed)' : ''}
                    </option>`,
                )}
              </select>
            </div>
          </div>`
        : ''
    }
    <fieldset class="mr-choices merge-options">
      <legend>Merge options</legend>
      <div class="mr-checkbox-field">
        <input type="hidden" name="merge_request[force_remove_source_branch]" value="0" />
        <input
          type="checkbox"
          id="merge_request_force_remove_source_branch"
          name="merge_request[force_remove_source_branch]"
          value="1"
          ${values.removeSourceBranch ? html`checked` : ''}
        />
        <label class="mr-checkbox-label" for="merge_request_force_remove_source_branch"
          >Delete source branch when merge request is accepted.</label
        >
      </div>
      ${
        project.squash_option === 'never'
          ? ''
          : project.squash_option === 'always'
            ? html`<p class="help squash-required">Squash commits when merge request is accepted: required in this project.</p>`
            : html`<div class="mr-checkbox-field">
                <input type="hidden" name="merge_request[squash]" value="0" />
                <input type="checkbox" id="merge_request_squash" name="merge_request[squash]" value="1" ${values.squash ? html`checked` : ''} />
                <label class="mr-checkbox-label" for="merge_request_squash">Squash commits when merge request is accepted.</label>
              </div>`
      }
    </fieldset>`
}

/** The form's first values for a new merge request in `project` (GL MergeRequests::BuildService). */
export function newFormValues(project: ProjectRow, title: string, description: string): MergeRequestFormValues {
  return {
    title,
    description,
    targetBranch: '',
    assigneeIds: [],
    reviewerIds: [],
    labels: [],
    milestoneId: null,
    squash: project.squash_option === 'default_on' || project.squash_option === 'always',
    removeSourceBranch: project.remove_source_branch_after_merge === 1,
  }
}

/** Whether the tier lets a merge request have several assignees and reviewers. */
export function allowsSeveralPeople(ctx: Context): boolean {
  return ctx.config.tier !== 'free'
}
