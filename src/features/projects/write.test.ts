import fs from 'node:fs/promises'
import path from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { NamespaceRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { projectRepositoryDirectory } from '../repositories/index.js'
import { projectKeys } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>
let anna: User
let annaToken: string
const tokens: Record<string, string> = {}
const users: Record<string, User> = {}
let acme: NamespaceRow

async function counts() {
  const db = server.database.db
  const one = async (table: 'projects' | 'members' | 'redirect_routes' | 'project_stars') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select(sql<number>`count(*)`.as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )
  return { projects: await one('projects'), members: await one('members'), redirects: await one('redirect_routes') }
}

/** Runs a refused request and checks that it wrote nothing. */
async function refused(method: string, path: string, token: string | undefined, body: unknown, status: number, expected: unknown) {
  const before = await counts()
  const res = await request(method, path, { token, body })
  expect(res.status, res.text).toBe(status)
  expect(res.body).toEqual(expected)
  expect(await counts()).toEqual(before)
}

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  anna = await createTestUser(db, { username: 'anna', name: 'Anna' })
  annaToken = (await createTestToken(db, anna)).value
  acme = await createTestGroup(db, { path: 'acme', name: 'Acme', visibility: 'internal' })
  for (const [role, level] of [
    ['guest', 10],
    ['developer', 30],
    ['maintainer', 40],
    ['owner', 50],
  ] as const) {
    users[role] = await createTestUser(db, { username: role })
    tokens[role] = (await createTestToken(db, users[role])).value
    await addTestMember(db, { user: users[role], group: acme, accessLevel: level })
  }
  users.outsider = await createTestUser(db, { username: 'outsider' })
  tokens.outsider = (await createTestToken(db, users.outsider)).value
})
afterAll(() => server.close())

describe('POST /projects', () => {
  test('a default branch git refuses is 400 before anything is written; PUT says the branch does not exist', async () => {
    for (const name of ['x 1 2', 'a..b', '-x', 'x.lock', '/x', 'x/', 'a/.b', 'a@{1}', 'a~1', 'a:b', 'a\tb', '@']) {
      await refused('POST', '/api/v4/projects', annaToken, { name: 'Odd Branch', default_branch: name }, 400, {
        message: { base: ['Failed to create repository'] },
      })
    }
    await refused('POST', '/api/v4/projects', annaToken, { name: 'Odd Branch', default_branch: 'a\u0000b' }, 400, 'Bad Request')
    const created = await request('POST', '/api/v4/projects', {
      token: annaToken,
      body: { name: 'Release Branch', default_branch: 'release/1.0' },
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body.default_branch).toBe('release/1.0')
    for (const name of ['x 1 2', 'a..b', '-x']) {
      const res = await request('PUT', `/api/v4/projects/${created.body.id}`, { token: annaToken, body: { default_branch: name } })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ message: { base: [`Could not change HEAD: branch '${name}' does not exist`] } })
    }
  })

  test('a name alone makes the path; the creator owns a personal project', async () => {
    const res = await request('POST', '/api/v4/projects', { token: annaToken, body: { name: 'My Project' } })
    expect(res.status).toBe(201)
    expect(Object.keys(res.body)).toEqual(projectKeys({ personal: true, maintainer: true }))
    expect(res.body).toMatchObject({
      name: 'My Project',
      path: 'my-project',
      path_with_namespace: 'anna/my-project',
      name_with_namespace: 'Anna / My Project',
      visibility: 'private',
      creator_id: anna.id,
      empty_repo: true,
      default_branch: 'main',
      readme_url: null,
      description: null,
      description_html: '',
      owner: { id: anna.id, username: 'anna' },
    })
    const member = await server.database.db.selectFrom('members').selectAll().where('project_id', '=', res.body.id).execute()
    expect(member).toMatchObject([{ user_id: anna.id, access_level: 50, created_by_id: anna.id, namespace_id: null }])
    const shown = await request('GET', `/api/v4/projects/${res.body.id}`, { token: annaToken })
    expect(shown.body.permissions.project_access).toEqual({ access_level: 50, notification_level: 3 })
  })

  test('a path alone names the project; names that are not paths are made into one', async () => {
    const byPath = await request('POST', '/api/v4/projects', { token: annaToken, body: { path: 'only-path' } })
    expect(byPath.body).toMatchObject({ name: 'only-path', path: 'only-path' })
    await refused('POST', '/api/v4/projects', annaToken, { name: 'Café (beta)' }, 400, {
      message: {
        name: [
          "can contain only letters, digits, emojis, '_', '.', '+', dashes, or spaces. It must start with a letter, digit, emoji, or '_'.",
        ],
      },
    })
    const spaced = await request('POST', '/api/v4/projects', { token: annaToken, body: { name: 'Café  Über beta' } })
    expect(spaced.body).toMatchObject({ name: 'Café  Über beta', path: 'cafe-uber-beta' })
  })

  test('neither name nor path: Grape’s at-least-one refusal', async () => {
    await refused('POST', '/api/v4/projects', annaToken, { description: 'x' }, 400, {
      error: 'name, path are missing, at least one parameter must be provided',
    })
  })

  test('attributes: README, topics, feature levels and their deprecated booleans, settings', async () => {
    const res = await request('POST', '/api/v4/projects', {
      token: annaToken,
      body: {
        name: 'Settings',
        description: 'About',
        initialize_with_readme: true,
        default_branch: 'develop',
        topics: 'go, web,GO',
        issues_enabled: false,
        merge_requests_enabled: false,
        merge_requests_access_level: 'private',
        jobs_enabled: false,
        container_registry_enabled: false,
        wiki_access_level: 'disabled',
        pages_access_level: 'public',
        visibility: 'public',
        merge_method: 'ff',
        squash_option: 'always',
        build_timeout: 7200,
        emails_disabled: true,
        public_jobs: false,
        lfs_enabled: false,
        suggestion_commit_message: 'Apply',
        auto_devops_enabled: false,
        build_git_strategy: 'clone',
        repository_object_format: 'sha256',
      },
    })
    expect(res.status, res.text).toBe(201)
    expect(res.body).toMatchObject({
      empty_repo: false,
      default_branch: 'develop',
      readme_url: `${server.url}/anna/Settings/-/blob/develop/README.md`,
      topics: ['go', 'web'],
      tag_list: ['go', 'web'],
      issues_enabled: false,
      issues_access_level: 'disabled',
      merge_requests_access_level: 'private',
      merge_requests_enabled: true,
      jobs_enabled: false,
      builds_access_level: 'disabled',
      container_registry_access_level: 'disabled',
      wiki_access_level: 'disabled',
      pages_access_level: 'public',
      visibility: 'public',
      merge_method: 'ff',
      squash_option: 'always',
      build_timeout: 7200,
      emails_disabled: true,
      emails_enabled: false,
      public_jobs: false,
      lfs_enabled: false,
      suggestion_commit_message: 'Apply',
      auto_devops_enabled: false,
      build_git_strategy: 'clone',
      repository_object_format: 'sha256',
      description_html: '<p data-sourcepos="1:1-1:5" dir="auto">About</p>',
    })
    expect(res.body._links.issues).toBeUndefined()
  })

  test('in a group: who may create follows the group’s project creation level; no membership is added', async () => {
    const created = await request('POST', '/api/v4/projects', { token: tokens.developer, body: { name: 'Tool', namespace_id: acme.id } })
    expect(created.status).toBe(201)
    expect(created.body.path_with_namespace).toBe('acme/Tool')
    expect(created.body.owner).toBeUndefined()
    expect(await server.database.db.selectFrom('members').select('id').where('project_id', '=', created.body.id).execute()).toEqual([])
    expect(created.body.permissions).toBeUndefined()
    const notValid = { message: { namespace: ['is not valid'] } }
    await refused('POST', '/api/v4/projects', tokens.guest, { name: 'Nope', namespace_id: acme.id }, 400, notValid)
    await refused('POST', '/api/v4/projects', tokens.outsider, { name: 'Nope', namespace_id: acme.id }, 400, notValid)
    await refused('POST', '/api/v4/projects', tokens.outsider, { name: 'Nope', namespace_id: anna.id + 1000 }, 400, {
      message: { namespace: ["can't be blank"] },
    })
    const db = server.database.db
    const strict = await createTestGroup(db, { path: 'strict' })
    await addTestMember(db, { user: users.developer, group: strict, accessLevel: 30 })
    await addTestMember(db, { user: users.maintainer, group: strict, accessLevel: 40 })
    await db.updateTable('namespaces').set({ project_creation_level: 1 }).where('id', '=', strict.id).execute()
    await refused('POST', '/api/v4/projects', tokens.developer, { name: 'Nope', namespace_id: strict.id }, 400, notValid)
    expect(
      (await request('POST', '/api/v4/projects', { token: tokens.maintainer, body: { name: 'Yes', namespace_id: strict.id } })).status,
    ).toBe(201)
    await db.updateTable('namespaces').set({ project_creation_level: 3 }).where('id', '=', strict.id).execute()
    await refused('POST', '/api/v4/projects', tokens.maintainer, { name: 'Admins', namespace_id: strict.id }, 400, notValid)
    expect(
      (await request('POST', '/api/v4/projects', { token: server.rootToken, body: { name: 'Admins', namespace_id: strict.id } })).status,
    ).toBe(201)
    await db.updateTable('namespaces').set({ project_creation_level: 0 }).where('id', '=', strict.id).execute()
    await refused('POST', '/api/v4/projects', server.rootToken, { name: 'Nobody', namespace_id: strict.id }, 400, notValid)
    // Nobody creates in another user's personal namespace but its owner and administrators.
    const bertsSpace = (await db.selectFrom('namespaces').select('id').where('path', '=', 'outsider').executeTakeFirstOrThrow()).id
    await refused('POST', '/api/v4/projects', annaToken, { name: 'Theirs', namespace_id: bertsSpace }, 400, notValid)
  })

  test('a project is never more visible than its group: GitLab lowers it on create', async () => {
    const res = await request('POST', '/api/v4/projects', {
      token: tokens.owner,
      body: { name: 'Loud', namespace_id: acme.id, visibility: 'public' },
    })
    expect(res.status).toBe(201)
    expect(res.body.visibility).toBe('internal')
  })

  test('the default visibility comes from the instance settings', async () => {
    await request('PUT', '/api/v4/application/settings', { token: server.rootToken, body: { default_project_visibility: 'internal' } })
    const res = await request('POST', '/api/v4/projects', { token: annaToken, body: { name: 'Defaulted' } })
    expect(res.body.visibility).toBe('internal')
    await request('PUT', '/api/v4/application/settings', { token: server.rootToken, body: { default_project_visibility: 'private' } })
  })

  test('the personal project limit: 403 with GitLab’s messages; groups are not limited', async () => {
    const db = server.database.db
    const none = await createTestUser(db, { username: 'nolimit', projects_limit: 0 })
    const noneToken = (await createTestToken(db, none)).value
    await refused('POST', '/api/v4/projects', noneToken, { name: 'Mine' }, 403, {
      error: ['Personal project creation is not allowed. Please contact your administrator with questions'],
    })
    const one = await createTestUser(db, { username: 'onelimit', projects_limit: 1 })
    const oneToken = (await createTestToken(db, one)).value
    expect((await request('POST', '/api/v4/projects', { token: oneToken, body: { name: 'First' } })).status).toBe(201)
    await refused('POST', '/api/v4/projects', oneToken, { name: 'Second' }, 403, {
      error: ['Your project limit is 1 projects! Please contact your administrator to increase it'],
    })
    await addTestMember(db, { user: one, group: acme, accessLevel: 30 })
    expect((await request('POST', '/api/v4/projects', { token: oneToken, body: { name: 'Grouped', namespace_id: acme.id } })).status).toBe(
      201,
    )
  })

  test('taken names and paths, also by a subgroup of the same path', async () => {
    await request('POST', '/api/v4/projects', { token: annaToken, body: { name: 'Taken' } })
    await refused('POST', '/api/v4/projects', annaToken, { name: 'Taken' }, 400, {
      message: { name: ['has already been taken'], path: ['has already been taken'] },
    })
    await refused('POST', '/api/v4/projects', annaToken, { name: 'Other', path: 'TAKEN' }, 400, {
      message: { path: ['has already been taken'] },
    })
    await refused('POST', '/api/v4/projects', annaToken, { name: 'Taken', path: 'free' }, 400, {
      message: { name: ['has already been taken'] },
    })
    await createTestGroup(server.database.db, { path: 'sub', parent: acme })
    await refused('POST', '/api/v4/projects', tokens.owner, { name: 'Sub', namespace_id: acme.id }, 400, {
      message: { path: ['has already been taken'] },
    })
  })

  test('bad paths, names and values: GitLab’s messages, nothing written', async () => {
    await refused('POST', '/api/v4/projects', annaToken, { name: 'Edit', path: 'edit' }, 400, {
      message: { path: ['edit is a reserved name'] },
    })
    const format = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"
    await refused('POST', '/api/v4/projects', annaToken, { name: 'Dots', path: '..' }, 400, { message: { path: [format] } })
    await refused('POST', '/api/v4/projects', annaToken, { name: 'Git', path: 'x.git' }, 400, { message: { path: [format] } })
    await refused('POST', '/api/v4/projects', annaToken, { path: 'p'.repeat(256) }, 400, {
      message: { name: ['is too long (maximum is 255 characters)'], path: ['is too long (maximum is 255 characters)'] },
    })
    await refused('POST', '/api/v4/projects', annaToken, { name: '-bad name!', path: 'fine' }, 400, {
      message: {
        name: [
          "can contain only letters, digits, emojis, '_', '.', '+', dashes, or spaces. It must start with a letter, digit, emoji, or '_'.",
        ],
      },
    })
    await refused('POST', '/api/v4/projects', annaToken, { name: '', path: '' }, 400, {
      message: { name: ["can't be blank"], path: ["can't be blank"] },
    })
    await refused('POST', '/api/v4/projects', annaToken, { name: 'Long', description: 'd'.repeat(2001) }, 400, {
      message: { description: ['is too long (maximum is 2000 characters)'] },
    })
    await refused('POST', '/api/v4/projects', annaToken, { name: 'Timeout', build_timeout: 10 }, 400, {
      message: { build_timeout: ['needs to be between 10 minutes and 1 month'] },
    })
    await refused('POST', '/api/v4/projects', annaToken, { name: 'V', visibility: 'secret' }, 400, {
      error: 'visibility does not have a valid value',
    })
    await refused('POST', '/api/v4/projects', annaToken, { name: 'V', issues_access_level: 'public' }, 400, {
      error: 'issues_access_level does not have a valid value',
    })
    await refused('POST', '/api/v4/projects', annaToken, { name: 'V', issues_enabled: 'maybe' }, 400, {
      error: 'issues_enabled is invalid',
    })
    await refused('POST', '/api/v4/projects', annaToken, { name: 'V', namespace_id: 'acme' }, 400, { error: 'namespace_id is invalid' })
    await refused('POST', '/api/v4/projects', annaToken, { name: 'V', import_url: 'https://example.com/x.git' }, 403, {
      message: '403 Forbidden',
    })
    await refused('POST', '/api/v4/projects', annaToken, { name: 'V', template_name: 'rails' }, 400, {
      message: { template_name: ["'rails' is unknown or invalid"] },
    })
    await refused('POST', '/api/v4/projects', annaToken, { name: 'V', import_url: 'x', template_name: 'rails' }, 400, {
      error: 'import_url, template_name are mutually exclusive',
    })
    await refused('POST', '/api/v4/projects', undefined, { name: 'V' }, 401, { message: '401 Unauthorized' })
  })

  test('repository_storage is for administrators, and must name a storage', async () => {
    await refused('POST', '/api/v4/projects', server.rootToken, { name: 'Stored', repository_storage: 'fast' }, 400, {
      message: { repository_storage: ['is not included in the list'] },
    })
    const ignored = await request('POST', '/api/v4/projects', { token: annaToken, body: { name: 'Stored', repository_storage: 'fast' } })
    expect(ignored.status).toBe(201)
  })
})

describe('POST /projects/user/:user_id', () => {
  test('administrators create in the user’s namespace, for the user', async () => {
    const res = await request('POST', `/api/v4/projects/user/${users.outsider.id}`, { token: server.rootToken, body: { name: 'Given' } })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      path_with_namespace: 'outsider/Given',
      creator_id: users.outsider.id,
      owner: { id: users.outsider.id },
    })
    expect(res.body.repository_storage).toBe('default')
    const member = await server.database.db
      .selectFrom('members')
      .selectAll()
      .where('project_id', '=', res.body.id)
      .executeTakeFirstOrThrow()
    expect(member).toMatchObject({ user_id: users.outsider.id, access_level: 50 })
  })

  test('others are refused; the name is required; unknown users are 404', async () => {
    await refused('POST', `/api/v4/projects/user/${users.outsider.id}`, annaToken, { name: 'Nope' }, 403, { message: '403 Forbidden' })
    await refused('POST', `/api/v4/projects/user/${users.outsider.id}`, server.rootToken, {}, 400, {
      message: '400 (Bad request) "name" not given',
    })
    await refused('POST', '/api/v4/projects/user/999999', server.rootToken, { name: 'Nope' }, 404, { message: '404 User Not Found' })
    await refused('POST', '/api/v4/projects/user/abc', server.rootToken, { name: 'Nope' }, 400, { error: 'user_id is invalid' })
  })

  test('the user’s own limit applies, as a validation error', async () => {
    const db = server.database.db
    const limited = await createTestUser(db, { username: 'limited', projects_limit: 0 })
    await refused('POST', `/api/v4/projects/user/${limited.id}`, server.rootToken, { name: 'Nope' }, 400, {
      message: { limit_reached: ['Personal project creation is not allowed. Please contact your administrator with questions'] },
    })
  })
})

describe('PUT /projects/:id', () => {
  async function fresh(name: string, visibility: 'private' | 'internal' = 'private') {
    return createTestProject(server.database.db, { namespace: acme, path: name, name, visibility })
  }

  test('a maintainer changes attributes; the answer is the Project entity', async () => {
    const project = await fresh('editable')
    const res = await request('PUT', `/api/v4/projects/${project.id}`, {
      token: tokens.maintainer,
      body: { description: 'New', topics: ['b', 'a'], wiki_enabled: false, ci_default_git_depth: 50, keep_latest_artifact: false },
    })
    expect(res.status, res.text).toBe(200)
    expect(Object.keys(res.body)).toEqual(projectKeys({ maintainer: true }))
    expect(res.body).toMatchObject({
      description: 'New',
      topics: ['a', 'b'],
      wiki_enabled: false,
      wiki_access_level: 'disabled',
      ci_default_git_depth: 50,
      keep_latest_artifact: false,
    })
    expect(res.body.updated_at > project.updated_at).toBe(true)
    const again = await request('PUT', `/api/v4/projects/${project.id}`, { token: tokens.maintainer, body: { description: 'New' } })
    expect(again.body.updated_at).toBe(res.body.updated_at)
  })

  test('renaming moves the full path and name', async () => {
    const project = await fresh('before')
    const res = await request('PUT', `/api/v4/projects/${project.id}`, { token: tokens.maintainer, body: { name: 'After', path: 'after' } })
    expect(res.body).toMatchObject({ name: 'After', path: 'after', path_with_namespace: 'acme/after', name_with_namespace: 'Acme / After' })
    const redirect = await server.database.db.selectFrom('redirect_routes').selectAll().where('project_id', '=', project.id).execute()
    expect(redirect).toMatchObject([{ path: 'acme/before' }])
  })

  test('an existing branch becomes the default: the repository HEAD names it', async () => {
    const created = await request('POST', '/api/v4/projects', {
      token: tokens.maintainer,
      body: { name: 'Heads', namespace_id: acme.id, initialize_with_readme: true },
    })
    expect(created.status, created.text).toBe(201)
    const at = `/api/v4/projects/${created.body.id}`
    const branch = await request('POST', `${at}/repository/branches`, {
      token: tokens.maintainer,
      body: { branch: 'develop', ref: 'main' },
    })
    expect(branch.status).toBe(201)
    const res = await request('PUT', at, { token: tokens.maintainer, body: { default_branch: 'develop' } })
    expect(res.status, res.text).toBe(200)
    expect(res.body.default_branch).toBe('develop')
    const project = await server.database.db.selectFrom('projects').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow()
    const head = await fs.readFile(path.join(projectRepositoryDirectory(server.config, project), 'HEAD'), 'utf8')
    expect(head).toBe('ref: refs/heads/develop\n')
    expect((await request('GET', `${at}/repository/branches/develop`, { token: tokens.maintainer })).body.default).toBe(true)
  })

  test('roles: developers are refused, strangers to a private project get 404, visibility needs the Owner', async () => {
    const project = await fresh('guarded')
    await refused('PUT', `/api/v4/projects/${project.id}`, tokens.developer, { description: 'x' }, 403, { message: '403 Forbidden' })
    const db = server.database.db
    const priv = await createTestProject(db, { owner: anna, path: 'hidden', visibility: 'private' })
    await refused('PUT', `/api/v4/projects/${priv.id}`, tokens.maintainer, { description: 'x' }, 404, { message: '404 Project Not Found' })
    await refused('PUT', `/api/v4/projects/${project.id}`, tokens.maintainer, { visibility: 'private' }, 403, { message: '403 Forbidden' })
    const res = await request('PUT', `/api/v4/projects/${project.id}`, { token: tokens.owner, body: { visibility: 'internal' } })
    expect(res.body.visibility).toBe('internal')
    await refused('PUT', `/api/v4/projects/${project.id}`, tokens.owner, { visibility: 'public' }, 400, {
      message: { visibility_level: ['public is not allowed in a internal group.'] },
    })
    await refused('PUT', `/api/v4/projects/${project.id}`, tokens.maintainer, { ci_delete_pipelines_in_seconds: 86400 }, 403, {
      message: '403 Forbidden',
    })
  })

  test('settings some roles may not change are dropped or refused as GitLab does', async () => {
    const project = await fresh('settings')
    const dropped = await request('PUT', `/api/v4/projects/${project.id}`, {
      token: tokens.maintainer,
      body: { emails_disabled: true, max_artifacts_size: 5 },
    })
    expect(dropped.status).toBe(200)
    expect(dropped.body.emails_enabled).toBe(true)
    expect(dropped.body.max_artifacts_size).toBeNull()
    const applied = await request('PUT', `/api/v4/projects/${project.id}`, { token: tokens.owner, body: { emails_disabled: true } })
    expect(applied.body.emails_enabled).toBe(false)
    const admin = await request('PUT', `/api/v4/projects/${project.id}`, { token: server.rootToken, body: { max_artifacts_size: 5 } })
    expect(admin.body.max_artifacts_size).toBe(5)
    await refused(
      'PUT',
      `/api/v4/projects/${project.id}`,
      tokens.maintainer,
      { ci_pipeline_variables_minimum_override_role: 'owner' },
      400,
      {
        message: 'Changing the ci_pipeline_variables_minimum_override_role to the owner role is not allowed',
      },
    )
  })

  test('bad input writes nothing', async () => {
    const project = await fresh('strict-edit')
    await fresh('occupied')
    const at = `/api/v4/projects/${project.id}`
    const t = tokens.maintainer
    await refused('PUT', at, t, { path: 'occupied' }, 400, { message: { path: ['has already been taken'] } })
    await refused('PUT', at, t, { name: 'occupied' }, 400, { message: { name: ['has already been taken'] } })
    await refused('PUT', at, t, { path: 'new' }, 400, { message: { path: ['new is a reserved name'] } })
    await refused('PUT', at, t, { path: '-x', name: '' }, 400, {
      message: {
        name: ["can't be blank"],
        path: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"],
      },
    })
    await refused('PUT', at, t, { default_branch: 'develop' }, 400, {
      message: { base: ["Could not change HEAD: branch 'develop' does not exist"] },
    })
    await refused('PUT', at, t, { merge_method: 'squash' }, 400, { error: 'merge_method does not have a valid value' })
    await refused('PUT', at, t, { ci_default_git_depth: 5000 }, 400, {
      message: { ci_default_git_depth: ['must be less than or equal to 1000'] },
    })
    const none = await request('PUT', at, { token: t, body: { unknown: 1 } })
    expect(none.status).toBe(400)
    expect(none.body.error).toMatch(
      /^allow_merge_on_skipped_pipeline, analytics_access_level, .*, container_registry_enabled are missing, at least one parameter must be provided$/,
    )
    const shown = await request('GET', at, { token: t })
    expect(shown.body).toMatchObject({ path: 'strict-edit', name: 'strict-edit', merge_method: 'merge', ci_default_git_depth: 20 })
    expect(shown.body.updated_at).toBe(project.updated_at)
  })
})

describe('PUT /projects/:id/transfer', () => {
  test('the Owner moves a project to a namespace where they may create projects as Maintainer', async () => {
    const db = server.database.db
    const project = await createTestProject(db, { owner: users.maintainer, path: 'movable', visibility: 'public' })
    const res = await request('PUT', `/api/v4/projects/${project.id}/transfer`, { token: tokens.maintainer, body: { namespace: 'acme' } })
    expect(res.status, res.text).toBe(200)
    expect(res.body).toMatchObject({
      path_with_namespace: 'acme/movable',
      visibility: 'internal',
      namespace: { id: acme.id, kind: 'group' },
    })
    expect(res.body.owner).toBeUndefined()
    const redirect = await db.selectFrom('redirect_routes').select('path').where('project_id', '=', project.id).execute()
    expect(redirect).toEqual([{ path: 'maintainer/movable' }])
    // An administrator moves it back into the personal namespace by id, which makes its owner an Owner member again.
    await db.updateTable('members').set({ access_level: 30 }).where('project_id', '=', project.id).execute()
    const personal = (await db.selectFrom('namespaces').select('id').where('path', '=', 'maintainer').executeTakeFirstOrThrow()).id
    const back = await request('PUT', `/api/v4/projects/${project.id}/transfer`, {
      token: server.rootToken,
      body: { namespace: String(personal) },
    })
    expect(back.status, back.text).toBe(200)
    expect(back.body.path_with_namespace).toBe('maintainer/movable')
    expect(back.body.owner.id).toBe(users.maintainer.id)
    const routes = await db.selectFrom('redirect_routes').select('path').where('project_id', '=', project.id).execute()
    expect(routes).toEqual([{ path: 'acme/movable' }])
    const members = await db.selectFrom('members').select(['user_id', 'access_level']).where('project_id', '=', project.id).execute()
    expect(members).toEqual([{ user_id: users.maintainer.id, access_level: 50 }])
  })

  test('refusals: roles, unknown namespaces, same namespace, no creation rights, conflicts', async () => {
    const db = server.database.db
    const project = await createTestProject(db, { owner: users.developer, path: 'stays', visibility: 'public' })
    const at = `/api/v4/projects/${project.id}/transfer`
    await refused('PUT', at, tokens.guest, { namespace: 'acme' }, 403, { message: '403 Forbidden' })
    await refused('PUT', at, tokens.developer, { namespace: 'nowhere' }, 404, { message: '404 Namespace Not Found' })
    const foreign = await createTestGroup(db, { path: 'foreign' })
    await refused('PUT', at, tokens.developer, { namespace: String(foreign.id) }, 404, { message: '404 Namespace Not Found' })
    await refused('PUT', at, tokens.developer, { namespace: 'developer' }, 400, {
      message: 'Failed to transfer project {:new_namespace=>["Project is already in this namespace."]}',
    })
    await refused('PUT', at, tokens.developer, { namespace: 'acme' }, 400, {
      message: `Failed to transfer project {:new_namespace=>["You don't have permission to transfer projects into that namespace."]}`,
    })
    await refused('PUT', at, tokens.developer, {}, 400, { message: '400 (Bad request) "namespace" not given' })
  })

  test('a project of the same name or path in the target is a conflict', async () => {
    const db = server.database.db
    await createTestProject(db, { namespace: acme, path: 'twin', name: 'Twin' })
    const mine = await createTestProject(db, { owner: users.owner, path: 'twin', name: 'Different' })
    await refused('PUT', `/api/v4/projects/${mine.id}/transfer`, tokens.owner, { namespace: 'acme' }, 400, {
      message: 'Failed to transfer project {:new_namespace=>["Project with same name or path in target namespace already exists"]}',
    })
  })
})

describe('DELETE /projects/:id', () => {
  test('the Owner deletes: 202 and the project is gone at once; the job then removes it with its members, stars and redirects', async () => {
    const db = server.database.db
    const project = await createTestProject(db, { owner: anna, path: 'doomed', visibility: 'public' })
    await request('POST', `/api/v4/projects/${project.id}/star`, { token: tokens.outsider })
    await request('PUT', `/api/v4/projects/${project.id}`, { token: annaToken, body: { path: 'doomed-renamed' } })
    const res = await request('DELETE', `/api/v4/projects/${project.id}`, { token: annaToken })
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ message: '202 Accepted' })
    expect((await request('GET', `/api/v4/projects/${project.id}`, { token: annaToken })).status).toBe(404)
    expect(
      (await request('GET', `/api/v4/projects/${encodeURIComponent(`${anna.username}/doomed-renamed`)}`, { token: annaToken })).status,
    ).toBe(404)
    const listed = await request('GET', `/api/v4/projects?owned=true&per_page=100`, { token: annaToken })
    expect(listed.body.map((p: { id: number }) => p.id)).not.toContain(project.id)
    // A second DELETE finds nothing to delete.
    expect((await request('DELETE', `/api/v4/projects/${project.id}`, { token: annaToken })).status).toBe(404)
    expect(await db.selectFrom('projects').select('pending_delete').where('id', '=', project.id).execute()).toEqual([{ pending_delete: 1 }])

    expect(await server.runJobs()).toBeGreaterThanOrEqual(1)
    expect(await db.selectFrom('projects').select('id').where('id', '=', project.id).execute()).toEqual([])
    expect(await db.selectFrom('members').select('id').where('project_id', '=', project.id).execute()).toEqual([])
    expect(await db.selectFrom('project_stars').select('user_id').where('project_id', '=', project.id).execute()).toEqual([])
    expect(await db.selectFrom('redirect_routes').select('id').where('project_id', '=', project.id).execute()).toEqual([])
    expect((await request('GET', `/api/v4/projects/${project.id}`, { token: annaToken })).status).toBe(404)
  })

  test('forks of a deleted project lose their source', async () => {
    const db = server.database.db
    const source = await createTestProject(db, { owner: anna, path: 'source', visibility: 'public' })
    const fork = await createTestProject(db, { owner: users.outsider, path: 'fork', visibility: 'public' })
    await db.updateTable('projects').set({ forked_from_project_id: source.id }).where('id', '=', fork.id).execute()
    expect((await request('DELETE', `/api/v4/projects/${source.id}`, { token: annaToken })).status).toBe(202)
    expect((await request('GET', `/api/v4/projects/${fork.id}`, { token: tokens.outsider })).body.forked_from_project).toBeUndefined()
    await server.runJobs()
    const shown = await request('GET', `/api/v4/projects/${fork.id}`, { token: tokens.outsider })
    expect(shown.status).toBe(200)
    expect(shown.body.forked_from_project).toBeUndefined()
  })

  test('only the Owner; If-Unmodified-Since before the last change refuses with 412', async () => {
    const project = await createTestProject(server.database.db, { namespace: acme, path: 'kept' })
    await refused('DELETE', `/api/v4/projects/${project.id}`, tokens.maintainer, undefined, 403, { message: '403 Forbidden' })
    const before = await counts()
    const res = await request('DELETE', `/api/v4/projects/${project.id}`, {
      token: tokens.owner,
      headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' },
    })
    expect(res.status).toBe(412)
    expect(res.body).toEqual({ message: '412 Precondition Failed' })
    expect(await counts()).toEqual(before)
    await refused('DELETE', `/api/v4/projects/${project.id}`, undefined, undefined, 401, { message: '401 Unauthorized' })
  })
})

describe('stars', () => {
  test('star and unstar: 201 with the project, 304 when nothing changes', async () => {
    const project = await createTestProject(server.database.db, { owner: anna, path: 'shiny', visibility: 'public' })
    const at = `/api/v4/projects/${project.id}`
    const starred = await request('POST', `${at}/star`, { token: tokens.outsider })
    expect(starred.status).toBe(201)
    expect(starred.body.star_count).toBe(1)
    expect(Object.keys(starred.body)).toEqual(projectKeys({ personal: true }))
    const again = await request('POST', `${at}/star`, { token: tokens.outsider })
    expect(again.status).toBe(304)
    expect(again.text).toBe('')
    await request('POST', `${at}/star`, { token: annaToken })
    expect((await request('GET', at)).body.star_count).toBe(2)
    const unstarred = await request('POST', `${at}/unstar`, { token: tokens.outsider })
    expect(unstarred.status).toBe(201)
    expect(unstarred.body.star_count).toBe(1)
    const none = await request('POST', `${at}/unstar`, { token: tokens.outsider })
    expect(none.status).toBe(304)
    expect((await request('POST', `${at}/star`)).status).toBe(401)
    const hidden = await createTestProject(server.database.db, { owner: anna, path: 'starless', visibility: 'private' })
    expect((await request('POST', `/api/v4/projects/${hidden.id}/star`, { token: tokens.outsider })).status).toBe(404)
  })
})

describe('archive', () => {
  test('the Owner archives and unarchives: 201 with the project; twice changes nothing', async () => {
    const project = await createTestProject(server.database.db, { namespace: acme, path: 'old', visibility: 'internal' })
    const at = `/api/v4/projects/${project.id}`
    await refused('POST', `${at}/archive`, tokens.maintainer, undefined, 403, { message: '403 Forbidden' })
    const archived = await request('POST', `${at}/archive`, { token: tokens.owner })
    expect(archived.status).toBe(201)
    expect(archived.body.archived).toBe(true)
    expect(Object.keys(archived.body)).toEqual(projectKeys({ maintainer: true }))
    const twice = await request('POST', `${at}/archive`, { token: tokens.owner })
    expect(twice.status).toBe(201)
    expect(twice.body.updated_at).toBe(archived.body.updated_at)
    const back = await request('POST', `${at}/unarchive`, { token: tokens.owner })
    expect(back.body.archived).toBe(false)
  })
})
