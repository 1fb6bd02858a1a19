import { sql, type SelectQueryBuilder } from 'kysely'
import type { Db } from './index.js'
import { executeRows } from './prepared.js'

/** Above this many matching rows, lists skip counting (GitLab: MAX_COUNT_LIMIT). */
export const COUNT_LIMIT = 10_000

export interface OffsetPage<T> {
  rows: T[]
  page: number
  perPage: number
  /** null when more than COUNT_LIMIT rows match. */
  total: number | null
  hasNext: boolean
}

/** A row's place in a keyset order: its sort value and id. */
export interface KeysetRow {
  value: unknown
  id: number
}

/** Where a keyset page starts: after a row, or, when a cursor leads back, before it. */
export interface KeysetPosition extends KeysetRow {
  backward?: boolean
}

export interface KeysetPage<T> {
  rows: T[]
  /** The last row's sort value and id, when a next page may follow. */
  last: KeysetRow | null
  /** The first row's sort value and id, when a previous page exists. */
  first: KeysetRow | null
}

type AnyQuery<O> = SelectQueryBuilder<any, any, O>

/**
 * An ordered list query whose windows are read by a prepared query (db/prepared.ts): `window` reads `limit` rows from
 * `offset` on, into an array of the caller's own; `query` builds the whole of it, which only counting needs.
 */
export interface PreparedList<O> {
  window(limit: number, offset: number): Promise<O[]>
  query(): AnyQuery<O>
}

/** One page of an ordered query by offset, with a count capped at COUNT_LIMIT. */
export async function fetchOffsetPage<O>(
  db: Db,
  list: AnyQuery<O> | PreparedList<O>,
  page: number,
  perPage: number,
): Promise<OffsetPage<O>> {
  const offset = (page - 1) * perPage
  const rows = 'window' in list ? await list.window(perPage + 1, offset) : await executeRows(db, list.limit(perPage + 1).offset(offset))
  const hasNext = rows.length > perPage
  if (hasNext) rows.pop()
  // The last page (or an empty first one) already tells the total: no count query.
  if (!hasNext && (rows.length > 0 || page === 1)) return { rows, page, perPage, total: (page - 1) * perPage + rows.length, hasNext }
  const query = 'window' in list ? list.query() : list
  const capped = query
    .clearSelect()
    .clearOrderBy()
    .select(sql<number>`1`.as('one'))
    .limit(COUNT_LIMIT + 1)
  const [counted] = await executeRows(db, db.selectFrom(capped.as('matching')).select(sql<number>`count(*)`.as('count')))
  const count = Number(counted.count)
  return { rows, page, perPage, total: count > COUNT_LIMIT ? null : count, hasNext }
}

/**
 * One page from a keyset position: rows ordered by (column, id) in one direction, strictly after `after`, or, for a
 * backward position, the rows just before it (fetched in the reverse order and turned round). The page reports its
 * last position while a next page may follow, and its first one when rows come before it.
 */
export async function fetchKeysetPage<O extends { id: number }>(
  query: AnyQuery<O>,
  options: { column: string; direction: 'asc' | 'desc'; after: KeysetPosition | null; perPage: number },
): Promise<KeysetPage<O>> {
  const { column, direction, after, perPage } = options
  const backward = after?.backward === true
  const fetchDirection = backward ? (direction === 'asc' ? 'desc' : 'asc') : direction
  let q = query.clearOrderBy()
  if (after) {
    const op = fetchDirection === 'asc' ? '>' : '<'
    q =
      column === 'id'
        ? q.where(sql.ref('id'), op, after.id)
        : q.where((eb) =>
            eb.or([eb(sql.ref(column), op, after.value), eb.and([eb(sql.ref(column), '=', after.value), eb(sql.ref('id'), op, after.id)])]),
          )
  }
  if (column !== 'id') q = q.orderBy(sql.ref(column), fetchDirection)
  // Going back, one row more tells whether a page comes before this one.
  const rows = await q
    .orderBy(sql.ref('id'), fetchDirection)
    .limit(backward ? perPage + 1 : perPage)
    .execute()
  const hasPrevious = backward ? rows.length > perPage : after !== null && rows.length > 0
  if (backward) {
    if (rows.length > perPage) rows.pop()
    rows.reverse()
  }
  const hasNext = backward ? rows.length > 0 : rows.length === perPage
  const positionOf = (row: O): KeysetRow => ({ value: (row as Record<string, unknown>)[column], id: row.id })
  return {
    rows,
    last: hasNext ? positionOf(rows[rows.length - 1]) : null,
    first: hasPrevious ? positionOf(rows[0]) : null,
  }
}
