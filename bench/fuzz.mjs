// A long fuzz campaign against the built svc: hostile requests to every route of its OpenAPI document, as an
// anonymous caller, an outsider and an admin (src/testing/fuzz.ts builds them). Run `npm run build` first, then
// `FUZZ_REQUESTS=100000 node bench/fuzz.mjs` (FUZZ_SEED, FUZZ_CONCURRENCY, FUZZ_TIMEOUT_MS and FUZZ_DATABASE_URL change the rest).
// Prints counts of 2xx, 3xx, 4xx and 5xx answers, hangs and dropped connections, then the first failures; exits 0.
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { build } from 'esbuild'
import { api, printTable, request, root, startSvc, stop, svcEnv } from './common.mjs'

// The test's own request builder (src/testing is left out of dist/), bundled with fast-check into one module.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-fuzz-'))
const builder = path.join(scratch, 'fuzz.mjs')
await build({
  entryPoints: [path.join(root, 'src/testing/fuzz.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: builder,
  logLevel: 'warning',
})
const { describeFuzzRequest, fuzzRequests, operationsOf, sampleFuzzRequests, sendFuzzRequest } = await import(builder)

const total = Number(process.env.FUZZ_REQUESTS ?? 10_000)
const seed = Number(process.env.FUZZ_SEED ?? 20261125)
const concurrency = Number(process.env.FUZZ_CONCURRENCY ?? 8)
const timeoutMs = Number(process.env.FUZZ_TIMEOUT_MS ?? 10_000)
const BATCH = 500
const SHOWN = 20

const dataDir = path.join(scratch, 'data')
const rootToken = `fuzz-${randomBytes(16).toString('hex')}`
const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: rootToken, SVC_ROOT_PASSWORD: 'fuzz-root-password' })
// FUZZ_DATABASE_URL runs the campaign on PostgreSQL instead: an empty database the run may fill (svc migrates it).
if (process.env.FUZZ_DATABASE_URL) env.SVC_DATABASE_URL = process.env.FUZZ_DATABASE_URL
const port = Number(env.SVC_PORT)
const { child } = await startSvc(env)
try {
  const outsider = await api(port, 'POST', '/users', rootToken, {
    username: 'outsider',
    email: 'outsider@example.com',
    name: 'Outsider',
    password: 'outsider-password-1234',
    skip_confirmation: true,
  })
  const token = await api(port, 'POST', `/users/${outsider.body.id}/personal_access_tokens`, rootToken, { name: 'fuzz', scopes: ['api'] })
  const document = JSON.parse((await request(port, 'GET', '/api/v4/openapi.json')).body)
  const requests = fuzzRequests(operationsOf(document), [null, token.body.token, rootToken])
  const counts = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, hangs: 0, drops: 0 }
  const failures = []
  const started = performance.now()
  for (let batch = 0; batch * BATCH < total; batch++) {
    const sample = sampleFuzzRequests(requests, seed + batch, Math.min(BATCH, total - batch * BATCH))
    let next = 0
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < sample.length) {
          const fuzz = sample[next++]
          const outcome = await sendFuzzRequest(`http://127.0.0.1:${port}`, fuzz, timeoutMs)
          if (outcome.kind === 'answered') counts[`${Math.floor(outcome.status / 100)}xx`] += 1
          else counts[outcome.kind === 'hang' ? 'hangs' : 'drops'] += 1
          const failed = outcome.kind !== 'answered' || outcome.status >= 500
          if (failed && failures.length < SHOWN)
            failures.push(`${outcome.kind === 'answered' ? outcome.status : outcome.kind} ${describeFuzzRequest(fuzz)}`)
        }
      }),
    )
  }
  const seconds = (performance.now() - started) / 1000
  printTable([
    ['requests', '2xx', '3xx', '4xx', '5xx', 'hangs', 'drops', 'seconds'],
    [total, counts['2xx'], counts['3xx'], counts['4xx'], counts['5xx'], counts.hangs, counts.drops, seconds.toFixed(1)],
  ])
  for (const failure of failures) console.log(failure)
} finally {
  await stop(child)
  fs.rmSync(scratch, { recursive: true, force: true })
}
