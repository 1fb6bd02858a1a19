import { sql, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import type { AlertRow, NewAlertRow } from '../../db/schema.js'
import type { AlertView } from './present.js'

/** Alerts with the iid of their incident and the name of their environment. */
export function selectAlertViews(db: Db, projectId: number) {
  return db
    .selectFrom('alerts')
    .leftJoin('issues', 'issues.id', 'alerts.issue_id')
    .leftJoin('environments', 'environments.id', 'alerts.environment_id')
    .selectAll('alerts')
    .select(['issues.iid as issue_iid', 'environments.name as environment_name'])
    .where('alerts.project_id', '=', projectId)
}

/** The alert an incident was opened for, if any. */
export function findAlertOfIssue(db: Db, projectId: number, issueId: number): Promise<AlertRow | undefined> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('issue_id', '=', issueId)
    .orderBy('id')
    .executeTakeFirst()
}

/** A LIKE pattern matching `term` anywhere, with its own wildcards escaped. */
function containing(term: string): string {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

const SEARCHED = ['title', 'description', 'monitoring_tool', 'service', 'hosts'] as const

export interface AlertFilter {
  status?: number
  /** Words that must each appear in one searched column; or, for a term under 3 characters, a whole column. */
  search?: { words: string[] } | { exact: string }
  order: { column: 'created_at' | 'updated_at' | 'started_at' | 'ended_at' | 'events' | 'severity' | 'status'; direction: 'asc' | 'desc' }
}

function filtered(db: Db, projectId: number, filter: AlertFilter) {
  let query = selectAlertViews(db, projectId)
  if (filter.status !== undefined) query = query.where('alerts.status', '=', filter.status)
  const search = filter.search
  if (search && 'words' in search) {
    for (const word of search.words) {
      query = query.where((eb) =>
        eb.or(SEARCHED.map((column) => sql<SqlBool>`lower(${sql.ref(`alerts.${column}`)}) like ${containing(word)} escape '\\'`)),
      )
    }
  } else if (search) {
    const term = search.exact.toLowerCase()
    query = query.where((eb) =>
      eb.or(SEARCHED.filter((c) => c !== 'hosts').map((column) => sql<SqlBool>`lower(${sql.ref(`alerts.${column}`)}) = ${term}`)),
    )
  }
  return query
}

/** One page of the project's alerts and how many match. */
export async function listAlertViews(db: Db, projectId: number, filter: AlertFilter, page: number, perPage: number) {
  const base = filtered(db, projectId, filter)
  const { column, direction } = filter.order
  // Nulls (alerts never ended) sort as the largest value on both engines, as PostgreSQL does.
  let ordered = column === 'ended_at' ? base.orderBy(sql`alerts.ended_at is null`, direction) : base
  ordered = ordered.orderBy(`alerts.${column}`, direction).orderBy('alerts.id', direction)
  const rows = (await ordered
    .limit(perPage)
    .offset((page - 1) * perPage)
    .execute()) as AlertView[]
  const counted = await filtered(db, projectId, { ...filter })
    .clearSelect()
    .select(sql<number>`count(*)`.as('count'))
    .executeTakeFirstOrThrow()
  return { rows, total: Number(counted.count) }
}

export async function findAlertViewByIid(db: Db, projectId: number, iid: number): Promise<AlertView | undefined> {
  return (await selectAlertViews(db, projectId).where('alerts.iid', '=', iid).executeTakeFirst()) as AlertView | undefined
}

export function updateAlertRow(db: Db, id: number, values: Partial<AlertRow>) {
  return db.updateTable('alerts').set(values).where('id', '=', id).execute()
}

/** Another alert not resolved with this fingerprint (GL validation "Cannot have multiple unresolved alerts"). */
export async function hasOtherOpenAlert(db: Db, projectId: number, fingerprint: string, exceptId: number): Promise<boolean> {
  const row = await db
    .selectFrom('alerts')
    .select('id')
    .where('project_id', '=', projectId)
    .where('fingerprint', '=', fingerprint)
    .where('status', '<>', 2)
    .where('id', '<>', exceptId)
    .executeTakeFirst()
  return row !== undefined
}

/**
 * Locks the project's alert iid counter until the transaction ends (creating it when missing) and returns its value:
 * whoever holds it is the only one matching and creating the project's alerts.
 */
export async function lockAlertCounter(trx: Db, projectId: number): Promise<number> {
  const row = await trx
    .insertInto('internal_ids')
    .values({ project_id: projectId, usage: 'alerts', last_value: 0 })
    .onConflict((conflict) => conflict.columns(['project_id', 'usage']).doUpdateSet({ last_value: sql`internal_ids.last_value` }))
    .returning('last_value')
    .executeTakeFirstOrThrow()
  return Number(row.last_value)
}

/** Takes `count` iids at once from the locked counter; returns the last one. */
export async function reserveAlertIids(trx: Db, projectId: number, count: number): Promise<number> {
  const row = await trx
    .updateTable('internal_ids')
    .set({ last_value: sql`last_value + ${count}` })
    .where('project_id', '=', projectId)
    .where('usage', '=', 'alerts')
    .returning('last_value')
    .executeTakeFirstOrThrow()
  return Number(row.last_value)
}

const CHUNK = 400

/** The project's alerts not resolved with one of these fingerprints. */
export async function findOpenAlertsByFingerprints(trx: Db, projectId: number, fingerprints: readonly string[]) {
  const found: Pick<AlertRow, 'id' | 'iid' | 'title' | 'fingerprint' | 'issue_id' | 'status' | 'monitoring_tool'>[] = []
  for (let at = 0; at < fingerprints.length; at += CHUNK) {
    const rows = await trx
      .selectFrom('alerts')
      .select(['id', 'iid', 'title', 'fingerprint', 'issue_id', 'status', 'monitoring_tool'])
      .where('project_id', '=', projectId)
      .where('fingerprint', 'in', fingerprints.slice(at, at + CHUNK))
      .where('status', '<>', 2)
      .execute()
    found.push(...rows)
  }
  return found
}

/** Adds occurrences to many alerts in one statement a few hundred at a time: `counts` maps alert id to occurrences. */
export async function addAlertEvents(trx: Db, counts: ReadonlyMap<number, number>, now: string) {
  const entries = [...counts.entries()]
  for (let at = 0; at < entries.length; at += 200) {
    const chunk = entries.slice(at, at + 200)
    const cases = sql.join(
      chunk.map(([id, count]) => sql`when ${id} then ${count}`),
      sql` `,
    )
    await trx
      .updateTable('alerts')
      .set({ events: sql`events + (case id ${cases} else 0 end)`, updated_at: now })
      .where(
        'id',
        'in',
        chunk.map(([id]) => id),
      )
      .execute()
  }
}

export function resolveAlertRow(trx: Db, id: number, addedEvents: number, endedAt: string, now: string) {
  return trx
    .updateTable('alerts')
    .set({ status: 2, ended_at: endedAt, events: sql`events + ${addedEvents}`, updated_at: now })
    .where('id', '=', id)
    .execute()
}

export async function insertAlertRows(trx: Db, rows: NewAlertRow[]): Promise<{ id: number; iid: number }[]> {
  const inserted: { id: number; iid: number }[] = []
  // 21 columns a row: stay well under SQLite's bound-parameter limit.
  for (let at = 0; at < rows.length; at += 40) {
    const chunk = await trx
      .insertInto('alerts')
      .values(rows.slice(at, at + 40))
      .returning(['id', 'iid'])
      .execute()
    inserted.push(...chunk.map((row) => ({ id: Number(row.id), iid: Number(row.iid) })))
  }
  return inserted
}

// The webhooks' batch writes its alert notes under these names; the notes feature owns the table.
export { createAlertSystemNotes as insertAlertNotes, type AlertSystemNote as AlertNote } from '../notes/index.js'
