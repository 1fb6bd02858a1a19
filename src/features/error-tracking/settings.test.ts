import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let db: Db
let request: ReturnType<typeof client>
let root: string

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  request = client(`${server.url}/api/v4`)
  root = server.rootToken
})
afterAll(() => server.close())

async function privateProject() {
  const group = await createTestGroup(db, { visibility: 'private' })
  return createTestProject(db, { namespace: group, visibility: 'private' })
}

async function member(project: ProjectRow, accessLevel: number) {
  const user = await createTestUser(db)
  await addTestMember(db, { user, project, accessLevel })
  return (await createTestToken(db, user)).value
}

async function storeSettings(
  project: ProjectRow,
  values: { enabled: number; integrated: number; api_url?: string | null; token?: string | null; project_name?: string | null },
) {
  const at = new Date().toISOString()
  await db
    .insertInto('error_tracking_settings')
    .values({ project_id: project.id, created_at: at, updated_at: at, ...values })
    .execute()
}

const settingsPath = (project: ProjectRow) => `/projects/${project.id}/error_tracking/settings`
const keysPath = (project: ProjectRow) => `/projects/${project.id}/error_tracking/client_keys`
const KEY = /^svcet_[0-9a-f]{32}$/

describe('error tracking settings', () => {
  test('GET without settings is 404 Error Tracking Setting Not Found; PUT creates them enabled and integrated with a first key', async () => {
    const project = await privateProject()
    const missing = await request('GET', settingsPath(project), { token: root })
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ message: '404 Error Tracking Setting Not Found' })
    const patch = await request('PATCH', settingsPath(project), { token: root, body: { active: true } })
    expect(patch.status).toBe(404)
    expect(patch.body).toEqual({ message: '404 Error Tracking Setting Not Found' })

    const put = await request('PUT', settingsPath(project), { token: root, body: { active: true, integrated: true } })
    expect(put.status).toBe(200)
    expect(put.text).toBe(
      '{"active":true,"project_name":null,"tracker_external_url":null,"sentry_external_url":null,"api_url":null,"integrated":true}',
    )
    const keys = await request('GET', keysPath(project), { token: root })
    expect(keys.body).toHaveLength(1)
    expect(keys.body[0].public_key).toMatch(KEY)

    // Saving again keeps the one active key; switching off and on neither.
    await request('PUT', settingsPath(project), { token: root, form: true, body: { active: 'false', integrated: 'true' } })
    const again = await request('PATCH', settingsPath(project), { token: root, body: { active: true } })
    expect(again.body).toEqual({
      active: true,
      project_name: null,
      tracker_external_url: null,
      sentry_external_url: null,
      api_url: null,
      integrated: true,
    })
    expect((await request('GET', keysPath(project), { token: root })).body).toHaveLength(1)
    expect((await request('GET', settingsPath(project), { token: root })).body.active).toBe(true)
  })

  test('PUT active=false creates disabled settings and no key; PATCH integrated=false on them is allowed while disabled', async () => {
    const project = await privateProject()
    const put = await request('PUT', settingsPath(project), { token: root, body: { active: false, integrated: true } })
    expect(put.body).toMatchObject({ active: false, integrated: true })
    expect((await request('GET', keysPath(project), { token: root })).body).toEqual([])
    const patch = await request('PATCH', settingsPath(project), { token: root, body: { active: false, integrated: false } })
    expect(patch.status).toBe(200)
    expect(patch.body).toMatchObject({ active: false, integrated: false })
  })

  test('the external tracker without credentials: 200 with the error result, nothing written', async () => {
    const project = await privateProject()
    const put = await request('PUT', settingsPath(project), { token: root, body: { active: true, integrated: false } })
    expect(put.status).toBe(200)
    expect(put.text).toBe(
      '{"message":"Error tracking setting api url is a required field and Error tracking setting token is a required field","status":"error"}',
    )
    expect((await request('GET', settingsPath(project), { token: root })).status).toBe(404)

    await request('PUT', settingsPath(project), { token: root, body: { active: false, integrated: true } })
    const patch = await request('PATCH', settingsPath(project), { token: root, body: { active: true, integrated: false } })
    expect(patch.body).toEqual({
      message: 'Error tracking setting api url is a required field and Error tracking setting token is a required field',
      status: 'error',
    })
    expect((await request('GET', settingsPath(project), { token: root })).body).toMatchObject({ active: false, integrated: true })
  })

  test('stored tracker settings: project name and external URL derived from the API URL, token never shown', async () => {
    const project = await privateProject()
    await storeSettings(project, {
      enabled: 0,
      integrated: 0,
      api_url: 'https://tracker.example.com/api/0/projects/acme/my-web_app/',
      token: 'secret',
    })
    const patch = await request('PATCH', settingsPath(project), { token: root, body: { active: true } })
    expect(patch.status).toBe(200)
    expect(patch.text).toBe(
      '{"active":true,"project_name":"My Web App","tracker_external_url":"https://tracker.example.com/acme/my-web_app/",' +
        '"sentry_external_url":"https://tracker.example.com/acme/my-web_app/","api_url":"https://tracker.example.com/api/0/projects/acme/my-web_app/","integrated":false}',
    )
    // External tracker on: no client key is made.
    expect((await request('GET', keysPath(project), { token: root })).body).toEqual([])

    const named = await privateProject()
    await storeSettings(named, {
      enabled: 1,
      integrated: 0,
      api_url: 'https://tracker.example.com/api/0/projects/acme/web/',
      token: 't',
      project_name: 'Web',
    })
    expect((await request('GET', settingsPath(named), { token: root })).body.project_name).toBe('Web')
  })

  test('a tracker API URL that names no organization and project, or another path, is refused when enabling it', async () => {
    const bare = await privateProject()
    await storeSettings(bare, { enabled: 0, integrated: 0, api_url: 'https://tracker.example.com/api/0/projects/', token: 't' })
    expect((await request('PATCH', settingsPath(bare), { token: root, body: { active: true } })).body).toEqual({
      message: 'Error tracking setting project is a required field',
      status: 'error',
    })
    const other = await privateProject()
    await storeSettings(other, { enabled: 0, integrated: 0, api_url: 'https://tracker.example.com/v1/acme/web', token: null })
    expect((await request('PATCH', settingsPath(other), { token: root, body: { active: true } })).body).toEqual({
      message: 'Error tracking setting token is a required field and Error tracking setting api url is invalid',
      status: 'error',
    })
  })

  test('missing and bad parameters', async () => {
    const project = await privateProject()
    const put = await request('PUT', settingsPath(project), { token: root, body: { integrated: true } })
    expect(put.status).toBe(400)
    expect(put.body).toEqual({ message: '400 (Bad request) "active" not given' })
    const putIntegrated = await request('PUT', settingsPath(project), { token: root, body: { active: true } })
    expect(putIntegrated.body).toEqual({ message: '400 (Bad request) "integrated" not given' })
    await request('PUT', settingsPath(project), { token: root, body: { active: false, integrated: true } })
    const patch = await request('PATCH', settingsPath(project), { token: root, body: {} })
    expect(patch.status).toBe(400)
    expect(patch.body).toEqual({ message: '400 (Bad request) "active" not given' })
    const bad = await request('PATCH', settingsPath(project), { token: root, body: { active: 'maybe' } })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'active is invalid' })
  })

  test('permissions: anonymous 401, hidden project 404, Developer 403 (before parameter checks), Maintainer allowed, by path too', async () => {
    const project = await privateProject()
    const outsider = (await createTestToken(db, await createTestUser(db))).value
    const developer = await member(project, AccessLevel.DEVELOPER)
    const maintainer = await member(project, AccessLevel.MAINTAINER)
    expect(await request('GET', settingsPath(project))).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } })
    for (const method of ['GET', 'PUT', 'PATCH']) {
      expect(await request(method, settingsPath(project), { token: outsider })).toMatchObject({
        status: 404,
        body: { message: '404 Project Not Found' },
      })
      expect(await request(method, settingsPath(project), { token: developer })).toMatchObject({
        status: 403,
        body: { message: '403 Forbidden' },
      })
    }
    const byPath = `/projects/${encodeURIComponent(project.full_path)}/error_tracking/settings`
    const put = await request('PUT', byPath, { token: maintainer, body: { active: true, integrated: true } })
    expect(put.status).toBe(200)
  })
})

describe('client keys', () => {
  test('rotation: create a new key, list, delete the old one (200 with the deleted key); DSN from the external URL', async () => {
    const project = await privateProject()
    const maintainer = await member(project, AccessLevel.MAINTAINER)
    const first = await request('POST', keysPath(project), { token: maintainer })
    expect(first.status).toBe(201)
    const host = new URL(server.url).host
    expect(first.body).toEqual({
      id: expect.any(Number),
      active: true,
      public_key: expect.stringMatching(KEY),
      tracker_dsn: `http://${first.body.public_key}@${host}/api/v4/error_tracking/collector/${project.id}`,
      sentry_dsn: `http://${first.body.public_key}@${host}/api/v4/error_tracking/collector/${project.id}`,
    })
    expect(Object.keys(first.body)).toEqual(['id', 'active', 'public_key', 'tracker_dsn', 'sentry_dsn'])
    const second = await request('POST', keysPath(project), { token: maintainer })
    expect(second.body.public_key).not.toBe(first.body.public_key)

    const list = await request('GET', keysPath(project), { token: maintainer })
    expect(list.status).toBe(200)
    expect(list.body).toEqual([first.body, second.body])
    expect(list.headers['x-total']).toBe('2')

    const removed = await request('DELETE', `${keysPath(project)}/${first.body.id}`, { token: maintainer })
    expect(removed.status).toBe(200)
    expect(removed.body).toEqual(first.body)
    expect((await request('GET', keysPath(project), { token: maintainer })).body).toEqual([second.body])

    const again = await request('DELETE', `${keysPath(project)}/${first.body.id}`, { token: maintainer })
    expect(again.status).toBe(404)
    expect(again.body).toEqual({ message: '404 Not found' })
    expect((await request('DELETE', `${keysPath(project)}/abc`, { token: maintainer })).body).toEqual({ message: '404 Not found' })
  })

  test('a key of another project is not found; the list pages; the DSN keeps a port and relative root', async () => {
    const project = await privateProject()
    const other = await privateProject()
    const foreign = await request('POST', keysPath(other), { token: root })
    expect((await request('DELETE', `${keysPath(project)}/${foreign.body.id}`, { token: root })).status).toBe(404)
    for (let n = 0; n < 3; n++) await request('POST', keysPath(project), { token: root })
    const page = await request('GET', `${keysPath(project)}?per_page=2&page=2`, { token: root })
    expect(page.body).toHaveLength(1)
    expect(page.headers['x-total']).toBe('3')
    expect(page.headers['x-page']).toBe('2')

    const original = server.config.externalUrl
    server.config.externalUrl = 'https://svc.example.com:8443/tools/'
    try {
      const key = await request('POST', keysPath(project), { token: root })
      expect(key.body.tracker_dsn).toBe(
        `https://${key.body.public_key}@svc.example.com:8443/tools/api/v4/error_tracking/collector/${project.id}`,
      )
    } finally {
      server.config.externalUrl = original
    }
  })

  test('permissions: anonymous 401, hidden 404, Developer 403', async () => {
    const project = await privateProject()
    const outsider = (await createTestToken(db, await createTestUser(db))).value
    const developer = await member(project, AccessLevel.DEVELOPER)
    expect((await request('POST', keysPath(project))).status).toBe(401)
    for (const [method, path] of [
      ['GET', keysPath(project)],
      ['POST', keysPath(project)],
      ['DELETE', `${keysPath(project)}/1`],
    ]) {
      expect(await request(method, path, { token: outsider })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } })
      expect(await request(method, path, { token: developer })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } })
    }
  })
})
