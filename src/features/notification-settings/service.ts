import type { Context } from '../../core/context.js'
import { Invalid, Rejected, Unauthorized } from '../../core/errors.js'
import type { User } from '../../core/caller.js'
import { isoTimestamp } from '../../core/time.js'
import type { Db } from '../../db/index.js'
import {
  EMAIL_EVENTS,
  EPIC_EVENT,
  NOTIFICATION_LEVELS,
  type GlobalNotificationSettingChanges,
  type NotificationEvent,
  type NotificationLevel,
  type NotificationSettingChanges,
} from './schemas.js'
import {
  findNotificationSetting,
  findNotificationSettingsOf,
  findUserEmails,
  insertNotificationSettingIfMissing,
  updateNotificationSettingRow,
  type NotificationSource,
} from './store.js'
import { findGroup, findProject } from '../access/index.js'
import { setNotificationEmail } from '../users/index.js'

/** A setting as the API shows it: the level's name, the events that apply to its source, and the stored values. */
export interface NotificationSetting {
  level: NotificationLevel
  /** Every event of the source in GitLab's order; null for one never set. */
  events: [NotificationEvent, boolean | null][]
}

export interface GlobalNotificationSetting extends NotificationSetting {
  /** `notification_email_or_default`: the chosen address, else the primary e-mail. */
  notificationEmail: string
}

// User::DEFAULT_NOTIFICATION_LEVEL for the global setting; NotificationSetting's column default for the rest.
const GLOBAL_DEFAULT = NOTIFICATION_LEVELS.participating
const SOURCE_DEFAULT = NOTIFICATION_LEVELS.global

const LEVEL_BY_NUMBER = new Map<number, NotificationLevel>(
  Object.entries(NOTIFICATION_LEVELS).map(([name, value]) => [value, name as NotificationLevel]),
)

function currentUser(ctx: Context): User {
  if (!ctx.caller.user) throw new Unauthorized()
  return ctx.caller.user
}

/** NotificationSetting.email_events(source), with EE's new_epic for global and group settings on Ultimate. */
function eventsFor(ctx: Context, source: NotificationSource): readonly NotificationEvent[] {
  const withEpic = ctx.config.tier === 'ultimate' && source?.type !== 'Project'
  return withEpic ? [...EMAIL_EVENTS, EPIC_EVENT] : EMAIL_EVENTS
}

function parseEvents(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text)
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

function settingOf(ctx: Context, source: NotificationSource, level: number, eventsText: string): NotificationSetting {
  const stored = parseEvents(eventsText)
  return {
    level: LEVEL_BY_NUMBER.get(level) ?? 'global',
    events: eventsFor(ctx, source).map((event) => [event, typeof stored[event] === 'boolean' ? stored[event] : null]),
  }
}

/**
 * The level's number. Rails' enum raises for an unknown name, which the API answers as a bare 400; a blank
 * one becomes nil and fails `validates :level, presence: true` (lib/api/notification_settings.rb).
 */
function levelNumberOf(level: string): number {
  if (level.trim() === '') throw new Invalid({ level: ["can't be blank"] })
  if (!Object.hasOwn(NOTIFICATION_LEVELS, level)) throw new Rejected(`'${level}' is not a valid level`)
  return NOTIFICATION_LEVELS[level as NotificationLevel]
}

async function notificationEmailOf(db: Db, userId: number): Promise<string> {
  const user = await findUserEmails(db, userId)
  return user.notification_email && user.notification_email.trim() !== '' ? user.notification_email : user.email
}

/**
 * User#verified_emails: the primary address once confirmed and the private commit address. svc keeps no
 * secondary e-mails, so these are all of them.
 */
function verifiedEmailsOf(ctx: Context, user: { id: number; username: string; email: string; confirmed_at: string | null }): string[] {
  const emails = [`${user.id}-${user.username}@users.noreply.${new URL(ctx.config.externalUrl).hostname}`]
  if (user.confirmed_at !== null) emails.unshift(user.email)
  return emails.map((email) => email.toLowerCase())
}

/** Finds the row or makes it with the default level, in the given connection. */
async function ensureSetting(ctx: Context, db: Db, userId: number, source: NotificationSource, level: number) {
  const existing = await findNotificationSetting(db, userId, source)
  if (existing) return existing
  await insertNotificationSettingIfMissing(db, userId, source, level, isoTimestamp(ctx.now()))
  const created = await findNotificationSetting(db, userId, source)
  if (!created) throw new Error('notification setting vanished after insert')
  return created
}

async function applyChanges(
  ctx: Context,
  db: Db,
  userId: number,
  source: NotificationSource,
  defaultLevel: number,
  changes: NotificationSettingChanges,
) {
  const row = await ensureSetting(ctx, db, userId, source, defaultLevel)
  const level = changes.level === undefined ? row.level : levelNumberOf(changes.level)
  // Event booleans sent with another level are kept and shown once the level is custom, as GitLab stores them.
  const events = { ...parseEvents(row.events) }
  for (const [event, value] of Object.entries(changes.events)) {
    if (event === EPIC_EVENT && !eventsFor(ctx, source).includes(EPIC_EVENT)) continue
    events[event] = value
  }
  await updateNotificationSettingRow(db, row.id, { level, events: JSON.stringify(events), updated_at: isoTimestamp(ctx.now()) })
  return settingOf(ctx, source, level, JSON.stringify(events))
}

/** User#global_notification_setting: made with level participating on first access. */
export async function getGlobalNotificationSetting(ctx: Context): Promise<GlobalNotificationSetting> {
  const user = currentUser(ctx)
  const row = await ensureSetting(ctx, ctx.db, user.id, null, GLOBAL_DEFAULT)
  return { ...settingOf(ctx, null, row.level, row.events), notificationEmail: await notificationEmailOf(ctx.db, user.id) }
}

/**
 * PUT /notification_settings. The level is checked before the e-mail, as GitLab's enum raises first; unlike
 * GitLab, which saves the level even when the e-mail is refused, a refused request changes nothing.
 */
export async function updateGlobalNotificationSetting(
  ctx: Context,
  changes: GlobalNotificationSettingChanges,
): Promise<GlobalNotificationSetting> {
  const user = currentUser(ctx)
  // GitLab's order: the enum raises on an unknown level, then the user's errors, then the setting's (a blank level).
  if (changes.level !== undefined && changes.level.trim() !== '') levelNumberOf(changes.level)
  const email = changes.notificationEmail
  if (email !== undefined && email.trim() !== '') {
    const verified = verifiedEmailsOf(ctx, await findUserEmails(ctx.db, user.id))
    if (!verified.includes(email.toLowerCase())) throw new Invalid({ notification_email: ['must be an email you have verified'] })
  }
  return ctx.db.transaction().execute(async (trx) => {
    // A blank address clears the choice: notifications go to the primary e-mail again.
    if (email !== undefined) await setNotificationEmail(trx, user.id, email.trim() === '' ? null : email, isoTimestamp(ctx.now()))
    const setting = await applyChanges(ctx, trx, user.id, null, GLOBAL_DEFAULT, changes)
    return { ...setting, notificationEmail: await notificationEmailOf(trx, user.id) }
  })
}

async function sourceOf(ctx: Context, kind: 'group' | 'project', id: string): Promise<NotificationSource> {
  if (kind === 'group') return { type: 'Namespace', id: (await findGroup(ctx, id)).group.id }
  return { type: 'Project', id: (await findProject(ctx, id)).project.id }
}

/** User#notification_settings_for: the stored setting, else an unsaved one at level global. */
export async function getSourceNotificationSetting(ctx: Context, kind: 'group' | 'project', id: string): Promise<NotificationSetting> {
  const user = currentUser(ctx)
  const source = await sourceOf(ctx, kind, id)
  const row = await findNotificationSetting(ctx.db, user.id, source)
  return settingOf(ctx, source, row?.level ?? SOURCE_DEFAULT, row?.events ?? '{}')
}

/**
 * The user's settings for groups or projects the caller has already found (a page's list), by id: the stored
 * setting, else level global, as User#notification_settings_for would give; one query for the whole list.
 */
export async function listSourceNotificationSettings(
  ctx: Context,
  kind: 'group' | 'project',
  ids: readonly number[],
): Promise<Map<number, NotificationSetting>> {
  const user = currentUser(ctx)
  const type = kind === 'group' ? 'Namespace' : 'Project'
  const rows = new Map((await findNotificationSettingsOf(ctx.db, user.id, type, ids)).map((row) => [row.source_id, row]))
  return new Map(
    ids.map((id) => {
      const row = rows.get(id)
      return [id, settingOf(ctx, { type, id }, row?.level ?? SOURCE_DEFAULT, row?.events ?? '{}')]
    }),
  )
}

/** PUT on a group or project: saves the setting (even with nothing to change, as GitLab's update saves a new record). */
export async function updateSourceNotificationSetting(
  ctx: Context,
  kind: 'group' | 'project',
  id: string,
  changes: NotificationSettingChanges,
): Promise<NotificationSetting> {
  const user = currentUser(ctx)
  const source = await sourceOf(ctx, kind, id)
  if (changes.level !== undefined) levelNumberOf(changes.level)
  return ctx.db.transaction().execute((trx) => applyChanges(ctx, trx, user.id, source, SOURCE_DEFAULT, changes))
}
