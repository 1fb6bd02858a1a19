import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { NamespaceRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { GROUP_DETAIL_KEYS, GROUP_KEYS, countRows, findNamespaceRow, findRedirectPaths } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>
let creator: User
let creatorToken: string
let restricted: User
let restrictedToken: string
let maintainerToken: string
let developerToken: string
let outsiderToken: string
let parent: NamespaceRow
let ownerOnlyParent: NamespaceRow
let hidden: NamespaceRow

const OCI_MESSAGE =
  "can only include non-accented letters, digits, '_', '-' and '.'. It must not start with '-', '_', or '.', nor end with '-', '_', '.', '.git', or '.atom'."
const FORMAT_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  creator = await createTestUser(db, { username: 'creator' })
  creatorToken = (await createTestToken(db, creator)).value
  restricted = await createTestUser(db, { can_create_group: 0 })
  restrictedToken = (await createTestToken(db, restricted)).value
  const maintainer = await createTestUser(db)
  maintainerToken = (await createTestToken(db, maintainer)).value
  const developer = await createTestUser(db)
  developerToken = (await createTestToken(db, developer)).value
  const outsider = await createTestUser(db)
  outsiderToken = (await createTestToken(db, outsider)).value
  parent = await createTestGroup(db, { path: 'parent', name: 'Parent', visibility: 'internal' })
  ownerOnlyParent = await createTestGroup(db, { path: 'owner-only', visibility: 'public' })
  await db.updateTable('namespaces').set({ subgroup_creation_level: 0 }).where('id', '=', ownerOnlyParent.id).execute()
  hidden = await createTestGroup(db, { path: 'hidden', visibility: 'private' })
  await addTestMember(db, { user: creator, group: parent, accessLevel: 50 })
  for (const group of [parent, ownerOnlyParent]) {
    await addTestMember(db, { user: restricted, group, accessLevel: 50 })
    await addTestMember(db, { user: maintainer, group, accessLevel: 40 })
    await addTestMember(db, { user: developer, group, accessLevel: 30 })
  }
})
afterAll(() => server.close())

function post(body: Record<string, unknown>, token: string | undefined = creatorToken) {
  return request('POST', '/api/v4/groups', { token, body })
}

/** Posts a request that must be refused and checks that nothing was written. */
async function refused(body: Record<string, unknown>, token: string = creatorToken) {
  const before = await countRows(server.database.db)
  const res = await post(body, token)
  expect(await countRows(server.database.db)).toEqual(before)
  return res
}

describe('POST /groups: creating', () => {
  test('a top-level group: GroupDetail in GitLab order, the creator its Owner, visibility from the instance default', async () => {
    const res = await post({ name: 'Platform Team', path: 'platform', description: 'Builds things' })
    expect(res.status).toBe(201)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(Object.keys(res.body)).toEqual(GROUP_DETAIL_KEYS)
    const stored = await findNamespaceRow(server.database.db, res.body.id)
    expect(res.body).toEqual({
      id: res.body.id,
      web_url: `${server.url}/groups/platform`,
      name: 'Platform Team',
      path: 'platform',
      description: 'Builds things',
      visibility: 'private',
      share_with_group_lock: false,
      require_two_factor_authentication: false,
      two_factor_grace_period: 48,
      project_creation_level: 'developer',
      auto_devops_enabled: null,
      subgroup_creation_level: 'maintainer',
      emails_disabled: false,
      emails_enabled: true,
      show_diff_preview_in_email: true,
      mentions_disabled: false,
      lfs_enabled: true,
      archived: false,
      math_rendering_limits_enabled: true,
      lock_math_rendering_limits_enabled: false,
      default_branch: null,
      default_branch_protection: 2,
      default_branch_protection_defaults: {
        allowed_to_push: [{ access_level: 40 }],
        allow_force_push: false,
        allowed_to_merge: [{ access_level: 40 }],
        developer_can_initial_push: false,
      },
      avatar_url: null,
      request_access_enabled: true,
      full_name: 'Platform Team',
      full_path: 'platform',
      created_at: stored!.created_at,
      parent_id: null,
      organization_id: 1,
      shared_runners_setting: 'enabled',
      max_artifacts_size: null,
      marked_for_deletion_on: null,
      shared_with_groups: [],
      prevent_sharing_groups_outside_hierarchy: false,
    })
    const members = await server.database.db.selectFrom('members').selectAll().where('namespace_id', '=', res.body.id).execute()
    expect(members.map((m) => [m.user_id, m.access_level, m.project_id])).toEqual([[creator.id, 50, null]])
    expect(stored!.traversal_ids).toBe(`${res.body.id}/`)
  })

  test('the instance default visibility applies when none is given', async () => {
    const setting = await request('PUT', '/api/v4/application/settings', {
      token: server.rootToken,
      body: { default_group_visibility: 'internal' },
    })
    expect(setting.status).toBe(200)
    try {
      const res = await post({ name: 'defaults', path: 'defaults' })
      expect(res.status).toBe(201)
      expect(res.body.visibility).toBe('internal')
    } finally {
      await request('PUT', '/api/v4/application/settings', { token: server.rootToken, body: { default_group_visibility: 'private' } })
    }
  })

  test('every setting the table keeps, as form fields', async () => {
    const res = await request('POST', '/api/v4/groups', {
      token: creatorToken,
      form: true,
      body: {
        name: 'Settings',
        path: 'settings-group',
        visibility: 'public',
        request_access_enabled: 'false',
        share_with_group_lock: 'true',
        require_two_factor_authentication: 'true',
        two_factor_grace_period: '12',
        project_creation_level: 'noone',
        subgroup_creation_level: 'owner',
        emails_disabled: 'true',
        mentions_disabled: 'true',
        lfs_enabled: 'false',
        default_branch: 'trunk',
      },
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      visibility: 'public',
      request_access_enabled: false,
      share_with_group_lock: true,
      require_two_factor_authentication: true,
      two_factor_grace_period: 12,
      project_creation_level: 'noone',
      subgroup_creation_level: 'owner',
      emails_disabled: true,
      emails_enabled: false,
      mentions_disabled: true,
      lfs_enabled: false,
      default_branch: 'trunk',
    })
    for (const [name, level] of [
      ['maintainer', 'maintainer'],
      ['administrator', 'administrator'],
      ['owner', 'owner'],
      ['developer', 'developer'],
    ]) {
      const each = await post({ name: `pcl ${name}`, path: `pcl-${name}`, project_creation_level: level })
      expect(each.body.project_creation_level).toBe(level)
    }
    const stored = await server.database.db
      .selectFrom('namespaces')
      .select(['path', 'project_creation_level'])
      .where('path', 'like', 'pcl-%')
      .orderBy('path')
      .execute()
    expect(stored).toEqual([
      { path: 'pcl-administrator', project_creation_level: 3 },
      { path: 'pcl-developer', project_creation_level: 2 },
      { path: 'pcl-maintainer', project_creation_level: 1 },
      { path: 'pcl-owner', project_creation_level: 4 },
    ])
  })

  test('nested groups four levels deep: full paths and names build on the parents', async () => {
    let above: { id: number; full_path: string; full_name: string; web_url: string } | null = null
    const ids: number[] = []
    for (const path of ['deep', 'er', 'est', 'bottom']) {
      const res = await post({ name: path.toUpperCase(), path, ...(above ? { parent_id: above.id } : {}) })
      expect(res.status).toBe(201)
      ids.push(res.body.id)
      expect(res.body.parent_id).toBe(above ? above.id : null)
      expect(res.body.full_path).toBe(above ? `${above.full_path}/${path}` : path)
      expect(res.body.full_name).toBe(above ? `${above.full_name} / ${path.toUpperCase()}` : path.toUpperCase())
      expect(Object.keys(res.body)).toEqual(above ? GROUP_KEYS.concat('shared_with_groups') : GROUP_DETAIL_KEYS)
      above = res.body
    }
    expect(above!.full_path).toBe('deep/er/est/bottom')
    expect(above!.web_url).toBe(`${server.url}/groups/deep/er/est/bottom`)
    expect((await findNamespaceRow(server.database.db, ids[3]))!.traversal_ids).toBe(`${ids.join('/')}/`)
  })

  test('a locked parent locks its new subgroups', async () => {
    const locked = await post({ name: 'locked', path: 'locked', share_with_group_lock: true })
    const child = await post({ name: 'child', path: 'child', parent_id: locked.body.id, share_with_group_lock: false })
    expect(child.status).toBe(201)
    expect(child.body.share_with_group_lock).toBe(true)
  })

  test('a path an old name redirects from can be taken; its redirects go', async () => {
    const db = server.database.db
    const moving = await createTestGroup(db, { path: 'moving' })
    await addTestMember(db, { user: creator, group: moving, accessLevel: 50 })
    await createTestProject(db, { namespace: moving, path: 'app' })
    const renamed = await request('PUT', `/api/v4/groups/${moving.id}`, { token: creatorToken, body: { path: 'moved' } })
    expect(renamed.status).toBe(200)
    expect(await findRedirectPaths(db)).toEqual(expect.arrayContaining(['moving', 'moving/app']))
    const res = await post({ name: 'moving again', path: 'moving' })
    expect(res.status).toBe(201)
    expect((await findRedirectPaths(db)).filter((p) => p.startsWith('moving'))).toEqual([])
  })
})

describe('POST /groups: who may create', () => {
  test('anonymous callers get 401', async () => {
    const res = await request('POST', '/api/v4/groups', { body: { name: 'anon', path: 'anon' } })
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ message: '401 Unauthorized' })
  })

  test('a user who may not create groups gets 403 at the top level, yet may create subgroups where Owner', async () => {
    const top = await refused({ name: 'nope', path: 'nope' }, restrictedToken)
    expect(top.status).toBe(403)
    expect(top.body).toEqual({ message: '403 Forbidden' })
    const sub = await post({ name: 'allowed', path: 'allowed', parent_id: parent.id }, restrictedToken)
    expect(sub.status).toBe(201)
    expect(sub.body.full_path).toBe('parent/allowed')
  })

  test('Maintainers create subgroups when the parent allows Maintainers; Developers never', async () => {
    const ok = await post({ name: 'by maintainer', path: 'by-maintainer', parent_id: parent.id }, maintainerToken)
    expect(ok.status).toBe(201)
    const ownerOnly = await refused({ name: 'x', path: 'x-sub', parent_id: ownerOnlyParent.id }, maintainerToken)
    expect(ownerOnly.status).toBe(403)
    expect(ownerOnly.body).toEqual({ message: '403 Forbidden' })
    const developer = await refused({ name: 'x', path: 'x-sub', parent_id: parent.id }, developerToken)
    expect(developer.status).toBe(403)
    const outsider = await refused({ name: 'x', path: 'x-sub', parent_id: ownerOnlyParent.id }, outsiderToken)
    expect(outsider.status).toBe(403)
  })

  test('a parent the caller cannot see, or that does not exist, is 404 Group Not Found', async () => {
    for (const parentId of [hidden.id, 999999]) {
      const res = await refused({ name: 'x', path: 'x-hidden', parent_id: parentId }, outsiderToken)
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ message: '404 Group Not Found' })
    }
  })

  test('administrators create subgroups anywhere', async () => {
    const res = await post({ name: 'by admin', path: 'by-admin', parent_id: hidden.id }, server.rootToken)
    expect(res.status).toBe(201)
    expect(res.body.full_path).toBe('hidden/by-admin')
  })
})

describe('POST /groups: refused input writes nothing', () => {
  test('missing name or path: the contract body', async () => {
    expect((await refused({ path: 'no-name' })).body).toEqual({ message: '400 (Bad request) "name" not given' })
    const noPath = await refused({ name: 'no path' })
    expect(noPath.status).toBe(400)
    expect(noPath.body).toEqual({ message: '400 (Bad request) "path" not given' })
  })

  test('reserved names, at the top level and below', async () => {
    const top = await refused({ name: 'admin', path: 'admin' })
    expect(top.status).toBe(400)
    expect(top.body).toEqual({ message: { path: ['admin is a reserved name'] } })
    expect((await refused({ name: 'tree', path: 'tree', parent_id: parent.id })).body).toEqual({
      message: { path: ['tree is a reserved name'] },
    })
    // Instance routes only shadow top-level paths.
    expect((await post({ name: 'api', path: 'api', parent_id: parent.id })).status).toBe(201)
  })

  test("malformed paths: '..', leading dash, trailing dot, one character, too long", async () => {
    expect((await refused({ name: 'dots', path: '..' })).body).toEqual({ message: { path: [OCI_MESSAGE, FORMAT_MESSAGE] } })
    expect((await refused({ name: 'dash', path: '-dash' })).body).toEqual({ message: { path: [OCI_MESSAGE, FORMAT_MESSAGE] } })
    expect((await refused({ name: 'dot', path: 'dot.' })).body).toEqual({ message: { path: [OCI_MESSAGE, FORMAT_MESSAGE] } })
    expect((await refused({ name: 'dir', path: '../etc' })).body).toEqual({ message: { path: [OCI_MESSAGE, FORMAT_MESSAGE] } })
    expect((await refused({ name: 'under', path: '_under' })).body).toEqual({ message: { path: [OCI_MESSAGE] } })
    expect((await refused({ name: 'one', path: 'a' })).body).toEqual({ message: { path: ['is too short (minimum is 2 characters)'] } })
    const long = await refused({ name: 'long', path: 'a'.repeat(256) })
    expect(long.status).toBe(400)
    expect(long.body).toEqual({ message: { path: ['is too long (maximum is 255 characters)'] } })
  })

  test('a path taken by a group, a user namespace or a project, in any letter case', async () => {
    const taken = { message: { path: ['has already been taken'] } }
    expect((await refused({ name: 'Dup', path: 'PARENT' })).body).toEqual(taken)
    expect((await refused({ name: 'Dup', path: 'creator' })).body).toEqual(taken)
    await createTestProject(server.database.db, { namespace: parent, path: 'shared-path' })
    const res = await refused({ name: 'Dup', path: 'shared-path', parent_id: parent.id })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(taken)
  })

  test('names: blank, malformed, too long, taken under the same parent', async () => {
    expect((await refused({ name: '', path: 'blank-name' })).body).toEqual({ message: { name: ["can't be blank"] } })
    const script = await refused({ name: "<SCRIPT>alert('ATTACKED!')</SCRIPT>", path: 'unique-url' })
    expect(script.status).toBe(400)
    expect(Object.keys(script.body.message)).toEqual(['name'])
    expect((await refused({ name: 'n'.repeat(256), path: 'long-name' })).body).toEqual({
      message: { name: ['is too long (maximum is 255 characters)'] },
    })
    await post({ name: 'Twin', path: 'twin-one', parent_id: parent.id })
    expect((await refused({ name: 'Twin', path: 'twin-two', parent_id: parent.id })).body).toEqual({
      message: { name: ['has already been taken'] },
    })
    // Top-level groups may share names.
    expect((await post({ name: 'Parent', path: 'another-parent' })).status).toBe(201)
  })

  test('unknown enum values are Grape errors', async () => {
    expect((await refused({ name: 'v', path: 'vis', visibility: 'secret' })).body).toEqual({
      error: 'visibility does not have a valid value',
    })
    expect((await refused({ name: 'v', path: 'vis', project_creation_level: 'everyone' })).body).toEqual({
      error: 'project_creation_level does not have a valid value',
    })
    expect((await refused({ name: 'v', path: 'vis', subgroup_creation_level: 'developer' })).body).toEqual({
      error: 'subgroup_creation_level does not have a valid value',
    })
    expect((await refused({ name: 'v', path: 'vis', parent_id: 'abc' })).body).toEqual({ error: 'parent_id is invalid' })
  })

  test('a subgroup more visible than its parent', async () => {
    const res = await refused({ name: 'loud', path: 'loud', parent_id: parent.id, visibility: 'public' })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ message: { visibility_level: ['public is not allowed since the parent group has a internal visibility.'] } })
  })

  test('a negative two-factor grace period', async () => {
    expect((await refused({ name: 'g', path: 'grace', two_factor_grace_period: -1 })).body).toEqual({
      message: { two_factor_grace_period: ['must be greater than or equal to 0'] },
    })
  })

  test('several errors at once, by attribute in GitLab order', async () => {
    const res = await refused({ name: '', path: 'admin', two_factor_grace_period: -5 })
    expect(res.body).toEqual({
      message: {
        name: ["can't be blank"],
        path: ['admin is a reserved name'],
        two_factor_grace_period: ['must be greater than or equal to 0'],
      },
    })
  })

  test('nesting stops at 20 groups above', async () => {
    const db = server.database.db
    let above = await createTestGroup(db, { path: 'level0' })
    for (let level = 1; level <= 20; level++) above = await createTestGroup(db, { path: `level${level}`, parent: above })
    // The deepest allowed group has 20 groups above it.
    const below = await request('POST', '/api/v4/groups', {
      token: server.rootToken,
      body: { name: 'too deep', path: 'too-deep', parent_id: above.id },
    })
    expect(below.status).toBe(400)
    expect(below.body).toEqual({ message: { parent_id: ['has too deep level of nesting'] } })
    const parentOfDeepest = (await findNamespaceRow(db, above.parent_id!))!
    const allowed = await request('POST', '/api/v4/groups', {
      token: server.rootToken,
      body: { name: 'deepest', path: 'deepest', parent_id: parentOfDeepest.id },
    })
    expect(allowed.status).toBe(201)
  })
})
