// Measures svc against a bare node:http server replaying svc's own responses, plus cold start and memory.
// Run with `npm run bench` (builds first). Prints figures only; always exits 0.
import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { format, memory, printTable, recording, request, root, sleep, startBare, startSvc as start, stop, svcEnv } from './common.mjs'
import { benchLabels } from './labels.mjs'
import { benchOAuth } from './oauth.mjs'
import { benchEvents } from './events.mjs'
import { benchForks } from './fork.mjs'
import { benchRepository } from './repository.mjs'
import { benchMergeRequestDiffs } from './merge-request-diffs.mjs'
import { benchPages } from './pages.mjs'
import { benchAlerts } from './alerts.mjs'
import { benchErrors } from './errors.mjs'
import { benchWebhooks } from './webhooks.mjs'
import { benchMail } from './mail.mjs'
import { benchNotifications } from './notifications.mjs'
import { benchLoad } from './load.mjs'
import { benchSoak } from './soak.mjs'
import { benchAllCores, benchPipeline } from './pipeline.mjs'
import { benchBackup } from './backup.mjs'

const autocannon = path.join(root, 'node_modules/autocannon/autocannon.js')
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10)
const token = `bench-${randomBytes(16).toString('hex')}`
// A signed-in user who is no admin, so project reads go through visibility and membership checks.
const userToken = `bench-user-${randomBytes(16).toString('hex')}`
const SMALL = 1_000
const LARGE = 100_000
const keysetPath = (count) => `/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=20&id_after=${count / 2}`
const scenarios = [
  { name: 'GET /api/v4/version', path: '/api/v4/version', headers: { 'PRIVATE-TOKEN': token } },
  { name: 'GET /api/v4/user', path: '/api/v4/user', headers: { 'PRIVATE-TOKEN': token } },
  { name: 'GET /api/v4/projects/:id', path: `/api/v4/projects/${SMALL / 2}`, headers: { 'PRIVATE-TOKEN': userToken } },
  { name: 'GET /api/v4/projects?per_page=20', path: '/api/v4/projects?per_page=20', headers: { 'PRIVATE-TOKEN': userToken } },
  { name: `GET keyset page, ${SMALL} projects`, path: keysetPath(SMALL), headers: { 'PRIVATE-TOKEN': userToken } },
]

/** Fills a migrated SQLite data dir: a non-admin user with a token, and `count` public projects in a group they belong to. */
function seedProjects(dataDir, count) {
  const Database = createRequire(import.meta.url)(path.join(root, 'node_modules/better-sqlite3'))
  const db = new Database(path.join(dataDir, 'svc.sqlite3'))
  const at = new Date().toISOString()
  db.transaction(() => {
    const user = db
      .prepare("insert into users (username, email, name, created_at, updated_at) values ('bench', 'bench@example.com', 'Bench', ?, ?)")
      .run(at, at).lastInsertRowid
    const personal = db
      .prepare(
        "insert into namespaces (kind, name, path, full_path, full_name, owner_id, visibility_level, created_at, updated_at) values ('user', 'Bench', 'bench', 'bench', 'Bench', ?, 20, ?, ?)",
      )
      .run(user, at, at).lastInsertRowid
    db.prepare('update namespaces set traversal_ids = ? where id = ?').run(`${personal}/`, personal)
    db.prepare(
      "insert into personal_access_tokens (user_id, name, token_digest, scopes, created_at, updated_at) values (?, 'bench', ?, '[\"api\"]', ?, ?)",
    ).run(user, createHash('sha256').update(userToken).digest('hex'), at, at)
    const group = db
      .prepare(
        "insert into namespaces (kind, name, path, full_path, full_name, visibility_level, created_at, updated_at) values ('group', 'Team', 'team', 'team', 'Team', 20, ?, ?)",
      )
      .run(at, at).lastInsertRowid
    db.prepare('update namespaces set traversal_ids = ? where id = ?').run(`${group}/`, group)
    db.prepare('insert into members (user_id, namespace_id, access_level, created_at, updated_at) values (?, ?, 30, ?, ?)').run(
      user,
      group,
      at,
      at,
    )
    const project = db.prepare(
      "insert into projects (namespace_id, name, path, full_path, full_name, description, visibility_level, creator_id, last_activity_at, created_at, updated_at) values (?, ?, ?, ?, ?, 'A project', 20, ?, ?, ?, ?)",
    )
    for (let n = 1; n <= count; n++)
      project.run(group, `Project ${n}`, `project-${n}`, `team/project-${n}`, `Team / Project ${n}`, user, at, at, at)
  })()
  db.close()
}
// svc's stderr across every start, printed once (deduplicated) at the end so the figures stay readable.
const svcStderr = new Set()

async function load(port, scenario) {
  const headerArgs = Object.entries(scenario.headers).flatMap(([name, value]) => ['-H', `${name}=${value}`])
  const args = [
    autocannon,
    '--json',
    '-c',
    String(connections),
    '-d',
    String(seconds),
    ...headerArgs,
    `http://127.0.0.1:${port}${scenario.path}`,
  ]
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 16 * 1024 * 1024, timeout: (seconds + 30) * 1000 })
  const result = JSON.parse(stdout)
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors }
}

/** Starts svc and resolves once /-/readiness answers 200, with the time that took; its stderr is kept for the end. */
const startSvc = (env) =>
  start(env, { onStderr: (text) => text.split('\n').forEach((line) => line.trim() && svcStderr.add(line.replace(/^\(node:\d+\) /, ''))) })

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'))
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-replay-'))
  const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: token })
  let svc = null
  let bare = null
  try {
    // First start creates the database, runs migrations and seeds root.
    const first = await startSvc(env)
    console.log(`first start (fresh data dir, migrations): ${format(first.readyMs)} ms to ready`)
    await stop(first.child)
    seedProjects(dataDir, SMALL)

    const coldStarts = []
    for (let attempt = 0; attempt < 3; attempt++) {
      const started = await startSvc(env)
      coldStarts.push(started.readyMs)
      await stop(started.child)
    }
    coldStarts.sort((a, b) => a - b)
    console.log(
      `cold start to ready (existing data dir): median ${format(coldStarts[1])} ms, runs ${coldStarts.map((ms) => format(ms)).join(' / ')} ms (target <= 1000)`,
    )

    ;({ child: svc } = await startSvc(env))
    await sleep(1000)
    const firstRss = memory(svc.pid, 'VmRSS')
    // V8's memory reducer compacts what start-up left half empty after about half a minute idle.
    await sleep(34_000)
    console.log(
      `svc idle RSS after start: ${format(firstRss, 1)} MB at 1 s, ${format(memory(svc.pid, 'VmRSS'), 1)} MB at 35 s (target <= 80)`,
    )

    const recorded = {}
    for (const scenario of scenarios) {
      const response = await request(Number(env.SVC_PORT), 'GET', scenario.path, { headers: scenario.headers })
      recorded[`GET ${scenario.path}`] = recording(response)
      scenario.status = response.status
    }
    const recordingFile = path.join(workDir, 'responses.json')
    fs.writeFileSync(recordingFile, JSON.stringify(recorded))
    const started = await startBare(recordingFile)
    bare = started.child
    const barePort = started.port

    console.log(`\nload: ${connections} connections, ${seconds} s per target, loopback, ${os.cpus().length} CPUs`)
    const columns = [
      'scenario',
      'status',
      'svc req/s',
      'bare req/s',
      'svc/bare',
      'svc p50 ms',
      'svc p99 ms',
      'bare p50 ms',
      'bare p99 ms',
      'svc peak RSS MB',
    ]
    const rows = [columns]
    for (const scenario of scenarios) {
      const measured = await load(Number(env.SVC_PORT), scenario)
      const baseline = await load(barePort, scenario)
      if (measured.errors || baseline.errors)
        console.log(`${scenario.name}: connection errors svc ${measured.errors}, bare ${baseline.errors}`)
      rows.push([
        scenario.name,
        String(scenario.status),
        format(measured.rps),
        format(baseline.rps),
        `${format(measured.rps / baseline.rps, 2)}x`,
        format(measured.p50),
        format(measured.p99),
        format(baseline.p50),
        format(baseline.p99),
        format(memory(svc.pid, 'VmHWM'), 1),
      ])
    }
    printTable(rows)
    console.log(
      '\ntargets: GET /api/v4/user svc/bare >= 0.5x; GET /projects/:id and GET /projects?per_page=20 >= 0.4x; status is what svc answered (and bare replays)',
    )

    // The same keyset page over a hundred times more projects: an index seek, so about the same speed.
    const keysetSmall = await load(Number(env.SVC_PORT), scenarios[4])
    await stop(svc)
    svc = null
    const largeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-large-'))
    try {
      const largeEnv = { ...env, SVC_DATA_DIR: largeDir }
      await stop((await startSvc(largeEnv)).child)
      seedProjects(largeDir, LARGE)
      ;({ child: svc } = await startSvc(largeEnv))
      const keysetLarge = await load(Number(env.SVC_PORT), { ...scenarios[4], path: keysetPath(LARGE) })
      console.log(
        `keyset page of GET /projects: ${format(keysetSmall.rps)} req/s with ${SMALL} projects, ${format(keysetLarge.rps)} req/s with ${LARGE}: ` +
          `${format(keysetSmall.rps / keysetLarge.rps, 2)}x slower (target <= 1.5x; statuses ${keysetSmall.non2xx ? 'not all 2xx' : '2xx'} / ${keysetLarge.non2xx ? 'not all 2xx' : '2xx'})`,
      )
    } finally {
      if (svc) await stop(svc)
      svc = null
      fs.rmSync(largeDir, { recursive: true, force: true })
    }
  } catch (error) {
    console.log(`bench could not finish: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    if (svc) await stop(svc)
    if (bare) await stop(bare)
    fs.rmSync(dataDir, { recursive: true, force: true })
    fs.rmSync(workDir, { recursive: true, force: true })
  }
  // The OAuth token endpoint against oidc-provider, and password-grant latency (bench/oauth.mjs).
  await benchOAuth()
  // Label lists with counts (bench/labels.mjs).
  await benchLabels()
  // Keyset pages of project events over 1,000 and 1,000,000 events (bench/events.mjs).
  await benchEvents()
  // Forks of a ~100 MB repository against git clone, and clone throughput over HTTP (bench/fork.mjs).
  await benchForks()
  // Raw files, raw blobs and tree pages of a 10,000-commit, 20,000-file repository against git cat-file (bench/repository.mjs).
  await benchRepository()
  // One request for the diffs of a 1,000-file merge request, default page and per_page=100 (bench/merge-request-diffs.mjs).
  await benchMergeRequestDiffs()
  // The server time of a project page, a 1,000-entry tree, a 5,000-line file and a 200-comment merge request (bench/pages.mjs).
  await benchPages()
  // Alert ingestion through the webhook against a bare server, and acknowledged alerts surviving kill -9 (bench/alerts.mjs).
  await benchAlerts()
  // Error-tracking envelope ingestion against a bare server, and acknowledged events surviving kill -9 (bench/errors.mjs).
  await benchErrors()
  // Webhook deliveries to a loopback receiver against a bare node:http client (bench/webhooks.mjs).
  await benchWebhooks()
  // Mails queued in one transaction delivered to a local SMTP sink, against nodemailer's pool alone (bench/mail.mjs).
  await benchMail()
  // The e-mails of a new issue that 1,000 members watch, computed and queued in its transaction (bench/notifications.mjs).
  await benchNotifications()
  // svc backup create under light load and svc backup restore, 1,000 projects and 1,000,000 alert events (bench/backup.mjs).
  await benchBackup()
  // The highest rate of an open-loop mixed load that passes, then svc's memory under 80 % of it (bench/load.mjs, bench/soak.mjs).
  try {
    const highest = await benchLoad()
    if (process.env.BENCH_SOAK !== '0') await benchSoak(highest)
  } catch (error) {
    console.log(`load bench could not finish: ${error instanceof Error ? error.message : String(error)}`)
  }
  // The request pipeline on one core against the bare server, then every core against one (bench/pipeline.mjs).
  await benchPipeline()
  await benchAllCores()
  if (svcStderr.size) console.log(`\nsvc stderr:\n${[...svcStderr].map((line) => `  ${line}`).join('\n')}`)
}

await main()
