// `svc backup create` and `svc backup restore` on the embedded default (SQLite) with 1,000 projects, each with a
// small repository, 100,000 issues and 1,000,000 alerts (one row per alert event received), seeded with bulk SQL:
// - backup time and archive size, while a light load (GET /api/v4/projects with a token, a few connections) runs
//   against svc; its p99 during the backup against the same load on idle svc and on a bare node:http server
//   answering the same bytes (target p99 during the backup < 100 ms), svc's peak RSS and the backup's;
// - restore time into an empty data directory, and whether every row and repository came back.
// Prints figures only. Run alone with `node bench/backup.mjs` after `npm run build`, or through `npm run bench`.
// Smaller instances: BENCH_BACKUP_PROJECTS, BENCH_BACKUP_ISSUES, BENCH_BACKUP_ALERTS.
import { execFileSync, spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { clearInterval, setInterval } from 'node:timers'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import {
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

const PROJECTS = Number(process.env.BENCH_BACKUP_PROJECTS ?? 1_000)
const ISSUES = Number(process.env.BENCH_BACKUP_ISSUES ?? 100_000)
const ALERTS = Number(process.env.BENCH_BACKUP_ALERTS ?? 1_000_000)
const CONNECTIONS = Number(process.env.BENCH_BACKUP_CONNECTIONS ?? 4)
// Requests per second of the light load, over all connections: a few people at work, not a saturating client.
const RATE = Number(process.env.BENCH_BACKUP_RATE ?? 200)
const IDLE_SECONDS = 5
const LIST_PATH = '/api/v4/projects?per_page=20'

const gitEnv = {
  PATH: process.env.PATH,
  HOME: '/nonexistent',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
}
const git = (cwd, ...args) => execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' })

/** GitLab's hashed path of a project's repository, as svc lays it out. */
function hashedPath(id) {
  const hash = createHash('sha256').update(String(id)).digest('hex')
  return `@hashed/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}.git`
}

/** Projects, issues and alerts written in a few statements (a recursive CTE counts the rows) into a migrated svc;
 * ids are written into the SQL, since better-sqlite3 binds numbers as reals, whose division is no integer's. */
function seedRows(dataDir) {
  const Database = createRequire(import.meta.url)(path.join(root, 'node_modules/better-sqlite3'))
  const db = new Database(path.join(dataDir, 'svc.sqlite3'))
  const at = new Date().toISOString()
  let ids
  db.transaction(() => {
    ids = seedTeamProjects(db, PROJECTS, at)
    db.prepare("update projects set empty_repo = 0, default_branch = 'main', readme_path = 'README.md'").run()
    const first = ids[0]
    const perProject = Math.ceil(ISSUES / PROJECTS)
    db.prepare(
      `with recursive n(x) as (select 0 union all select x + 1 from n where x < ?)
       insert into issues (project_id, iid, author_id, title, created_at, updated_at)
       select ${first} + x / ${perProject}, x % ${perProject} + 1, 1, 'Issue ' || x, ?, ? from n`,
    ).run(ISSUES - 1, at, at)
    db.prepare(
      `insert into internal_ids (project_id, usage, last_value)
       select project_id, 'issues', max(iid) from issues group by project_id`,
    ).run()
    const alertsPerProject = Math.ceil(ALERTS / PROJECTS)
    // Resolved alerts (status 2) may share a fingerprint; each row is one event received.
    db.prepare(
      `with recursive n(x) as (select 0 union all select x + 1 from n where x < ?)
       insert into alerts (project_id, iid, title, severity, status, started_at, ended_at, fingerprint, payload, events, created_at, updated_at)
       select ${first} + x / ${alertsPerProject}, x % ${alertsPerProject} + 1, 'Disk almost full on db-' || (x % 100), x % 5, 2, ?, ?, 'f' || (x % 100),
              '{"title":"Disk almost full","severity":"high"}', 1, ?, ? from n`,
    ).run(ALERTS - 1, at, at, at, at)
  })()
  db.close()
  return ids
}

/** One small repository (a README on main), copied to every project's place in the default storage. */
function seedRepositories(dataDir, ids) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-backup-work-'))
  try {
    git(work, 'init', '--quiet', '--initial-branch=main', 'tree')
    fs.writeFileSync(path.join(work, 'tree', 'README.md'), '# A project\n')
    git(path.join(work, 'tree'), 'add', 'README.md')
    git(path.join(work, 'tree'), 'commit', '--quiet', '-m', 'Add README')
    git(work, 'clone', '--quiet', '--bare', 'tree', 'template.git')
    fs.rmSync(path.join(work, 'template.git', 'hooks'), { recursive: true, force: true })
    for (const id of ids)
      fs.cpSync(path.join(work, 'template.git'), path.join(dataDir, 'repositories', hashedPath(id)), { recursive: true })
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}

/** A few connections asking for the project list until stopped; answers the running autocannon. */
function lightLoad(port, token, duration) {
  return autocannon({
    url: `http://127.0.0.1:${port}${LIST_PATH}`,
    connections: CONNECTIONS,
    overallRate: RATE,
    duration,
    headers: { 'private-token': token },
  })
}

/** Runs `svc backup <args>`, sampling its peak RSS; answers its exit code, output, wall time and peak RSS. */
function runBackupCommand(args, env) {
  return new Promise((resolve) => {
    const started = performance.now()
    const child = spawn(process.execPath, [path.join(root, 'dist/svc.mjs'), 'backup', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    let peakRss = 0
    const sampler = setInterval(() => {
      try {
        peakRss = Math.max(peakRss, memory(child.pid, 'VmHWM'))
      } catch {
        // exited
      }
    }, 50)
    child.on('close', (code) => {
      clearInterval(sampler)
      resolve({ code, output: output.trim(), ms: performance.now() - started, peakRss })
    })
  })
}

function countRows(dataDir) {
  const Database = createRequire(import.meta.url)(path.join(root, 'node_modules/better-sqlite3'))
  const db = new Database(path.join(dataDir, 'svc.sqlite3'), { readonly: true })
  try {
    const count = (table) => db.prepare(`select count(*) as n from ${table}`).get().n
    return { projects: count('projects'), issues: count('issues'), alerts: count('alerts') }
  } finally {
    db.close()
  }
}

export async function benchBackup() {
  console.log(`\nbackup and restore: ${PROJECTS} projects with repositories, ${ISSUES} issues, ${ALERTS} alert events (SQLite)`)
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-backup-'))
  const restoredDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-restore-'))
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-backup-replay-'))
  const archive = path.join(workDir, 'backup.tar')
  const token = `bench-${randomBytes(16).toString('hex')}`
  const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: token })
  const port = Number(env.SVC_PORT)
  let svc = null
  let bare = null
  try {
    await stop((await startSvc(env)).child)
    const seedStarted = performance.now()
    const ids = seedRows(dataDir)
    seedRepositories(dataDir, ids)
    const databaseBytes = fs.statSync(path.join(dataDir, 'svc.sqlite3')).size
    console.log(`seeded in ${format((performance.now() - seedStarted) / 1000, 1)} s; database ${format(databaseBytes / 1e6, 1)} MB`)

    ;({ child: svc } = await startSvc(env))
    const response = await request(port, 'GET', LIST_PATH, { headers: { 'private-token': token } })
    const recordingFile = path.join(workDir, 'responses.json')
    fs.writeFileSync(recordingFile, JSON.stringify({ [`GET ${LIST_PATH}`]: recording(response) }))
    const started = await startBare(recordingFile)
    bare = started.child

    const idle = await lightLoad(port, token, IDLE_SECONDS)
    const baseline = await lightLoad(started.port, token, IDLE_SECONDS)
    // The load runs until the backup ends; its duration is only an upper bound.
    const during = lightLoad(port, token, 600)
    const finished = new Promise((resolve) => during.then(resolve, resolve))
    await sleep(500)
    const backup = await runBackupCommand(['create', '--to', archive], env)
    during.stop()
    const loaded = await finished
    const svcPeakRss = memory(svc.pid, 'VmHWM')
    await stop(svc)
    svc = null
    if (backup.code !== 0) throw new Error(`backup failed: ${backup.output}`)
    const archiveBytes = fs.statSync(archive).size

    const restoreEnv = await svcEnv(restoredDir)
    const restore = await runBackupCommand(['restore', archive], restoreEnv)
    if (restore.code !== 0) throw new Error(`restore failed: ${restore.output}`)
    const before = countRows(dataDir)
    const after = countRows(restoredDir)
    const repositories = (dir) =>
      fs.readdirSync(path.join(dir, 'repositories/@hashed'), { recursive: true }).filter((name) => name.endsWith('.git')).length
    const complete =
      before.projects === after.projects &&
      before.issues === after.issues &&
      before.alerts === after.alerts &&
      repositories(dataDir) === repositories(restoredDir)

    const rows = [
      ['load: GET /api/v4/projects?per_page=20', 'req/s', 'p50 ms', 'p99 ms', 'p99 vs bare', 'non-2xx'],
      [
        'svc during the backup',
        format(loaded.requests.average),
        format(loaded.latency.p50),
        format(loaded.latency.p99),
        `${format(loaded.latency.p99 / Math.max(1, baseline.latency.p99), 1)}x`,
        String(loaded.non2xx),
      ],
      [
        'svc idle',
        format(idle.requests.average),
        format(idle.latency.p50),
        format(idle.latency.p99),
        `${format(idle.latency.p99 / Math.max(1, baseline.latency.p99), 1)}x`,
        String(idle.non2xx),
      ],
      [
        'bare node:http',
        format(baseline.requests.average),
        format(baseline.latency.p50),
        format(baseline.latency.p99),
        '1.0x',
        String(baseline.non2xx),
      ],
    ]
    printTable(rows)
    console.log(
      `backup: ${format(backup.ms / 1000, 1)} s, archive ${format(archiveBytes / 1e6, 1)} MB (database ${format(databaseBytes / 1e6, 1)} MB), ` +
        `backup process peak RSS ${format(backup.peakRss, 1)} MB, svc peak RSS ${format(svcPeakRss, 1)} MB; ` +
        `p99 during the backup ${format(loaded.latency.p99)} ms with ${CONNECTIONS} connections at ${RATE} req/s (target < 100 ms)`,
    )
    console.log(
      `restore: ${format(restore.ms / 1000, 1)} s, peak RSS ${format(restore.peakRss, 1)} MB; ${after.projects} projects, ${after.issues} issues, ` +
        `${after.alerts} alerts, ${repositories(restoredDir)} repositories back: ${complete ? 'all' : 'NOT all'} of them`,
    )
  } catch (error) {
    console.log(`backup bench could not finish: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    if (svc) await stop(svc)
    if (bare) await stop(bare)
    for (const dir of [dataDir, restoredDir, workDir]) fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchBackup()
