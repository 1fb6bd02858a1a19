import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { canRead } from '../../core/access.js'
import type { User } from '../../core/caller.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { contextFor } from '../../testing/context.js'
import { addTestMember, createTestGroup, createTestProject, createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { findNamespaceById } from './index.js'
import { groupAccess, projectAccess, visibleGroupsCondition, visibleProjectsCondition } from './index.js'

let server: TestServer
let top: NamespaceRow
let middle: NamespaceRow
let bottom: NamespaceRow
let deepProject: ProjectRow
let personalProject: ProjectRow
let owner: User
let topReporter: User
let bottomGuest: User
let expired: User
let outsider: User
let external: User
let admin: User

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  top = await createTestGroup(db, { visibility: 'private' })
  middle = await createTestGroup(db, { parent: top, visibility: 'private' })
  bottom = await createTestGroup(db, { parent: middle, visibility: 'private' })
  deepProject = await createTestProject(db, { namespace: bottom, visibility: 'private' })
  owner = await createTestUser(db)
  personalProject = await createTestProject(db, { owner, visibility: 'internal' })
  topReporter = await createTestUser(db)
  bottomGuest = await createTestUser(db)
  expired = await createTestUser(db)
  outsider = await createTestUser(db)
  external = await createTestUser(db, { external: 1 })
  admin = await createTestUser(db, { admin: 1 })
  await addTestMember(db, { user: topReporter, group: top, accessLevel: 20 })
  await addTestMember(db, { user: bottomGuest, group: bottom, accessLevel: 10 })
  await addTestMember(db, { user: expired, group: top, accessLevel: 50, expiresAt: '2020-01-01' })
})

afterAll(() => server?.close())

async function levelsOn(user: User | null, project: ProjectRow) {
  const [namespace] = await findNamespaceById(server.database.db, project.namespace_id)
  const access = await projectAccess(contextFor(server, user), project, namespace)
  return { level: access.level, projectLevel: access.projectLevel, groupLevel: access.groupLevel, readable: canRead(access) }
}

describe('project access', () => {
  test('a role in a group is inherited by projects at any depth below it', async () => {
    expect(await levelsOn(topReporter, deepProject)).toEqual({ level: 20, projectLevel: null, groupLevel: 20, readable: true })
    expect(await levelsOn(bottomGuest, deepProject)).toEqual({ level: 10, projectLevel: null, groupLevel: 10, readable: true })
  })

  test('expired memberships, outsiders and anonymous callers have no role in a private project', async () => {
    for (const user of [expired, outsider, null]) {
      expect(await levelsOn(user, deepProject)).toEqual({ level: 0, projectLevel: null, groupLevel: null, readable: false })
    }
  })

  test('the owner of a personal namespace owns its projects; internal ones are hidden from external users', async () => {
    expect(await levelsOn(owner, personalProject)).toEqual({ level: 50, projectLevel: 50, groupLevel: null, readable: true })
    expect((await levelsOn(outsider, personalProject)).readable).toBe(true)
    expect((await levelsOn(external, personalProject)).readable).toBe(false)
    expect((await levelsOn(null, personalProject)).readable).toBe(false)
    expect((await levelsOn(admin, personalProject)).readable).toBe(true)
  })
})

describe('group access', () => {
  test('members see ancestors of what they belong to, without a role there', async () => {
    const access = await groupAccess(contextFor(server, bottomGuest), top)
    expect([access.level, access.descendantAccess, canRead(access)]).toEqual([0, true, true])
    const outside = await groupAccess(contextFor(server, outsider), top)
    expect([outside.level, outside.descendantAccess, canRead(outside)]).toEqual([0, false, false])
    const inherited = await groupAccess(contextFor(server, topReporter), bottom)
    expect([inherited.level, canRead(inherited)]).toEqual([20, true])
  })
})

describe('visible lists', () => {
  async function visibleProjectIds(user: User | null) {
    const ctx = contextFor(server, user)
    const rows = await ctx.db
      .selectFrom('projects')
      .select('id')
      .where((eb) => visibleProjectsCondition(ctx, eb))
      .where('id', 'in', [deepProject.id, personalProject.id])
      .orderBy('id')
      .execute()
    return rows.map((r) => r.id)
  }

  async function visibleGroupIds(user: User | null) {
    const ctx = contextFor(server, user)
    const rows = await ctx.db
      .selectFrom('namespaces')
      .select('id')
      .where((eb) => visibleGroupsCondition(ctx, eb))
      .where('id', 'in', [top.id, middle.id, bottom.id])
      .orderBy('id')
      .execute()
    return rows.map((r) => r.id)
  }

  test('projects: by role, by visibility and for admins', async () => {
    expect(await visibleProjectIds(topReporter)).toEqual([deepProject.id, personalProject.id])
    expect(await visibleProjectIds(outsider)).toEqual([personalProject.id])
    expect(await visibleProjectIds(external)).toEqual([])
    expect(await visibleProjectIds(expired)).toEqual([personalProject.id])
    expect(await visibleProjectIds(null)).toEqual([])
    expect(await visibleProjectIds(admin)).toEqual([deepProject.id, personalProject.id])
  })

  test('groups: members see their groups, those below and those above', async () => {
    expect(await visibleGroupIds(topReporter)).toEqual([top.id, middle.id, bottom.id])
    expect(await visibleGroupIds(bottomGuest)).toEqual([top.id, middle.id, bottom.id])
    expect(await visibleGroupIds(outsider)).toEqual([])
    expect(await visibleGroupIds(admin)).toEqual([top.id, middle.id, bottom.id])
  })
})
