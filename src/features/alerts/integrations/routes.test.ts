import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Db } from '../../../db/index.js'
import type { ProjectRow } from '../../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../../testing/factories.js'
import { client } from '../../../testing/http.js'
import { startTestServer, type TestServer } from '../../../testing/server.js'
import { findActiveIntegration } from './index.js'

const TOKEN = /^[0-9a-f]{32}$/
const IDENTIFIER = /^[0-9a-f]{16}$/

async function projectIn(db: Db, visibility: 'public' | 'private' = 'public') {
  const group = await createTestGroup(db, { visibility })
  return createTestProject(db, { namespace: group, visibility })
}

async function userWithRole(db: Db, project: ProjectRow | null, accessLevel: number) {
  const user = await createTestUser(db)
  if (project) await addTestMember(db, { user, project, accessLevel })
  return (await createTestToken(db, user, { scopes: ['api'] })).value
}

function base(project: ProjectRow) {
  return `/projects/${project.id}/alert_management/http_integrations`
}

describe('on Free', () => {
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

  test('creating an HTTP integration answers 201 with its URL and key', async () => {
    const project = await projectIn(db)
    const response = await request('POST', base(project), { token: root, body: { name: 'My Endpoint!', active: true } })
    expect(response.status).toBe(201)
    const row = await db.selectFrom('alert_integrations').selectAll().where('id', '=', response.body.id).executeTakeFirstOrThrow()
    expect(row.endpoint_identifier).toMatch(IDENTIFIER)
    expect(row.token).toMatch(TOKEN)
    expect(response.text).toBe(
      JSON.stringify({
        id: row.id,
        name: 'My Endpoint!',
        active: true,
        type: 'http',
        url: `${server.url}/${project.full_path}/alerts/notify/my-endpoint/${row.endpoint_identifier}.json`,
        token: row.token,
        payload_example: {},
        payload_attribute_mappings: [],
        create_incident: false,
        auto_close_incident: true,
        api_url: null,
      }),
    )
    expect(await findActiveIntegration(db, project.id, row.endpoint_identifier)).toMatchObject({ id: row.id })
  })

  test('the URL and key it shows are the ones the webhook accepts', async () => {
    const project = await projectIn(db)
    const created = (await request('POST', base(project), { token: root, body: { name: 'Webhook', active: true } })).body
    const send = (key: string) =>
      fetch(created.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'From the shown URL' }),
      })
    const accepted = await send(created.token)
    expect(accepted.status).toBe(200)
    expect(await accepted.json()).toEqual([{ iid: 1, title: 'From the shown URL' }])
    expect((await send('0'.repeat(32))).status).toBe(401)
  })

  test('a new integration is inactive unless told, takes the incident settings, and ignores api_url', async () => {
    const project = await projectIn(db)
    const response = await request('POST', base(project), {
      token: root,
      body: { name: '***', create_incident: true, auto_close_incident: false, api_url: 'https://prometheus.example.com' },
    })
    expect(response.status).toBe(201)
    expect(response.body).toMatchObject({ active: false, create_incident: true, auto_close_incident: false, api_url: null })
    expect(response.body.url).toMatch(new RegExp(`/${project.full_path}/alerts/notify/http-endpoint/[0-9a-f]{16}\\.json$`))
    const row = await db.selectFrom('alert_integrations').selectAll().where('id', '=', response.body.id).executeTakeFirstOrThrow()
    expect(await findActiveIntegration(db, project.id, row.endpoint_identifier)).toBeUndefined()
  })

  test('a second HTTP integration is refused on Free, and nothing is written', async () => {
    const project = await projectIn(db)
    expect((await request('POST', base(project), { token: root, body: { name: 'one' } })).status).toBe(201)
    const second = await request('POST', base(project), { token: root, body: { name: 'two' } })
    expect(second.status).toBe(422)
    expect(second.body).toEqual({ message: 'Multiple integrations of a single type are not supported for this project' })
    const list = await request('GET', base(project), { token: root })
    expect(list.body.map((i: { name: string }) => i.name)).toEqual(['one'])
  })

  test('concurrent creations still leave one HTTP integration on Free, and one Prometheus integration', async () => {
    const project = await projectIn(db)
    const https = await Promise.all(
      Array.from({ length: 6 }, (_, n) => request('POST', base(project), { token: root, body: { name: `http ${n}` } })),
    )
    const prometheus = await Promise.all(
      Array.from({ length: 4 }, () => request('POST', base(project), { token: root, body: { type: 'prometheus' } })),
    )
    expect(https.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422, 422])
    expect(prometheus.map((r) => r.status).sort()).toEqual([201, 422, 422, 422])
    const rows = await db.selectFrom('alert_integrations').select('type').where('project_id', '=', project.id).execute()
    expect(rows.map((row) => row.type).sort()).toEqual(['http', 'prometheus'])
  })

  test('payload example and custom mappings are dropped on Free, as GitLab does', async () => {
    const project = await projectIn(db)
    const response = await request('POST', base(project), {
      token: root,
      body: {
        name: 'free',
        payload_example: { alert: { name: 'x' } },
        payload_attribute_mappings: [{ field_name: 'title', path: ['alert', 'name'], type: 'string' }],
      },
    })
    expect(response.status).toBe(201)
    expect(response.body).toMatchObject({ payload_example: {}, payload_attribute_mappings: [] })
  })

  test('refuses bad input with GitLab shapes and writes nothing', async () => {
    const project = await projectIn(db)
    const cases: [Record<string, unknown>, number, unknown][] = [
      [{}, 400, { message: '400 (Bad request) "name" not given' }],
      [{ name: '   ' }, 400, { message: { name: ["can't be blank"] } }],
      [{ name: 'x'.repeat(256) }, 400, { message: { name: ['is too long (maximum is 255 characters)'] } }],
      [{ name: 'a', type: 'nagios' }, 400, { error: 'type does not have a valid value' }],
      [{ name: 'a', type: 'opsgenie', api_url: 'https://og.example.com' }, 400, { error: 'type does not have a valid value' }],
      [{ name: 'a', active: 'maybe' }, 400, { error: 'active is invalid' }],
      [{ name: 'a', payload_example: '{not json' }, 400, { error: 'payload_example is invalid' }],
      [{ name: 'a', payload_example: [1, 2] }, 400, { error: 'payload_example is invalid' }],
      [{ name: 'a', payload_attribute_mappings: 'nope' }, 400, { error: 'payload_attribute_mappings is invalid' }],
    ]
    for (const [body, status, expected] of cases) {
      const response = await request('POST', base(project), { token: root, body })
      expect({ body, status: response.status, response: response.body }).toEqual({ body, status, response: expected })
    }
    expect((await request('GET', base(project), { token: root })).body).toEqual([])
  })

  test('the Prometheus integration: fixed name and URL, a base URL setting, one per project, kept on delete', async () => {
    const project = await projectIn(db)
    const created = await request('POST', base(project), {
      token: root,
      body: { type: 'prometheus', active: true, api_url: 'http://prometheus.example.com:9090', name: 'ignored' },
    })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: created.body.id,
      name: 'Prometheus',
      active: true,
      type: 'prometheus',
      url: `${server.url}/${project.full_path}/prometheus/alerts/notify.json`,
      token: created.body.token,
      payload_example: {},
      payload_attribute_mappings: [],
      create_incident: false,
      auto_close_incident: true,
      api_url: 'http://prometheus.example.com:9090',
    })
    expect(created.body.token).toMatch(TOKEN)
    expect(await findActiveIntegration(db, project.id, 'legacy-prometheus')).toMatchObject({ id: created.body.id })

    const again = await request('POST', base(project), { token: root, body: { type: 'prometheus' } })
    expect(again.status).toBe(422)
    expect(again.body).toEqual({ message: 'Multiple Prometheus integrations are not supported' })

    // An HTTP integration beside it is still the first of its type.
    expect((await request('POST', base(project), { token: root, body: { name: 'http' } })).status).toBe(201)

    const cleared = await request('PUT', `${base(project)}/${created.body.id}`, { token: root, body: { api_url: '' } })
    expect(cleared.status).toBe(200)
    expect(cleared.body.api_url).toBeNull()
    const bad = await request('PUT', `${base(project)}/${created.body.id}`, { token: root, body: { api_url: 'ftp://x.example.com' } })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ message: { api_url: ['is blocked: Only allowed schemes are http, https'] } })
    const garbage = await request('PUT', `${base(project)}/${created.body.id}`, { token: root, body: { api_url: 'not a url' } })
    expect(garbage.body).toEqual({ message: { api_url: ['is blocked: URI is invalid'] } })

    const removal = await request('DELETE', `${base(project)}/${created.body.id}`, { token: root })
    expect(removal.status).toBe(422)
    expect(removal.body).toEqual({ message: 'Legacy Prometheus integrations cannot currently be removed' })
  })

  test('lists by id with GitLab pagination headers', async () => {
    const project = await projectIn(db)
    const first = await request('POST', base(project), { token: root, body: { name: 'http' } })
    const second = await request('POST', base(project), { token: root, body: { type: 'prometheus' } })
    const page1 = await request('GET', `${base(project)}?per_page=1`, { token: root })
    expect(page1.status).toBe(200)
    expect(page1.body).toEqual([first.body])
    expect(page1.headers['x-total']).toBe('2')
    expect(page1.headers['x-next-page']).toBe('2')
    const page2 = await request('GET', `${base(project)}?per_page=1&page=2`, { token: root })
    expect(page2.body).toEqual([second.body])
  })

  test('shows, updates, resets the key of and deletes an integration', async () => {
    const project = await projectIn(db)
    const created = (await request('POST', base(project), { token: root, body: { name: 'ops' } })).body
    const shown = await request('GET', `${base(project)}/${created.id}`, { token: root })
    expect(shown.status).toBe(200)
    expect(shown.text).toBe(JSON.stringify(created))

    const updated = await request('PUT', `${base(project)}/${created.id}`, {
      token: root,
      body: { name: 'Ops Team', active: true, create_incident: true },
    })
    expect(updated.status).toBe(200)
    const identifier = created.url.split('/').pop()
    expect(updated.body).toEqual({
      ...created,
      name: 'Ops Team',
      active: true,
      create_incident: true,
      url: `${server.url}/${project.full_path}/alerts/notify/ops-team/${identifier}`,
    })

    const reset = await request('POST', `${base(project)}/${created.id}/reset_token`, { token: root })
    expect(reset.status).toBe(200)
    expect(reset.body).toEqual({ ...updated.body, token: reset.body.token })
    expect(reset.body.token).toMatch(TOKEN)
    expect(reset.body.token).not.toBe(created.token)

    const emptyUpdate = await request('PUT', `${base(project)}/${created.id}`, { token: root, body: {} })
    expect(emptyUpdate.status).toBe(400)
    expect(emptyUpdate.body).toEqual({
      error:
        'name, active, payload_example, payload_attribute_mappings, create_incident, auto_close_incident, api_url are missing, at least one parameter must be provided',
    })
    const blankName = await request('PUT', `${base(project)}/${created.id}`, { token: root, body: { name: '' } })
    expect(blankName.body).toEqual({ message: { name: ["can't be blank"] } })

    const removed = await request('DELETE', `${base(project)}/${created.id}`, { token: root })
    expect(removed.status).toBe(204)
    expect(removed.text).toBe('')
    const gone = await request('GET', `${base(project)}/${created.id}`, { token: root })
    expect(gone.status).toBe(404)
    expect(gone.body).toEqual({ message: '404 Integration Not Found' })
  })

  test("another project's integration is not found, and a bad id is a parameter error", async () => {
    const project = await projectIn(db)
    const other = await projectIn(db)
    const created = (await request('POST', base(other), { token: root, body: { name: 'x' } })).body
    for (const [method, suffix] of [
      ['GET', ''],
      ['PUT', ''],
      ['DELETE', ''],
      ['POST', '/reset_token'],
    ]) {
      const body = method === 'PUT' ? { active: true } : undefined
      const response = await request(method, `${base(project)}/${created.id}${suffix}`, { token: root, body })
      expect([method, response.status, response.body]).toEqual([method, 404, { message: '404 Integration Not Found' }])
    }
    const bad = await request('GET', `${base(project)}/abc`, { token: root })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'integration_id is invalid' })
  })

  describe('who may manage integrations', () => {
    let publicProject: ProjectRow
    let privateProject: ProjectRow
    let integrationId: number

    beforeAll(async () => {
      publicProject = await projectIn(db, 'public')
      privateProject = await projectIn(db, 'private')
      integrationId = (await request('POST', base(publicProject), { token: root, body: { name: 'x' } })).body.id
    })

    function calls(project: ProjectRow, id: number): [string, string, Record<string, unknown> | undefined][] {
      return [
        ['GET', base(project), undefined],
        ['GET', `${base(project)}/${id}`, undefined],
        ['POST', base(project), { name: 'another' }],
        ['PUT', `${base(project)}/${id}`, { active: false }],
        ['POST', `${base(project)}/${id}/reset_token`, undefined],
        ['DELETE', `${base(project)}/${id}`, undefined],
      ]
    }

    test('anonymous callers get 401', async () => {
      for (const [method, path, body] of calls(publicProject, integrationId)) {
        const response = await request(method, path, { body })
        expect([method, path, response.status, response.body]).toEqual([method, path, 401, { message: '401 Unauthorized' }])
      }
    })

    test('a non-member of a private project gets 404', async () => {
      const token = await userWithRole(db, null, 0)
      for (const [method, path, body] of calls(privateProject, integrationId)) {
        const response = await request(method, path, { token, body })
        expect([method, path, response.status, response.body]).toEqual([method, path, 404, { message: '404 Project Not Found' }])
      }
    })

    test('Developers and non-members of a public project get 403', async () => {
      for (const token of [
        await userWithRole(db, publicProject, 30),
        await userWithRole(db, null, 0),
        await userWithRole(db, publicProject, 20),
      ]) {
        for (const [method, path, body] of calls(publicProject, integrationId)) {
          const response = await request(method, path, { token, body })
          expect([method, path, response.status, response.body]).toEqual([method, path, 403, { message: '403 Forbidden' }])
        }
      }
    })

    test('Maintainers manage them', async () => {
      const project = await projectIn(db, 'private')
      const token = await userWithRole(db, project, 40)
      const created = await request('POST', base(project), { token, body: { name: 'mine' } })
      expect(created.status).toBe(201)
      const expected: [string, number][] = [
        ['GET', 200],
        ['GET', 200],
        ['POST', 422],
        ['PUT', 200],
        ['POST', 200],
        ['DELETE', 204],
      ]
      const results = []
      for (const [method, path, body] of calls(project, created.body.id))
        results.push([method, (await request(method, path, { token, body })).status])
      expect(results).toEqual(expected)
    })
  })
})

describe('on Premium', () => {
  let server: TestServer
  let db: Db
  let request: ReturnType<typeof client>
  let root: string

  beforeAll(async () => {
    server = await startTestServer({ SVC_TIER: 'premium' })
    db = server.database.db
    request = client(`${server.url}/api/v4`)
    root = server.rootToken
  })
  afterAll(() => server.close())

  test('several HTTP integrations, each with its own identifier and key', async () => {
    const project = await projectIn(db)
    const one = await request('POST', base(project), { token: root, body: { name: 'one', active: true } })
    const two = await request('POST', base(project), { token: root, body: { name: 'two', active: true } })
    expect([one.status, two.status]).toEqual([201, 201])
    expect(one.body.url).not.toBe(two.body.url.replace('/two/', '/one/'))
    expect(one.body.token).not.toBe(two.body.token)
  })

  test('stores the payload example and custom mappings, as JSON or as JSON text', async () => {
    const project = await projectIn(db)
    const example = { alert: { name: 'Disk full', hosts: ['a', 'b'], at: '2026-01-01T00:00:00Z' } }
    const mappings = [
      { field_name: 'title', path: ['alert', 'name'], type: 'string', label: 'Alert name' },
      { field_name: 'HOSTS', path: ['alert', 'hosts'], type: 'ARRAY' },
      { field_name: 'start_time', path: ['alert', 'at'], type: 'datetime' },
      { field_name: 'title', path: ['alert', 'hosts', 0], type: 'string' },
    ]
    const created = await request('POST', base(project), {
      token: root,
      body: { name: 'mapped', payload_example: JSON.stringify(example), payload_attribute_mappings: mappings },
    })
    expect(created.status).toBe(201)
    expect(created.body.payload_example).toEqual(example)
    expect(created.body.payload_attribute_mappings).toEqual([
      { field_name: 'hosts', path: ['alert', 'hosts'], type: 'array', label: null },
      { field_name: 'start_time', path: ['alert', 'at'], type: 'datetime', label: null },
      { field_name: 'title', path: ['alert', 'hosts', 0], type: 'string', label: null },
    ])
    const row = await db.selectFrom('alert_integrations').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow()
    expect(JSON.parse(row.payload_attribute_mappings)).toEqual([
      { field_name: 'hosts', path: ['alert', 'hosts'], type: 'array' },
      { field_name: 'start_time', path: ['alert', 'at'], type: 'datetime' },
      { field_name: 'title', path: ['alert', 'hosts', 0], type: 'string' },
    ])

    const relabelled = await request('PUT', `${base(project)}/${created.body.id}`, {
      token: root,
      body: {
        payload_attribute_mappings: JSON.stringify([{ field_name: 'svc_environment_name', path: ['env'], type: 'string', label: 'Env' }]),
      },
    })
    expect(relabelled.status).toBe(200)
    expect(relabelled.body.payload_attribute_mappings).toEqual([
      { field_name: 'svc_environment_name', path: ['env'], type: 'string', label: 'Env' },
    ])
    expect(relabelled.body.payload_example).toEqual(example)
  })

  test('refuses bad mappings and payload examples that are too deep or too big, writing nothing', async () => {
    const project = await projectIn(db)
    let deep: Record<string, unknown> = {}
    for (let i = 0; i < 100; i++) deep = { a: deep }
    const cases: [Record<string, unknown>, unknown][] = [
      [
        { payload_attribute_mappings: [{ field_name: 'nope', path: ['a'], type: 'string' }] },
        { message: { payload_attribute_mappings: ['must be a valid json schema'] } },
      ],
      [
        { payload_attribute_mappings: [{ field_name: 'title', path: [], type: 'string' }] },
        { message: { payload_attribute_mappings: ['must be a valid json schema'] } },
      ],
      [
        { payload_attribute_mappings: [{ field_name: 'title', path: ['a'], type: 'number' }] },
        { message: { payload_attribute_mappings: ['must be a valid json schema'] } },
      ],
      [
        { payload_attribute_mappings: [{ field_name: 'title', path: [{}], type: 'string' }] },
        { message: { payload_attribute_mappings: ['must be a valid json schema'] } },
      ],
      [
        { payload_attribute_mappings: [{ field_name: 'title', path: ['a'], type: 'string', extra: 1 }] },
        { message: { payload_attribute_mappings: ['must be a valid json schema'] } },
      ],
      [{ payload_example: JSON.stringify(deep) }, { message: '400 Bad request - payload_example JSON is too big' }],
      [{ payload_example: { big: 'x'.repeat(1024 * 1024) } }, { message: '400 Bad request - payload_example JSON is too big' }],
    ]
    for (const [extra, expected] of cases) {
      const response = await request('POST', base(project), { token: root, body: { name: 'bad', ...extra } })
      expect([response.status, response.body]).toEqual([400, expected])
    }
    let fine: Record<string, unknown> = {}
    for (let i = 0; i < 99; i++) fine = { a: fine }
    const deepest = await request('POST', base(project), { token: root, body: { name: 'deep', payload_example: JSON.stringify(fine) } })
    expect(deepest.status).toBe(201)
    expect((await request('GET', base(project), { token: root })).body.map((i: { name: string }) => i.name)).toEqual(['deep'])
  })

  describe('the Opsgenie integration', () => {
    test('has a target URL, no webhook URL or key, and receives no alerts', async () => {
      const project = await projectIn(db)
      const created = await request('POST', base(project), {
        token: root,
        body: { type: 'opsgenie', active: true, api_url: 'https://app.opsgenie.com/alert/list' },
      })
      expect(created.status).toBe(201)
      expect(created.body).toEqual({
        id: created.body.id,
        name: 'Opsgenie',
        active: true,
        type: 'opsgenie',
        url: null,
        token: null,
        payload_example: {},
        payload_attribute_mappings: [],
        create_incident: false,
        auto_close_incident: true,
        api_url: 'https://app.opsgenie.com/alert/list',
      })
      const row = await db.selectFrom('alert_integrations').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow()
      expect(await findActiveIntegration(db, project.id, row.endpoint_identifier)).toBeUndefined()
      const missing = await request('POST', base(await projectIn(db)), { token: root, body: { type: 'opsgenie' } })
      expect([missing.status, missing.body]).toEqual([400, { message: { api_url: ["can't be blank"] } }])
    })

    test('is active only while no other integration is', async () => {
      const project = await projectIn(db)
      const http = (await request('POST', base(project), { token: root, body: { name: 'http', active: true } })).body
      const refused = await request('POST', base(project), {
        token: root,
        body: { type: 'opsgenie', active: true, api_url: 'https://og.example.com' },
      })
      expect([refused.status, refused.body]).toEqual([
        422,
        { message: 'Opsgenie can be active only when no other alert integration is active' },
      ])

      const tracker = await request('POST', base(project), { token: root, body: { type: 'opsgenie', api_url: 'https://og.example.com' } })
      expect(tracker.status).toBe(201)
      const activate = await request('PUT', `${base(project)}/${tracker.body.id}`, { token: root, body: { active: true } })
      expect([activate.status, activate.body]).toEqual([
        422,
        { message: 'Opsgenie can be active only when no other alert integration is active' },
      ])
      const second = await request('POST', base(project), { token: root, body: { type: 'opsgenie', api_url: 'https://og.example.com' } })
      expect([second.status, second.body]).toEqual([
        422,
        { message: 'Multiple integrations of a single type are not supported for this project' },
      ])

      expect((await request('PUT', `${base(project)}/${http.id}`, { token: root, body: { active: false } })).status).toBe(200)
      expect((await request('PUT', `${base(project)}/${tracker.body.id}`, { token: root, body: { active: true } })).body.active).toBe(true)

      const message = { message: 'No other alert integration can be active while the Opsgenie integration is active' }
      const reactivate = await request('PUT', `${base(project)}/${http.id}`, { token: root, body: { active: true } })
      expect([reactivate.status, reactivate.body]).toEqual([422, message])
      const another = await request('POST', base(project), { token: root, body: { name: 'new', active: true } })
      expect([another.status, another.body]).toEqual([422, message])
      const prometheus = await request('POST', base(project), { token: root, body: { type: 'prometheus', active: true } })
      expect([prometheus.status, prometheus.body]).toEqual([422, message])
      // Inactive ones may still be added, and the tracker may stay active while changed.
      expect((await request('POST', base(project), { token: root, body: { name: 'new' } })).status).toBe(201)
      expect(
        (await request('PUT', `${base(project)}/${tracker.body.id}`, { token: root, body: { active: true, name: 'OG' } })).status,
      ).toBe(200)
      const names = (await request('GET', base(project), { token: root })).body.map((i: { name: string; active: boolean }) => [
        i.name,
        i.active,
      ])
      expect(names).toEqual([
        ['http', false],
        ['OG', true],
        ['new', false],
      ])
    })
  })
})
