import { AccessLevel, Visibility, visibilityName, type VisibilityName } from '../../core/access.js'
import { DomainError, Forbidden, NotFound } from '../../core/errors.js'
import type { Refusal } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { canAdminProject, type LoadedProject } from '../access/index.js'
import { listBranches } from '../branches/index.js'
import { projectPage, projectPath, renderProjectPage, type ProjectSection } from '../projects/index.js'
import type { WebHandler, WebRequest } from '../sessions/index.js'

// What every project settings page shares: who may open it, the fields of a Rails-style form, a section's frame and
// the small form parts (choices with their help, role names).

/**
 * A settings page: the project as every project page finds it, then the 404 page for those who may not administer it
 * (GL `authorize_admin_project!`, Maintainers and up). A refusal the services raise for a role (403 in the API) is
 * the 404 page too, as GL `access_denied!` answers.
 */
export function settingsPage(handler: (w: WebRequest, loaded: LoadedProject) => Promise<unknown>): WebHandler {
  return projectPage(async (w, loaded) => {
    if (!canAdminProject(loaded.access)) return w.notFound()
    return refusedAsNotFound(w, () => handler(w, loaded))
  })
}

/** Runs a page's action; a Forbidden from a service is the 404 page (the page never offered what it refuses). */
export async function refusedAsNotFound(w: WebRequest, action: () => Promise<unknown>): Promise<unknown> {
  try {
    return await action()
  } catch (error) {
    if (error instanceof Forbidden) return w.notFound()
    throw error
  }
}

/** A service's error that the form shows again with what was typed; NotFound and Forbidden are the 404 page instead. */
export function isFormRefusal(error: unknown): error is DomainError {
  return error instanceof DomainError && !(error instanceof NotFound) && !(error instanceof Forbidden)
}

/**
 * The fields of a Rails-style form (`project[name]`), as they came: strings, arrays, nested objects. They are read from
 * the body itself, where a route's own `project` param cannot hide them.
 */
export function formOf(w: WebRequest, model: string): Record<string, unknown> {
  const body = w.request.body
  const form = body && typeof body === 'object' ? (body as Record<string, unknown>)[model] : undefined
  return form && typeof form === 'object' && !Array.isArray(form) ? (form as Record<string, unknown>) : {}
}

export { givenText } from '../../web/form-values.js'

/** Role names as GitLab shows them (Gitlab::Access `human_access`). */
export const ROLE_NAMES: Record<number, string> = {
  [AccessLevel.MINIMAL_ACCESS]: 'Minimal Access',
  [AccessLevel.GUEST]: 'Guest',
  [AccessLevel.PLANNER]: 'Planner',
  [AccessLevel.REPORTER]: 'Reporter',
  [AccessLevel.DEVELOPER]: 'Developer',
  [AccessLevel.MAINTAINER]: 'Maintainer',
  [AccessLevel.OWNER]: 'Owner',
}

/** The roles a project membership or a project access token may have, lowest first (GL ProjectMember access levels). */
export const PROJECT_ROLES: readonly number[] = [
  AccessLevel.GUEST,
  AccessLevel.PLANNER,
  AccessLevel.REPORTER,
  AccessLevel.DEVELOPER,
  AccessLevel.MAINTAINER,
  AccessLevel.OWNER,
]

/** A whole number a form sent, or null. */
export function integerOf(text: string): number | null {
  return /^\d{1,9}$/.test(text) ? Number(text) : null
}

/** How many branch names a settings form offers. */
const BRANCHES_OFFERED = 100

/** The names of the project's first branches by name, for a form to offer; none in an empty repository. */
export async function branchNamesOf(w: WebRequest, loaded: LoadedProject): Promise<string[]> {
  if (loaded.project.empty_repo === 1) return []
  const list = await listBranches(w.ctx, loaded, { sort: 'name_asc', keyset: false, page: 1, perPage: BRANCHES_OFFERED })
  return list.branches.map((branch) => branch.name)
}

/** A settings page in the project's layout, under Settings in the breadcrumbs; a refused form answers 422. */
export function renderSettingsPage(
  w: WebRequest,
  loaded: LoadedProject,
  options: { title: string; section: ProjectSection; crumb: string; refused: boolean },
  body: Html,
) {
  return renderProjectPage(
    w,
    loaded,
    {
      title: options.title,
      section: options.section,
      crumbs: [{ text: 'Settings', href: settingsPath(loaded, 'general') }, { text: options.crumb }],
      status: options.refused ? 422 : 200,
    },
    body,
  )
}

/** A table row's button that acts at once, in a form of its own (Rails' method in `_method`); named for its row. */
export function rowActionForm(options: {
  action: string
  className: string
  method: 'put' | 'delete'
  token: string
  label: string
  ariaLabel: string
}): Html {
  return html`<form method="post" action="${options.action}" class="${options.className}">
    ${csrfField(options.token)}<input type="hidden" name="_method" value="${options.method}" />
    <button type="submit" class="small danger" aria-label="${options.ariaLabel}">${options.label}</button>
  </form>`
}

/** A section of a settings page: a heading, what it is for, then its form. */
export function settingsSection(id: string, title: string, description: Html | string, body: Html, className = ''): Html {
  return html`<section class="box settings-section ${className}" id="${id}" aria-labelledby="${id}-heading">
    <header><h2 id="${id}-heading">${title}</h2></header>
    <div class="body">
      ${description ? html`<p class="help">${description}</p>` : ''} ${body}
    </div>
  </section>`
}

/** The whole refusal of a form that asks one thing, beside that field (give it `aria-describedby="<id>_error"`). */
export function refusalBeside(refusal: Refusal | null, id: string): Html {
  return refusal ? html`<p class="field-error" id="${id}_error">${refusal.messages.join(', ')}</p>` : html``
}

/** A radio button or checkbox with its label and help text under it. */
export function choice(options: {
  type: 'radio' | 'checkbox'
  name: string
  value: string
  checked: boolean
  label: string
  help?: Html | string
  id: string
}): Html {
  const helpId = `${options.id}_help`
  return html`<div class="choice">
    <input
      type="${options.type}"
      id="${options.id}"
      name="${options.name}"
      value="${options.value}"
      ${options.checked ? html`checked` : ''}
      ${options.help ? html`aria-describedby="${helpId}"` : ''}
    />
    <label for="${options.id}" class="inline-label">${options.label}</label>
    ${options.help ? html`<p class="help" id="${helpId}">${options.help}</p>` : ''}
  </div>`
}

/** GitLab's visibility radios (`<model>[visibility_level]`), each level with its description, the `checked` level chosen. */
export function visibilityChoices(options: {
  model: 'project' | 'group'
  legend: string
  help: Record<VisibilityName, string>
  checked: string
}): Html {
  const levels = [Visibility.PRIVATE, Visibility.INTERNAL, Visibility.PUBLIC]
  return html`<fieldset class="choices">
    <legend>${options.legend}</legend>
    ${levels.map((level) =>
      choice({
        type: 'radio',
        name: `${options.model}[visibility_level]`,
        value: String(level),
        checked: options.checked === String(level),
        label: visibilityName(level).charAt(0).toUpperCase() + visibilityName(level).slice(1),
        help: options.help[visibilityName(level)],
        id: `${options.model}_visibility_level_${level}`,
      }),
    )}
  </fieldset>`
}

/** The visibility a form's `visibility_level` names ("0", "10" or "20"); undefined for anything else. */
export function visibilityOfField(value: string): VisibilityName | undefined {
  return ['0', '10', '20'].includes(value) ? visibilityName(Number(value)) : undefined
}

/** A checkbox that also sends "0" when unticked, as Rails' check_box does, so that turning it off is a change. */
export function flagChoice(options: { name: string; checked: boolean; label: string; help?: Html | string; id: string }): Html {
  return html`<input type="hidden" name="${options.name}" value="0" />${choice({ type: 'checkbox', value: '1', ...options })}`
}

/** The settings pages' paths. */
export const SETTINGS_PATHS = {
  general: '/edit',
  repository: '/-/settings/repository',
  mergeRequests: '/-/settings/merge_requests',
  accessTokens: '/-/settings/access_tokens',
  webhooks: '/-/hooks',
  members: '/-/project_members',
} as const

export function settingsPath(loaded: LoadedProject, page: keyof typeof SETTINGS_PATHS, anchor = ''): string {
  return projectPath(loaded, SETTINGS_PATHS[page]) + (anchor ? `#${anchor}` : '')
}
