import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { contextFor } from '../../testing/context.js'
import { addTestMember, createTestGroup, createTestProject, createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { listProjectsOfGroupForDetail } from './index.js'

let server: TestServer
let member: User
let outsider: User
let group: NamespaceRow
let publicProject: ProjectRow
let internalProject: ProjectRow
let privateProject: ProjectRow

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  member = await createTestUser(db)
  outsider = await createTestUser(db)
  group = await createTestGroup(db, { path: 'detail-group' })
  const subgroup = await createTestGroup(db, { path: 'sub', parent: group })
  publicProject = await createTestProject(db, { namespace: group, path: 'public-one', visibility: 'public' })
  internalProject = await createTestProject(db, { namespace: group, path: 'internal-one', visibility: 'internal' })
  privateProject = await createTestProject(db, { namespace: group, path: 'private-one', visibility: 'private' })
  await createTestProject(db, { namespace: subgroup, path: 'in-subgroup', visibility: 'public' })
  await addTestMember(db, { user: member, group, accessLevel: 30 })
})
afterAll(() => server.close())

const ids = (list: unknown[]) => list.map((p) => (p as { id: number }).id)

describe('listProjectsOfGroupForDetail', () => {
  test('a member sees every project of the group itself, newest first, as the Project entity', async () => {
    const list = await listProjectsOfGroupForDetail(contextFor(server, member), group)
    expect(ids(list)).toEqual([privateProject.id, internalProject.id, publicProject.id])
    const first = list[0] as Record<string, unknown>
    expect(first.path_with_namespace).toBe('detail-group/private-one')
    expect(first._links).toBeDefined()
    expect(first.permissions).toBeUndefined()
  })

  test('others see what is visible to them', async () => {
    expect(ids(await listProjectsOfGroupForDetail(contextFor(server, outsider), group))).toEqual([internalProject.id, publicProject.id])
    expect(ids(await listProjectsOfGroupForDetail(contextFor(server, null), group))).toEqual([publicProject.id])
  })

  test('at most 100 projects', async () => {
    const big = await createTestGroup(server.database.db, { path: 'big-group' })
    for (let i = 0; i < 101; i++) await createTestProject(server.database.db, { namespace: big, path: `p${i}` })
    const list = await listProjectsOfGroupForDetail(contextFor(server, null), big)
    expect(list).toHaveLength(100)
    expect((list[0] as { path: string }).path).toBe('p100')
  })
})
