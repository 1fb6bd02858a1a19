// The request pipeline on one core: svc and a bare node:http server replaying svc's own bytes, each pinned to CPU 0,
// loaded by wrk pinned to CPU 1 (autocannon when wrk is not installed), as an administrator's token, over about 400
// projects. Prints figures only. Run alone with `node bench/pipeline.mjs` after `npm run build`.
import { execFile, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { randomBytes } from 'node:crypto'
import {
  cpuMillis,
  format,
  memory,
  printTable,
  recording,
  request,
  root,
  seedTeamProjects,
  sleep,
  startBare,
  startSvc,
  stop,
  svcEnv,
} from './common.mjs'

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const PROJECTS = 400
const LABELS = 20
const token = `bench-${randomBytes(16).toString('hex')}`
const hasWrk = spawnSync('wrk', ['--version']).error === undefined
const hasTaskset = spawnSync('taskset', ['-V']).error === undefined
const cpus = os.cpus().length
const pin = (cpu, command) => (hasTaskset && cpus > 1 ? ['taskset', ['-c', String(cpu), ...command]] : [command[0], command.slice(1)])

export const pipelineScenarios = (projectId) => [
  { name: 'GET /api/v4/version', path: '/api/v4/version', target: 0.6 },
  { name: 'GET /api/v4/user', path: '/api/v4/user', target: 0.5 },
  { name: 'GET /api/v4/projects/:id', path: `/api/v4/projects/${projectId}`, target: 0.3 },
  { name: 'GET /api/v4/projects/:id/labels', path: `/api/v4/projects/${projectId}/labels`, target: 0.3 },
  { name: `GET /api/v4/projects?per_page=20 (${PROJECTS})`, path: '/api/v4/projects?per_page=20', target: 0.1 },
]

/** PROJECTS public projects in the group `team`, the first with LABELS labels; answers the first's id. */
function seed(dataDir) {
  const Database = createRequire(import.meta.url)(path.join(root, 'node_modules/better-sqlite3'))
  const db = new Database(path.join(dataDir, 'svc.sqlite3'))
  const at = new Date().toISOString()
  let first
  db.transaction(() => {
    first = seedTeamProjects(db, PROJECTS, at)[0]
    const label = db.prepare('insert into labels (title, color, description, project_id, created_at, updated_at) values (?, ?, ?, ?, ?, ?)')
    for (let n = 0; n < LABELS; n++) label.run(`label-${n}`, '#336699', `Label ${n}`, first, at, at)
  })()
  db.close()
  return Number(first)
}

/** wrk's figures, plus the CPU time the server `pid` spent per request (steadier than req/s on a busy machine). */
async function load(port, urlPath, pid) {
  // A short run first, so that the measured one finds the code compiled and the caches warm.
  await run(port, urlPath, { seconds: 1 })
  const before = cpuMillis(pid)
  const result = await run(port, urlPath)
  return { ...result, cpuMicros: ((cpuMillis(pid) - before) * 1000) / (result.rps * seconds) }
}

/** wrk (or autocannon) against `urlPath`; pinned to CPU 1 unless `pinned` is false. */
async function run(port, urlPath, { pinned = true, seconds: duration = seconds } = {}) {
  const url = `http://127.0.0.1:${port}${urlPath}`
  if (hasWrk) {
    const [command, args] = (pinned ? pin : (_cpu, line) => [line[0], line.slice(1)])(1, [
      'wrk',
      '-t',
      '1',
      '-c',
      String(connections),
      '-d',
      `${duration}s`,
      '-H',
      `PRIVATE-TOKEN: ${token}`,
      '--latency',
      url,
    ])
    const { stdout } = await promisify(execFile)(command, args, { timeout: (duration + 30) * 1000 })
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1])
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0)
    const ms = (label) => {
      const match = new RegExp(`${label}%\\s+([\\d.]+)(us|ms|s)`).exec(stdout)
      return match ? Number(match[1]) * { us: 0.001, ms: 1, s: 1000 }[match[2]] : NaN
    }
    return { rps, p50: ms('50'), p99: ms('99'), non2xx }
  }
  const autocannon = path.join(root, 'node_modules/autocannon/autocannon.js')
  const args = [autocannon, '--json', '-c', String(connections), '-d', String(duration), '-H', `PRIVATE-TOKEN=${token}`, url]
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 16 << 20, timeout: (duration + 30) * 1000 })
  const result = JSON.parse(stdout)
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx }
}

export async function benchPipeline() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-pipeline-'))
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-pipeline-replay-'))
  const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: token, SVC_WORKERS: '1' })
  let svc = null
  let bare = null
  try {
    await stop((await startSvc(env)).child)
    const projectId = seed(dataDir)
    const scenarios = pipelineScenarios(projectId)
    const [command, args] = pin(0, [process.execPath])
    ;({ child: svc } = await startSvc(env, { command, nodeArgs: args }))
    const recorded = {}
    for (const scenario of scenarios) {
      const response = await request(Number(env.SVC_PORT), 'GET', scenario.path, { headers: { 'private-token': token } })
      recorded[`GET ${scenario.path}`] = recording(response)
      scenario.status = response.status
    }
    const recordingFile = path.join(workDir, 'responses.json')
    fs.writeFileSync(recordingFile, JSON.stringify(recorded))
    const started = await startBare(recordingFile, { cpu: hasTaskset && cpus > 1 ? 0 : null })
    bare = started.child
    console.log(
      `\nrequest pipeline on one core: svc and bare on CPU 0, ${hasWrk ? 'wrk' : 'autocannon'} on CPU 1, ${connections} connections, ${seconds} s each`,
    )
    const rows = [
      [
        'request (administrator token)',
        'status',
        'svc req/s',
        'bare req/s',
        'svc/bare',
        'target',
        'svc p50 ms',
        'svc p99 ms',
        'svc CPU µs',
        'bare CPU µs',
        'CPU bare/svc',
      ],
    ]
    // Every scenario once before any is measured: the code they share is compiled by then, not only for the later ones.
    for (const scenario of scenarios) await run(Number(env.SVC_PORT), scenario.path, { seconds: 1 })
    for (const scenario of scenarios) {
      const measured = await load(Number(env.SVC_PORT), scenario.path, svc.pid)
      const baseline = await load(started.port, scenario.path, bare.pid)
      const ratio = measured.rps / baseline.rps
      rows.push([
        scenario.name,
        measured.non2xx ? `${scenario.status}!` : String(scenario.status),
        format(measured.rps),
        format(baseline.rps),
        `${format(ratio, 2)}x`,
        `>= ${scenario.target}${ratio >= scenario.target ? '' : ' (missed)'}`,
        format(measured.p50, 2),
        format(measured.p99, 2),
        format(measured.cpuMicros, 1),
        format(baseline.cpuMicros, 1),
        `${format(baseline.cpuMicros / measured.cpuMicros, 2)}x`,
      ])
    }
    printTable(rows)
    console.log(`svc RSS after the table: ${format(memory(svc.pid, 'VmRSS'), 1)} MB`)
  } finally {
    if (svc) await stop(svc)
    if (bare) await stop(bare)
    fs.rmSync(dataDir, { recursive: true, force: true })
    fs.rmSync(workDir, { recursive: true, force: true })
  }
}

/** The live processes whose parent is `pid`: the workers of a `svc serve` primary. */
function childrenOf(pid) {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
        const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        return Number(parent) === pid && state !== 'Z'
      } catch {
        return false
      }
    })
    .map(Number)
}

/**
 * Every core: svc with one worker process per core (the default) against SVC_WORKERS=1, nothing pinned, so wrk
 * competes with svc for the same cores. Also the idle RSS of the primary and of each worker.
 */
export async function benchAllCores() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-cores-'))
  const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: token })
  const workers = Math.min(os.availableParallelism(), 64)
  const started = []
  try {
    await stop((await startSvc(env)).child)
    const projectId = seed(dataDir)
    const scenarios = pipelineScenarios(projectId).filter(
      (scenario) => scenario.name === 'GET /api/v4/projects/:id' || scenario.path.startsWith('/api/v4/projects?'),
    )
    console.log(
      `\nall cores: svc with ${workers} workers (the default here) against SVC_WORKERS=1, nothing pinned, ${hasWrk ? 'wrk' : 'autocannon'} on the same ${cpus} cores, ${connections} connections, ${seconds} s each`,
    )
    const rows = [['request (administrator token)', '1 process req/s', `${workers} workers req/s`, 'ratio', `${workers} workers p99 ms`]]
    const results = {}
    for (const count of [1, workers]) {
      const { child } = await startSvc({ ...env, SVC_WORKERS: String(count) })
      started.push(child)
      // Every worker listens before the load starts.
      for (let waited = 0; count > 1 && childrenOf(child.pid).length < count && waited < 100; waited++) await sleep(100)
      await sleep(count > 1 ? 2000 : 200)
      if (count > 1) {
        const rss = childrenOf(child.pid).map((pid) => format(memory(pid, 'VmRSS'), 1))
        console.log(`idle RSS: primary ${format(memory(child.pid, 'VmRSS'), 1)} MB, workers ${rss.join(' MB, ')} MB`)
      } else console.log(`idle RSS: one process ${format(memory(child.pid, 'VmRSS'), 1)} MB`)
      for (const scenario of scenarios)
        results[`${count} ${scenario.path}`] = await run(Number(env.SVC_PORT), scenario.path, { pinned: false })
      await stop(child)
    }
    for (const scenario of scenarios) {
      const one = results[`1 ${scenario.path}`]
      const all = results[`${workers} ${scenario.path}`]
      rows.push([scenario.name, format(one.rps), format(all.rps), `${format(all.rps / one.rps, 2)}x`, format(all.p99, 2)])
    }
    printTable(rows)
  } finally {
    for (const child of started) await stop(child)
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchPipeline()
  await benchAllCores()
}
