// GET /projects/:id/events keyset pages over 1,000 and 1,000,000 events: the first page and one deep in the list
// should take about as long with a thousand times more events (an index seek on (project_id, id)). Prints figures only.
// Run alone with `node bench/events.mjs` after `npm run build`, or through `npm run bench` (bench/run.mjs).
import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const SMALL = 1_000
const LARGE = 1_000_000
const ISSUES = 100
const REQUESTS = Number(process.env.BENCH_EVENT_REQUESTS ?? 500)
const WARMUP = 100
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const format = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-')

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('close', () => resolve())
    child.kill('SIGTERM')
  })
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

function get(port, urlPath, headers, agent) {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: urlPath, headers, agent }, (response) => {
      const chunks = []
      response.on('data', (chunk) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks).toString() }))
    })
    request.on('error', reject)
  })
}

async function startSvc(env) {
  const child = spawn(process.execPath, [path.join(root, 'dist/svc.mjs'), 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (data) => (stderr += data))
  const started = performance.now()
  for (;;) {
    if (child.exitCode !== null) throw new Error(`svc exited with code ${child.exitCode}: ${stderr.trim()}`)
    if (performance.now() - started > 60_000) {
      await stop(child)
      throw new Error('svc was not ready within 60 s')
    }
    try {
      if ((await get(Number(env.SVC_PORT), '/-/readiness', {}, false)).status === 200) return child
    } catch {
      // Not listening yet.
    }
    await sleep(5)
  }
}

function memory(pid, field) {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((text) => text.startsWith(`${field}:`))
  return line ? Number(line.split(/\s+/)[1]) / 1024 : NaN
}

/**
 * A non-admin Developer of a group with one public project holding `count` events, written straight into svc's
 * SQLite file: opened issues, comments on them, and members joining, in turn. Answers the project's id.
 */
function seedEvents(dataDir, count, token) {
  const Database = createRequire(import.meta.url)(path.join(root, 'node_modules/better-sqlite3'))
  const db = new Database(path.join(dataDir, 'svc.sqlite3'))
  const at = new Date().toISOString()
  let projectId
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
    ).run(user, createHash('sha256').update(token).digest('hex'), at, at)
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
    projectId = Number(
      db
        .prepare(
          "insert into projects (namespace_id, name, path, full_path, full_name, description, visibility_level, creator_id, last_activity_at, created_at, updated_at) values (?, 'Events', 'events', 'team/events', 'Team / Events', 'A project', 20, ?, ?, ?, ?)",
        )
        .run(group, user, at, at, at).lastInsertRowid,
    )
    const issue = db.prepare('insert into issues (project_id, iid, author_id, title, created_at, updated_at) values (?, ?, ?, ?, ?, ?)')
    const note = db.prepare('insert into notes (project_id, issue_id, author_id, body, created_at, updated_at) values (?, ?, ?, ?, ?, ?)')
    const issueIds = []
    const noteIds = []
    for (let n = 1; n <= ISSUES; n++) {
      const issueId = Number(issue.run(projectId, n, user, `Issue ${n}`, at, at).lastInsertRowid)
      issueIds.push(issueId)
      noteIds.push(Number(note.run(projectId, issueId, user, `Comment on issue ${n}`, at, at).lastInsertRowid))
    }
    const event = db.prepare(
      'insert into events (project_id, author_id, action, target_type, target_id, created_at) values (?, ?, ?, ?, ?, ?)',
    )
    const start = Date.now() - count * 1000
    for (let n = 0; n < count; n++) {
      const created = new Date(start + n * 1000).toISOString()
      if (n % 3 === 0) event.run(projectId, user, 1, 'Issue', issueIds[n % ISSUES], created)
      else if (n % 3 === 1) event.run(projectId, user, 6, 'Note', noteIds[n % ISSUES], created)
      else event.run(projectId, user, 8, null, null, created)
    }
  })()
  db.close()
  return projectId
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

/** Sequential requests on one keep-alive connection: latency of one request at a time, as a client paging through sees it. */
async function measure(port, urlPath, headers) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const latencies = []
  let status = 0
  let events = 0
  for (let n = 0; n < WARMUP + REQUESTS; n++) {
    const sent = performance.now()
    const response = await get(port, urlPath, headers, agent)
    if (n >= WARMUP) latencies.push(performance.now() - sent)
    status = response.status
    if (n === 0) events = JSON.parse(response.body).length
  }
  agent.destroy()
  latencies.sort((a, b) => a - b)
  return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), status, events }
}

/** The cursor a keyset Link carries after the event with this id. */
const cursorAfter = (id) => Buffer.from(JSON.stringify([id, id])).toString('base64url')

async function benchOne(count) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-events-'))
  const token = `bench-user-${randomBytes(16).toString('hex')}`
  const env = {
    ...process.env,
    SVC_HOST: '127.0.0.1',
    SVC_PORT: String(await freePort()),
    SVC_DATA_DIR: dataDir,
    SVC_ROOT_TOKEN: `bench-${randomBytes(16).toString('hex')}`,
    SVC_LOG_LEVEL: 'silent',
  }
  delete env.SVC_DATABASE_URL
  delete env.SVC_REDIS_URL
  delete env.SVC_EXTERNAL_URL
  let svc = null
  try {
    await stop(await startSvc(env))
    const seeding = performance.now()
    const projectId = seedEvents(dataDir, count, token)
    const seededMs = performance.now() - seeding
    svc = await startSvc(env)
    const port = Number(env.SVC_PORT)
    const headers = { 'PRIVATE-TOKEN': token }
    const base = `/api/v4/projects/${projectId}/events?pagination=keyset`
    // The newest event's id is the largest; a deep page starts from the middle of the project's history.
    const first = await measure(port, `${base}&per_page=20`, headers)
    const newest = JSON.parse((await get(port, `${base}&per_page=1`, headers, false)).body)[0].id
    const deep = await measure(port, `${base}&per_page=20&cursor=${cursorAfter(newest - Math.floor(count / 2))}`, headers)
    return { count, seededMs, first, deep, rss: memory(svc.pid, 'VmRSS'), peak: memory(svc.pid, 'VmHWM') }
  } finally {
    if (svc) await stop(svc)
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

export async function benchEvents() {
  console.log(`\nGET /projects/:id/events keyset pages (per_page=20, ${REQUESTS} sequential requests after ${WARMUP} to warm up)`)
  try {
    const small = await benchOne(SMALL)
    const large = await benchOne(LARGE)
    const rows = [
      ['events', 'seeded in s', 'first p50 ms', 'first p99 ms', 'deep p50 ms', 'deep p99 ms', 'status', 'RSS MB', 'peak RSS MB'],
    ]
    for (const run of [small, large]) {
      rows.push([
        String(run.count),
        format(run.seededMs / 1000, 1),
        format(run.first.p50, 2),
        format(run.first.p99, 2),
        format(run.deep.p50, 2),
        format(run.deep.p99, 2),
        `${run.first.status}/${run.deep.status} (${run.first.events}/${run.deep.events} events)`,
        format(run.rss, 1),
        format(run.peak, 1),
      ])
    }
    const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
    for (const row of rows)
      console.log(row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  '))
    console.log(
      `${LARGE} vs ${SMALL} events, p50: first page ${format(large.first.p50 / small.first.p50, 2)}x, deep page ${format(large.deep.p50 / small.deep.p50, 2)}x (target <= 1.5x)`,
    )
  } catch (error) {
    console.log(`events bench could not finish: ${error instanceof Error ? error.message : String(error)}`)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchEvents()
