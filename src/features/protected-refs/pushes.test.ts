import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { GitClient, repoUrl } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { addProjectMember, cloneProject, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'

let server: TestServer
let request: ReturnType<typeof client>
let db: TestServer['database']['db']
const gitClient = new GitClient()
const gitOk = (cwd: string, ...args: string[]) => gitClient.ok(cwd, ...args)

let sequence = 0

/** A project of `owner` with a README on main, a Developer and a Maintainer. */
async function repository(body: Record<string, unknown> = { initialize_with_readme: true }): Promise<Record<string, any>> {
  sequence += 1
  const project = await createRepositoryProject(request, owner, {
    name: `Pushes ${sequence}`,
    initialize_with_readme: false,
    visibility: 'private',
    ...body,
  })
  await addProjectMember(db, developer, project.id, 30)
  await addProjectMember(db, maintainer, project.id, 40)
  return project
}

async function commit(dir: string, message: string): Promise<string> {
  await gitOk(dir, 'commit', '--quiet', '--allow-empty', '-m', message)
  return (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
}

async function remoteRef(project: Record<string, any>, ref: string): Promise<string | null> {
  const out = await gitOk(
    gitClient.workDir,
    'ls-remote',
    repoUrl(server.url, project.path_with_namespace, owner.user.username, owner.password),
    ref,
  )
  return out.trim() === '' ? null : out.split('\t')[0]
}

function push(dir: string, ...args: string[]) {
  return gitClient.run(dir, 'push', 'origin', ...args)
}

/** What git shows of a push its pre-receive hook declined, for each ref. */
function expectDeclined(run: { code: number; stderr: string }, message: string, refs: string[]) {
  expect(run.code, run.stderr).not.toBe(0)
  expect(run.stderr).toContain(`remote: GitLab: ${message}`)
  for (const ref of refs) expect(run.stderr).toMatch(new RegExp(` ! \\[remote rejected\\] +${ref} \\(pre-receive hook declined\\)`))
}

let owner: Person
let developer: Person
let maintainer: Person

beforeAll(async () => {
  server = await startTestServer()
  request = client(`${server.url}/api/v4`)
  db = server.database.db
  owner = await createPerson(db, 'olga')
  developer = await createPerson(db, 'devon')
  maintainer = await createPerson(db, 'mona')
})

afterAll(async () => {
  await server.close()
  gitClient.remove()
})

const MESSAGES = {
  push: 'You are not allowed to push code to protected branches on this project.',
  force: 'You are not allowed to force push code to a protected branch on this project.',
  deleteNonMaintainer:
    'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
  deleteNonWeb: 'You can only delete protected branches using the web interface.',
  deleteDefault: 'The default branch of a project cannot be deleted.',
  create: 'You are not allowed to create protected branches on this project.',
  createTag: 'You are not allowed to create this tag as it is protected.',
  updateTag: 'Protected tags cannot be updated.',
}

describe('a push to a protected branch', () => {
  test("a new project's default branch refuses a Developer's push, with GitLab's message, and takes a Maintainer's", async () => {
    const project = await repository()
    const before = await remoteRef(project, 'refs/heads/main')
    const dir = await cloneProject(server, gitClient, developer, project.path_with_namespace)
    await commit(dir, 'By a developer')
    expectDeclined(await push(dir, 'main'), MESSAGES.push, ['main -> main'])
    expect(await remoteRef(project, 'refs/heads/main')).toBe(before)

    const mine = await cloneProject(server, gitClient, maintainer, project.path_with_namespace)
    const sha = await commit(mine, 'By a maintainer')
    const run = await push(mine, 'main')
    expect(run.code, run.stderr).toBe(0)
    expect(await remoteRef(project, 'refs/heads/main')).toBe(sha)
    // Other branches stay open to Developers.
    await gitOk(dir, 'checkout', '--quiet', '-b', 'topic')
    expect((await push(dir, 'topic')).code).toBe(0)
  })

  test('a force push is refused unless the rule allows it, a fast-forward is not', async () => {
    const project = await repository()
    const dir = await cloneProject(server, gitClient, maintainer, project.path_with_namespace)
    const first = await commit(dir, 'First')
    expect((await push(dir, 'main')).code).toBe(0)
    await gitOk(dir, 'reset', '--quiet', '--hard', 'HEAD~1')
    await commit(dir, 'Rewritten')
    expectDeclined(await push(dir, '--force', 'main'), MESSAGES.force, ['main -> main'])
    expect(await remoteRef(project, 'refs/heads/main')).toBe(first)

    const allowed = await request('PATCH', `/projects/${project.id}/protected_branches/main`, {
      token: owner.token,
      body: { allow_force_push: true },
    })
    expect(allowed.status, allowed.text).toBe(200)
    const run = await push(dir, '--force', 'main')
    expect(run.code, run.stderr).toBe(0)
    expect(await remoteRef(project, 'refs/heads/main')).toBe((await gitOk(dir, 'rev-parse', 'HEAD')).trim())
  })

  test('deleting a protected branch is for the web interface; the default branch never goes', async () => {
    const project = await repository()
    await request('POST', `/projects/${project.id}/protected_branches`, { token: owner.token, body: { name: 'stable' } })
    const dir = await cloneProject(server, gitClient, maintainer, project.path_with_namespace)
    expect((await push(dir, 'main:stable')).code).toBe(0)
    expectDeclined(await push(dir, '--delete', 'stable'), MESSAGES.deleteNonWeb, ['stable'])
    const developerDir = await cloneProject(server, gitClient, developer, project.path_with_namespace)
    expectDeclined(await push(developerDir, '--delete', 'stable'), MESSAGES.deleteNonMaintainer, ['stable'])
    expectDeclined(await push(dir, '--delete', 'main'), MESSAGES.deleteDefault, ['main'])
    expect(await remoteRef(project, 'refs/heads/stable')).not.toBeNull()
    expect(await remoteRef(project, 'refs/heads/main')).not.toBeNull()
  })

  test('a wildcard protects the branches it matches; a refused ref declines the whole push', async () => {
    const project = await repository()
    const res = await request('POST', `/projects/${project.id}/protected_branches`, {
      token: owner.token,
      body: { name: 'release/*', push_access_level: 40, merge_access_level: 40 },
    })
    expect(res.status, res.text).toBe(201)
    const dir = await cloneProject(server, gitClient, developer, project.path_with_namespace)
    await gitOk(dir, 'checkout', '--quiet', '-b', 'feature')
    await commit(dir, 'Feature')
    expectDeclined(await push(dir, 'feature', 'feature:release/1.0'), MESSAGES.create, ['feature -> feature', 'feature -> release/1.0'])
    expect(await remoteRef(project, 'refs/heads/feature')).toBeNull()
    expect((await push(dir, 'feature', 'feature:releases')).code).toBe(0)
    const mine = await cloneProject(server, gitClient, maintainer, project.path_with_namespace)
    expect((await push(mine, 'main:release/1.0')).code).toBe(0)
  })

  test('Developers push once the rule lets them, or once the branch is unprotected', async () => {
    const project = await repository()
    const dir = await cloneProject(server, gitClient, developer, project.path_with_namespace)
    await commit(dir, 'One')
    expectDeclined(await push(dir, 'main'), MESSAGES.push, ['main -> main'])
    const updated = await request('PATCH', `/projects/${project.id}/protected_branches/main`, {
      token: owner.token,
      body: { allowed_to_push: [{ access_level: 30 }] },
    })
    expect(updated.status, updated.text).toBe(200)
    expect(updated.body.push_access_levels.map((level: { access_level: number }) => level.access_level)).toEqual([40, 30])
    expect((await push(dir, 'main')).code).toBe(0)
    const removed = await request('DELETE', `/projects/${project.id}/protected_branches/main`, { token: owner.token })
    expect(removed.status).toBe(204)
    await commit(dir, 'Two')
    await gitOk(dir, 'reset', '--quiet', '--hard', 'HEAD~1')
    await commit(dir, 'Two again')
    expect((await push(dir, '--force', 'main')).code).toBe(0)
  })

  test("an empty project's first branch is a Maintainer's to push", async () => {
    const project = await repository({})
    const dir = gitClient.freshDir()
    await gitOk(gitClient.workDir, 'init', '--quiet', '--initial-branch=main', dir)
    await gitOk(
      dir,
      'remote',
      'add',
      'origin',
      repoUrl(server.url, project.path_with_namespace, developer.user.username, developer.password),
    )
    await commit(dir, 'First')
    const run = await push(dir, 'main')
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain(`remote: A default branch (e.g. main) does not yet exist for ${project.path_with_namespace}`)
    expect(run.stderr).toContain('remote: Ask a project Owner or Maintainer to create a default branch:')
    expect(run.stderr).toContain(`${server.url}/${project.path_with_namespace}/-/project_members`)
    await gitOk(
      dir,
      'remote',
      'set-url',
      'origin',
      repoUrl(server.url, project.path_with_namespace, maintainer.user.username, maintainer.password),
    )
    expect((await push(dir, 'main')).code).toBe(0)
    const shown = await request('GET', `/projects/${project.id}`, { token: owner.token })
    expect(shown.body.empty_repo).toBe(false)
  })
})

describe('names GitLab refuses in a push', () => {
  test('a 40-character hexadecimal branch, a tag named like a sha, a tag named as the default branch', async () => {
    const project = await repository()
    const dir = await cloneProject(server, gitClient, maintainer, project.path_with_namespace)
    const hex = 'a'.repeat(40)
    expectDeclined(await push(dir, `main:${hex}`), 'You cannot create a branch with a 40-character hexadecimal branch name.', [
      `main -> ${hex}`,
    ])
    await gitOk(dir, 'tag', 'b'.repeat(40))
    expectDeclined(await push(dir, 'b'.repeat(40)), 'You cannot create a tag with a SHA-1 or SHA-256 tag name.', [
      `${'b'.repeat(40)} -> ${'b'.repeat(40)}`,
    ])
    await gitOk(dir, 'tag', 'main-tag')
    expectDeclined(await push(dir, 'refs/tags/main-tag:refs/tags/main'), 'You cannot use default branch name to create a tag', [
      'main-tag -> main',
    ])
  })
})

describe('a push of a protected tag', () => {
  test('creating it needs its create level; it is never updated', async () => {
    const project = await repository()
    const res = await request('POST', `/projects/${project.id}/protected_tags`, { token: owner.token, body: { name: 'v*' } })
    expect(res.status, res.text).toBe(201)
    const dir = await cloneProject(server, gitClient, developer, project.path_with_namespace)
    await gitOk(dir, 'tag', 'v1')
    expectDeclined(await push(dir, 'v1'), MESSAGES.createTag, ['v1 -> v1'])
    await gitOk(dir, 'tag', 'other')
    expect((await push(dir, 'other')).code).toBe(0)
    const mine = await cloneProject(server, gitClient, maintainer, project.path_with_namespace)
    await gitOk(mine, 'tag', 'v1')
    expect((await push(mine, 'v1')).code).toBe(0)
    await commit(mine, 'Later')
    await gitOk(mine, 'tag', '--force', 'v1')
    expectDeclined(await push(mine, '--force', 'v1'), MESSAGES.updateTag, ['v1 -> v1'])
  })
})
