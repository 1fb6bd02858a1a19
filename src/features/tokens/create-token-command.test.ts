import { describe, expect, test } from 'vitest'
import { digestToken } from '../../core/secrets.js'
import { addDays, isoDate } from '../../core/time.js'
import { freshInstanceEnv, runSvc as run } from '../../testing/cli.js'

async function instance() {
  const { env, open } = await freshInstanceEnv({ migrated: true })
  async function tokenRow(value: string) {
    const database = await open()
    try {
      return await database.db
        .selectFrom('personal_access_tokens')
        .innerJoin('users', 'users.id', 'personal_access_tokens.user_id')
        .select(['personal_access_tokens.name', 'scopes', 'expires_at', 'impersonation', 'users.username'])
        .where('token_digest', '=', digestToken(value))
        .executeTakeFirst()
    } finally {
      await database.close()
    }
  }
  return { env, tokenRow }
}

describe('svc create-token', () => {
  test('prints only the new token; the database keeps its digest', async () => {
    const { env, tokenRow } = await instance()
    const result = await run(['create-token', '--user', 'ROOT', '--scopes', 'api,read_user', '--name', 'deploy'], env)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^svcpat-[A-Za-z0-9_-]{20}\n$/)
    const row = await tokenRow(result.stdout.trim())
    expect(row).toEqual({
      name: 'deploy',
      scopes: JSON.stringify(['api', 'read_user']),
      expires_at: isoDate(addDays(new Date(), 365)),
      impersonation: 0,
      username: 'root',
    })
  })

  test('takes an expiry date and a user id', async () => {
    const { env, tokenRow } = await instance()
    const expiresAt = isoDate(addDays(new Date(), 30))
    const result = await run(['create-token', '--user', '1', '--scopes', 'read_api', '--expires-at', expiresAt], env)
    expect(result.code).toBe(0)
    expect(await tokenRow(result.stdout.trim())).toMatchObject({ name: 'svc create-token', expires_at: expiresAt, username: 'root' })
  })

  test('refusals: one line on stderr and a non-zero exit', async () => {
    const { env } = await instance()
    const cases: [string[], number, string][] = [
      [['--scopes', 'api'], 2, '--user is required'],
      [['--user', 'root'], 2, '--scopes is required'],
      [['--user', 'root', '--scopes', 'api', '--expires-at', '2026-02-30'], 2, '--expires-at must be a date, YYYY-MM-DD'],
      [['--user', 'nobody', '--scopes', 'api'], 1, 'no user with id or username nobody'],
      [['--user', 'root', '--scopes', 'api,everything'], 1, 'scopes: can only contain available scopes'],
      [
        ['--user', 'root', '--scopes', 'api', '--expires-at', isoDate(addDays(new Date(), 400))],
        1,
        `expires_at: must be before ${isoDate(addDays(new Date(), 365))}`,
      ],
    ]
    for (const [args, code, message] of cases) {
      const result = await run(['create-token', ...args], env)
      expect(result.code, args.join(' ')).toBe(code)
      expect(result.stdout).toBe('')
      expect(result.stderr).toBe(`svc create-token: ${message}\n`)
    }
  })
})
