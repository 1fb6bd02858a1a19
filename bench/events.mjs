// GET /projects/:id/events keyset pages over 1,000 and 1,000,000 events: the first page and one deep in the list
// should take about as long with a thousand times more events (an index seek on (project_id, id)). Prints figures only.
// Run alone with `node bench/events.mjs` after `npm run build`, or through `npm run bench` (bench/run.mjs).
import { createHash, randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { format, memory, percentile, printTable, request, root, startSvc, stop, svcEnv } from './common.mjs'

const SMALL = 1_000
const LARGE = 1_000_000
const ISSUES = 100
const REQUESTS = Number(process.env.BENCH_EVENT_REQUESTS ?? 500)
const WARMUP = 100

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

/** Sequential requests on one keep-alive connection: latency of one request at a time, as a client paging through sees it. */
async function measure(port, urlPath, headers) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const latencies = []
  let status = 0
  let events = 0
  for (let n = 0; n < WARMUP + REQUESTS; n++) {
    const sent = performance.now()
    const response = await request(port, 'GET', urlPath, { headers, agent })
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
  const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: `bench-${randomBytes(16).toString('hex')}` })
  let svc = null
  try {
    await stop((await startSvc(env)).child)
    const seeding = performance.now()
    const projectId = seedEvents(dataDir, count, token)
    const seededMs = performance.now() - seeding
    svc = (await startSvc(env)).child
    const port = Number(env.SVC_PORT)
    const headers = { 'PRIVATE-TOKEN': token }
    const base = `/api/v4/projects/${projectId}/events?pagination=keyset`
    // The newest event's id is the largest; a deep page starts from the middle of the project's history.
    const first = await measure(port, `${base}&per_page=20`, headers)
    const newest = JSON.parse((await request(port, 'GET', `${base}&per_page=1`, { headers })).body)[0].id
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
    printTable(rows)
    console.log(
      `${LARGE} vs ${SMALL} events, p50: first page ${format(large.first.p50 / small.first.p50, 2)}x, deep page ${format(large.deep.p50 / small.deep.p50, 2)}x (target <= 1.5x)`,
    )
  } catch (error) {
    console.log(`events bench could not finish: ${error instanceof Error ? error.message : String(error)}`)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchEvents()
