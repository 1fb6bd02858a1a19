import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { describeFuzzRequest, fuzzRequests, operationsOf, sendFuzzRequest } from '../testing/fuzz.js'
import { client } from '../testing/http.js'
import { createProjectTeam } from '../testing/roles.js'
import { startTestServer, type TestServer } from '../testing/server.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

const RUNS = 1000
const TIMEOUT_MS = 10_000

describe('fuzzing every /api/v4 route from the OpenAPI document', () => {
  test('hostile values from anonymous callers, an outsider and an admin get no 5xx, no hang and no dropped connection', async () => {
    const team = await createProjectTeam(server.database.db, { roles: ['maintainer'] })
    const document = (await client(server.url)('GET', '/api/v4/openapi.json')).body
    const operations = operationsOf(document)
    const failures: string[] = []
    await fc.assert(
      fc.asyncProperty(fuzzRequests(operations, [null, team.outsider.token, server.rootToken]), async (request) => {
        const outcome = await sendFuzzRequest(server.url, request, TIMEOUT_MS)
        if (outcome.kind === 'answered' && outcome.status < 500) return
        failures.push(`${outcome.kind === 'answered' ? outcome.status : outcome.kind}: ${describeFuzzRequest(request)}`)
      }),
      { seed: 20261125, numRuns: RUNS, endOnFailure: false },
    )
    expect(failures).toEqual([])
  }, 120_000)
})
