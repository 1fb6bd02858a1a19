import * as Sentry from '@sentry/node'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createTestGroup, createTestProject } from '../../../testing/factories.js'
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

test('@sentry/node reports exceptions, messages and a session to a client key DSN; they are stored grouped', async () => {
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

  const errors = await db.selectFrom('error_tracking_errors').selectAll().where('project_id', '=', project.id).orderBy('id').execute()
  expect(errors.map((e) => [e.name, e.description, e.platform, e.events_count, e.status])).toEqual([
    ['PaymentDeclined', 'card declined for 30', 'node', 3, 0],
    ['Inventory low', 'Inventory low', 'node', 2, 0],
  ])
  // The last frame of the stack trace: where the error was thrown.
  expect(errors[0].actor).toMatch(/^charge\(/)
  const events = await db
    .selectFrom('error_tracking_error_events')
    .select(['error_id', 'description', 'environment', 'level', 'payload'])
    .where('error_id', 'in', [errors[0].id, errors[1].id])
    .orderBy('id')
    .execute()
  expect(events.map((e) => [e.error_id, e.description, e.environment, e.level])).toEqual([
    [errors[0].id, 'card declined for 10', 'staging', 'error'],
    [errors[0].id, 'card declined for 20', 'staging', 'error'],
    [errors[0].id, 'card declined for 30', 'staging', 'error'],
    [errors[1].id, 'Inventory low', 'staging', 'warning'],
    [errors[1].id, 'Inventory low', 'staging', 'warning'],
  ])
  expect(JSON.parse(events[0].payload)).toMatchObject({ release: 'shop@1.0.0', exception: { values: [{ type: 'PaymentDeclined' }] } })
}, 30_000)
