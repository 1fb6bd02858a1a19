import { Type } from '@sinclair/typebox'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { openDatabase, type DatabaseHandle } from '../db/index.js'
import { contextFor } from '../testing/context.js'
import { startTestServer, type TestServer } from '../testing/server.js'
import { defineJob, every, handle, JobScheduler, JobWorker } from './index.js'

let server: TestServer
let otherNode: DatabaseHandle

beforeAll(async () => {
  server = await startTestServer()
  otherNode = await openDatabase(server.config)
})
afterAll(async () => {
  await otherNode.close()
  await server.close()
})

const db = () => server.database.db
const MINUTE = 60_000

function jobsOf(kind: string) {
  return db().selectFrom('jobs').select(['unique_key', 'run_at', 'state']).where('kind', '=', kind).orderBy('id').execute()
}

describe('periodic jobs', () => {
  test('two nodes schedule one job per slot', async () => {
    const Sweep = defineJob('test.sweep', Type.Object({}))
    const nodes = [new JobScheduler(db(), [every(10 * MINUTE, Sweep, {})]), new JobScheduler(otherNode.db, [every(10 * MINUTE, Sweep, {})])]
    const slot = 2_900_000
    const at = (minutes: number) => new Date(slot * 10 * MINUTE + minutes * MINUTE)
    expect(await Promise.all(nodes.map((node) => node.tick(at(1))))).toEqual(expect.arrayContaining([0, 1]))
    expect(await nodes[0]!.tick(at(2))).toBe(0)
    expect(await nodes[1]!.tick(at(9))).toBe(0)
    expect(await jobsOf(Sweep.kind)).toEqual([{ unique_key: `test.sweep@${slot}`, run_at: at(0).toISOString(), state: 'queued' }])
    // The next slot: whichever node ticks first enqueues it.
    expect(await nodes[1]!.tick(at(10))).toBe(1)
    expect(await nodes[0]!.tick(at(11))).toBe(0)
    expect((await jobsOf(Sweep.kind)).map((job) => job.unique_key)).toEqual([`test.sweep@${slot}`, `test.sweep@${slot + 1}`])
  })

  test('workers on two nodes schedule and run a periodic job once per slot', async () => {
    const Tidy = defineJob('test.tidy', Type.Object({ scope: Type.String() }))
    const runs: string[] = []
    let now = new Date('2030-01-01T00:00:30.000Z')
    const workers = [db(), otherNode.db].map(
      (database, n) =>
        new JobWorker({
          db: database,
          handlers: [handle(Tidy, async (_ctx, payload) => void runs.push(`${payload.scope} by ${n}`))],
          periodic: [every(MINUTE, Tidy, { scope: 'all' })],
          context: () => contextFor(server, null),
          clock: () => now,
        }),
    )
    await Promise.all(workers.map((worker) => worker.drain()))
    expect(runs).toHaveLength(1)
    now = new Date('2030-01-01T00:00:59.999Z')
    await Promise.all(workers.map((worker) => worker.drain()))
    expect(runs).toHaveLength(1)
    now = new Date('2030-01-01T00:01:00.000Z')
    await Promise.all(workers.map((worker) => worker.drain()))
    expect(runs).toHaveLength(2)
    expect(runs.every((run) => run.startsWith('all by '))).toBe(true)
    expect((await jobsOf(Tidy.kind)).map((job) => job.state)).toEqual(['done', 'done'])
  })
})
