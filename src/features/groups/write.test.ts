import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { GROUP_DETAIL_KEYS, GROUP_KEYS, countRows, findNamespaceRow, findProjectRow, findRedirectPaths } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>
let owner: User
let maintainer: User
let developer: User
const tokens: Record<string, string> = {}

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  owner = await createTestUser(db)
  maintainer = await createTestUser(db)
  developer = await createTestUser(db)
  const outsider = await createTestUser(db)
  for (const [name, user] of Object.entries({ owner, maintainer, developer, outsider }))
    tokens[name] = (await createTestToken(db, user)).value
  tokens.root = server.rootToken
})
afterAll(() => server.close())

interface Tree {
  top: NamespaceRow
  team: NamespaceRow
  squad: NamespaceRow
  svc: ProjectRow
  api: ProjectRow
}

/** `<top>/team/squad` with a project in team and one in squad; owner is Owner, maintainer Maintainer of top. */
async function buildTree(top: string, visibility: 'public' | 'private' = 'public'): Promise<Tree> {
  const db = server.database.db
  const root = await createTestGroup(db, { path: top, name: top, visibility })
  const team = await createTestGroup(db, { path: 'team', name: 'Team', parent: root, visibility })
  const squad = await createTestGroup(db, { path: 'squad', name: 'Squad', parent: team, visibility: 'private' })
  const svc = await createTestProject(db, { namespace: team, path: 'svc', name: 'Svc', visibility })
  const api = await createTestProject(db, { namespace: squad, path: 'api', name: 'Api', visibility: 'private' })
  await addTestMember(db, { user: owner, group: root, accessLevel: 50 })
  await addTestMember(db, { user: maintainer, group: root, accessLevel: 40 })
  await addTestMember(db, { user: developer, project: api, accessLevel: 30 })
  return { top: root, team, squad, svc, api }
}

function send(method: string, path: string, who: string | undefined, body?: Record<string, unknown>) {
  return request(method, `/api/v4${path}`, { token: who ? tokens[who] : undefined, body })
}

async function snapshot(tree: Tree) {
  const db = server.database.db
  return {
    counts: await countRows(db),
    groups: await Promise.all([tree.top, tree.team, tree.squad].map((g) => findNamespaceRow(db, g.id))),
    projects: await Promise.all([tree.svc, tree.api].map((p) => findProjectRow(db, p.id))),
  }
}

/** Sends a request that must be refused, and checks nothing changed. */
async function refused(tree: Tree, method: string, path: string, who: string | undefined, body?: Record<string, unknown>) {
  const before = await snapshot(tree)
  const res = await send(method, path, who, body)
  expect(await snapshot(tree)).toEqual(before)
  return res
}

async function fullPaths(tree: Tree) {
  const db = server.database.db
  const groups = await Promise.all([tree.top, tree.team, tree.squad].map((g) => findNamespaceRow(db, g.id)))
  const projects = await Promise.all([tree.svc, tree.api].map((p) => findProjectRow(db, p.id)))
  return [...groups.map((g) => g!.full_path), ...projects.map((p) => p!.full_path)]
}

describe('PUT /groups/:id', () => {
  test('Owners change settings and get GroupDetail with projects', async () => {
    const tree = await buildTree('settings')
    const res = await send('PUT', `/groups/${tree.team.id}`, 'owner', {
      description: 'The team',
      request_access_enabled: false,
      project_creation_level: 'maintainer',
      subgroup_creation_level: 'owner',
      emails_enabled: false,
      mentions_disabled: true,
      lfs_enabled: false,
      two_factor_grace_period: 0,
      require_two_factor_authentication: true,
      default_branch: 'develop',
    })
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual([...GROUP_KEYS, 'shared_with_groups', 'runners_token', 'projects', 'shared_projects'])
    expect(res.body).toMatchObject({
      description: 'The team',
      request_access_enabled: false,
      project_creation_level: 'maintainer',
      subgroup_creation_level: 'owner',
      emails_disabled: true,
      emails_enabled: false,
      mentions_disabled: true,
      lfs_enabled: false,
      two_factor_grace_period: 0,
      require_two_factor_authentication: true,
      default_branch: 'develop',
      full_path: 'settings/team',
    })
    const stored = await findNamespaceRow(server.database.db, tree.team.id)
    expect(stored).toMatchObject({ description: 'The team', project_creation_level: 1, subgroup_creation_level: 0, emails_enabled: 0 })
    // emails_disabled wins over emails_enabled, as GitLab translates it.
    const both = await send('PUT', `/groups/${tree.team.id}`, 'owner', { emails_disabled: false, emails_enabled: false })
    expect(both.body.emails_enabled).toBe(true)
  })

  test('Maintainers and visible non-members get 403, hidden groups 404, anonymous callers 401', async () => {
    const tree = await buildTree('refusals')
    const maintainerRes = await refused(tree, 'PUT', `/groups/${tree.top.id}`, 'maintainer', { description: 'x' })
    expect(maintainerRes.status).toBe(403)
    expect(maintainerRes.body).toEqual({ message: '403 Forbidden' })
    expect((await refused(tree, 'PUT', `/groups/${tree.top.id}`, 'outsider', { description: 'x' })).status).toBe(403)
    const hidden = await refused(tree, 'PUT', `/groups/${tree.squad.id}`, 'outsider', { description: 'x' })
    expect(hidden.status).toBe(404)
    expect(hidden.body).toEqual({ message: '404 Group Not Found' })
    const anonymous = await refused(tree, 'PUT', `/groups/${tree.top.id}`, undefined, { description: 'x' })
    expect(anonymous.status).toBe(401)
  })

  test('a new path moves every group and project below; old paths redirect', async () => {
    const tree = await buildTree('rename')
    const res = await send('PUT', '/groups/rename', 'owner', { path: 'renamed' })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ path: 'renamed', full_path: 'renamed', web_url: `${server.url}/groups/renamed` })
    expect(await fullPaths(tree)).toEqual(['renamed', 'renamed/team', 'renamed/team/squad', 'renamed/team/svc', 'renamed/team/squad/api'])
    expect(await findRedirectPaths(server.database.db)).toEqual(
      expect.arrayContaining(['rename', 'rename/team', 'rename/team/squad', 'rename/team/svc', 'rename/team/squad/api']),
    )
    expect((await send('GET', '/groups/renamed%2Fteam%2Fsquad', 'owner')).body.id).toBe(tree.squad.id)
    // Groups are not found by old paths.
    expect((await send('GET', '/groups/rename', 'owner')).status).toBe(404)
    const traversal = (await findNamespaceRow(server.database.db, tree.squad.id))!.traversal_ids
    expect(traversal).toBe(`${tree.top.id}/${tree.team.id}/${tree.squad.id}/`)
  })

  test('a middle group renamed: full paths and names below follow', async () => {
    const tree = await buildTree('middle')
    const res = await send('PUT', `/groups/${tree.team.id}`, 'owner', { name: 'Crew', path: 'crew' })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ name: 'Crew', full_name: 'middle / Crew', full_path: 'middle/crew' })
    expect(await fullPaths(tree)).toEqual(['middle', 'middle/crew', 'middle/crew/squad', 'middle/crew/svc', 'middle/crew/squad/api'])
    const db = server.database.db
    expect((await findNamespaceRow(db, tree.squad.id))!.full_name).toBe('middle / Crew / Squad')
    expect((await findProjectRow(db, tree.api.id))!.full_name).toBe('middle / Crew / Squad / Api')
  })

  test('bad paths and names change nothing', async () => {
    const tree = await buildTree('strict')
    await createTestGroup(server.database.db, { path: 'occupied' })
    const cases: [Record<string, unknown>, unknown][] = [
      [{ path: '..' }, { message: { path: [expect.stringContaining('non-accented'), expect.stringContaining("Cannot start with '-'")] } }],
      [{ path: 'a' }, { message: { path: ['is too short (minimum is 2 characters)'] } }],
      [{ path: 'admin' }, { message: { path: ['admin is a reserved name'] } }],
      [{ path: 'Occupied' }, { message: { path: ['has already been taken'] } }],
      [{ path: 'x'.repeat(256) }, { message: { path: ['is too long (maximum is 255 characters)'] } }],
      [{ name: '' }, { message: { name: ["can't be blank"] } }],
      [{ name: 'bad/name' }, { message: { name: [expect.stringContaining('can contain only letters')] } }],
      [{ two_factor_grace_period: -1 }, { message: { two_factor_grace_period: ['must be greater than or equal to 0'] } }],
      [{ visibility: 'hidden' }, { error: 'visibility does not have a valid value' }],
      [{ default_branch: '' }, { message: { 'namespace_settings.default_branch_name': ['can not be an empty string'] } }],
    ]
    for (const [body, expected] of cases) {
      const res = await refused(tree, 'PUT', `/groups/${tree.top.id}`, 'owner', body)
      expect(res.status).toBe(400)
      expect(res.body).toEqual(expected)
    }
    // A subgroup's path may be a word reserved only at the top level, but not a project route.
    expect((await refused(tree, 'PUT', `/groups/${tree.team.id}`, 'owner', { path: 'tree' })).body).toEqual({
      message: { path: ['tree is a reserved name'] },
    })
    await createTestProject(server.database.db, { namespace: tree.top, path: 'sibling-project' })
    expect((await refused(tree, 'PUT', `/groups/${tree.team.id}`, 'owner', { path: 'Sibling-Project' })).body).toEqual({
      message: { path: ['has already been taken'] },
    })
  })

  test('visibility stays within the parent and above what is inside', async () => {
    const tree = await buildTree('levels')
    const projects = await refused(tree, 'PUT', `/groups/${tree.team.id}`, 'owner', { visibility: 'private' })
    expect(projects.body).toEqual({
      message: { visibility_level: ['private is not allowed since this group contains projects with higher visibility.'] },
    })
    const subgroups = await refused(tree, 'PUT', `/groups/${tree.top.id}`, 'owner', { visibility: 'internal' })
    expect(subgroups.body).toEqual({
      message: { visibility_level: ['internal is not allowed since there are sub-groups with higher visibility.'] },
    })
    const db = server.database.db
    const closed = await createTestGroup(db, { path: 'closed', visibility: 'private' })
    const inner = await createTestGroup(db, { path: 'inner', parent: closed, visibility: 'private' })
    await addTestMember(db, { user: owner, group: closed, accessLevel: 50 })
    const parent = await send('PUT', `/groups/${inner.id}`, 'owner', { visibility: 'public' })
    expect(parent.status).toBe(400)
    expect(parent.body).toEqual({
      message: { visibility_level: ['public is not allowed since the parent group has a private visibility.'] },
    })
    expect((await findNamespaceRow(db, inner.id))!.visibility_level).toBe(0)
    expect((await send('PUT', `/groups/${inner.id}`, 'owner', { visibility: 'private', description: 'same' })).status).toBe(200)
    const opened = await send('PUT', `/groups/${tree.squad.id}`, 'owner', { visibility: 'public' })
    expect(opened.status).toBe(200)
    expect(opened.body.visibility).toBe('public')
  })

  test('locking sharing locks every group below; only an Owner above may unlock below a locked parent', async () => {
    const tree = await buildTree('lock')
    const db = server.database.db
    const squadOwner = await createTestUser(db)
    await addTestMember(db, { user: squadOwner, group: tree.squad, accessLevel: 50 })
    tokens.squadOwner = (await createTestToken(db, squadOwner)).value
    const locked = await send('PUT', `/groups/${tree.top.id}`, 'owner', { share_with_group_lock: true })
    expect(locked.body.share_with_group_lock).toBe(true)
    expect((await findNamespaceRow(db, tree.squad.id))!.share_with_group_lock).toBe(1)
    const res = await refused(tree, 'PUT', `/groups/${tree.squad.id}`, 'squadOwner', { share_with_group_lock: false })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      message: {
        share_with_group_lock: [
          'cannot be disabled when the parent group "Share with group lock" is enabled, except by the owner of the parent group',
        ],
      },
    })
    const unlocked = await send('PUT', `/groups/${tree.squad.id}`, 'owner', { share_with_group_lock: false })
    expect(unlocked.body.share_with_group_lock).toBe(false)
  })
})

describe('POST /groups/:id/transfer', () => {
  test('to another group: the whole tree moves, old paths redirect; GroupDetail without projects', async () => {
    const tree = await buildTree('source')
    const target = await createTestGroup(server.database.db, { path: 'target', name: 'Target' })
    await addTestMember(server.database.db, { user: owner, group: target, accessLevel: 40 })
    const res = await send('POST', `/groups/${tree.team.id}/transfer`, 'owner', { group_id: target.id })
    expect(res.status).toBe(201)
    expect(Object.keys(res.body)).toEqual([...GROUP_KEYS, 'shared_with_groups'])
    expect(res.body).toMatchObject({ parent_id: target.id, full_path: 'target/team', full_name: 'Target / Team' })
    expect(await fullPaths(tree)).toEqual(['source', 'target/team', 'target/team/squad', 'target/team/svc', 'target/team/squad/api'])
    expect(await findRedirectPaths(server.database.db)).toEqual(
      expect.arrayContaining(['source/team', 'source/team/squad', 'source/team/svc', 'source/team/squad/api']),
    )
    const squad = await findNamespaceRow(server.database.db, tree.squad.id)
    expect(squad!.traversal_ids).toBe(`${target.id}/${tree.team.id}/${tree.squad.id}/`)
    // The inherited roles follow the new place: the developer of a project below still sees it, the old Owner above no longer owns it.
    expect((await send('GET', '/groups/target%2Fteam%2Fsquad', 'developer')).status).toBe(200)
  })

  test('to the top level: the group keeps an Owner', async () => {
    const tree = await buildTree('promote')
    const res = await send('POST', `/groups/${tree.team.id}/transfer`, 'owner')
    expect(res.status).toBe(201)
    expect(Object.keys(res.body)).toEqual([...GROUP_DETAIL_KEYS])
    expect(res.body).toMatchObject({ parent_id: null, full_path: 'team', full_name: 'Team' })
    expect(await fullPaths(tree)).toEqual(['promote', 'team', 'team/squad', 'team/svc', 'team/squad/api'])
    const owners = await server.database.db
      .selectFrom('members')
      .select(['user_id', 'access_level'])
      .where('namespace_id', '=', tree.team.id)
      .execute()
    expect(owners).toEqual([{ user_id: owner.id, access_level: 50 }])
  })

  test('to the top level by an Owner who is also a direct member below Owner: their membership becomes Owner', async () => {
    const db = server.database.db
    const top = await createTestGroup(db, { path: 'promote-member' })
    const crew = await createTestGroup(db, { path: 'crew', parent: top })
    await addTestMember(db, { user: owner, group: top, accessLevel: 50 })
    await addTestMember(db, { user: owner, group: crew, accessLevel: 30 })
    const res = await send('POST', `/groups/${crew.id}/transfer`, 'owner')
    expect(res.status).toBe(201)
    const members = await db.selectFrom('members').select(['user_id', 'access_level']).where('namespace_id', '=', crew.id).execute()
    expect(members).toEqual([{ user_id: owner.id, access_level: 50 }])
  })

  test('into a less visible group: everything below becomes as private', async () => {
    const tree = await buildTree('loud')
    const quiet = await createTestGroup(server.database.db, { path: 'quiet', visibility: 'private' })
    await addTestMember(server.database.db, { user: owner, group: quiet, accessLevel: 50 })
    const res = await send('POST', `/groups/${tree.team.id}/transfer`, 'owner', { group_id: quiet.id })
    expect(res.status).toBe(201)
    expect(res.body.visibility).toBe('private')
    const db = server.database.db
    expect((await findProjectRow(db, tree.svc.id))!.visibility_level).toBe(0)
    expect((await findNamespaceRow(db, tree.top.id))!.visibility_level).toBe(20)
  })

  test('refusals say why, as GitLab words them, and change nothing', async () => {
    const tree = await buildTree('stay')
    const db = server.database.db
    const foreign = await createTestGroup(db, { path: 'foreign', visibility: 'public' })
    await addTestMember(db, { user: owner, group: foreign, accessLevel: 30 })
    const hidden = await createTestGroup(db, { path: 'hidden-target', visibility: 'private' })
    const clash = await createTestGroup(db, { path: 'clash' })
    await createTestGroup(db, { path: 'team', parent: clash })
    await addTestMember(db, { user: owner, group: clash, accessLevel: 50 })
    const cases: [number, Record<string, unknown> | undefined, string][] = [
      [tree.team.id, { group_id: tree.team.id }, 'Transfer failed: Cannot transfer group to one of its subgroup.'],
      [tree.top.id, { group_id: tree.squad.id }, 'Transfer failed: Cannot transfer group to one of its subgroup.'],
      [tree.team.id, { group_id: tree.top.id }, 'Transfer failed: Group is already associated to the parent group.'],
      [tree.top.id, undefined, 'Transfer failed: Group is already a root group.'],
      [tree.team.id, { group_id: foreign.id }, "Transfer failed: You don't have enough permissions."],
      [tree.team.id, { group_id: clash.id }, 'Transfer failed: The parent group already has a subgroup or a project with the same path.'],
    ]
    for (const [id, body, message] of cases) {
      const res = await refused(tree, 'POST', `/groups/${id}/transfer`, 'owner', body)
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ message })
    }
    const invisible = await refused(tree, 'POST', `/groups/${tree.team.id}/transfer`, 'owner', { group_id: hidden.id })
    expect(invisible.status).toBe(404)
    expect(invisible.body).toEqual({ message: '404 Group Not Found' })
    const notAllowed = await refused(tree, 'POST', `/groups/${tree.team.id}/transfer`, 'maintainer', { group_id: foreign.id })
    expect(notAllowed.status).toBe(403)
    expect((await refused(tree, 'POST', `/groups/${tree.team.id}/transfer`, 'owner', { group_id: 'x' })).body).toEqual({
      error: 'group_id is invalid',
    })
  })

  test('a subgroup name taken under the new parent', async () => {
    const tree = await buildTree('named')
    const db = server.database.db
    const other = await createTestGroup(db, { path: 'other-parent' })
    await createTestGroup(db, { path: 'different-path', name: 'Team', parent: other })
    await addTestMember(db, { user: owner, group: other, accessLevel: 50 })
    const res = await refused(tree, 'POST', `/groups/${tree.team.id}/transfer`, 'owner', { group_id: other.id })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ message: 'Transfer failed: Validation failed: Name has already been taken' })
  })
})

describe('DELETE /groups/:id', () => {
  test('Owners remove the group with its subgroups, projects and memberships: 202', async () => {
    const tree = await buildTree('doomed')
    const db = server.database.db
    const res = await send('DELETE', `/groups/${tree.top.id}`, 'owner')
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ message: '202 Accepted' })
    // Gone at once for every reader; the deletion job then removes the rows.
    for (const group of [tree.top, tree.team, tree.squad]) expect((await send('GET', `/groups/${group.id}`, 'root')).status).toBe(404)
    for (const project of [tree.svc, tree.api]) expect((await send('GET', `/projects/${project.id}`, 'root')).status).toBe(404)
    const listed = await send('GET', '/groups?all_available=true&per_page=100', 'root')
    expect(listed.body.map((g: { id: number }) => g.id)).not.toContain(tree.team.id)
    const projects = await send('GET', '/projects?per_page=100', 'root')
    expect(projects.body.map((p: { id: number }) => p.id)).not.toContain(tree.svc.id)
    expect((await send('DELETE', `/groups/${tree.top.id}`, 'owner')).status).toBe(404)
    expect(await findNamespaceRow(db, tree.top.id)).toBeDefined()
    await server.runJobs()
    for (const group of [tree.top, tree.team, tree.squad]) expect(await findNamespaceRow(db, group.id)).toBeUndefined()
    for (const project of [tree.svc, tree.api]) expect(await findProjectRow(db, project.id)).toBeUndefined()
    const members = await db
      .selectFrom('members')
      .select('id')
      .where((eb) =>
        eb.or([eb('namespace_id', 'in', [tree.top.id, tree.team.id, tree.squad.id]), eb('project_id', 'in', [tree.svc.id, tree.api.id])]),
      )
      .execute()
    expect(members).toEqual([])
    expect((await send('GET', `/groups/${tree.top.id}`, 'root')).status).toBe(404)
  })

  test('a subgroup alone; others stay', async () => {
    const tree = await buildTree('partial')
    expect((await send('DELETE', '/groups/partial%2Fteam%2Fsquad', 'owner')).status).toBe(202)
    await server.runJobs()
    const db = server.database.db
    expect(await findNamespaceRow(db, tree.squad.id)).toBeUndefined()
    expect(await findProjectRow(db, tree.api.id)).toBeUndefined()
    expect(await findNamespaceRow(db, tree.team.id)).toBeDefined()
    expect(await findProjectRow(db, tree.svc.id)).toBeDefined()
  })

  test('Maintainers get 403, outsiders of a private group 404, anonymous callers 401', async () => {
    const tree = await buildTree('kept', 'private')
    expect((await refused(tree, 'DELETE', `/groups/${tree.top.id}`, 'maintainer')).status).toBe(403)
    expect((await refused(tree, 'DELETE', `/groups/${tree.top.id}`, 'outsider')).status).toBe(404)
    expect((await refused(tree, 'DELETE', `/groups/${tree.top.id}`, undefined)).status).toBe(401)
    expect((await refused(tree, 'DELETE', '/groups/999999', 'owner')).status).toBe(404)
  })
})
