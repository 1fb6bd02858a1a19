import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Db } from '../../../db/index.js'
import { contextFor } from '../../../testing/context.js'
import { createTestGroup, createTestProject } from '../../../testing/factories.js'
import { startTestServer, type TestServer } from '../../../testing/server.js'
import { createTestAlertIntegration } from '../testing.js'
import type { AlertSubmission } from './batch.js'
import { parseGeneric } from './parsers/index.js'
import { createAlertIngestQueue } from './queue.js'

let server: TestServer
let db: Db
const log = { info() {}, warn() {}, error() {}, debug() {} }

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
})
afterAll(() => server.close())

async function projectWithIntegration() {
  const group = await createTestGroup(db, { visibility: 'private' })
  const project = await createTestProject(db, { namespace: group, visibility: 'private' })
  const integration = await createTestAlertIntegration(db, project.id, 'k', { name: 'Q' })
  return { project, integrationId: Number(integration.id) }
}

function submission(projectId: number, integrationId: number, payload: Record<string, unknown>): AlertSubmission {
  const alert = parseGeneric(payload, JSON.stringify(payload), { generateFingerprint: false, mappings: [], now: new Date() })
  return {
    projectId,
    integration: { id: integrationId, name: 'Q', createIncident: false, autoCloseIncident: false },
    alerts: [alert],
    kind: 'generic',
    ctx: contextFor(server, null),
  }
}

describe('the group-commit queue', () => {
  test('a submission that fails its batch fails alone; the others are stored', async () => {
    const { project, integrationId } = await projectWithIntegration()
    const queue = createAlertIngestQueue(db, log, () => new Date())
    const outcomes = await Promise.all([
      queue.submit(submission(project.id, integrationId, { title: 'first', fingerprint: 'q1' })),
      queue.submit(submission(2_000_000_000, integrationId, { title: 'no such project' })),
      queue.submit(submission(project.id, integrationId, { title: 'second', fingerprint: 'q2' })),
    ])
    expect(outcomes).toEqual([
      { ok: true, alerts: [{ iid: 1, title: 'first' }] },
      { ok: false },
      { ok: true, alerts: [{ iid: 2, title: 'second' }] },
    ])
  })

  test('two nodes writing the same alerts at once make one alert counting every occurrence', async () => {
    const { project, integrationId } = await projectWithIntegration()
    const nodes = [createAlertIngestQueue(db, log, () => new Date()), createAlertIngestQueue(db, log, () => new Date())]
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        nodes[n % 2].submit(submission(project.id, integrationId, { title: 'race', fingerprint: 'race' })),
      ),
    )
    expect(outcomes.every((o) => o.ok && o.alerts[0].iid === 1)).toBe(true)
    const rows = await db.selectFrom('alerts').select(['iid', 'events']).where('project_id', '=', project.id).execute()
    expect(rows).toEqual([{ iid: 1, events: 40 }])
  })

  test('draining writes what is pending before it returns', async () => {
    const { project, integrationId } = await projectWithIntegration()
    const queue = createAlertIngestQueue(db, log, () => new Date())
    const pending = queue.submit(submission(project.id, integrationId, { title: 'late' }))
    await queue.drain()
    const rows = await db.selectFrom('alerts').select('title').where('project_id', '=', project.id).execute()
    expect(rows).toEqual([{ title: 'late' }])
    expect(await pending).toEqual({ ok: true, alerts: [{ iid: 1, title: 'late' }] })
  })
})
