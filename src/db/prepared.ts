import { CompiledQuery, PostgresAdapter, type Compilable } from 'kysely'
import { idleSqliteConnection, type Db } from './index.js'

/**
 * A query for hot paths, compiled once per engine (and per length of each array argument) and then run with new
 * argument values: building and compiling a Kysely query costs more than running it. `build` must pass each argument
 * to the query as a plain value, and each element of an array argument likewise (it is given placeholders and must
 * not branch on them; it may branch on an array's length).
 */
export function preparedQuery<Row, Args extends unknown[]>(build: (db: Db, ...args: Args) => Compilable<Row>) {
  const compiled = new Map<string, { sql: string; parameters: readonly unknown[]; slots: (Slot | null)[]; read: boolean }>()
  return async function run(db: Db, ...args: Args): Promise<Row[]> {
    const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter
    let shape = isPostgres ? 'p' : 's'
    for (const arg of args) if (Array.isArray(arg)) shape += `,${arg.length}`
    let query = compiled.get(shape)
    if (!query) {
      const slotOf = new Map<string, Slot>()
      const placeholders = args.map((arg, index) => {
        const placeholder = (element: number) => {
          const text = `\u0000argument ${index} ${element}\u0000`
          slotOf.set(text, { index, element })
          return text
        }
        return Array.isArray(arg) ? arg.map((_, element) => placeholder(element)) : placeholder(-1)
      })
      const { sql, parameters, query: node } = build(db, ...(placeholders as Args)).compile()
      const slots = parameters.map((value) => (typeof value === 'string' ? (slotOf.get(value) ?? null) : null))
      query = { sql, parameters, slots, read: node.kind === 'SelectQueryNode' }
      compiled.set(shape, query)
    }
    const { sql, parameters, slots, read } = query
    const values = slots.map((slot, index) =>
      slot === null ? parameters[index] : slot.element === -1 ? args[slot.index] : (args[slot.index] as unknown[])[slot.element],
    )
    return read ? runRows<Row>(db, sql, values) : runWrite<Row>(db, sql, values)
  }
}

/** Where a parameter of a prepared query takes its value: an argument, or an element of an array argument. */
interface Slot {
  index: number
  element: number
}

/**
 * A synchronous read on an idle SQLite connection is atomic; it skips Kysely's connection queue, and its result is
 * kept until a write could change it (db/read-cache.ts).
 */
async function runRows<Row>(db: Db, sql: string, values: unknown[]): Promise<Row[]> {
  const idle = db.getExecutor().adapter instanceof PostgresAdapter ? null : idleSqliteConnection(db)
  if (idle) return idle.cache.rows(sql, values, () => idle.file.prepare(sql).all(...values) as Row[])
  return runWrite<Row>(db, sql, values)
}

/** Through Kysely's driver, which every write must pass so that the caches hear of it (db/writes.ts). */
async function runWrite<Row>(db: Db, sql: string, values: unknown[]): Promise<Row[]> {
  const result = await db.executeQuery<Row>(CompiledQuery.raw(sql, values))
  return result.rows
}

/**
 * Runs a query built per request (its shape varies) the way prepared queries run: directly on an idle SQLite
 * connection, its rows kept by the read cache; through Kysely otherwise.
 */
export async function executeRows<Row>(db: Db, query: Compilable<Row>): Promise<Row[]> {
  const { sql, parameters, query: node } = query.compile()
  return node.kind === 'SelectQueryNode' ? runRows<Row>(db, sql, [...parameters]) : runWrite<Row>(db, sql, [...parameters])
}
