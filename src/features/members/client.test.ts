import { AccessLevel, Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { addTestMember, createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createCaller, createHierarchy } from './testing.js'

let server: TestServer
let gitlab: InstanceType<typeof Gitlab>
let owner: Awaited<ReturnType<typeof createCaller>>

beforeAll(async () => {
  server = await startTestServer()
  owner = await createCaller(server.database.db)
  gitlab = new Gitlab({ host: server.url, token: owner.token })
})
afterAll(() => server.close())

describe('the gitbeaker client', () => {
  test('manages project members and reads inherited ones', async () => {
    const db = server.database.db
    const { top, middle, project } = await createHierarchy(db)
    await addTestMember(db, { user: owner.user, group: top, accessLevel: 50 })
    const inherited = await createTestUser(db)
    await addTestMember(db, { user: inherited, group: middle, accessLevel: 20 })
    const newcomer = await createTestUser(db)

    const added = await gitlab.ProjectMembers.add(project.full_path, AccessLevel.DEVELOPER, {
      userId: newcomer.id,
      expiresAt: '2999-06-30',
    })
    expect(added).toMatchObject({ id: newcomer.id, username: newcomer.username, access_level: 30, expires_at: '2999-06-30' })
    expect(added.created_by).toMatchObject({ id: owner.user.id })

    expect((await gitlab.ProjectMembers.all(project.id)).map((m) => m.id)).toEqual([newcomer.id])
    const everyone = await gitlab.ProjectMembers.all(project.id, { includeInherited: true })
    expect(everyone.map((m) => [m.id, m.access_level])).toEqual([
      [owner.user.id, 50],
      [inherited.id, 20],
      [newcomer.id, 30],
    ])
    const shown = await gitlab.ProjectMembers.show(project.full_path, inherited.id, { includeInherited: true })
    expect(shown).toMatchObject({ id: inherited.id, access_level: 20 })
    await expect(gitlab.ProjectMembers.show(project.id, inherited.id)).rejects.toMatchObject({ cause: { description: '404 Not found' } })

    const edited = await gitlab.ProjectMembers.edit(project.id, newcomer.id, AccessLevel.MAINTAINER)
    expect(edited).toMatchObject({ id: newcomer.id, access_level: 40 })
    await expect(gitlab.ProjectMembers.add(project.id, AccessLevel.GUEST, { userId: newcomer.id })).rejects.toMatchObject({
      cause: { description: 'Member already exists' },
    })

    await gitlab.ProjectMembers.remove(project.id, newcomer.id)
    expect(await gitlab.ProjectMembers.all(project.id)).toEqual([])
  })

  test('manages group members by username and pages through them', async () => {
    const db = server.database.db
    const { top, middle } = await createHierarchy(db)
    await addTestMember(db, { user: owner.user, group: top, accessLevel: 50 })
    const names: string[] = []
    for (let i = 0; i < 3; i++) {
      const user = await createTestUser(db)
      names.push(user.username)
      await gitlab.GroupMembers.add(middle.id, AccessLevel.REPORTER, { username: user.username })
    }
    const paged = await gitlab.GroupMembers.all(middle.id, { perPage: 2, showExpanded: true, maxPages: 1 })
    expect(paged.data.map((m) => m.username)).toEqual(names.slice(0, 2))
    expect(paged.paginationInfo).toMatchObject({ total: 3, totalPages: 2, next: 2 })
    expect((await gitlab.GroupMembers.all(middle.id, { perPage: 2 })).map((m) => m.username)).toEqual(names)
    const all = await gitlab.GroupMembers.all(middle.full_path, { includeInherited: true })
    expect(all.map((m) => m.username)).toEqual([owner.user.username, ...names])

    await expect(gitlab.GroupMembers.add(middle.id, AccessLevel.GUEST, { userId: 99999999 })).rejects.toMatchObject({
      cause: { description: '404 User Not Found' },
    })
    await expect(gitlab.GroupMembers.remove(top.id, owner.user.id)).rejects.toMatchObject({ cause: { description: '403 Forbidden' } })
  })
})
