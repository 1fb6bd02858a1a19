// Repository reads over the API against git itself: on a repository of 10,000 commits and 20,000 files (written by
// `git fast-import`, pushed over HTTP), `GET repository/files/:path/raw`, `GET repository/blobs/:sha/raw` and
// `GET repository/tree` requests per second against reading the same object from a warm `git cat-file --batch` with
// the same number of reads in flight. Prints figures only. Run alone with `node bench/repository.mjs` after a build.
import { execFile, spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import {
  api,
  format,
  memory,
  onCatFileAnswers,
  printTable,
  recording,
  request,
  root,
  startBare,
  startSvc,
  stop,
  svcEnv,
} from './common.mjs'

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10)
const COMMITS = 10_000
const DIRECTORIES = 200
const FILES_PER_DIRECTORY = 100
const TARGET_DIRECTORY = 'dir-123'
const TARGET_FILE = `${TARGET_DIRECTORY}/file-045.txt`

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0' }
const git = (cwd, ...args) => promisify(execFile)('git', args, { cwd, env: gitEnv, maxBuffer: 64 << 20 }).then((r) => r.stdout)

function hashedPath(id) {
  const hash = createHash('sha256').update(String(id)).digest('hex')
  return `@hashed/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}.git`
}

/** One commit adding every file, then commits each changing one file, as a fast-import stream written to `input`. */
function writeHistory(input) {
  const at = 1_700_000_000
  const data = (text) => `data ${Buffer.byteLength(text)}\n${text}`
  const lines = []
  lines.push('commit refs/heads/main', `committer Bench <bench@example.com> ${at} +0000`, data('Add every file'))
  lines.push(`M 100644 inline README.md`, data('# A large repository\n'))
  for (let d = 0; d < DIRECTORIES; d++) {
    for (let f = 0; f < FILES_PER_DIRECTORY; f++) {
      const name = `dir-${String(d).padStart(3, '0')}/file-${String(f).padStart(3, '0')}.txt`
      lines.push(`M 100644 inline ${name}`, data(`${name}\n${'content line\n'.repeat(8)}`))
    }
  }
  input.write(lines.join('\n') + '\n')
  for (let n = 1; n < COMMITS; n++) {
    const d = n % DIRECTORIES
    const f = Math.floor(n / DIRECTORIES) % FILES_PER_DIRECTORY
    const name = `dir-${String(d).padStart(3, '0')}/file-${String(f).padStart(3, '0')}.txt`
    // The target file keeps its first content, so that every read below asks for one blob.
    const target = name === TARGET_FILE ? `${TARGET_DIRECTORY}/other.txt` : name
    input.write(
      [
        'commit refs/heads/main',
        `committer Bench <bench@example.com> ${at + n} +0000`,
        data(`Change ${target}`),
        `M 100644 inline ${target}`,
        data(`${target}\nchanged in commit ${n}\n`),
        '',
      ].join('\n'),
    )
  }
  input.end()
}

/** A bare repository made by fast-import; answers its directory. */
export async function generateRepository(workDir) {
  const directory = path.join(workDir, 'large.git')
  await git(workDir, 'init', '--quiet', '--bare', '--initial-branch=main', directory)
  const child = spawn('git', ['--git-dir', directory, 'fast-import', '--quiet'], { env: gitEnv, stdio: ['pipe', 'ignore', 'inherit'] })
  const exited = new Promise((resolve, reject) =>
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`fast-import ${code}`)))),
  )
  child.stdin.on('error', () => {})
  writeHistory(child.stdin)
  await exited
  await git(workDir, '--git-dir', directory, 'repack', '-a', '-d', '--quiet')
  return directory
}

/** Reads of one object per second from a warm `git cat-file --batch`, `inFlight` at a time, for `duration` seconds. */
async function catFileRate(directory, object, inFlight, duration) {
  const child = spawn('git', ['--git-dir', directory, 'cat-file', '--batch'], { env: gitEnv, stdio: ['pipe', 'pipe', 'ignore'] })
  let completed = 0
  let deadline = 0
  let resolveDone
  const done = new Promise((resolve) => (resolveDone = resolve))
  let outstanding = 0
  const ask = () => {
    outstanding += 1
    child.stdin.write(`${object}\n`)
  }
  onCatFileAnswers(child.stdout, () => {
    outstanding -= 1
    completed += 1
    if (performance.now() < deadline) ask()
    else if (outstanding === 0) resolveDone()
  })
  // Warm: one second unmeasured, then the measured run.
  deadline = performance.now() + 1000
  for (let n = 0; n < inFlight; n++) ask()
  await done
  completed = 0
  const started = performance.now()
  deadline = started + duration * 1000
  const measured = new Promise((resolve) => (resolveDone = resolve))
  for (let n = 0; n < inFlight; n++) ask()
  await measured
  const rate = completed / ((performance.now() - started) / 1000)
  child.stdin.end()
  await stop(child)
  return rate
}

async function load(port, urlPath, token) {
  const autocannon = path.join(root, 'node_modules/autocannon/autocannon.js')
  const run = async (duration) => {
    const args = [
      autocannon,
      '--json',
      '-c',
      String(connections),
      '-d',
      String(duration),
      '-H',
      `PRIVATE-TOKEN=${token}`,
      `http://127.0.0.1:${port}${urlPath}`,
    ]
    const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 16 << 20, timeout: (duration + 30) * 1000 })
    return JSON.parse(stdout)
  }
  await run(1)
  const result = await run(seconds)
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    timeouts: result.timeouts,
    errors: result.errors,
    answered: result.requests.total,
  }
}

export async function benchRepository() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-repository-'))
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-repository-work-'))
  const token = `bench-${randomBytes(16).toString('hex')}`
  const storage = path.join(dataDir, 'storage')
  const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: token, SVC_STORAGES: `default=${storage}` })
  const port = Number(env.SVC_PORT)
  let svc = null
  let bare = null
  try {
    let started = performance.now()
    const source = await generateRepository(workDir)
    const generatedMs = performance.now() - started
    svc = (await startSvc(env)).child
    const created = await api(port, 'POST', '/projects', token, { name: 'large', path: 'large', visibility: 'private' })
    if (created.status !== 201) throw new Error(`could not create the project: ${created.status}`)
    const projectId = created.body.id
    started = performance.now()
    await git(workDir, '--git-dir', source, 'push', '--quiet', `http://root:${token}@127.0.0.1:${port}/root/large.git`, 'main')
    const pushedMs = performance.now() - started
    const directory = path.join(storage, hashedPath(projectId))
    const blob = (await git(workDir, '--git-dir', directory, 'rev-parse', `main:${TARGET_FILE}`)).trim()
    const tree = (await git(workDir, '--git-dir', directory, 'rev-parse', `main:${TARGET_DIRECTORY}`)).trim()
    const commits = (await git(workDir, '--git-dir', directory, 'rev-list', '--count', 'main')).trim()
    const files = (await git(workDir, '--git-dir', directory, 'ls-tree', '-r', '--name-only', 'main')).split('\n').filter(Boolean).length
    console.log(
      `\nrepository reads: ${commits} commits, ${files} files (fast-import ${format(generatedMs / 1000, 1)} s, push ${format(pushedMs / 1000, 1)} s); ` +
        `${connections} connections (reads in flight), ${seconds} s per target, ${os.cpus().length} CPUs`,
    )

    const filesPath = `/api/v4/projects/${projectId}/repository/files/${encodeURIComponent(TARGET_FILE)}/raw?ref=main`
    const scenarios = [
      { name: 'GET repository/files/:path/raw', path: filesPath, object: blob },
      { name: 'GET repository/blobs/:sha/raw', path: `/api/v4/projects/${projectId}/repository/blobs/${blob}/raw`, object: blob },
      {
        name: `GET repository/tree?path=${TARGET_DIRECTORY}`,
        path: `/api/v4/projects/${projectId}/repository/tree?path=${TARGET_DIRECTORY}`,
        object: tree,
      },
    ]
    // What an API read costs without git (token, project and access checks, JSON), for scale.
    const reference = await load(port, `/api/v4/projects/${projectId}`, token)
    console.log(`for scale, GET /api/v4/projects/:id (no git): ${format(reference.rps)} req/s, p50 ${format(reference.p50)} ms`)
    // Each answer as svc gives it, with the object's content read afresh for every request: what a bare node:http
    // server serving the object from a warm cat-file sends.
    const recorded = {}
    const probes = new Map()
    for (const scenario of scenarios) {
      const probeStarted = performance.now()
      const probe = await request(port, 'GET', scenario.path, { headers: { 'private-token': token } })
      probes.set(scenario, { probe, probeMs: performance.now() - probeStarted })
      recorded[`GET ${scenario.path}`] = { ...recording(probe), body: undefined, object: scenario.object }
    }
    const recordingFile = path.join(workDir, 'recorded.json')
    fs.writeFileSync(recordingFile, JSON.stringify(recorded))
    bare = await startBare(recordingFile, { gitDir: directory })
    const rows = [
      [
        'scenario',
        'status',
        'svc req/s',
        'bare+cat-file req/s',
        'svc/bare+cat-file',
        'cat-file reads/s',
        'svc/cat-file',
        'svc p50 ms',
        'svc p99 ms',
        'svc peak RSS MB',
      ],
    ]
    for (const scenario of scenarios) {
      const { probe, probeMs } = probes.get(scenario)
      if (probe.status !== 200) {
        rows.push([scenario.name, String(probe.status), 'not available', '-', '-', '-', '-', '-', '-', '-'])
        continue
      }
      const measured = await load(port, scenario.path, token)
      const bareHttp = await load(bare.port, scenario.path, token)
      const baseline = await catFileRate(directory, scenario.object, connections, seconds)
      rows.push([
        scenario.name,
        [
          String(probe.status),
          measured.non2xx ? `${measured.non2xx} not 2xx` : '',
          measured.timeouts ? `${measured.timeouts} timed out` : '',
          measured.errors ? `${measured.errors} errors` : '',
          measured.answered === 0 ? `none answered in the run (one alone took ${format(probeMs)} ms)` : '',
        ]
          .filter(Boolean)
          .join(', '),
        format(measured.rps),
        format(bareHttp.rps),
        `${format(measured.rps / bareHttp.rps, 2)}x`,
        format(baseline),
        `${format(measured.rps / baseline, 2)}x`,
        format(measured.p50),
        format(measured.p99),
        format(memory(svc.pid, 'VmHWM'), 1),
      ])
    }
    printTable(rows)
    console.log(
      'target: svc >= 0.5x of the same object read from a warm git cat-file --batch; bare+cat-file is a bare node:http server ' +
        'sending it, read from one warm cat-file for every request; cat-file reads/s is git alone, as many reads in flight',
    )
  } catch (error) {
    console.log(`repository bench could not finish: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    if (svc) await stop(svc)
    if (bare) await stop(bare.child)
    fs.rmSync(dataDir, { recursive: true, force: true })
    fs.rmSync(workDir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchRepository()
