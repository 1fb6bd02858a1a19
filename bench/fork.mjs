// Forks and clones of a ~100 MB repository, against plain git in the same run:
// - a fork to another storage (a full copy) through the API, from POST to import_status "finished", against
//   `git clone --bare --no-hardlinks` of the same repository (target <= 1.2x);
// - a fork on the same storage (hard links) of that repository and of one ten times smaller: about the same time;
// - `git clone` over HTTP from svc against `git clone --no-local` from the repository's path (both through upload-pack);
// plus svc's peak RSS. Prints figures only.
// Run alone with `node bench/fork.mjs` after `npm run build`, or through `npm run bench` (bench/run.mjs).
import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { api, format, median, memory, sleep, startSvc, stop, svcEnv } from './common.mjs'

const LARGE_MB = Number(process.env.BENCH_FORK_MB ?? 100)
const SMALL_MB = Math.max(1, Math.round(LARGE_MB / 10))
const RUNS = Number(process.env.BENCH_FORK_RUNS ?? 5)

const gitEnv = {
  PATH: process.env.PATH,
  HOME: os.tmpdir(),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
}

function git(cwd, ...args) {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: gitEnv, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args.join(' ')}: ${stderr}`))
      else resolve(stdout)
    })
  })
}

async function timed(action) {
  const started = performance.now()
  await action()
  return performance.now() - started
}

function hashedPath(id) {
  const hash = createHash('sha256').update(String(id)).digest('hex')
  return `@hashed/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}.git`
}

function directorySize(directory) {
  let total = 0
  for (const entry of fs.readdirSync(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).size
  }
  return total
}

/** A project on svc holding `megabytes` of data that does not compress, in ten commits over two branches and a tag, pushed over HTTP. */
async function makeProject(port, token, workDir, name, visibility, megabytes) {
  const created = await api(port, 'POST', '/projects', token, { name, path: name, visibility, initialize_with_readme: true })
  if (created.status !== 201) throw new Error(`could not create ${name}: ${created.status} ${JSON.stringify(created.body)}`)
  const dir = path.join(workDir, `${name}-work`)
  const url = `http://root:${token}@127.0.0.1:${port}/root/${name}.git`
  await git(workDir, 'clone', '--quiet', url, dir)
  const perCommit = Math.max(1, Math.round((megabytes * 1024 * 1024) / 10))
  for (let i = 0; i < 10; i++) {
    fs.writeFileSync(path.join(dir, `data-${i}.bin`), randomBytes(perCommit))
    await git(dir, 'add', '.')
    await git(dir, 'commit', '--quiet', '-m', `Data ${i}`)
    if (i === 4) await git(dir, 'branch', 'stable')
  }
  await git(dir, 'tag', '-a', 'v1', '-m', 'Release')
  await git(dir, 'push', '--quiet', 'origin', '--all')
  await git(dir, 'push', '--quiet', 'origin', '--tags')
  fs.rmSync(dir, { recursive: true, force: true })
  return created.body
}

/** POST /projects/:id/fork, then GET the fork until it is finished: the time a client waits for a usable fork. */
async function forkUntilFinished(port, token, sourceId, forkPath) {
  const started = performance.now()
  const res = await api(port, 'POST', `/projects/${sourceId}/fork`, token, { path: forkPath, name: forkPath })
  if (res.status !== 201) throw new Error(`fork answered ${res.status}: ${JSON.stringify(res.body)}`)
  const answeredMs = performance.now() - started
  let pickedUpMs = null
  for (;;) {
    const shown = await api(port, 'GET', `/projects/${res.body.id}`, token)
    if (pickedUpMs === null && shown.body.import_status !== 'scheduled') pickedUpMs = performance.now() - started
    if (shown.body.import_status === 'finished') return { ms: performance.now() - started, answeredMs, pickedUpMs, project: shown.body }
    if (shown.body.import_status === 'failed') throw new Error(`fork failed: ${shown.body.import_error}`)
    // Each poll is served by the process running the job: a wait between polls keeps them from slowing it.
    await sleep(10)
  }
}

export async function benchForks() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-fork-'))
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-fork-work-'))
  const token = `bench-${randomBytes(16).toString('hex')}`
  const storageA = path.join(dataDir, 'storage-a')
  const storageB = path.join(dataDir, 'storage-b')
  const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: token, SVC_STORAGES: `default=${storageA},second=${storageB}` })
  const port = Number(env.SVC_PORT)
  let svc = null
  try {
    svc = (await startSvc(env)).child
    console.log(`\nforks: a ${LARGE_MB} MB repository (and a ${SMALL_MB} MB one), ${RUNS} runs each, median; ${os.cpus().length} CPUs`)
    // Private: forks of it go where new projects go (storage "second"); public: forks stay on its storage (hard links).
    const closed = await makeProject(port, token, workDir, 'closed', 'private', LARGE_MB)
    const open = await makeProject(port, token, workDir, 'open', 'public', LARGE_MB)
    const small = await makeProject(port, token, workDir, 'small', 'public', SMALL_MB)
    const weights = await api(port, 'PUT', '/application/settings', token, { repository_storages_weighted: { default: 0, second: 100 } })
    if (weights.status !== 200) throw new Error(`settings answered ${weights.status}`)
    const closedDir = path.join(storageA, hashedPath(closed.id))
    const openDir = path.join(storageA, hashedPath(open.id))
    const megabytes = directorySize(path.join(closedDir, 'objects')) / 1024 / 1024

    const rows = [['case', 'svc ms', 'git ms', 'svc/git', 'note']]
    const cross = []
    const answered = []
    const pickedUp = []
    const copy = []
    for (let run = 0; run < RUNS; run++) {
      const forked = await forkUntilFinished(port, token, closed.id, `closed-fork-${run}`)
      if (forked.project.repository_storage !== 'second') throw new Error('the fork of the private source is not on the second storage')
      cross.push(forked.ms)
      answered.push(forked.answeredMs)
      pickedUp.push(forked.pickedUpMs)
      const target = path.join(storageB, `git-copy-${run}.git`)
      copy.push(await timed(() => git(workDir, 'clone', '--quiet', '--bare', '--no-hardlinks', closedDir, target)))
    }
    rows.push([
      `fork to another storage (${format(megabytes)} MB of objects)`,
      format(median(cross)),
      format(median(copy)),
      `${format(median(cross) / median(copy), 2)}x`,
      'git clone --bare --no-hardlinks; target <= 1.2x',
    ])

    const same = []
    const sameSmall = []
    const linked = []
    for (let run = 0; run < RUNS; run++) {
      const forked = await forkUntilFinished(port, token, open.id, `open-fork-${run}`)
      if (forked.project.repository_storage !== 'default') throw new Error('the fork of the public source left its storage')
      same.push(forked.ms)
      sameSmall.push((await forkUntilFinished(port, token, small.id, `small-fork-${run}`)).ms)
      linked.push(await timed(() => git(workDir, 'clone', '--quiet', '--bare', openDir, path.join(storageA, `git-link-${run}.git`))))
    }
    rows.push([
      `fork on the same storage (${LARGE_MB} MB)`,
      format(median(same)),
      format(median(linked)),
      `${format(median(same) / median(linked), 2)}x`,
      'git clone --bare (hard links)',
    ])
    rows.push([
      `fork on the same storage (${SMALL_MB} MB)`,
      format(median(sameSmall)),
      '-',
      '-',
      `${format(median(same) / median(sameSmall), 2)}x the small one's time for ${format(LARGE_MB / SMALL_MB)}x the data`,
    ])

    const overHttp = []
    const fromPath = []
    const url = `http://root:${token}@127.0.0.1:${port}/root/closed.git`
    for (let run = 0; run < RUNS; run++) {
      overHttp.push(await timed(() => git(workDir, 'clone', '--quiet', '--bare', url, path.join(workDir, `http-${run}.git`))))
      fromPath.push(
        await timed(() => git(workDir, 'clone', '--quiet', '--bare', '--no-local', closedDir, path.join(workDir, `path-${run}.git`))),
      )
      fs.rmSync(path.join(workDir, `http-${run}.git`), { recursive: true, force: true })
      fs.rmSync(path.join(workDir, `path-${run}.git`), { recursive: true, force: true })
    }
    rows.push([
      'git clone over HTTP',
      format(median(overHttp)),
      format(median(fromPath)),
      `${format(median(overHttp) / median(fromPath), 2)}x`,
      `git clone --no-local from the path; ${format(megabytes / (median(overHttp) / 1000), 0)} MB/s over HTTP`,
    ])
    const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
    for (const row of rows)
      console.log(
        `  ${row.map((cell, column) => (column === 0 || column === 4 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ')}`,
      )
    console.log(
      `  fork to another storage: POST answered after ${format(median(answered))} ms, the job seen started after ${format(median(pickedUp))} ms (medians; the rest is the copy and its bookkeeping)`,
    )
    console.log(`  svc peak RSS ${format(memory(svc.pid, 'VmHWM'), 1)} MB (git runs in its own processes)`)
  } catch (error) {
    console.log(`fork bench could not finish: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    if (svc) await stop(svc)
    fs.rmSync(dataDir, { recursive: true, force: true })
    fs.rmSync(workDir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchForks()
