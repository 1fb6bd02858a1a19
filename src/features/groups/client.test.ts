import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { findNamespaceRow, findProjectRow } from './testing.js'

let server: TestServer
let gitlab: InstanceType<typeof Gitlab>

beforeAll(async () => {
  server = await startTestServer()
  gitlab = new Gitlab({ host: server.url, token: server.rootToken })
})
afterAll(() => server.close())

describe('the gitbeaker Groups API', () => {
  test('creates nested groups, reads, edits, lists, transfers and removes them', async () => {
    const top = await gitlab.Groups.create('Client Top', 'client-top', { visibility: 'public', description: 'From gitbeaker' })
    expect(top).toMatchObject({
      name: 'Client Top',
      path: 'client-top',
      visibility: 'public',
      description: 'From gitbeaker',
      parent_id: null,
    })
    const middle = await gitlab.Groups.create('Middle', 'middle', { parentId: top.id, visibility: 'public' })
    const bottom = await gitlab.Groups.create('Bottom', 'bottom', { parentId: middle.id })
    expect(bottom.full_path).toBe('client-top/middle/bottom')

    const namespace = (await findNamespaceRow(server.database.db, bottom.id))!
    const project = await createTestProject(server.database.db, { namespace, path: 'deep-app' })

    const shown = await gitlab.Groups.show('client-top/middle/bottom')
    expect(shown).toMatchObject({ id: bottom.id, full_name: 'Client Top / Middle / Bottom', projects: expect.any(Array) })

    const edited = await gitlab.Groups.edit(top.id, { path: 'client-renamed', description: 'Edited' })
    expect(edited).toMatchObject({ path: 'client-renamed', full_path: 'client-renamed', description: 'Edited' })
    expect((await gitlab.Groups.show(bottom.id)).full_path).toBe('client-renamed/middle/bottom')
    expect((await findProjectRow(server.database.db, project.id))!.full_path).toBe('client-renamed/middle/bottom/deep-app')

    const subgroups = await gitlab.Groups.allSubgroups(top.id)
    expect(subgroups.map((g) => g.id)).toEqual([middle.id])
    const descendants = await gitlab.Groups.allDescendantGroups(top.id, {})
    expect(descendants.map((g) => g.id).sort()).toEqual([middle.id, bottom.id].sort())

    // gitbeaker types the answer as void; GitLab sends the GroupDetail.
    const promoted = (await gitlab.Groups.transfer(bottom.id)) as unknown
    expect(promoted).toMatchObject({ parent_id: null, full_path: 'bottom' })
    expect((await findProjectRow(server.database.db, project.id))!.full_path).toBe('bottom/deep-app')
    const back = (await gitlab.Groups.transfer(bottom.id, { groupId: middle.id })) as unknown as { full_path: string }
    expect(back.full_path).toBe('client-renamed/middle/bottom')

    await gitlab.Groups.remove(top.id)
    await expect(gitlab.Groups.show(top.id)).rejects.toMatchObject({ cause: { description: '404 Group Not Found' } })
    await server.runJobs()
    expect(await findProjectRow(server.database.db, project.id)).toBeUndefined()
  })

  test('reports refusals with GitLab messages', async () => {
    const group = await gitlab.Groups.create('Refusing', 'refusing')
    await expect(gitlab.Groups.create('Again', 'refusing')).rejects.toMatchObject({
      cause: { description: expect.stringContaining('taken') },
    })
    await expect(gitlab.Groups.transfer(group.id)).rejects.toMatchObject({
      cause: { description: 'Transfer failed: Group is already a root group.' },
    })
    const user = await createTestUser(server.database.db, { can_create_group: 0 })
    const token = await createTestToken(server.database.db, user)
    const limited = new Gitlab({ host: server.url, token: token.value })
    await expect(limited.Groups.create('Nope', 'nope')).rejects.toMatchObject({ cause: { description: '403 Forbidden' } })
  })

  test('pages through groups by offset, and anonymously by keyset', async () => {
    for (let i = 0; i < 5; i++) await gitlab.Groups.create(`page ${i}`, `page-${i}`, { visibility: 'public' })
    const all = await gitlab.Groups.all({ perPage: 100, search: 'page' })
    expect(all.map((g) => g.name)).toEqual(['page 0', 'page 1', 'page 2', 'page 3', 'page 4'])
    const paged = await gitlab.Groups.all({ perPage: 2, search: 'page', pagination: 'offset' })
    expect(paged.map((g) => g.id)).toEqual(all.map((g) => g.id))
    const withInfo = await gitlab.Groups.all({ perPage: 2, page: 2, search: 'page', pagination: 'offset', showExpanded: true, maxPages: 1 })
    expect(withInfo.paginationInfo).toMatchObject({ current: 2, perPage: 2, previous: 1, next: 3, total: 5, totalPages: 3 })

    const anonymous = new Gitlab({ host: server.url, token: '' } as never)
    const keyset = await anonymous.Groups.all({ pagination: 'keyset', orderBy: 'name', sort: 'asc', perPage: 2, search: 'page' })
    expect(keyset.map((g) => g.name)).toEqual(['page 0', 'page 1', 'page 2', 'page 3', 'page 4'])
  })
})
