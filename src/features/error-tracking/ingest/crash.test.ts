import { randomBytes } from 'node:crypto'
import { expect, test } from 'vitest'
import { freePort, freshInstanceEnv, startSvc, waitUntilReady } from '../../../testing/cli.js'
import { client } from '../../../testing/http.js'

const WORKERS = 24
const HOT = 100
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function envelopeOf(name: string) {
  const event = {
    platform: 'node',
    level: 'error',
    exception: { values: [{ type: name, value: 'failed', stacktrace: { frames: [{ function: 'handle', module: 'app' }] } }] },
  }
  return `{}\n{"type":"event"}\n${JSON.stringify(event)}\n`
}

test('a server killed with -9 during concurrent envelope ingestion keeps every event it acknowledged', async () => {
  const { env, open } = await freshInstanceEnv({ migrated: true })
  const port = await freePort()
  const token = `svcpat-${randomBytes(12).toString('hex')}`
  const serverEnv = { ...env, SVC_PORT: String(port), SVC_ROOT_TOKEN: token }
  const url = `http://127.0.0.1:${port}`
  let child = startSvc(serverEnv)
  try {
    await waitUntilReady(url, child)
    const project = await client(url)('POST', '/api/v4/projects', { token, body: { name: 'Errors', path: 'errors' } })
    expect(project.status, project.text).toBe(201)
    const key = `glet_${randomBytes(16).toString('hex')}`
    const setup = await open()
    const at = new Date().toISOString()
    await setup.db
      .insertInto('error_tracking_settings')
      .values({ project_id: project.body.id, enabled: 1, integrated: 1, created_at: at, updated_at: at })
      .execute()
    await setup.db
      .insertInto('error_tracking_client_keys')
      .values({ project_id: project.body.id, public_key: key, created_at: at, updated_at: at })
      .execute()
    await setup.close()
    const envelopeUrl = `${url}/api/v4/error_tracking/collector/api/${project.body.id}/envelope/?sentry_key=${key}`

    // Every worker posts until the server is gone: mostly events of HOT errors, one in five of an error never seen.
    const acknowledged = new Map<string, number>()
    let fresh = 0
    let alive = true
    const worker = async () => {
      while (alive) {
        const name = Math.random() < 0.2 ? `New${(fresh += 1)}` : `Hot${Math.floor(Math.random() * HOT)}`
        let response: Response
        try {
          response = await fetch(envelopeUrl, { method: 'POST', body: envelopeOf(name) })
        } catch {
          alive = false
          return
        }
        await response.arrayBuffer()
        if (response.status === 200) acknowledged.set(name, (acknowledged.get(name) ?? 0) + 1)
      }
    }
    const workers = Array.from({ length: WORKERS }, worker)
    const acks = () => [...acknowledged.values()].reduce((sum, count) => sum + count, 0)
    const deadline = Date.now() + 60_000
    while (acks() < 400 && Date.now() < deadline) await sleep(5)
    expect(acks()).toBeGreaterThanOrEqual(400)
    child.kill('SIGKILL')
    await Promise.all(workers)
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)))

    child = startSvc(serverEnv)
    await waitUntilReady(url, child)
    const check = await open()
    const rows = await check.db
      .selectFrom('error_tracking_errors')
      .select((eb) => [
        'name',
        'events_count',
        eb
          .selectFrom('error_tracking_error_events')
          .select((inner) => inner.fn.countAll<number>().as('n'))
          .whereRef('error_tracking_error_events.error_id', '=', 'error_tracking_errors.id')
          .as('stored'),
      ])
      .where('project_id', '=', project.body.id)
      .execute()
    await check.close()
    const present = new Map(rows.map((row) => [row.name, row]))
    const lost: string[] = []
    for (const [name, count] of acknowledged) {
      const error = present.get(name)
      if (!error) lost.push(`${name} missing`)
      else if (error.events_count < count || Number(error.stored) < count)
        lost.push(`${name} has ${error.events_count} counted and ${error.stored} stored events, ${count} acknowledged`)
      else if (error.events_count !== Number(error.stored)) lost.push(`${name} counts ${error.events_count} of ${error.stored} events`)
    }
    expect(lost).toEqual([])
    expect(acknowledged.size).toBeGreaterThan(HOT / 2)
  } finally {
    child.kill('SIGKILL')
  }
}, 180_000)
