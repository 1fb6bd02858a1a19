// Error-tracking ingestion through the collector's envelope endpoint, as SDKs send it, on the embedded default
// (SQLite, fresh data dir):
// - sustained load: many connections posting one-event envelopes, 90% of them new events of 1,000 known errors
//   (their counters go up, each event is stored) and 10% events of errors never seen before, against a bare node:http
//   server answering the same bytes; events/s, p50/p99 latency, RSS at the start, middle and end of the run (steady
//   memory) and the peak (target >= 5,000 events/s);
// - durability: svc killed with -9 mid-load and restarted on the same data dir; every event it acknowledged with a
//   200 must be there: its error with at least as many events as were acknowledged for it.
// Prints figures only. Run alone with `node bench/errors.mjs` after `npm run build`, or through `npm run bench`.
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { api, format, memory, printTable, recording, request, root, sleep, startBare, startSvc, stop, svcEnv } from './common.mjs'

const SECONDS = Number(process.env.BENCH_ERROR_SECONDS ?? 10)
const WARMUP_SECONDS = Number(process.env.BENCH_ERROR_WARMUP_SECONDS ?? 3)
const CONNECTIONS = Number(process.env.BENCH_ERROR_CONNECTIONS ?? 100)
const HOT = 1_000
const REPEATS = 0.9
const KILL_AFTER_MS = Number(process.env.BENCH_ERROR_KILL_AFTER_MS ?? 3_000)
// BENCH_ERROR_PROFILE=<dir>: svc writes a CPU profile of the throughput run there.
const PROFILE = process.env.BENCH_ERROR_PROFILE

const Database = createRequire(import.meta.url)(path.join(root, 'node_modules/better-sqlite3'))

/** An envelope with one exception event of error `name`, as @sentry/node sends it. */
function envelopeOf(name, n) {
  const eventId = randomBytes(16).toString('hex')
  const event = {
    event_id: eventId,
    level: 'error',
    platform: 'node',
    environment: 'production',
    release: 'shop@1.4.2',
    server_name: 'web-1',
    timestamp: Date.now() / 1000,
    exception: {
      values: [
        {
          type: name,
          value: `Request ${n} failed: connection reset by peer`,
          stacktrace: {
            frames: [
              {
                filename: 'node:internal/process/task_queues',
                module: 'task_queues',
                function: 'process.processTicksAndRejections',
                lineno: 95,
                in_app: false,
              },
              { filename: '/app/src/orders.js', module: 'orders', function: 'OrderService.create', lineno: 120, colno: 11, in_app: true },
              { filename: '/app/src/payments.js', module: 'payments', function: 'charge', lineno: 42, colno: 9, in_app: true },
            ],
          },
          mechanism: { type: 'generic', handled: true },
        },
      ],
    },
    contexts: {
      runtime: { name: 'node', version: 'v20.19.0' },
      trace: { trace_id: randomBytes(16).toString('hex'), span_id: randomBytes(8).toString('hex') },
    },
    sdk: { name: 'sentry.javascript.node', version: '11.12.0', integrations: [] },
  }
  const header = JSON.stringify({
    event_id: eventId,
    sent_at: new Date().toISOString(),
    sdk: { name: 'sentry.javascript.node', version: '11.12.0' },
  })
  return `${header}\n{"type":"event"}\n${JSON.stringify(event)}\n`
}

/** Bodies for autocannon: each request an event of one of the 1,000 hot errors, or (10%) of an error never seen before. */
function mix(run) {
  let fresh = 0
  // Bodies of the hot errors made once: the load generator shares the CPUs with svc.
  const hot = Array.from({ length: HOT }, (_, n) => envelopeOf(`HotError${n}`, n))
  return () => {
    if (Math.random() < REPEATS) {
      const n = Math.floor(Math.random() * HOT)
      return { body: hot[n], name: `HotError${n}` }
    }
    fresh += 1
    const name = `NewError-${run}-${fresh}`
    return { body: envelopeOf(name, fresh), name }
  }
}

function load(port, urlPath, key, next, options, onAnswer) {
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    ...options,
    requests: [
      {
        method: 'POST',
        path: urlPath,
        headers: { 'x-sentry-auth': `Sentry sentry_version=7, sentry_client=bench/1.0, sentry_key=${key}` },
        setupRequest(req, context) {
          const { body, name } = next()
          context.name = name
          return { ...req, body }
        },
        onResponse(status, _body, context) {
          if (onAnswer) onAnswer(status, context.name)
        },
      },
    ],
  })
}

const figures = (result) => ({
  ok: result['2xx'],
  rate: result['2xx'] / (result.duration || SECONDS),
  p50: result.latency.p50,
  p99: result.latency.p99,
  other: result.non2xx,
  errors: result.errors + result.timeouts,
})

/**
 * A project with integrated error tracking and a client key: through the REST API where svc has it, else written
 * into the database directly. Answers the envelope path and the key.
 */
async function collectorOf(port, rootToken, dataDir) {
  const project = await api(port, 'POST', '/projects', rootToken, {
    name: 'Errors bench',
    path: `errors-bench-${randomBytes(3).toString('hex')}`,
  })
  if (project.status !== 201) throw new Error(`project: ${project.status} ${JSON.stringify(project.body)}`)
  const id = project.body.id
  const path = `/api/v4/error_tracking/collector/api/${id}/envelope/`
  const settings = await api(port, 'PUT', `/projects/${id}/error_tracking/settings`, rootToken, { active: true, integrated: true })
  if (settings.status === 200) {
    const keys = await api(port, 'GET', `/projects/${id}/error_tracking/client_keys`, rootToken)
    let key = keys.status === 200 ? keys.body.find((k) => k.active)?.public_key : undefined
    if (!key) {
      const created = await api(port, 'POST', `/projects/${id}/error_tracking/client_keys`, rootToken)
      if (created.status !== 201) throw new Error(`client key: ${created.status} ${JSON.stringify(created.body)}`)
      key = created.body.public_key
    }
    return { projectId: id, path, key }
  }
  const key = `glet_${randomBytes(16).toString('hex')}`
  const db = new Database(`${dataDir}/svc.sqlite3`)
  try {
    db.pragma('busy_timeout = 5000')
    const at = new Date().toISOString()
    db.prepare('insert into error_tracking_settings (project_id, enabled, integrated, created_at, updated_at) values (?, 1, 1, ?, ?)').run(
      id,
      at,
      at,
    )
    db.prepare(
      'insert into error_tracking_client_keys (project_id, active, public_key, created_at, updated_at) values (?, 1, ?, ?, ?)',
    ).run(id, key, at, at)
  } finally {
    db.close()
  }
  return { projectId: id, path, key }
}

async function throughput() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-errors-'))
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-errors-replay-'))
  const rootToken = `bench-${randomBytes(16).toString('hex')}`
  const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: rootToken })
  const port = Number(env.SVC_PORT)
  let svc = null
  let bare = null
  try {
    ;({ child: svc } = await startSvc(env, { nodeArgs: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : [] }))
    const collector = await collectorOf(port, rootToken, dataDir)
    const auth = { 'x-sentry-auth': `Sentry sentry_key=${collector.key}` }
    // The 1,000 hot errors exist before the clock starts; then a warm-up with the measured mix.
    for (let n = 0; n < HOT; n += 50) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, k) =>
          request(port, 'POST', collector.path, { headers: auth, body: envelopeOf(`HotError${n + k}`, n + k) }),
        ),
      )
      if (answers.some((answer) => answer.status !== 200)) throw new Error(`envelope: ${answers[0].status} ${answers[0].body}`)
    }
    const next = mix('measured')
    await load(port, collector.path, collector.key, next, { duration: WARMUP_SECONDS })
    const rss = [memory(svc.pid, 'VmRSS')]
    const middle = sleep((SECONDS * 1000) / 2).then(() => rss.push(memory(svc.pid, 'VmRSS')))
    const measured = figures(await load(port, collector.path, collector.key, next, { duration: SECONDS }))
    await middle
    rss.push(memory(svc.pid, 'VmRSS'))
    const peak = memory(svc.pid, 'VmHWM')

    const sample = await request(port, 'POST', collector.path, { headers: auth, body: envelopeOf('HotError0', 0) })
    const recordingFile = path.join(workDir, 'responses.json')
    fs.writeFileSync(recordingFile, JSON.stringify({ [`POST ${collector.path}`]: recording(sample) }))
    await stop(svc)
    svc = null
    const started = await startBare(recordingFile)
    bare = started.child
    await load(started.port, collector.path, collector.key, mix('bare-warmup'), { duration: 1 })
    const baseline = figures(await load(started.port, collector.path, collector.key, mix('bare'), { duration: SECONDS }))

    console.log(
      `\nerror-tracking ingestion: POST ${collector.path.replace(/api\/\d+\//, 'api/:id/')}, one-event envelopes, ${CONNECTIONS} connections, ` +
        `${SECONDS} s after ${WARMUP_SECONDS} s of warm-up; ${Math.round(REPEATS * 100)}% events of ${HOT} known errors, the rest new errors; ${os.cpus().length} CPUs`,
    )
    printTable([
      ['server', 'status', 'events/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'RSS start/mid/end MB', 'peak RSS MB'],
      [
        'svc',
        String(sample.status),
        format(measured.rate),
        format(measured.p50),
        format(measured.p99),
        String(measured.other),
        String(measured.errors),
        rss.map((mb) => format(mb)).join('/'),
        format(peak, 1),
      ],
      [
        'bare node:http',
        String(sample.status),
        format(baseline.rate),
        format(baseline.p50),
        format(baseline.p99),
        String(baseline.other),
        String(baseline.errors),
        '-',
        '-',
      ],
    ])
    console.log(`svc/bare: ${format(measured.rate / baseline.rate, 2)}x; target >= 5000 events/s`)
  } finally {
    if (svc) await stop(svc)
    if (bare) await stop(bare)
    fs.rmSync(dataDir, { recursive: true, force: true })
    fs.rmSync(workDir, { recursive: true, force: true })
  }
}

async function durability() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-errors-crash-'))
  const rootToken = `bench-${randomBytes(16).toString('hex')}`
  const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: rootToken })
  const port = Number(env.SVC_PORT)
  let svc = null
  try {
    ;({ child: svc } = await startSvc(env))
    const collector = await collectorOf(port, rootToken, dataDir)
    // error name -> events acknowledged
    const acknowledged = new Map()
    const instance = load(port, collector.path, collector.key, mix('crash'), { duration: 60 }, (status, name) => {
      if (status === 200) acknowledged.set(name, (acknowledged.get(name) ?? 0) + 1)
    })
    const finished = new Promise((resolve) => instance.then(resolve, resolve))
    await sleep(KILL_AFTER_MS)
    svc.kill('SIGKILL')
    await stop(svc)
    svc = null
    instance.stop()
    await finished
    const acks = [...acknowledged.values()].reduce((sum, count) => sum + count, 0)

    ;({ child: svc } = await startSvc(env))
    const db = new Database(`${dataDir}/svc.sqlite3`, { readonly: true })
    let present
    try {
      present = new Map(
        db
          .prepare(
            `select e.name, e.events_count, (select count(*) from error_tracking_error_events v where v.error_id = e.id) as stored
             from error_tracking_errors e where e.project_id = ?`,
          )
          .all(collector.projectId)
          .map((row) => [row.name, row]),
      )
    } finally {
      db.close()
    }
    let missing = 0
    let fewer = 0
    for (const [name, count] of acknowledged) {
      const error = present.get(name)
      if (!error) missing += 1
      else if (error.events_count < count || error.stored < count) fewer += 1
    }
    const ok = missing === 0 && fewer === 0 && acknowledged.size > 0
    console.log(
      `durability: svc killed with -9 after ${KILL_AFTER_MS} ms of load with ${acks} events answered 200 for ${acknowledged.size} errors; after a restart ` +
        `${acknowledged.size - missing} of those errors are there, ${fewer} with fewer events than acknowledged (${present.size} errors in all): ${ok ? 'PASS' : 'FAIL'}`,
    )
  } finally {
    if (svc) await stop(svc)
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

export async function benchErrors() {
  try {
    await throughput()
  } catch (error) {
    console.log(`error-tracking ingestion bench could not finish: ${error instanceof Error ? error.message : String(error)}`)
  }
  try {
    await durability()
  } catch (error) {
    console.log(`error-tracking durability check could not finish: ${error instanceof Error ? error.message : String(error)}`)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchErrors()
