import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { createPerson, createProjectTeam, type Person } from '../../testing/roles.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { startReceiver, type Receiver } from './testing.js'

let server: TestServer
let premium: TestServer
let receiver: Receiver
const start = new Date('2026-12-01T10:00:00.000Z')

beforeAll(async () => {
  ;[server, premium, receiver] = await Promise.all([startTestServer(), startTestServer({ SVC_TIER: 'premium' }), startReceiver()])
  for (const instance of [server, premium]) {
    const res = await client(instance.url)('PUT', '/api/v4/application/settings', {
      token: instance.rootToken,
      body: { allow_local_requests_from_web_hooks_and_services: true },
    })
    expect(res.status, res.text).toBe(200)
  }
})
afterAll(async () => {
  await Promise.all([server.close(), premium.close(), receiver.close()])
})
beforeEach(() => {
  server.freeze(start)
  premium.freeze(start)
  receiver.received.length = 0
  receiver.answer = () => ({ status: 200, body: 'ok' })
})

function api(instance: TestServer) {
  const request = client(instance.url)
  return (method: string, path: string, who: Person | string | undefined, body?: unknown) =>
    request(method, `/api/v4${path}`, { token: typeof who === 'string' ? who : who?.token, body })
}
const call = (method: string, path: string, who: Person | string | undefined, body?: unknown) => api(server)(method, path, who, body)

async function team(visibility: 'public' | 'private' = 'private') {
  return createProjectTeam(server.database.db, { roles: ['maintainer', 'developer'] as const, visibility })
}

/** Entities::Hook's fields of a hook made with nothing but a URL: its head, then what follows `organization_id`. */
function hookFields(url: string, overrides: Record<string, unknown> = {}) {
  const head = {
    id: expect.any(Number),
    url,
    name: null,
    description: null,
    created_at: start.toISOString(),
    push_events: true,
    tag_push_events: false,
    merge_requests_events: false,
    repository_update_events: false,
    enable_ssl_verification: true,
    ...overrides,
  }
  const tail = {
    alert_status: 'executable',
    disabled_until: null,
    url_variables: [],
    push_events_branch_filter: null,
    branch_filter_strategy: 'wildcard',
    custom_webhook_template: null,
    custom_headers: [],
  }
  return { head, tail }
}

const off = (names: string[]) => Object.fromEntries(names.map((name) => [name, false]))

/** Entities::ProjectHook of a hook made with nothing but a URL. */
function defaultProjectHook(project: ProjectRow, url: string) {
  const { head, tail } = hookFields(url)
  return {
    ...head,
    ...tail,
    project_id: project.id,
    ...off([
      'issues_events',
      'confidential_issues_events',
      'note_events',
      'confidential_note_events',
      'pipeline_events',
      'wiki_page_events',
      'deployment_events',
      'feature_flag_events',
      'job_events',
      'releases_events',
      'milestone_events',
      'emoji_events',
      'resource_access_token_events',
      'vulnerability_events',
    ]),
  }
}

describe('project hooks', () => {
  test('a Maintainer adds a hook with every field: 201 with GitLab’s ProjectHook entity, secrets by name only', async () => {
    const { project, maintainer } = await team()
    const res = await call('POST', `/projects/${project.id}/hooks`, maintainer, {
      url: `${receiver.url}/{path}`,
      name: 'CI',
      description: 'Tells CI',
      token: 'secret-token',
      push_events: false,
      issues_events: true,
      confidential_issues_events: true,
      merge_requests_events: true,
      tag_push_events: true,
      note_events: true,
      confidential_note_events: true,
      job_events: true,
      pipeline_events: true,
      wiki_page_events: true,
      deployment_events: true,
      feature_flag_events: true,
      releases_events: true,
      milestone_events: true,
      emoji_events: true,
      resource_access_token_events: true,
      vulnerability_events: true,
      enable_ssl_verification: false,
      push_events_branch_filter: '  release/*  ',
      custom_webhook_template: '{"kind":"{{object_kind}}"}',
      url_variables: [{ key: 'path', value: 'hooks/ci' }],
      custom_headers: [{ key: 'X-Secret', value: 'value' }],
    })
    expect(res.status, res.text).toBe(201)
    expect(res.headers['content-type']).toBe('application/json')
    const switchedOn = Object.fromEntries(
      Object.entries(defaultProjectHook(project, '')).filter(([name, value]) => name.endsWith('_events') && value === false),
    )
    expect(res.body).toEqual({
      ...defaultProjectHook(project, `${receiver.url}/{path}`),
      ...Object.fromEntries(Object.keys(switchedOn).map((name) => [name, true])),
      repository_update_events: false,
      push_events: false,
      name: 'CI',
      description: 'Tells CI',
      enable_ssl_verification: false,
      url_variables: [{ key: 'path' }],
      push_events_branch_filter: 'release/*',
      custom_webhook_template: '{"kind":"{{object_kind}}"}',
      custom_headers: [{ key: 'X-Secret' }],
    })
    expect(Object.keys(res.body)).toEqual(Object.keys(defaultProjectHook(project, '')))
    expect(res.text).not.toContain('secret-token')
    expect(res.text).not.toContain('hooks/ci')
  })

  test('the list leaves out the names of URL variables and custom headers; one hook shows them', async () => {
    const { project, maintainer } = await team()
    const created = await call('POST', `/projects/${project.id}/hooks`, maintainer, { url: `${receiver.url}/a` })
    await call('POST', `/projects/${project.id}/hooks`, maintainer, {
      url: `${receiver.url}/b`,
      custom_headers: [{ key: 'X-A', value: '1' }],
    })
    const list = await call('GET', `/projects/${project.id}/hooks`, maintainer)
    expect(list.status).toBe(200)
    expect(list.headers['x-total']).toBe('2')
    const { url_variables: _variables, custom_headers: _headers, ...listed } = defaultProjectHook(project, `${receiver.url}/a`)
    expect(list.body[0]).toEqual(listed)
    expect(list.body.map((hook: { url: string }) => hook.url)).toEqual([`${receiver.url}/a`, `${receiver.url}/b`])
    const one = await call('GET', `/projects/${project.id}/hooks/${created.body.id}`, maintainer)
    expect(one.status).toBe(200)
    expect(one.body).toEqual(defaultProjectHook(project, `${receiver.url}/a`))
  })

  test('Developers are refused, strangers do not see a private project, anonymous callers must sign in', async () => {
    const { project, maintainer, developer, outsider } = await team()
    const hook = await call('POST', `/projects/${project.id}/hooks`, maintainer, { url: `${receiver.url}/a` })
    for (const [method, path] of [
      ['GET', `/projects/${project.id}/hooks`],
      ['POST', `/projects/${project.id}/hooks`],
      ['GET', `/projects/${project.id}/hooks/${hook.body.id}`],
      ['DELETE', `/projects/${project.id}/hooks/${hook.body.id}`],
      ['POST', `/projects/${project.id}/hooks/${hook.body.id}/test/push_events`],
    ]) {
      expect(await call(method!, path!, developer)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } })
      expect(await call(method!, path!, outsider)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } })
      expect(await call(method!, path!, undefined)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } })
    }
    // Refusals come before parameters are read, as Grape's `before` does.
    expect((await call('POST', `/projects/${project.id}/hooks`, developer, {})).status).toBe(403)
  })

  test('a hook of another project is not found', async () => {
    const first = await team()
    const second = await team()
    const hook = await call('POST', `/projects/${first.project.id}/hooks`, first.maintainer, { url: `${receiver.url}/a` })
    const res = await call('GET', `/projects/${second.project.id}/hooks/${hook.body.id}`, second.maintainer)
    expect(res).toMatchObject({ status: 404, body: { message: '404 Not found' } })
  })

  test('edits change what is given; nothing given is 400; a new URL drops the token and the custom headers', async () => {
    const { project, maintainer } = await team()
    const created = await call('POST', `/projects/${project.id}/hooks`, maintainer, {
      url: `${receiver.url}/a`,
      token: 'first',
      custom_headers: [{ key: 'X-One', value: '1' }],
    })
    const path = `/projects/${project.id}/hooks/${created.body.id}`
    expect(await call('PUT', path, maintainer, {})).toMatchObject({ status: 400, body: { message: 'No parameters provided' } })
    server.travel(60_000)
    const renamed = await call('PUT', path, maintainer, {
      name: 'Renamed',
      note_events: true,
      custom_headers: [{ key: 'X-Two', value: '2' }],
    })
    expect(renamed.status, renamed.text).toBe(200)
    expect(renamed.body).toMatchObject({
      name: 'Renamed',
      note_events: true,
      push_events: true,
      custom_headers: [{ key: 'X-One' }, { key: 'X-Two' }],
    })
    const moved = await call('PUT', path, maintainer, { url: `${receiver.url}/b` })
    expect(moved.body).toMatchObject({ url: `${receiver.url}/b`, custom_headers: [] })
  })

  test('validation errors in GitLab’s words: 422 on create with one sentence, on edit by attribute', async () => {
    const { project, maintainer } = await team()
    const hooks = `/projects/${project.id}/hooks`
    const refused = async (body: Record<string, unknown>) => call('POST', hooks, maintainer, body)
    expect(await refused({ url: '' })).toMatchObject({ status: 422, body: { message: 'Invalid url given' } })
    expect(await refused({ url: 'ftp://example.com/hook' })).toMatchObject({ status: 422, body: { message: 'Invalid url given' } })
    expect(await refused({ url: `${receiver.url}/{missing}` })).toMatchObject({ status: 422, body: { message: 'Invalid url given' } })
    expect(await refused({ url: `${receiver.url}/a`, push_events_branch_filter: 'a..b' })).toMatchObject({
      status: 422,
      body: { message: 'Invalid branch filter given' },
    })
    expect(await refused({ url: `${receiver.url}/a`, branch_filter_strategy: 'regex', push_events_branch_filter: '(' })).toMatchObject({
      status: 422,
      body: { message: 'Invalid branch filter given' },
    })
    expect(await refused({ url: `${receiver.url}/a`, custom_headers: [{ key: 'Bad Header', value: 'v' }] })).toMatchObject({
      status: 422,
      body: { message: 'Custom headers must be a valid json schema' },
    })
    expect(await refused({ url: `${receiver.url}/a`, token: 'a\nb' })).toMatchObject({ status: 422, body: { message: 'Token is invalid' } })
    expect(await refused({ url: `${receiver.url}/a`, token: 'a\nb', custom_webhook_template: 'x'.repeat(4097) })).toMatchObject({
      status: 422,
      body: { message: 'Token is invalid and Custom webhook template is too long (maximum is 4096 characters)' },
    })
    expect(await refused({})).toEqual(expect.objectContaining({ status: 400, body: { message: '400 (Bad request) "url" not given' } }))
    expect(await refused({ url: `${receiver.url}/a`, branch_filter_strategy: 'exact' })).toMatchObject({
      status: 400,
      body: { error: 'branch_filter_strategy does not have a valid value' },
    })

    const hook = await call('POST', hooks, maintainer, { url: `${receiver.url}/a` })
    const path = `${hooks}/${hook.body.id}`
    expect(await call('PUT', path, maintainer, { token: 'a\nb' })).toMatchObject({
      status: 422,
      body: { message: { token: ['is invalid'] } },
    })
    expect(await call('PUT', path, maintainer, { custom_headers: [{ key: '1', value: 'v' }] })).toMatchObject({
      status: 422,
      body: { message: 'Custom headers validation failed' },
    })
    expect(await call('PUT', path, maintainer, { url: 'not a url' })).toMatchObject({ status: 422, body: { message: 'Invalid url given' } })
  })

  test('local addresses are refused unless the instance allows them for webhooks', async () => {
    const { project, maintainer } = await team()
    const put = (allowed: boolean) =>
      call('PUT', '/application/settings', server.rootToken, { allow_local_requests_from_web_hooks_and_services: allowed })
    expect((await put(false)).status).toBe(200)
    try {
      const res = await call('POST', `/projects/${project.id}/hooks`, maintainer, { url: `${receiver.url}/a` })
      expect(res).toMatchObject({ status: 422, body: { message: 'Invalid url given' } })
      const filled = await call('POST', `/projects/${project.id}/hooks`, maintainer, {
        url: 'http://{host}/a',
        url_variables: [{ key: 'host', value: '127.0.0.1' }],
      })
      expect(filled).toMatchObject({ status: 422, body: { message: 'Interpolated url is blocked: Requests to localhost are not allowed' } })
    } finally {
      await put(true)
    }
  })

  test('URL variables and custom headers are set and unset one at a time; an unknown one is 404', async () => {
    const { project, maintainer } = await team()
    const hook = await call('POST', `/projects/${project.id}/hooks`, maintainer, { url: `${receiver.url}/a` })
    const path = `/projects/${project.id}/hooks/${hook.body.id}`
    expect(await call('PUT', `${path}/url_variables/region`, maintainer, { value: 'eu' })).toMatchObject({ status: 204, text: '' })
    expect(await call('PUT', `${path}/custom_headers/X-Api-Key`, maintainer, { value: 'k' })).toMatchObject({ status: 204, text: '' })
    expect((await call('GET', path, maintainer)).body).toMatchObject({
      url_variables: [{ key: 'region' }],
      custom_headers: [{ key: 'X-Api-Key' }],
    })
    expect(await call('PUT', `${path}/custom_headers/bad key`, maintainer, { value: 'k' })).toMatchObject({
      status: 422,
      body: { message: 'Illegal key or value' },
    })
    expect(await call('PUT', `${path}/url_variables/region`, maintainer, {})).toMatchObject({
      status: 400,
      body: { message: '400 (Bad request) "value" not given' },
    })
    expect(await call('DELETE', `${path}/url_variables/region`, maintainer)).toMatchObject({ status: 204 })
    expect(await call('DELETE', `${path}/url_variables/region`, maintainer)).toMatchObject({
      status: 404,
      body: { message: '404 URL variable Not Found' },
    })
    expect(await call('DELETE', `${path}/custom_headers/X-Api-Key`, maintainer)).toMatchObject({ status: 204 })
    expect(await call('DELETE', `${path}/custom_headers/X-Api-Key`, maintainer)).toMatchObject({
      status: 404,
      body: { message: '404 Custom header Not Found' },
    })
  })

  test('a deleted hook is gone: 204, then 404', async () => {
    const { project, maintainer } = await team()
    const hook = await call('POST', `/projects/${project.id}/hooks`, maintainer, { url: `${receiver.url}/a` })
    const path = `/projects/${project.id}/hooks/${hook.body.id}`
    expect(await call('DELETE', path, maintainer)).toMatchObject({ status: 204, text: '' })
    expect(await call('GET', path, maintainer)).toMatchObject({ status: 404, body: { message: '404 Not found' } })
    expect(await call('DELETE', path, maintainer)).toMatchObject({ status: 404, body: { message: '404 Not found' } })
  })

  test('test triggers without sample data answer GitLab’s 422s; an unknown trigger is 400', async () => {
    const { project, maintainer } = await team()
    const hook = await call('POST', `/projects/${project.id}/hooks`, maintainer, { url: `${receiver.url}/a` })
    const test = (trigger: string) => call('POST', `/projects/${project.id}/hooks/${hook.body.id}/test/${trigger}`, maintainer)
    expect(await test('push_events')).toMatchObject({ status: 422, body: { message: 'Ensure the project has at least one commit.' } })
    expect(await test('issues_events')).toMatchObject({ status: 422, body: { message: 'Ensure the project has issues.' } })
    expect(await test('merge_requests_events')).toMatchObject({ status: 422, body: { message: 'Ensure the project has merge requests.' } })
    expect(await test('note_events')).toMatchObject({ status: 422, body: { message: 'Ensure the project has notes.' } })
    expect(await test('job_events')).toMatchObject({ status: 422, body: { message: 'Ensure the project has CI jobs.' } })
    expect(await test('pipeline_events')).toMatchObject({ status: 422, body: { message: 'Ensure the project has CI pipelines.' } })
    expect(await test('confidential_note_events')).toMatchObject({ status: 422, body: { message: 'Testing not available for this hook' } })
    expect(await test('member_events')).toMatchObject({ status: 400, body: { error: 'trigger does not have a valid value' } })
    expect(receiver.received).toEqual([])
  })
})

describe('group hooks', () => {
  test('GitLab Free has no group hooks API: 404 for everyone', async () => {
    const group = await createTestGroup(server.database.db)
    for (const who of [undefined, server.rootToken]) {
      expect(await call('GET', `/groups/${group.id}/hooks`, who)).toMatchObject({ status: 404, body: { error: '404 Not Found' } })
      expect(await call('POST', `/groups/${group.id}/hooks`, who, { url: `${receiver.url}/a` })).toMatchObject({ status: 404 })
    }
  })

  test('on Premium, a group’s Owners manage its hooks with GitLab’s GroupHook entity; Maintainers are refused', async () => {
    const db = premium.database.db
    const group = await createTestGroup(db, { visibility: 'private' })
    const [owner, maintainer] = [await createPerson(db), await createPerson(db)]
    await addTestMember(db, { user: owner.user, group, accessLevel: 50 })
    await addTestMember(db, { user: maintainer.user, group, accessLevel: 40 })
    const call = api(premium)
    expect(await call('GET', `/groups/${group.id}/hooks`, undefined)).toMatchObject({ status: 401 })
    expect(await call('GET', `/groups/${group.id}/hooks`, maintainer)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } })
    const res = await call('POST', `/groups/${group.id}/hooks`, owner, {
      url: `${receiver.url}/g`,
      member_events: true,
      subgroup_events: true,
    })
    expect(res.status, res.text).toBe(201)
    const { head, tail } = hookFields(`${receiver.url}/g`)
    const expected = {
      ...head,
      ...tail,
      group_id: group.id,
      ...off(['issues_events', 'confidential_issues_events', 'note_events', 'confidential_note_events', 'pipeline_events']),
      ...off(['wiki_page_events', 'job_events', 'deployment_events', 'feature_flag_events', 'releases_events', 'milestone_events']),
      subgroup_events: true,
      ...off(['emoji_events', 'resource_access_token_events']),
      member_events: true,
      ...off(['vulnerability_events', 'project_events']),
    }
    expect(res.body).toEqual(expected)
    expect(Object.keys(res.body)).toEqual(Object.keys(expected))
    expect((await call('GET', `/groups/${group.id}/hooks`, owner)).body).toEqual([res.body])
    const test = await call('POST', `/groups/${group.id}/hooks/${res.body.id}/test/push_events`, owner)
    expect(test).toMatchObject({ status: 422, body: { message: 'Ensure the group has a project with commits.' } })
  })
})

describe('system hooks', () => {
  test('administrators only; a new one listens for repository updates and shows its organization', async () => {
    const someone = await createPerson(server.database.db)
    expect(await call('GET', '/hooks', undefined)).toMatchObject({ status: 401 })
    expect(await call('GET', '/hooks', someone)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } })
    expect(await call('POST', '/hooks', someone, { url: `${receiver.url}/s` })).toMatchObject({ status: 403 })
    const res = await call('POST', '/hooks', server.rootToken, { url: `${receiver.url}/s`, token: 'system-secret' })
    expect(res.status, res.text).toBe(201)
    const { head, tail } = hookFields(`${receiver.url}/s`, { push_events: false, repository_update_events: true })
    expect(res.body).toEqual({ ...head, organization_id: 1, ...tail })
    expect(Object.keys(res.body)).toEqual([...Object.keys(head), 'organization_id', ...Object.keys(tail)])
    const one = await call('GET', `/hooks/${res.body.id}`, server.rootToken)
    expect(one.body).toEqual(res.body)
    expect(await call('DELETE', `/hooks/${res.body.id}`, server.rootToken)).toMatchObject({ status: 204 })
  })

  test('a new URL drops the token unless one is given with it', async () => {
    const hook = await call('POST', '/hooks', server.rootToken, { url: `${receiver.url}/one`, token: 'first' })
    await call('PUT', `/hooks/${hook.body.id}`, server.rootToken, { url: `${receiver.url}/two` })
    await call('POST', `/hooks/${hook.body.id}`, server.rootToken)
    await call('PUT', `/hooks/${hook.body.id}`, server.rootToken, { url: `${receiver.url}/three`, token: 'third' })
    await call('POST', `/hooks/${hook.body.id}`, server.rootToken)
    const [second, third] = await receiver.waitFor(2)
    expect([second!.path, second!.headers['x-gitlab-token']]).toEqual(['/two', undefined])
    expect([third!.path, third!.headers['x-gitlab-token']]).toEqual(['/three', 'third'])
  })

  test('POST /hooks/:hook_id sends GitLab’s sample and answers it', async () => {
    const hook = await call('POST', '/hooks', server.rootToken, { url: `${receiver.url}/s`, token: 'system-secret' })
    const res = await call('POST', `/hooks/${hook.body.id}`, server.rootToken)
    expect(res.status).toBe(201)
    const sample = {
      event_name: 'project_create',
      name: 'Ruby',
      path: 'ruby',
      project_id: 1,
      owner_name: 'Someone',
      owner_email: 'example@gitlabhq.com',
    }
    expect(res.body).toEqual(sample)
    const [received] = await receiver.waitFor(1)
    expect(JSON.parse(received!.body)).toEqual(sample)
    expect(received!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': expect.stringMatching(/^GitLab\/\d+\.\d+\.\d+/),
      'x-gitlab-event': 'System Hook',
      'x-gitlab-token': 'system-secret',
      'x-gitlab-instance': server.url,
      'idempotency-key': expect.stringMatching(/^[0-9a-f-]{36}$/),
      'x-gitlab-webhook-uuid': expect.stringMatching(/^[0-9a-f-]{36}$/),
      'x-gitlab-event-uuid': expect.stringMatching(/^[0-9a-f-]{36}$/),
    })
    const events = await call('GET', `/hooks/${hook.body.id}/events`, server.rootToken)
    expect(events.status).toBe(200)
    expect(events.body).toEqual([
      {
        id: expect.any(Number),
        url: `${receiver.url}/s`,
        trigger: 'system_hooks',
        request_headers: {
          'Content-Type': 'application/json',
          'User-Agent': received!.headers['user-agent'],
          'Idempotency-Key': received!.headers['idempotency-key'],
          'X-Gitlab-Event': 'System Hook',
          'X-Gitlab-Webhook-UUID': received!.headers['x-gitlab-webhook-uuid'],
          'X-Gitlab-Instance': server.url,
          'X-Gitlab-Token': '[REDACTED]',
          'X-Gitlab-Event-UUID': received!.headers['x-gitlab-event-uuid'],
        },
        request_data: { ...sample, owner_email: '[REDACTED]' },
        response_headers: expect.objectContaining({ 'Content-Type': 'text/plain' }),
        response_body: 'ok',
        execution_duration: expect.any(Number),
        response_status: '200',
        created_at: start.toISOString(),
      },
    ])
  })
})
