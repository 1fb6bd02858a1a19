import { PostgresAdapter, sql } from 'kysely'
import type { Db } from '../db/index.js'
import type { JobRow, JobState, NewJobRow } from '../db/schema.js'

/** Inserts a job; with a unique key already taken nothing is inserted and the answer is null. */
export async function insertJob(db: Db, row: NewJobRow): Promise<number | null> {
  const inserted = await db
    .insertInto('jobs')
    .values(row)
    .onConflict((oc) => oc.column('unique_key').doNothing())
    .returning('id')
    .executeTakeFirst()
  return inserted ? Number(inserted.id) : null
}

export function findJobById(db: Db, id: number): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst()
}

function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}

/**
 * Claims the oldest due job of the given kinds, or one whose worker's lease ran out, in one statement.
 * PostgreSQL skips rows other workers are claiming; SQLite has a single writer, so the statement alone is atomic, also
 * between the worker processes of one `svc serve` (the statement holds the file's write lock from its start).
 */
export async function claimJob(db: Db, claim: { kinds: string[]; workerId: string; now: Date; leaseUntil: Date }): Promise<JobRow | null> {
  if (claim.kinds.length === 0) return null
  const now = claim.now.toISOString()
  const skipLocked = isPostgres(db) ? sql` for update skip locked` : sql``
  const result = await sql<JobRow>`
    update jobs set state = 'running', attempts = attempts + 1, locked_by = ${claim.workerId},
      lease_until = ${claim.leaseUntil.toISOString()}, updated_at = ${now}
    where id = (
      select id from jobs
      where ((state = 'queued' and run_at <= ${now}) or (state = 'running' and lease_until < ${now}))
        and kind in (${sql.join(claim.kinds)})
      order by run_at, id
      limit 1${skipLocked}
    )
    returning *`.execute(db)
  const row = result.rows[0]
  return row ? { ...row, id: Number(row.id) } : null
}

/** Extends the lease of a job this worker still holds; false when it holds it no longer. */
export async function renewJobLease(db: Db, id: number, workerId: string, leaseUntil: Date, now: Date): Promise<boolean> {
  return updateHeldJob(db, id, workerId, { lease_until: leaseUntil.toISOString(), updated_at: now.toISOString() })
}

/** Marks a held job done; false (nothing written) when the worker lost it to another. */
export function markJobDone(db: Db, id: number, workerId: string, now: Date): Promise<boolean> {
  const at = now.toISOString()
  return updateHeldJob(db, id, workerId, { state: 'done', lease_until: null, last_error: null, updated_at: at, finished_at: at })
}

/** Puts a held job back in the queue for `runAt`, or fails it for good when `runAt` is null. */
export function markJobFailedAttempt(db: Db, id: number, workerId: string, error: string, runAt: Date | null, now: Date): Promise<boolean> {
  const at = now.toISOString()
  const state: JobState = runAt ? 'queued' : 'failed'
  return updateHeldJob(db, id, workerId, {
    state,
    run_at: runAt ? runAt.toISOString() : undefined,
    lease_until: null,
    last_error: error,
    updated_at: at,
    finished_at: runAt ? null : at,
  })
}

async function updateHeldJob(
  db: Db,
  id: number,
  workerId: string,
  changes: {
    state?: JobState
    run_at?: string
    lease_until?: string | null
    last_error?: string | null
    updated_at: string
    finished_at?: string | null
  },
): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set(changes)
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .where('state', '=', 'running')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** How many jobs there are of each kind in each state. */
export async function countJobsByKindAndState(db: Db): Promise<{ kind: string; state: JobState; count: number }[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['kind', 'state', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy(['kind', 'state'])
    .orderBy('kind')
    .orderBy('state')
    .execute()
  return rows.map((row) => ({ kind: row.kind, state: row.state, count: Number(row.count) }))
}

/** Deletes up to `limit` jobs that finished in `state` before `before`; answers how many went. */
export async function deleteFinishedJobs(db: Db, state: 'done' | 'failed', before: Date, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('jobs')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('jobs')
        .select('id')
        .where('state', '=', state)
        .where('finished_at', '<', before.toISOString())
        .orderBy('id')
        .limit(limit),
    )
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** The most recent failed jobs, the latest failure first. */
export async function listFailedJobs(db: Db, limit: number): Promise<JobRow[]> {
  const rows = await db
    .selectFrom('jobs')
    .selectAll()
    .where('state', '=', 'failed')
    .orderBy('finished_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
  return rows.map((row) => ({ ...row, id: Number(row.id) }))
}

/**
 * Puts a failed job back in the queue, due now, with its attempts counted afresh (each retry again waits its
 * backoff); false when the job is not failed, so a retry sent twice queues it once.
 */
export async function retryFailedJob(db: Db, id: number, now: Date): Promise<boolean> {
  const at = now.toISOString()
  const result = await db
    .updateTable('jobs')
    .set({ state: 'queued', attempts: 0, run_at: at, lease_until: null, locked_by: null, finished_at: null, updated_at: at })
    .where('id', '=', id)
    .where('state', '=', 'failed')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}
