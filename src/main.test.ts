import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { MAIN, freshInstanceEnv, runSvc as run } from './testing/cli.js'

/** A fresh instance without SVC_ROOT_PASSWORD, so the first start writes a random one. */
async function dataEnv(): Promise<Record<string, string>> {
  const { env } = await freshInstanceEnv()
  delete env.SVC_ROOT_PASSWORD
  return env
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address() as net.AddressInfo
      probe.close(() => resolve(address.port))
    })
  })
}

async function waitUntilReady(url: string, child: ChildProcessWithoutNullStreams) {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error('server exited')
    try {
      const res = await fetch(`${url}/-/readiness`)
      if (res.status === 200) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('server did not become ready')
}

describe('svc command', () => {
  test('--help prints the commands', async () => {
    const result = await run(['--help'], {})
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^Usage: svc \[command\] \[options\]/)
    for (const command of ['serve', 'migrate', 'create-user', 'create-token', 'openapi']) expect(result.stdout).toContain(`  ${command} `)
  })

  test('bad configuration exits non-zero with one line naming the variable and the expected form', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ SVC_PORT: 'eighty' }, 'svc: SVC_PORT="eighty" is invalid: expected a port number from 0 to 65535\n'],
      [{ SVC_DATABASE_URL: 'mysql://x' }, 'svc: SVC_DATABASE_URL="mysql://x" is invalid: expected a postgres:// URL\n'],
      [{ SVC_TIER: 'gold' }, 'svc: SVC_TIER="gold" is invalid: expected one of free, premium, ultimate\n'],
      [{ SVC_REDIS_URL: 'localhost:6379' }, 'svc: SVC_REDIS_URL="localhost:6379" is invalid: expected a redis:// URL\n'],
      [{ SVC_WORKERS: '0' }, 'svc: SVC_WORKERS="0" is invalid: expected an integer from 1 to 64\n'],
      [{ SVC_WORKERS: 'all' }, 'svc: SVC_WORKERS="all" is invalid: expected an integer from 1 to 64\n'],
    ]
    for (const [env, message] of cases) {
      const result = await run(['serve'], env)
      expect(result.code).not.toBe(0)
      expect(result.stderr).toBe(message)
    }
  })

  test('an unknown command is refused', async () => {
    const result = await run(['frobnicate'], await dataEnv())
    expect(result.code).toBe(2)
    expect(result.stderr).toBe("svc: unknown command 'frobnicate' (see svc --help)\n")
  })

  test('migrate applies the migrations once', async () => {
    const env = await dataEnv()
    const first = await run(['migrate'], env)
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/^applied: \d{8}T\d{4}_/)
    const second = await run(['migrate'], env)
    expect(second.stdout).toBe('database is up to date\n')
  })

  test('serve creates root with a private initial password, serves, and stops cleanly on SIGTERM', async () => {
    const env = await dataEnv()
    const port = await freePort()
    const token = 'svcpat-main-test-token-0001'
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', ...env, SVC_PORT: String(port), SVC_ROOT_TOKEN: token, SVC_LOG_LEVEL: 'info' },
    })
    let logs = ''
    child.stdout.on('data', (chunk) => (logs += chunk))
    const url = `http://127.0.0.1:${port}`
    await waitUntilReady(url, child)

    const file = path.join(env.SVC_DATA_DIR, 'initial_root_password')
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^Password: \S{20,}\n$/)
    const version = await fetch(`${url}/api/v4/version`, { headers: { 'private-token': token } })
    expect(version.status).toBe(200)
    // The job worker starts with the server: this hour's event retention job is scheduled and run.
    await expect
      .poll(async () => (await fetch(`${url}/-/metrics`)).text(), { timeout: 5000 })
      .toMatch(/svc_jobs\{kind="events\.remove-expired",state="done"\} [12]\n/)

    // A request still being received when SIGTERM arrives is answered before the process exits.
    const socket = net.connect(port, '127.0.0.1')
    await new Promise((r) => socket.once('connect', r))
    const received = new Promise<string>((resolve) => {
      let data = ''
      socket.on('data', (chunk) => (data += chunk))
      socket.on('close', () => resolve(data))
    })
    socket.write(`POST /api/v4/no-such-route HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{`)
    await new Promise((r) => setTimeout(r, 100))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    child.kill('SIGTERM')
    await new Promise((r) => setTimeout(r, 100))
    socket.end('}')
    expect(await received).toMatch(/^HTTP\/1\.1 404 /)
    expect(await exited).toBe(0)

    const lines = logs
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines.some((line) => line.msg === 'root password written' && line.path === file)).toBe(true)
    expect(lines.some((line) => typeof line.reqId === 'string')).toBe(true)
    // The in-flight request's own log line is written when its socket finishes, which may come after the close.
    expect(lines.filter((line) => line.msg !== 'request completed').at(-1)?.msg).toBe('stopped')
  })
})
