import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Change } from '../../../core/changes.js'
import { createTestGroup, createTestProject } from '../../../testing/factories.js'
import { contextFor } from '../../../testing/context.js'
import { startTestServer, type TestServer } from '../../../testing/server.js'
import { createTestAlertIntegration } from '../../alerts/testing.js'
import { hookPayloadsOf } from './index.js'

let server: TestServer
const KEY = '0123456789abcdef0123456789abcdef'

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

function payloadsOf(change: Change) {
  return server.database.db.transaction().execute((trx) => hookPayloadsOf(contextFor(server, null), trx, change))
}

async function projectWithIntegration() {
  const db = server.database.db
  const group = await createTestGroup(db, { visibility: 'private' })
  const project = await createTestProject(db, { namespace: group, visibility: 'private' })
  await createTestAlertIntegration(db, project.id, KEY)
  return project
}

describe('a new alert', () => {
  test('is heard by what listens for alert_events, as Gitlab::DataBuilder::Alert builds it; its changes are not', async () => {
    const project = await projectWithIntegration()
    const response = await fetch(`${server.url}/${project.full_path}/alerts/notify.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ title: 'Disk full', severity: 'high', start_time: '2026-11-20T08:21:26.123Z' }),
    })
    expect(response.status).toBe(200)
    const alert = await server.database.db.selectFrom('alerts').selectAll().where('project_id', '=', project.id).executeTakeFirstOrThrow()
    const change: Change = { kind: 'alert', action: 'create', projectId: project.id, alertId: alert.id, at: new Date() }
    expect(await payloadsOf(change)).toEqual([
      {
        event: 'Alert Hook',
        trigger: 'alert_events',
        scope: 'project',
        body: {
          object_kind: 'alert',
          object_attributes: {
            title: 'Disk full',
            url: `${server.url}/${project.full_path}/-/alert_management/1/details`,
            severity: 'high',
            events: 1,
            status: 'triggered',
            // A Time in the hook's data: written by Time#to_s.
            started_at: '2026-11-20 08:21:26 UTC',
          },
        },
      },
    ])
    expect(await payloadsOf({ ...change, action: 'update' })).toEqual([])
  })
})
