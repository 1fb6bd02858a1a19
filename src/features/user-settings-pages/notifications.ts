import type { User } from '../../core/caller.js'
import { DomainError, NotFound } from '../../core/errors.js'
import type { NamespaceRow } from '../../db/schema.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { listQueryOf, pager, type ListView } from '../../web/list-page.js'
import { givenText } from '../../web/form-values.js'
import { findGroup, findProject } from '../access/index.js'
import { listGroups } from '../groups/index.js'
import {
  getGlobalNotificationSetting,
  listSourceNotificationSettings,
  updateGlobalNotificationSetting,
  updateSourceNotificationSetting,
  type NotificationEvent,
  type NotificationLevel,
  type NotificationSetting,
  type NotificationSettingChanges,
} from '../notification-settings/index.js'
import { listProjects, type ProjectView } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { formOf, USER_SETTINGS_PATHS, userSettingsBreadcrumbs, userSettingsPage, userSettingsSidebar } from './shared.js'

// The signed-in user's notifications (GL Profiles::NotificationsController): the global level and notification
// e-mail, then a level for each group and project they are a member of. GitLab changes a level from a dropdown that
// calls the API; here each row is its own form, and Custom's events are checkboxes under the row, open while the level
// is Custom. Every change goes through the notification settings feature's services, so the rules are the API's.

const PATH = USER_SETTINGS_PATHS.notifications
/** GL GroupsFinder page on this page (Kaminari's default). */
const GROUPS_PER_PAGE = 20
/** Projects listed, by name. */
const PROJECTS_SHOWN = 100

export const SETTINGS_SAVED = 'Notification settings saved'
export const SETTINGS_FAILED = 'Failed to save new settings'

/** A level's name and what it means, as GitLab's notification dropdown says them. */
const LEVELS: Record<NotificationLevel, { title: string; description: string }> = {
  disabled: { title: 'Disabled', description: 'You will not get any notifications via email' },
  participating: { title: 'Participate', description: 'You will only receive notifications for threads you have participated in' },
  watch: { title: 'Watch', description: 'You will receive notifications for any activity' },
  global: { title: 'Global', description: 'Use your global notification setting' },
  mention: { title: 'On mention', description: 'You will receive notifications only for comments in which you were @mentioned' },
  custom: { title: 'Custom', description: 'You will only receive notifications for the events you choose' },
}

/** The levels in GitLab's order (NotificationSetting.levels); the global setting has no Global. */
const LEVEL_ORDER: NotificationLevel[] = ['disabled', 'participating', 'watch', 'global', 'mention', 'custom']

/** GL NotificationEvent names. */
const EVENT_NAMES: Record<NotificationEvent, string> = {
  new_release: 'New release',
  new_note: 'New note',
  new_issue: 'New issue',
  reopen_issue: 'Reopen issue',
  close_issue: 'Close issue',
  reassign_issue: 'Reassign issue',
  issue_due: 'Issue due',
  new_merge_request: 'New merge request',
  push_to_merge_request: 'Push to merge request',
  reopen_merge_request: 'Reopen merge request',
  close_merge_request: 'Close merge request',
  reassign_merge_request: 'Reassign merge request',
  change_reviewer_merge_request: 'Change reviewer merge request',
  merge_merge_request: 'Merge merge request',
  failed_pipeline: 'Failed pipeline',
  fixed_pipeline: 'Fixed pipeline',
  success_pipeline: 'Successful pipeline',
  moved_project: 'Moved project',
  merge_when_pipeline_succeeds: 'Merge when pipeline succeeds',
  new_epic: 'New epic',
}

/** Where a row's form goes, and the ids of its fields. */
interface Row {
  action: string
  idPrefix: string
  /** What the row is about, for its labels: "Global", a group's or a project's name. */
  subject: string
  setting: NotificationSetting
  levels: NotificationLevel[]
}

/**
 * The level select and, under it, Custom's events: open while the level is Custom. The select's label is `label`
 * when given (the global setting's), else one only screen readers see, naming the row.
 */
function levelFields(row: Row, label?: Html): Html {
  const levelId = `${row.idPrefix}_level`
  const custom = row.setting.level === 'custom'
  return html`${label ?? html`<label for="${levelId}" class="visually-hidden">Notification level for ${row.subject}</label>`}
    <div class="notification-level">
      <select id="${levelId}" name="notification_setting[level]">
        ${row.levels.map(
          (level) =>
            html`<option value="${level}" ${level === row.setting.level ? html`selected` : ''}>
              ${LEVELS[level].title} &ndash; ${LEVELS[level].description}
            </option>`,
        )}
      </select>
      <button type="submit" class="small">Save</button>
    </div>
    <details class="custom-events" ${custom ? html`open` : ''}>
      <summary>Custom notification events</summary>
      <p class="help">
        Custom notification levels are the same as participating levels. With custom notification levels you will also receive notifications
        for select events. Choose Custom above for them to apply.
      </p>
      <fieldset>
        <legend class="visually-hidden">Notification events for ${row.subject}</legend>
        <ul class="plain event-list">
          ${row.setting.events.map(([event, value]) => {
            const id = `${row.idPrefix}_${event}`
            return html`<li>
              <input type="hidden" name="notification_setting[${event}]" value="0" />
              <input type="checkbox" id="${id}" name="notification_setting[${event}]" value="1" ${value === true ? html`checked` : ''} />
              <label for="${id}" class="inline-label">${EVENT_NAMES[event]}</label>
            </li>`
          })}
        </ul>
      </fieldset>
      <button type="submit" class="small">Save</button>
    </details>`
}

function rowForm(row: Row, token: string): Html {
  return html`<form method="post" action="${row.action}" class="notification-form">
    ${csrfField(token)}<input type="hidden" name="_method" value="put" /> ${levelFields(row)}
  </form>`
}

/** GL User#public_verified_emails as svc keeps them: the primary address once confirmed. */
function notificationEmailChoices(user: User): string[] {
  return user.confirmed_at !== null ? [user.email] : []
}

function globalSection(user: User, setting: NotificationSetting, chosenEmail: string, token: string): Html {
  const emails = notificationEmailChoices(user)
  const row: Row = {
    action: PATH,
    idPrefix: 'global_notification_setting',
    subject: 'Global',
    setting,
    levels: LEVEL_ORDER.filter((level) => level !== 'global'),
  }
  return html`<section class="box settings-section" aria-labelledby="global-notifications-heading">
    <header><h2 id="global-notifications-heading">Global notification settings</h2></header>
    <div class="body">
      <form method="post" action="${PATH}" class="notification-email">
        ${csrfField(token)}<input type="hidden" name="_method" value="put" />
        <label for="user_notification_email">Global notification email</label>
        <div class="notification-level">
          <select id="user_notification_email" name="user[notification_email]">
            <option value="">Use primary email (${user.email})</option>
            ${emails.map((email) => html`<option value="${email}" ${email === chosenEmail ? html`selected` : ''}>${email}</option>`)}
          </select>
          <button type="submit" class="small">Save</button>
        </div>
      </form>
      <form method="post" action="${row.action}" class="notification-form">
        ${csrfField(token)}<input type="hidden" name="_method" value="put" />
        ${levelFields(
          row,
          html`<label for="${row.idPrefix}_level">Global notification level</label>
            <p class="help">By default, all projects and groups use the global notifications setting.</p>`,
        )}
      </form>
    </div>
  </section>`
}

function groupRows(groups: NamespaceRow[], settings: Map<number, NotificationSetting>, token: string): Html {
  if (groups.length === 0) return html`<p class="empty">You are not a member of any groups.</p>`
  return html`<ul class="list notification-list">
    ${groups.map(
      (group) =>
        html`<li id="group_notification_${group.id}">
          <div class="grow">
            <a class="title" href="/groups/${group.full_path}">${group.full_name}</a>
            ${rowForm(
              {
                action: `${PATH}/groups/${group.full_path}`,
                idPrefix: `group_${group.id}`,
                subject: group.full_name,
                setting: settings.get(group.id)!,
                levels: LEVEL_ORDER,
              },
              token,
            )}
          </div>
        </li>`,
    )}
  </ul>`
}

function projectRows(projects: ProjectView[], settings: Map<number, NotificationSetting>, token: string): Html {
  if (projects.length === 0) return html`<p class="empty">You are not a member of any projects.</p>`
  return html`<ul class="list notification-list">
    ${projects.map(
      ({ project }) =>
        html`<li id="project_notification_${project.id}">
          <div class="grow">
            <a class="title" href="/${project.full_path}">${project.full_name}</a>
            ${rowForm(
              {
                action: `${PATH}/projects/${project.full_path}`,
                idPrefix: `project_${project.id}`,
                subject: project.full_name,
                setting: settings.get(project.id)!,
                levels: LEVEL_ORDER,
              },
              token,
            )}
          </div>
        </li>`,
    )}
  </ul>`
}

async function showNotifications(w: WebRequest, user: User) {
  const { ctx } = w
  const { page } = listQueryOf(w.params)
  const token = await w.csrfToken()
  const global = await getGlobalNotificationSetting(ctx)
  // GL: GroupsFinder without all_available, the groups the user is a member of, by name.
  const groupList = await listGroups(
    ctx,
    {
      statistics: false,
      owned: false,
      allAvailable: false,
      orderBy: 'name',
      sort: 'asc',
      withCustomAttributes: false,
      pagination: { kind: 'offset', page, perPage: GROUPS_PER_PAGE },
    },
    null,
  )
  const groups = [...groupList.page.rows]
  const groupTotal = groupList.kind === 'offset' ? (groupList.page.total ?? groups.length) : groups.length
  const projectList = await listProjects(ctx, {
    scope: { kind: 'all' },
    owned: false,
    starred: false,
    imported: false,
    membership: true,
    withIssuesEnabled: false,
    withMergeRequestsEnabled: false,
    orderBy: 'name',
    sort: 'asc',
    pagination: { kind: 'offset', page: 1, perPage: PROJECTS_SHOWN },
  })
  const projects = projectList.views
  const groupSettings = await listSourceNotificationSettings(
    ctx,
    'group',
    groups.map((group) => group.id),
  )
  const projectSettings = await listSourceNotificationSettings(
    ctx,
    'project',
    projects.map((view) => view.project.id),
  )
  const chosenEmail = global.notificationEmail === user.email ? '' : global.notificationEmail
  const view: ListView<never> = { base: PATH, status: null, defaultStatus: null, search: '', page }
  const body = html`<h1>Notifications</h1>
    <p class="help">You can specify notification level per group or per project.</p>
    ${globalSection(user, global, chosenEmail, token)}
    <section aria-labelledby="group-notifications-heading">
      <h2 id="group-notifications-heading">Groups (${groupTotal})</h2>
      ${groupRows(groups, groupSettings, token)} ${groupTotal > GROUPS_PER_PAGE || page > 1 ? pager(view, GROUPS_PER_PAGE, groupTotal, 'groups') : ''}
    </section>
    <section aria-labelledby="project-notifications-heading">
      <h2 id="project-notifications-heading">Projects (${projects.length})</h2>
      ${projectRows(projects, projectSettings, token)}
    </section>`
  return w.render(
    {
      title: 'Notifications',
      sidebar: userSettingsSidebar('notifications'),
      breadcrumbs: userSettingsBreadcrumbs({ text: 'Notifications' }),
    },
    body,
  )
}

/** The level and events a row's form sent; what it left out stays as it is. */
function changesOf(w: WebRequest): NotificationSettingChanges {
  const form = formOf(w, 'notification_setting')
  const events: NotificationSettingChanges['events'] = {}
  for (const event of Object.keys(EVENT_NAMES) as NotificationEvent[]) {
    const value = form[event]
    const last = Array.isArray(value) ? value[value.length - 1] : value
    if (last === '1' || last === 'true') events[event] = true
    else if (last === '0' || last === 'false') events[event] = false
  }
  return { level: givenText(form, 'level'), events }
}

/** Runs a save; GitLab answers either way with a flash and a redirect back to the page. */
async function save(w: WebRequest, action: () => Promise<unknown>, saved: string, failed: string) {
  try {
    await action()
  } catch (error) {
    if (error instanceof NotFound || !(error instanceof DomainError)) throw error
    await w.flash('alert', failed)
    return w.redirect(PATH)
  }
  await w.flash('notice', saved)
  return w.redirect(PATH)
}

/** PUT /-/profile/notifications: the notification e-mail and the global level with its events. */
async function updateGlobal(w: WebRequest) {
  const user = formOf(w, 'user')
  const changes = { ...changesOf(w), notificationEmail: givenText(user, 'notification_email') }
  return save(w, () => updateGlobalNotificationSetting(w.ctx, changes), SETTINGS_SAVED, SETTINGS_FAILED)
}

/** The path after `/groups/` or `/projects/`: a group's or project's full path. */
function sourcePath(w: WebRequest): string {
  const path = w.params['*']
  if (typeof path !== 'string' || path === '') throw new NotFound()
  return path
}

/** PUT /-/profile/notifications/groups/<path> (GL Profiles::GroupsController#update): one group's level. */
async function updateGroup(w: WebRequest) {
  const { group } = await findGroup(w.ctx, sourcePath(w))
  return save(
    w,
    () => updateSourceNotificationSetting(w.ctx, 'group', String(group.id), changesOf(w)),
    `Notification settings for ${group.name} saved`,
    `Failed to save new settings for ${group.name}`,
  )
}

/** PUT /-/profile/notifications/projects/<path>: one project's level, as the group's. */
async function updateProject(w: WebRequest) {
  const { project } = await findProject(w.ctx, sourcePath(w)).catch((error: unknown) => {
    // A moved project's old path names nothing here.
    if (error instanceof DomainError) throw new NotFound()
    throw error
  })
  return save(
    w,
    () => updateSourceNotificationSetting(w.ctx, 'project', String(project.id), changesOf(w)),
    `Notification settings for ${project.name} saved`,
    `Failed to save new settings for ${project.name}`,
  )
}

export function registerNotificationPages(web: WebRouter) {
  web.get(PATH, userSettingsPage(showNotifications))
  web.put(
    PATH,
    userSettingsPage((w) => updateGlobal(w)),
  )
  web.put(
    `${PATH}/groups/*`,
    userSettingsPage((w) => updateGroup(w)),
  )
  web.put(
    `${PATH}/projects/*`,
    userSettingsPage((w) => updateProject(w)),
  )
}
