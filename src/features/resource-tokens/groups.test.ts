import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { addTestMember, createTestGroup, createTestProject } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { createPerson } from '../../testing/roles.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>
const now = new Date()
const day = (days: number) => new Date(now.getTime() + days * 86_400_000).toISOString().slice(0, 10)

beforeAll(async () => {
  server = await startTestServer()
  server.freeze(now)
  request = client(server.url)
})
afterAll(() => server.close())

function call(method: string, path: string, token: string | undefined, body?: unknown) {
  return request(method, `/api/v4${path}`, { token, body })
}

/** A private group with a project, an Owner, a Maintainer and an outsider. */
async function team() {
  const db = server.database.db
  const group = await createTestGroup(db, { visibility: 'private' })
  const project = await createTestProject(db, { namespace: group, visibility: 'private' })
  const owner = await createPerson(db)
  const maintainer = await createPerson(db)
  await addTestMember(db, { user: owner.user, group, accessLevel: 50 })
  await addTestMember(db, { user: maintainer.user, group, accessLevel: 40 })
  return { group, project, owner, maintainer, outsider: await createPerson(db) }
}

describe('group access tokens', () => {
  test('an Owner creates, lists, shows, rotates and revokes them', async () => {
    const { group, owner } = await team()
    const path = `/groups/${group.id}/access_tokens`
    const created = await call('POST', path, owner.token, { name: 'group ci', scopes: ['read_api'], access_level: 50 })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'group ci',
      revoked: false,
      created_at: now.toISOString(),
      description: null,
      scopes: ['read_api'],
      user_id: expect.any(Number),
      last_used_at: null,
      active: true,
      expires_at: day(365),
      access_level: 50,
      token: expect.stringMatching(/^svcpat-/),
    })
    const bot = await server.database.db.selectFrom('users').selectAll().where('id', '=', created.body.user_id).executeTakeFirstOrThrow()
    expect(bot.username).toMatch(new RegExp(`^group_${group.id}_bot_[0-9a-f]{32}$`))
    expect(bot.bot).toBe(1)
    const members = await server.database.db.selectFrom('members').selectAll().where('user_id', '=', bot.id).execute()
    expect(members).toMatchObject([{ namespace_id: group.id, project_id: null, access_level: 50 }])

    const { token: _token, ...entity } = created.body
    const list = await call('GET', path, owner.token)
    expect(list).toMatchObject({ status: 200, body: [entity] })
    expect(list.headers['x-total']).toBe('1')
    expect(await call('GET', `${path}/${created.body.id}`, owner.token)).toMatchObject({ status: 200, body: entity })

    const rotated = await call('POST', `${path}/${created.body.id}/rotate`, owner.token)
    expect(rotated.status).toBe(200)
    expect(rotated.body).toEqual({ ...created.body, id: expect.any(Number), expires_at: day(7), token: expect.stringMatching(/^svcpat-/) })

    expect((await call('DELETE', `${path}/${rotated.body.id}`, owner.token)).status).toBe(204)
    expect(await call('GET', `${path}/${rotated.body.id}`, owner.token)).toMatchObject({
      status: 404,
      body: { message: '404 group Access Token Not Found' },
    })
    expect(await call('GET', '/user', rotated.body.token)).toMatchObject({ status: 401 })
  })

  test('the token reaches the projects of the group with its role', async () => {
    const { group, project, owner } = await team()
    const created = await call('POST', `/groups/${group.id}/access_tokens`, owner.token, { name: 'r', scopes: ['api'], access_level: 20 })
    const token = created.body.token as string
    expect(await call('GET', `/groups/${group.id}`, token)).toMatchObject({ status: 200, body: { id: group.id } })
    expect(await call('GET', `/projects/${project.id}`, token)).toMatchObject({ status: 200, body: { id: project.id } })
    // A Reporter may not manage the project's tokens.
    expect(await call('GET', `/projects/${project.id}/access_tokens`, token)).toMatchObject({ status: 401 })
  })

  test('only Owners manage them: GitLab answers for everyone else', async () => {
    const { group, owner, maintainer, outsider } = await team()
    const path = `/groups/${group.id}/access_tokens`
    const created = await call('POST', path, owner.token, { name: 'the bot', scopes: ['api'] })
    const cases: [string, string, string | undefined, unknown, number, unknown][] = [
      [
        'POST',
        path,
        maintainer.token,
        { name: 'x', scopes: ['api'] },
        400,
        { message: '400 Bad request - User does not have permission to create group access token' },
      ],
      ['GET', path, maintainer.token, undefined, 401, { message: '401 Unauthorized' }],
      ['GET', `${path}/${created.body.id}`, maintainer.token, undefined, 401, { message: '401 Unauthorized' }],
      ['POST', `${path}/${created.body.id}/rotate`, maintainer.token, undefined, 401, { message: '401 Unauthorized' }],
      [
        'DELETE',
        `${path}/${created.body.id}`,
        maintainer.token,
        undefined,
        400,
        { message: `400 Bad request - ${maintainer.user.name} cannot delete the bot` },
      ],
      ['GET', path, outsider.token, undefined, 404, { message: '404 Group Not Found' }],
      ['GET', path, undefined, undefined, 401, { message: '401 Unauthorized' }],
      ['GET', `/groups/999999/access_tokens`, owner.token, undefined, 404, { message: '404 Group Not Found' }],
      ['DELETE', `${path}/999999`, owner.token, undefined, 404, { message: '404 group Access Token Not Found' }],
    ]
    for (const [method, url, token, body, status, expected] of cases) {
      const res = await call(method, url, token, body)
      expect({ method, url, status: res.status, body: res.body }).toEqual({ method, url, status, body: expected })
    }
    expect(await call('GET', '/user', created.body.token)).toMatchObject({ status: 200 })
  })
})
