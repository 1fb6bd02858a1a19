// Alert ingestion through a generic HTTP integration's webhook, on the embedded default (SQLite, fresh data dir):
// - sustained load: many connections posting generic payloads, 90% of them repeats of 1,000 open alerts (their
//   event counters go up) and 10% alerts never seen before, against a bare node:http server answering the same
//   bytes; alerts/s, p50/p99 latency, peak RSS (target >= 5,000 alerts/s);
// - durability: svc killed with -9 mid-load and restarted on the same data dir; every alert it acknowledged with
//   a 200 must be there, with at least as many events as were acknowledged for it.
// Prints figures only. Run alone with `node bench/alerts.mjs` after `npm run build`, or through `npm run bench`.
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, URL } from 'node:url'
import autocannon from 'autocannon'
import { api, format, memory, printTable, recording, request, sleep, startBare, startSvc, stop, svcEnv } from './common.mjs'

const SECONDS = Number(process.env.BENCH_ALERT_SECONDS ?? 10)
const WARMUP_SECONDS = Number(process.env.BENCH_ALERT_WARMUP_SECONDS ?? 3)
const CONNECTIONS = Number(process.env.BENCH_ALERT_CONNECTIONS ?? 100)
const HOT = 1_000
const REPEATS = 0.9
const KILL_AFTER_MS = Number(process.env.BENCH_ALERT_KILL_AFTER_MS ?? 3_000)
// BENCH_ALERT_PROFILE=<dir>: svc writes a CPU profile of the throughput run there.
const PROFILE = process.env.BENCH_ALERT_PROFILE

const sha1 = (text) => createHash('sha1').update(text).digest('hex')

function hotPayload(n) {
  return JSON.stringify({
    title: `Disk almost full on db-${n}`,
    description: 'Less than 5% of the volume is free',
    severity: ['critical', 'high', 'medium', 'low', 'info'][n % 5],
    service: 'postgres',
    monitoring_tool: 'bench',
    hosts: [`db-${n}.example.com`],
    fingerprint: `hot-${n}`,
    start_time: '2026-11-23T10:00:00Z',
  })
}

/** Bodies for autocannon: each request a repeat of one of the 1,000 hot alerts, or (10%) an alert never seen before. */
function mix(run) {
  const hot = Array.from({ length: HOT }, (_, n) => hotPayload(n))
  let fresh = 0
  return () => {
    if (Math.random() < REPEATS) {
      const n = Math.floor(Math.random() * HOT)
      return { body: hot[n], fingerprint: `hot-${n}` }
    }
    fresh += 1
    const fingerprint = `new-${run}-${fresh}`
    return { body: JSON.stringify({ title: `New alert ${fresh}`, severity: 'low', fingerprint }), fingerprint }
  }
}

/**
 * autocannon posting bodies from `next` to `urlPath`; `onAnswer(status, body, fingerprint)` sees every answer.
 * Answers the running instance (its promise resolves with autocannon's result).
 */
function load(port, urlPath, token, next, options, onAnswer) {
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    ...options,
    requests: [
      {
        method: 'POST',
        path: urlPath,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        setupRequest(req, context) {
          const { body, fingerprint } = next()
          context.fingerprint = fingerprint
          return { ...req, body }
        },
        onResponse(status, body, context) {
          if (onAnswer) onAnswer(status, body, context.fingerprint)
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

/** A project and an active HTTP integration through the API; answers the webhook's path and key. */
async function integrationOf(port, rootToken) {
  const project = await api(port, 'POST', '/projects', rootToken, {
    name: 'Alerts bench',
    path: `alerts-bench-${randomBytes(3).toString('hex')}`,
  })
  if (project.status !== 201) throw new Error(`project: ${project.status} ${JSON.stringify(project.body)}`)
  const integration = await api(port, 'POST', `/projects/${project.body.id}/alert_management/http_integrations`, rootToken, {
    type: 'http',
    name: 'Bench',
    active: true,
  })
  if (integration.status !== 201) throw new Error(`integration: ${integration.status} ${JSON.stringify(integration.body)}`)
  return { projectId: project.body.id, path: new URL(integration.body.url).pathname, token: integration.body.token }
}

async function throughput() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-alerts-'))
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-alerts-replay-'))
  const rootToken = `bench-${randomBytes(16).toString('hex')}`
  const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: rootToken })
  const port = Number(env.SVC_PORT)
  let svc = null
  let bare = null
  try {
    ;({ child: svc } = await startSvc(env, { nodeArgs: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : [] }))
    const webhook = await integrationOf(port, rootToken)
    // The 1,000 hot alerts exist before the clock starts; then a warm-up with the measured mix.
    for (let n = 0; n < HOT; n += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, k) =>
          request(port, 'POST', webhook.path, { headers: { authorization: `Bearer ${webhook.token}` }, body: hotPayload(n + k) }),
        ),
      )
    }
    const next = mix('measured')
    await load(port, webhook.path, webhook.token, next, { duration: WARMUP_SECONDS })
    const measured = figures(await load(port, webhook.path, webhook.token, next, { duration: SECONDS }))
    const peak = memory(svc.pid, 'VmHWM')
    const rss = memory(svc.pid, 'VmRSS')

    const sample = await request(port, 'POST', webhook.path, {
      headers: { authorization: `Bearer ${webhook.token}`, 'content-type': 'application/json' },
      body: hotPayload(0),
    })
    const recordingFile = path.join(workDir, 'responses.json')
    fs.writeFileSync(recordingFile, JSON.stringify({ [`POST ${webhook.path}`]: recording(sample) }))
    await stop(svc)
    svc = null
    const started = await startBare(recordingFile)
    bare = started.child
    await load(started.port, webhook.path, webhook.token, mix('bare-warmup'), { duration: 1 })
    const baseline = figures(await load(started.port, webhook.path, webhook.token, mix('bare'), { duration: SECONDS }))

    console.log(
      `\nalert ingestion: POST ${webhook.path.replace(/\/[^/]+\.json$/, '/…json')}, generic payloads, ${CONNECTIONS} connections, ${SECONDS} s ` +
        `after ${WARMUP_SECONDS} s of warm-up; ${Math.round(REPEATS * 100)}% repeats of ${HOT} open alerts, the rest new alerts; ${os.cpus().length} CPUs`,
    )
    printTable([
      ['server', 'status', 'alerts/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'peak RSS MB', 'RSS MB'],
      [
        'svc',
        String(sample.status),
        format(measured.rate),
        format(measured.p50),
        format(measured.p99),
        String(measured.other),
        String(measured.errors),
        format(peak, 1),
        format(rss, 1),
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
    console.log(`svc/bare: ${format(measured.rate / baseline.rate, 2)}x; target >= 5000 alerts/s`)
  } finally {
    if (svc) await stop(svc)
    if (bare) await stop(bare)
    fs.rmSync(dataDir, { recursive: true, force: true })
    fs.rmSync(workDir, { recursive: true, force: true })
  }
}

/** Every alert of the project, through the API. */
async function alertsOf(port, token, projectId) {
  const all = []
  for (let page = 1; ; page++) {
    const response = await api(port, 'GET', `/projects/${projectId}/alert_management/alerts?per_page=100&page=${page}`, token)
    if (response.status !== 200) throw new Error(`alert list: ${response.status} ${JSON.stringify(response.body)}`)
    all.push(...response.body)
    if (response.body.length < 100) return all
  }
}

async function durability() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-alerts-crash-'))
  const rootToken = `bench-${randomBytes(16).toString('hex')}`
  const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: rootToken })
  const port = Number(env.SVC_PORT)
  let svc = null
  try {
    ;({ child: svc } = await startSvc(env))
    const webhook = await integrationOf(port, rootToken)
    // iid -> { title, fingerprint, acks }
    const acknowledged = new Map()
    let mismatched = 0
    const instance = load(port, webhook.path, webhook.token, mix('crash'), { duration: 60 }, (status, body, fingerprint) => {
      if (status !== 200) return
      for (const { iid, title } of JSON.parse(body)) {
        const seen = acknowledged.get(iid)
        if (seen && seen.fingerprint !== fingerprint) mismatched += 1
        acknowledged.set(iid, { title, fingerprint, acks: (seen?.acks ?? 0) + 1 })
      }
    })
    const finished = new Promise((resolve) => instance.then(resolve, resolve))
    await sleep(KILL_AFTER_MS)
    svc.kill('SIGKILL')
    await stop(svc)
    svc = null
    instance.stop()
    await finished
    const acks = [...acknowledged.values()].reduce((sum, alert) => sum + alert.acks, 0)

    ;({ child: svc } = await startSvc(env))
    const present = new Map((await alertsOf(port, rootToken, webhook.projectId)).map((alert) => [alert.iid, alert]))
    let missing = 0
    let wrong = 0
    let fewerEvents = 0
    for (const [iid, ack] of acknowledged) {
      const alert = present.get(iid)
      if (!alert) missing += 1
      else if (alert.title !== ack.title || alert.fingerprint !== sha1(ack.fingerprint)) wrong += 1
      else if (alert.event_count < ack.acks) fewerEvents += 1
    }
    const ok = missing === 0 && wrong === 0 && fewerEvents === 0 && mismatched === 0 && acknowledged.size > 0
    console.log(
      `durability: svc killed with -9 after ${KILL_AFTER_MS} ms of load with ${acks} answers 200 for ${acknowledged.size} alerts; after a restart ` +
        `${acknowledged.size - missing} of them are there, ${wrong} with another title or fingerprint, ${fewerEvents} with fewer events than acknowledged ` +
        `(${present.size} alerts in all): ${ok ? 'PASS' : 'FAIL'}`,
    )
  } finally {
    if (svc) await stop(svc)
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

export async function benchAlerts() {
  try {
    await throughput()
  } catch (error) {
    console.log(`alert ingestion bench could not finish: ${error instanceof Error ? error.message : String(error)}`)
  }
  try {
    await durability()
  } catch (error) {
    console.log(`alert durability check could not finish: ${error instanceof Error ? error.message : String(error)}`)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchAlerts()
