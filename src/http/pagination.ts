import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import qs from 'qs'
import { BadRequest, NotAllowed, ParamError } from '../core/errors.js'
import type { Settings } from '../core/settings.js'
import type { KeysetPage, KeysetPosition, KeysetRow, OffsetPage } from '../db/pagination.js'

export const DEFAULT_PER_PAGE = 20
export const MAX_PER_PAGE = 100

/** Params every paginated list declares. */
export const paginationParams = {
  page: Type.Integer({ default: 1 }),
  per_page: Type.Integer({ default: DEFAULT_PER_PAGE }),
}

/** Params of lists that also offer keyset pagination. */
export function keysetParams<const Columns extends readonly string[]>(orderColumns: Columns, defaultOrder: Columns[number]) {
  return {
    ...paginationParams,
    pagination: Type.Optional(Type.Union([Type.Literal('offset'), Type.Literal('keyset')])),
    order_by: Type.Union(
      orderColumns.map((c) => Type.Literal(c)),
      { default: defaultOrder },
    ),
    sort: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }),
    cursor: Type.Optional(Type.String()),
  }
}

export interface PageWindow {
  page: number
  perPage: number
}

function perPageOf(perPage: number): number {
  if (perPage === 0) throw new ParamError('per_page has a value not allowed')
  // Kaminari: a negative per_page falls back to the default; above the maximum it is clamped.
  if (perPage < 0) return DEFAULT_PER_PAGE
  return Math.min(perPage, MAX_PER_PAGE)
}

/**
 * The page a list request asks for. `keysetType` names the objects of a list that also offers keyset
 * pagination; such lists refuse offsets past the `offset_pagination_limit` setting, as GitLab does.
 */
export function offsetWindow(input: { page: number; per_page: number }, settings: Settings, keysetType: string | null = null): PageWindow {
  const perPage = perPageOf(input.per_page)
  const page = Math.max(1, input.page)
  const limit = settings.offset_pagination_limit
  if (keysetType && limit > 0 && page * perPage > limit) {
    throw new NotAllowed(
      `Offset pagination has a maximum allowed offset of ${limit} for requests that return objects of type ${keysetType}. ` +
        'Remaining records can be retrieved using keyset pagination.',
    )
  }
  return { page, perPage }
}

export interface KeysetWindow {
  perPage: number
  after: KeysetPosition | null
}

/** The opaque cursor of a keyset position: base64url JSON of [value, id], with 'prev' added for a cursor leading back. */
function encodeCursor(row: KeysetRow, backward: boolean): string {
  const position: unknown[] = backward ? [row.value, row.id, PREVIOUS] : [row.value, row.id]
  return Buffer.from(JSON.stringify(position)).toString('base64url')
}

const PREVIOUS = 'prev'

/** The position a keyset request continues from: the opaque `cursor` of a Link, X-NEXT-CURSOR or X-PREV-CURSOR. */
export function keysetWindow(input: { per_page: number; cursor?: string }): KeysetWindow {
  const perPage = perPageOf(input.per_page)
  if (input.cursor === undefined) return { perPage, after: null }
  try {
    const decoded = JSON.parse(Buffer.from(input.cursor, 'base64url').toString('utf8')) as unknown
    if (Array.isArray(decoded) && Number.isSafeInteger(decoded[1])) {
      if (decoded.length === 2) return { perPage, after: { value: decoded[0], id: decoded[1] as number } }
      if (decoded.length === 3 && decoded[2] === PREVIOUS)
        return { perPage, after: { value: decoded[0], id: decoded[1] as number, backward: true } }
    }
  } catch {
    // fall through to the refusal below
  }
  throw new BadRequest('Invalid cursor parameter')
}

function pageUrl(request: FastifyRequest, externalUrl: string, overrides: Record<string, unknown>): string {
  const path = (request.raw.url ?? request.url).split('?')[0]
  const params = { ...(request.query as Record<string, unknown>), ...overrides }
  const query = qs.stringify(params, { arrayFormat: 'brackets', sort: (a, b) => a.localeCompare(b) })
  return `${externalUrl}${path}?${query}`
}

/** Link templates by request URL and page size (what pageTemplate answers depends on nothing else), newest last. */
const templates = new Map<string, string>()
const MAX_TEMPLATES = 256

/** The request's URL with `page` a NUL and `per_page` given: writing the query string is most of a Link header's cost. */
function pageTemplate(request: FastifyRequest, externalUrl: string, perPage: number): string {
  const key = `${perPage} ${externalUrl} ${request.raw.url}`
  let url = templates.get(key)
  if (url === undefined) {
    url = pageUrl(request, externalUrl, { page: '\u0000', per_page: perPage })
    if (templates.size >= MAX_TEMPLATES) templates.delete(templates.keys().next().value as string)
    templates.set(key, url)
  }
  return url
}

/** GitLab's offset headers: X-Page, X-Per-Page, X-Next-Page, X-Prev-Page, Link, X-Total, X-Total-Pages. */
export function setOffsetHeaders(request: FastifyRequest, reply: FastifyReply, externalUrl: string, page: OffsetPage<unknown>) {
  const totalPages = page.total === null ? null : Math.max(1, Math.ceil(page.total / page.perPage))
  const inRange = page.rows.length > 0 || page.page === 1
  const prev = page.page > 1 && inRange ? page.page - 1 : null
  const next = page.hasNext ? page.page + 1 : null
  // The links differ only in their page: the query is written once, its page a NUL (`%00`, which no query that was
  // let in can carry), then each link puts its number there.
  const url = pageTemplate(request, externalUrl, page.perPage)
  const queryAt = url.indexOf('?') + 1
  const [base, query] = [url.slice(0, queryAt), url.slice(queryAt)]
  const link = (n: number, rel: string) => `<${base}${query.replace('%00', String(n))}>; rel="${rel}"`
  const links: string[] = []
  if (prev !== null) links.push(link(prev, 'prev'))
  if (next !== null) links.push(link(next, 'next'))
  links.push(link(1, 'first'))
  if (totalPages !== null) links.push(link(totalPages, 'last'))
  reply.header('x-per-page', String(page.perPage))
  reply.header('x-page', String(page.page))
  reply.header('x-next-page', next === null ? '' : String(next))
  reply.header('x-prev-page', prev === null ? '' : String(prev))
  reply.header('link', links.join(', '))
  if (page.total !== null && totalPages !== null) {
    reply.header('x-total', String(page.total))
    reply.header('x-total-pages', String(totalPages))
  }
}

/**
 * Cursor-style keyset pages (GL Gitlab::Pagination::Keyset::CursorBasedRequestContext) carry X-PREV-CURSOR when a
 * previous page exists, and X-NEXT-CURSOR with `Link: <…>; rel="next"` while a next page may exist (spec:
 * Pagination response headers).
 */
export function setKeysetHeaders(request: FastifyRequest, reply: FastifyReply, externalUrl: string, page: KeysetPage<unknown>) {
  if (page.first) reply.header('X-PREV-CURSOR', encodeCursor(page.first, true))
  if (!page.last) return
  const cursor = encodeCursor(page.last, false)
  reply.header('X-NEXT-CURSOR', cursor)
  reply.header('link', `<${pageUrl(request, externalUrl, { cursor })}>; rel="next"`)
}

/**
 * Column-style keyset pages (GL Gitlab::Pagination::Keyset, used by projects): the next page's Link is this
 * request's URL with filters such as `id_after=<last id>`; absent when there is no next page.
 */
export function setColumnKeysetHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  externalUrl: string,
  next: Record<string, string | number> | null,
) {
  if (!next) return
  reply.header('link', `<${pageUrl(request, externalUrl, next)}>; rel="next"`)
}
