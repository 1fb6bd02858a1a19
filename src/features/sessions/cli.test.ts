import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { verifyPassword } from '../../core/secrets.js'
import { client } from '../../testing/http.js'
import { freePort, freshInstanceEnv, MAIN, runSvc, startSvc, waitUntilReady } from '../../testing/cli.js'
import { findUserByUsername } from '../users/index.js'
import { webClient } from './testing.js'

async function createAlice(env: Record<string, string>) {
  const created = await runSvc(
    ['create-user', '--username', 'alice', '--email', 'alice@example.com', '--name', 'Alice', '--password', 'first-password'],
    env,
  )
  expect(created.code, created.stderr).toBe(0)
}

describe('svc user reset-password', () => {
  test('sets the password read from standard input, with GitLab rake task answers', async () => {
    const { env, open } = await freshInstanceEnv()
    await createAlice(env)
    const changed = await runSvc(['user', 'reset-password', 'alice'], env, 'second-password\n')
    expect(changed).toEqual({ code: 0, stdout: 'Password successfully updated for user with username alice.\n', stderr: '' })
    const confirmed = await runSvc(['user', 'reset-password', 'alice'], env, 'third-password\nthird-password\n')
    expect(confirmed.code).toBe(0)
    const database = await open()
    try {
      const user = (await findUserByUsername(database.db, 'alice'))!
      expect(await verifyPassword('third-password', user.password_digest!)).toBe(true)
      expect(user.password_expires_at).toBeNull()
    } finally {
      await database.close()
    }

    const refusals: [string[], string, string][] = [
      [
        ['alice'],
        'fourth-password\nsomething-else\n',
        "svc user: Unable to change password of the user with username alice.\nPassword confirmation doesn't match Password\n",
      ],
      [
        ['alice'],
        'short\n',
        'svc user: Unable to change password of the user with username alice.\nPassword is too short (minimum is 8 characters)\n',
      ],
      [['nobody'], 'whatever-password\n', 'svc user: Unable to find user with username nobody.\n'],
      [[], '', 'svc user: Username can not be empty.\n'],
    ]
    for (const [rest, input, stderr] of refusals) {
      expect(await runSvc(['user', 'reset-password', ...rest], env, input)).toEqual({ code: 1, stdout: '', stderr })
    }
    expect(await runSvc(['user', 'rename', 'alice'], env)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svc user: expected reset-password <username> or unlock <username>\n',
    })
  })
})

/**
 * Runs `svc <args>` at a terminal (util-linux `script` gives it one), typing `answer` and Enter at each password
 * prompt once it shows; what the terminal showed.
 */
function runAtTerminal(args: string[], env: Record<string, string>, answer: string): Promise<{ code: number | null; screen: string }> {
  return new Promise((resolve) => {
    const command = [process.execPath, MAIN, ...args].map((word) => `'${word}'`).join(' ')
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: { PATH: process.env.PATH ?? '', ...env } })
    let screen = ''
    let answered = 0
    child.stdout.on('data', (chunk) => {
      screen += chunk
      const prompts = screen.match(/(Enter|Confirm) password: /g)?.length ?? 0
      for (; answered < prompts; answered++) child.stdin.write(`${answer}\r`)
    })
    child.on('close', (code) => resolve({ code, screen }))
  })
}

describe('svc user reset-password at a terminal', () => {
  test.skipIf(!existsSync('/usr/bin/script'))('asks twice without showing what is typed', async () => {
    const { env, open } = await freshInstanceEnv()
    await createAlice(env)
    const run = await runAtTerminal(['user', 'reset-password', 'alice'], env, 'typed-password-1')
    expect(run).toEqual({
      code: 0,
      screen: 'Enter password: \r\nConfirm password: \r\nPassword successfully updated for user with username alice.\r\n',
    })
    const database = await open()
    try {
      expect(await verifyPassword('typed-password-1', (await findUserByUsername(database.db, 'alice'))!.password_digest!)).toBe(true)
    } finally {
      await database.close()
    }
  })
})

describe('svc user commands on a running instance', () => {
  test('a new password ends the sessions the server holds; an unlock lets a locked user sign in at once', { timeout: 60_000 }, async () => {
    const { env } = await freshInstanceEnv({ migrated: true })
    await createAlice(env)
    const port = await freePort()
    const token = `svcpat-${randomBytes(12).toString('hex')}`
    const serverEnv = { ...env, SVC_PORT: String(port), SVC_ROOT_TOKEN: token }
    const url = `http://127.0.0.1:${port}`
    const child = startSvc(serverEnv)
    try {
      await waitUntilReady(url, child)
      // Many sign-ins from one address: the protected-paths limit is not what this tests.
      const settings = await client(url)('PUT', '/api/v4/application/settings', {
        token,
        body: { throttle_protected_paths_enabled: false },
      })
      expect(settings.status).toBe(200)
      const web = webClient(url)
      expect((await web.signIn('alice', 'first-password')).headers.location).toBe('/')
      expect((await web.request('GET', '/')).status).toBe(200)

      const changed = await runSvc(['user', 'reset-password', 'alice'], env, 'second-password\n')
      expect(changed.code, changed.stderr).toBe(0)
      expect((await web.request('GET', '/')).headers.location).toBe('/users/sign_in')

      // Ten wrong passwords lock the account (the default limit); the right one is then refused too.
      for (let i = 0; i < 10; i++) await webClient(url).signIn('alice', 'wrong-password')
      expect((await webClient(url).signIn('alice', 'second-password')).status).toBe(200)
      expect(await runSvc(['user', 'unlock', 'alice'], env)).toEqual({
        code: 0,
        stdout: 'Unlocked the account of the user with username alice.\n',
        stderr: '',
      })
      expect((await webClient(url).signIn('alice', 'second-password')).headers.location).toBe('/')
      expect(await runSvc(['user', 'unlock', 'alice'], env)).toEqual({
        code: 0,
        stdout: 'The account of the user with username alice is not locked.\n',
        stderr: '',
      })
      expect(await runSvc(['user', 'unlock', 'nobody'], env)).toEqual({
        code: 1,
        stdout: '',
        stderr: 'svc user: Unable to find user with username nobody.\n',
      })
    } finally {
      child.kill('SIGKILL')
    }
  })
})
