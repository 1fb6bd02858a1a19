import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { findUserByIdOrUsername } from '../users/index.js'
import { basicKeys, detailsKeys, FEATURE_LEVEL_KEYS, gravatarOf, NAMESPACE_KEYS, projectKeys } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>
let url: string
let anna: User
let annaToken: string
let bert: User
let bertToken: string
let root: User
const tokens: Record<string, string> = {}
let acme: NamespaceRow
let sub: NamespaceRow
let alpha: ProjectRow
let gadget: ProjectRow
let deep: ProjectRow
let fork: ProjectRow
let secretFork: ProjectRow

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  url = server.url
  const db = server.database.db
  root = (await findUserByIdOrUsername(db, 'root'))!
  anna = await createTestUser(db, { username: 'anna', name: 'Anna Apple', email: 'anna@example.com' })
  annaToken = (await createTestToken(db, anna)).value
  bert = await createTestUser(db, { username: 'bert', name: 'Bert Banana', email: 'bert@example.com' })
  bertToken = (await createTestToken(db, bert)).value
  acme = await createTestGroup(db, { path: 'acme', name: 'Acme', visibility: 'public' })
  sub = await createTestGroup(db, { path: 'labs', name: 'Labs', parent: acme, visibility: 'public' })
  for (const [role, level] of [
    ['guest', 10],
    ['reporter', 20],
    ['developer', 30],
    ['maintainer', 40],
    ['owner', 50],
  ] as const) {
    const user = await createTestUser(db, { username: role })
    tokens[role] = (await createTestToken(db, user)).value
    await addTestMember(db, { user, group: acme, accessLevel: level })
  }
  alpha = await createTestProject(db, { owner: anna, path: 'alpha', name: 'Alpha', visibility: 'public' })
  alpha = await db
    .updateTable('projects')
    .set({ description: 'Hello <b>world</b>\n\nSecond line', topics: '["zeta","Alpha"]' })
    .where('id', '=', alpha.id)
    .returningAll()
    .executeTakeFirstOrThrow()
  gadget = await createTestProject(db, { namespace: acme, path: 'gadget', name: 'Gadget', visibility: 'private' })
  deep = await createTestProject(db, { namespace: sub, path: 'deep', name: 'Deep', visibility: 'private' })
  fork = await createTestProject(db, { owner: bert, path: 'alpha-fork', visibility: 'public' })
  fork = await db
    .updateTable('projects')
    .set({ forked_from_project_id: alpha.id })
    .where('id', '=', fork.id)
    .returningAll()
    .executeTakeFirstOrThrow()
  secretFork = await createTestProject(db, { owner: bert, path: 'gadget-fork', visibility: 'public' })
  await db.updateTable('projects').set({ forked_from_project_id: gadget.id }).where('id', '=', secretFork.id).execute()
})
afterAll(() => server.close())

describe('the Project entity', () => {
  test('the owner of a personal project gets ProjectWithAccess with every field in GitLab order and value', async () => {
    const res = await request('GET', `/api/v4/projects/${alpha.id}`, { token: annaToken })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('application/json')
    const api = `${url}/api/v4/projects/${alpha.id}`
    const host = new URL(url)
    const owner = {
      id: anna.id,
      username: 'anna',
      name: 'Anna Apple',
      state: 'active',
      locked: false,
      avatar_url: gravatarOf('anna@example.com'),
      web_url: `${url}/anna`,
    }
    const expected = {
      id: alpha.id,
      description: 'Hello <b>world</b>\n\nSecond line',
      name: 'Alpha',
      name_with_namespace: 'Anna Apple / Alpha',
      path: 'alpha',
      path_with_namespace: 'anna/alpha',
      created_at: alpha.created_at,
      default_branch: 'main',
      tag_list: ['Alpha', 'zeta'],
      topics: ['Alpha', 'zeta'],
      ssh_url_to_repo: `git@${host.hostname}:anna/alpha.git`,
      http_url_to_repo: `${url}/anna/alpha.git`,
      web_url: `${url}/anna/alpha`,
      readme_url: null,
      forks_count: 1,
      avatar_url: null,
      star_count: 0,
      last_activity_at: alpha.last_activity_at,
      namespace: {
        id: alpha.namespace_id,
        name: 'Anna Apple',
        path: 'anna',
        kind: 'user',
        full_path: 'anna',
        parent_id: null,
        avatar_url: gravatarOf('anna@example.com'),
        web_url: `${url}/anna`,
      },
      container_registry_image_prefix: `${host.host}/anna/alpha`,
      _links: {
        self: api,
        issues: `${api}/issues`,
        merge_requests: `${api}/merge_requests`,
        repo_branches: `${api}/repository/branches`,
        labels: `${api}/labels`,
        events: `${api}/events`,
        members: `${api}/members`,
        cluster_agents: `${api}/cluster_agents`,
      },
      packages_enabled: true,
      empty_repo: true,
      archived: false,
      visibility: 'public',
      owner,
      resolve_outdated_diff_discussions: false,
      repository_object_format: 'sha1',
      issues_enabled: true,
      merge_requests_enabled: true,
      wiki_enabled: true,
      jobs_enabled: true,
      snippets_enabled: true,
      container_registry_enabled: true,
      service_desk_enabled: false,
      service_desk_address: null,
      can_create_merge_request_in: true,
      ...Object.fromEntries(FEATURE_LEVEL_KEYS.map((k) => [k, k === 'pages_access_level' ? 'private' : 'enabled'])),
      emails_disabled: false,
      emails_enabled: true,
      shared_runners_enabled: true,
      lfs_enabled: true,
      creator_id: anna.id,
      import_url: null,
      import_type: null,
      import_status: 'none',
      import_error: null,
      open_issues_count: 0,
      description_html:
        '<p data-sourcepos="1:1-1:18" dir="auto">Hello <b>world</b></p>\n<p data-sourcepos="3:1-3:11" dir="auto">Second line</p>',
      updated_at: alpha.updated_at,
      ci_default_git_depth: 20,
      ci_delete_pipelines_in_seconds: null,
      ci_forward_deployment_enabled: true,
      ci_forward_deployment_rollback_allowed: true,
      ci_job_token_scope_enabled: false,
      ci_separated_caches: true,
      ci_allow_fork_pipelines_to_run_in_parent_project: true,
      ci_id_token_sub_claim_components: ['project_path', 'ref_type', 'ref'],
      build_git_strategy: 'fetch',
      keep_latest_artifact: true,
      restrict_user_defined_variables: false,
      ci_pipeline_variables_minimum_override_role: 'developer',
      runners_token: null,
      runner_token_expiration_interval: null,
      group_runners_enabled: true,
      auto_cancel_pending_pipelines: 'enabled',
      build_timeout: 3600,
      auto_devops_enabled: true,
      auto_devops_deploy_strategy: 'continuous',
      ci_push_repository_for_job_token_allowed: false,
      ci_config_path: null,
      public_jobs: true,
      shared_with_groups: [],
      only_allow_merge_if_pipeline_succeeds: false,
      allow_merge_on_skipped_pipeline: false,
      request_access_enabled: true,
      only_allow_merge_if_all_discussions_are_resolved: false,
      remove_source_branch_after_merge: true,
      printing_merge_request_link_enabled: true,
      merge_method: 'merge',
      squash_option: 'default_off',
      enforce_auth_checks_on_uploads: true,
      suggestion_commit_message: null,
      merge_commit_template: null,
      squash_commit_template: null,
      issue_branch_template: null,
      warn_about_potentially_unwanted_characters: true,
      autoclose_referenced_issues: true,
      max_artifacts_size: null,
      permissions: { project_access: { access_level: 50, notification_level: 3 }, group_access: null },
    }
    expect(res.body).toEqual(expected)
    expect(Object.keys(res.body)).toEqual(Object.keys(expected))
    expect(Object.keys(res.body)).toEqual(projectKeys({ personal: true, maintainer: true, permissions: true }))
    expect(Object.keys(res.body.namespace)).toEqual(NAMESPACE_KEYS)
  })

  test('anonymous callers get ProjectDetails of public projects and 404 for others', async () => {
    const res = await request('GET', `/api/v4/projects/${fork.id}`)
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual(detailsKeys({ forkedFromVisible: true }))
    expect(res.body.forked_from_project.id).toBe(alpha.id)
    expect(Object.keys(res.body.forked_from_project)).toEqual(basicKeys())
    const hidden = await request('GET', `/api/v4/projects/${gadget.id}`)
    expect(hidden.status).toBe(404)
    expect(hidden.body).toEqual({ message: '404 Project Not Found' })
  })

  test('forked_from_project only when the caller can read the source; mr_default_target_self only on forks', async () => {
    const seen = await request('GET', `/api/v4/projects/${fork.id}`, { token: bertToken })
    expect(Object.keys(seen.body)).toEqual(
      projectKeys({ personal: true, maintainer: true, permissions: true, fork: true, forkedFromVisible: true }),
    )
    expect(seen.body.mr_default_target_self).toBe(false)
    const unseen = await request('GET', `/api/v4/projects/${secretFork.id}`, { token: bertToken })
    expect(unseen.body.forked_from_project).toBeUndefined()
    expect(unseen.body.mr_default_target_self).toBe(false)
    const member = await request('GET', `/api/v4/projects/${secretFork.id}`, { token: tokens.guest })
    expect(member.body.forked_from_project.path_with_namespace).toBe('acme/gadget')
    // A guest of the private source cannot read its code.
    expect(Object.keys(member.body.forked_from_project)).toEqual(basicKeys({ readCode: false }))
  })

  test('roles decide the conditional fields: guests of a private project read no code', async () => {
    const guest = await request('GET', `/api/v4/projects/${gadget.id}`, { token: tokens.guest })
    expect(guest.status).toBe(200)
    expect(Object.keys(guest.body)).toEqual(projectKeys({ readCode: false, permissions: true }))
    expect(guest.body.merge_requests_enabled).toBe(true)
    expect(guest.body.can_create_merge_request_in).toBe(true)
    expect(guest.body.permissions).toEqual({ project_access: null, group_access: { access_level: 10, notification_level: 3 } })
    const reporter = await request('GET', `/api/v4/projects/${gadget.id}?statistics=true`, { token: tokens.reporter })
    expect(Object.keys(reporter.body)).toEqual(projectKeys({ reporter: true, statistics: true, permissions: true }))
    expect(reporter.body.statistics).toEqual({
      commit_count: 0,
      storage_size: 0,
      repository_size: 0,
      wiki_size: 0,
      lfs_objects_size: 0,
      job_artifacts_size: 0,
      pipeline_artifacts_size: 0,
      packages_size: 0,
      snippets_size: 0,
      uploads_size: 0,
      container_registry_size: 0,
    })
    const guestStats = await request('GET', `/api/v4/projects/${gadget.id}?statistics=true`, { token: tokens.guest })
    expect(guestStats.body.statistics).toBeUndefined()
    const maintainer = await request('GET', `/api/v4/projects/${gadget.id}`, { token: tokens.maintainer })
    expect(Object.keys(maintainer.body)).toEqual(projectKeys({ maintainer: true, permissions: true }))
  })

  test('administrators see the storage and, when asked, custom attributes; they hold no membership', async () => {
    const res = await request('GET', `/api/v4/projects/${gadget.id}?with_custom_attributes=true`, { token: server.rootToken })
    expect(Object.keys(res.body)).toEqual(projectKeys({ maintainer: true, instanceAdmin: true, customAttributes: true, permissions: true }))
    expect(res.body.repository_storage).toBe('default')
    expect(res.body.custom_attributes).toEqual([])
    expect(res.body.permissions).toEqual({ project_access: null, group_access: null })
    const notAdmin = await request('GET', `/api/v4/projects/${gadget.id}?with_custom_attributes=true`, { token: tokens.owner })
    expect(notAdmin.body.custom_attributes).toBeUndefined()
    expect(root.admin).toBe(1)
  })

  test('group_access of a single project counts the groups above; lists show the direct group membership only', async () => {
    const one = await request('GET', `/api/v4/projects/${deep.id}`, { token: tokens.developer })
    expect(one.body.permissions).toEqual({ project_access: null, group_access: { access_level: 30, notification_level: 3 } })
    expect(one.body.namespace).toEqual({
      id: sub.id,
      name: 'Labs',
      path: 'labs',
      kind: 'group',
      full_path: 'acme/labs',
      parent_id: acme.id,
      avatar_url: null,
      web_url: `${url}/groups/acme/labs`,
    })
    const list = await request('GET', `/api/v4/projects?id_after=${deep.id - 1}&id_before=${deep.id + 1}`, { token: tokens.developer })
    expect(list.body.map((p: { id: number }) => p.id)).toEqual([deep.id])
    expect(list.body[0].permissions).toEqual({ project_access: null, group_access: null })
    const direct = await request('GET', `/api/v4/projects?id_after=${gadget.id - 1}&id_before=${gadget.id + 1}`, {
      token: tokens.developer,
    })
    expect(direct.body[0].permissions).toEqual({ project_access: null, group_access: { access_level: 30, notification_level: 3 } })
  })

  test('disabled and private features hide their links and counts', async () => {
    const db = server.database.db
    const project = await createTestProject(db, { namespace: acme, path: 'features', visibility: 'public' })
    await db.updateTable('projects').set({ issues_access_level: 0, merge_requests_access_level: 10 }).where('id', '=', project.id).execute()
    const guest = await request('GET', `/api/v4/projects/${project.id}`, { token: tokens.guest })
    expect(guest.body.issues_enabled).toBe(false)
    expect(guest.body.issues_access_level).toBe('disabled')
    expect(guest.body.merge_requests_enabled).toBe(false)
    expect(guest.body.merge_requests_access_level).toBe('private')
    expect(guest.body.can_create_merge_request_in).toBe(false)
    expect(guest.body._links.issues).toBeUndefined()
    expect(guest.body._links.merge_requests).toBeUndefined()
    expect(guest.body.open_issues_count).toBeUndefined()
    expect(Object.keys(guest.body._links)).toEqual(['self', 'repo_branches', 'labels', 'events', 'members', 'cluster_agents'])
    const reporter = await request('GET', `/api/v4/projects/${project.id}`, { token: tokens.reporter })
    expect(reporter.body.merge_requests_enabled).toBe(true)
    expect(Object.keys(reporter.body._links)).toContain('merge_requests')
    expect(Object.keys(reporter.body)).toEqual(projectKeys({ reporter: true, issues: false, permissions: true }))
  })
})

describe('entities of lists', () => {
  test('signed-in callers get ProjectWithAccess, simple=true and anonymous callers BasicProjectDetails', async () => {
    const full = await request('GET', `/api/v4/projects?id_after=${alpha.id - 1}&id_before=${alpha.id + 1}`, { token: bertToken })
    expect(full.status).toBe(200)
    expect(Object.keys(full.body[0])).toEqual(projectKeys({ personal: true, permissions: true }))
    expect(full.body[0].permissions).toEqual({ project_access: null, group_access: null })
    const simple = await request('GET', `/api/v4/projects?simple=true&id_after=${alpha.id - 1}&id_before=${alpha.id + 1}`, {
      token: bertToken,
    })
    expect(Object.keys(simple.body[0])).toEqual(basicKeys())
    const anonymous = await request('GET', `/api/v4/projects?id_after=${alpha.id - 1}&id_before=${alpha.id + 1}`)
    expect(Object.keys(anonymous.body[0])).toEqual(basicKeys())
    // Values are the same as on the single project.
    const single = await request('GET', `/api/v4/projects/${alpha.id}`, { token: bertToken })
    const { permissions: _listed, ...listed } = full.body[0]
    const { permissions: _single, ...shown } = single.body
    expect(listed).toEqual(shown)
  })

  test('GET /groups/:id/projects gives the Project entity, even to anonymous callers', async () => {
    const res = await request('GET', `/api/v4/groups/acme/projects?include_subgroups=true`)
    expect(res.status).toBe(200)
    expect(res.body.length).toBeGreaterThan(0)
    for (const project of res.body) expect(Object.keys(project)).toEqual(projectKeys({ issues: project.issues_enabled }))
    const simple = await request('GET', `/api/v4/groups/acme/projects?simple=true`)
    for (const project of simple.body) expect(Object.keys(project)).toEqual(basicKeys())
  })
})
