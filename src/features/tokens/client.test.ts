import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { addDays, isoDate } from '../../core/time.js'
import { createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let admin: InstanceType<typeof Gitlab>

beforeAll(async () => {
  server = await startTestServer()
  admin = new Gitlab({ host: server.url, token: server.rootToken })
})
afterAll(() => server.close())

describe('the gitbeaker client', () => {
  test('creates, lists, shows, rotates and revokes personal access tokens', async () => {
    const owner = await createTestUser(server.database.db)
    const expiresAt = isoDate(addDays(new Date(), 60))
    const created = await admin.PersonalAccessTokens.create(owner.id, 'gitbeaker', ['api'], { expiresAt })
    expect(created).toMatchObject({ name: 'gitbeaker', scopes: ['api'], user_id: owner.id, expires_at: expiresAt, active: true })

    const asOwner = new Gitlab({ host: server.url, token: created.token as string })
    expect((await asOwner.PersonalAccessTokens.show()).id).toBe(created.id)
    expect((await asOwner.PersonalAccessTokens.all()).map((t) => t.id)).toEqual([created.id])
    expect((await admin.PersonalAccessTokens.all({ userId: owner.id })).map((t) => t.id)).toEqual([created.id])

    const rotated = await asOwner.PersonalAccessTokens.rotate('self')
    expect(rotated).toMatchObject({ name: 'gitbeaker', active: true })
    const asRotated = new Gitlab({ host: server.url, token: rotated.token as string })
    const again = await asRotated.PersonalAccessTokens.rotate(rotated.id as number, { expiresAt })
    expect(again.expires_at).toBe(expiresAt)

    await admin.PersonalAccessTokens.remove({ tokenId: again.id as number })
    expect((await admin.PersonalAccessTokens.show({ tokenId: again.id as number })).revoked).toBe(true)
    await expect(new Gitlab({ host: server.url, token: again.token as string }).PersonalAccessTokens.show()).rejects.toThrow()
  })

  test('manages impersonation tokens and acts through sudo', async () => {
    const owner = await createTestUser(server.database.db)
    const created = await admin.UserImpersonationTokens.create(owner.id, 'impersonate', ['api'])
    expect(created).toMatchObject({ name: 'impersonate', impersonation: true, active: true })
    expect((await admin.UserImpersonationTokens.all(owner.id)).map((t) => t.id)).toEqual([created.id])
    expect((await admin.UserImpersonationTokens.show(owner.id, created.id)).id).toBe(created.id)
    await admin.UserImpersonationTokens.revoke(owner.id, created.id)
    expect(await admin.UserImpersonationTokens.all(owner.id, { state: 'active' })).toEqual([])

    const seenAsOwner = await admin.PersonalAccessTokens.all({ sudo: owner.username })
    expect(seenAsOwner).toEqual([])
  })
})
