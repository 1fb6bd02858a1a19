import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>
let alice: User
let bob: User
let carol: User
const tokens: Record<string, string> = {}
let group: NamespaceRow
/** alice's public project and its direct forks: bob's (public), carol's (private), and one in alice's group (internal). */
let source: ProjectRow
const forks: Record<string, Record<string, any>> = {}

async function fork(id: number, token: string, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await request('POST', `/api/v4/projects/${id}/fork`, { token, body })
  expect(res.status, res.text).toBe(201)
  return res.body as Record<string, any>
}

async function list(query: string, token?: string) {
  const res = await request('GET', `/api/v4/projects/${source.id}/forks${query}`, { token })
  expect(res.status, res.text).toBe(200)
  return res
}

/** `token` null: anonymous. */
async function names(query: string, token: string | null = tokens.carol): Promise<string[]> {
  return ((await list(query, token ?? undefined)).body as { path_with_namespace: string }[]).map((p) => p.path_with_namespace)
}

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  alice = await createTestUser(db, { username: 'alice' })
  bob = await createTestUser(db, { username: 'bob' })
  carol = await createTestUser(db, { username: 'carol' })
  for (const user of [alice, bob, carol]) tokens[user.username] = (await createTestToken(db, user)).value
  group = await createTestGroup(db, { path: 'crew', visibility: 'internal' })
  await addTestMember(db, { user: alice, group, accessLevel: 50 })
  source = await createTestProject(db, { owner: alice, path: 'origin', name: 'Origin', visibility: 'public' })
  forks.bob = await fork(source.id, tokens.bob)
  forks.carol = await fork(source.id, tokens.carol, { name: 'Carol copy', path: 'carol-copy', visibility: 'private' })
  forks.crew = await fork(source.id, tokens.alice, { namespace_id: group.id })
  // A fork of a fork is no direct fork of the source.
  forks.nested = await fork(forks.bob.id as number, tokens.carol, { path: 'nested', name: 'Nested' })
  await server.runJobs()
}, 60_000)

afterAll(() => server.close())

describe('GET /projects/:id/forks', () => {
  test('lists the direct forks the caller may see, newest first, as the project list presents them', async () => {
    expect(await names('', null)).toEqual(['bob/origin'])
    expect(await names('', tokens.bob)).toEqual(['crew/origin', 'bob/origin'])
    expect(await names('', tokens.carol)).toEqual(['crew/origin', 'carol/carol-copy', 'bob/origin'])
    expect(await names('', server.rootToken)).toEqual(['crew/origin', 'carol/carol-copy', 'bob/origin'])

    // Each entry is the ProjectWithAccess entity, byte for byte what GET /projects/:id answers the same caller.
    const res = await list('', tokens.carol)
    const own = (res.body as Record<string, any>[]).find((p) => p.id === forks.carol.id)
    const shown = await request('GET', `/api/v4/projects/${forks.carol.id}`, { token: tokens.carol })
    expect(own).toEqual(shown.body)
    expect(own).toMatchObject({
      import_status: 'finished',
      forked_from_project: { id: source.id, path_with_namespace: 'alice/origin' },
      permissions: { project_access: { access_level: 50, notification_level: 3 }, group_access: null },
    })
    // Anonymous callers get BasicProjectDetails.
    const anonymous = await list('')
    expect(Object.keys(anonymous.body[0])).not.toContain('_links')
    expect(anonymous.body[0]).toMatchObject({ id: forks.bob.id, path_with_namespace: 'bob/origin' })

    const hidden = await createTestProject(server.database.db, { owner: alice, visibility: 'private' })
    const refused = await request('GET', `/api/v4/projects/${hidden.id}/forks`, { token: tokens.bob })
    expect([refused.status, refused.body]).toEqual([404, { message: '404 Project Not Found' }])
  })

  test('pages by offset with GitLab’s headers, and by keyset', async () => {
    const res = await list('?per_page=1&page=2&order_by=id&sort=asc', tokens.carol)
    expect(res.body.map((p: { id: number }) => p.id)).toEqual([forks.carol.id])
    expect(res.headers).toMatchObject({
      'x-page': '2',
      'x-per-page': '1',
      'x-total': '3',
      'x-total-pages': '3',
      'x-next-page': '3',
      'x-prev-page': '1',
    })
    const base = `${server.url}/api/v4/projects/${source.id}/forks`
    expect(res.headers.link).toMatch(new RegExp(`<${base}\\?[^>]*page=3[^>]*>; rel="next"`))
    const keyset = await list('?pagination=keyset&order_by=id&sort=asc&per_page=2', tokens.carol)
    expect(keyset.body.map((p: { id: number }) => p.id)).toEqual([forks.bob.id, forks.carol.id])
    expect(keyset.headers.link).toMatch(new RegExp(`^<${base}\\?[^>]*id_after=${forks.carol.id}[^>]*>; rel="next"$`))
  })

  test('every filter of the project list applies', async () => {
    await request('POST', `/api/v4/projects/${forks.crew.id}/archive`, { token: tokens.alice })
    await request('POST', `/api/v4/projects/${forks.bob.id}/star`, { token: tokens.carol })
    await request('PUT', `/api/v4/projects/${forks.bob.id}`, { token: tokens.bob, body: { issues_access_level: 'disabled' } })
    await request('PUT', `/api/v4/projects/${forks.carol.id}`, { token: tokens.carol, body: { merge_requests_access_level: 'disabled' } })
    expect(await names('?archived=true')).toEqual(['crew/origin'])
    expect(await names('?archived=false')).toEqual(['carol/carol-copy', 'bob/origin'])
    expect(await names('?owned=true')).toEqual(['carol/carol-copy'])
    expect(await names('?membership=true')).toEqual(['carol/carol-copy'])
    expect(await names('?min_access_level=50')).toEqual(['carol/carol-copy'])
    expect(await names('?membership=true', tokens.alice)).toEqual(['crew/origin'])
    expect(await names('?visibility=private')).toEqual(['carol/carol-copy'])
    expect(await names('?visibility=internal')).toEqual(['crew/origin'])
    expect(await names('?search=carol')).toEqual(['carol/carol-copy'])
    expect(await names('?starred=true')).toEqual(['bob/origin'])
    expect(await names('?with_issues_enabled=true')).toEqual(['crew/origin', 'carol/carol-copy'])
    expect(await names('?with_merge_requests_enabled=true')).toEqual(['crew/origin', 'bob/origin'])
    expect(await names('?order_by=id&sort=asc')).toEqual(['bob/origin', 'carol/carol-copy', 'crew/origin'])
    expect(await names('?order_by=path&sort=asc')).toEqual(['carol/carol-copy', 'bob/origin', 'crew/origin'])
    expect(await names('?order_by=name&sort=desc')).toEqual(['crew/origin', 'bob/origin', 'carol/carol-copy'])
    expect(await names('?order_by=star_count&sort=desc')).toEqual(['bob/origin', 'crew/origin', 'carol/carol-copy'])
    const future = new Date(Date.now() + 86_400_000).toISOString()
    const past = '2000-01-01T00:00:00Z'
    expect(await names(`?updated_after=${encodeURIComponent(future)}`)).toEqual([])
    expect(await names(`?updated_before=${encodeURIComponent(past)}`)).toEqual([])
    expect(await names(`?updated_after=${encodeURIComponent(past)}&updated_before=${encodeURIComponent(future)}`)).toHaveLength(3)

    const simple = await list('?simple=true', tokens.carol)
    expect(Object.keys(simple.body[0])).not.toContain('permissions')
    expect(Object.keys(simple.body[0])).not.toContain('_links')
    const withStatistics = await list('?statistics=true&owned=true', tokens.carol)
    expect(withStatistics.body[0].statistics).toMatchObject({ commit_count: 0, repository_size: 0 })
    const attributes = await list('?with_custom_attributes=true', server.rootToken)
    expect(attributes.body[0].custom_attributes).toEqual([])
    const notAdmin = await list('?with_custom_attributes=true', tokens.carol)
    expect('custom_attributes' in notAdmin.body[0]).toBe(false)

    const bad = await request('GET', `/api/v4/projects/${source.id}/forks?order_by=size&visibility=hidden`, { token: tokens.carol })
    expect([bad.status, bad.body]).toEqual([400, { error: 'order_by does not have a valid value, visibility does not have a valid value' }])
  })
})

describe('fork relations', () => {
  test('POST /projects/:id/fork/:forked_from_id links an existing project; DELETE /projects/:id/fork unlinks it', async () => {
    const db = server.database.db
    const mine = await createTestProject(db, { owner: bob, path: 'standalone', visibility: 'public' })
    const linked = await request('POST', `/api/v4/projects/${mine.id}/fork/${source.id}`, { token: tokens.bob })
    expect(linked.status, linked.text).toBe(201)
    expect(linked.body).toMatchObject({
      id: mine.id,
      path_with_namespace: 'bob/standalone',
      import_status: 'none',
      forked_from_project: { id: source.id, path_with_namespace: 'alice/origin' },
    })
    const shown = await request('GET', `/api/v4/projects/${mine.id}`, { token: tokens.bob })
    delete shown.body.permissions
    expect(linked.body).toEqual(shown.body)
    expect(await names('?search=standalone', tokens.bob)).toEqual(['bob/standalone'])

    const again = await request('POST', `/api/v4/projects/${mine.id}/fork/${source.id}`, { token: tokens.bob })
    expect([again.status, again.body]).toEqual([409, { message: 'Project already forked' }])

    const removed = await request('DELETE', `/api/v4/projects/${mine.id}/fork`, { token: tokens.bob })
    expect([removed.status, removed.text]).toEqual([204, ''])
    const notFork = await request('DELETE', `/api/v4/projects/${mine.id}/fork`, { token: tokens.bob })
    expect([notFork.status, notFork.text]).toEqual([304, ''])
    expect((await request('GET', `/api/v4/projects/${mine.id}`, { token: tokens.bob })).body.forked_from_project).toBeUndefined()
    expect(await names('?search=standalone', tokens.bob)).toEqual([])

    // A source by path, even a former one, as GitLab's finder follows renames.
    const byPath = await request('POST', `/api/v4/projects/${mine.id}/fork/${encodeURIComponent('alice/origin')}`, { token: tokens.bob })
    expect(byPath.status, byPath.text).toBe(201)
    expect(byPath.body.forked_from_project.id).toBe(source.id)
  })

  test('refusals', async () => {
    const db = server.database.db
    const own = await createTestProject(db, { owner: bob, path: 'lonely', visibility: 'public' })
    const call = (method: string, url: string, token?: string) => request(method, `/api/v4${url}`, { token })
    const expectAnswer = async (promise: ReturnType<typeof call>, status: number, body: unknown) => {
      const res = await promise
      expect([res.status, res.body], res.text).toEqual([status, body])
    }
    await expectAnswer(call('POST', `/projects/${own.id}/fork/${own.id}`, tokens.bob), 400, {
      message: 'Target project cannot be equal to source project',
    })
    await expectAnswer(call('POST', `/projects/${own.id}/fork/99999999`, tokens.bob), 404, { message: '404 Source Project Not Found' })
    const hidden = await createTestProject(db, { owner: alice, visibility: 'private' })
    await expectAnswer(call('POST', `/projects/${own.id}/fork/${hidden.id}`, tokens.bob), 404, { message: '404 Source Project Not Found' })
    await expectAnswer(call('POST', `/projects/${own.id}/fork/${source.id}`), 401, { message: '401 Unauthorized' })
    // Not Owner of the project: 403; not even able to see it: 404.
    await expectAnswer(call('POST', `/projects/${own.id}/fork/${source.id}`, tokens.carol), 403, { message: '403 Forbidden' })
    const secret = await createTestProject(db, { owner: bob, visibility: 'private' })
    await expectAnswer(call('POST', `/projects/${secret.id}/fork/${source.id}`, tokens.carol), 404, { message: '404 Project Not Found' })
    const maintained = await createTestProject(db, { owner: alice, visibility: 'public' })
    await addTestMember(db, { user: bob, project: maintained, accessLevel: 40 })
    await expectAnswer(call('POST', `/projects/${maintained.id}/fork/${source.id}`, tokens.bob), 403, { message: '403 Forbidden' })
    // A source the caller may see but not fork.
    const closed = await createTestProject(db, { owner: alice, visibility: 'public' })
    await db.updateTable('projects').set({ forking_access_level: 0 }).where('id', '=', closed.id).execute()
    await expectAnswer(call('POST', `/projects/${own.id}/fork/${closed.id}`, tokens.bob), 403, { message: '403 Forbidden' })
    // The project's namespace must be one the caller may fork into.
    const foreign = await createTestGroup(db, { visibility: 'public' })
    const inForeign = await createTestProject(db, { namespace: foreign, visibility: 'public' })
    await addTestMember(db, { user: bob, project: inForeign, accessLevel: 50 })
    await expectAnswer(call('POST', `/projects/${inForeign.id}/fork/${source.id}`, tokens.bob), 401, {
      message: '401 Unauthorized - Target Namespace',
    })
    // Administrators may link anything.
    const byAdmin = await call('POST', `/projects/${inForeign.id}/fork/${source.id}`, server.rootToken)
    expect(byAdmin.status, byAdmin.text).toBe(201)

    const forkOfSource = forks.bob.id as number
    await expectAnswer(call('DELETE', `/projects/${forkOfSource}/fork`, tokens.carol), 403, { message: '403 Forbidden' })
    await expectAnswer(call('DELETE', `/projects/${forkOfSource}/fork`), 401, { message: '401 Unauthorized' })
    const stale = await request('DELETE', `/api/v4/projects/${forkOfSource}/fork`, {
      token: tokens.bob,
      headers: { 'if-unmodified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' },
    })
    expect([stale.status, stale.body]).toEqual([412, { message: '412 Precondition Failed' }])
  })
})

describe('the gitbeaker Projects API', () => {
  test('forks, lists forks, and creates and removes fork relations', async () => {
    const db = server.database.db
    const dave = await createTestUser(db, { username: 'dave' })
    const api = new Gitlab({ host: server.url, token: (await createTestToken(db, dave)).value })
    const team = await createTestGroup(db, { path: 'dave-team' })
    await addTestMember(db, { user: dave, group: team, accessLevel: 40 })
    const created = await api.Projects.fork(source.id, { namespaceId: team.id, name: 'Beaker fork', path: 'beaker-fork' })
    expect(created).toMatchObject({ path_with_namespace: 'dave-team/beaker-fork', import_status: 'scheduled' })
    await server.runJobs()
    expect((await api.Projects.show(created.id)).import_status).toBe('finished')
    const all = await api.Projects.allForks(source.id, { orderBy: 'id', sort: 'asc' })
    expect(all.map((p) => p.path_with_namespace)).toContain('dave-team/beaker-fork')
    const searched = await api.Projects.allForks(source.id, { search: 'beaker', simple: true })
    expect(searched.map((p) => p.path_with_namespace)).toEqual(['dave-team/beaker-fork'])

    const plain = await api.Projects.create({ name: 'Plain', visibility: 'public' })
    await api.Projects.createForkRelationship(plain.id, source.id)
    expect((await api.Projects.show(plain.id)).forked_from_project).toMatchObject({ id: source.id })
    await api.Projects.removeForkRelationship(plain.id)
    expect((await api.Projects.show(plain.id)).forked_from_project).toBeUndefined()
    await expect(api.Projects.fork(source.id, { namespacePath: 'no/such' })).rejects.toMatchObject({
      cause: { description: '404 Namespace Not Found' },
    })
  })
})
