// An open-loop load in the manner of the GitLab Performance Tool: requests leave at a fixed arrival rate whatever svc
// answers, and each latency counts from the request's due time, so a svc (or a generator) that falls behind shows as
// latency. A step search finds the highest rate that passes (p99 <= 250 ms, success >= 99.9 %, achieved >= 99 % of the
// target). Prints figures only. Run alone with `node bench/load.mjs` after `npm run build`; LOAD_SECONDS, LOAD_RATES
// (a comma list) or LOAD_RATE (one rate) and LOAD_WARMUP change the search.
import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { api, format, percentile, printTable, processTree, root, seedTeamProjects, startSvc, stop, svcEnv, treeMemory } from './common.mjs'

const PROJECTS = 400
const LABELS = 20
const EVENTS = 1_000
// Labels the DELETEs can take before the POSTs of the run have made any; POSTs and DELETEs then keep the pool level.
const POOL = 2_000
const TIMEOUT_MS = 10_000
const PASS = { p99: 250, success: 0.999, achieved: 0.99 }
const DEFAULT_RATES = [250, 500, 750, 1000, 1250, 1500, 1750, 2000, 2500, 3000]
const ZERO_SHA = '0'.repeat(40)

const gitEnv = (home) => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Load',
  GIT_AUTHOR_EMAIL: 'load@example.com',
  GIT_COMMITTER_NAME: 'Load',
  GIT_COMMITTER_EMAIL: 'load@example.com',
  LC_ALL: 'C',
})

/** Real `git` with no user configuration; answers its standard output. */
async function git(cwd, ...args) {
  const { stdout } = await promisify(execFile)('git', ['-c', 'credential.helper=', ...args], { cwd, env: gitEnv(cwd) })
  return stdout
}

/**
 * PROJECTS public projects in a group, written straight into svc's SQLite file: the first with LABELS labels and EVENTS
 * events, the second with POOL labels for the DELETEs. Answers both ids and the pool's label ids.
 */
function seed(dataDir) {
  const Database = createRequire(import.meta.url)(path.join(root, 'node_modules/better-sqlite3'))
  const db = new Database(path.join(dataDir, 'svc.sqlite3'))
  const at = new Date().toISOString()
  const ids = []
  const pool = []
  db.transaction(() => {
    ids.push(...seedTeamProjects(db, PROJECTS, at))
    const label = db.prepare('insert into labels (title, color, description, project_id, created_at, updated_at) values (?, ?, ?, ?, ?, ?)')
    for (let n = 0; n < LABELS; n++) label.run(`label-${n}`, '#336699', `Label ${n}`, ids[0], at, at)
    for (let n = 0; n < POOL; n++) pool.push(Number(label.run(`pool-${n}`, '#993366', null, ids[1], at, at).lastInsertRowid))
    const issue = db.prepare('insert into issues (project_id, iid, author_id, title, created_at, updated_at) values (?, ?, 1, ?, ?, ?)')
    const issueIds = []
    for (let n = 1; n <= LABELS; n++) issueIds.push(Number(issue.run(ids[0], n, `Issue ${n}`, at, at).lastInsertRowid))
    const event = db.prepare(
      'insert into events (project_id, author_id, action, target_type, target_id, created_at) values (?, 1, ?, ?, ?, ?)',
    )
    const start = Date.now() - EVENTS * 1000
    for (let n = 0; n < EVENTS; n++) {
      const created = new Date(start + n * 1000).toISOString()
      if (n % 2 === 0) event.run(ids[0], 1, 'Issue', issueIds[n % issueIds.length], created)
      else event.run(ids[0], 8, null, null, created)
    }
  })()
  db.close()
  return { readId: ids[0], writeId: ids[1], pool }
}

/**
 * A fresh SQLite data dir, seeded, with svc running on it and a repository made through the API, holding one commit
 * pushed with the real git client. Answers what the load needs, and `close()`.
 */
export async function startLoadTarget() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-load-'))
  const gitDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-load-git-'))
  const token = `bench-${randomBytes(16).toString('hex')}`
  // svc as it ships: one worker process per core, unless LOAD_WORKERS says otherwise (an empty value is svc's default).
  const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: token, SVC_WORKERS: process.env.LOAD_WORKERS ?? '' })
  const port = Number(env.SVC_PORT)
  let svc = null
  const close = async () => {
    if (svc) {
      // git processes svc started and left running (a push whose caller went away) would outlive it and load the
      // next runs: they are counted and ended.
      const descendants = processTree(svc.pid).slice(1)
      await stop(svc)
      const left = descendants.filter((pid) => {
        try {
          process.kill(pid, 'SIGKILL')
          return true
        } catch {
          return false
        }
      })
      if (left.length) console.log(`${left.length} processes svc started were still running after it stopped (killed)`)
    }
    svc = null
    fs.rmSync(dataDir, { recursive: true, force: true })
    fs.rmSync(gitDir, { recursive: true, force: true })
  }
  try {
    await stop((await startSvc(env)).child)
    const seeded = seed(dataDir)
    ;({ child: svc } = await startSvc(env))
    const created = await api(port, 'POST', '/projects', token, { name: 'Load repo', path: 'load-repo', visibility: 'public' })
    if (created.status !== 201) throw new Error(`creating the repository answered ${created.status}`)
    const repoPath = created.body.path_with_namespace
    const remote = `http://root:${token}@127.0.0.1:${port}/${repoPath}.git`
    await git(gitDir, 'init', '--quiet', '--initial-branch=main')
    fs.writeFileSync(path.join(gitDir, 'README.md'), '# Load\n')
    await git(gitDir, 'add', 'README.md')
    await git(gitDir, 'commit', '--quiet', '-m', 'Initial commit')
    await git(gitDir, 'push', '--quiet', remote, 'HEAD:refs/heads/main')
    const sha = (await git(gitDir, 'rev-parse', 'HEAD')).trim()
    return { svc, port, token, repoPath, remote, sha, gitDir, ...seeded, close }
  } catch (error) {
    await close()
    throw error
  }
}

/** The empty pack a push sends when it only creates refs to objects the remote has: header, no objects, SHA-1 trailer. */
const EMPTY_PACK = (() => {
  const header = Buffer.from([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, 0])
  return Buffer.concat([header, createHash('sha1').update(header).digest()])
})()

/**
 * A receive-pack request creating `ref` at `sha` (one pkt-line command with report-status, a flush, the empty pack), or
 * deleting it from `sha` (a deletion sends no pack).
 */
function pushBody(sha, ref, deleting) {
  const line = deleting ? `${sha} ${ZERO_SHA} ${ref}\0 report-status delete-refs\n` : `${ZERO_SHA} ${sha} ${ref}\0 report-status\n`
  const length = (Buffer.byteLength(line) + 4).toString(16).padStart(4, '0')
  return Buffer.concat([Buffer.from(`${length}${line}0000`), deleting ? Buffer.alloc(0) : EMPTY_PACK])
}

/**
 * The request classes of the load, each with its share of the rate R and the status it must answer. `next(call)`
 * fills in what differs per request (a label's name or id, a branch), kept on the load so that it lasts across runs.
 */
function requestClasses(target, state) {
  const auth = { 'private-token': target.token }
  const basic = { authorization: `Basic ${Buffer.from(`root:${target.token}`).toString('base64')}` }
  const apiShare = 1 / 7
  const read = (name, urlPath) => ({ name, method: 'GET', path: `/api/v4${urlPath}`, headers: auth, share: apiShare, expect: 200 })
  return [
    read('GET /projects/:id', `/projects/${target.readId}`),
    read('GET /projects/:id/labels', `/projects/${target.readId}/labels`),
    read('GET /projects/:id/events', `/projects/${target.readId}/events`),
    read('GET /user', '/user'),
    read('GET /projects?per_page=20', '/projects?per_page=20'),
    {
      name: 'POST /projects/:id/labels',
      method: 'POST',
      path: `/api/v4/projects/${target.writeId}/labels`,
      share: apiShare,
      expect: 201,
      collect: true,
      next(call) {
        const body = `{"name":"load-${state.tag}-${++state.labels}","color":"#336699"}`
        call.body = body
        call.headers = { ...auth, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
      },
      // The new label goes to the pool the DELETEs take from.
      done(call, text) {
        state.pool.push(JSON.parse(text).id)
        return true
      },
    },
    {
      name: 'DELETE /projects/:id/labels/:label_id',
      method: 'DELETE',
      headers: auth,
      share: apiShare,
      expect: 204,
      next(call) {
        call.path = `/api/v4/projects/${target.writeId}/labels/${state.pool.shift() ?? 0}`
      },
    },
    { name: 'GET /users/sign_in', method: 'GET', path: '/users/sign_in', headers: {}, share: 0.1, expect: 200 },
    {
      name: 'git pull (info/refs)',
      method: 'GET',
      path: `/${target.repoPath}.git/info/refs?service=git-upload-pack`,
      headers: basic,
      share: 0.1,
      expect: 200,
    },
    // As the GitLab Performance Tool's push test does, each push is undone by the next one, so the repository keeps its
    // size however long the load runs: a push makes a branch, the next removes a branch whose making was answered.
    {
      name: 'git push (branch made or removed)',
      method: 'POST',
      path: `/${target.repoPath}.git/git-receive-pack`,
      share: state.pushShare,
      expect: 200,
      collect: true,
      next(call) {
        call.deleting = state.made.length > 0
        call.ref = call.deleting ? state.made.shift() : `refs/heads/load-${++state.pushes}`
        call.body = pushBody(target.sha, call.ref, call.deleting)
        call.headers = { ...basic, 'content-type': 'application/x-git-receive-pack-request', 'content-length': call.body.length }
      },
      // report-status answers "ok <ref>" once the ref is made or removed (in a side-band-free answer, inside pkt-lines).
      done(call, text) {
        const ok = (call.deleting || text.includes('unpack ok')) && text.includes(`ok ${call.ref}\n`)
        if (ok && call.deleting) state.removed += 1
        else if (ok) {
          state.pushed += 1
          state.made.push(call.ref)
        }
        return ok
      },
    },
  ]
}

// Shared handlers, with the call on the request and response objects, so that no closure is made per request.
function onResponse(response) {
  const call = this.loadCall
  call.status = response.statusCode
  response.loadCall = call
  response.on('end', onEnd)
  response.on('close', onClose)
  if (call.cls.collect && call.status === call.cls.expect) {
    call.chunks = []
    response.on('data', onData)
  } else response.resume()
}
function onData(chunk) {
  this.loadCall.chunks.push(chunk)
}
function onEnd() {
  finish(this.loadCall, null)
}
function onError(error) {
  finish(this.loadCall, error)
}
// After 'end' this changes nothing; before it, the connection went away mid-answer.
function onClose() {
  finish(this.loadCall, new Error('aborted'))
}

function finish(call, error) {
  if (call.finished) return
  call.finished = true
  const run = call.run
  const now = performance.now()
  run.inflight.delete(call.request)
  run.lastDone = now
  const stats = run.stats[call.index]
  const latency = now - call.due
  stats.latencies.push(latency)
  run.window.push(latency)
  let ok = !error && call.status === call.cls.expect
  if (ok && call.cls.done) {
    try {
      ok = call.cls.done(call, Buffer.concat(call.chunks).toString())
    } catch {
      ok = false
    }
  }
  if (ok) {
    stats.ok += 1
    run.windowOk += 1
    return
  }
  run.windowFailed += 1
  const reason = error ? (error.message === 'timeout' ? 'timeout' : (error.code ?? error.message)) : String(call.status)
  stats.failures.set(reason, (stats.failures.get(reason) ?? 0) + 1)
}

function issue(run, index, due) {
  const cls = run.classes[index]
  const call = {
    run,
    cls,
    index,
    due,
    status: 0,
    finished: false,
    chunks: null,
    request: null,
    path: cls.path,
    headers: cls.headers,
    body: undefined,
  }
  if (cls.next) cls.next(call)
  const lag = performance.now() - due
  if (lag > run.sendLag) run.sendLag = lag
  const outgoing = http.request({
    host: '127.0.0.1',
    port: run.port,
    method: cls.method,
    path: call.path,
    headers: call.headers,
    agent: run.agent,
  })
  call.request = outgoing
  outgoing.loadCall = call
  outgoing.on('response', onResponse)
  outgoing.on('error', onError)
  outgoing.end(call.body)
  run.inflight.add(outgoing)
  run.stats[index].issued += 1
}

/** Per-load state that outlives one run: the label pool, name counters, the connection pool. */
export function createLoad(target) {
  // LOAD_PUSH_SHARE changes the pushes' share of R (0.02: 7 pushes/s at R = 350).
  const pushShare = Number(process.env.LOAD_PUSH_SHARE ?? 0.02)
  const state = {
    tag: randomBytes(3).toString('hex'),
    labels: 0,
    pushes: 0,
    pushed: 0,
    removed: 0,
    made: [],
    pool: [...target.pool],
    pushShare,
  }
  return {
    target,
    state,
    classes: requestClasses(target, state),
    agent: new http.Agent({ keepAlive: true, maxSockets: 512 }),
  }
}

/**
 * Issues the load at `rate` API requests per second (plus the page and git shares) for `seconds`, on a 1 ms timer
 * that sends every request whose due time has passed, then waits for the last answers (at most TIMEOUT_MS).
 * `onSecond(run)` is called about once a second while it runs. Answers the run's figures.
 */
export function runLoad(load, rate, seconds, { onSecond } = {}) {
  const start = performance.now() + 10
  const end = start + seconds * 1000
  const classes = load.classes
  const run = {
    port: load.target.port,
    agent: load.agent,
    classes,
    inflight: new Set(),
    stats: classes.map(() => ({ issued: 0, ok: 0, latencies: [], failures: new Map() })),
    window: [],
    windowOk: 0,
    windowFailed: 0,
    lastDone: start,
    // How late the generator sent its most delayed request, and the CPU it used: a busy generator shows here.
    sendLag: 0,
    cpu: process.cpuUsage(),
  }
  const intervals = classes.map((cls) => 1000 / (rate * cls.share))
  // Offset phases so that the classes do not all fall due on the same tick.
  const next = intervals.map((interval, index) => start + (interval * index) / classes.length)
  let lastSecond = start
  return new Promise((resolve) => {
    const tick = () => {
      const now = performance.now()
      for (let index = 0; index < classes.length; index++) {
        while (next[index] <= now && next[index] < end) {
          issue(run, index, next[index])
          next[index] += intervals[index]
        }
      }
      // In-flight requests are in due order: the oldest time out first.
      for (const outgoing of run.inflight) {
        if (now - outgoing.loadCall.due < TIMEOUT_MS) break
        outgoing.destroy(new Error('timeout'))
      }
      if (onSecond && now - lastSecond >= 1000) {
        lastSecond = now
        onSecond(run)
      }
      if (now >= end && run.inflight.size === 0) resolve(summarize(run, rate, seconds, start))
      else setTimeout(tick, 1)
    }
    setTimeout(tick, 1)
  })
}

/** Latency percentiles of a list, sorted in place. */
function spread(latencies) {
  latencies.sort((a, b) => a - b)
  return {
    p50: percentile(latencies, 0.5),
    p90: percentile(latencies, 0.9),
    p99: percentile(latencies, 0.99),
    max: latencies[latencies.length - 1],
  }
}

function summarize(run, rate, seconds, start) {
  const all = []
  let issued = 0
  let ok = 0
  const failures = new Map()
  const perClass = run.classes.map((cls, index) => {
    const stats = run.stats[index]
    for (const latency of stats.latencies) all.push(latency)
    issued += stats.issued
    ok += stats.ok
    for (const [reason, count] of stats.failures) failures.set(`${reason} ${cls.name}`, count)
    return { name: cls.name, rate: rate * cls.share, issued: stats.issued, ok: stats.ok, ...spread(stats.latencies) }
  })
  const targetRate = rate * run.classes.reduce((sum, cls) => sum + cls.share, 0)
  // Over the run, or until the last answer if svc fell behind.
  const span = Math.max(seconds * 1000, run.lastDone - start) / 1000
  const cpu = process.cpuUsage(run.cpu)
  const result = {
    rate,
    targetRate,
    achieved: ok / span,
    success: issued ? ok / issued : 0,
    issued,
    ok,
    failures,
    perClass,
    ...spread(all),
    generatorCpu: (cpu.user + cpu.system) / 1000 / (span * 1000),
    sendLag: run.sendLag,
  }
  result.passed = result.p99 <= PASS.p99 && result.success >= PASS.success && result.achieved >= PASS.achieved * targetRate
  return result
}

const percent = (fraction) => `${format(fraction * 100, fraction >= 0.9995 ? 1 : 2)} %`

/** Why a run did not pass, or 'pass'. */
function verdict(result) {
  if (result.passed) return 'pass'
  const misses = []
  if (result.p99 > PASS.p99) misses.push('p99')
  if (result.success < PASS.success) misses.push('success')
  if (result.achieved < PASS.achieved * result.targetRate) misses.push('rate')
  return `FAIL (${misses.join(', ')})`
}

export const summaryColumns = [
  'R (API/s)',
  'target/s',
  'achieved/s',
  'success',
  'p50 ms',
  'p90 ms',
  'p99 ms',
  'max ms',
  'svc RSS MB (largest)',
  'svc holds MB',
  'svc processes',
  'generator CPU',
  'max send lag ms',
  '',
]

export function summaryRow(result) {
  return [
    String(result.rate),
    format(result.targetRate),
    format(result.achieved),
    percent(result.success),
    format(result.p50, 1),
    format(result.p90, 1),
    format(result.p99, 1),
    format(result.max),
    `${format(result.rss.total)} (${format(result.rss.largest)})`,
    format(result.rss.held),
    String(result.rss.processes),
    `${format(result.generatorCpu * 100)} %`,
    format(result.sendLag, 1),
    verdict(result),
  ]
}

/** The per-class table of a run, and its failures by kind. */
export function printClasses(result) {
  const rows = [['request', 'rate/s', 'issued', 'ok', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms']]
  for (const row of result.perClass)
    rows.push([
      row.name,
      format(row.rate, 1),
      String(row.issued),
      String(row.ok),
      format(row.p50, 1),
      format(row.p90, 1),
      format(row.p99, 1),
      format(row.max),
    ])
  printTable(rows)
  if (result.failures.size) console.log(`failures: ${[...result.failures].map(([reason, count]) => `${count}x ${reason}`).join(', ')}`)
}

/** A warm-up at `rate`, then the measured run, with svc's memory at its end. */
export async function measure(load, rate, seconds, warmup) {
  if (warmup > 0) await runLoad(load, rate, warmup)
  const result = await runLoad(load, rate, seconds)
  result.rss = treeMemory(load.target.svc.pid)
  return result
}

const rounded = (rate) => Math.round(rate / 10) * 10

/**
 * The step search: each rate in turn until one fails, then once halfway between the last pass and that failure.
 * Prints a row per rate and answers the highest rate that passed (0 when none did).
 */
export async function benchLoad() {
  const seconds = Number(process.env.LOAD_SECONDS ?? 20)
  const warmup = Number(process.env.LOAD_WARMUP ?? 3)
  const rates = process.env.LOAD_RATE
    ? [Number(process.env.LOAD_RATE)]
    : process.env.LOAD_RATES
      ? process.env.LOAD_RATES.split(',').map(Number)
      : DEFAULT_RATES
  const target = await startLoadTarget()
  try {
    const load = createLoad(target)
    console.log(
      `\nopen-loop load: R API requests/s in equal shares of 7 kinds, + sign-in page 0.1R, git pull 0.1R, git push ${load.state.pushShare}R; ` +
        `${seconds} s per rate after ${warmup} s of warm-up; ${PROJECTS} projects, administrator token; latency from each request's due time`,
    )
    console.log(`pass: p99 <= ${PASS.p99} ms, success >= ${PASS.success * 100} %, achieved >= ${PASS.achieved * 100} % of target`)
    const results = []
    let lastPass = null
    let firstFail = null
    for (const rate of rates) {
      const result = await measure(load, rate, seconds, warmup)
      results.push(result)
      printTable([summaryColumns, summaryRow(result)])
      if (!result.passed) {
        firstFail = result
        break
      }
      lastPass = result
    }
    if (lastPass && firstFail && rates.length > 1) {
      const middle = rounded((lastPass.rate + firstFail.rate) / 2)
      if (middle > lastPass.rate && middle < firstFail.rate) {
        const result = await measure(load, middle, seconds, warmup)
        results.push(result)
        if (result.passed) lastPass = result
      }
    }
    if (results.length > 1) console.log('')
    if (results.length > 1) printTable([summaryColumns, ...results.sort((a, b) => a.rate - b.rate).map(summaryRow)])
    for (const result of [lastPass, firstFail].filter(Boolean)) {
      console.log(`\nR = ${result.rate} (${verdict(result)}):`)
      printClasses(result)
    }
    const refs = await git(target.gitDir, 'ls-remote', target.remote, 'refs/heads/load-*')
    const branches = refs.split('\n').filter((line) => line.startsWith(`${target.sha}\trefs/heads/load-`)).length
    const { pushed, removed } = load.state
    console.log(
      `\nbranches made: ${pushed}, removed: ${removed}; load-* branches on the remote (git ls-remote): ${branches}, expected ${pushed - removed}`,
    )
    const highest = lastPass?.rate ?? 0
    console.log(
      `highest passing rate: ${highest ? `${highest} API requests/s (${format(lastPass.targetRate)} requests/s in all)` : 'none'}`,
    )
    load.agent.destroy()
    return highest
  } finally {
    await target.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchLoad()
