import { AccessLevel, visibilityName, type VisibilityName } from '../../core/access.js'
import type { Context } from '../../core/context.js'
import { DomainError, Forbidden, NotFound } from '../../core/errors.js'
import type { NamespaceRow } from '../../db/schema.js'
import { errorList, fieldError, refusalOf, type Refusal } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import { canCreateSubgroup, canCreateTopLevelGroup, canGroup, groupAccess, type LoadedGroup } from '../access/index.js'
import { deleteGroup, listGroups, transferGroup, updateGroup, type GroupAttributes } from '../groups/index.js'
import type { WebRequest } from '../sessions/index.js'
import { formOf, givenText, settingsSection, visibilityChoices, visibilityOfField } from '../settings-pages/index.js'
import { groupCrumbs, groupPath, groupSidebar } from './group-frame.js'

// A group's general settings (GL GroupsController#edit, #update, #transfer, #destroy): name, description and
// visibility, the path, the parent group and deletion, for those who administer the group (Owners, administrators).
// Every change goes through the API's own group use cases, so the page refuses what PUT /groups/:id, POST
// /groups/:id/transfer and DELETE /groups/:id refuse, in their words.

/** GL VisibilityLevelHelper's descriptions of a group's visibility levels. */
const VISIBILITY_HELP: Record<VisibilityName, string> = {
  private: 'The group and its projects can only be viewed by members.',
  internal: 'The group and any internal projects can be viewed by any logged in user except external users.',
  public: 'The group and any public projects can be viewed without any authentication.',
}

/** How the group form labels the attributes a refusal names. */
const ATTRIBUTES = { visibility_level: 'Visibility level', parent_id: 'Parent' }

/** What the forms show: the group's values, or what was typed into a refused form. */
interface GroupValues {
  name: string
  description: string
  visibilityLevel: string
  path: string
}

/** A refused form: the section it came from, the values typed and the service's reasons. */
interface Refused {
  section: 'general' | 'path' | 'delete'
  values: GroupValues
  refusal: Refusal
}

function valuesOf(group: NamespaceRow): GroupValues {
  return {
    name: group.name,
    description: group.description ?? '',
    visibilityLevel: String(group.visibility_level),
    path: group.path,
  }
}

export function editPath(group: NamespaceRow): string {
  return `${groupPath(group)}/-/edit`
}

/** Whether the caller administers the group (GL `admin_group`): the settings page and its forms are theirs. */
export function canEditGroup(loaded: LoadedGroup): boolean {
  return canGroup(loaded.access, 'admin_group')
}

/**
 * The groups the group may move under (GL Groups::TransferService): those where the caller may create subgroups,
 * other than the group itself, what is inside it and its present parent.
 */
async function transferTargets(ctx: Context, group: NamespaceRow): Promise<NamespaceRow[]> {
  const list = await listGroups(ctx, {
    statistics: false,
    owned: false,
    orderBy: 'path',
    sort: 'asc',
    withCustomAttributes: false,
    minAccessLevel: AccessLevel.MAINTAINER,
    pagination: { kind: 'offset', page: 1, perPage: 100 },
  })
  const candidates = list.page.rows.filter(
    (candidate) =>
      candidate.id !== group.id && candidate.id !== group.parent_id && !`${candidate.full_path}/`.startsWith(`${group.full_path}/`),
  )
  const allowed = await Promise.all(candidates.map(async (candidate) => canCreateSubgroup(await groupAccess(ctx, candidate), candidate)))
  return candidates.filter((_, index) => allowed[index]).sort((a, b) => a.full_path.localeCompare(b.full_path))
}

/** The hidden fields of a form that updates the group: Rails' PATCH through `_method`, and the CSRF token. */
function updateFields(token: string): Html {
  return html`${csrfField(token)}<input type="hidden" name="_method" value="patch" />`
}

/** `aria-describedby` for a field with a refusal beside it. */
function describedBy(refusal: Refusal | null, attribute: string, id: string): Html {
  return refusal?.byField[attribute] ? html`aria-describedby="${id}_error"` : html``
}

function generalSection(loaded: LoadedGroup, token: string, values: GroupValues, refused: Refused | null): Html {
  const refusal = refused?.section === 'general' ? refused.refusal : null
  return settingsSection(
    'js-general-settings',
    'Naming, visibility',
    'Update your group name, description, and visibility.',
    html`${refusal ? errorList(refusal.messages) : ''}
      <form method="post" action="${groupPath(loaded.group)}" class="edit-group">
        ${updateFields(token)}
        <div class="field-row">
          <div class="field grow">
            <label for="group_name">Group name</label>
            <input
              type="text"
              id="group_name"
              name="group[name]"
              value="${values.name}"
              maxlength="255"
              required
              ${describedBy(refusal, 'name', 'group_name')}
            />
            ${fieldError(refusal, 'name', 'group_name')}
          </div>
          <div class="field">
            <label for="group_id">Group ID</label>
            <input type="text" id="group_id" value="${loaded.group.id}" readonly />
          </div>
        </div>
        <label for="group_description">Group description (optional)</label>
        <textarea id="group_description" name="group[description]" rows="3" ${describedBy(refusal, 'description', 'group_description')}>
${values.description}</textarea
        >
        ${fieldError(refusal, 'description', 'group_description')}
        ${visibilityChoices({ model: 'group', legend: 'Visibility level', help: VISIBILITY_HELP, checked: values.visibilityLevel })}
        ${fieldError(refusal, 'visibility_level', 'group_visibility_level')}
        <div class="button-row"><button type="submit" class="primary">Save changes</button></div>
      </form>`,
  )
}

function pathSection(w: WebRequest, loaded: LoadedGroup, token: string, values: GroupValues, refused: Refused | null): Html {
  const refusal = refused?.section === 'path' ? refused.refusal : null
  const parentPath = loaded.group.full_path.split('/').slice(0, -1).join('/')
  return html`<h3>Change group URL</h3>
    <ul class="help">
      <li>Changing a group's URL can have unintended side effects.</li>
      <li>The group's projects and subgroups move with it; their old URLs redirect to the new ones.</li>
    </ul>
    ${refusal ? errorList(refusal.messages) : ''}
    <form method="post" action="${groupPath(loaded.group)}" class="change-group-path">
      ${updateFields(token)}
      <label for="group_path">Group URL</label>
      <div class="prefixed-field">
        <span class="prefix">${w.ctx.config.externalUrl}/${parentPath ? `${parentPath}/` : ''}</span>
        <input type="text" id="group_path" name="group[path]" value="${values.path}" required ${describedBy(refusal, 'path', 'group_path')} />
      </div>
      ${fieldError(refusal, 'path', 'group_path')}
      <div class="button-row"><button type="submit" class="danger">Change group URL</button></div>
    </form>`
}

function transferSection(w: WebRequest, loaded: LoadedGroup, token: string, targets: NamespaceRow[]): Html {
  const { group } = loaded
  // A subgroup may become a top-level group when its Owner may create those.
  const mayBecomeTopLevel = group.parent_id !== null && canCreateTopLevelGroup(w.ctx.caller)
  return html`<h3>Transfer group</h3>
    <p class="help">Transfer group to another parent group.</p>
    <ul class="help">
      <li>Be careful. Changing a group's parent can have unintended side effects.</li>
      <li>You must have the Owner role in the target group.</li>
      <li>You will need to update your local repositories to point to the new location.</li>
      <li>
        If the parent group's visibility is lower than the group's current visibility, visibility levels for subgroups and projects
        will be changed to match the new parent group's visibility.
      </li>
    </ul>
    ${
      targets.length === 0 && !mayBecomeTopLevel
        ? html`<p class="muted no-transfer-targets">There is no other group you may transfer this group to.</p>`
        : html`<form method="post" action="${groupPath(group)}/-/transfer" class="transfer-group">
          ${csrfField(token)}<input type="hidden" name="_method" value="put" />
          <label for="new_parent_group_id">Select parent group</label>
          <select id="new_parent_group_id" name="new_parent_group_id" required>
            <option value="" disabled selected>Select parent group</option>
            ${mayBecomeTopLevel ? html`<option value="none">No parent group</option>` : ''}
            ${targets.map((target) => html`<option value="${target.id}">${target.full_path}</option>`)}
          </select>
          <div class="button-row"><button type="submit" class="danger">Transfer group</button></div>
        </form>`
    }`
}

function deleteSection(loaded: LoadedGroup, token: string, refused: Refused | null): Html {
  const refusal = refused?.section === 'delete' ? refused.refusal : null
  const { group } = loaded
  return html`<p class="help">You are about to delete the group <strong>${group.name}</strong>, with its subgroups and projects.</p>
    <p class="help">After you delete a group, you <strong>cannot</strong> restore it or its components.</p>
    <form method="post" action="${groupPath(group)}" class="delete-group">
      ${csrfField(token)}<input type="hidden" name="_method" value="delete" />
      <label for="confirm_name_input">Enter the following to confirm: <code>${group.full_path}</code></label>
      <input type="text" id="confirm_name_input" name="confirm_name" autocomplete="off" required ${refusal ? html`aria-describedby="confirm_name_input_error"` : ''} />
      ${refusal ? html`<p class="field-error" id="confirm_name_input_error">${refusal.messages.join(', ')}</p>` : ''}
      <div class="button-row"><button type="submit" class="danger">Delete group</button></div>
    </form>`
}

/** GET /groups/<path>/-/edit; with `refused`, the form that was refused, with what was typed. */
export async function editGroupPage(w: WebRequest, loaded: LoadedGroup, refused: Refused | null = null) {
  const { group } = loaded
  const token = await w.csrfToken()
  const values = refused?.values ?? valuesOf(group)
  const targets = await transferTargets(w.ctx, group)
  const advanced = html`${pathSection(w, loaded, token, values, refused)} ${transferSection(w, loaded, token, targets)}`
  const body = html`<h1>General settings</h1>
    ${generalSection(loaded, token, values, refused)}
    ${settingsSection(
      'js-advanced-settings',
      'Advanced',
      "Perform advanced options such as changing the group's path or transferring it.",
      advanced,
    )}
    ${
      canGroup(loaded.access, 'remove_group')
        ? settingsSection('js-remove-group', 'Delete group', '', deleteSection(loaded, token, refused), 'danger-zone')
        : ''
    }`
  return w.render(
    {
      title: `General settings · ${group.full_name}`,
      sidebar: groupSidebar(loaded, 'settings'),
      breadcrumbs: [...groupCrumbs(loaded), { text: 'General settings' }],
    },
    body,
    refused ? 422 : 200,
  )
}

function refusedWith(group: NamespaceRow, form: Record<string, unknown>, section: Refused['section'], refusal: Refusal): Refused {
  const current = valuesOf(group)
  const typed = (name: string, fallback: string) => givenText(form, name) ?? fallback
  return {
    section,
    refusal,
    values: {
      name: typed('name', current.name),
      description: typed('description', current.description),
      visibilityLevel: typed('visibility_level', current.visibilityLevel),
      path: typed('path', current.path),
    },
  }
}

/** PATCH /groups/<path>: the section's fields through the API's update (GL GroupsController#update). */
export async function updateGroupFromForm(w: WebRequest, loaded: LoadedGroup) {
  const { group } = loaded
  const form = formOf(w, 'group')
  const section: Refused['section'] = givenText(form, 'path') !== undefined && givenText(form, 'name') === undefined ? 'path' : 'general'
  const attributes: GroupAttributes = {
    name: givenText(form, 'name'),
    description: givenText(form, 'description'),
    path: givenText(form, 'path'),
  }
  const level = givenText(form, 'visibility_level')
  if (level !== undefined) {
    const name = visibilityOfField(level)
    if (name === undefined) {
      const message = 'Visibility level is not included in the list'
      return editGroupPage(w, loaded, refusedWith(group, form, section, { messages: [message], byField: { visibility_level: [message] } }))
    }
    if (name !== visibilityName(group.visibility_level)) attributes.visibility = name
  }
  try {
    const updated = await updateGroup(w.ctx, loaded, attributes)
    await w.flash('notice', `Group '${updated.name}' was successfully updated.`)
    return w.redirect(editPath(updated))
  } catch (error) {
    if (error instanceof DomainError && !(error instanceof NotFound) && !(error instanceof Forbidden)) {
      return editGroupPage(w, loaded, refusedWith(group, form, section, refusalOf(error, ATTRIBUTES)))
    }
    throw error
  }
}

/**
 * PUT /groups/<path>/-/transfer (GL GroupsController#transfer): to the parent chosen, or to the top level for "No
 * parent group". A refusal is GitLab's alert on the settings page.
 */
export async function transferGroupFromForm(w: WebRequest, loaded: LoadedGroup) {
  const { group } = loaded
  const choice = textOf(w.params.new_parent_group_id)
  const alert = async (text: string) => {
    await w.flash('alert', text)
    return w.redirect(editPath(group))
  }
  if (choice !== 'none' && !/^\d{1,15}$/.test(choice)) return alert('Transfer failed: Please select a parent group.')
  try {
    const moved = await transferGroup(w.ctx, loaded, choice === 'none' ? undefined : Number(choice))
    await w.flash('notice', `Group '${moved.name}' was successfully transferred.`)
    return w.redirect(groupPath(moved))
  } catch (error) {
    // A parent the caller cannot see is one they may not move the group into.
    if (error instanceof NotFound) return alert("Transfer failed: You don't have enough permissions.")
    if (error instanceof DomainError && !(error instanceof Forbidden)) return alert(error.message)
    throw error
  }
}

/** DELETE /groups/<path> (GL GroupsController#destroy): the full path typed must be the group's, as GitLab's dialog asks. */
export async function deleteGroupFromForm(w: WebRequest, loaded: LoadedGroup) {
  const { group } = loaded
  if (!canGroup(loaded.access, 'remove_group')) return w.notFound()
  if (textOf(w.params.confirm_name) !== group.full_path) {
    const refusal = { messages: [`Enter the following to confirm: ${group.full_path}`], byField: {} }
    return editGroupPage(w, loaded, { section: 'delete', values: valuesOf(group), refusal })
  }
  await deleteGroup(w.ctx, loaded)
  await w.flash('alert', `Group '${group.name}' was scheduled for deletion.`)
  return w.redirect('/')
}
