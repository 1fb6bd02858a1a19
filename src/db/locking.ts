import { PostgresAdapter, sql, type Insertable, type Kysely } from 'kysely'
import type { Db } from './index.js'
import type { Database } from './schema.js'

// Row locks and serialised inserts for both engines, so that features never ask which engine they run on.

function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}

/**
 * Locks one row of `table` until the transaction `trx` ends, so that transactions that check and change what hangs
 * off that row run one after another. SQLite needs no lock: it runs one write transaction at a time.
 */
export async function lockRowForTransaction(trx: Db, table: keyof Database & string, id: number): Promise<void> {
  if (isPostgres(trx)) await sql`select id from ${sql.table(table)} where id = ${id} for update`.execute(trx)
}

/**
 * Inserts `row` only while `table` is empty: callers racing on any node insert one row between them. PostgreSQL
 * serialises them with a transaction-scoped advisory lock named after the table; on SQLite one statement checks and
 * inserts under the file's write lock.
 */
export async function insertIntoEmptyTable<T extends keyof Database & string>(
  db: Db,
  table: T,
  row: Insertable<Database[T]>,
): Promise<void> {
  const untyped = db as unknown as Kysely<Record<string, Record<string, unknown>>>
  const name: string = table
  if (isPostgres(db)) {
    await untyped.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${name}))`.execute(trx)
      const existing = await trx
        .selectFrom(name)
        .select(sql<number>`1`.as('one'))
        .limit(1)
        .executeTakeFirst()
      if (!existing) await trx.insertInto(name).values(row).execute()
    })
    return
  }
  const values = row as Record<string, unknown>
  const columns = Object.keys(values)
  await untyped
    .insertInto(name)
    .columns(columns)
    .expression(
      untyped
        .selectNoFrom((eb) => columns.map((column) => eb.val(values[column]).as(column)))
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom(name).select(sql<number>`1`.as('one'))))),
    )
    .execute()
}
