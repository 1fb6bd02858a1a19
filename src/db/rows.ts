type Statement = ReturnType<import('better-sqlite3').Database['prepare']>
type Cells = unknown[]
type RowBuilder = (cells: Cells) => Record<string, unknown>

const builders = new Map<string, RowBuilder>()

/**
 * A function that makes a row object from a statement's cells with one object literal. better-sqlite3 sets each column
 * as a new property, which leaves wide rows as dictionaries, slow to read and to copy; a literal has one fixed shape.
 * Same-named columns keep the last one, as better-sqlite3 does.
 */
function rowBuilder(names: string[]): RowBuilder {
  const key = names.join('\u0000')
  let build = builders.get(key)
  if (!build) {
    // `__proto__` in a literal would set the prototype instead of a field.
    build = names.includes('__proto__')
      ? (cells) => {
          const row: Record<string, unknown> = {}
          names.forEach((name, i) =>
            Object.defineProperty(row, name, { value: cells[i], enumerable: true, writable: true, configurable: true }),
          )
          return row
        }
      : (new Function('c', `return {${names.map((name, i) => `${JSON.stringify(name)}: c[${i}]`).join(', ')}}`) as RowBuilder)
    builders.set(key, build)
  }
  return build
}

/**
 * Makes a reading statement answer rows of one shape (see rowBuilder): it reads cells as arrays, and `all` and `get`
 * build the objects. A statement so changed must not be switched to pluck or raw mode by its users.
 */
export function withRowsOfOneShape<S extends Statement>(statement: S): S {
  if (!statement.reader) return statement
  const build = rowBuilder(statement.columns().map((column) => column.name))
  statement.raw(true)
  const all = statement.all.bind(statement) as (...params: unknown[]) => Cells[]
  const get = statement.get.bind(statement) as (...params: unknown[]) => Cells | undefined
  const iterate = statement.iterate.bind(statement) as (...params: unknown[]) => IterableIterator<Cells>
  statement.all = ((...params: unknown[]) => {
    const rows: unknown[] = all(...params)
    for (let i = 0; i < rows.length; i++) rows[i] = build(rows[i] as Cells)
    return rows
  }) as Statement['all']
  statement.get = ((...params: unknown[]) => {
    const cells = get(...params)
    return cells === undefined ? undefined : build(cells)
  }) as Statement['get']
  statement.iterate = function* (...params: unknown[]) {
    for (const cells of iterate(...params)) yield build(cells)
  } as Statement['iterate']
  return statement
}
