import { isUtf8 } from 'node:buffer'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import qs from 'qs'
import { ParamError } from '../core/errors.js'
import { MalformedRequest, UnsupportedMediaType } from './errors.js'

/** A request line longer than this is refused with 414 (GitLab's front server: an 8 KiB header buffer). */
export const MAX_REQUEST_LINE_BYTES = 8192
/** Largest request body the API reads. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024
/** JSON structure limits (GitLab's JSON validation middleware). */
export const MAX_JSON_DEPTH = 32
export const MAX_JSON_ELEMENTS = 100_000

const QS_OPTIONS = {
  depth: 10,
  arrayLimit: 1000,
  parameterLimit: 10_000,
  allowPrototypes: false,
  decoder: decodeComponent,
} as const

/**
 * Percent-decoding that refuses invalid UTF-8 and NUL bytes, as GitLab's malformed-strings middleware
 * does. Input is a byte string (Node hands over URLs and our form bodies as latin1).
 */
function decodeComponent(text: string): string {
  const plain = text.replace(/\+/g, ' ')
  if (/^[\x20-\x7e]*$/.test(plain) && !plain.includes('%')) return plain
  const bytes = Buffer.from(
    plain.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  )
  if (!isUtf8(bytes)) throw new MalformedRequest()
  const decoded = bytes.toString('utf8')
  if (decoded.includes('\0')) throw new MalformedRequest()
  return decoded
}

/** False when the percent-decoded path is not UTF-8 or holds a NUL byte (GitLab refuses both with 400). */
export function isWellFormedPath(url: string): boolean {
  const queryAt = url.indexOf('?')
  const path = queryAt === -1 ? url : url.slice(0, queryAt)
  if (/^[\x21-\x7e]*$/.test(path) && !path.includes('%')) return true
  const bytes = Buffer.from(
    path.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  )
  return isUtf8(bytes) && !bytes.includes(0)
}

/** Marks a query string that could not be decoded; the onRequest hook answers 400 for it. */
export const MALFORMED_QUERY = Symbol('malformed query')

export function parseQueryString(text: string): Record<string, unknown> {
  try {
    return qs.parse(text, QS_OPTIONS) as Record<string, unknown>
  } catch (error) {
    // Fastify cannot take an exception from its query parser; the request is refused in onRequest instead.
    if (error instanceof MalformedRequest) return { [MALFORMED_QUERY]: true }
    throw error
  }
}

export function hasMalformedQuery(query: unknown): boolean {
  return typeof query === 'object' && query !== null && MALFORMED_QUERY in query
}

/**
 * GitLab's JSON validation middleware: over a structural limit is 400 `{"error":"<what>"}`; a NUL in a string (key or
 * value) is the malformed-strings middleware's plain 400. Containers count as levels, the outermost being the first.
 * The recursion stops at MAX_JSON_DEPTH, so a body of any depth cannot overflow the stack.
 */
function checkJsonShape(value: unknown, depth: number, budget: { elements: number }) {
  if (typeof value === 'string') {
    if (value.includes('\0')) throw new MalformedRequest()
    return
  }
  if (typeof value !== 'object' || value === null) return
  if (depth >= MAX_JSON_DEPTH) throw new ParamError('Parameters nested too deeply')
  if (!Array.isArray(value) && Object.keys(value).some((key) => key.includes('\0'))) throw new MalformedRequest()
  const children = Array.isArray(value) ? value : Object.values(value)
  budget.elements -= children.length
  if (budget.elements < 0) throw new ParamError('Too many total parameters')
  for (const child of children) checkJsonShape(child, depth + 1, budget)
}

/** Strips an optional `.json` suffix from the path (Grape `format :json`). */
export function rewriteUrl(url: string): string {
  const queryAt = url.indexOf('?')
  const path = queryAt === -1 ? url : url.slice(0, queryAt)
  if (!path.endsWith('.json')) return url
  return path.slice(0, -5) + (queryAt === -1 ? '' : url.slice(queryAt))
}

/** A file part of a multipart form. */
export interface UploadedFile {
  filename: string
  contentType: string
  data: Buffer
}

/**
 * Text fields go through the same qs nesting as urlencoded forms (`a[]=`, `h[k]=`); file parts become
 * UploadedFile values. The WHATWG parser built into Node does the multipart framing.
 */
async function parseMultipartForm(body: Buffer, contentType: string): Promise<Record<string, unknown>> {
  if (body.length === 0) return {}
  const form = await new Response(body, { headers: { 'content-type': contentType } }).formData()
  const text: string[] = []
  const files: [string, UploadedFile][] = []
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') text.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    else files.push([name, { filename: value.name, contentType: value.type, data: Buffer.from(await value.arrayBuffer()) }])
  }
  const parsed = parseQueryString(text.join('&'))
  for (const [name, file] of files) parsed[name] = file
  return parsed
}

/** Registers the body parsers: JSON, form (qs nesting), and a 415 for anything else. */
export function registerBodyParsers(app: FastifyInstance) {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (_request, body, done) => {
    const buffer = body as Buffer
    if (buffer.length === 0 || buffer.toString('latin1').trim() === '') return done(null, {})
    if (!isUtf8(buffer)) return done(new MalformedRequest(), undefined)
    try {
      const parsed = JSON.parse(buffer.toString('utf8')) as unknown
      checkJsonShape(parsed, 0, { elements: MAX_JSON_ELEMENTS })
      done(null, parsed)
    } catch (error) {
      done(error instanceof MalformedRequest || error instanceof ParamError ? error : new MalformedRequest(), undefined)
    }
  })
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES },
    (_request, body, done) => {
      try {
        done(null, parseQueryString((body as Buffer).toString('latin1')))
      } catch (error) {
        done(error as Error, undefined)
      }
    },
  )
  // Grape reads multipart forms like urlencoded ones (clients such as gitbeaker send every PUT this way).
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (request, body, done) => {
    parseMultipartForm(body as Buffer, String(request.headers['content-type'])).then(
      (parsed) => done(null, parsed),
      (error: unknown) => done(error instanceof MalformedRequest ? error : new MalformedRequest(), undefined),
    )
  })
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (request, body, done) => {
    // Grape checks the media type only when a body is present.
    if ((body as Buffer).length === 0) return done(null, undefined)
    const mediaType = String(request.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase()
    done(new UnsupportedMediaType(mediaType), undefined)
  })
}

/** The methods other than OPTIONS that a path has routes for; none for an unknown path. */
export type AllowedMethods = (path: string) => string[]

function answerOnSocket(socket: Socket, status: string, headers: Record<string, string>, body: string): void {
  const head = Object.entries({ ...headers, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  socket.end(`HTTP/1.1 ${status}\r\n${head}\r\n${body}`)
}

const BAD_REQUEST = { status: '400 Bad Request', headers: { 'Content-Type': 'text/plain' }, body: 'Bad Request' }

/**
 * The answer to a method no route has, for requests Node does not hand to the router: CONNECT (Node offers it as a
 * tunnel) and methods its parser does not know (`FOO`). GitLab's Puma passes any method to the app, whose router
 * answers as for a known method, so these do too: 405 with `Allow` at a known path, else the router's 404. A target
 * that is no path (CONNECT's `host:port`) is a malformed request: the plain 400.
 */
export function answerUnroutedMethod(socket: Socket, target: string | undefined, allowedAt: AllowedMethods): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  if (!target?.startsWith('/') || !isWellFormedPath(target)) {
    answerOnSocket(socket, BAD_REQUEST.status, BAD_REQUEST.headers, BAD_REQUEST.body)
    return
  }
  const path = rewriteUrl(target).split('?')[0] ?? '/'
  const allowed = allowedAt(path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path)
  if (allowed.length > 0) {
    const headers = { Allow: ['OPTIONS', ...allowed].join(', '), 'Content-Type': 'application/json' }
    answerOnSocket(socket, '405 Method Not Allowed', headers, '{"error":"405 Not Allowed"}')
    return
  }
  answerOnSocket(socket, '404 Not Found', { 'Content-Type': 'application/json' }, '{"error":"404 Not Found"}')
}

/**
 * Node refuses a request whose head outgrows its header limit before Fastify sees it. When the overflow
 * happens inside the request line, the answer is GitLab's 414 instead of Node's 431. A method Node's parser does
 * not know is answered as the router answers one (answerUnroutedMethod).
 */
export function handleClientError(error: Error, socket: Socket, allowedAt: AllowedMethods): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const { code, rawPacket, bytesParsed } = error as Error & { code?: string; rawPacket?: unknown; bytesParsed?: number }
  if (code === 'HPE_HEADER_OVERFLOW') {
    const seen = Buffer.isBuffer(rawPacket) ? rawPacket.subarray(0, bytesParsed ?? rawPacket.length) : null
    const inRequestLine = !seen || !seen.includes('\n')
    const body = inRequestLine ? '{"message":"414 Request-URI Too Large"}' : '{"message":"431 Request Header Fields Too Large"}'
    const status = inRequestLine ? '414 Request-URI Too Large' : '431 Request Header Fields Too Large'
    answerOnSocket(socket, status, { 'Content-Type': 'application/json' }, body)
    return
  }
  if (code === 'HPE_INVALID_METHOD' && Buffer.isBuffer(rawPacket)) {
    const requestLine = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ (\S+) HTTP\/1\.[01]\r?\n/.exec(rawPacket.toString('latin1'))
    if (requestLine) {
      answerUnroutedMethod(socket, requestLine[1], allowedAt)
      return
    }
  }
  answerOnSocket(socket, BAD_REQUEST.status, BAD_REQUEST.headers, BAD_REQUEST.body)
}
