import * as Sentry from '@sentry/node'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createTestGroup, createTestProject } from '../../../testing/factories.js'
import { client } from '../../../testing/http.js'
import { startTestServer, type TestServer } from '../../../testing/server.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await Sentry.close()
  await server.close()
})

class PaymentDeclined extends Error {
  override name = 'PaymentDeclined'
}

function charge(amount: number) {
  throw new PaymentDeclined(`card declined for ${amount}`)
}

test('@sentry/node reports exceptions and messages to a client key DSN (and sends a session); they are stored grouped', async () => {
  const db = server.database.db
  const project = await createTestProject(db, { namespace: await createTestGroup(db), visibility: 'private' })
  const at = new Date().toISOString()
  await db
    .insertInto('error_tracking_settings')
    .values({ project_id: project.id, enabled: 1, integrated: 1, created_at: at, updated_at: at })
    .execute()
  const key = 'glet_0123456789abcdef0123456789abcdef'
  await db
    .insertInto('error_tracking_client_keys')
    .values({ project_id: project.id, public_key: key, created_at: at, updated_at: at })
    .execute()
  const dsn = `${server.url.replace('://', `://${key}@`)}/api/v4/error_tracking/collector/${project.id}`

  const failures: string[] = []
  Sentry.init({
    dsn,
    defaultIntegrations: false,
    environment: 'staging',
    release: 'shop@1.0.0',
    beforeSend: (event) => event,
    transportOptions: {},
  })
  Sentry.getClient()?.on('afterSendEvent', (_event, response) => {
    if (response?.statusCode !== 200) failures.push(String(response?.statusCode))
  })
  for (const amount of [10, 20, 30]) {
    try {
      charge(amount)
    } catch (error) {
      Sentry.captureException(error)
    }
  }
  Sentry.captureMessage('Inventory low', 'warning')
  Sentry.captureMessage('Inventory low', 'warning')
  Sentry.startSession()
  Sentry.captureSession(true)
  expect(await Sentry.flush(10_000)).toBe(true)
  expect(failures).toEqual([])

  // The SDK sends each event on its own request: they may arrive in any order.
  const errors = await db.selectFrom('error_tracking_errors').selectAll().where('project_id', '=', project.id).orderBy('name').execute()
  expect(errors.map((e) => [e.name, e.platform, e.events_count, e.status])).toEqual([
    ['Inventory low', 'node', 2, 0],
    ['PaymentDeclined', 'node', 3, 0],
  ])
  expect(errors[0].description).toBe('Inventory low')
  // The last frame of the stack trace: where the error was thrown.
  expect(errors[1].actor).toMatch(/^charge\(/)
  const events = await db
    .selectFrom('error_tracking_error_events')
    .select(['error_id', 'description', 'environment', 'level', 'payload'])
    .where('error_id', 'in', [errors[0].id, errors[1].id])
    .orderBy('id')
    .execute()
  expect(events.map((e) => [e.error_id, e.description, e.environment, e.level]).sort()).toEqual(
    [
      [errors[1].id, 'card declined for 10', 'staging', 'error'],
      [errors[1].id, 'card declined for 20', 'staging', 'error'],
      [errors[1].id, 'card declined for 30', 'staging', 'error'],
      [errors[0].id, 'Inventory low', 'staging', 'warning'],
      [errors[0].id, 'Inventory low', 'staging', 'warning'],
    ].sort(),
  )
  // The error takes the description of its latest event.
  expect(errors[1].description).toBe(events.filter((e) => e.error_id === errors[1].id).at(-1)?.description)
  expect(JSON.parse(events.find((e) => e.error_id === errors[1].id)?.payload ?? '{}')).toMatchObject({
    release: 'shop@1.0.0',
    exception: { values: [{ type: 'PaymentDeclined' }] },
  })
}, 30_000)

test('with settings and a key made through the API, @sentry/node reports show in the error list; deleting the key stops them', async () => {
  const db = server.database.db
  const project = await createTestProject(db, { namespace: await createTestGroup(db), visibility: 'private' })
  const api = client(`${server.url}/api/v4`)
  const token = server.rootToken
  const settings = await api('PUT', `/projects/${project.id}/error_tracking/settings`, { token, body: { active: true, integrated: true } })
  expect(settings.status, settings.text).toBe(200)
  let keys = await api('GET', `/projects/${project.id}/error_tracking/client_keys`, { token })
  if (keys.body.length === 0) await api('POST', `/projects/${project.id}/error_tracking/client_keys`, { token })
  keys = await api('GET', `/projects/${project.id}/error_tracking/client_keys`, { token })
  const key = keys.body[0] as { id: number; public_key: string; sentry_dsn: string }
  // The DSN names this server's external URL; the SDK is pointed at the test server's address with the same key.
  expect(new URL(key.sentry_dsn).username).toBe(key.public_key)
  const dsn = `${server.url.replace('://', `://${key.public_key}@`)}${new URL(key.sentry_dsn).pathname}`

  const statuses: number[] = []
  await Sentry.close()
  Sentry.init({ dsn, defaultIntegrations: false })
  Sentry.getClient()?.on('afterSendEvent', (_event, response) => statuses.push(response?.statusCode ?? 0))
  Sentry.captureException(new RangeError('index 7 out of range'))
  Sentry.captureMessage('Cache cold')
  const longMessage = `Queue ${'backlog '.repeat(40)}growing`
  Sentry.captureMessage(longMessage)
  expect(await Sentry.flush(10_000)).toBe(true)
  expect(statuses).toEqual([200, 200, 200])

  const list = await api('GET', `/projects/${project.id}/error_tracking/errors?sort=frequency`, { token })
  expect(list.status, list.text).toBe(200)
  expect(list.body.map((e: { title: string; count: number; status: string }) => [e.title, e.count, e.status]).sort()).toEqual([
    ['Cache cold', 1, 'unresolved'],
    [`${longMessage.slice(0, 61)}...`, 1, 'unresolved'],
    ['RangeError index 7 out of range', 1, 'unresolved'],
  ])

  const deleted = await api('DELETE', `/projects/${project.id}/error_tracking/client_keys/${key.id}`, { token })
  expect(deleted.status, deleted.text).toBe(200)
  await new Promise((resolve) => setTimeout(resolve, 1100))
  Sentry.captureException(new RangeError('after the key was deleted'))
  expect(await Sentry.flush(10_000)).toBe(true)
  expect(statuses).toEqual([200, 200, 200, 404])
}, 30_000)
