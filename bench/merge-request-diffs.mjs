// `GET merge_requests/:iid/diffs` of a merge request changing 1,000 files (pushed over HTTP to an embedded svc): the
// time of one request, sequentially, at the default page size and at per_page=100, and the same for `/changes`.
// Prints figures only. Run alone with `node bench/merge-request-diffs.mjs` after a build.
import { execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { api, format, median, percentile, printTable, request, startSvc, stop, svcEnv } from './common.mjs'

const FILES = 1_000
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 50)

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0' }
const git = (cwd, ...args) => promisify(execFile)('git', args, { cwd, env: gitEnv, maxBuffer: 64 << 20 }).then((r) => r.stdout)

/** main with FILES files of 20 lines; `feature` changing one line of each, as a fast-import stream. */
function writeHistory(input) {
  const at = 1_700_000_000
  const data = (text) => `data ${Buffer.byteLength(text)}\n${text}`
  const name = (n) => `dir-${String(n % 50).padStart(2, '0')}/file-${String(n).padStart(4, '0')}.txt`
  const lines = (n, changed) =>
    Array.from({ length: 20 }, (_, line) => (changed && line === 10 ? `changed ${n}` : `line ${line} of ${n}`)).join('\n') + '\n'
  const out = [
    'commit refs/heads/main',
    `committer Bench <bench@example.com> ${at} +0000`,
    data('Add the files'),
    'M 100644 inline README.md',
    data('# Diffs\n'),
  ]
  for (let n = 0; n < FILES; n++) out.push(`M 100644 inline ${name(n)}`, data(lines(n, false)))
  out.push(
    '',
    'commit refs/heads/feature',
    `committer Bench <bench@example.com> ${at + 1} +0000`,
    data('Change every file'),
    'from refs/heads/main',
  )
  for (let n = 0; n < FILES; n++) out.push(`M 100644 inline ${name(n)}`, data(lines(n, true)))
  input.end(out.join('\n') + '\n')
}

async function generateRepository(workDir) {
  const directory = path.join(workDir, 'diffs.git')
  await git(workDir, 'init', '--quiet', '--bare', '--initial-branch=main', directory)
  const child = spawn('git', ['--git-dir', directory, 'fast-import', '--quiet'], { env: gitEnv, stdio: ['pipe', 'ignore', 'inherit'] })
  const exited = new Promise((resolve, reject) =>
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`fast-import ${code}`)))),
  )
  writeHistory(child.stdin)
  await exited
  return directory
}

/** Sequential requests: milliseconds of each. */
async function timings(port, urlPath, token) {
  const times = []
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now()
    const response = await request(port, 'GET', urlPath, { headers: { 'private-token': token } })
    times.push(performance.now() - started)
    if (response.status !== 200) throw new Error(`${urlPath}: ${response.status} ${response.body.slice(0, 200)}`)
  }
  return times.sort((a, b) => a - b)
}

export async function benchMergeRequestDiffs() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-mr-diffs-'))
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-mr-diffs-work-'))
  const token = `bench-${randomBytes(16).toString('hex')}`
  const env = await svcEnv(dataDir, { SVC_ROOT_TOKEN: token, SVC_STORAGES: `default=${path.join(dataDir, 'storage')}` })
  const port = Number(env.SVC_PORT)
  let svc = null
  try {
    const source = await generateRepository(workDir)
    svc = (await startSvc(env)).child
    const created = await api(port, 'POST', '/projects', token, { name: 'diffs', path: 'diffs', visibility: 'private' })
    if (created.status !== 201) throw new Error(`could not create the project: ${created.status}`)
    const projectId = created.body.id
    await git(workDir, '--git-dir', source, 'push', '--quiet', `http://root:${token}@127.0.0.1:${port}/root/diffs.git`, 'main', 'feature')
    const opened = await api(port, 'POST', `/projects/${projectId}/merge_requests`, token, {
      source_branch: 'feature',
      target_branch: 'main',
      title: 'Change every file',
    })
    if (opened.status !== 201) throw new Error(`could not open the merge request: ${opened.status}`)
    const one = `/api/v4/projects/${projectId}/merge_requests/${opened.body.iid}`
    console.log(
      `\nmerge request diffs: ${FILES} changed files (changes_count ${opened.body.changes_count}), ${ROUNDS} sequential requests each, ${os.cpus().length} CPUs`,
    )
    const rows = [['request', 'p50 ms', 'p90 ms', 'max ms']]
    for (const [name, urlPath] of [
      ['GET …/diffs (20 a page)', `${one}/diffs`],
      ['GET …/diffs?per_page=100', `${one}/diffs?per_page=100`],
      ['GET …/changes (all 1,000)', `${one}/changes`],
      ['GET …/merge_requests/:iid', one],
    ]) {
      await timings(port, urlPath, token) // warm-up round
      const times = await timings(port, urlPath, token)
      rows.push([name, format(median(times), 1), format(percentile(times, 0.9), 1), format(times[times.length - 1], 1)])
    }
    printTable(rows)
  } finally {
    if (svc) await stop(svc)
    fs.rmSync(dataDir, { recursive: true, force: true })
    fs.rmSync(workDir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchMergeRequestDiffs()
