import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { addTestMember, createTestGroup, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { jobHandlers } from '../../background.js'
import { anonymous } from '../../core/caller.js'
import { createRepository, repositoryDirectory, type RepositoryKind } from '../repositories/index.js'
import { buildContext } from '../../build-context.js'

let server: TestServer
let request: ReturnType<typeof client>
let anna: User
let annaToken: string

async function createProject(body: Record<string, unknown>) {
  const res = await request('POST', '/api/v4/projects', { token: annaToken, body: { initialize_with_readme: true, ...body } })
  expect(res.status, res.text).toBe(201)
  return res.body as { id: number; path_with_namespace: string }
}

/** Makes a repository of any kind on the default storage, as its feature would. */
async function makeRepository(id: number, kind: RepositoryKind): Promise<string> {
  return createRepository(server.config, { storage: 'default', projectId: id, kind, defaultBranch: 'main', objectFormat: 'sha1' })
}

async function insertSnippet(projectId: number): Promise<number> {
  const now = new Date().toISOString()
  const row = await server.database.db
    .insertInto('snippets')
    .values({ title: 'Note', author_id: anna.id, project_id: projectId, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow()
  return Number(row.id)
}

/** Runs a job's handler directly, as a second worker would after a crash between doing and recording. */
async function runHandlerAgain(kind: string, payload: unknown) {
  const handler = jobHandlers.find((h) => h.job.kind === kind)!
  const silent = { info() {}, warn() {}, error() {}, debug() {} }
  const ctx = await buildContext(server.app.parts, anonymous, silent)
  await handler.run({ ...ctx, job: { id: 0, kind, attempt: 2 }, signal: new AbortController().signal }, payload)
}

async function jobStates() {
  return server.database.db
    .selectFrom('jobs')
    .select(['kind', 'state', 'attempts'])
    .where('kind', 'in', ['projects.delete', 'groups.delete'])
    .execute()
}

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  anna = await createTestUser(server.database.db, { username: 'anna' })
  annaToken = (await createTestToken(server.database.db, anna)).value
})

afterAll(async () => {
  await server.close()
})

describe('project deletion runs as a job', () => {
  test('the project, its wiki and its snippets lose their repositories, then the rows go; a second run changes nothing', async () => {
    const project = await createProject({ name: 'Doomed' })
    const directory = repositoryDirectory(server.config, 'default', project.id)
    const wiki = await makeRepository(project.id, 'project-wiki')
    const snippetId = await insertSnippet(project.id)
    const snippet = await makeRepository(snippetId, 'snippet')
    for (const dir of [directory, wiki, snippet]) expect(fs.existsSync(dir)).toBe(true)

    const res = await request('DELETE', `/api/v4/projects/${project.id}`, { token: annaToken })
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ message: '202 Accepted' })
    expect(await jobStates()).toEqual([{ kind: 'projects.delete', state: 'queued', attempts: 0 }])
    // Hidden at once, though nothing is removed yet; its path stays taken until the job is done, as in GitLab.
    expect((await request('GET', `/api/v4/projects/${project.id}`, { token: annaToken })).status).toBe(404)
    const again = await request('POST', '/api/v4/projects', { token: annaToken, body: { name: 'Doomed' } })
    expect(again.status).toBe(400)
    for (const dir of [directory, wiki, snippet]) expect(fs.existsSync(dir)).toBe(true)

    expect(await server.runJobs()).toBe(1)
    expect(await jobStates()).toEqual([{ kind: 'projects.delete', state: 'done', attempts: 1 }])
    for (const dir of [directory, wiki, snippet]) expect(fs.existsSync(dir)).toBe(false)
    expect(await server.database.db.selectFrom('projects').select('id').where('id', '=', project.id).execute()).toEqual([])
    expect(await server.database.db.selectFrom('snippets').select('id').where('id', '=', snippetId).execute()).toEqual([])

    await runHandlerAgain('projects.delete', { projectId: project.id })
    const recreated = await request('POST', '/api/v4/projects', { token: annaToken, body: { name: 'Doomed' } })
    expect(recreated.status).toBe(201)
  })

  test('a run that stopped after removing the repository finishes on the next run', async () => {
    const project = await createProject({ name: 'Halfway' })
    const directory = repositoryDirectory(server.config, 'default', project.id)
    expect((await request('DELETE', `/api/v4/projects/${project.id}`, { token: annaToken })).status).toBe(202)
    // The first run removed the repository and died before the rows went.
    fs.rmSync(directory, { recursive: true })
    expect(await server.runJobs()).toBe(1)
    expect(await server.database.db.selectFrom('projects').select('id').where('id', '=', project.id).execute()).toEqual([])
  })
})

describe('group deletion runs as a job', () => {
  test('projects of the group and its subgroups, and the groups’ wikis, lose their repositories; then the rows go', async () => {
    const top = await createTestGroup(server.database.db, { path: 'top' })
    const sub = await createTestGroup(server.database.db, { path: 'sub', parent: top })
    await addTestMember(server.database.db, { user: anna, group: top, accessLevel: 50 })
    const upper = await createProject({ name: 'Upper', namespace_id: top.id })
    const lower = await createProject({ name: 'Lower', namespace_id: sub.id })
    const topWiki = await makeRepository(top.id, 'group-wiki')
    const subWiki = await makeRepository(sub.id, 'group-wiki')
    await server.database.db
      .updateTable('namespaces')
      .set({ wiki_repository_storage: 'default' })
      .where('id', 'in', [top.id, sub.id])
      .execute()
    const repositories = [
      repositoryDirectory(server.config, 'default', upper.id),
      repositoryDirectory(server.config, 'default', lower.id),
      topWiki,
      subWiki,
    ]
    for (const dir of repositories) expect(fs.existsSync(dir)).toBe(true)

    const basicAuth = { authorization: `Basic ${Buffer.from(`anna:${annaToken}`).toString('base64')}` }
    const before = await request('GET', `/${lower.path_with_namespace}.git/info/refs?service=git-upload-pack`, { headers: basicAuth })
    expect(before.status).toBe(200)

    const res = await request('DELETE', `/api/v4/groups/${top.id}`, { token: annaToken })
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ message: '202 Accepted' })
    for (const path of ['top', 'top%2Fsub']) expect((await request('GET', `/api/v4/groups/${path}`, { token: annaToken })).status).toBe(404)
    for (const project of [upper, lower]) {
      expect((await request('GET', `/api/v4/projects/${project.id}`, { token: annaToken })).status).toBe(404)
      const refs = await request('GET', `/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`, { headers: basicAuth })
      expect(refs.status).toBe(404)
    }
    for (const dir of repositories) expect(fs.existsSync(dir)).toBe(true)

    expect(await server.runJobs()).toBe(1)
    for (const dir of repositories) expect(fs.existsSync(dir)).toBe(false)
    const rows = await server.database.db.selectFrom('namespaces').select('id').where('id', 'in', [top.id, sub.id]).execute()
    expect(rows).toEqual([])
    await runHandlerAgain('groups.delete', { groupId: top.id })
  })
})

describe('user deletion', () => {
  test('the repositories of the user’s personal projects and snippets are removed by a job after the rows go', async () => {
    const bob = await createTestUser(server.database.db, { username: 'bob' })
    const bobToken = (await createTestToken(server.database.db, bob)).value
    const created = await request('POST', '/api/v4/projects', { token: bobToken, body: { name: 'Mine', initialize_with_readme: true } })
    expect(created.status).toBe(201)
    const directory = repositoryDirectory(server.config, 'default', created.body.id)
    const now = new Date().toISOString()
    const snippet = await server.database.db
      .insertInto('snippets')
      .values({ title: 'Personal', author_id: bob.id, project_id: null, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow()
    const snippetDirectory = await makeRepository(Number(snippet.id), 'snippet')

    expect((await request('DELETE', `/api/v4/users/${bob.id}`, { token: server.rootToken })).status).toBe(204)
    expect(await server.database.db.selectFrom('projects').select('id').where('id', '=', created.body.id).execute()).toEqual([])
    expect(fs.existsSync(directory)).toBe(true)
    expect(await server.runJobs()).toBe(1)
    expect(fs.existsSync(directory)).toBe(false)
    expect(fs.existsSync(snippetDirectory)).toBe(false)
  })
})
