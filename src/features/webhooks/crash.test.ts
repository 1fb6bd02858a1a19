import { randomBytes } from 'node:crypto'
import { expect, test } from 'vitest'
import type { Context } from '../../core/context.js'
import { freePort, freshInstanceEnv, startSvc, waitUntilReady } from '../../testing/cli.js'
import { client } from '../../testing/http.js'
import { recordDeliveries } from './deliveries.js'
import type { HookPayload } from './payloads/index.js'
import { findHookRowById } from './store.js'
import { startReceiver } from './testing.js'

const payload: HookPayload = { event: 'Issue Hook', trigger: 'issues_events', scope: 'project', body: { object_kind: 'issue' } }

test('a server killed with -9 loses no delivery: neither one in flight nor one committed before it could be sent', async () => {
  const { env, open } = await freshInstanceEnv({ migrated: true })
  const port = await freePort()
  const token = `svcpat-${randomBytes(12).toString('hex')}`
  // A short lease: the delivery the killed process held is taken up again a second later.
  const serverEnv = { ...env, SVC_PORT: String(port), SVC_ROOT_TOKEN: token, SVC_JOB_LEASE_MS: '1000' }
  const url = `http://127.0.0.1:${port}`
  const request = (method: string, path: string, body?: unknown) => client(url)(method, `/api/v4${path}`, { token, body })
  const receiver = await startReceiver()
  const database = await open()
  let child = startSvc(serverEnv)
  try {
    await waitUntilReady(url, child)
    expect((await request('PUT', '/application/settings', { allow_local_requests_from_web_hooks_and_services: true })).status).toBe(200)
    const project = await request('POST', '/projects', { name: 'Hooked', path: 'hooked' })
    expect(project.status, project.text).toBe(201)
    const hook = await request('POST', `/projects/${project.body.id}/hooks`, { url: `${receiver.url}/hook`, issues_events: true })
    expect(hook.status, hook.text).toBe(201)
    const row = (await findHookRowById(database.db, hook.body.id))!
    // The test writes deliveries as a change's transaction would, on the same database.
    const ctx = { db: database.db, now: () => new Date() } as unknown as Context
    const record = () => database.db.transaction().execute((trx) => recordDeliveries(ctx, trx, [{ hook: row, payload }]))

    receiver.answer = () => 'hang'
    await record()
    const [inFlight] = await receiver.waitFor(1)
    child.kill('SIGKILL')
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)))
    await record()

    receiver.answer = () => ({ status: 200, body: 'ok' })
    child = startSvc(serverEnv)
    await waitUntilReady(url, child)
    await receiver.waitFor(3, 30_000)
    const keys = receiver.received.map((received) => received.headers['idempotency-key'])
    expect(keys.filter((key) => key === inFlight!.headers['idempotency-key'])).toHaveLength(2)
    expect(new Set(keys).size).toBe(2)
    const deadline = Date.now() + 20_000
    let events = await request('GET', `/projects/${project.body.id}/hooks/${hook.body.id}/events?status=200`)
    while (events.body.length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      events = await request('GET', `/projects/${project.body.id}/hooks/${hook.body.id}/events?status=200`)
    }
    expect(
      events.body.map((event: { request_headers: Record<string, string> }) => event.request_headers['Idempotency-Key']).sort(),
    ).toEqual([...new Set(keys)].sort())
    expect(await database.db.selectFrom('web_hook_deliveries').selectAll().execute()).toEqual([])
  } finally {
    child.kill('SIGKILL')
    await receiver.close()
    await database.close()
  }
}, 120_000)
