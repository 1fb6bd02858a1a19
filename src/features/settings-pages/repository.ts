import { AccessLevel } from '../../core/access.js'
import { describedBy } from '../../web/described-by.js'
import { errorList, refusalOf, type Refusal } from '../../web/form-errors.js'
import { lastTextOf } from '../../web/form-values.js'
import { csrfField, html, type Html } from '../../web/html.js'
import type { LoadedProject } from '../access/index.js'
import { projectPageRoutes, updateProject } from '../projects/index.js'
import {
  listProtectedBranches,
  listProtectedTags,
  protectBranch,
  protectTag,
  unprotectBranch,
  unprotectTag,
  updateProtectedBranch,
  type ProtectedBranch,
  type ProtectedTag,
} from '../protected-refs/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import {
  branchNamesOf,
  flagChoice,
  formOf,
  givenText,
  integerOf,
  isFormRefusal,
  refusalBeside,
  renderSettingsPage,
  rowActionForm,
  settingsPage,
  settingsPath,
  settingsSection,
} from './shared.js'

// Settings > Repository (GL Projects::Settings::RepositoryController, Projects::ProtectedBranchesController and
// ProtectedTagsController): the default branch, protected branches and protected tags, through the same services as
// PUT /projects/:id and the protected branches and tags APIs, so the page refuses what they refuse, in their words.

/** The roles a protected ref's dropdowns offer (GL `protected_access_levels_for_dropdowns`), as GitLab names them. */
const REF_ROLES: { level: number; label: string }[] = [
  { level: AccessLevel.MAINTAINER, label: 'Maintainers' },
  { level: AccessLevel.DEVELOPER, label: 'Developers + Maintainers' },
  { level: AccessLevel.NONE, label: 'No one' },
]

/** What a refused form on this page typed, and why it was refused. */
interface Refused {
  form: 'default-branch' | 'protect-branch' | 'protect-tag'
  values: Record<string, string>
  refusal: Refusal
}

function roleLabel(level: number): string {
  return REF_ROLES.find((role) => role.level === level)?.label ?? (level === 60 ? 'Administrators' : 'Maintainers')
}

function roleSelect(options: { id: string; name: string; selected: number; form?: string; label?: string }): Html {
  return html`<select id="${options.id}" name="${options.name}" ${options.form ? html`form="${options.form}"` : ''}>
    ${REF_ROLES.map(
      (role) => html`<option value="${role.level}" ${role.level === options.selected ? html`selected` : ''}>${role.label}</option>`,
    )}
  </select>`
}

/** The single role of a protected ref's access levels (the first one, as GitLab's dropdowns show it). */
function firstLevel(levels: { accessLevel: number }[]): number {
  return levels[0]?.accessLevel ?? AccessLevel.MAINTAINER
}

function defaultBranchSection(loaded: LoadedProject, token: string, branches: string[], refused: Refused | null): Html {
  const refusal = refused?.form === 'default-branch' ? refused.refusal : null
  const chosen = refused?.form === 'default-branch' ? refused.values.default_branch : (loaded.project.default_branch ?? '')
  const body =
    branches.length === 0
      ? html`<p class="muted">The repository has no branches yet.</p>`
      : html`${refusal ? errorList(refusal.messages) : ''}
          <form method="post" action="${settingsPath(loaded, 'repository')}" class="default-branch">
            ${csrfField(token)}<input type="hidden" name="_method" value="put" />
            <label for="project_default_branch">Default branch</label>
            <select
              id="project_default_branch"
              name="project[default_branch]"
              ${describedBy(refusal && 'project_default_branch_error', 'project_default_branch_help')}
            >
              ${(branches.includes(chosen) ? branches : [chosen, ...branches]).map(
                (branch) => html`<option value="${branch}" ${branch === chosen ? html`selected` : ''}>${branch}</option>`,
              )}
            </select>
            ${refusalBeside(refusal, 'project_default_branch')}
            <p class="help" id="project_default_branch_help">
              All merge requests and commits are made against this branch unless you specify a different one.
            </p>
            <div class="button-row"><button type="submit" class="primary">Save changes</button></div>
          </form>`
  return settingsSection('branch-defaults-settings', 'Branch defaults', 'Set the default branch for this project.', body)
}

/** The name field of a form that protects a branch or a tag, with the refusal beside it and branch names to pick from. */
function refNameField(options: {
  model: 'protected_branch' | 'protected_tag'
  label: string
  value: string
  suggestions: string[] | null
  refusal: Refusal | null
  help: Html
}): Html {
  const id = `${options.model}_name`
  return html`<label for="${id}">${options.label}</label>
    <input
      type="text"
      id="${id}"
      name="${options.model}[name]"
      value="${options.value}"
      ${options.suggestions ? html`list="${id}s"` : ''}
      autocomplete="off"
      required
      ${describedBy(options.refusal && `${id}_error`, `${id}_help`)}
    />
    ${options.suggestions ? html`<datalist id="${id}s">${options.suggestions.map((name) => html`<option value="${name}"></option>`)}</datalist>` : ''}
    ${refusalBeside(options.refusal, id)}
    <p class="help" id="${id}_help">${options.help}</p>`
}

function protectBranchForm(loaded: LoadedProject, token: string, branches: string[], refused: Refused | null): Html {
  const refusal = refused?.form === 'protect-branch' ? refused.refusal : null
  const values = refused?.form === 'protect-branch' ? refused.values : {}
  const level = (name: string) => integerOf(values[name] ?? '') ?? AccessLevel.MAINTAINER
  return html`${refusal ? errorList(refusal.messages) : ''}
    <form method="post" action="/${loaded.project.full_path}/-/protected_branches" class="new-protected-branch">
      ${csrfField(token)}
      <h3>Protect a branch</h3>
      ${refNameField({
        model: 'protected_branch',
        label: 'Branch',
        value: values.name ?? '',
        suggestions: branches,
        refusal,
        help: html`Wildcards such as <code>*-stable</code> or <code>production/*</code> are supported.`,
      })}
      <div class="field-row">
        <div class="field grow">
          <label for="protected_branch_merge_access_level">Allowed to merge</label>
          ${roleSelect({
            id: 'protected_branch_merge_access_level',
            name: 'protected_branch[merge_access_levels_attributes][][access_level]',
            selected: level('merge_access_level'),
          })}
        </div>
        <div class="field grow">
          <label for="protected_branch_push_access_level">Allowed to push and merge</label>
          ${roleSelect({
            id: 'protected_branch_push_access_level',
            name: 'protected_branch[push_access_levels_attributes][][access_level]',
            selected: level('push_access_level'),
          })}
        </div>
      </div>
      ${flagChoice({
        name: 'protected_branch[allow_force_push]',
        checked: values.allow_force_push === '1',
        label: 'Allowed to force push',
        help: 'Allow all users with push access to force push.',
        id: 'protected_branch_allow_force_push',
      })}
      <div class="button-row"><button type="submit" class="primary">Protect</button></div>
    </form>`
}

function protectedBranchRow(loaded: LoadedProject, token: string, branch: ProtectedBranch): Html {
  const formId = `protected_branch_${branch.id}`
  const action = `/${loaded.project.full_path}/-/protected_branches/${branch.id}`
  return html`<tr>
    <td><code class="ref-name">${branch.name}</code></td>
    <td>
      <label class="visually-hidden" for="${formId}_merge">Allowed to merge into ${branch.name}</label>
      ${roleSelect({
        id: `${formId}_merge`,
        name: 'protected_branch[merge_access_levels_attributes][][access_level]',
        selected: firstLevel(branch.merge),
        form: formId,
      })}
    </td>
    <td>
      <label class="visually-hidden" for="${formId}_push">Allowed to push and merge into ${branch.name}</label>
      ${roleSelect({
        id: `${formId}_push`,
        name: 'protected_branch[push_access_levels_attributes][][access_level]',
        selected: firstLevel(branch.push),
        form: formId,
      })}
    </td>
    <td>
      <input type="hidden" name="protected_branch[allow_force_push]" value="0" form="${formId}" />
      <input
        type="checkbox"
        id="${formId}_force_push"
        name="protected_branch[allow_force_push]"
        value="1"
        form="${formId}"
        ${branch.allowForcePush ? html`checked` : ''}
      />
      <label class="visually-hidden" for="${formId}_force_push">Allowed to force push to ${branch.name}</label>
    </td>
    <td class="actions">
      <div class="row-actions">
        <form method="post" action="${action}" id="${formId}">
          ${csrfField(token)}<input type="hidden" name="_method" value="put" />
          <button type="submit" class="small">Save</button>
        </form>
        ${rowActionForm({ action, className: 'unprotect', method: 'delete', token, label: 'Unprotect', ariaLabel: `Unprotect ${branch.name}` })}
      </div>
    </td>
  </tr>`
}

function protectedBranchesSection(
  loaded: LoadedProject,
  token: string,
  branches: string[],
  protectedBranches: ProtectedBranch[],
  refused: Refused | null,
): Html {
  const table =
    protectedBranches.length === 0
      ? html`<div class="empty-state"><p>No branches are protected yet. Protect a branch above.</p></div>`
      : html`<div class="table-box">
          <table class="settings-table protected-branches">
            <caption class="visually-hidden">
              Protected branches (${protectedBranches.length})
            </caption>
            <thead>
              <tr>
                <th scope="col">Branch</th>
                <th scope="col">Allowed to merge</th>
                <th scope="col">Allowed to push and merge</th>
                <th scope="col">Allowed to force push</th>
                <th scope="col"><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              ${protectedBranches.map((branch) => protectedBranchRow(loaded, token, branch))}
            </tbody>
          </table>
        </div>`
  return settingsSection(
    'js-protected-branches-settings',
    'Protected branches',
    'Keep stable branches secure and force developers to use merge requests.',
    html`${protectBranchForm(loaded, token, branches, refused)}
      <h3>Protected branches (${protectedBranches.length})</h3>
      ${table}`,
  )
}

function protectedTagsSection(loaded: LoadedProject, token: string, tags: ProtectedTag[], refused: Refused | null): Html {
  const refusal = refused?.form === 'protect-tag' ? refused.refusal : null
  const values = refused?.form === 'protect-tag' ? refused.values : {}
  const form = html`${refusal ? errorList(refusal.messages) : ''}
    <form method="post" action="/${loaded.project.full_path}/-/protected_tags" class="new-protected-tag">
      ${csrfField(token)}
      <h3>Protect a tag</h3>
      ${refNameField({
        model: 'protected_tag',
        label: 'Tag',
        value: values.name ?? '',
        suggestions: null,
        refusal,
        help: html`Wildcards such as <code>v*</code> or <code>*-release</code> are supported.`,
      })}
      <label for="protected_tag_create_access_level">Allowed to create</label>
      ${roleSelect({
        id: 'protected_tag_create_access_level',
        name: 'protected_tag[create_access_levels_attributes][][access_level]',
        selected: integerOf(values.create_access_level ?? '') ?? AccessLevel.MAINTAINER,
      })}
      <div class="button-row"><button type="submit" class="primary">Protect</button></div>
    </form>`
  const table =
    tags.length === 0
      ? html`<div class="empty-state"><p>No tags are protected yet. Protect a tag above.</p></div>`
      : html`<div class="table-box">
          <table class="settings-table protected-tags">
            <thead>
              <tr>
                <th scope="col">Protected tag</th>
                <th scope="col">Allowed to create</th>
                <th scope="col"><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              ${tags.map(
                (tag) =>
                  html`<tr>
                    <td><code class="ref-name">${tag.name}</code></td>
                    <td>${tag.create.map((level) => roleLabel(level.accessLevel)).join(', ') || 'No one'}</td>
                    <td class="actions">
                      ${rowActionForm({
                        action: `/${loaded.project.full_path}/-/protected_tags/${tag.id}`,
                        className: 'unprotect',
                        method: 'delete',
                        token,
                        label: 'Unprotect',
                        ariaLabel: `Unprotect ${tag.name}`,
                      })}
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`
  return settingsSection(
    'js-protected-tags-settings',
    'Protected tags',
    'Limit access to creating and updating tags.',
    html`${form}
      <h3>Protected tags (${tags.length})</h3>
      ${table}`,
  )
}

/** GET /-/settings/repository; with `refused`, the refused form with what was typed. */
async function repositoryPage(w: WebRequest, loaded: LoadedProject, refused: Refused | null = null) {
  const token = await w.csrfToken()
  const branches = await branchNamesOf(w, loaded)
  const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  const protectedBranches = (await listProtectedBranches(w.ctx, loaded, undefined)).sort(byName)
  const tags = (await listProtectedTags(w.ctx, loaded)).sort(byName)
  const body = html`<h1>Repository settings</h1>
    ${defaultBranchSection(loaded, token, branches, refused)}
    ${protectedBranchesSection(loaded, token, branches, protectedBranches, refused)} ${protectedTagsSection(loaded, token, tags, refused)}`
  return renderSettingsPage(
    w,
    loaded,
    { title: 'Repository settings', section: 'settings_repository', crumb: 'Repository', refused: refused !== null },
    body,
  )
}

/** Runs a change; a service's refusal comes back on the page with what was typed. */
async function attempt(
  w: WebRequest,
  loaded: LoadedProject,
  refusedAs: Omit<Refused, 'refusal'>,
  change: () => Promise<string>,
): Promise<unknown> {
  try {
    await w.flash('notice', await change())
    return w.redirect(settingsPath(loaded, 'repository'))
  } catch (error) {
    if (isFormRefusal(error)) {
      return repositoryPage(w, loaded, { ...refusedAs, refusal: refusalOf(error) })
    }
    throw error
  }
}

/** The single role a form's `<kind>_access_levels_attributes` names (the last, as Rails takes repeated fields). */
function levelOf(form: Record<string, unknown>, kind: string): number | undefined {
  const entries = form[`${kind}_access_levels_attributes`]
  const list = Array.isArray(entries) ? entries : entries && typeof entries === 'object' ? Object.values(entries) : []
  const last = list[list.length - 1] as Record<string, unknown> | undefined
  const text = typeof last?.access_level === 'string' ? last.access_level : ''
  return /^\d{1,3}$/.test(text) ? Number(text) : undefined
}

/** A Rails check box's value: its hidden "0" then the box's "1" when ticked, the last one counting. */
function flagOf(value: unknown): boolean | undefined {
  const last = lastTextOf(value)
  return last === undefined ? undefined : last === '1' || last === 'true'
}

/** PUT /-/settings/repository: the default branch (GL RepositoryController#update). */
async function updateDefaultBranch(w: WebRequest, loaded: LoadedProject) {
  const branch = givenText(formOf(w, 'project'), 'default_branch') ?? ''
  return attempt(w, loaded, { form: 'default-branch', values: { default_branch: branch } }, async () => {
    await updateProject(w.ctx, loaded, { settings: {}, defaultBranch: branch })
    return 'Project settings were successfully updated.'
  })
}

/** POST /-/protected_branches (GL ProtectedBranchesController#create). */
async function createProtectedBranch(w: WebRequest, loaded: LoadedProject) {
  const form = formOf(w, 'protected_branch')
  const name = givenText(form, 'name') ?? ''
  const merge = levelOf(form, 'merge')
  const push = levelOf(form, 'push')
  const allowForcePush = flagOf(form.allow_force_push) ?? false
  const values = {
    name,
    merge_access_level: String(merge ?? ''),
    push_access_level: String(push ?? ''),
    allow_force_push: allowForcePush ? '1' : '0',
  }
  return attempt(w, loaded, { form: 'protect-branch', values }, async () => {
    await protectBranch(w.ctx, loaded, {
      id: String(loaded.project.id),
      name,
      merge_access_level: merge,
      push_access_level: push,
      allow_force_push: allowForcePush,
      code_owner_approval_required: false,
    })
    return 'Protected branch was successfully created'
  })
}

async function findProtectedBranch(w: WebRequest, loaded: LoadedProject): Promise<ProtectedBranch | null> {
  const id = integerOf(String(w.params.id ?? ''))
  return (await listProtectedBranches(w.ctx, loaded, undefined)).find((branch) => branch.id === id) ?? null
}

/** One role for a kind of access: the first existing level changed to it, the others removed. */
function replacingEntries(current: { id: number }[], level: number | undefined) {
  if (level === undefined) return []
  if (current.length === 0) return [{ access_level: level }]
  return current.map((entry, index) => (index === 0 ? { id: entry.id, access_level: level } : { id: entry.id, _destroy: true }))
}

/** PUT /-/protected_branches/:id: the roles allowed to merge and push, and force push. */
async function changeProtectedBranch(w: WebRequest, loaded: LoadedProject) {
  const branch = await findProtectedBranch(w, loaded)
  if (!branch) return w.notFound()
  const form = formOf(w, 'protected_branch')
  try {
    await updateProtectedBranch(w.ctx, loaded, {
      id: String(loaded.project.id),
      name: branch.name,
      allow_force_push: flagOf(form.allow_force_push),
      allowed_to_merge: replacingEntries(branch.merge, levelOf(form, 'merge')),
      allowed_to_push: replacingEntries(branch.push, levelOf(form, 'push')),
    })
    await w.flash('notice', `Protected branch '${branch.name}' was successfully updated.`)
  } catch (error) {
    if (!isFormRefusal(error)) throw error
    await w.flash('alert', refusalOf(error).messages.join(', '))
  }
  return w.redirect(settingsPath(loaded, 'repository'))
}

/** DELETE /-/protected_branches/:id (GL ProtectedBranchesController#destroy). */
async function removeProtectedBranch(w: WebRequest, loaded: LoadedProject) {
  const branch = await findProtectedBranch(w, loaded)
  if (!branch) return w.notFound()
  await unprotectBranch(w.ctx, loaded, branch.name)
  await w.flash('notice', `Branch '${branch.name}' was unprotected.`)
  return w.redirect(settingsPath(loaded, 'repository'))
}

/** POST /-/protected_tags (GL ProtectedTagsController#create). */
async function createProtectedTag(w: WebRequest, loaded: LoadedProject) {
  const form = formOf(w, 'protected_tag')
  const name = givenText(form, 'name') ?? ''
  const create = levelOf(form, 'create')
  return attempt(w, loaded, { form: 'protect-tag', values: { name, create_access_level: String(create ?? '') } }, async () => {
    await protectTag(w.ctx, loaded, { id: String(loaded.project.id), name, create_access_level: create })
    return 'Protected tag was successfully created'
  })
}

/** DELETE /-/protected_tags/:id. */
async function removeProtectedTag(w: WebRequest, loaded: LoadedProject) {
  const id = integerOf(String(w.params.id ?? ''))
  const tag = (await listProtectedTags(w.ctx, loaded)).find((candidate) => candidate.id === id)
  if (!tag) return w.notFound()
  await unprotectTag(w.ctx, loaded, tag.name)
  await w.flash('notice', `Tag '${tag.name}' was unprotected.`)
  return w.redirect(settingsPath(loaded, 'repository'))
}

export function registerRepositorySettingsPages(web: WebRouter) {
  for (const route of projectPageRoutes('/-/settings/repository')) {
    web.get(route, settingsPage(repositoryPage))
    web.put(route, settingsPage(updateDefaultBranch))
  }
  for (const route of projectPageRoutes('/-/protected_branches')) {
    web.post(route, settingsPage(createProtectedBranch))
    // GL ProtectedRefsController#index: the list is on the repository settings page.
    web.get(
      route,
      settingsPage(async (w, loaded) => w.redirect(settingsPath(loaded, 'repository'))),
    )
  }
  for (const route of projectPageRoutes('/-/protected_branches/:id')) {
    web.put(route, settingsPage(changeProtectedBranch))
    web.route('PATCH', route, settingsPage(changeProtectedBranch))
    web.delete(route, settingsPage(removeProtectedBranch))
  }
  for (const route of projectPageRoutes('/-/protected_tags')) {
    web.post(route, settingsPage(createProtectedTag))
    web.get(
      route,
      settingsPage(async (w, loaded) => w.redirect(settingsPath(loaded, 'repository'))),
    )
  }
  for (const route of projectPageRoutes('/-/protected_tags/:id')) web.delete(route, settingsPage(removeProtectedTag))
}
