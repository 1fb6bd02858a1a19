import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { freePort, freshInstanceEnv, startSvc, waitUntilReady } from './testing/cli.js'
import { GitClient } from './testing/git.js'

const TOKEN = 'svcpat-workers-test-token-01'

interface Answer {
  status: number
  body: any
}

/** One request over a connection of its own, so that cluster hands each to the next worker. */
function fresh(
  port: number,
  method: string,
  path: string,
  options: { body?: unknown; requestId?: string; token?: string } = {},
): Promise<Answer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body)
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: {
          'private-token': options.token ?? TOKEN,
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...(options.requestId ? { 'x-request-id': options.requestId } : {}),
        },
      },
      (response) => {
        let text = ''
        response.on('data', (chunk) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text.startsWith('{') ? JSON.parse(text) : text }))
      },
    )
    request.on('error', reject)
    request.end(body)
  })
}

/** A process's command line, its arguments joined by spaces ('' once it is gone). */
function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim()
  } catch {
    return ''
  }
}

/** The live (not zombie) processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  const children: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue
    }
    // pid (comm) state ppid …: comm may hold spaces, so fields are counted from its closing parenthesis.
    const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(parent) === pid && state !== 'Z') children.push(Number(entry))
  }
  return children.sort((a, b) => a - b)
}

function alive(pid: number): boolean {
  try {
    return !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ')
  } catch {
    return false
  }
}

interface Started {
  child: ChildProcessWithoutNullStreams
  port: number
  workers: number[]
  /** Every JSON log line written so far, by every process. */
  logs(): Record<string, unknown>[]
}

/** `svc serve` with SVC_WORKERS=2, ready once both workers listen. */
async function startWorkers(env: Record<string, string>, port: number): Promise<Started> {
  const child = startSvc({ ...env, SVC_PORT: String(port), SVC_ROOT_TOKEN: TOKEN, SVC_WORKERS: '2', SVC_LOG_LEVEL: 'info' })
  // A failed test leaves nothing behind: the workers follow their primary.
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  const logs = () =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
  await waitUntilReady(`http://127.0.0.1:${port}`, child)
  await expect
    .poll(() => logs().filter((line) => line.msg === `Server listening at http://127.0.0.1:${port}`).length, { timeout: 20_000 })
    .toBe(2)
  const workers = childrenOf(child.pid!)
  return { child, port, workers, logs }
}

function exited(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)))
}

describe('svc serve with SVC_WORKERS=2', () => {
  test('two worker processes answer; settings changes and rate limits hold across them; SIGTERM stops every process', async () => {
    const { env } = await freshInstanceEnv()
    const svc = await startWorkers(env, await freePort())
    expect(svc.workers).toHaveLength(2)

    // Fresh connections go to the workers in turn: both answer.
    for (let n = 0; n < 6; n++) expect((await fresh(svc.port, 'GET', '/api/v4/version', { requestId: `probe-${n}` })).status).toBe(200)
    const answeredBy = new Set(
      svc
        .logs()
        .filter((line) => String(line.reqId).startsWith('probe-'))
        .map((line) => line.pid),
    )
    expect([...answeredBy].sort()).toEqual(svc.workers)

    // Both workers hold the settings now; a change made through one is seen at once through every connection.
    for (let n = 0; n < 4; n++)
      expect((await fresh(svc.port, 'GET', '/api/v4/application/settings')).body.throttle_authenticated_api_enabled).toBe(false)
    const changed = await fresh(svc.port, 'PUT', '/api/v4/application/settings', {
      body: {
        throttle_authenticated_api_enabled: true,
        throttle_authenticated_api_requests_per_period: 10,
        throttle_authenticated_api_period_in_seconds: 86400,
      },
    })
    expect(changed.status).toBe(200)
    for (let n = 0; n < 4; n++) {
      const seen = await fresh(svc.port, 'GET', '/api/v4/application/settings')
      expect(seen.status).toBe(200)
      expect([seen.body.throttle_authenticated_api_enabled, seen.body.throttle_authenticated_api_requests_per_period]).toEqual([true, 10])
    }
    // The limit counts the requests of every worker together: 4 above and 6 here pass, the rest are refused.
    const statuses: number[] = []
    for (let n = 0; n < 12; n++) statuses.push((await fresh(svc.port, 'GET', '/api/v4/version')).status)
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429, 429, 429, 429])

    const code = exited(svc.child)
    svc.child.kill('SIGTERM')
    expect(await code).toBe(0)
    expect(svc.workers.filter(alive)).toEqual([])
    const stopped = svc.logs().filter((line) => line.msg === 'stopped')
    expect(stopped.map((line) => line.pid).sort()).toEqual([...svc.workers, svc.child.pid].sort())
    expect(svc.logs().at(-1)).toMatchObject({ pid: svc.child.pid, msg: 'stopped' })
  })

  test('a worker that dies is replaced; when the primary is killed the workers go, and svc starts again on the same port', async () => {
    const { env } = await freshInstanceEnv()
    const port = await freePort()
    const first = await startWorkers(env, port)
    process.kill(first.workers[0], 'SIGKILL')
    await expect.poll(() => childrenOf(first.child.pid!).filter((pid) => !first.workers.includes(pid)).length, { timeout: 20_000 }).toBe(1)
    expect(first.logs().find((line) => line.msg === 'a worker died; replacing it')).toMatchObject({
      pid: first.child.pid,
      worker: first.workers[0],
      signal: 'SIGKILL',
    })
    const workers = childrenOf(first.child.pid!)
    expect(workers).toHaveLength(2)
    await expect
      .poll(() => first.logs().filter((line) => line.msg === `Server listening at http://127.0.0.1:${port}`).length, { timeout: 20_000 })
      .toBe(3)
    for (let n = 0; n < 4; n++) expect((await fresh(port, 'GET', '/api/v4/version')).status).toBe(200)

    first.child.kill('SIGKILL')
    await expect.poll(() => workers.filter(alive), { timeout: 5000 }).toEqual([])

    const second = await startWorkers(env, port)
    expect((await fresh(port, 'GET', '/api/v4/version')).status).toBe(200)
    const code = exited(second.child)
    second.child.kill('SIGTERM')
    expect(await code).toBe(0)
  })

  test('issues created and updated at once through both workers: unique consecutive iids, no failure', async () => {
    const { env } = await freshInstanceEnv()
    const svc = await startWorkers(env, await freePort())
    const project = await fresh(svc.port, 'POST', '/api/v4/projects', { body: { name: 'Busy' } })
    expect(project.status).toBe(201)
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        fresh(svc.port, 'POST', `/api/v4/projects/${project.body.id}/issues`, { body: { title: `Issue ${n}` } }),
      ),
    )
    expect(created.map((answer) => answer.status)).toEqual(Array(40).fill(201))
    expect(created.map((answer) => answer.body.iid as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, n) => n + 1))
    // An update reads before it writes, in one transaction: each begins by taking the write lock, so none fails.
    const updated = await Promise.all(
      created.map((answer) =>
        fresh(svc.port, 'PUT', `/api/v4/projects/${project.body.id}/issues/${answer.body.iid}`, {
          body: { title: 'Renamed', description: 'Read, then written' },
        }),
      ),
    )
    expect(updated.map((answer) => answer.status)).toEqual(Array(40).fill(200))
    const code = exited(svc.child)
    svc.child.kill('SIGTERM')
    expect(await code).toBe(0)
  })

  test('what one worker changes, every worker answers at once: a revoked token, a renamed project', async () => {
    const { env } = await freshInstanceEnv()
    const svc = await startWorkers(env, await freePort())
    const created = await fresh(svc.port, 'POST', '/api/v4/users/1/personal_access_tokens', { body: { name: 'kept', scopes: ['api'] } })
    expect(created.status).toBe(201)
    const project = await fresh(svc.port, 'POST', '/api/v4/projects', { body: { name: 'Before' } })
    // Every worker finds the token and reads the project, and keeps both.
    for (let n = 0; n < 6; n++) {
      expect((await fresh(svc.port, 'GET', '/api/v4/user', { token: created.body.token })).status).toBe(200)
      expect((await fresh(svc.port, 'GET', `/api/v4/projects/${project.body.id}`)).body.name).toBe('Before')
    }
    expect((await fresh(svc.port, 'DELETE', `/api/v4/personal_access_tokens/${created.body.id}`)).status).toBe(204)
    expect((await fresh(svc.port, 'PUT', `/api/v4/projects/${project.body.id}`, { body: { name: 'After' } })).status).toBe(200)
    for (let n = 0; n < 4; n++) {
      expect(await fresh(svc.port, 'GET', '/api/v4/user', { token: created.body.token })).toEqual({
        status: 401,
        body: { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' },
      })
      expect((await fresh(svc.port, 'GET', `/api/v4/projects/${project.body.id}`)).body.name).toBe('After')
    }
    const code = exited(svc.child)
    svc.child.kill('SIGTERM')
    expect(await code).toBe(0)
  })

  test('each worker starts git through its own Perl starter: writes, reads, streams, failures, clones and pushes', async () => {
    const { env } = await freshInstanceEnv()
    const svc = await startWorkers(env, await freePort())
    // The README commit is written by git plumbing with input on its standard input.
    const project = await fresh(svc.port, 'POST', '/api/v4/projects', { body: { name: 'Spawned', initialize_with_readme: true } })
    expect(project.status).toBe(201)
    const files = `/api/v4/projects/${project.body.id}/repository/files`
    const written = await fresh(svc.port, 'POST', `${files}/hello.txt`, {
      body: { branch: 'main', content: 'Hello\n', commit_message: 'Add hello' },
    })
    expect(written).toEqual({ status: 201, body: { file_path: 'hello.txt', branch: 'main' } })
    // Each worker reads through git: a streamed raw file, a JSON file read, and a file git does not find.
    for (let n = 0; n < 2; n++) {
      expect(await fresh(svc.port, 'GET', `${files}/hello.txt/raw?ref=main`)).toEqual({ status: 200, body: 'Hello\n' })
      expect((await fresh(svc.port, 'GET', `${files}/hello.txt?ref=main`)).body).toMatchObject({
        file_name: 'hello.txt',
        content: 'SGVsbG8K',
      })
      expect(await fresh(svc.port, 'GET', `${files}/missing.md/raw?ref=main`)).toEqual({
        status: 404,
        body: { message: '404 File Not Found' },
      })
    }
    // Each worker's one child is its starter, whose children are the worker's long-lived object reader.
    const starters = svc.workers.map((worker) => childrenOf(worker))
    expect(starters.map((children) => children.map((pid) => commandLine(pid).split(' ').slice(0, 2).join(' ')))).toEqual([
      ['perl -e'],
      ['perl -e'],
    ])
    const gitChildren = starters.flat().flatMap((starter) => childrenOf(starter))
    expect(gitChildren.map(commandLine).map((line) => line.replace(/--git-dir=\S+/, '--git-dir=…'))).toEqual([
      'git --git-dir=… cat-file --batch-command',
      'git --git-dir=… cat-file --batch-command',
    ])

    const git = new GitClient()
    const url = `http://root:${TOKEN}@127.0.0.1:${svc.port}/root/spawned.git`
    const { run, dir } = await git.clone(url)
    expect(run.code, run.stderr).toBe(0)
    expect(fs.readFileSync(`${dir}/hello.txt`, 'utf8')).toBe('Hello\n')
    fs.writeFileSync(`${dir}/notes.txt`, 'pushed through a worker\n')
    await git.ok(dir, 'add', 'notes.txt')
    await git.ok(dir, 'commit', '--quiet', '-m', 'Add notes')
    await git.ok(dir, 'push', '--quiet', 'origin', 'HEAD:main')
    const pushed = (await git.ok(dir, 'rev-parse', 'HEAD')).trim()
    for (let n = 0; n < 2; n++) {
      expect(await fresh(svc.port, 'GET', `${files}/notes.txt/raw?ref=main`)).toEqual({ status: 200, body: 'pushed through a worker\n' })
      const compare = await fresh(svc.port, 'GET', `/api/v4/projects/${project.body.id}/repository/compare?from=main~1&to=main`)
      expect(compare.body.commit.id).toBe(pushed)
      expect(compare.body.diffs.map((diff: { new_path: string; diff: string }) => [diff.new_path, diff.diff])).toEqual([
        ['notes.txt', '@@ -0,0 +1 @@\n+pushed through a worker\n'],
      ])
    }
    const code = exited(svc.child)
    svc.child.kill('SIGTERM')
    expect(await code).toBe(0)
    expect([...starters.flat(), ...gitChildren].filter(alive)).toEqual([])
  })
})

describe('svc serve where there is no Perl', () => {
  test('starts git itself, and reads and writes repositories as with Perl', async () => {
    const { env } = await freshInstanceEnv()
    // A PATH with git and nothing else: no perl.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-no-perl-'))
    onTestFinished(() => fs.rmSync(bin, { recursive: true, force: true }))
    fs.symlinkSync('/usr/bin/git', path.join(bin, 'git'))
    const port = await freePort()
    const child = startSvc({ ...env, PATH: bin, SVC_PORT: String(port), SVC_ROOT_TOKEN: TOKEN, SVC_WORKERS: '1' })
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL')
    })
    await waitUntilReady(`http://127.0.0.1:${port}`, child)
    const project = await fresh(port, 'POST', '/api/v4/projects', { body: { name: 'Plain', initialize_with_readme: true } })
    expect(project.status).toBe(201)
    const files = `/api/v4/projects/${project.body.id}/repository/files`
    const written = await fresh(port, 'POST', `${files}/hello.txt`, {
      body: { branch: 'main', content: 'Hello\n', commit_message: 'Add hello' },
    })
    expect(written).toEqual({ status: 201, body: { file_path: 'hello.txt', branch: 'main' } })
    expect(await fresh(port, 'GET', `${files}/hello.txt/raw?ref=main`)).toEqual({ status: 200, body: 'Hello\n' })
    expect(await fresh(port, 'GET', `${files}/missing.md/raw?ref=main`)).toEqual({ status: 404, body: { message: '404 File Not Found' } })
    // svc's own children are git's (the object reader), with no starter between.
    expect(childrenOf(child.pid!).map((pid) => commandLine(pid).replace(/--git-dir=\S+/, '--git-dir=…'))).toEqual([
      'git --git-dir=… cat-file --batch-command',
    ])
    const code = exited(child)
    child.kill('SIGTERM')
    expect(await code).toBe(0)
  })
})
