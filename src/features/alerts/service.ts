import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { Invalid, NotFound } from '../../core/errors.js'
import type { AlertRow } from '../../db/schema.js'
import { enqueueJob } from '../../jobs/index.js'
import { noticeChange } from '../change-notices/index.js'
import { createAlertSystemNote, findAlertNotes } from '../notes/index.js'
import { findUsersByIds } from '../users/index.js'
import type { LoadedProject } from '../access/index.js'
import { CloseIncident } from './jobs.js'
import { authorizeReadAlerts, authorizeUpdateAlerts } from './policy.js'
import { Status, STATUS_NAMES, type AlertStatusName, type AlertView } from './present.js'
import { findAlertViewByIid, hasOtherOpenAlert, listAlertViews, lockAlertCounter, updateAlertRow, type AlertFilter } from './store.js'

export const ALERT_SORTS = [
  'created_asc',
  'created_desc',
  'created_time_asc',
  'created_time_desc',
  'updated_asc',
  'updated_desc',
  'updated_time_asc',
  'updated_time_desc',
  'started_at_asc',
  'started_at_desc',
  'ended_at_asc',
  'ended_at_desc',
  'event_count_asc',
  'event_count_desc',
  'severity_asc',
  'severity_desc',
  'status_asc',
  'status_desc',
] as const

/**
 * The order of a sort name (GL AlertManagement::Alert.sort_by_attribute). Severity and status sort by meaning, not by
 * number: ascending goes from the least critical severity to critical, and from ignored to triggered.
 */
function orderOf(sort: string | undefined): AlertFilter['order'] {
  if (!sort) return { column: 'created_at', direction: 'desc' }
  const direction = sort.endsWith('_asc') ? 'asc' : 'desc'
  const name = sort.slice(0, sort.lastIndexOf('_'))
  const inverted = direction === 'asc' ? 'desc' : 'asc'
  switch (name) {
    case 'created':
    case 'created_time':
      return { column: 'created_at', direction }
    case 'updated':
    case 'updated_time':
      return { column: 'updated_at', direction }
    case 'started_at':
      return { column: 'started_at', direction }
    case 'ended_at':
      return { column: 'ended_at', direction }
    case 'event_count':
      return { column: 'events', direction }
    case 'severity':
      return { column: 'severity', direction: inverted }
    default:
      return { column: 'status', direction: inverted }
  }
}

/** GL Gitlab::SQL::Pattern: terms of 3 characters and more match words anywhere, shorter ones a whole value. */
function searchOf(search: string | undefined): AlertFilter['search'] {
  const term = search?.trim()
  if (!term) return undefined
  if (term.length < 3) return { exact: term }
  const words = (term.match(/"[^"]+"|\S+/g) ?? []).map((word) => word.replace(/^"|"$/g, '')).filter((word) => word.length >= 3)
  return { words: words.length > 0 ? words : [term] }
}

export interface ListAlertsInput {
  status?: string
  search?: string
  sort?: string
  page: number
  perPage: number
}

/** The project's alerts a Reporter and up may read (GL AlertManagement::AlertsFinder). */
export async function listAlerts(
  ctx: Context,
  loaded: LoadedProject,
  input: ListAlertsInput,
): Promise<{ alerts: AlertView[]; total: number }> {
  authorizeReadAlerts(loaded.access)
  const status = input.status === undefined ? undefined : STATUS_NAMES.indexOf(input.status as AlertStatusName)
  const filter: AlertFilter = {
    status: status === undefined || status < 0 ? undefined : status,
    search: searchOf(input.search),
    order: orderOf(input.sort),
  }
  const { rows, total } = await listAlertViews(ctx.db, loaded.project.id, filter, input.page, input.perPage)
  return { alerts: rows, total }
}

export async function showAlert(ctx: Context, loaded: LoadedProject, iid: number): Promise<AlertView> {
  authorizeReadAlerts(loaded.access)
  const alert = Number.isSafeInteger(iid) ? await findAlertViewByIid(ctx.db, loaded.project.id, iid) : undefined
  if (!alert) throw new NotFound('Alert')
  return alert
}

/** One note of an alert's activity with its author. */
export interface AlertActivityItem {
  id: number
  body: string
  system: boolean
  createdAt: string
  author: User
}

/** The notes of an alert the caller may read, oldest first, with their authors (GL alert details "Activity feed"). */
export async function listAlertActivity(ctx: Context, loaded: LoadedProject, alert: AlertView): Promise<AlertActivityItem[]> {
  authorizeReadAlerts(loaded.access)
  const rows = await findAlertNotes(ctx.db, alert.id)
  const authors = new Map((await findUsersByIds(ctx.db, [...new Set(rows.map((row) => row.author_id))])).map((user) => [user.id, user]))
  return rows.flatMap((row) => {
    const author = authors.get(row.author_id)
    return author ? [{ id: row.id, body: row.body, system: row.system === 1, createdAt: row.created_at, author }] : []
  })
}

/** "Triggered", "Acknowledged", … (Ruby `titleize` of the status name). */
export function statusTitle(status: number): string {
  const name = STATUS_NAMES[status] ?? 'triggered'
  return name[0].toUpperCase() + name.slice(1)
}

/**
 * Changes an alert's status (GL AlertManagement::Alerts::UpdateService): entering resolved sets ended_at to now, any
 * other state clears it; a change leaves a system note by the caller, and resolving closes the incident when the
 * alert's integration says so.
 */
export async function updateAlertStatus(ctx: Context, loaded: LoadedProject, iid: number, statusName: AlertStatusName): Promise<AlertView> {
  const before = await showAlert(ctx, loaded, iid)
  authorizeUpdateAlerts(loaded.access)
  const status = STATUS_NAMES.indexOf(statusName)
  if (status === before.status) return before
  const user = ctx.caller.user
  const now = ctx.now()
  const at = now.toISOString()
  await ctx.db.transaction().execute(async (trx) => {
    if (before.status === Status.RESOLVED && before.fingerprint !== null) {
      // Webhooks create alerts holding this lock: no alert with the fingerprint opens while this one reopens.
      await lockAlertCounter(trx, loaded.project.id)
      if (await hasOtherOpenAlert(trx, loaded.project.id, before.fingerprint, before.id)) {
        throw new Invalid({ fingerprint: ['Cannot have multiple unresolved alerts'] })
      }
    }
    const values: Partial<AlertRow> = { status, ended_at: status === Status.RESOLVED ? at : null, updated_at: at }
    await updateAlertRow(trx, before.id, values)
    await noticeChange(ctx, trx, { kind: 'alert', action: 'update', projectId: loaded.project.id, alertId: before.id, at: now })
    if (user) {
      const body = `changed the status to **${statusTitle(status)}**`
      await createAlertSystemNote(trx, { id: before.id, projectId: loaded.project.id }, user.id, body, now)
    }
    if (status === Status.RESOLVED && before.issue_id !== null && before.integration_id !== null) {
      const integration = await trx
        .selectFrom('alert_integrations')
        .select('auto_close_incident')
        .where('id', '=', before.integration_id)
        .executeTakeFirst()
      if (integration?.auto_close_incident) await enqueueJob(trx, CloseIncident, { alertId: before.id }, { now })
    }
  })
  return (await findAlertViewByIid(ctx.db, loaded.project.id, iid)) as AlertView
}
