import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { addTestMember, createTestGroup, createTestProject } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { createPerson, createProjectTeam } from '../../testing/roles.js'
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

function call(method: string, path: string, token: string | undefined, body?: unknown, headers?: Record<string, string>) {
  return request(method, `/api/v4${path}`, { token, body, headers })
}

function team() {
  return createProjectTeam(server.database.db, { roles: ['owner', 'maintainer', 'developer'], visibility: 'private' })
}

async function userRow(id: number) {
  return server.database.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

async function membershipOf(userId: number) {
  return server.database.db.selectFrom('members').selectAll().where('user_id', '=', userId).execute()
}

describe('POST /projects/:id/access_tokens', () => {
  test('creates a bot member with the token: 201 with the entity and the token, Maintainer and a year by default', async () => {
    const { project, maintainer } = await team()
    const res = await call('POST', `/projects/${project.id}/access_tokens`, maintainer.token, {
      name: 'ci',
      scopes: ['api', 'read_repository'],
    })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'ci',
      revoked: false,
      created_at: now.toISOString(),
      description: null,
      scopes: ['api', 'read_repository'],
      user_id: expect.any(Number),
      last_used_at: null,
      active: true,
      expires_at: day(365),
      access_level: 40,
      token: expect.stringMatching(/^svcpat-/),
    })
    expect(Object.keys(res.body)).toEqual([
      'id',
      'name',
      'revoked',
      'created_at',
      'description',
      'scopes',
      'user_id',
      'last_used_at',
      'active',
      'expires_at',
      'access_level',
      'token',
    ])
    const bot = await userRow(res.body.user_id)
    expect(bot).toMatchObject({
      name: 'ci',
      bot: 1,
      password_digest: null,
      state: 'active',
      external: 0,
      created_by_id: maintainer.user.id,
    })
    expect(bot.username).toMatch(new RegExp(`^project_${project.id}_bot_[0-9a-f]{32}$`))
    expect(bot.email).toBe(`${bot.username}@noreply.127.0.0.1`)
    expect(await membershipOf(bot.id)).toMatchObject([{ project_id: project.id, namespace_id: null, access_level: 40 }])
  })

  test('takes the role, description and expiry given; scopes may be comma-separated', async () => {
    const { project, owner } = await team()
    const res = await call('POST', `/projects/${project.id}/access_tokens`, owner.token, {
      name: 'deploy',
      scopes: 'read_api,write_repository',
      access_level: 50,
      description: 'for deploys',
      expires_at: day(30),
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      scopes: ['read_api', 'write_repository'],
      access_level: 50,
      description: 'for deploys',
      expires_at: day(30),
    })
  })

  test('refuses what GitLab refuses, with its bodies, and creates nothing', async () => {
    const { project, maintainer, developer, outsider } = await team()
    const path = `/projects/${project.id}/access_tokens`
    const usersBefore = await server.database.db.selectFrom('users').select('id').execute()
    const cases: [string | undefined, Record<string, unknown>, number, unknown][] = [
      [undefined, { name: 'x', scopes: ['api'] }, 401, { message: '401 Unauthorized' }],
      [outsider.token, { name: 'x', scopes: ['api'] }, 404, { message: '404 Project Not Found' }],
      [
        developer.token,
        { name: 'x', scopes: ['api'] },
        400,
        { message: '400 Bad request - User does not have permission to create project access token' },
      ],
      [
        maintainer.token,
        { name: 'x', scopes: ['api'], access_level: 50 },
        400,
        { message: '400 Bad request - Access level of the token contains permissions not held by the creating user' },
      ],
      [maintainer.token, { name: 'x', scopes: ['sudo'] }, 400, { error: 'scopes does not have a valid value' }],
      [maintainer.token, { name: 'x', scopes: ['read_user'] }, 400, { error: 'scopes does not have a valid value' }],
      [maintainer.token, { name: 'x', scopes: ['api'], access_level: 35 }, 400, { error: 'access_level does not have a valid value' }],
      [maintainer.token, { scopes: ['api'] }, 400, { message: '400 (Bad request) "name" not given' }],
      [maintainer.token, { name: 'x' }, 400, { message: '400 (Bad request) "scopes" not given' }],
      [
        maintainer.token,
        { name: 'x', scopes: ['api'], expires_at: day(400) },
        400,
        { message: `400 Bad request - Expires at must be before ${day(365)}` },
      ],
      [maintainer.token, { name: ' ', scopes: ['api'] }, 400, { message: "400 Bad request - Name can't be blank" }],
    ]
    for (const [token, body, status, expected] of cases) {
      const res = await call('POST', path, token, body)
      expect({ body, status: res.status, response: res.body }).toEqual({ body, status, response: expected })
    }
    expect(await server.database.db.selectFrom('users').select('id').execute()).toEqual(usersBefore)
  })

  test('an administrator who is no member may see the project but grant no role above their own', async () => {
    const { project } = await team()
    const res = await call('POST', `/projects/${project.id}/access_tokens`, server.rootToken, {
      name: 'x',
      scopes: ['api'],
      access_level: 10,
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ message: '400 Bad request - Access level of the token contains permissions not held by the creating user' })
  })
})

describe('GET /projects/:id/access_tokens', () => {
  test('lists the tokens of the project bots, oldest first, with paging headers; a state filters them', async () => {
    const { project, maintainer } = await team()
    const path = `/projects/${project.id}/access_tokens`
    const first = await call('POST', path, maintainer.token, { name: 'one', scopes: ['api'], access_level: 20 })
    const second = await call('POST', path, maintainer.token, { name: 'two', scopes: ['read_api'] })
    const res = await call('GET', path, maintainer.token)
    expect(res.status).toBe(200)
    const { token: _first, ...firstEntity } = first.body
    const { token: _second, ...secondEntity } = second.body
    expect(res.body).toEqual([firstEntity, secondEntity])
    expect(res.headers['x-total']).toBe('2')
    expect(res.headers['x-page']).toBe('1')

    const rotated = await call('POST', `${path}/${second.body.id}/rotate`, maintainer.token)
    expect(rotated.status).toBe(200)
    const inactive = await call('GET', `${path}?state=inactive`, maintainer.token)
    expect(inactive.body).toEqual([{ ...secondEntity, revoked: true, active: false }])
    const active = await call('GET', `${path}?state=active`, maintainer.token)
    expect(active.body.map((token: { id: number }) => token.id)).toEqual([first.body.id, rotated.body.id])
  })

  test('is 401 for members below Maintainer and 404 for those who cannot see the project', async () => {
    const { project, developer, outsider } = await team()
    const path = `/projects/${project.id}/access_tokens`
    expect(await call('GET', path, developer.token)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } })
    expect(await call('GET', path, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } })
    expect(await call('GET', path, undefined)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } })
    expect(await call('GET', `${path}/1`, developer.token)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } })
  })
})

describe('GET /projects/:id/access_tokens/:token_id', () => {
  test('shows one token; tokens of other projects and users are not found', async () => {
    const { project, maintainer } = await team()
    const other = await createTestProject(server.database.db, { namespace: await createTestGroup(server.database.db) })
    await addTestMember(server.database.db, { user: maintainer.user, project: other, accessLevel: 40 })
    const created = await call('POST', `/projects/${project.id}/access_tokens`, maintainer.token, { name: 'one', scopes: ['api'] })
    const { token: _token, ...entity } = created.body
    expect(await call('GET', `/projects/${project.id}/access_tokens/${created.body.id}`, maintainer.token)).toMatchObject({
      status: 200,
      body: entity,
    })
    const notFound = { status: 404, body: { message: '404 project Access Token Not Found' } }
    expect(await call('GET', `/projects/${other.id}/access_tokens/${created.body.id}`, maintainer.token)).toMatchObject(notFound)
    expect(await call('GET', `/projects/${project.id}/access_tokens/999999`, maintainer.token)).toMatchObject(notFound)
    expect(await call('GET', `/projects/${project.id}/access_tokens/abc`, maintainer.token)).toMatchObject(notFound)
  })
})

describe('the token on the API', () => {
  test('authenticates as its bot with the bot role, by PRIVATE-TOKEN and bearer', async () => {
    const { project, maintainer } = await team()
    const created = await call('POST', `/projects/${project.id}/access_tokens`, maintainer.token, {
      name: 'bot',
      scopes: ['api'],
      access_level: 30,
    })
    const token = created.body.token as string
    const me = await call('GET', '/user', token)
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({ id: created.body.user_id, bot: true })
    const bearer = await call('GET', `/projects/${project.id}`, undefined, undefined, { authorization: `Bearer ${token}` })
    expect(bearer.status).toBe(200)
    // A Developer may not manage the project's tokens.
    expect(await call('GET', `/projects/${project.id}/access_tokens`, token)).toMatchObject({ status: 401 })
    // Another project stays invisible.
    const other = await createTestProject(server.database.db, {
      namespace: await createTestGroup(server.database.db, { visibility: 'private' }),
      visibility: 'private',
    })
    expect(await call('GET', `/projects/${other.id}`, token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } })
  })
})

describe('POST /projects/:id/access_tokens/:token_id/rotate', () => {
  test('issues a new token for the same bot and revokes the old one; a week by default', async () => {
    const { project, maintainer } = await team()
    const path = `/projects/${project.id}/access_tokens`
    const created = await call('POST', path, maintainer.token, { name: 'one', scopes: ['api'], access_level: 30, description: 'd' })
    const res = await call('POST', `${path}/${created.body.id}/rotate`, maintainer.token)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      ...created.body,
      id: expect.any(Number),
      expires_at: day(7),
      token: expect.stringMatching(/^svcpat-/),
    })
    expect(res.body.id).not.toBe(created.body.id)
    expect(res.body.token).not.toBe(created.body.token)
    expect(await call('GET', '/user', res.body.token)).toMatchObject({ status: 200, body: { id: created.body.user_id } })
    expect(await call('GET', '/user', created.body.token)).toMatchObject({
      status: 401,
      body: { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' },
    })
    const withDate = await call('POST', `${path}/${res.body.id}/rotate`, maintainer.token, { expires_at: day(20) })
    expect(withDate).toMatchObject({ status: 200, body: { expires_at: day(20) } })
  })

  test('a Maintainer token rotates itself; the rotated-away token used to rotate again revokes the whole family', async () => {
    const { project, maintainer } = await team()
    const path = `/projects/${project.id}/access_tokens`
    const created = await call('POST', path, maintainer.token, { name: 'one', scopes: ['api'] })
    const rotated = await call('POST', `${path}/${created.body.id}/rotate`, created.body.token)
    expect(rotated).toMatchObject({ status: 200, body: { user_id: created.body.user_id, access_level: 40 } })
    const reuse = await call('POST', `${path}/${created.body.id}/rotate`, created.body.token)
    expect(reuse).toMatchObject({
      status: 401,
      body: { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' },
    })
    expect(await call('GET', '/user', rotated.body.token)).toMatchObject({ status: 401 })
  })

  test('refuses with GitLab answers', async () => {
    const { project, owner, maintainer, developer } = await team()
    const path = `/projects/${project.id}/access_tokens`
    const ownerLevel = await call('POST', path, owner.token, { name: 'o', scopes: ['api'], access_level: 50 })
    const plain = await call('POST', path, maintainer.token, { name: 'm', scopes: ['api'] })
    await call('POST', `${path}/${plain.body.id}/rotate`, maintainer.token)
    const cases: [string, string, number, unknown][] = [
      [developer.token, `${path}/${plain.body.id}/rotate`, 401, { message: '401 Unauthorized' }],
      [maintainer.token, `${path}/999999/rotate`, 401, { message: '401 Unauthorized' }],
      [server.rootToken, `${path}/999999/rotate`, 404, { message: '404 Not Found' }],
      [maintainer.token, `${path}/${plain.body.id}/rotate`, 400, { message: '400 Bad request - Token already revoked' }],
      [
        maintainer.token,
        `${path}/${ownerLevel.body.id}/rotate`,
        400,
        { message: '400 Bad request - Not eligible to rotate tokens with permissions not held by the user' },
      ],
    ]
    for (const [token, url, status, body] of cases) {
      const res = await call('POST', url, token)
      expect({ url, status: res.status, body: res.body }).toEqual({ url, status, body })
    }
  })
})

describe('DELETE /projects/:id/access_tokens/:token_id', () => {
  test('revokes the token, removes and blocks its bot: 204, then the token is gone', async () => {
    const { project, maintainer } = await team()
    const path = `/projects/${project.id}/access_tokens`
    const created = await call('POST', path, maintainer.token, { name: 'one', scopes: ['api'] })
    const res = await call('DELETE', `${path}/${created.body.id}`, maintainer.token)
    expect(res.status).toBe(204)
    expect(res.text).toBe('')
    expect(await call('GET', `${path}/${created.body.id}`, maintainer.token)).toMatchObject({
      status: 404,
      body: { message: '404 project Access Token Not Found' },
    })
    expect((await call('GET', path, maintainer.token)).body).toEqual([])
    expect(await membershipOf(created.body.user_id)).toEqual([])
    expect(await userRow(created.body.user_id)).toMatchObject({ state: 'blocked' })
    expect(await call('GET', '/user', created.body.token)).toMatchObject({ status: 401 })
    expect(await call('DELETE', `${path}/${created.body.id}`, maintainer.token)).toMatchObject({ status: 404 })
  })

  test('refuses with GitLab answers and revokes nothing', async () => {
    const { project, maintainer, developer } = await team()
    const path = `/projects/${project.id}/access_tokens`
    const created = await call('POST', path, maintainer.token, { name: 'the bot', scopes: ['api'] })
    expect(await call('DELETE', `${path}/${created.body.id}`, developer.token)).toMatchObject({
      status: 400,
      body: { message: `400 Bad request - ${developer.user.name} cannot delete the bot` },
    })
    expect(await call('DELETE', `${path}/999999`, developer.token)).toMatchObject({
      status: 404,
      body: { message: '404 project Access Token Not Found' },
    })
    expect(await call('DELETE', `${path}/${created.body.id}`, undefined)).toMatchObject({
      status: 401,
      body: { message: '401 Unauthorized' },
    })
    const outsider = await createPerson(server.database.db)
    expect(await call('DELETE', `${path}/${created.body.id}`, outsider.token)).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    })
    expect(await call('GET', '/user', created.body.token)).toMatchObject({ status: 200 })
  })
})
