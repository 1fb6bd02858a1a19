// Webhook deliveries on the embedded default (SQLite, fresh data dir, one process): a project hook, then many
// deliveries written as changes write them (a delivery row each and their round's sending job, committed while svc is
// stopped), sent by svc's job worker to a node:http receiver on loopback as soon as it starts. Each delivery is a POST with GitLab's
// headers, its log entry and the hook's failure state written after it. Against a bare node:http client posting the
// same bodies with the same headers, as many at a time as svc sends side by side (32), each on a fresh connection as
// svc's are (target >= 1,000/s).
// Prints figures only. Run alone with `node bench/webhooks.mjs` after `npm run build`, or through `npm run bench`.
import { createRequire } from 'node:module'
import { randomBytes, randomUUID } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { api, format, memory, printTable, root, startSvc, stop, svcEnv } from './common.mjs'

const DELIVERIES = Number(process.env.BENCH_WEBHOOK_DELIVERIES ?? 5_000)
const TIMEOUT_MS = Number(process.env.BENCH_WEBHOOK_TIMEOUT_MS ?? 120_000)
// As many requests in flight as svc sends side by side (features/webhooks/deliveries.ts BATCH_SIZE).
const IN_FLIGHT = 32
// BENCH_WEBHOOK_PROFILE=<dir>: svc writes a CPU profile of the sending run there.
const PROFILE = process.env.BENCH_WEBHOOK_PROFILE

/** An issue event about the size GitLab sends (a few KB). */
function issueBody(n) {
  return JSON.stringify({
    object_kind: 'issue',
    event_type: 'issue',
    user: { id: 1, name: 'Administrator', username: 'root', avatar_url: null, email: '[REDACTED]' },
    project: {
      id: 1,
      name: 'Hooked',
      description: 'A project',
      web_url: 'http://127.0.0.1/root/hooked',
      path_with_namespace: 'root/hooked',
    },
    object_attributes: {
      id: n,
      iid: n,
      title: `Issue ${n}`,
      description: 'Something is broken '.repeat(20),
      state: 'opened',
      action: 'open',
      labels: [{ id: 1, title: 'bug', color: '#dc143c' }],
      created_at: '2026-12-01 10:00:00 UTC',
      updated_at: '2026-12-01 10:00:00 UTC',
    },
    labels: [{ id: 1, title: 'bug', color: '#dc143c' }],
    changes: {},
    repository: { name: 'Hooked', url: 'http://127.0.0.1/root/hooked.git' },
  })
}

/** A receiver answering 200 at once, noting when each request arrived. */
async function startReceiver() {
  const arrivals = []
  const server = http.createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      arrivals.push(performance.now())
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { arrivals, port: server.address().port, close: () => new Promise((resolve) => server.close(resolve)) }
}

/** Deliveries and their jobs, as a change's transaction writes them. */
function seedDeliveries(dataDir, hookId, count) {
  const Database = createRequire(import.meta.url)(path.join(root, 'node_modules/better-sqlite3'))
  const db = new Database(path.join(dataDir, 'svc.sqlite3'))
  const at = new Date().toISOString()
  const delivery = db.prepare(
    "insert into web_hook_deliveries (web_hook_id, trigger, event, payload, idempotency_key, event_uuid, created_at, run_at) values (?, 'issue_hooks', 'Issue Hook', ?, ?, ?, ?, ?)",
  )
  db.transaction(() => {
    for (let n = 1; n <= count; n++) delivery.run(hookId, issueBody(n), randomUUID(), randomUUID(), at, at)
    // The changes of one round share one sending job.
    db.prepare(
      "insert into jobs (kind, payload, max_attempts, run_at, unique_key, created_at, updated_at) values ('webhooks.send', '{}', 5, ?, 'webhooks.send#0', ?, ?)",
    ).run(at, at, at)
  })()
  const logs = () => db.prepare('select count(*) as count from web_hook_logs').get().count
  return { logs, close: () => db.close() }
}

/** One POST of the bare sender, on a fresh connection. */
function barePost(port, n) {
  const body = issueBody(n)
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/hook',
        method: 'POST',
        agent: false,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'GitLab/0.1.0',
          'Idempotency-Key': randomUUID(),
          'X-Gitlab-Event': 'Issue Hook',
          'X-Gitlab-Webhook-UUID': randomUUID(),
          'X-Gitlab-Instance': 'http://127.0.0.1',
          'X-Gitlab-Event-UUID': randomUUID(),
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (response) => {
        response.resume()
        response.on('end', resolve)
      },
    )
    request.on('error', reject)
    request.end(body)
  })
}

/** The bare sender: the same POSTs, IN_FLIGHT at a time; answers posts per second. */
async function bareSend(port, count) {
  const started = performance.now()
  let next = 1
  const lane = async () => {
    while (next <= count) await barePost(port, next++)
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane))
  return (count / (performance.now() - started)) * 1000
}

export async function benchWebhooks() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-webhooks-'))
  const token = `bench-${randomBytes(16).toString('hex')}`
  const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: token })
  const port = Number(env.SVC_PORT)
  const receiver = await startReceiver()
  let svc = null
  try {
    ;({ child: svc } = await startSvc(env))
    const settings = await api(port, 'PUT', '/application/settings', token, { allow_local_requests_from_web_hooks_and_services: true })
    if (settings.status !== 200) throw new Error(`settings: ${settings.status} ${JSON.stringify(settings.body)}`)
    const project = await api(port, 'POST', '/projects', token, { name: 'Hooked', path: 'hooked' })
    if (project.status !== 201) throw new Error(`project: ${project.status} ${JSON.stringify(project.body)}`)
    const hook = await api(port, 'POST', `/projects/${project.body.id}/hooks`, token, {
      url: `http://127.0.0.1:${receiver.port}/hook`,
      token: 'bench-secret',
      issues_events: true,
    })
    if (hook.status !== 201) throw new Error(`hook: ${hook.status} ${JSON.stringify(hook.body)}`)
    await stop(svc)
    svc = null

    const seeded = seedDeliveries(dataDir, hook.body.id, DELIVERIES)
    ;({ child: svc } = await startSvc(env, { nodeArgs: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : [] }))
    const deadline = performance.now() + TIMEOUT_MS
    while (receiver.arrivals.length < DELIVERIES && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    const arrived = receiver.arrivals.length
    const spanMs = receiver.arrivals[arrived - 1] - receiver.arrivals[0]
    const rate = arrived > 1 ? ((arrived - 1) / spanMs) * 1000 : NaN
    // Every request's log entry is written once the request is answered.
    while (seeded.logs() < arrived && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    const logged = seeded.logs()
    const peak = memory(svc.pid, 'VmHWM')
    seeded.close()
    await stop(svc)
    svc = null

    const bare = await bareSend(receiver.port, DELIVERIES)
    console.log(`\nwebhook deliveries: ${DELIVERIES} queued, one worker process, loopback receiver`)
    printTable([
      ['scenario', 'sent', 'logged', 'svc deliveries/s', 'bare posts/s', 'svc/bare', 'svc peak RSS MB'],
      [
        'project hook, issue event',
        String(arrived),
        String(logged),
        format(rate),
        format(bare),
        `${format(rate / bare, 2)}x`,
        format(peak, 1),
      ],
    ])
    console.log('target: >= 1,000 deliveries/s')
  } catch (error) {
    console.log(`webhook bench could not finish: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    if (svc) await stop(svc)
    await receiver.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchWebhooks()
