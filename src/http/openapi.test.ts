import { compileErrors, validate } from '@readme/openapi-parser'
import buildSerializer from 'fast-json-stringify'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { serializerSchema } from './route.js'
import { freshInstanceEnv, runSvc } from '../testing/cli.js'
import { client } from '../testing/http.js'
import { startTestServer, type TestServer } from '../testing/server.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

/** A path with every parameter blanked (`:id`, `:id(^\\d+$)`, the router's `:user_id|:id`, `{id}`): names differ, places do not. */
function shape(path: string): string {
  return path.replace(/:\w+(?:\(.*?\)(?=\/|$))?(?:\|:\w+)*/g, ':').replace(/\{\w+\}/g, ':')
}

/**
 * Every method and path Fastify's router holds under /api/v4, read from its own listing rather than from the
 * document's catalog. The listing is a tree: each line adds its text to its parent's, one level per 4 columns.
 */
function registeredApiRoutes(): string[] {
  const listing = server.app.fastify.printRoutes({ commonPrefix: false })
  const routes: string[] = []
  const stack: string[] = []
  for (const line of listing.split('\n')) {
    const match = /^((?:│ {3}| {4})*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line)
    if (!match) continue
    const depth = (match[1] as string).length / 4
    stack.length = depth
    stack.push(match[2] as string)
    const path = stack.join('')
    if (!match[3] || !path.startsWith('/api/v4/')) continue
    for (const method of match[3].split(', ')) if (method !== 'HEAD') routes.push(`${method} ${shape(path)}`)
  }
  return routes
}

function documentedRoutes(document: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => `${method.toUpperCase()} ${shape(`/api/v4${path}`)}`),
  )
}

describe('OpenAPI document', () => {
  test('GET /api/v4/openapi.json serves an OpenAPI 3.1 document that a standard validator accepts', async () => {
    const response = await client(server.url)('GET', '/api/v4/openapi.json')
    expect(response.status).toBe(200)
    expect(response.headers['content-type']).toBe('application/json')
    expect(response.body.openapi).toBe('3.1.0')
    expect(response.body.servers).toEqual([{ url: '/api/v4' }])
    const result = await validate(structuredClone(response.body))
    expect(result.valid ? '' : compileErrors(result)).toBe('')
    expect(result.valid).toBe(true)
  })

  test('anonymous callers get it, at /api/v4/openapi too', async () => {
    const served = await client(server.url)('GET', '/api/v4/openapi')
    expect(served.status).toBe(200)
    expect(served.body).toEqual(server.app.openapi())
  })

  test('every /api/v4 route the router holds is in the document, and nothing else', async () => {
    const document = (await client(server.url)('GET', '/api/v4/openapi.json')).body
    const registered = registeredApiRoutes()
    expect(registered.length).toBeGreaterThan(100)
    const documented = documentedRoutes(document)
    expect(registered.filter((route) => !documented.includes(route))).toEqual([])
    expect([...documented].filter((route) => !registered.includes(route))).toEqual([])
  })

  test("every route's response schema builds a serializer, as its first answer will", async () => {
    // Serializers are built when a route first answers (src/http/route.ts); a broken schema fails here, not in production.
    const document = server.app.openapi() as { paths: Record<string, Record<string, { responses: Record<string, any> }>> }
    const failures: string[] = []
    let built = 0
    for (const [path, operations] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(operations))
        for (const [status, response] of Object.entries(operation.responses)) {
          const schema = response.content?.['application/json']?.schema
          // The document's shared error body is no route's own schema.
          if (!schema || schema.$ref) continue
          try {
            buildSerializer(serializerSchema(schema) as object)
            built += 1
          } catch (error) {
            failures.push(`${method.toUpperCase()} ${path} ${status}: ${(error as Error).message}`)
          }
        }
    expect(failures).toEqual([])
    expect(built).toBeGreaterThan(100)
  })

  test('a route has its path and query parameters, request body, responses and credentials', async () => {
    const document = (await client(server.url)('GET', '/api/v4/openapi.json')).body
    const labels = document.paths['/projects/{id}/labels']
    expect(labels.get.parameters.find((p: { name: string }) => p.name === 'id')).toMatchObject({ in: 'path', required: true })
    expect(labels.get.parameters.find((p: { name: string }) => p.name === 'page')).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'integer' },
    })
    expect(Object.keys(labels.post.requestBody.content)).toEqual(['application/json', 'application/x-www-form-urlencoded'])
    expect(labels.post.requestBody.content['application/json'].schema.required).toEqual(['name', 'color'])
    expect(labels.get.responses['200'].content['application/json'].schema.type).toBe('array')
    expect(labels.post.responses['201'].content['application/json'].schema.type).toBe('object')
    expect(labels.post.responses['401']).toEqual({
      description: 'No valid credentials',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    })
    expect(labels.get.security).toEqual([
      { private_token_header: [] },
      { private_token_query: [] },
      { bearer: [] },
      { access_token_query: [] },
      { oauth2: ['api'] },
      { oauth2: ['read_api'] },
      { session_cookie: [] },
    ])
    expect(labels.post.security).toContainEqual({ oauth2: ['api'] })
    expect(labels.post.security).not.toContainEqual({ oauth2: ['read_api'] })
    expect(document.paths['/version'].get.security).toContainEqual({ oauth2: ['read_user'] })
    expect(Object.keys(document.components.securitySchemes)).toEqual([
      'private_token_header',
      'private_token_query',
      'bearer',
      'access_token_query',
      'oauth2',
      'session_cookie',
    ])
    expect(document.components.securitySchemes.session_cookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: '_svc_session' })
  })

  test('svc openapi prints the document the server serves', async () => {
    const { env } = await freshInstanceEnv()
    const result = await runSvc(['openapi'], env)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual((await client(server.url)('GET', '/api/v4/openapi.json')).body)
  })
})
