import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, expect, test, vi } from 'vitest'
import { freePort, freshInstanceEnv, startSvc, waitUntilReady } from './testing/cli.js'
import { client } from './testing/http.js'

// The built program starts, then its own job worker copies a repository between storages.
vi.setConfig({ testTimeout: 60_000 })

const cleanups: (() => void)[] = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

test("svc serve's job worker reads the settings an administrator changed: a bulk move goes where the storage weights say", async () => {
  const { env } = await freshInstanceEnv()
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-storages-'))
  cleanups.push(() => fs.rmSync(base, { recursive: true, force: true }))
  const port = await freePort()
  const token = 'svcpat-main-jobs-test-token-01'
  const child = startSvc({
    ...env,
    SVC_PORT: String(port),
    SVC_ROOT_TOKEN: token,
    SVC_STORAGES: `default=${path.join(base, 'one')},other=${path.join(base, 'two')}`,
  })
  cleanups.push(() => child.kill('SIGKILL'))
  const url = `http://127.0.0.1:${port}`
  await waitUntilReady(url, child)
  const request = client(url)

  const created = await request('POST', '/api/v4/projects', { token, body: { name: 'Weighed', initialize_with_readme: true } })
  expect(created.status, created.text).toBe(201)
  const project = created.body as { id: number }
  const weights = await request('PUT', '/api/v4/application/settings', {
    token,
    body: { repository_storages_weighted: { default: 0, other: 100 } },
  })
  expect(weights.status, weights.text).toBe(200)
  expect(weights.body.repository_storages_weighted).toEqual({ default: 0, other: 100 })

  // No destination: each move's is picked by the weights, as for a new repository (GL Repository.pick_storage_shard).
  const scheduled = await request('POST', '/api/v4/project_repository_storage_moves', { token, body: { source_storage_name: 'default' } })
  expect(scheduled.status).toBe(202)
  expect(scheduled.text).toBe('{"message":"202 Accepted"}')

  let moves: { state: string; source_storage_name: string; destination_storage_name: string; project: { id: number } }[] = []
  for (let attempt = 0; attempt < 400; attempt++) {
    moves = (await request('GET', '/api/v4/project_repository_storage_moves', { token })).body
    if (moves.length > 0 && ['finished', 'failed', 'cleanup failed'].includes(moves[0].state)) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  expect(moves.map((move) => [move.project.id, move.source_storage_name, move.destination_storage_name, move.state])).toEqual([
    [project.id, 'default', 'other', 'finished'],
  ])
  const shown = await request('GET', `/api/v4/projects/${project.id}`, { token })
  expect(shown.body.repository_storage).toBe('other')
})
