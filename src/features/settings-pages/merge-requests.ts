import { ParamError } from '../../core/errors.js'
import type { ProjectRow } from '../../db/schema.js'
import { describedBy, errorIdOf } from '../../web/described-by.js'
import { errorList, fieldError, refusalOf, type Refusal } from '../../web/form-errors.js'
import { lastTextOf } from '../../web/form-values.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { isFeatureAvailable, type LoadedProject } from '../access/index.js'
import { projectPageRoutes, updateInputOf, updateProject, type UpdateProjectParams } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { choice, flagChoice, formOf, isFormRefusal, renderSettingsPage, settingsPage, settingsPath, settingsSection } from './shared.js'

// Settings > Merge requests (GL Projects::Settings::MergeRequestsController): the merge method, merge options, squash
// option, merge checks and commit templates, saved through the API's PUT /projects/:id use case with its validations.

/** GL _merge_request_merge_method_settings: each method and what it means. */
const MERGE_METHODS = [
  { value: 'merge', label: 'Merge commit', help: 'Every merge creates a merge commit.' },
  {
    value: 'rebase_merge',
    label: 'Merge commit with semi-linear history',
    help: 'Every merge creates a merge commit. Merging is only allowed when the source branch is up-to-date with its target. When semi-linear merge is not possible, the user is given the option to rebase.',
  },
  {
    value: 'ff',
    label: 'Fast-forward merge',
    help: 'No merge commits are created. Fast-forward merges only. When there is a merge conflict, the user is given the option to rebase.',
  },
] as const

/** GL _merge_request_squash_options_settings. */
const SQUASH_OPTIONS = [
  { value: 'never', label: 'Do not allow', help: 'Squashing is never performed and the checkbox is hidden.' },
  { value: 'default_off', label: 'Allow', help: 'Checkbox is visible and unselected by default.' },
  { value: 'default_on', label: 'Encourage', help: 'Checkbox is visible and selected by default.' },
  {
    value: 'always',
    label: 'Require',
    help: 'Squashing is always performed. Checkbox is visible and selected, and users cannot change it.',
  },
] as const

/** The check boxes, in GitLab's sections and words. */
const MERGE_OPTIONS = [
  {
    name: 'resolve_outdated_diff_discussions',
    label: 'Automatically resolve merge request diff threads when they become outdated',
  },
  {
    name: 'printing_merge_request_link_enabled',
    label: 'Show link to create or view a merge request when pushing from the command line',
  },
  {
    name: 'remove_source_branch_after_merge',
    label: 'Enable "Delete source branch" option by default',
    help: 'Existing merge requests and protected branches are not affected.',
  },
] as const

const MERGE_CHECKS = [
  {
    name: 'only_allow_merge_if_pipeline_succeeds',
    label: 'Pipelines must succeed',
    help: "Merge requests can't be merged if the latest pipeline did not succeed or is still running.",
  },
  {
    name: 'allow_merge_on_skipped_pipeline',
    label: 'Skipped pipelines are considered successful',
    help: 'Introduces the risk of merging changes that do not pass the pipeline.',
  },
  { name: 'only_allow_merge_if_all_discussions_are_resolved', label: 'All threads must be resolved' },
] as const

type FlagName = (typeof MERGE_OPTIONS)[number]['name'] | (typeof MERGE_CHECKS)[number]['name']

const TEMPLATES = [
  {
    name: 'merge_commit_template',
    label: 'Merge commit message template',
    help: 'The commit message used when merging, if the merge method creates a merge commit. Leave empty to use the default template.',
    rows: 6,
  },
  {
    name: 'squash_commit_template',
    label: 'Squash commit message template',
    help: 'The commit message used when squashing commits. Leave empty to use the default template.',
    rows: 4,
  },
  {
    name: 'suggestion_commit_message',
    label: 'Merge suggestions',
    help: 'The default commit message used when applying merge request suggestions. Leave empty to use the default message.',
    rows: 2,
  },
] as const

type TemplateName = (typeof TEMPLATES)[number]['name']

/** What the form shows: text for the choices and templates, "1" or "0" for the check boxes. */
type MergeValues = Record<string, string>

function valuesOf(project: ProjectRow): MergeValues {
  const values: MergeValues = { merge_method: project.merge_method, squash_option: project.squash_option }
  for (const option of [...MERGE_OPTIONS, ...MERGE_CHECKS]) values[option.name] = project[option.name] === 1 ? '1' : '0'
  for (const template of TEMPLATES) values[template.name] = project[template.name] ?? ''
  return values
}

/** A fieldset of choices under its legend, described by the help text that follows the legend. */
function choiceGroup(descriptionId: string, legend: string, description: string, choices: Html[]): Html {
  return html`<fieldset class="choices" aria-describedby="${descriptionId}">
    <legend>${legend}</legend>
    <p class="help" id="${descriptionId}">${description}</p>
    ${choices}
  </fieldset>`
}

async function mergeRequestsPage(w: WebRequest, loaded: LoadedProject, typed: MergeValues | null = null, refusal: Refusal | null = null) {
  const values = typed ?? valuesOf(loaded.project)
  const token = await w.csrfToken()
  const flag = (option: { name: FlagName; label: string; help?: string }) =>
    flagChoice({
      name: `project[${option.name}]`,
      checked: values[option.name] === '1',
      label: option.label,
      help: 'help' in option ? option.help : undefined,
      id: `project_${option.name}`,
    })
  const radios = (field: 'merge_method' | 'squash_option', options: readonly { value: string; label: string; help: string }[]) =>
    options.map((option) =>
      choice({
        type: 'radio',
        name: `project[${field}]`,
        value: option.value,
        checked: values[field] === option.value,
        label: option.label,
        help: option.help,
        id: `project_${field}_${option.value}`,
      }),
    )
  const form = html`${refusal ? errorList(refusal.messages) : ''}
    <form method="post" action="${settingsPath(loaded, 'mergeRequests')}" class="merge-request-settings">
      ${csrfField(token)}<input type="hidden" name="_method" value="patch" />
      ${choiceGroup(
        'merge_methods_description',
        'Merge method',
        'Determine what happens to the commit history when you merge a merge request.',
        radios('merge_method', MERGE_METHODS),
      )}
      ${fieldError(refusal, 'merge_method', 'project_merge_method')}
      ${choiceGroup(
        'merge_options_description',
        'Merge options',
        'Additional settings that influence how and when merges are done.',
        MERGE_OPTIONS.map(flag),
      )}
      ${choiceGroup(
        'squash_options_description',
        'Squash commits when merging',
        'Set the default behavior of this option in merge requests. Changes to this are also applied to existing merge requests.',
        radios('squash_option', SQUASH_OPTIONS),
      )}
      ${fieldError(refusal, 'squash_option', 'project_squash_option')}
      ${choiceGroup('merge_checks_description', 'Merge checks', 'These checks must pass before merge requests can be merged.', MERGE_CHECKS.map(flag))}
      ${TEMPLATES.map(
        (template) =>
          html`<label for="project_${template.name}">${template.label}</label>
            <textarea
              id="project_${template.name}"
              name="project[${template.name}]"
              rows="${template.rows}"
              ${describedBy(errorIdOf(refusal, template.name, `project_${template.name}`), `project_${template.name}_help`)}
            >${values[template.name]}</textarea>
            ${fieldError(refusal, template.name, `project_${template.name}`)}
            <p class="help" id="project_${template.name}_help">${template.help}</p>`,
      )}
      <div class="button-row"><button type="submit" class="primary">Save changes</button></div>
    </form>`
  const body: Html = html`<h1>Merge request settings</h1>
    ${settingsSection('js-merge-request-settings', 'Merge requests', 'Choose the settings for merge requests in this project.', form)}`
  return renderSettingsPage(
    w,
    loaded,
    { title: 'Merge requests settings', section: 'settings_merge_requests', crumb: 'Merge requests', refused: refusal !== null },
    body,
  )
}

/** The API's own parameters from the form: the fields sent, as PUT /projects/:id takes them. */
function paramsOf(loaded: LoadedProject, form: Record<string, unknown>, values: MergeValues): UpdateProjectParams {
  const params: Record<string, unknown> = { id: String(loaded.project.id) }
  for (const name of ['merge_method', 'squash_option'] as const) if (typeof form[name] === 'string') params[name] = values[name]
  for (const option of [...MERGE_OPTIONS, ...MERGE_CHECKS]) {
    if (lastTextOf(form[option.name]) !== undefined) params[option.name] = values[option.name] === '1'
  }
  for (const template of TEMPLATES) if (typeof form[template.name] === 'string') params[template.name] = values[template.name]
  return params as UpdateProjectParams
}

/** PATCH /-/settings/merge_requests (GL MergeRequestsController#update). */
async function saveMergeRequestSettings(w: WebRequest, loaded: LoadedProject) {
  const form = formOf(w, 'project')
  const values = valuesOf(loaded.project)
  for (const [name, value] of Object.entries(form)) {
    const text = lastTextOf(value)
    if (text !== undefined && name in values) values[name] = text
  }
  const refuse = (refusal: Refusal) => mergeRequestsPage(w, loaded, values, refusal)
  // Grape's `values:` check, worded as the API words it.
  const invalid = [
    ...(MERGE_METHODS.some((method) => method.value === values.merge_method) ? [] : ['merge_method']),
    ...(SQUASH_OPTIONS.some((option) => option.value === values.squash_option) ? [] : ['squash_option']),
  ]
  if (invalid.length > 0) return refuse(refusalOf(new ParamError(invalid.map((name) => `${name} does not have a valid value`).join(', '))))
  const input = updateInputOf(paramsOf(loaded, form, values))
  // An empty template is no template: the default one applies (GL `*_template_or_default`).
  for (const template of TEMPLATES) {
    const name: TemplateName = template.name
    if (input.settings[name] === '') input.settings[name] = null
  }
  try {
    const view = await updateProject(w.ctx, loaded, input)
    await w.flash('notice', `Project '${view.project.name}' was successfully updated.`)
    return w.redirect(settingsPath(loaded, 'mergeRequests'))
  } catch (error) {
    if (isFormRefusal(error)) {
      return refuse(
        refusalOf(error, {
          merge_commit_template: 'Merge commit template',
          squash_commit_template: 'Squash commit template',
          suggestion_commit_message: 'Suggestion commit message',
        }),
      )
    }
    throw error
  }
}

/** GL `merge_requests_enabled?`: without merge requests the page is the 404 page. */
function whenMergeRequestsEnabled(handler: (w: WebRequest, loaded: LoadedProject) => Promise<unknown>) {
  return settingsPage(async (w, loaded) =>
    isFeatureAvailable(loaded.access, loaded.project, 'merge_requests') ? handler(w, loaded) : w.notFound(),
  )
}

export function registerMergeRequestSettingsPages(web: WebRouter) {
  for (const route of projectPageRoutes('/-/settings/merge_requests')) {
    web.get(
      route,
      whenMergeRequestsEnabled((w, loaded) => mergeRequestsPage(w, loaded)),
    )
    web.route('PATCH', route, whenMergeRequestsEnabled(saveMergeRequestSettings))
    web.put(route, whenMergeRequestsEnabled(saveMergeRequestSettings))
  }
}
