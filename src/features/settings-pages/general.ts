import { AccessLevel, visibilityName, type VisibilityName } from '../../core/access.js'
import type { Context } from '../../core/context.js'
import { NotFound } from '../../core/errors.js'
import type { NamespaceRow } from '../../db/schema.js'
import { describedBy, errorIdOf } from '../../web/described-by.js'
import { errorList, fieldError, refusalOf, type Refusal } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import { canProject, canTransferProjectsInto, groupAccess, type LoadedProject } from '../access/index.js'
import { listGroups } from '../groups/index.js'
import { findPersonalNamespace } from '../namespaces/index.js'
import {
  deleteProject,
  projectPageRoutes,
  projectPath,
  setArchived,
  transferProject,
  TransferRefused,
  updateProject,
  type ProjectInput,
} from '../projects/index.js'
import { PROJECT_PAGE, type WebRequest, type WebRouter } from '../sessions/index.js'
import {
  branchNamesOf,
  formOf,
  givenText,
  isFormRefusal,
  refusalBeside,
  renderSettingsPage,
  settingsPage,
  settingsPath,
  settingsSection,
  visibilityChoices,
  visibilityOfField,
} from './shared.js'

// Settings > General (GL ProjectsController#edit and #update, #archive, #unarchive, #transfer, #destroy): naming and
// description, visibility, and the advanced section. Every change goes through the API's own use cases, so the page
// refuses what PUT /projects/:id, /archive, /transfer and DELETE refuse, in their words.

/** GL VisibilityLevelHelper's descriptions of a project's visibility levels. */
const VISIBILITY_HELP: Record<VisibilityName, string> = {
  private:
    'Project access must be granted explicitly to each user. If this project is part of a group, access is granted to members of the group.',
  internal: 'The project can be accessed by any logged in user except external users.',
  public: 'The project can be accessed without any authentication.',
}

/** What the general form shows: the project's values, or what was typed into a refused form. */
interface GeneralValues {
  name: string
  description: string
  defaultBranch: string
  visibilityLevel: string
  path: string
}

/** A refused form: the section it came from, the values typed and the service's reasons. */
interface Refused {
  section: 'general' | 'visibility' | 'path' | 'delete'
  values: GeneralValues
  refusal: Refusal
}

function valuesOf(loaded: LoadedProject): GeneralValues {
  const { project } = loaded
  return {
    name: project.name,
    description: project.description ?? '',
    defaultBranch: project.default_branch ?? '',
    visibilityLevel: String(project.visibility_level),
    path: project.path,
  }
}

/** The namespaces the project may move to: the user's own, and groups where they may create and transfer projects. */
async function transferTargets(ctx: Context, loaded: LoadedProject): Promise<NamespaceRow[]> {
  const user = ctx.caller.user
  if (!user) return []
  const personal = await findPersonalNamespace(ctx.db, user.id)
  const groups = await listGroups(ctx, {
    statistics: false,
    owned: false,
    orderBy: 'name',
    sort: 'asc',
    withCustomAttributes: false,
    minAccessLevel: AccessLevel.MAINTAINER,
    pagination: { kind: 'offset', page: 1, perPage: 100 },
  })
  const candidates = [...(personal ? [personal] : []), ...groups.page.rows]
  const allowed = await Promise.all(
    candidates.map(async (namespace) =>
      canTransferProjectsInto(ctx.caller, namespace.kind === 'group' ? await groupAccess(ctx, namespace) : null, namespace),
    ),
  )
  return candidates.filter((namespace, index) => allowed[index] && namespace.id !== loaded.project.namespace_id)
}

/**
 * A form that updates the project from one section of the page: a refusal's messages above it, then Rails' PATCH through
 * `_method`, the CSRF token and the section it came from (`update_section`), before its own fields.
 */
function updateForm(
  options: { loaded: LoadedProject; token: string; section: string; className: string; refusal: Refusal | null },
  fields: Html,
): Html {
  return html`${options.refusal ? errorList(options.refusal.messages) : ''}
    <form method="post" action="${projectPath(options.loaded)}" class="${options.className}">
      ${csrfField(options.token)}<input type="hidden" name="_method" value="patch" /><input
        type="hidden"
        name="update_section"
        value="${options.section}"
      />
      ${fields}
    </form>`
}

function generalSection(loaded: LoadedProject, token: string, values: GeneralValues, branches: string[], refused: Refused | null): Html {
  const refusal = refused?.section === 'general' ? refused.refusal : null
  const branchChoices = branches.includes(values.defaultBranch) || !values.defaultBranch ? branches : [values.defaultBranch, ...branches]
  return settingsSection(
    'js-general-settings',
    'Naming, description, default branch',
    'Update your project name, description and default branch.',
    updateForm(
      { loaded, token, section: 'js-general-settings', className: 'edit-project', refusal },
      html`
        <div class="field-row">
          <div class="field grow">
            <label for="project_name_edit">Project name</label>
            <input
              type="text"
              id="project_name_edit"
              name="project[name]"
              value="${values.name}"
              required
              ${describedBy(errorIdOf(refusal, 'name', 'project_name_edit'))}
            />
            ${fieldError(refusal, 'name', 'project_name_edit')}
          </div>
          <div class="field">
            <label for="project_id">Project ID</label>
            <input type="text" id="project_id" value="${loaded.project.id}" readonly />
          </div>
        </div>
        <label for="project_description">Project description (optional)</label>
        <textarea
          id="project_description"
          name="project[description]"
          rows="3"
          ${describedBy(errorIdOf(refusal, 'description', 'project_description'))}
>${values.description}</textarea>
        ${fieldError(refusal, 'description', 'project_description')}
        ${
          branches.length > 0
            ? html`<label for="project_default_branch">Default branch</label>
              <select id="project_default_branch" name="project[default_branch]" aria-describedby="project_default_branch_help">
                ${branchChoices.map(
                  (branch) => html`<option value="${branch}" ${branch === values.defaultBranch ? html`selected` : ''}>${branch}</option>`,
                )}
              </select>
              <p class="help" id="project_default_branch_help">
                All merge requests and commits are made against this branch unless you specify a different one.
              </p>`
            : ''
        }
        <div class="button-row"><button type="submit" class="primary">Save changes</button></div>`,
    ),
  )
}

function visibilitySection(loaded: LoadedProject, token: string, values: GeneralValues, refused: Refused | null): Html {
  const refusal = refused?.section === 'visibility' ? refused.refusal : null
  return settingsSection(
    'js-shared-permissions',
    'Visibility',
    'Choose who may see this project.',
    updateForm(
      { loaded, token, section: 'js-shared-permissions', className: 'edit-visibility', refusal },
      html`
        ${visibilityChoices({ model: 'project', legend: 'Project visibility', help: VISIBILITY_HELP, checked: values.visibilityLevel })}
        ${fieldError(refusal, 'visibility_level', 'project_visibility_level')}
        <div class="button-row"><button type="submit" class="primary">Save changes</button></div>`,
    ),
  )
}

function pathSection(w: WebRequest, loaded: LoadedProject, token: string, values: GeneralValues, refused: Refused | null): Html {
  const refusal = refused?.section === 'path' ? refused.refusal : null
  return html`<h3>Change path</h3>
    <p class="help">A project's repository name defines its URL and its place on the disk where the repository is kept.</p>
    <ul class="help">
      <li>Be careful. Renaming a project's repository can have unintended side effects.</li>
      <li>You will need to update your local repositories to point to the new location.</li>
    </ul>
    ${updateForm(
      { loaded, token, section: 'js-project-advanced-settings', className: 'change-path', refusal },
      html`
      <label for="project_path">Path</label>
      <div class="prefixed-field">
        <span class="prefix">${w.ctx.config.externalUrl}/${loaded.namespace.full_path}/</span>
        <input
          type="text"
          id="project_path"
          name="project[path]"
          value="${values.path}"
          required
          ${describedBy(errorIdOf(refusal, 'path', 'project_path'))}
        />
      </div>
      ${fieldError(refusal, 'path', 'project_path')}
      <div class="button-row"><button type="submit" class="danger">Change path</button></div>`,
    )}`
}

function archiveSection(loaded: LoadedProject, token: string): Html {
  if (loaded.project.archived === 1) {
    return html`<h3>Unarchive project</h3>
      <p class="help">
        Unarchiving the project restores its members' ability to make commits, and create issues, comments, and other entities.
      </p>
      <form method="post" action="${projectPath(loaded, '/unarchive')}" class="unarchive-project">
        ${csrfField(token)}
        <div class="button-row"><button type="submit">Unarchive project</button></div>
      </form>`
  }
  return html`<h3>Archive project</h3>
    <p class="help">
      Archiving the project makes it entirely read only. It is hidden from the dashboard and doesn't display in searches. The
      repository cannot be committed to, and no issues, comments, or other entities can be created.
    </p>
    <form method="post" action="${projectPath(loaded, '/archive')}" class="archive-project">
      ${csrfField(token)}
      <div class="button-row"><button type="submit">Archive project</button></div>
    </form>`
}

function transferSection(loaded: LoadedProject, token: string, targets: NamespaceRow[]): Html {
  return html`<h3>Transfer project</h3>
    <p class="help">Transfer your project into another namespace.</p>
    <ul class="help">
      <li>Be careful. Changing the project's namespace can have unintended side effects.</li>
      <li>You can only transfer the project to namespaces you manage.</li>
      <li>You will need to update your local repositories to point to the new location.</li>
      <li>Project visibility level will be changed to match namespace rules when transferring to a group.</li>
    </ul>
    ${
      targets.length === 0
        ? html`<p class="muted">There is no other namespace you may transfer this project to.</p>`
        : html`<form method="post" action="${projectPath(loaded, '/transfer')}" class="transfer-project">
          ${csrfField(token)}<input type="hidden" name="_method" value="put" />
          <label for="new_namespace_id">Select a new namespace</label>
          <select id="new_namespace_id" name="new_namespace_id" required>
            <option value="">Choose a project namespace</option>
            ${targets.map((namespace) => html`<option value="${namespace.id}">${namespace.full_path}</option>`)}
          </select>
          <div class="button-row"><button type="submit" class="danger">Transfer project</button></div>
        </form>`
    }`
}

function deleteSection(loaded: LoadedProject, token: string, refused: Refused | null): Html {
  const refusal = refused?.section === 'delete' ? refused.refusal : null
  return html`<p class="help">
      <strong>Deleting the project will delete its repository and all related resources including issues, merge requests, etc.</strong>
    </p>
    <p class="help"><strong>Deleted projects cannot be restored!</strong></p>
    <form method="post" action="${projectPath(loaded)}" class="delete-project">
      ${csrfField(token)}<input type="hidden" name="_method" value="delete" />
      <label for="confirm_name_input">Enter the following to confirm: <code>${loaded.project.path}</code></label>
      <input
        type="text"
        id="confirm_name_input"
        name="confirm_name"
        autocomplete="off"
        required
        ${describedBy(refusal && 'confirm_name_input_error')}
      />
      ${refusalBeside(refusal, 'confirm_name_input')}
      <div class="button-row"><button type="submit" class="danger">Delete project</button></div>
    </form>`
}

/** GET /<project>/edit: the general settings; with `refused`, the form that was refused, with what was typed. */
async function editPage(w: WebRequest, loaded: LoadedProject, refused: Refused | null = null) {
  const { access } = loaded
  const token = await w.csrfToken()
  const values = refused?.values ?? valuesOf(loaded)
  const branches = await branchNamesOf(w, loaded)
  const mayArchive = canProject(access, 'archive_project')
  const mayTransfer = canProject(access, 'change_namespace')
  const mayDelete = canProject(access, 'remove_project')
  const targets = mayTransfer ? await transferTargets(w.ctx, loaded) : []
  const advanced = html`${pathSection(w, loaded, token, values, refused)} ${mayArchive ? archiveSection(loaded, token) : ''}
  ${mayTransfer ? transferSection(loaded, token, targets) : ''}`
  const body = html`<h1>General settings</h1>
    ${generalSection(loaded, token, values, branches, refused)}
    ${canProject(access, 'change_visibility_level') ? visibilitySection(loaded, token, values, refused) : ''}
    ${settingsSection('js-project-advanced-settings', 'Advanced', 'Change the path, archive, or transfer this project.', advanced)}
    ${mayDelete ? settingsSection('js-project-delete', 'Delete project', '', deleteSection(loaded, token, refused), 'danger-zone') : ''}`
  return renderSettingsPage(
    w,
    loaded,
    { title: 'General settings', section: 'settings_general', crumb: 'General', refused: refused !== null },
    body,
  )
}

/** PATCH /<project>: saves the section's fields through the API's update (GL ProjectsController#update). */
async function update(w: WebRequest, loaded: LoadedProject) {
  const form = formOf(w, 'project')
  const sectionName = textOf(w.params.update_section)
  const section: Refused['section'] =
    sectionName === 'js-shared-permissions' ? 'visibility' : sectionName === 'js-project-advanced-settings' ? 'path' : 'general'
  const input: ProjectInput = { settings: {} }
  input.name = givenText(form, 'name')
  input.description = givenText(form, 'description')
  input.path = givenText(form, 'path')
  const defaultBranch = givenText(form, 'default_branch')
  if (defaultBranch) input.defaultBranch = defaultBranch
  const level = givenText(form, 'visibility_level')
  if (level !== undefined) {
    const name = visibilityOfField(level)
    if (name === undefined) {
      return editPage(
        w,
        loaded,
        refusedWith(loaded, form, section, { messages: ['Visibility level is not included in the list'], byField: {} }),
      )
    }
    // Only what changes is asked, so a Maintainer who may not change it is never refused for sending it unchanged.
    if (name !== visibilityName(loaded.project.visibility_level)) input.visibility = name
  }
  try {
    const view = await updateProject(w.ctx, loaded, input)
    await w.flash('notice', `Project '${view.project.name}' was successfully updated.`)
    return w.redirect(`/${view.project.full_path}/edit`)
  } catch (error) {
    if (isFormRefusal(error)) {
      return editPage(w, loaded, refusedWith(loaded, form, section, refusalOf(error, { visibility_level: 'Visibility level' })))
    }
    throw error
  }
}

function refusedWith(loaded: LoadedProject, form: Record<string, unknown>, section: Refused['section'], refusal: Refusal): Refused {
  const current = valuesOf(loaded)
  const typed = (name: string, fallback: string) => givenText(form, name) ?? fallback
  return {
    section,
    refusal,
    values: {
      name: typed('name', current.name),
      description: typed('description', current.description),
      defaultBranch: typed('default_branch', current.defaultBranch),
      visibilityLevel: typed('visibility_level', current.visibilityLevel),
      path: typed('path', current.path),
    },
  }
}

/** POST /<project>/archive and /unarchive (GL `authorize_archive_project!`, Owners): back to the project. */
function archive(archived: boolean) {
  return async (w: WebRequest, loaded: LoadedProject) => {
    if (!canProject(loaded.access, 'archive_project')) return w.notFound()
    const view = await setArchived(w.ctx, loaded, archived)
    await w.flash('notice', `Project '${view.project.name}' was successfully ${archived ? 'archived' : 'unarchived'}.`)
    return w.redirect(`/${view.project.full_path}`)
  }
}

/** PUT /<project>/transfer (GL ProjectsController#transfer): a refusal comes back as an alert on the settings page. */
async function transfer(w: WebRequest, loaded: LoadedProject) {
  if (!canProject(loaded.access, 'change_namespace')) return w.notFound()
  const target = textOf(w.params.new_namespace_id)
  const alert = async (text: string) => {
    await w.flash('alert', text)
    return w.redirect(settingsPath(loaded, 'general'))
  }
  // GL TransferService: no namespace, or one the user may not see, is "Please select a new namespace".
  if (!/^\d{1,15}$/.test(target)) return alert('Please select a new namespace for your project.')
  try {
    const view = await transferProject(w.ctx, loaded, target)
    await w.flash('notice', `Project '${view.project.name}' was successfully transferred.`)
    return w.redirect(`/${view.project.full_path}/edit`)
  } catch (error) {
    if (error instanceof NotFound) return alert('Please select a new namespace for your project.')
    if (error instanceof TransferRefused) return alert(error.reason)
    throw error
  }
}

/** DELETE /<project> (GL ProjectsController#destroy, Owners): the path typed must be the project's, as GitLab's dialog asks. */
async function destroy(w: WebRequest, loaded: LoadedProject) {
  if (!canProject(loaded.access, 'remove_project')) return w.notFound()
  if (textOf(w.params.confirm_name) !== loaded.project.path) {
    const refusal = { messages: [`Enter the following to confirm: ${loaded.project.path}`], byField: {} }
    return editPage(w, loaded, { section: 'delete', values: valuesOf(loaded), refusal })
  }
  await deleteProject(w.ctx, loaded, null)
  await w.flash('notice', `Project '${loaded.project.full_name}' is in the process of being deleted.`)
  return w.redirect('/')
}

export function registerGeneralSettingsPages(web: WebRouter) {
  for (const route of projectPageRoutes('/edit')) web.get(route, settingsPage(editPage))
  // The page lives at GitLab's /edit; the /-/ spelling of it leads there.
  for (const route of projectPageRoutes('/-/edit'))
    web.get(
      route,
      settingsPage(async (w, loaded) => w.redirect(settingsPath(loaded, 'general'))),
    )
  web.route('PATCH', PROJECT_PAGE, settingsPage(update))
  web.put(PROJECT_PAGE, settingsPage(update))
  web.delete(PROJECT_PAGE, settingsPage(destroy))
  for (const route of projectPageRoutes('/archive')) web.post(route, settingsPage(archive(true)))
  for (const route of projectPageRoutes('/unarchive')) web.post(route, settingsPage(archive(false)))
  for (const route of projectPageRoutes('/transfer')) web.put(route, settingsPage(transfer))
}
