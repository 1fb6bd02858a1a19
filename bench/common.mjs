// What the bench scripts share: starting svc on a data dir and waiting until it is ready, stopping it, free ports,
// one HTTP request, memory figures from /proc, and formatting.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
export const format = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-')
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
/** The value at `fraction` of an ascending list. */
export const percentile = (sorted, fraction) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

/** Ends a child with SIGTERM (or `signal`) and resolves once it has exited. */
export function stop(child, signal = 'SIGTERM') {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('close', () => resolve())
    child.kill(signal)
  })
}

/** VmRSS (now) or VmHWM (peak) of a process, in MB. */
export function memory(pid, field) {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((text) => text.startsWith(`${field}:`))
  return line ? Number(line.split(/\s+/)[1]) / 1024 : NaN
}

/** CPU time (user + system) a process has used so far, in milliseconds. */
export function cpuMillis(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

/** A process and all its descendants, from /proc/<pid>/task/<tid>/children (gone processes are skipped). */
export function processTree(pid) {
  const pids = [pid]
  for (let index = 0; index < pids.length; index++) {
    let tasks
    try {
      tasks = fs.readdirSync(`/proc/${pids[index]}/task`)
    } catch {
      continue
    }
    for (const task of tasks) {
      try {
        for (const child of fs.readFileSync(`/proc/${pids[index]}/task/${task}/children`, 'utf8').split(' '))
          if (child.trim()) pids.push(Number(child))
      } catch {
        // The task ended meanwhile.
      }
    }
  }
  return pids
}

/** The `name:` lines of /proc/<pid>/smaps_rollup, in MB. */
function smaps(pid) {
  const fields = {}
  for (const line of fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').split('\n')) {
    const match = /^(\w+):\s+(\d+) kB/.exec(line)
    if (match) fields[match[1]] = Number(match[2]) / 1024
  }
  return fields
}

/**
 * Memory of a process tree (svc's primary, its workers and any git it runs), in MB: VmRSS summed (`total`), the
 * largest single one, and what the tree holds (`held`): each process's private pages, plus the pages it shares counted
 * once per executable. Summed RSS counts the node binary's pages, shared by the primary and every worker, once per
 * process; GitLab counts its forked Puma workers by their proportional set size for the same reason.
 */
export function treeMemory(pid) {
  let total = 0
  let largest = 0
  let processes = 0
  let held = 0
  const sharedByExecutable = new Map()
  for (const member of processTree(pid)) {
    let fields
    let executable
    try {
      fields = smaps(member)
      executable = fs.readlinkSync(`/proc/${member}/exe`)
    } catch {
      continue // exited between the listing and the read
    }
    if (!Number.isFinite(fields.Rss)) continue
    total += fields.Rss
    largest = Math.max(largest, fields.Rss)
    processes += 1
    held += fields.Private_Clean + fields.Private_Dirty
    sharedByExecutable.set(executable, Math.max(sharedByExecutable.get(executable) ?? 0, fields.Shared_Clean + fields.Shared_Dirty))
  }
  for (const shared of sharedByExecutable.values()) held += shared
  return { total, largest, processes, held }
}

/**
 * The environment of an embedded svc (SQLite in `dataDir`, no Redis, one process) on a port of its own, quiet, with `extra`
 * on top; whatever names another database or Redis in the caller's environment is left out.
 */
export async function svcEnv(dataDir, extra = {}) {
  const env = {
    ...process.env,
    SVC_HOST: '127.0.0.1',
    SVC_PORT: String(await freePort()),
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: 'silent',
    SVC_WORKERS: '1',
    ...extra,
  }
  delete env.SVC_DATABASE_URL
  delete env.SVC_REDIS_URL
  delete env.SVC_EXTERNAL_URL
  return env
}

/**
 * One request on its own connection (or `agent`'s); answers status, headers, raw headers and the body as a string.
 * A `body` that is not a string is sent as JSON.
 */
export function request(port, method, urlPath, { headers = {}, body, agent = false } = {}) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
    const sent = { ...headers }
    if (data !== undefined) {
      sent['content-length'] = Buffer.byteLength(data)
      if (typeof body !== 'string') sent['content-type'] ??= 'application/json'
    }
    const outgoing = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers: sent, agent }, (response) => {
      const chunks = []
      response.on('data', (chunk) => chunks.push(chunk))
      response.on('end', () =>
        resolve({
          status: response.statusCode,
          headers: response.headers,
          rawHeaders: response.rawHeaders,
          body: Buffer.concat(chunks).toString(),
        }),
      )
    })
    outgoing.on('error', reject)
    outgoing.end(data)
  })
}

/** An API call with a token; answers status and the parsed JSON body. */
export async function api(port, method, urlPath, token, body) {
  const response = await request(port, method, `/api/v4${urlPath}`, { headers: { 'private-token': token }, body })
  return { status: response.status, body: response.body ? JSON.parse(response.body) : null }
}

/**
 * Starts `dist/svc.mjs serve` and resolves once /-/readiness answers 200, with the child and how long that took.
 * svc's stderr goes to `onStderr` when given; `nodeArgs` go to node (e.g. `--cpu-prof`), or to `command` when given
 * (`taskset`, which then runs node).
 */
export async function startSvc(env, { onStderr, nodeArgs = [], command = process.execPath } = {}) {
  const started = performance.now()
  const child = spawn(command, [...nodeArgs, path.join(root, 'dist/svc.mjs'), 'serve'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (data) => (stderr += data))
  if (onStderr) child.stderr.on('end', () => onStderr(stderr))
  let exited = false
  child.on('exit', () => (exited = true))
  for (;;) {
    if (exited) throw new Error(`svc exited with code ${child.exitCode} before it was ready: ${stderr.trim()}`)
    if (performance.now() - started > 60_000) {
      await stop(child)
      throw new Error('svc was not ready within 60 s')
    }
    try {
      if ((await request(Number(env.SVC_PORT), 'GET', '/-/readiness')).status === 200) break
    } catch {
      // Not listening yet.
    }
    await sleep(5)
  }
  return { child, readyMs: performance.now() - started }
}

/** Calls `onAnswer` with each object's content, in order, as `git cat-file --batch` writes them to `stdout`. */
export function onCatFileAnswers(stdout, onAnswer) {
  let buffered = Buffer.alloc(0)
  let expected = -1
  stdout.on('data', (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk])
    for (;;) {
      if (expected < 0) {
        const newline = buffered.indexOf(10)
        if (newline < 0) return
        expected = Number(buffered.toString('latin1', 0, newline).split(' ')[2])
        buffered = buffered.subarray(newline + 1)
      }
      if (buffered.length < expected + 1) return
      const content = buffered.subarray(0, expected)
      buffered = buffered.subarray(expected + 1)
      expected = -1
      onAnswer(content)
    }
  })
}

/** Prints rows as a table: the first column left-aligned, the others right-aligned. */
export function printTable(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => String(row[column]).length)))
  for (const row of rows)
    console.log(
      row.map((cell, column) => (column === 0 ? String(cell).padEnd(widths[column]) : String(cell).padStart(widths[column]))).join('  '),
    )
}

/**
 * Starts bench/bare.mjs replaying `recordingFile` (pinned to `cpu` when given; reading objects from `gitDir` when given);
 * resolves with the child and its port.
 */
export async function startBare(recordingFile, { cpu = null, gitDir = null } = {}) {
  const args = [process.execPath, path.join(root, 'bench/bare.mjs'), recordingFile, ...(gitDir ? [gitDir] : [])]
  const child =
    cpu === null
      ? spawn(args[0], args.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] })
      : spawn('taskset', ['-c', String(cpu), ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise((resolve, reject) => {
    child.stdout.once('data', (data) => resolve(Number(String(data).trim())))
    child.once('exit', () => reject(new Error('bare server exited before listening')))
  })
  return { child, port }
}

// Node manages these per connection; everything else is replayed byte for byte.
const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding'])

/** A response as bench/bare.mjs replays it. */
export function recording(response) {
  const headers = []
  for (let index = 0; index < response.rawHeaders.length; index += 2) {
    const name = response.rawHeaders[index]
    if (!hopByHop.has(name.toLowerCase())) headers.push([name, response.rawHeaders[index + 1]])
  }
  return { status: response.status, headers, body: Buffer.from(response.body).toString('base64') }
}

/**
 * `count` public projects in a group `team`, written straight into an open better-sqlite3 database of a migrated svc
 * (inside the caller's transaction); answers their ids in order.
 */
export function seedTeamProjects(db, count, at) {
  const group = db
    .prepare(
      "insert into namespaces (kind, name, path, full_path, full_name, visibility_level, created_at, updated_at) values ('group', 'Team', 'team', 'team', 'Team', 20, ?, ?)",
    )
    .run(at, at).lastInsertRowid
  db.prepare('update namespaces set traversal_ids = ? where id = ?').run(`${group}/`, group)
  const project = db.prepare(
    "insert into projects (namespace_id, name, path, full_path, full_name, description, visibility_level, creator_id, last_activity_at, created_at, updated_at) values (?, ?, ?, ?, ?, 'A project', 20, 1, ?, ?, ?)",
  )
  const ids = []
  for (let n = 1; n <= count; n++)
    ids.push(
      Number(project.run(group, `Project ${n}`, `project-${n}`, `team/project-${n}`, `Team / Project ${n}`, at, at, at).lastInsertRowid),
    )
  return ids
}
