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

export interface KeysetPage<T> {
  rows: T[]
  /** The last row's sort value and id, when the page was full. */
  last: { value: unknown; id: number } | null
}

type AnyQuery<O> = SelectQueryBuilder<any, any, O>

/** One page of an ordered query by offset, with a count capped at COUNT_LIMIT. */
export async function fetchOffsetPage<O>(db: Db, query: AnyQuery<O>, page: number, perPage: number): Promise<OffsetPage<O>> {
  const rows = await executeRows(db, query.limit(perPage + 1).offset((page - 1) * perPage))
  const hasNext = rows.length > perPage
  if (hasNext) rows.pop()
  // The last page (or an empty first one) already tells the total: no count query.
  if (!hasNext && (rows.length > 0 || page === 1)) return { rows, page, perPage, total: (page - 1) * perPage + rows.length, hasNext }
  const capped = query
    .clearSelect()
    .clearOrderBy()
    .select(sql<number>`1`.as('one'))
    .limit(COUNT_LIMIT + 1)
  const counted = await db
    .selectFrom(capped.as('matching'))
    .select(sql<number>`count(*)`.as('count'))
    .executeTakeFirstOrThrow()
  const count = Number(counted.count)
  return { rows, page, perPage, total: count > COUNT_LIMIT ? null : count, hasNext }
}

/**
 * One page after a keyset position: rows ordered by (column, id) in one direction, strictly after `after`.
 * A full page reports its last position so the caller can link to the next one.
 */
export async function fetchKeysetPage<O extends { id: number }>(
  query: AnyQuery<O>,
  options: { column: string; direction: 'asc' | 'desc'; after: { value: unknown; id: number } | null; perPage: number },
): Promise<KeysetPage<O>> {
  const { column, direction, after, perPage } = options
  let q = query.clearOrderBy()
  if (after) {
    const op = direction === 'asc' ? '>' : '<'
    q =
      column === 'id'
        ? q.where(sql.ref('id'), op, after.id)
        : q.where((eb) =>
            eb.or([eb(sql.ref(column), op, after.value), eb.and([eb(sql.ref(column), '=', after.value), eb(sql.ref('id'), op, after.id)])]),
          )
  }
  if (column !== 'id') q = q.orderBy(sql.ref(column), direction)
  const rows = await q.orderBy(sql.ref('id'), direction).limit(perPage).execute()
  const lastRow = rows.length === perPage ? rows[rows.length - 1] : null
  return {
    rows,
    last: lastRow ? { value: (lastRow as Record<string, unknown>)[column], id: lastRow.id } : null,
  }
}
