import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { WebHookRow } from '../../db/schema.js'
import { freePort } from '../../testing/cli.js'
import { createTestIssue } from '../../testing/factories.js'
import { contextFor } from '../../testing/context.js'
import { client } from '../../testing/http.js'
import { createPerson as createPusher, createRepositoryProject } from '../../testing/repositories.js'
import { createProjectTeam, type Person } from '../../testing/roles.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { pruneWebhookLogs, recordDeliveries } from './deliveries.js'
import { branchFilterMatches, hears } from './matching.js'
import type { HookPayload } from './payloads/index.js'
import { findHookRowById } from './store.js'
import { startReceiver, type Receiver } from './testing.js'

let server: TestServer
let receiver: Receiver
const start = new Date('2026-12-01T10:00:00.000Z')
const MINUTE = 60_000

beforeAll(async () => {
  ;[server, receiver] = await Promise.all([startTestServer(), startReceiver()])
  const res = await client(server.url)('PUT', '/api/v4/application/settings', {
    token: server.rootToken,
    body: { allow_local_requests_from_web_hooks_and_services: true },
  })
  expect(res.status, res.text).toBe(200)
})
afterAll(async () => {
  await Promise.all([server.close(), receiver.close()])
})
beforeEach(() => {
  server.freeze(start)
  receiver.received.length = 0
  receiver.answer = () => ({ status: 200, body: 'ok' })
})

function call(method: string, path: string, who: Person | string | undefined, body?: unknown) {
  return client(server.url)(method, `/api/v4${path}`, { token: typeof who === 'string' ? who : who?.token, body })
}

const issuePayload: HookPayload = {
  event: 'Issue Hook',
  trigger: 'issues_events',
  scope: 'project',
  body: {
    object_kind: 'issue',
    user: { name: 'Ann', email: 'ann@example.com' },
    object_attributes: { title: 'Hello "x"', labels: [{ name: 'bug' }] },
  },
}

/** A project with a Maintainer and one hook of theirs made through the API. */
async function projectWithHook(body: Record<string, unknown>) {
  const { project, maintainer } = await createProjectTeam(server.database.db, { roles: ['maintainer'] as const, visibility: 'private' })
  const created = await call('POST', `/projects/${project.id}/hooks`, maintainer, { issues_events: true, ...body })
  expect(created.status, created.text).toBe(201)
  const hooks = `/projects/${project.id}/hooks/${created.body.id}`
  return { project, maintainer, hookId: created.body.id as number, hooks }
}

/** Records deliveries of `payloads` to the hook as a change's transaction would; answers their ids. */
async function deliver(hookId: number, payloads: HookPayload[] = [issuePayload]) {
  const ctx = contextFor(server, null, server.app.parts.clock())
  const hook = (await findHookRowById(server.database.db, hookId))!
  return server.database.db.transaction().execute((trx) =>
    recordDeliveries(
      ctx,
      trx,
      payloads.map((payload) => ({ hook, payload })),
    ),
  )
}

/** Runs the job that sends what was just recorded. */
const send = () => server.runJobs()

/** Moves the clock on and runs every job then due, `times` over. */
async function later(ms: number, times = 1) {
  for (let n = 0; n < times; n++) {
    server.travel(ms)
    await server.runJobs()
  }
}

describe('delivery', () => {
  test('sends GitLab’s headers and body to the URL its variables fill in, with basic auth, and logs the request', async () => {
    const { maintainer, hookId, hooks } = await projectWithHook({
      url: `http://alice:pa%20ss@127.0.0.1:${new URL(receiver.url).port}/{path}`,
      url_variables: [{ key: 'path', value: 'hooks/ci' }],
      token: 'hook-token',
      custom_headers: [{ key: 'X-Custom', value: 'custom value' }],
    })
    expect(await deliver(hookId)).toBe(1)
    await send()
    const [received] = await receiver.waitFor(1)
    expect(received!.path).toBe('/hooks/ci')
    expect(JSON.parse(received!.body)).toEqual(issuePayload.body)
    expect(received!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': expect.stringMatching(/^GitLab\/\d+\.\d+\.\d+/),
      'x-gitlab-event': 'Issue Hook',
      'x-gitlab-token': 'hook-token',
      'x-gitlab-instance': server.url,
      'x-custom': 'custom value',
      authorization: `Basic ${Buffer.from('alice:pa ss').toString('base64')}`,
    })
    const events = await call('GET', `${hooks}/events`, maintainer)
    expect(events.status).toBe(200)
    expect(events.body).toEqual([
      {
        id: expect.any(Number),
        url: `http://*****:*****@127.0.0.1:${new URL(receiver.url).port}/{path}`,
        trigger: 'issue_hooks',
        request_headers: {
          'X-Custom': '[REDACTED]',
          'Content-Type': 'application/json',
          'User-Agent': received!.headers['user-agent'],
          'Idempotency-Key': received!.headers['idempotency-key'],
          'X-Gitlab-Event': 'Issue Hook',
          'X-Gitlab-Webhook-UUID': received!.headers['x-gitlab-webhook-uuid'],
          'X-Gitlab-Instance': server.url,
          'X-Gitlab-Token': '[REDACTED]',
          'X-Gitlab-Event-UUID': received!.headers['x-gitlab-event-uuid'],
        },
        request_data: { ...issuePayload.body, user: { name: 'Ann', email: '[REDACTED]' } },
        response_headers: expect.objectContaining({ 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' }),
        response_body: 'ok',
        execution_duration: expect.any(Number),
        response_status: '200',
        created_at: start.toISOString(),
      },
    ])
    // Delivered once: nothing is left to send.
    await later(MINUTE, 3)
    expect(receiver.received).toHaveLength(1)
  })

  test('only hooks that hear a payload get it', async () => {
    const { hookId } = await projectWithHook({ url: `${receiver.url}/a`, issues_events: false })
    expect(await deliver(hookId)).toBe(0)
    expect(await deliver(hookId, [{ ...issuePayload, scope: 'system', trigger: 'system' }])).toBe(0)
  })

  test('a failing receiver gets the delivery five times with one Idempotency-Key; four failures in a row disable the hook for a while', async () => {
    const { maintainer, hookId, hooks } = await projectWithHook({ url: `${receiver.url}/a` })
    receiver.answer = () => ({ status: 500, body: 'boom' })
    await deliver(hookId)
    await send()
    expect((await call('GET', hooks, maintainer)).body).toMatchObject({ alert_status: 'executable', disabled_until: null })
    await later(10 * MINUTE, 4)
    const received = await receiver.waitFor(5)
    expect(new Set(received.map((request) => request.headers['idempotency-key'])).size).toBe(1)
    expect(new Set(received.map((request) => request.headers['x-gitlab-event-uuid'])).size).toBe(1)
    expect(new Set(received.map((request) => request.headers['x-gitlab-webhook-uuid'])).size).toBe(5)
    // The fifth failure in a row disables the hook for 2 minutes (1, doubling from the fourth).
    expect((await call('GET', hooks, maintainer)).body).toMatchObject({
      alert_status: 'temporarily_disabled',
      disabled_until: new Date(server.app.parts.clock().getTime() + 2 * MINUTE).toISOString(),
    })
    await later(10 * MINUTE, 2)
    expect(receiver.received).toHaveLength(5)
    expect((await call('GET', hooks, maintainer)).body).toMatchObject({ alert_status: 'executable' })
  })
})

describe('auto-disabling', () => {
  test('the fourth failure in a row disables for a minute; a delivery made meanwhile waits, and its success enables the hook again', async () => {
    const { maintainer, hookId, hooks } = await projectWithHook({ url: `${receiver.url}/a` })
    receiver.answer = () => ({ status: 502, body: 'bad gateway' })
    for (let n = 0; n < 4; n++) {
      await deliver(hookId)
      await send()
    }
    expect(receiver.received).toHaveLength(4)
    const fourthAt = server.app.parts.clock().getTime()
    expect((await call('GET', hooks, maintainer)).body).toMatchObject({
      alert_status: 'temporarily_disabled',
      disabled_until: new Date(fourthAt + MINUTE).toISOString(),
    })
    receiver.answer = () => ({ status: 200, body: 'ok' })
    // The retries of the four deliveries and a new one wait until the hook may send again.
    await deliver(hookId)
    await later(30_000)
    expect(receiver.received).toHaveLength(4)
    await later(31_000)
    expect(receiver.received.length).toBeGreaterThan(4)
    expect((await call('GET', hooks, maintainer)).body).toMatchObject({ alert_status: 'executable', disabled_until: null })
    await later(10 * MINUTE, 3)
    // Each delivery arrived once more and no more: four retried and the one made while disabled.
    expect(receiver.received).toHaveLength(9)
    const events = await call('GET', `${hooks}/events?status=successful`, maintainer)
    expect(events.body).toHaveLength(5)
    expect((await call('GET', `${hooks}/events?status=502`, maintainer)).body).toHaveLength(4)
    expect((await call('GET', `${hooks}/events?status=server_failure,client_failure`, maintainer)).body).toHaveLength(4)
    expect((await call('GET', `${hooks}/events?status=404`, maintainer)).body).toEqual([])
  })

  test('the fortieth failure disables a hook for good: its deliveries are dropped and a resend is refused', async () => {
    const { maintainer, hookId, hooks } = await projectWithHook({ url: `${receiver.url}/a` })
    await server.database.db.updateTable('web_hooks').set({ recent_failures: 39 }).where('id', '=', hookId).execute()
    receiver.answer = () => ({ status: 404, body: 'gone' })
    await deliver(hookId)
    await send()
    expect((await call('GET', hooks, maintainer)).body).toMatchObject({ alert_status: 'disabled' })
    await deliver(hookId)
    await later(10 * MINUTE, 6)
    expect(receiver.received).toHaveLength(1)
    const [log] = (await call('GET', `${hooks}/events`, maintainer)).body
    const resend = await call('POST', `${hooks}/events/${log.id}/resend`, maintainer)
    expect(resend).toMatchObject({ status: 422, body: { message: 'Hook disabled' } })
  })

  test('a test answered with a 2xx enables a disabled hook; any other answer is refused with what came back', async () => {
    const { project, maintainer, hookId, hooks } = await projectWithHook({ url: `${receiver.url}/a` })
    await createTestIssue(server.database.db, { project, author: maintainer.user, title: 'Broken' })
    await server.database.db.updateTable('web_hooks').set({ recent_failures: 40 }).where('id', '=', hookId).execute()
    receiver.answer = () => ({ status: 500, body: 'still down' })
    const refused = await call('POST', `${hooks}/test/issues_events`, maintainer)
    expect(refused).toMatchObject({ status: 422, body: { message: 'still down' } })
    expect((await call('GET', hooks, maintainer)).body).toMatchObject({ alert_status: 'disabled' })
    receiver.answer = () => ({ status: 200, body: 'ok' })
    const test = await call('POST', `${hooks}/test/issues_events`, maintainer)
    expect(test).toMatchObject({ status: 201, body: { message: '201 Created' } })
    expect((await call('GET', hooks, maintainer)).body).toMatchObject({ alert_status: 'executable', disabled_until: null })
    const [sent] = receiver.received.slice(-1)
    expect(sent!.headers['x-gitlab-event']).toBe('Issue Hook')
    expect(JSON.parse(sent!.body)).toMatchObject({ object_kind: 'issue', object_attributes: { title: 'Broken', action: 'open' } })
    const [log] = (await call('GET', `${hooks}/events`, maintainer)).body
    expect(log).toMatchObject({ trigger: 'issue_hooks', response_status: '200' })
  })

  test('a push test sends a push of the default branch; a tag push test names it under refs/tags/', async () => {
    const owner = await createPusher(server.database.db, `pusher${Date.now()}`)
    const project = await createRepositoryProject(client(`${server.url}/api/v4`), owner, { path: `pushed-${Date.now()}` })
    const created = await call('POST', `/projects/${project.id}/hooks`, owner, { url: `${receiver.url}/push` })
    const hooks = `/projects/${project.id}/hooks/${created.body.id}`
    expect(await call('POST', `${hooks}/test/push_events`, owner)).toMatchObject({ status: 201 })
    expect(await call('POST', `${hooks}/test/tag_push_events`, owner)).toMatchObject({ status: 201 })
    const [push, tag] = receiver.received.filter((request) => request.path === '/push')
    expect(push!.headers['x-gitlab-event']).toBe('Push Hook')
    expect(JSON.parse(push!.body)).toMatchObject({
      object_kind: 'push',
      ref: `refs/heads/${project.default_branch}`,
      project_id: project.id,
    })
    expect(tag!.headers['x-gitlab-event']).toBe('Tag Push Hook')
    expect(JSON.parse(tag!.body)).toMatchObject({ ref: `refs/tags/${project.default_branch}` })
  })

  test('system hooks are never disabled', async () => {
    const created = await call('POST', '/hooks', server.rootToken, { url: `${receiver.url}/s` })
    receiver.answer = () => ({ status: 500 })
    for (let n = 0; n < 6; n++) await call('POST', `/hooks/${created.body.id}`, server.rootToken)
    expect(receiver.received).toHaveLength(6)
    expect((await call('GET', `/hooks/${created.body.id}`, server.rootToken)).body).toMatchObject({ alert_status: 'executable' })
  })
})

describe('failures', () => {
  test('a refused connection is an internal error, logged with an empty response', async () => {
    const port = await freePort()
    const { maintainer, hookId, hooks } = await projectWithHook({ url: `http://127.0.0.1:${port}/nobody` })
    await deliver(hookId)
    await send()
    const events = await call('GET', `${hooks}/events?status=server_failure`, maintainer)
    expect(events.body).toEqual([
      expect.objectContaining({ response_status: 'internal error', response_body: '', response_headers: {}, trigger: 'issue_hooks' }),
    ])
  })

  test('a receiver that does not answer in 10 seconds times out and gets the delivery again', async () => {
    const { maintainer, hookId, hooks } = await projectWithHook({ url: `${receiver.url}/slow` })
    receiver.answer = () => 'hang'
    await deliver(hookId)
    await send()
    expect((await call('GET', `${hooks}/events`, maintainer)).body).toEqual([
      expect.objectContaining({ response_status: 'internal error' }),
    ])
    receiver.answer = () => ({ status: 204 })
    await later(10 * MINUTE)
    expect(receiver.received).toHaveLength(2)
    expect(receiver.received[1]!.headers['idempotency-key']).toBe(receiver.received[0]!.headers['idempotency-key'])
    const [latest] = (await call('GET', `${hooks}/events`, maintainer)).body
    expect(latest.response_status).toBe('204')
  }, 30_000)

  test('a response body is logged up to 8 KB', async () => {
    const { maintainer, hookId, hooks } = await projectWithHook({ url: `${receiver.url}/a` })
    receiver.answer = () => ({ status: 200, body: 'é'.repeat(5000) })
    await deliver(hookId)
    await send()
    const [log] = (await call('GET', `${hooks}/events`, maintainer)).body
    expect(log.response_body).toBe(`${'é'.repeat(4094)}…`)
  })
})

describe('custom templates', () => {
  test('the template is the body, each {{path}} the value’s JSON', async () => {
    const { hookId } = await projectWithHook({
      url: `${receiver.url}/a`,
      custom_webhook_template:
        '{"kind":"{{object_kind}}","title":"{{object_attributes.title}}","labels":{{object_attributes.labels}},"x":{{nothing.here}}}',
    })
    await deliver(hookId)
    await send()
    expect(JSON.parse(receiver.received[0]!.body)).toEqual({ kind: 'issue', title: 'Hello "x"', labels: [{ name: 'bug' }], x: null })
  })

  test('a template that reads into an array sends nothing and logs an internal error with an empty body', async () => {
    const { maintainer, hookId, hooks } = await projectWithHook({
      url: `${receiver.url}/a`,
      custom_webhook_template: '{"x":"{{object_attributes.labels.name}}"}',
    })
    await deliver(hookId)
    await send()
    expect(receiver.received).toEqual([])
    const [log] = (await call('GET', `${hooks}/events`, maintainer)).body
    expect(log).toMatchObject({ response_status: 'internal error', request_data: {} })
    const row = await server.database.db
      .selectFrom('web_hook_logs')
      .select('internal_error_message')
      .where('id', '=', log.id)
      .executeTakeFirst()
    expect(row?.internal_error_message).toBe(
      'Error while parsing rendered custom webhook template: You may be trying to access an array value, which is not supported.',
    )
  })
})

describe('events', () => {
  test('a logged request is sent again with its Idempotency-Key: 201 with the status that came back', async () => {
    const { maintainer, hookId, hooks } = await projectWithHook({ url: `${receiver.url}/a` })
    receiver.answer = () => ({ status: 500 })
    await deliver(hookId)
    await send()
    const [log] = (await call('GET', `${hooks}/events`, maintainer)).body
    receiver.answer = () => ({ status: 202 })
    const resend = await call('POST', `${hooks}/events/${log.id}/resend`, maintainer)
    expect(resend).toMatchObject({ status: 201, body: { response_status: 202 } })
    expect(receiver.received[1]!.headers['idempotency-key']).toBe(receiver.received[0]!.headers['idempotency-key'])
    expect(await call('POST', `${hooks}/events/${log.id + 1000}/resend`, maintainer)).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    })
    await call('PUT', hooks, maintainer, { url: `${receiver.url}/b` })
    expect(await call('POST', `${hooks}/events/${log.id}/resend`, maintainer)).toMatchObject({
      status: 422,
      body: { message: 'The hook URL has changed, and this log entry cannot be retried' },
    })
  })

  test('pages of at most 20, newest first; entries older than two days are pruned', async () => {
    const { maintainer, hookId, hooks } = await projectWithHook({ url: `${receiver.url}/a` })
    for (let n = 0; n < 3; n++) {
      await deliver(hookId)
      await later(1000)
    }
    const page = await call('GET', `${hooks}/events?per_page=2`, maintainer)
    expect(page.body).toHaveLength(2)
    expect(page.headers['x-total']).toBe('3')
    expect(Date.parse(page.body[0].created_at)).toBeGreaterThan(Date.parse(page.body[1].created_at))
    expect(await call('GET', `${hooks}/events?per_page=21`, maintainer)).toMatchObject({
      status: 400,
      body: { error: 'per_page does not have a valid value' },
    })
    expect(await call('GET', `${hooks}/events?status=999`, maintainer)).toMatchObject({
      status: 400,
      body: { error: 'status does not have a valid value' },
    })
    server.travel(49 * 60 * MINUTE)
    await pruneWebhookLogs(contextFor(server, null, server.app.parts.clock()))
    expect((await call('GET', `${hooks}/events`, maintainer)).body).toEqual([])
  })
})

describe('matching', () => {
  const hook = (columns: Partial<WebHookRow>) =>
    ({ type: 'ProjectHook', push_events: 1, push_events_branch_filter: null, branch_filter_strategy: 'wildcard', ...columns }) as WebHookRow
  const push = (branch: string | undefined): HookPayload => ({
    event: 'Push Hook',
    trigger: 'push_events',
    scope: 'project',
    branch,
    body: {},
  })

  test('a branch filter by wildcard, by regular expression, or none (GL ActiveHookFilter)', () => {
    expect(branchFilterMatches(hook({ push_events_branch_filter: 'release/*' }), 'release/1.0')).toBe(true)
    expect(branchFilterMatches(hook({ push_events_branch_filter: 'release/*' }), 'main')).toBe(false)
    expect(branchFilterMatches(hook({ push_events_branch_filter: 'main' }), 'main')).toBe(true)
    expect(branchFilterMatches(hook({ push_events_branch_filter: 'main' }), 'main-2')).toBe(false)
    expect(branchFilterMatches(hook({ push_events_branch_filter: '^fix-\\d+', branch_filter_strategy: 'regex' }), 'fix-12')).toBe(true)
    expect(branchFilterMatches(hook({ push_events_branch_filter: 'fix', branch_filter_strategy: 'regex' }), 'a-fix-b')).toBe(true)
    expect(branchFilterMatches(hook({ push_events_branch_filter: '(', branch_filter_strategy: 'regex' }), '(')).toBe(false)
    expect(branchFilterMatches(hook({ push_events_branch_filter: null, branch_filter_strategy: 'all_branches' }), 'x')).toBe(true)
    expect(hears(hook({ push_events_branch_filter: 'main' }), push('main'))).toBe(true)
    expect(hears(hook({ push_events_branch_filter: 'main' }), push('dev'))).toBe(false)
    expect(hears(hook({ push_events: 0 }), push('main'))).toBe(false)
  })

  test('system hooks hear system events always, and pushes, tag pushes, merge requests and repository updates by switch', () => {
    const system = (columns: Partial<WebHookRow>) => hook({ type: 'SystemHook', push_events: 0, ...columns })
    expect(hears(system({}), { event: 'System Hook', trigger: 'system', scope: 'system', body: {} })).toBe(true)
    expect(hears(hook({}), { event: 'System Hook', trigger: 'system', scope: 'system', body: {} })).toBe(false)
    expect(hears(system({}), push('main'))).toBe(false)
    expect(hears(system({ push_events: 1 }), push('main'))).toBe(true)
    expect(hears(system({ issues_events: 1 } as Partial<WebHookRow>), issuePayload)).toBe(false)
    expect(hears(system({ merge_requests_events: 1 }), { ...issuePayload, trigger: 'merge_requests_events' })).toBe(true)
  })
})
