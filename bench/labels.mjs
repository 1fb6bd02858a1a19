// Label list with counts: GET /projects/:id/labels?with_counts=true over 50 labels on 10,000 issues (and 1,000
// merge requests), as a Reporter of the project, against a bare node:http server replaying the same bytes in the
// same run; plus svc's peak RSS. Prints figures only.
// Run alone with `node bench/labels.mjs` after `npm run build`, or through `npm run bench` (bench/run.mjs).
import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { format, memory, recording, request, root, startBare, startSvc, stop, svcEnv } from './common.mjs'

const autocannon = path.join(root, 'node_modules/autocannon/autocannon.js')
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10)
const LABELS = 50
const ISSUES = 10_000
const MERGE_REQUESTS = 1_000

/** A Reporter with a token, a group and its project with 50 labels (10 of them the group's), 10,000 issues with two labels each, 1,000 merge requests. */
function seed(dataDir, userToken) {
  const Database = createRequire(import.meta.url)(path.join(root, 'node_modules/better-sqlite3'))
  const db = new Database(path.join(dataDir, 'svc.sqlite3'))
  const at = new Date().toISOString()
  let projectId
  db.transaction(() => {
    const user = db
      .prepare("insert into users (username, email, name, created_at, updated_at) values ('bench', 'bench@example.com', 'Bench', ?, ?)")
      .run(at, at).lastInsertRowid
    db.prepare(
      "insert into personal_access_tokens (user_id, name, token_digest, scopes, created_at, updated_at) values (?, 'bench', ?, '[\"api\"]', ?, ?)",
    ).run(user, createHash('sha256').update(userToken).digest('hex'), at, at)
    const group = db
      .prepare(
        "insert into namespaces (kind, name, path, full_path, full_name, visibility_level, created_at, updated_at) values ('group', 'Team', 'team', 'team', 'Team', 0, ?, ?)",
      )
      .run(at, at).lastInsertRowid
    db.prepare('update namespaces set traversal_ids = ? where id = ?').run(`${group}/`, group)
    projectId = db
      .prepare(
        "insert into projects (namespace_id, name, path, full_path, full_name, description, visibility_level, creator_id, last_activity_at, created_at, updated_at) values (?, 'App', 'app', 'team/app', 'Team / App', 'A project', 0, ?, ?, ?, ?)",
      )
      .run(group, user, at, at, at).lastInsertRowid
    db.prepare('insert into members (user_id, project_id, access_level, created_at, updated_at) values (?, ?, 20, ?, ?)').run(
      user,
      projectId,
      at,
      at,
    )
    const label = db.prepare(
      'insert into labels (title, color, description, project_id, group_id, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)',
    )
    const labelIds = []
    for (let n = 0; n < LABELS; n++) {
      const own = n >= 10
      const color = `#${((n * 0x51f3a7) & 0xffffff).toString(16).padStart(6, '0')}`
      labelIds.push(
        label.run(`label-${String(n).padStart(2, '0')}`, color, `Label number ${n}`, own ? projectId : null, own ? null : group, at, at)
          .lastInsertRowid,
      )
    }
    db.prepare("insert into internal_ids (project_id, usage, last_value) values (?, 'issues', ?)").run(projectId, ISSUES)
    const issue = db.prepare(
      'insert into issues (project_id, iid, author_id, title, state, confidential, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)',
    )
    const issueLabel = db.prepare('insert into issue_labels (issue_id, label_id) values (?, ?)')
    for (let n = 1; n <= ISSUES; n++) {
      const id = issue.run(projectId, n, user, `Issue ${n}`, n % 3 ? 'opened' : 'closed', n % 50 === 0 ? 1 : 0, at, at).lastInsertRowid
      issueLabel.run(id, labelIds[n % LABELS])
      issueLabel.run(id, labelIds[(n * 7 + 1) % LABELS === n % LABELS ? (n + 1) % LABELS : (n * 7 + 1) % LABELS])
    }
    const mergeRequest = db.prepare(
      "insert into merge_requests (project_id, iid, author_id, title, state, source_branch, target_branch, created_at, updated_at) values (?, ?, ?, ?, ?, ?, 'main', ?, ?)",
    )
    const mergeRequestLabel = db.prepare('insert into merge_request_labels (merge_request_id, label_id) values (?, ?)')
    for (let n = 1; n <= MERGE_REQUESTS; n++) {
      const id = mergeRequest.run(projectId, n, user, `MR ${n}`, n % 4 ? 'opened' : 'merged', `feature-${n}`, at, at).lastInsertRowid
      mergeRequestLabel.run(id, labelIds[n % LABELS])
    }
  })()
  db.close()
  return projectId
}

async function load(port, urlPath, headers) {
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}=${value}`])
  const args = [autocannon, '--json', '-c', String(connections), '-d', String(seconds), ...headerArgs, `http://127.0.0.1:${port}${urlPath}`]
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 16 * 1024 * 1024, timeout: (seconds + 30) * 1000 })
  const result = JSON.parse(stdout)
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx }
}

export async function benchLabels() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-labels-'))
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-labels-replay-'))
  const userToken = `bench-labels-${randomBytes(16).toString('hex')}`
  const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: `bench-root-${randomBytes(16).toString('hex')}` })
  // BENCH_LABELS_PROFILE=<dir>: svc writes a CPU profile there on exit.
  const nodeArgs = process.env.BENCH_LABELS_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_LABELS_PROFILE}`] : []
  let svc = null
  let bare = null
  try {
    await stop((await startSvc(env)).child)
    const projectId = seed(dataDir, userToken)
    svc = (await startSvc(env, { nodeArgs })).child
    const urlPath = `/api/v4/projects/${projectId}/labels?with_counts=true&per_page=${LABELS}`
    const headers = { 'PRIVATE-TOKEN': userToken }
    const response = await request(Number(env.SVC_PORT), 'GET', urlPath, { headers })
    const labels = JSON.parse(response.body)
    const issuesCounted = Array.isArray(labels)
      ? labels.reduce((sum, label) => sum + label.open_issues_count + label.closed_issues_count, 0)
      : NaN
    const recordingFile = path.join(workDir, 'responses.json')
    fs.writeFileSync(recordingFile, JSON.stringify({ [`GET ${urlPath}`]: recording(response) }))
    const started = await startBare(recordingFile)
    bare = started.child
    const barePort = started.port
    // Warm-up, then the measured run.
    await load(Number(env.SVC_PORT), urlPath, headers)
    const measured = await load(Number(env.SVC_PORT), urlPath, headers)
    const baseline = await load(barePort, urlPath, headers)
    console.log(
      `\nlabels with counts: GET /projects/:id/labels?with_counts=true&per_page=${LABELS}, ${LABELS} labels, ${ISSUES} issues, ${MERGE_REQUESTS} merge requests, as a Reporter`,
    )
    console.log(
      `  status ${response.status}, ${Buffer.byteLength(response.body)} bytes, ${Array.isArray(labels) ? labels.length : '-'} labels, ${issuesCounted} issue-label links counted`,
    )
    console.log(
      `  svc ${format(measured.rps)} req/s (p50 ${format(measured.p50)} ms, p99 ${format(measured.p99)} ms), bare ${format(baseline.rps)} req/s: ` +
        `svc/bare ${format(measured.rps / baseline.rps, 2)}x (target >= 0.3x); svc peak RSS ${format(memory(svc.pid, 'VmHWM'), 1)} MB` +
        `${measured.non2xx ? `; ${measured.non2xx} non-2xx` : ''}`,
    )
  } catch (error) {
    console.log(`labels bench could not finish: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    if (svc) await stop(svc)
    if (bare) await stop(bare)
    fs.rmSync(dataDir, { recursive: true, force: true })
    fs.rmSync(workDir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchLabels()
