import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { addTestMember, createTestGroup, createTestToken, createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let admin: InstanceType<typeof Gitlab>
let user: InstanceType<typeof Gitlab>
let userId: number
let groupId: number

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  admin = new Gitlab({ host: server.url, token: server.rootToken })
  const beaker = await createTestUser(db, { username: 'beaker' })
  userId = beaker.id
  user = new Gitlab({ host: server.url, token: (await createTestToken(db, beaker)).value })
  const group = await createTestGroup(db, { path: 'lab', visibility: 'public' })
  groupId = group.id
  await addTestMember(db, { user: beaker, group, accessLevel: 50 })
})
afterAll(() => server.close())

describe('the gitbeaker Projects API', () => {
  test('creates, reads, edits, stars, transfers and removes a project', async () => {
    const created = await user.Projects.create({ name: 'Beaker Project', description: 'Made by a client', topics: ['js', 'test'] })
    expect(created).toMatchObject({ path_with_namespace: 'beaker/beaker-project', description: 'Made by a client', topics: ['js', 'test'] })

    const shown = await user.Projects.show('beaker/beaker-project')
    expect(shown.id).toBe(created.id)
    expect((shown.permissions as { project_access: { access_level: number } }).project_access.access_level).toBe(50)

    const edited = await user.Projects.edit(created.id, { description: 'Edited', path: 'renamed' })
    expect(edited).toMatchObject({ description: 'Edited', path_with_namespace: 'beaker/renamed' })
    // The client follows the 301 from the old path.
    expect((await user.Projects.show('beaker/beaker-project')).id).toBe(created.id)

    expect((await user.Projects.star(created.id)).star_count).toBe(1)
    const starrers = await user.Projects.allStarrers(created.id)
    expect(starrers.map((s) => s.user.username)).toEqual(['beaker'])
    expect((await user.Projects.unstar(created.id)).star_count).toBe(0)

    expect((await user.Projects.archive(created.id)).archived).toBe(true)
    expect((await user.Projects.unarchive(created.id)).archived).toBe(false)

    const moved = await user.Projects.transfer(created.id, groupId)
    expect(moved.path_with_namespace).toBe('lab/renamed')
    const users = await user.Projects.allUsers(created.id)
    expect(users.map((u) => u.username)).toEqual(['beaker'])

    await user.Projects.remove(created.id)
    await expect(user.Projects.show(created.id)).rejects.toMatchObject({ cause: { description: '404 Project Not Found' } })
  })

  test('reports GitLab’s validation errors', async () => {
    await user.Projects.create({ name: 'Twice' })
    await expect(user.Projects.create({ name: 'Twice' })).rejects.toMatchObject({ cause: { response: { status: 400 } } })
  })

  test('pages through projects by offset and by keyset, and creates for a user', async () => {
    for (let i = 0; i < 5; i++) await admin.Projects.create({ userId, name: `Paged ${i}`, visibility: 'public' })
    const byOffset = await user.Projects.all({ owned: true, perPage: 2, orderBy: 'id', sort: 'asc' })
    const byKeyset = await user.Projects.all({ owned: true, pagination: 'keyset', perPage: 2, orderBy: 'id', sort: 'asc' })
    expect(byKeyset.map((p) => p.id)).toEqual(byOffset.map((p) => p.id))
    expect(byKeyset.filter((p) => p.name.startsWith('Paged'))).toHaveLength(5)
    const mine = await admin.Users.allProjects(userId, { perPage: 2 })
    expect(mine.filter((p) => p.name.startsWith('Paged'))).toHaveLength(5)
    const groupProjects = await admin.Groups.allProjects(groupId)
    expect(Array.isArray(groupProjects)).toBe(true)
  })
})
