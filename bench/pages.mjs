// The server time of the web pages, as a signed-in browser asks for them: a project page, a folder of 1,000 entries, a
// 5,000-line TypeScript file and a merge request with 200 comments, on a fresh SQLite data directory (one process).
// Each page is asked for warm, one request at a time, on one kept-alive connection: p50 and p99 of the time to the full
// response, its size, svc's CPU time per request (its process tree, from /proc) and its RSS; and, for scale, a bare
// node:http server sending the same bytes (bench/bare.mjs). Target: each page under 50 ms. Prints figures only.
// Run alone with `node bench/pages.mjs` after a build.
import { execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { URLSearchParams, fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import {
  api,
  format,
  percentile,
  printTable,
  processTree,
  recording,
  request,
  startBare,
  startSvc,
  stop,
  svcEnv,
  treeMemory,
} from './common.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20)
const TARGET_MS = 50
const FOLDER = 'lib'
const FOLDER_ENTRIES = 1_000
const SUBFOLDERS = 50
const FILE = 'src/server.ts'
const FILE_LINES = 5_000
const HISTORY = 50
const COMMENTS = 200

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0' }
const git = (cwd, ...args) => promisify(execFile)('git', args, { cwd, env: gitEnv, maxBuffer: 64 << 20 }).then((r) => r.stdout)

/** FILE_LINES lines of TypeScript: interfaces, classes, functions, comments, strings and numbers; `variant` changes a few. */
function typescript(variant = 0) {
  const lines = ["import { EventEmitter } from 'node:events'", "import type { Readable } from 'node:stream'", '']
  for (let block = 0; lines.length < FILE_LINES; block++) {
    lines.push(
      `/** Settings of handler ${block}: how many items it keeps and how long it waits. */`,
      `export interface Options${block} {`,
      `  limit: number`,
      `  timeoutMs?: number // ${variant && block % 40 === 0 ? 'changed' : 'defaults to 1000'}`,
      `  label: string`,
      `}`,
      '',
      `export class Handler${block} extends EventEmitter {`,
      `  private readonly items = new Map<string, number>()`,
      `  constructor(private readonly options: Options${block} = { limit: ${block * 10 + 5}, label: 'handler-${block}' }) {`,
      `    super()`,
      `  }`,
      '',
      `  async handle(key: string, stream: Readable): Promise<number> {`,
      `    let total = 0`,
      `    for await (const chunk of stream) total += (chunk as Buffer).length`,
      `    if (this.items.size >= this.options.limit) this.items.delete(this.items.keys().next().value as string)`,
      `    this.items.set(key, total * ${(block % 7) + 1}.5)`,
      `    this.emit('handled', { key, total, label: \`\${this.options.label}:${block}\` })`,
      `    return total`,
      `  }`,
      `}`,
      '',
    )
  }
  return lines.slice(0, FILE_LINES).join('\n') + '\n'
}

/** main: a README, FOLDER with FOLDER_ENTRIES entries, FILE, then HISTORY commits; `feature` changing FILE. */
function writeHistory(input) {
  const at = 1_700_000_000
  const data = (text) => `data ${Buffer.byteLength(text)}\n${text}`
  const entry = (n) =>
    n < SUBFOLDERS ? `${FOLDER}/group-${String(n).padStart(2, '0')}/index.ts` : `${FOLDER}/module-${String(n).padStart(4, '0')}.ts`
  const module = (n, version) => `// Module ${n}, version ${version}.\nexport const value${n} = ${n * 3 + version}\n`
  const readme = [
    '# Pages',
    '',
    'A project for the **pages bench**: a README, a folder of 1,000 entries and a 5,000-line file.',
    '',
    '## Layout',
    '',
    ...Array.from({ length: 20 }, (_, n) => `- \`${FOLDER}/module-${String(n + 100).padStart(4, '0')}.ts\`: part ${n} of the whole`),
    '',
    '```ts',
    "import { value100 } from './lib/module-0100.js'",
    'console.log(value100)',
    '```',
    '',
  ].join('\n')
  const out = ['commit refs/heads/main', `committer Bench <bench@example.com> ${at} +0000`, data('Add the project')]
  out.push('M 100644 inline README.md', data(readme), `M 100644 inline ${FILE}`, data(typescript()))
  for (let n = 0; n < FOLDER_ENTRIES; n++) out.push(`M 100644 inline ${entry(n)}`, data(module(n, 0)))
  for (let c = 1; c <= HISTORY; c++) {
    const n = (c * 37) % FOLDER_ENTRIES
    out.push(
      '',
      'commit refs/heads/main',
      `committer Bench <bench@example.com> ${at + c * 60} +0000`,
      data(`Change ${entry(n)}`),
      `M 100644 inline ${entry(n)}`,
      data(module(n, c)),
    )
  }
  out.push(
    '',
    'commit refs/heads/feature',
    `committer Bench <bench@example.com> ${at + (HISTORY + 1) * 60} +0000`,
    data('Change the server'),
    'from refs/heads/main',
    `M 100644 inline ${FILE}`,
    data(typescript(1)),
  )
  input.end(out.join('\n') + '\n')
}

async function generateRepository(workDir) {
  const directory = path.join(workDir, 'pages.git')
  await git(workDir, 'init', '--quiet', '--bare', '--initial-branch=main', directory)
  const child = spawn('git', ['--git-dir', directory, 'fast-import', '--quiet'], { env: gitEnv, stdio: ['pipe', 'ignore', 'inherit'] })
  const exited = new Promise((resolve, reject) =>
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`fast-import ${code}`)))),
  )
  writeHistory(child.stdin)
  await exited
  return directory
}

/** utime + stime + cutime + cstime of a process, in ms (its children reaped so far count in the last two). */
function processCpuMillis(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / 100
  } catch {
    return 0 // exited meanwhile; its parent counts it once reaped
  }
}

/** CPU time of svc and of the git processes it runs, so far, in ms. */
const treeCpuMillis = (pid) => processTree(pid).reduce((sum, member) => sum + processCpuMillis(member), 0)

/** A signed-in session: the sign-in form's authenticity_token and cookie, posted back; answers the Cookie header. */
async function signIn(port, login, password) {
  const cookieOf = (response, previous) => {
    const header = [response.headers['set-cookie'] ?? []].flat().find((line) => line.startsWith('_svc_session='))
    return header ? header.split(';')[0] : previous
  }
  const form = await request(port, 'GET', '/users/sign_in')
  const token = /name="authenticity_token" value="([^"]+)"/.exec(form.body)?.[1]
  if (!token) throw new Error('no authenticity_token on the sign-in form')
  let cookie = cookieOf(form, '')
  const body = new URLSearchParams({ authenticity_token: token, 'user[login]': login, 'user[password]': password }).toString()
  const posted = await request(port, 'POST', '/users/sign_in', {
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  })
  cookie = cookieOf(posted, cookie)
  if (posted.status !== 302 || !cookie) throw new Error(`sign-in answered ${posted.status}`)
  return cookie
}

/** `rounds` sequential requests on `agent`'s connection: the milliseconds of each, ascending, and the last response. */
async function timings(port, urlPath, headers, agent, rounds) {
  const times = []
  let response = null
  for (let round = 0; round < rounds; round++) {
    const started = performance.now()
    response = await request(port, 'GET', urlPath, { headers, agent })
    times.push(performance.now() - started)
    if (response.status !== 200) throw new Error(`${urlPath}: ${response.status} ${response.body.slice(0, 200)}`)
  }
  return { times: times.sort((a, b) => a - b), response }
}

export async function benchPages() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-pages-'))
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-pages-work-'))
  const token = `bench-${randomBytes(16).toString('hex')}`
  const password = `bench-root-${randomBytes(8).toString('hex')}`
  const env = await svcEnv(dataDir, {
    SVC_ROOT_TOKEN: token,
    SVC_ROOT_PASSWORD: password,
    SVC_STORAGES: `default=${path.join(dataDir, 'storage')}`,
  })
  const port = Number(env.SVC_PORT)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  let svc = null
  let bare = null
  try {
    const source = await generateRepository(workDir)
    svc = (await startSvc(env)).child
    const created = await api(port, 'POST', '/projects', token, { name: 'pages', path: 'pages', visibility: 'public' })
    if (created.status !== 201) throw new Error(`could not create the project: ${created.status}`)
    const projectId = created.body.id
    await git(workDir, '--git-dir', source, 'push', '--quiet', `http://root:${token}@127.0.0.1:${port}/root/pages.git`, 'main', 'feature')
    const opened = await api(port, 'POST', `/projects/${projectId}/merge_requests`, token, {
      source_branch: 'feature',
      target_branch: 'main',
      title: 'Change the server',
      description: 'Changes `timeoutMs` in a few **handlers**.',
    })
    if (opened.status !== 201) throw new Error(`could not open the merge request: ${opened.status}`)
    const iid = opened.body.iid
    for (let n = 1; n <= COMMENTS; n++) {
      const body =
        n % 5 === 0
          ? `Comment ${n}: see \`Handler${n}\` in ${FILE}.\n\n\`\`\`ts\nconst handler = new Handler${n}()\n\`\`\``
          : `Comment ${n}: **looks good**, but check [the options](https://example.com/${n}) of \`Options${n}\`.`
      const noted = await api(port, 'POST', `/projects/${projectId}/merge_requests/${iid}/notes`, token, { body })
      if (noted.status !== 201) throw new Error(`could not comment: ${noted.status}`)
    }
    const cookie = await signIn(port, 'root', password)
    const headers = { cookie }
    const pages = [
      ['project page', '/root/pages'],
      [`tree, ${FOLDER_ENTRIES.toLocaleString('en')} entries`, `/root/pages/-/tree/main/${FOLDER}`],
      [`blob, ${FILE_LINES.toLocaleString('en')}-line .ts`, `/root/pages/-/blob/main/${FILE}`],
      [`merge request, ${COMMENTS} comments`, `/root/pages/-/merge_requests/${iid}`],
    ]

    const measured = []
    const recorded = {}
    for (const [name, urlPath] of pages) {
      const warm = await timings(port, urlPath, headers, agent, WARMUP)
      if (!warm.response.body.includes('Sign out') && !warm.response.body.includes('sign_out'))
        console.log(`${name}: the page does not look signed in`)
      const cpuBefore = treeCpuMillis(svc.pid)
      const { times, response } = await timings(port, urlPath, headers, agent, ROUNDS)
      const cpu = (treeCpuMillis(svc.pid) - cpuBefore) / ROUNDS
      measured.push({ name, urlPath, times, cpu, bytes: Buffer.byteLength(response.body), rss: treeMemory(svc.pid) })
      recorded[`GET ${urlPath}`] = recording(response)
    }

    const recordingFile = path.join(workDir, 'responses.json')
    fs.writeFileSync(recordingFile, JSON.stringify(recorded))
    const started = await startBare(recordingFile)
    bare = started.child
    const bareAgent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    for (const page of measured) {
      await timings(started.port, page.urlPath, {}, bareAgent, WARMUP)
      page.bare = (await timings(started.port, page.urlPath, {}, bareAgent, ROUNDS)).times
    }
    bareAgent.destroy()

    console.log(
      `\nweb pages as a signed-in administrator: ${WARMUP} warm-up then ${ROUNDS} sequential requests each on one kept-alive ` +
        `connection, svc SVC_WORKERS=1 on SQLite, ${os.cpus().length} CPUs, load average ${os
          .loadavg()
          .map((value) => value.toFixed(2))
          .join(' ')}`,
    )
    const rows = [
      ['page', 'bytes', 'svc p50 ms', 'svc p99 ms', 'svc CPU ms/req', 'bare p50 ms', 'bare p99 ms', 'svc/bare p50', 'RSS MB', 'target'],
    ]
    for (const page of measured) {
      const p50 = percentile(page.times, 0.5)
      rows.push([
        page.name,
        page.bytes.toLocaleString('en'),
        format(p50, 1),
        format(percentile(page.times, 0.99), 1),
        format(page.cpu, 1),
        format(percentile(page.bare, 0.5), 2),
        format(percentile(page.bare, 0.99), 2),
        `${format(p50 / percentile(page.bare, 0.5), 0)}x`,
        format(page.rss.total, 1),
        p50 < TARGET_MS ? 'meets target' : 'misses target',
      ])
    }
    printTable(rows)
    console.log(
      `target: each page under ${TARGET_MS} ms of server time (judged on p50 of the time to the full response; CPU ms/req is svc's ` +
        'process tree, git included; RSS is the tree summed after that page)',
    )
  } catch (error) {
    console.log(`pages bench could not finish: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    agent.destroy()
    if (svc) await stop(svc)
    if (bare) await stop(bare)
    fs.rmSync(dataDir, { recursive: true, force: true })
    fs.rmSync(workDir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchPages()
