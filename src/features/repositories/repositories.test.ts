import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { createTestGroup, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { hashedRepositoryPath, readmeOf, refreshRepositoryState } from './index.js'

let server: TestServer
let request: ReturnType<typeof client>
let storagesDir: string
let anna: User
let annaToken: string

const SETTINGS = '/api/v4/application/settings'

function storageRoot(name: string): string {
  return path.join(storagesDir, name)
}

/** Where the test expects a project's repository: GitLab's hashed path, computed here independently. */
function expectedDirectory(storage: string, id: number): string {
  const h = createHash('sha256').update(`${id}`).digest('hex')
  return path.join(storageRoot(storage), '@hashed', h.slice(0, 2), h.slice(2, 4), `${h}.git`)
}

/** Real `git` against a bare repository. */
function git(directory: string, ...args: string[]): string {
  return gitWith(directory, undefined, ...args)
}

function gitWith(directory: string, input: string | undefined, ...args: string[]): string {
  return execFileSync('git', [`--git-dir=${directory}`, ...args], {
    encoding: 'utf8',
    input,
    env: {
      PATH: process.env.PATH,
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: os.tmpdir(),
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  })
}

/** Commits a root tree of these files onto a branch, as a push would. */
function commitFiles(directory: string, branch: string, files: string[]) {
  const entries = files.map((name) => `100644 blob ${gitWith(directory, name, 'hash-object', '-w', '--stdin').trim()}\t${name}\n`)
  const tree = gitWith(directory, entries.join(''), 'mktree').trim()
  const commit = git(directory, 'commit-tree', tree, '-m', 'Files').trim()
  git(directory, 'update-ref', `refs/heads/${branch}`, commit)
}

async function createProject(body: Record<string, unknown>, token = annaToken) {
  const res = await request('POST', '/api/v4/projects', { token, body })
  expect(res.status, res.text).toBe(201)
  return res.body as Record<string, any>
}

/** The project as an administrator sees it (with repository_storage). */
async function adminView(id: number) {
  const res = await request('GET', `/api/v4/projects/${id}`, { token: server.rootToken })
  expect(res.status).toBe(200)
  return res.body as Record<string, any>
}

async function putWeights(weights: unknown) {
  return request('PUT', SETTINGS, { token: server.rootToken, body: { repository_storages_weighted: weights } })
}

async function projectCount(): Promise<number> {
  const rows = await server.database.db.selectFrom('projects').select('id').execute()
  return rows.length
}

beforeAll(async () => {
  storagesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-storages-'))
  server = await startTestServer({ SVC_STORAGES: `default=${storageRoot('default')},fast=${storageRoot('fast')}` })
  request = client(server.url)
  anna = await createTestUser(server.database.db, { username: 'anna', name: 'Anna Lee', email: 'anna@example.com' })
  annaToken = (await createTestToken(server.database.db, anna)).value
})

afterAll(async () => {
  await server.close()
  fs.rmSync(storagesDir, { recursive: true, force: true })
})

test('the hashed path is GitLab’s: sha256 of the id, split 2/2', () => {
  expect(hashedRepositoryPath(1)).toBe('@hashed/6b/86/6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b.git')
})

describe('a new project has a bare repository', () => {
  test('without a README: empty, HEAD on main, fields say so', async () => {
    const project = await createProject({ name: 'Empty' })
    const directory = expectedDirectory('default', project.id)
    expect(git(directory, 'rev-parse', '--is-bare-repository').trim()).toBe('true')
    expect(git(directory, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main')
    expect(git(directory, 'for-each-ref')).toBe('')
    git(directory, 'fsck', '--strict')
    expect(project).toMatchObject({
      empty_repo: true,
      default_branch: 'main',
      readme_url: null,
      http_url_to_repo: `${server.url}/anna/Empty.git`,
      ssh_url_to_repo: 'git@127.0.0.1:anna/Empty.git',
      web_url: `${server.url}/anna/Empty`,
    })
    expect(project).not.toHaveProperty('repository_storage')
    expect((await adminView(project.id)).repository_storage).toBe('default')
  })

  test('initialize_with_readme: one commit of GitLab’s README by the creator on the default branch', async () => {
    server.freeze(new Date('2026-03-04T05:06:07.000Z'))
    const project = await createProject({
      name: 'Docs',
      description: 'All the words',
      initialize_with_readme: true,
      default_branch: 'develop',
    })
    const directory = expectedDirectory('default', project.id)
    expect(git(directory, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/develop')
    expect(git(directory, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/develop\n')
    expect(git(directory, 'log', '--format=%an|%ae|%cn|%ce|%at|%s|%P', 'develop')).toBe(
      `Anna Lee|anna@example.com|Anna Lee|anna@example.com|${Date.parse('2026-03-04T05:06:07.000Z') / 1000}|Initial commit|\n`,
    )
    expect(git(directory, 'ls-tree', '--name-only', 'develop')).toBe('README.md\n')
    const readme = git(directory, 'cat-file', 'blob', 'develop:README.md')
    expect(readme.startsWith('# Docs\n\nAll the words\n\n## Getting started\n\nTo make it easy for you to get started with GitLab')).toBe(
      true,
    )
    expect(readme).toContain(
      `\`\`\`\ncd existing_repo\ngit remote add origin ${server.url}/anna/Docs.git\ngit branch -M develop\ngit push -uf origin develop\n\`\`\`\n`,
    )
    expect(readme).toContain(`- [ ] [Set up project integrations](${server.url}/anna/Docs/-/settings/integrations)\n`)
    expect(readme.endsWith('You can also make an explicit request for maintainers.\n')).toBe(true)
    git(directory, 'fsck', '--strict')
    expect(project).toMatchObject({
      empty_repo: false,
      default_branch: 'develop',
      readme_url: `${server.url}/anna/Docs/-/blob/develop/README.md`,
      http_url_to_repo: `${server.url}/anna/Docs.git`,
      ssh_url_to_repo: 'git@127.0.0.1:anna/Docs.git',
    })
  })

  test('without a description the README keeps the template’s blank lines; the group’s default branch applies', async () => {
    const group = await createTestGroup(server.database.db, { path: 'crew', name: 'Crew' })
    await server.database.db.updateTable('namespaces').set({ default_branch: 'trunk' }).where('id', '=', group.id).execute()
    const project = await createProject({ name: 'Plain', namespace_id: group.id, initialize_with_readme: true }, server.rootToken)
    const directory = expectedDirectory('default', project.id)
    expect(git(directory, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/trunk')
    expect(git(directory, 'cat-file', 'blob', 'trunk:README.md').startsWith('# Plain\n\n\n\n## Getting started\n')).toBe(true)
    expect(git(directory, 'log', '--format=%an|%s', 'trunk')).toBe('Administrator|Initial commit\n')
    expect(project).toMatchObject({ default_branch: 'trunk', readme_url: `${server.url}/crew/Plain/-/blob/trunk/README.md` })
  })

  test('a repository that cannot be made leaves no project and no directory behind', async () => {
    const before = await projectCount()
    const res = await request('POST', '/api/v4/projects', {
      token: annaToken,
      body: { name: 'Broken', default_branch: 'bad..name', initialize_with_readme: true },
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ message: { base: ['Failed to create repository'] } })
    expect(await projectCount()).toBe(before)
    const next = await createProject({ name: 'After' })
    expect(fs.existsSync(expectedDirectory('default', next.id))).toBe(true)
    const leftovers = fs
      .readdirSync(path.join(storageRoot('default'), '@hashed'), { recursive: true })
      .filter((entry) => String(entry).endsWith('.git'))
    expect(leftovers).toHaveLength(await projectCount())
  })
})

describe('after the repository changes, the project shows what it holds', () => {
  test('GitLab’s README choice: a root file named README*, markup first, then plain text', () => {
    expect(readmeOf(['README', 'readme.rst', 'README.md'])).toBe('README.md')
    expect(readmeOf(['README.txt', 'src'])).toBe('README.txt')
    expect(readmeOf(['README.pdf', 'main.c'])).toBe(null)
  })

  test('empty_repo, default_branch and readme_url follow the repository', async () => {
    const project = await createProject({ name: 'Pushed' })
    const directory = expectedDirectory('default', project.id)
    const row = { id: project.id, repository_storage: 'default' }
    const shown = async () => {
      const res = await request('GET', `/api/v4/projects/${project.id}`, { token: annaToken })
      const { empty_repo, default_branch, readme_url } = res.body
      return { empty_repo, default_branch, readme_url }
    }
    await refreshRepositoryState(server.database.db, server.config, row)
    expect(await shown()).toEqual({ empty_repo: true, default_branch: 'main', readme_url: null })

    commitFiles(directory, 'main', ['README', 'docs', 'readme.rst'])
    await refreshRepositoryState(server.database.db, server.config, row)
    expect(await shown()).toEqual({
      empty_repo: false,
      default_branch: 'main',
      readme_url: `${server.url}/anna/Pushed/-/blob/main/readme.rst`,
    })

    commitFiles(directory, 'main', ['main.c'])
    await refreshRepositoryState(server.database.db, server.config, row)
    expect(await shown()).toEqual({ empty_repo: false, default_branch: 'main', readme_url: null })
  })
})

describe('storages', () => {
  test('the setting lists every configured storage; weights pick the storage of new projects', async () => {
    const initial = await request('GET', SETTINGS, { token: server.rootToken })
    expect(initial.body.repository_storages_weighted).toEqual({ default: 100, fast: 0 })

    let res = await putWeights({ fast: 100, default: 0 })
    expect(res.status, res.text).toBe(200)
    expect(res.body.repository_storages_weighted).toEqual({ default: 0, fast: 100 })
    const onFast = await createProject({ name: 'Quick' })
    expect((await adminView(onFast.id)).repository_storage).toBe('fast')
    git(expectedDirectory('fast', onFast.id), 'fsck')
    expect(fs.existsSync(expectedDirectory('default', onFast.id))).toBe(false)

    // Values are coerced as Grape's HashOfIntegerValues does; storages left out weigh 0.
    res = await putWeights({ default: '100' })
    expect(res.body.repository_storages_weighted).toEqual({ default: 100, fast: 0 })
    const onDefault = await createProject({ name: 'Slow' })
    expect((await adminView(onDefault.id)).repository_storage).toBe('default')

    res = await putWeights({ default: 50, fast: 50 })
    expect(res.body.repository_storages_weighted).toEqual({ default: 50, fast: 50 })
    const used = new Set<string>()
    for (let i = 0; i < 24; i += 1) used.add((await adminView((await createProject({ name: `Mixed ${i}` })).id)).repository_storage)
    expect([...used].sort()).toEqual(['default', 'fast'])
    await putWeights({ default: 100 })
  })

  test('an administrator may choose the storage; others cannot; unknown storages are refused', async () => {
    const chosen = await createProject({ name: 'Chosen', repository_storage: 'fast' }, server.rootToken)
    expect(chosen.repository_storage).toBe('fast')
    git(expectedDirectory('fast', chosen.id), 'fsck')

    const ignored = await createProject({ name: 'Ignored', repository_storage: 'fast' })
    expect((await adminView(ignored.id)).repository_storage).toBe('default')
    expect(fs.existsSync(expectedDirectory('default', ignored.id))).toBe(true)

    const before = await projectCount()
    const res = await request('POST', '/api/v4/projects', {
      token: server.rootToken,
      body: { name: 'Nowhere', repository_storage: 'slow' },
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ message: { repository_storage: ['is not included in the list'] } })
    expect(await projectCount()).toBe(before)
  })

  test('changing repository_storage does not point the project away from its repository (a storage move does that)', async () => {
    const project = await createProject({ name: 'Staying' })
    let res = await request('PUT', `/api/v4/projects/${project.id}`, { token: server.rootToken, body: { repository_storage: 'fast' } })
    expect(res.status, res.text).toBe(200)
    expect(res.body.repository_storage).toBe('default')
    expect((await adminView(project.id)).repository_storage).toBe('default')
    git(expectedDirectory('default', project.id), 'fsck')
    res = await request('PUT', `/api/v4/projects/${project.id}`, { token: server.rootToken, body: { repository_storage: 'slow' } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ message: { repository_storage: ['is not included in the list'] } })
  })

  test('repository_storages_weighted: GitLab’s validation errors, nothing changed', async () => {
    let res = await putWeights({ default: 101, slow: 5, other: 1, fast: true, big: -1 })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      message: {
        repository_storages_weighted: [
          "can't include: slow, other, big",
          "value for 'default' must be between 0 and 100",
          "value for 'fast' must be an integer",
          "value for 'big' must be between 0 and 100",
        ],
      },
    })
    res = await putWeights('heavy')
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error: 'repository_storages_weighted is invalid' })
    const current = await request('GET', SETTINGS, { token: server.rootToken })
    expect(current.body.repository_storages_weighted).toEqual({ default: 100, fast: 0 })
  })
})

test('deleting a project removes its repository', async () => {
  const project = await createProject({ name: 'Doomed', initialize_with_readme: true })
  const directory = expectedDirectory('default', project.id)
  expect(fs.existsSync(directory)).toBe(true)
  const res = await request('DELETE', `/api/v4/projects/${project.id}`, { token: annaToken })
  expect(res.status).toBe(202)
  // The deletion job removes it.
  expect(fs.existsSync(directory)).toBe(true)
  await server.runJobs()
  expect(fs.existsSync(directory)).toBe(false)
  expect(fs.existsSync(path.join(storageRoot('default'), '@hashed'))).toBe(true)
})
