import http from 'node:http'
import fc from 'fast-check'

/**
 * Hostile requests built from the OpenAPI document's routes and schemas, for the fuzz test and `bench/fuzz.mjs`:
 * each route's declared params filled with wrong types, huge numbers, deep and wide JSON, invalid UTF-8, NUL bytes,
 * long strings, `../` and encoded slashes, sent over raw HTTP so that the bytes go out exactly as built.
 */

export interface FuzzRequest {
  method: string
  /** The request target, already encoded (hostile escapes like `%FF` and `..%2F` included on purpose). */
  path: string
  headers: Record<string, string>
  body?: Buffer
}

export type FuzzOutcome = { kind: 'answered'; status: number } | { kind: 'hang' } | { kind: 'dropped'; error: string }

interface Operation {
  method: string
  path: string
  parameters: { name: string; in: string; schema?: Schema }[]
  body?: Schema
}

interface Schema {
  type?: string | string[]
  properties?: Record<string, Schema>
  items?: Schema
  enum?: unknown[]
  anyOf?: Schema[]
}

interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { parameters?: Operation['parameters']; requestBody?: { content: Record<string, { schema: Schema }> } }>
  >
}

/** Every operation of the document, with its path under /api/v4. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, op]) => ({
      method: method.toUpperCase(),
      path: `/api/v4${path}`,
      parameters: op.parameters ?? [],
      body: op.requestBody?.content['application/json']?.schema,
    })),
  )
}

function nested(depth: number, leaf: string): string {
  return '['.repeat(depth) + leaf + ']'.repeat(depth)
}

/** Strings that have broken parsers, lookups and paths. */
const hostileText = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '../',
    '../../etc/passwd',
    '..\\..\\',
    'a/b',
    '\u0000',
    'a\u0000b',
    '\uD800',
    '\uFFFF',
    '99999999999999999999999999',
    '-1',
    '0',
    '1e309',
    '-0',
    'NaN',
    'true',
    'null',
    '[]',
    '{}',
    "'; drop table users; --",
    '%',
    '%00',
    '%2F',
    '\u202e',
  ),
  fc.string({ maxLength: 40, unit: 'binary' }),
  fc.nat({ max: 70_000 }).map((n) => 'x'.repeat(n)),
)

/** JSON values of every type, including huge numbers and deep or wide structures. */
const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  fc.integer(),
  fc.double(),
  fc.constantFrom(2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, -1, 0, true, false, null),
  fc.nat({ max: 500 }).map((depth) => JSON.parse(nested(depth, '1')) as unknown),
  fc.nat({ max: 20_000 }).map((width) => Array.from({ length: width }, (_, i) => i)),
  fc.nat({ max: 5000 }).map((width) => Object.fromEntries(Array.from({ length: width }, (_, i) => [`k${i}`, i]))),
  fc.array(hostileText, { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 8 }), hostileText, { maxKeys: 5 }),
)

/** A value that fits a schema's type, so that the request gets past the params to the code behind them. */
function plausible(schema: Schema | undefined): fc.Arbitrary<unknown> {
  if (!schema) return fc.constant('1')
  if (schema.enum && schema.enum.length > 0) return fc.constantFrom(...schema.enum)
  if (schema.anyOf && schema.anyOf.length > 0) return fc.oneof(...schema.anyOf.map(plausible))
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  switch (type) {
    case 'integer':
    case 'number':
      return fc.constantFrom(1, 2, 3, 100)
    case 'boolean':
      return fc.boolean()
    case 'array':
      return fc.array(plausible(schema.items), { maxLength: 3 })
    case 'object':
      return fc.constant({})
    default:
      return fc.constantFrom('1', 'main', 'name', 'a b')
  }
}

function valueFor(schema: Schema | undefined): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: plausible(schema), weight: 1 }, { arbitrary: hostileJson, weight: 2 })
}

/** Percent-encodes the UTF-8 bytes of `text` (a lone surrogate goes as U+FFFD), leaving only unreserved characters. */
function encode(text: string): string {
  let out = ''
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte)
    out += /[A-Za-z0-9\-_.~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** A `qs` name keeps its brackets, which carry its structure. */
function encodeName(name: string): string {
  return encode(name).replace(/%5B/g, '[').replace(/%5D/g, ']')
}

/** A path segment: an encoded value, or an escape sent as it is. */
const pathSegment = fc.oneof(
  fc.constantFrom(
    '1',
    '2',
    '99999999999999999999',
    '-1',
    'root',
    'root%2Fproject',
    '..',
    '%2E%2E',
    '..%2F..%2F',
    '%2F',
    '%00',
    '%FF%FE',
    'a%2Fb%2Fc',
  ),
  hostileText.map((text) => encode(text.slice(0, 3000))),
)

/** A query or form value: `qs` style, so objects and arrays become `a[b]=` and `a[]=`. */
function formPairs(name: string, value: unknown, depth = 0): string[] {
  if (depth > 40) return [`${encodeName(name)}=deep`]
  if (Array.isArray(value)) return value.slice(0, 200).flatMap((item) => formPairs(`${name}[]`, item, depth + 1))
  if (value !== null && typeof value === 'object')
    return Object.entries(value)
      .slice(0, 200)
      .flatMap(([key, item]) => formPairs(`${name}[${key}]`, item, depth + 1))
  return [`${encodeName(name)}=${encode(String(value).slice(0, 3000))}`]
}

const INVALID_UTF8 = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x00, 0x22, 0x7d])

function bodyOf(kind: string, values: Record<string, unknown>): { body: Buffer; type: string } {
  switch (kind) {
    case 'form':
      return {
        body: Buffer.from(
          Object.entries(values)
            .flatMap(([k, v]) => formPairs(k, v))
            .join('&'),
        ),
        type: 'application/x-www-form-urlencoded',
      }
    case 'invalid-utf8':
      return { body: INVALID_UTF8, type: 'application/json' }
    case 'deep':
      return { body: Buffer.from(nested(100_000, '1')), type: 'application/json' }
    case 'not-json':
      return { body: Buffer.from('{"a":'), type: 'application/json' }
    default:
      return { body: Buffer.from(JSON.stringify(values)), type: 'application/json' }
  }
}

/** One hostile request to one of `operations`, as one of `tokens` (null: anonymous). */
export function fuzzRequests(operations: Operation[], tokens: (string | null)[]): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...operations).chain((op) => {
    const pathParams = op.parameters.filter((p) => p.in === 'path')
    const queryParams = op.parameters.filter((p) => p.in === 'query')
    const bodyProps = Object.entries(op.body?.properties ?? {})
    return fc
      .record({
        token: fc.constantFrom(...tokens),
        segments: fc.tuple(...pathParams.map(() => pathSegment)),
        query: fc.tuple(...queryParams.map((p) => fc.option(valueFor(p.schema), { nil: undefined }))),
        body: fc.tuple(...bodyProps.map(([, schema]) => fc.option(valueFor(schema), { nil: undefined }))),
        extra: fc.option(fc.dictionary(fc.string({ maxLength: 10 }), hostileJson, { maxKeys: 3 }), { nil: undefined }),
        bodyKind: fc.constantFrom('json', 'json', 'form', 'invalid-utf8', 'deep', 'not-json'),
      })
      .map(({ token, segments, query, body, extra, bodyKind }) => {
        let index = 0
        let path = op.path.replace(/\{\w+\}/g, () => segments[index++] as string)
        const pairs = queryParams.flatMap((p, i) => (query[i] === undefined ? [] : formPairs(p.name, query[i])))
        if (extra) pairs.push(...Object.entries(extra).flatMap(([k, v]) => formPairs(k, v)))
        if (pairs.length > 0) path += `?${pairs.join('&')}`
        const headers: Record<string, string> = {}
        if (token) headers['private-token'] = token
        const request: FuzzRequest = { method: op.method, path, headers }
        if (op.method !== 'GET' && op.method !== 'DELETE') {
          const values = Object.fromEntries(bodyProps.flatMap(([name], i) => (body[i] === undefined ? [] : [[name, body[i]]])))
          const built = bodyOf(bodyKind, { ...values, ...extra })
          request.body = built.body
          headers['content-type'] = built.type
        }
        return request
      })
  })
}

/** Sends one request on its own connection; a request not answered within `timeoutMs` is a hang. */
export function sendFuzzRequest(baseUrl: string, request: FuzzRequest, timeoutMs: number): Promise<FuzzOutcome> {
  const url = new URL(baseUrl)
  return new Promise((resolve) => {
    let settled = false
    const settle = (outcome: FuzzOutcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
    }
    const req = http.request(
      { host: url.hostname, port: url.port, method: request.method, path: request.path, headers: request.headers, agent: false },
      (res) => {
        res.on('data', () => {})
        res.on('end', () => settle({ kind: 'answered', status: res.statusCode ?? 0 }))
        res.on('error', (error) => settle({ kind: 'dropped', error: error.message }))
      },
    )
    const timer = setTimeout(() => {
      settle({ kind: 'hang' })
      req.destroy()
    }, timeoutMs)
    req.on('error', (error) => settle({ kind: 'dropped', error: error.message }))
    req.end(request.body)
  })
}

/** The request as one line for a report: method, target (cut short) and body (cut short). */
export function describeFuzzRequest(request: FuzzRequest): string {
  const body = request.body ? ` ${request.headers['content-type']} ${JSON.stringify(request.body.subarray(0, 200).toString('latin1'))}` : ''
  const caller = request.headers['private-token'] ? 'token' : 'anonymous'
  return `${request.method} ${request.path.slice(0, 300)} as ${caller}${body}`
}

/** `count` requests drawn from `requests` with `seed`, for campaigns outside a test (bench/fuzz.mjs). */
export function sampleFuzzRequests(requests: fc.Arbitrary<FuzzRequest>, seed: number, count: number): FuzzRequest[] {
  return fc.sample(requests, { seed, numRuns: count })
}
