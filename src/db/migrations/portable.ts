import { PostgresAdapter, sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely'

// Frozen: migrations depend on these exact definitions. Add new helpers; never change these.

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}

/** An integer primary key that is never reused. */
export function withId<T extends string>(db: Kysely<any>, table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'> {
  return isPostgres(db)
    ? table.addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
}

/** A reference to another table's id. */
export function idType(db: Kysely<any>) {
  return isPostgres(db) ? ('bigint' as const) : ('integer' as const)
}

/** A timestamp column: timestamptz on PostgreSQL, ISO 8601 text on SQLite. */
export function timestampType(db: Kysely<any>) {
  return isPostgres(db) ? ('timestamptz(3)' as const) : ('text' as const)
}

/** A calendar date column. */
export function dateType(db: Kysely<any>) {
  return isPostgres(db) ? ('date' as const) : ('text' as const)
}

/** A 0/1 flag column with a default. */
export function flag(value: 0 | 1) {
  return (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(value)
}

/** A unique index on lower(column), for case-insensitive names such as usernames and e-mails. */
export async function createLowerUniqueIndex(db: Kysely<any>, name: string, table: string, column: string) {
  await sql`create unique index ${sql.id(name)} on ${sql.id(table)} (lower(${sql.id(column)}))`.execute(db)
}
