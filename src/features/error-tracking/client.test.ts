import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createTestGroup, createTestProject } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let gitlab: InstanceType<typeof Gitlab>

beforeAll(async () => {
  server = await startTestServer()
  gitlab = new Gitlab({ host: server.url, token: server.rootToken })
})
afterAll(() => server.close())

// gitbeaker's ErrorTrackingClientKeys.remove sends DELETE to the collection, without the key id, so the old key is
// deleted over raw HTTP.
test('gitbeaker ErrorTrackingSettings and ErrorTrackingClientKeys: enable, rotate the key', async () => {
  const db = server.database.db
  const project = await createTestProject(db, { namespace: await createTestGroup(db) })
  await expect(gitlab.ErrorTrackingSettings.show(project.id)).rejects.toMatchObject({
    cause: { description: '404 Error Tracking Setting Not Found' },
  })
  const created = await gitlab.ErrorTrackingSettings.create(project.id, true, true)
  expect(created).toMatchObject({ active: true, integrated: true, api_url: null })
  expect(await gitlab.ErrorTrackingSettings.edit(project.id, false)).toMatchObject({ active: false, integrated: true })
  expect(await gitlab.ErrorTrackingSettings.show(project.id)).toMatchObject({ active: false })

  const [first] = await gitlab.ErrorTrackingClientKeys.all(project.id)
  const fresh = await gitlab.ErrorTrackingClientKeys.create(project.id)
  expect(fresh.sentry_dsn).toContain(`${fresh.public_key}@`)
  expect((await gitlab.ErrorTrackingClientKeys.all(project.id)).map((key) => key.id)).toEqual([first.id, fresh.id])
  const response = await fetch(`${server.url}/api/v4/projects/${project.id}/error_tracking/client_keys/${first.id}`, {
    method: 'DELETE',
    headers: { 'private-token': server.rootToken },
  })
  expect(response.status).toBe(200)
  expect((await gitlab.ErrorTrackingClientKeys.all(project.id)).map((key) => key.id)).toEqual([fresh.id])
})
