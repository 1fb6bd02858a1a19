import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestUser } from '../../testing/factories.js'
import { client, type RequestOptions } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createCaller, createHierarchy, expectedMember, memberRowOf, membershipsOf } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>
let url: string
const now = new Date()
const today = now.toISOString().slice(0, 10)
const yesterday = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10)

beforeAll(async () => {
  server = await startTestServer()
  // One day for the whole file: "today" and "in the past" do not move at midnight.
  server.freeze(now)
  request = client(server.url)
  url = server.url
})
afterAll(() => server.close())

function call(method: string, path: string, token: string | undefined, body?: RequestOptions['body']) {
  return request(method, `/api/v4${path}`, { token, body })
}

/** A group with an Owner, a Maintainer and a Developer (each with a token), and a project in it. */
async function team(options: { parent?: NamespaceRow } = {}) {
  const db = server.database.db
  const group = await createTestGroup(db, { parent: options.parent })
  const project = await createTestProject(db, { namespace: group })
  const owner = await createCaller(db)
  const maintainer = await createCaller(db)
  const developer = await createCaller(db)
  await addTestMember(db, { user: owner.user, group, accessLevel: 50 })
  await addTestMember(db, { user: maintainer.user, group, accessLevel: 40 })
  await addTestMember(db, { user: developer.user, group, accessLevel: 30 })
  return { group, project, owner, maintainer, developer }
}

async function newUser(): Promise<User> {
  return createTestUser(server.database.db)
}

describe('POST .../members', () => {
  test('adds a user by id: 201 with the member, created by the caller', async () => {
    const { project, maintainer } = await team()
    const user = await newUser()
    const res = await call('POST', `/projects/${project.id}/members`, maintainer.token, {
      user_id: user.id,
      access_level: 30,
      expires_at: '2999-12-31',
    })
    expect(res.status).toBe(201)
    const row = (await memberRowOf(server.database.db, { userId: user.id, project }))!
    expect(row).toMatchObject({ access_level: 30, expires_at: '2999-12-31', created_by_id: maintainer.user.id, namespace_id: null })
    expect(res.body).toEqual(expectedMember(user, row, url, { createdBy: maintainer.user }))
    expect(row.created_at).toBe(now.toISOString())
  })

  test('adds a user by username, in any case, and by form fields', async () => {
    const { group, owner } = await team()
    const user = await newUser()
    const res = await request('POST', `/api/v4/groups/${group.id}/members`, {
      token: owner.token,
      form: true,
      body: { username: user.username.toUpperCase(), access_level: '20', expires_at: `${today}T10:00:00Z` },
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ id: user.id, access_level: 20, expires_at: today })
  })

  test('refuses bad input and writes nothing', async () => {
    const { project, group, owner, developer } = await team()
    const user = await newUser()
    const cases: [string, Record<string, unknown>, number, unknown][] = [
      [`/projects/${project.id}`, { user_id: 999999, access_level: 30 }, 404, { message: '404 User Not Found' }],
      [`/projects/${project.id}`, { user_id: 'someone', access_level: 30 }, 404, { message: '404 User Not Found' }],
      [`/groups/${group.id}`, { username: 'nobody-at-all', access_level: 30 }, 404, { message: '404 User Not Found' }],
      [
        `/projects/${project.id}`,
        { user_id: user.id, access_level: 35 },
        400,
        { message: { access_level: ['is not included in the list'] } },
      ],
      [
        `/projects/${project.id}`,
        { user_id: user.id, access_level: 5 },
        400,
        { message: { access_level: ['is not included in the list'] } },
      ],
      [`/groups/${group.id}`, { user_id: user.id, access_level: 0 }, 400, { message: { access_level: ['is not included in the list'] } }],
      [
        `/projects/${project.id}`,
        { user_id: user.id, access_level: 30, expires_at: yesterday },
        400,
        { message: { expires_at: ['cannot be a date in the past'] } },
      ],
      [
        `/groups/${group.id}`,
        { user_id: user.id, access_level: 60, expires_at: yesterday },
        400,
        { message: { expires_at: ['cannot be a date in the past'], access_level: ['is not included in the list'] } },
      ],
      [
        `/projects/${project.id}`,
        { user_id: user.id, access_level: 30, expires_at: '2030-02-30' },
        400,
        { error: 'expires_at is invalid' },
      ],
      [`/projects/${project.id}`, { user_id: user.id, access_level: 30, expires_at: 'soon' }, 400, { error: 'expires_at is invalid' }],
      [`/projects/${project.id}`, { user_id: user.id, access_level: 'dev' }, 400, { error: 'access_level is invalid' }],
      [`/projects/${project.id}`, { user_id: user.id }, 400, { message: '400 (Bad request) "access_level" not given' }],
      [
        `/projects/${project.id}`,
        { user_id: user.id, username: user.username, access_level: 30 },
        400,
        { error: 'user_id, username are mutually exclusive' },
      ],
      [
        `/groups/${group.id}`,
        { access_level: 30, expires_at: 'x' },
        400,
        { error: 'expires_at is invalid, user_id, username are missing, at least one parameter must be provided' },
      ],
      [`/projects/${project.id}`, { user_id: developer.user.id, access_level: 40 }, 409, { message: 'Member already exists' }],
      [`/groups/${group.id}`, { user_id: developer.user.id, access_level: 40 }, 409, { message: 'Member already exists' }],
    ]
    // The developer is a member of the group only; add them to the project first so the project conflict exists.
    await addTestMember(server.database.db, { user: developer.user, project, accessLevel: 30 })
    const before = await membershipsOf(server.database.db, user.id)
    const developerBefore = await membershipsOf(server.database.db, developer.user.id)
    for (const [path, body, status, expected] of cases) {
      const res = await call('POST', `${path}/members`, owner.token, body)
      expect({ path, body, status: res.status, body_: res.body }).toEqual({ path, body, status, body_: expected })
    }
    expect(await membershipsOf(server.database.db, user.id)).toEqual(before)
    expect(await membershipsOf(server.database.db, developer.user.id)).toEqual(developerBefore)
  })

  test('the same user added by concurrent requests becomes a member once', async () => {
    const { project, owner } = await team()
    const user = await newUser()
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => call('POST', `/projects/${project.id}/members`, owner.token, { user_id: user.id, access_level: 30 })),
    )
    expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409])
    expect(responses.filter((r) => r.status === 409).map((r) => r.body)).toEqual(Array(5).fill({ message: 'Member already exists' }))
    expect(await membershipsOf(server.database.db, user.id)).toHaveLength(1)
  })

  test('several users added by concurrent requests become members once', async () => {
    const { group, owner } = await team()
    const [first, second] = [await newUser(), await newUser()]
    const responses = await Promise.all(
      Array.from({ length: 4 }, () =>
        call('POST', `/groups/${group.id}/members`, owner.token, { user_id: `${first.id},${second.id}`, access_level: 30 }),
      ),
    )
    expect(responses.map((r) => [r.status, r.body])).toEqual(Array(4).fill([201, { status: 'success' }]))
    expect(await membershipsOf(server.database.db, first.id)).toHaveLength(1)
    expect(await membershipsOf(server.database.db, second.id)).toHaveLength(1)
  })

  test('an expiry of today is accepted', async () => {
    const { project, owner } = await team()
    const user = await newUser()
    const res = await call('POST', `/projects/${project.id}/members`, owner.token, {
      user_id: user.id,
      access_level: 30,
      expires_at: today,
    })
    expect(res.status).toBe(201)
    expect(res.body.expires_at).toBe(today)
  })

  test('a user cannot be added below the level they inherit from a group above', async () => {
    const db = server.database.db
    const { top, middle, bottom, project } = await createHierarchy(db)
    const owner = await createCaller(db)
    await addTestMember(db, { user: owner.user, group: top, accessLevel: 50 })
    const user = await newUser()
    await addTestMember(db, { user, group: middle, accessLevel: 30 })
    const refused = await call('POST', `/projects/${project.id}/members`, owner.token, { user_id: user.id, access_level: 20 })
    expect(refused.status).toBe(400)
    expect(refused.body).toEqual({
      message: { access_level: [`should be greater than or equal to Developer inherited membership from group ${middle.name}`] },
    })
    const inGroup = await call('POST', `/groups/${bottom.id}/members`, owner.token, { user_id: user.id, access_level: 10 })
    expect(inGroup.body).toEqual({
      message: { access_level: [`should be greater than or equal to Developer inherited membership from group ${middle.name}`] },
    })
    // The owner of the top group cannot become less than Owner further down.
    const ownerBelow = await call('POST', `/groups/${bottom.id}/members`, owner.token, { user_id: owner.user.id, access_level: 40 })
    expect(ownerBelow.body).toEqual({
      message: { access_level: [`should be greater than or equal to Owner inherited membership from group ${top.name}`] },
    })
    expect(await membershipsOf(db, user.id)).toHaveLength(1)
    const equal = await call('POST', `/projects/${project.id}/members`, owner.token, { user_id: user.id, access_level: 30 })
    expect(equal.status).toBe(201)
  })

  test('who may add members: project Maintainers, group Owners and administrators; only Owners add Owners', async () => {
    const { project, group, owner, maintainer, developer } = await team()
    const add = (path: string, token: string | undefined, accessLevel: number) =>
      newUser().then((user) => call('POST', `${path}/members`, token, { user_id: user.id, access_level: accessLevel }))
    const projectPath = `/projects/${project.id}`
    const groupPath = `/groups/${group.id}`
    const outsider = await createCaller(server.database.db)
    const outcomes = {
      anonymous: (await add(projectPath, undefined, 30)).status,
      outsider: (await add(projectPath, outsider.token, 30)).status,
      developer: (await add(projectPath, developer.token, 30)).status,
      maintainer: (await add(projectPath, maintainer.token, 40)).status,
      maintainerAddsOwner: (await add(projectPath, maintainer.token, 50)).status,
      ownerAddsOwner: (await add(projectPath, owner.token, 50)).status,
      adminAddsOwner: (await add(projectPath, server.rootToken, 50)).status,
      groupMaintainer: (await add(groupPath, maintainer.token, 30)).status,
      groupMaintainerAddsOwner: (await add(groupPath, maintainer.token, 50)).status,
      groupOwnerAddsOwner: (await add(groupPath, owner.token, 50)).status,
      groupAdmin: (await add(groupPath, server.rootToken, 30)).status,
    }
    expect(outcomes).toEqual({
      anonymous: 401,
      outsider: 403,
      developer: 403,
      maintainer: 201,
      maintainerAddsOwner: 403,
      ownerAddsOwner: 201,
      adminAddsOwner: 201,
      groupMaintainer: 403,
      groupMaintainerAddsOwner: 403,
      groupOwnerAddsOwner: 201,
      groupAdmin: 201,
    })
    const refused = await add(projectPath, developer.token, 30)
    expect(refused.body).toEqual({ message: '403 Forbidden' })
  })

  test('an invisible project or group is not found, before the user is looked up', async () => {
    const db = server.database.db
    const hidden = await createTestGroup(db, { visibility: 'private' })
    const hiddenProject = await createTestProject(db, { namespace: hidden, visibility: 'private' })
    const outsider = await createCaller(db)
    const project = await call('POST', `/projects/${hiddenProject.id}/members`, outsider.token, { user_id: 999999, access_level: 30 })
    expect(project.status).toBe(404)
    expect(project.body).toEqual({ message: '404 Project Not Found' })
    const group = await call('POST', `/groups/${hidden.id}/members`, outsider.token, { user_id: outsider.user.id, access_level: 30 })
    expect(group.body).toEqual({ message: '404 Group Not Found' })
  })

  test('several users at once: each is added, an existing member is changed, and the result is the service status', async () => {
    const { group, owner } = await team()
    const [first, second, third] = [await newUser(), await newUser(), await newUser()]
    await addTestMember(server.database.db, { user: third, group, accessLevel: 10 })
    const res = await call('POST', `/groups/${group.id}/members`, owner.token, {
      user_id: `${first.id},${second.id},${third.id},999999`,
      access_level: 20,
    })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({ status: 'success' })
    for (const user of [first, second, third]) {
      expect(await memberRowOf(server.database.db, { userId: user.id, group })).toMatchObject({ access_level: 20 })
    }
    const byName = await call('POST', `/groups/${group.id}/members`, owner.token, {
      username: `${(await newUser()).username},${(await newUser()).username}`,
      access_level: 30,
    })
    expect(byName.body).toEqual({ status: 'success' })
  })

  test('several users at once: failures are reported per user while the others are saved', async () => {
    const db = server.database.db
    const { top, middle } = await createHierarchy(db)
    const owner = await createCaller(db)
    await addTestMember(db, { user: owner.user, group: top, accessLevel: 50 })
    const [senior, junior] = [await newUser(), await newUser()]
    await addTestMember(db, { user: senior, group: top, accessLevel: 40 })
    const res = await call('POST', `/groups/${middle.id}/members`, owner.token, { user_id: `${senior.id},${junior.id}`, access_level: 30 })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      message: `${senior.username}: Access level should be greater than or equal to Maintainer inherited membership from group ${top.name}`,
      status: 'error',
    })
    expect(await memberRowOf(db, { userId: junior.id, group: middle })).toMatchObject({ access_level: 30 })
    expect(await memberRowOf(db, { userId: senior.id, group: middle })).toBeUndefined()

    const pastAndBad = await call('POST', `/groups/${middle.id}/members`, owner.token, {
      user_id: `${(await newUser()).id},${(await newUser()).id}`,
      access_level: 99,
      expires_at: yesterday,
    })
    expect(pastAndBad.body.message).toMatch(
      /^user\w+: Expires at cannot be a date in the past and Access level is not included in the list and user\w+: Expires at cannot be a date in the past and Access level is not included in the list$/,
    )
  })

  test('several users at once: limits, refusals and Owners', async () => {
    const { project, group, developer, maintainer } = await team()
    const empty = await call('POST', `/groups/${group.id}/members`, maintainer.token, { user_id: ',', access_level: 30 })
    expect(empty.body).toEqual({ message: 'No users specified.', status: 'error', reason: 'blank_invites_error' })
    const many = Array.from({ length: 101 }, (_, i) => i + 1).join(',')
    const tooMany = await call('POST', `/groups/${group.id}/members`, maintainer.token, { user_id: many, access_level: 30 })
    expect(tooMany.body).toEqual({ message: 'Too many users specified (limit is 100)', status: 'error', reason: 'too_many_invites_error' })
    const user = await newUser()
    const refused = await call('POST', `/groups/${group.id}/members`, developer.token, { user_id: `${user.id},`, access_level: 30 })
    expect(refused.status).toBe(201)
    expect(refused.body).toEqual({
      message: `${user.username}: not authorized to create member and Access level is not included in the list`,
      status: 'error',
      http_status: 'unauthorized',
    })
    const owners = await call('POST', `/projects/${project.id}/members`, maintainer.token, { user_id: `${user.id},`, access_level: 50 })
    expect(owners.status).toBe(403)
    expect(await membershipsOf(server.database.db, user.id)).toEqual([])
  })
})

describe('PUT .../members/:user_id', () => {
  test('changes the level and the expiry', async () => {
    const { project, maintainer } = await team()
    const user = await newUser()
    const row = await addTestMember(server.database.db, { user, project, accessLevel: 20 })
    const res = await call('PUT', `/projects/${project.id}/members/${user.id}`, maintainer.token, {
      access_level: 30,
      expires_at: '2999-01-01',
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual(expectedMember(user, { ...row, access_level: 30, expires_at: '2999-01-01' }, url))
    expect(await memberRowOf(server.database.db, { userId: user.id, project })).toMatchObject({
      access_level: 30,
      expires_at: '2999-01-01',
      updated_at: now.toISOString(),
    })
    const cleared = await call('PUT', `/projects/${project.id}/members/${user.id}`, maintainer.token, {
      access_level: 30,
      expires_at: null,
    })
    expect(cleared.body.expires_at).toBeNull()
  })

  test('refuses bad input and writes nothing', async () => {
    const db = server.database.db
    const { top, middle } = await createHierarchy(db)
    const owner = await createCaller(db)
    await addTestMember(db, { user: owner.user, group: top, accessLevel: 50 })
    const user = await newUser()
    await addTestMember(db, { user, group: top, accessLevel: 20 })
    const row = await addTestMember(db, { user, group: middle, accessLevel: 30 })
    const path = `/groups/${middle.id}/members/${user.id}`
    const cases: [Record<string, unknown>, number, unknown][] = [
      [{ access_level: 45 }, 400, { message: { access_level: ['is not included in the list'] } }],
      [
        { access_level: 10 },
        400,
        { message: { access_level: [`should be greater than or equal to Reporter inherited membership from group ${top.name}`] } },
      ],
      [{ access_level: 30, expires_at: yesterday }, 400, { message: { expires_at: ['cannot be a date in the past'] } }],
      [{ access_level: 30, expires_at: 'never' }, 400, { error: 'expires_at is invalid' }],
      [{ expires_at: '2999-01-01' }, 400, { message: '400 (Bad request) "access_level" not given' }],
    ]
    for (const [body, status, expected] of cases) {
      const res = await call('PUT', path, owner.token, body)
      expect({ body, status: res.status, answer: res.body }).toEqual({ body, status, answer: expected })
    }
    expect(await memberRowOf(db, { userId: user.id, group: middle })).toEqual(row)
    // Unchanged values are not saved, so not validated either.
    expect((await call('PUT', path, owner.token, { access_level: 30 })).status).toBe(200)
    const missing = await call('PUT', `/groups/${middle.id}/members/${owner.user.id}`, owner.token, { access_level: 30 })
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ message: '404 Not found' })
  })

  test('only Owners promote to or demote from Owner in a project', async () => {
    const { project, owner, maintainer } = await team()
    const user = await newUser()
    await addTestMember(server.database.db, { user, project, accessLevel: 30 })
    const path = `/projects/${project.id}/members/${user.id}`
    expect((await call('PUT', path, maintainer.token, { access_level: 50 })).status).toBe(403)
    expect((await call('PUT', path, owner.token, { access_level: 50 })).status).toBe(200)
    expect((await call('PUT', path, maintainer.token, { access_level: 40 })).status).toBe(403)
    expect((await call('PUT', path, maintainer.token, { access_level: 50, expires_at: '2999-01-01' })).status).toBe(403)
    expect((await call('PUT', path, owner.token, { access_level: 40 })).status).toBe(200)
    expect(await memberRowOf(server.database.db, { userId: user.id, project })).toMatchObject({ access_level: 40, expires_at: null })
  })

  test('group members are changed by Owners only', async () => {
    const { group, owner, maintainer, developer } = await team()
    const path = `/groups/${group.id}/members/${developer.user.id}`
    const refused = await call('PUT', path, maintainer.token, { access_level: 20 })
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ message: '403 Forbidden' })
    expect((await call('PUT', path, developer.token, { access_level: 40 })).status).toBe(403)
    expect((await call('PUT', path, owner.token, { access_level: 20 })).status).toBe(200)
    expect((await call('PUT', path, server.rootToken, { access_level: 40 })).status).toBe(200)
  })

  test("the last Owner of a group cannot be demoted, nor a personal namespace's holder changed", async () => {
    const db = server.database.db
    const { group, owner } = await team()
    const path = `/groups/${group.id}/members/${owner.user.id}`
    for (const token of [owner.token, server.rootToken]) {
      const res = await call('PUT', path, token, { access_level: 40 })
      expect(res.status).toBe(403)
      expect(res.body).toEqual({ message: '403 Forbidden' })
    }
    const second = await newUser()
    await addTestMember(db, { user: second, group, accessLevel: 50 })
    expect((await call('PUT', path, owner.token, { access_level: 40 })).status).toBe(200)

    const holder = await createCaller(db)
    const personal = await createTestProject(db, { owner: holder.user })
    const res = await call('PUT', `/projects/${personal.id}/members/${holder.user.id}`, server.rootToken, { access_level: 40 })
    expect(res.status).toBe(403)
  })
})

describe('DELETE .../members/:user_id', () => {
  test('removes a member: 204, and the row is gone', async () => {
    const { project, maintainer } = await team()
    const user = await newUser()
    await addTestMember(server.database.db, { user, project, accessLevel: 30 })
    const res = await call('DELETE', `/projects/${project.id}/members/${user.id}?unassign_issuables=true`, maintainer.token)
    expect(res.status).toBe(204)
    expect(res.text).toBe('')
    expect(await memberRowOf(server.database.db, { userId: user.id, project })).toBeUndefined()
    const again = await call('DELETE', `/projects/${project.id}/members/${user.id}`, maintainer.token)
    expect(again.status).toBe(404)
    expect(again.body).toEqual({ message: '404 Not found' })
  })

  test('members leave by themselves; others need the managing role', async () => {
    const { group, project, maintainer, developer } = await team()
    const user = await newUser()
    await addTestMember(server.database.db, { user, group, accessLevel: 10 })
    expect((await call('DELETE', `/groups/${group.id}/members/${user.id}`, developer.token)).status).toBe(403)
    expect((await call('DELETE', `/groups/${group.id}/members/${user.id}`, maintainer.token)).status).toBe(403)
    expect((await call('DELETE', `/groups/${group.id}/members/${developer.user.id}`, developer.token)).status).toBe(204)
    const projectMember = await createCaller(server.database.db)
    await addTestMember(server.database.db, { user: projectMember.user, project, accessLevel: 20 })
    expect((await call('DELETE', `/projects/${project.id}/members/${projectMember.user.id}`, projectMember.token)).status).toBe(204)
    expect((await call('DELETE', `/projects/${project.id}/members/${user.id}`, undefined)).status).toBe(401)
  })

  test('the last Owner of a group stays; a subgroup Owner may go while Owners remain above', async () => {
    const db = server.database.db
    const { group, owner } = await team()
    for (const token of [owner.token, server.rootToken]) {
      const res = await call('DELETE', `/groups/${group.id}/members/${owner.user.id}`, token)
      expect(res.status).toBe(403)
      expect(res.body).toEqual({ message: '403 Forbidden' })
    }
    const sub = await createTestGroup(db, { parent: group })
    const subOwner = await createCaller(db)
    await addTestMember(db, { user: subOwner.user, group: sub, accessLevel: 50 })
    expect((await call('DELETE', `/groups/${sub.id}/members/${subOwner.user.id}`, subOwner.token)).status).toBe(204)
    // A blocked Owner still counts as an Owner; a bot does not.
    const blocked = await createTestUser(db, { state: 'blocked' })
    await addTestMember(db, { user: blocked, group, accessLevel: 50 })
    expect((await call('DELETE', `/groups/${group.id}/members/${owner.user.id}`, owner.token)).status).toBe(204)
    const bot = await createTestUser(db, { bot: 1 })
    const other = await createTestGroup(db)
    const otherOwner = await createCaller(db)
    await addTestMember(db, { user: otherOwner.user, group: other, accessLevel: 50 })
    await addTestMember(db, { user: bot, group: other, accessLevel: 50 })
    expect((await call('DELETE', `/groups/${other.id}/members/${otherOwner.user.id}`, otherOwner.token)).status).toBe(403)
  })

  test('only Owners remove a project Owner; nobody removes the holder of a personal namespace', async () => {
    const db = server.database.db
    const { project, owner, maintainer } = await team()
    const user = await newUser()
    await addTestMember(db, { user, project, accessLevel: 50 })
    expect((await call('DELETE', `/projects/${project.id}/members/${user.id}`, maintainer.token)).status).toBe(403)
    expect((await call('DELETE', `/projects/${project.id}/members/${user.id}`, owner.token)).status).toBe(204)
    const holder = await createCaller(db)
    const personal = await createTestProject(db, { owner: holder.user })
    for (const token of [holder.token, server.rootToken]) {
      expect((await call('DELETE', `/projects/${personal.id}/members/${holder.user.id}`, token)).status).toBe(403)
    }
    expect(await memberRowOf(db, { userId: holder.user.id, project: personal })).toBeDefined()
  })

  test("removing a group membership removes the user's memberships below it, unless told to skip them", async () => {
    const db = server.database.db
    const { top, middle, bottom, project } = await createHierarchy(db)
    const owner = await createCaller(db)
    await addTestMember(db, { user: owner.user, group: top, accessLevel: 50 })
    const elsewhere = await createTestProject(db, { namespace: await createTestGroup(db) })
    const [leaving, staying] = [await newUser(), await newUser()]
    for (const user of [leaving, staying]) {
      await addTestMember(db, { user, group: middle, accessLevel: 30 })
      await addTestMember(db, { user, group: bottom, accessLevel: 40 })
      await addTestMember(db, { user, project, accessLevel: 40 })
      await addTestMember(db, { user, project: elsewhere, accessLevel: 30 })
    }
    expect((await call('DELETE', `/groups/${middle.id}/members/${leaving.id}`, owner.token)).status).toBe(204)
    expect((await membershipsOf(db, leaving.id)).map((m) => m.project_id)).toEqual([elsewhere.id])
    const skipped = await call('DELETE', `/groups/${middle.id}/members/${staying.id}?skip_subresources=true`, owner.token)
    expect(skipped.status).toBe(204)
    expect(await membershipsOf(db, staying.id)).toHaveLength(3)
  })

  test('If-Unmodified-Since before the last change keeps the membership (412)', async () => {
    const { group, owner } = await team()
    const user = await newUser()
    await addTestMember(server.database.db, { user, group, accessLevel: 30 })
    const res = await request('DELETE', `/api/v4/groups/${group.id}/members/${user.id}`, {
      token: owner.token,
      headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' },
    })
    expect(res.status).toBe(412)
    expect(res.body).toEqual({ message: '412 Precondition Failed' })
    expect(await memberRowOf(server.database.db, { userId: user.id, group })).toBeDefined()
  })
})

describe('members of projects owned by a user', () => {
  let holder: { user: User; token: string }
  let personal: ProjectRow

  beforeAll(async () => {
    holder = await createCaller(server.database.db)
    personal = await createTestProject(server.database.db, { owner: holder.user })
  })

  test('the holder adds, promotes and removes members, Owners included', async () => {
    const user = await newUser()
    const path = `/projects/${personal.id}/members`
    expect((await call('POST', path, holder.token, { user_id: user.id, access_level: 50 })).status).toBe(201)
    expect((await call('PUT', `${path}/${user.id}`, holder.token, { access_level: 30 })).status).toBe(200)
    expect((await call('DELETE', `${path}/${user.id}`, holder.token)).status).toBe(204)
  })
})
