import { describe, expect, test } from 'vitest'
import { verifyPassword } from '../../core/secrets.js'
import { freshInstanceEnv as dataEnv, runSvc as run } from '../../testing/cli.js'
import { findUserByUsername } from './store.js'

describe('svc create-user', () => {
  test('creates a confirmed user with the given password, on a fresh database', async () => {
    const { env, open } = await dataEnv()
    const result = await run(
      ['create-user', '--username', 'ops', '--email', 'Ops@Example.com', '--name', 'Ops Team', '--password', 'ops-password', '--admin'],
      env,
    )
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const database = await open()
    try {
      const user = (await findUserByUsername(database.db, 'ops'))!
      expect(result.stdout).toBe(`Created user ops (id ${user.id}) as an administrator\n`)
      expect(user).toMatchObject({ email: 'ops@example.com', name: 'Ops Team', admin: 1 })
      expect(user.confirmed_at).not.toBeNull()
      expect(await verifyPassword('ops-password', user.password_digest!)).toBe(true)
      const root = (await findUserByUsername(database.db, 'root'))!
      expect(user.created_by_id).toBe(root.id)
    } finally {
      await database.close()
    }
  })

  test('without --password a random one is printed once', async () => {
    const { env, open } = await dataEnv()
    const result = await run(['create-user', '--username', 'dev', '--email', 'dev@example.com', '--name', 'Dev'], env)
    expect(result.code).toBe(0)
    const match = /^Created user dev \(id \d+\)\nPassword: (\S+)\n$/.exec(result.stdout)
    expect(match).not.toBeNull()
    const database = await open()
    try {
      const user = (await findUserByUsername(database.db, 'dev'))!
      expect(user.admin).toBe(0)
      expect(await verifyPassword(match![1], user.password_digest!)).toBe(true)
    } finally {
      await database.close()
    }
  })

  test('refusals are one line on stderr with a non-zero exit', async () => {
    const { env } = await dataEnv()
    const cases: [string[], string, number][] = [
      [['--email', 'a@example.com', '--name', 'A'], 'svc create-user: --username is required\n', 2],
      [['--username', 'a', '--email', 'a@example.com', '--name', 'A', '--colour', 'red'], "svc create-user: Unknown option '--colour'", 2],
      [
        ['--username', 'admin', '--email', 'bad', '--name', 'A', '--password', 'short'],
        'svc create-user: email: is invalid; password: is too short (minimum is 8 characters); username: admin is a reserved name\n',
        1,
      ],
      [['--username', 'root', '--email', 'other@example.com', '--name', 'A'], 'svc create-user: Username has already been taken\n', 1],
    ]
    for (const [args, stderr, code] of cases) {
      const result = await run(['create-user', ...args], env)
      expect(result.code).toBe(code)
      expect(result.stdout).toBe('')
      expect(result.stderr.startsWith(stderr)).toBe(true)
    }
  })
})
