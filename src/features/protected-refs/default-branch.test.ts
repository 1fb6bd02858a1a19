import { afterAll, beforeAll, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestToken, createTestUser } from '../../testing/factories.js'
import { GitClient, repoUrl } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>
let db: TestServer['database']['db']
const gitClient = new GitClient()
const gitOk = (cwd: string, ...args: string[]) => gitClient.ok(cwd, ...args)

let owner: { user: User; token: string }
let developer: { user: User; token: string; password: string }

beforeAll(async () => {
  server = await startTestServer()
  request = client(`${server.url}/api/v4`)
  db = server.database.db
  const ownerUser = await createTestUser(db, { username: 'gwen' })
  owner = { user: ownerUser, token: (await createTestToken(db, ownerUser)).value }
  const developerUser = await createTestUser(db, { username: 'dave', password: 'dave-secret-1' })
  developer = { user: developerUser, token: (await createTestToken(db, developerUser)).value, password: 'dave-secret-1' }
})

afterAll(async () => {
  await server.close()
  gitClient.remove()
})

async function projectIn(groupId: number, name: string, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await request('POST', '/projects', { token: owner.token, body: { name, namespace_id: groupId, ...body } })
  expect(res.status, res.text).toBe(201)
  const row: ProjectRow = await db.selectFrom('projects').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow()
  await addTestMember(db, { user: developer.user, project: row, accessLevel: 30 })
  return res.body
}

async function pushFirstCommit(project: Record<string, any>) {
  const dir = gitClient.freshDir()
  await gitOk(gitClient.workDir, 'init', '--quiet', '--initial-branch=main', dir)
  await gitOk(dir, 'commit', '--quiet', '--allow-empty', '-m', 'First')
  return gitClient.run(dir, 'push', repoUrl(server.url, project.path_with_namespace, 'dave', developer.password), 'main')
}

test("a group's default branch protection is shown, changed, and decides its new projects' protection", async () => {
  const made = await request('POST', '/groups', { token: owner.token, body: { name: 'Guarded', path: 'guarded' } })
  expect(made.status, made.text).toBe(201)
  expect(made.body).toMatchObject({
    default_branch_protection: 2,
    default_branch_protection_defaults: {
      allowed_to_push: [{ access_level: 40 }],
      allow_force_push: false,
      allowed_to_merge: [{ access_level: 40 }],
      developer_can_initial_push: false,
    },
  })
  const group = made.body

  // Developers may push the first branch of an empty project; it is then protected for Maintainers.
  const initial = await request('PUT', `/groups/${group.id}`, { token: owner.token, body: { default_branch_protection: 4 } })
  expect(initial.status, initial.text).toBe(200)
  expect(initial.body).toMatchObject({
    default_branch_protection: 4,
    default_branch_protection_defaults: { developer_can_initial_push: true },
  })
  const empty = await projectIn(group.id, 'Initial push')
  const first = await pushFirstCommit(empty)
  expect(first.code, first.stderr).toBe(0)

  // No protection: the default branch gets no rule, and Developers push as to any branch.
  const none = await request('PUT', `/groups/${group.id}`, {
    token: owner.token,
    body: {
      default_branch_protection_defaults: {
        allowed_to_push: [{ access_level: 30 }],
        allowed_to_merge: [{ access_level: 30 }],
        allow_force_push: true,
      },
    },
  })
  expect(none.status, none.text).toBe(200)
  expect(none.body.default_branch_protection).toBe(0)
  const open = await projectIn(group.id, 'Open', { initialize_with_readme: true })
  const rules = await request('GET', `/projects/${open.id}/protected_branches`, { token: owner.token })
  expect(rules.body).toEqual([])
  const branch = await request('GET', `/projects/${open.id}/repository/branches/main`, { token: developer.token })
  expect(branch.body).toMatchObject({ protected: false, can_push: true })
  const emptyOpen = await projectIn(group.id, 'Open empty')
  expect((await pushFirstCommit(emptyOpen)).code).toBe(0)

  // Developers push: the rule says so.
  await request('PUT', `/groups/${group.id}`, { token: owner.token, body: { default_branch_protection: 1 } })
  const devPush = await projectIn(group.id, 'Developers push', { initialize_with_readme: true })
  const devRules = await request('GET', `/projects/${devPush.id}/protected_branches/main`, { token: owner.token })
  expect(devRules.body.push_access_levels.map((level: { access_level: number }) => level.access_level)).toEqual([30])
  expect(devRules.body.merge_access_levels.map((level: { access_level: number }) => level.access_level)).toEqual([40])

  const bad = await request('PUT', `/groups/${group.id}`, { token: owner.token, body: { default_branch_protection: 7 } })
  expect([bad.status, bad.body]).toEqual([400, { error: 'default_branch_protection does not have a valid value' }])
  const badLevel = await request('PUT', `/groups/${group.id}`, {
    token: owner.token,
    body: { default_branch_protection_defaults: { allowed_to_push: [{ access_level: 20 }] } },
  })
  expect([badLevel.status, badLevel.body]).toEqual([
    400,
    { error: 'default_branch_protection_defaults[allowed_to_push][0][access_level] does not have a valid value' },
  ])
})

test("the instance's default branch protection decides for groups and personal namespaces without their own", async () => {
  const setting = async (level: number) => {
    const res = await request('PUT', '/application/settings', { token: server.rootToken, body: { default_branch_protection: level } })
    return { status: res.status, body: res.body }
  }
  expect(await setting(5)).toEqual({ status: 400, body: { message: { default_branch_protection: ['must be less than or equal to 4'] } } })
  expect((await setting(0)).body.default_branch_protection).toBe(0)
  try {
    const made = await request('POST', '/groups', { token: owner.token, body: { name: 'Unset', path: 'unset' } })
    expect(made.body).toMatchObject({ default_branch_protection: 0, default_branch_protection_defaults: { allow_force_push: true } })
    const inGroup = await projectIn(made.body.id, 'Unprotected', { initialize_with_readme: true })
    expect((await request('GET', `/projects/${inGroup.id}/protected_branches`, { token: owner.token })).body).toEqual([])
    const personal = await request('POST', '/projects', { token: owner.token, body: { name: 'Mine', initialize_with_readme: true } })
    expect((await request('GET', `/projects/${personal.body.id}/protected_branches`, { token: owner.token })).body).toEqual([])
  } finally {
    expect((await setting(2)).body.default_branch_protection).toBe(2)
  }
})
