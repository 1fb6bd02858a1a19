import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { createTestGroup, createTestToken, createTestUser } from '../../testing/factories.js'
import { GitClient, repoUrl } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createRepository, git, hashedRepositoryPath } from '../repositories/index.js'
import { beginRepositoryPush } from './index.js'

let server: TestServer
let request: ReturnType<typeof client>
let admin: InstanceType<typeof Gitlab>
let userToken: string
let storageRoots: { default: string; other: string }

const gitClient = new GitClient()
// Moves run real git over several repositories; a busy machine needs more than the default per test.
vi.setConfig({ testTimeout: 90_000 })
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

function storagesEnv(): { env: Record<string, string>; roots: { default: string; other: string } } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-storages-'))
  const roots = { default: path.join(base, 'one'), other: path.join(base, 'two') }
  return { env: { SVC_STORAGES: `default=${roots.default},other=${roots.other}` }, roots }
}

beforeAll(async () => {
  const { env, roots } = storagesEnv()
  storageRoots = roots
  server = await startTestServer(env)
  request = client(server.url)
  admin = new Gitlab({ host: server.url, token: server.rootToken })
  const user = await createTestUser(server.database.db, { username: 'mover' })
  userToken = (await createTestToken(server.database.db, user)).value
})

afterAll(async () => {
  await server.close()
  gitClient.remove()
  fs.rmSync(path.dirname(storageRoots.default), { recursive: true, force: true })
})

async function createProject(name: string): Promise<Record<string, any>> {
  const res = await request('POST', '/api/v4/projects', { token: server.rootToken, body: { name, initialize_with_readme: true } })
  expect(res.status, res.text).toBe(201)
  return res.body as Record<string, any>
}

function repositoryPath(storage: 'default' | 'other', id: number, kind: Parameters<typeof hashedRepositoryPath>[1] = 'project') {
  return path.join(storageRoots[storage], hashedRepositoryPath(id, kind))
}

async function refsOf(directory: string): Promise<string> {
  return git(['for-each-ref', '--format=%(objectname) %(refname)'], { gitDir: directory })
}

/** Clones the project as root, commits a file and pushes it; answers the push's result. */
async function pushCommit(fullPath: string, file: string) {
  const { run, dir } = await gitClient.clone(repoUrl(server.url, fullPath, 'root', server.rootToken))
  expect(run.code, run.stderr).toBe(0)
  fs.writeFileSync(path.join(dir, file), `${file}\n`)
  await gitClient.ok(dir, 'add', file)
  await gitClient.ok(dir, 'commit', '--quiet', '-m', `Add ${file}`)
  return gitClient.run(dir, 'push', 'origin', 'HEAD')
}

function identity(project: Record<string, any>) {
  return {
    id: project.id,
    description: project.description,
    name: project.name,
    name_with_namespace: project.name_with_namespace,
    path: project.path,
    path_with_namespace: project.path_with_namespace,
    created_at: project.created_at,
  }
}

async function projectRow(id: number) {
  return server.database.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

describe('moving a project repository', () => {
  test('copies, verifies, switches and removes the source; pushes wait for the move, fetches go on', async () => {
    const project = await createProject('Traveller')
    expect((await pushCommit(project.path_with_namespace, 'one.txt')).code).toBe(0)
    // The project's wiki repository travels with it.
    const wiki = await createRepository(server.config, {
      storage: 'default',
      projectId: project.id,
      kind: 'project-wiki',
      defaultBranch: 'main',
      objectFormat: 'sha1',
    })
    const source = repositoryPath('default', project.id)
    const refsBefore = await refsOf(source)

    const res = await request('POST', `/api/v4/projects/${project.id}/repository_storage_moves`, {
      token: server.rootToken,
      body: { destination_storage_name: 'other' },
    })
    expect(res.status, res.text).toBe(201)
    expect(Object.keys(res.body)).toEqual([
      'id',
      'created_at',
      'state',
      'source_storage_name',
      'destination_storage_name',
      'error_message',
      'project',
    ])
    expect(res.body).toEqual({
      id: expect.any(Number),
      created_at: expect.stringMatching(ISO),
      state: 'scheduled',
      source_storage_name: 'default',
      destination_storage_name: 'other',
      error_message: null,
      project: identity(project),
    })
    const moveId = res.body.id as number
    expect((await projectRow(project.id)).repository_read_only).toBe(1)

    // While scheduled: a push is refused in GitLab's words, a clone still works.
    const refused = await pushCommit(project.path_with_namespace, 'two.txt')
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('The repository is temporarily read-only. Please try again later.')
    const info = await request('GET', `/${project.path_with_namespace}.git/info/refs?service=git-receive-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`root:${server.rootToken}`).toString('base64')}` },
    })
    expect(info.status).toBe(403)
    expect(info.text).toBe('The repository is temporarily read-only. Please try again later.')
    expect((await gitClient.clone(repoUrl(server.url, project.path_with_namespace, 'root', server.rootToken))).run.code).toBe(0)

    expect(await server.runJobs()).toBeGreaterThanOrEqual(1)

    const shown = await request('GET', `/api/v4/project_repository_storage_moves/${moveId}`, { token: server.rootToken })
    expect(shown.status).toBe(200)
    expect(shown.body).toEqual({ ...res.body, state: 'finished' })
    const row = await projectRow(project.id)
    expect(row).toMatchObject({ repository_storage: 'other', repository_read_only: 0 })
    const destination = repositoryPath('other', project.id)
    expect(fs.existsSync(source)).toBe(false)
    expect(fs.existsSync(wiki)).toBe(false)
    expect(fs.existsSync(repositoryPath('other', project.id, 'project-wiki'))).toBe(true)
    expect(fs.existsSync(`${destination}.moving`)).toBe(false)
    expect(await refsOf(destination)).toBe(refsBefore)
    await git(['fsck', '--no-progress'], { gitDir: destination })
    const shownProject = await request('GET', `/api/v4/projects/${project.id}`, { token: server.rootToken })
    expect(shownProject.body.repository_storage).toBe('other')

    // Writable again: the push lands on the new storage, and a fresh clone has it.
    expect((await pushCommit(project.path_with_namespace, 'three.txt')).code).toBe(0)
    const { run, dir } = await gitClient.clone(repoUrl(server.url, project.path_with_namespace, 'root', server.rootToken))
    expect(run.code, run.stderr).toBe(0)
    expect(fs.readdirSync(dir).sort()).toEqual(['.git', 'README.md', 'one.txt', 'three.txt'])
  })

  test('the gitbeaker client schedules, lists and shows moves', async () => {
    const project = await createProject('Beaker Mover')
    const scheduled = await admin.ProjectRepositoryStorageMoves.schedule('default', {
      projectId: project.id,
      destinationStorageName: 'other',
    })
    expect(scheduled).toMatchObject({
      state: 'scheduled',
      source_storage_name: 'default',
      destination_storage_name: 'other',
      project: { id: project.id },
    })
    await server.runJobs()
    const ofProject = await admin.ProjectRepositoryStorageMoves.all({ projectId: project.id })
    expect(ofProject.map((move) => [move.id, move.state])).toEqual([[scheduled.id, 'finished']])
    const shown = await admin.ProjectRepositoryStorageMoves.show(scheduled.id, { projectId: project.id })
    expect(shown.state).toBe('finished')
    const everything = await admin.ProjectRepositoryStorageMoves.all()
    expect(everything.map((move) => move.id)).toContain(scheduled.id)
    // Back again, with the storage chosen by weight (only `default` has one).
    const back = await admin.ProjectRepositoryStorageMoves.schedule('other', { projectId: project.id, destinationStorageName: undefined })
    expect(back).toMatchObject({ source_storage_name: 'other', destination_storage_name: 'default' })
    await server.runJobs()
    expect((await projectRow(project.id)).repository_storage).toBe('default')
    expect(fs.existsSync(repositoryPath('other', project.id))).toBe(false)
    await git(['fsck', '--no-progress'], { gitDir: repositoryPath('default', project.id) })
  })

  test('lists newest first with pagination headers; a move of another project or type is not found', async () => {
    const project = await createProject('Listed')
    const first = await request('POST', `/api/v4/projects/${project.id}/repository_storage_moves`, {
      token: server.rootToken,
      body: { destination_storage_name: 'other' },
    })
    await server.runJobs()
    const second = await request('POST', `/api/v4/projects/${project.id}/repository_storage_moves`, {
      token: server.rootToken,
      body: { destination_storage_name: 'default' },
    })
    await server.runJobs()
    const list = await request('GET', `/api/v4/projects/${project.id}/repository_storage_moves?per_page=1`, { token: server.rootToken })
    expect(list.status).toBe(200)
    expect(list.body.map((move: any) => move.id)).toEqual([second.body.id])
    expect(list.headers).toMatchObject({ 'x-page': '1', 'x-per-page': '1', 'x-total': '2', 'x-total-pages': '2', 'x-next-page': '2' })
    const page2 = await request('GET', `/api/v4/projects/${project.id}/repository_storage_moves?per_page=1&page=2`, {
      token: server.rootToken,
    })
    expect(page2.body.map((move: any) => move.id)).toEqual([first.body.id])
    const all = await request('GET', '/api/v4/project_repository_storage_moves?per_page=100', { token: server.rootToken })
    const ids = all.body.map((move: any) => move.id as number)
    expect(ids.indexOf(second.body.id)).toBeLessThan(ids.indexOf(first.body.id))

    const other = await createProject('Not Listed')
    const notFound = await request('GET', `/api/v4/projects/${other.id}/repository_storage_moves/${first.body.id}`, {
      token: server.rootToken,
    })
    expect(notFound.status).toBe(404)
    expect(notFound.body).toEqual({ message: '404 Not found' })
    expect((await request('GET', '/api/v4/project_repository_storage_moves/999999', { token: server.rootToken })).body).toEqual({
      message: '404 Not found',
    })
    expect((await request('GET', '/api/v4/project_repository_storage_moves/abc', { token: server.rootToken })).body).toEqual({
      error: 'repository_storage_move_id is invalid',
    })
    expect((await request('GET', '/api/v4/projects/999999/repository_storage_moves', { token: server.rootToken })).body).toEqual({
      message: '404 Project Not Found',
    })
  })

  test('validation errors in GitLab words, and nothing changes', async () => {
    const project = await createProject('Validated')
    const post = (body: Record<string, unknown>) =>
      request('POST', `/api/v4/projects/${project.id}/repository_storage_moves`, { token: server.rootToken, body })
    const unknown = await post({ destination_storage_name: 'nowhere' })
    expect(unknown.status).toBe(400)
    expect(unknown.body).toEqual({ message: { destination_storage_name: ['is not included in the list'] } })
    const blank = await post({ destination_storage_name: '' })
    expect(blank.body).toEqual({ message: { destination_storage_name: ["can't be blank", 'is not included in the list'] } })
    expect((await projectRow(project.id)).repository_read_only).toBe(0)
    expect((await request('GET', `/api/v4/projects/${project.id}/repository_storage_moves`, { token: server.rootToken })).body).toEqual([])

    expect((await post({ destination_storage_name: 'other' })).status).toBe(201)
    // A second move while the first runs: the repository is read-only.
    const twice = await post({ destination_storage_name: 'other' })
    expect(twice.status).toBe(400)
    expect(twice.body).toEqual({ message: { project: ['is read-only'] } })
    await server.runJobs()
    expect((await projectRow(project.id)).repository_storage).toBe('other')
  })

  test('administrators only: 403 for users, 401 for anonymous callers', async () => {
    const project = await createProject('Guarded')
    const paths: [string, string][] = [
      ['GET', '/api/v4/project_repository_storage_moves'],
      ['GET', '/api/v4/project_repository_storage_moves/1'],
      ['POST', '/api/v4/project_repository_storage_moves'],
      ['GET', `/api/v4/projects/${project.id}/repository_storage_moves`],
      ['GET', `/api/v4/projects/${project.id}/repository_storage_moves/1`],
      ['POST', `/api/v4/projects/${project.id}/repository_storage_moves`],
    ]
    for (const [method, url] of paths) {
      const res = await request(method, url, { token: userToken, body: method === 'POST' ? {} : undefined })
      expect([url, res.status, res.body]).toEqual([url, 403, { message: '403 Forbidden' }])
      const anonymous = await request(method, url)
      expect([url, anonymous.status, anonymous.body]).toEqual([url, 401, { message: '401 Unauthorized' }])
    }
  })

  test('a move that fails verification ends failed, writable, with the repository untouched on its storage', async () => {
    const project = await createProject('Broken')
    const source = repositoryPath('default', project.id)
    // A missing object makes the copy fail `git fsck`.
    const objects = path.join(source, 'objects')
    const loose = fs.readdirSync(objects).filter((name) => /^[0-9a-f]{2}$/.test(name))
    const victim = path.join(objects, loose[0], fs.readdirSync(path.join(objects, loose[0]))[0])
    fs.rmSync(victim)
    const res = await request('POST', `/api/v4/projects/${project.id}/repository_storage_moves`, {
      token: server.rootToken,
      body: { destination_storage_name: 'other' },
    })
    await server.runJobs()
    const shown = await request('GET', `/api/v4/project_repository_storage_moves/${res.body.id}`, { token: server.rootToken })
    expect(shown.body.state).toBe('failed')
    expect(shown.body.error_message).toMatch(/^Failed to verify the copied repository: git fsck failed/)
    expect(shown.body.error_message.length).toBeLessThanOrEqual(256)
    expect(await projectRow(project.id)).toMatchObject({ repository_storage: 'default', repository_read_only: 0 })
    expect(fs.existsSync(source)).toBe(true)
    expect(fs.existsSync(repositoryPath('other', project.id))).toBe(false)
    expect(fs.existsSync(`${repositoryPath('other', project.id)}.moving`)).toBe(false)
  })

  test('a move resumes from any state it was left in', async () => {
    // Left in "started" with a half copy and a stale temporary directory on the destination: copied again.
    const started = await createProject('Resumed Started')
    expect((await pushCommit(started.path_with_namespace, 'a.txt')).code).toBe(0)
    const refs = await refsOf(repositoryPath('default', started.id))
    const one = await request('POST', `/api/v4/projects/${started.id}/repository_storage_moves`, {
      token: server.rootToken,
      body: { destination_storage_name: 'other' },
    })
    await server.database.db.updateTable('repository_storage_moves').set({ state: 3 }).where('id', '=', one.body.id).execute()
    const half = repositoryPath('other', started.id)
    fs.mkdirSync(path.join(half, 'objects'), { recursive: true })
    fs.writeFileSync(path.join(half, 'HEAD'), 'garbage')
    fs.mkdirSync(`${half}.moving`, { recursive: true })
    await server.runJobs()
    expect((await request('GET', `/api/v4/project_repository_storage_moves/${one.body.id}`, { token: server.rootToken })).body.state).toBe(
      'finished',
    )
    expect(await refsOf(half)).toBe(refs)
    await git(['fsck', '--no-progress'], { gitDir: half })
    expect(fs.existsSync(repositoryPath('default', started.id))).toBe(false)

    // Left in "replicated": the project already uses the destination, so only the source goes.
    const replicated = await createProject('Resumed Replicated')
    const two = await request('POST', `/api/v4/projects/${replicated.id}/repository_storage_moves`, {
      token: server.rootToken,
      body: { destination_storage_name: 'other' },
    })
    fs.mkdirSync(path.dirname(repositoryPath('other', replicated.id)), { recursive: true })
    fs.cpSync(repositoryPath('default', replicated.id), repositoryPath('other', replicated.id), { recursive: true })
    await server.database.db.updateTable('repository_storage_moves').set({ state: 6 }).where('id', '=', two.body.id).execute()
    await server.database.db
      .updateTable('projects')
      .set({ repository_storage: 'other', repository_read_only: 0 })
      .where('id', '=', replicated.id)
      .execute()
    await server.runJobs()
    expect((await request('GET', `/api/v4/project_repository_storage_moves/${two.body.id}`, { token: server.rootToken })).body.state).toBe(
      'finished',
    )
    expect(fs.existsSync(repositoryPath('default', replicated.id))).toBe(false)
    await git(['fsck', '--no-progress'], { gitDir: repositoryPath('other', replicated.id) })

    expect(await server.runJobs()).toBe(0)
  })

  test('a move waits for pushes that were running when the repository became read-only; a dead process is not waited for', async () => {
    const project = await createProject('Waited For')
    const source = repositoryPath('default', project.id)
    const endPush = await beginRepositoryPush(source)
    // A marker nobody refreshed for a minute: its process died.
    const stale = path.join(source, 'svc-pushes', 'dead-process')
    fs.writeFileSync(stale, '')
    fs.utimesSync(stale, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000))
    const move = await request('POST', `/api/v4/projects/${project.id}/repository_storage_moves`, {
      token: server.rootToken,
      body: { destination_storage_name: 'other' },
    })
    const jobs = server.runJobs()
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const stateOf = async () =>
      (await request('GET', `/api/v4/project_repository_storage_moves/${move.body.id}`, { token: server.rootToken })).body.state
    expect(await stateOf()).toBe('started')
    expect(fs.existsSync(repositoryPath('other', project.id))).toBe(false)
    await endPush()
    await jobs
    expect(await stateOf()).toBe('finished')
    // Markers are not copied.
    expect(fs.existsSync(path.join(repositoryPath('other', project.id), 'svc-pushes'))).toBe(false)
    await git(['fsck', '--no-progress'], { gitDir: repositoryPath('other', project.id) })
  })

  test('a source that changed after the copy is kept: cleanup failed', async () => {
    const project = await createProject('Late Push')
    const move = await request('POST', `/api/v4/projects/${project.id}/repository_storage_moves`, {
      token: server.rootToken,
      body: { destination_storage_name: 'other' },
    })
    fs.mkdirSync(path.dirname(repositoryPath('other', project.id)), { recursive: true })
    fs.cpSync(repositoryPath('default', project.id), repositoryPath('other', project.id), { recursive: true })
    await server.database.db.updateTable('repository_storage_moves').set({ state: 6 }).where('id', '=', move.body.id).execute()
    await server.database.db
      .updateTable('projects')
      .set({ repository_storage: 'other', repository_read_only: 0 })
      .where('id', '=', project.id)
      .execute()
    // A ref the copy does not have, as a push that landed late would leave.
    const source = repositoryPath('default', project.id)
    const head = (await git(['rev-parse', 'HEAD'], { gitDir: source })).trim()
    await git(['update-ref', 'refs/heads/late', head], { gitDir: source })
    await server.runJobs()
    const shown = await request('GET', `/api/v4/project_repository_storage_moves/${move.body.id}`, { token: server.rootToken })
    expect(shown.body).toMatchObject({
      state: 'cleanup failed',
      error_message: 'The source repository changed after it was copied; it was kept',
    })
    expect(fs.existsSync(source)).toBe(true)
  })
})

describe('moving every project of a storage', () => {
  test('POST /project_repository_storage_moves answers 202 and a job schedules one move per project', async () => {
    const first = await createProject('Bulk One')
    const second = await createProject('Bulk Two')
    // A project whose repository is read-only (being moved) is skipped, and logged.
    const busy = await createProject('Bulk Busy')
    await server.database.db.updateTable('projects').set({ repository_read_only: 1 }).where('id', '=', busy.id).execute()
    const res = await request('POST', '/api/v4/project_repository_storage_moves', {
      token: server.rootToken,
      body: { source_storage_name: 'default', destination_storage_name: 'other' },
    })
    expect(res.status).toBe(202)
    expect(res.text).toBe('{"message":"202 Accepted"}')
    await server.runJobs()
    for (const project of [first, second]) {
      expect(await projectRow(project.id)).toMatchObject({ repository_storage: 'other', repository_read_only: 0 })
      await git(['fsck', '--no-progress'], { gitDir: repositoryPath('other', project.id) })
    }
    const busyMoves = await request('GET', `/api/v4/projects/${busy.id}/repository_storage_moves`, { token: server.rootToken })
    expect(busyMoves.body).toEqual([])
    expect(await projectRow(busy.id)).toMatchObject({ repository_storage: 'default', repository_read_only: 1 })
    await server.database.db.updateTable('projects').set({ repository_read_only: 0 }).where('id', '=', busy.id).execute()

    const filtered = await request('GET', '/api/v4/projects?repository_storage=other&per_page=100', { token: server.rootToken })
    const ids = filtered.body.map((project: any) => project.id)
    expect(ids).toEqual(expect.arrayContaining([first.id, second.id]))
    expect(ids).not.toContain(busy.id)
    expect(filtered.body.every((project: any) => project.repository_storage === 'other')).toBe(true)
    // The filter is for administrators (GL `repository_storage` param of GET /projects); others see it ignored.
    const own = await request('POST', '/api/v4/projects', { token: userToken, body: { name: 'Own' } })
    const unfiltered = await request('GET', '/api/v4/projects?repository_storage=other&owned=true', { token: userToken })
    expect(unfiltered.body.map((project: any) => project.id)).toEqual([own.body.id])

    expect(await admin.ProjectRepositoryStorageMoves.schedule('other', { destinationStorageName: 'default' })).toEqual({
      message: '202 Accepted',
    })
    await server.runJobs()
    expect((await projectRow(first.id)).repository_storage).toBe('default')
  })

  test('storage names must be configured ones', async () => {
    const bad = await request('POST', '/api/v4/project_repository_storage_moves', {
      token: server.rootToken,
      body: { source_storage_name: 'nowhere', destination_storage_name: 'elsewhere' },
    })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({
      error: 'source_storage_name does not have a valid value, destination_storage_name does not have a valid value',
    })
    const missing = await request('POST', '/api/v4/project_repository_storage_moves', { token: server.rootToken, body: {} })
    expect(missing.status).toBe(400)
    expect(await server.runJobs()).toBe(0)
  })
})

describe('changing repository_storage of a project', () => {
  test('an administrator PUT schedules a move; the project switches once it ran', async () => {
    const project = await createProject('Edited Storage')
    const res = await request('PUT', `/api/v4/projects/${project.id}`, { token: server.rootToken, body: { repository_storage: 'other' } })
    expect(res.status, res.text).toBe(200)
    expect(res.body.repository_storage).toBe('default')
    const moves = await request('GET', `/api/v4/projects/${project.id}/repository_storage_moves`, { token: server.rootToken })
    expect(moves.body.map((move: any) => [move.source_storage_name, move.destination_storage_name, move.state])).toEqual([
      ['default', 'other', 'scheduled'],
    ])
    await server.runJobs()
    expect((await request('GET', `/api/v4/projects/${project.id}`, { token: server.rootToken })).body.repository_storage).toBe('other')
    await git(['fsck', '--no-progress'], { gitDir: repositoryPath('other', project.id) })
  })
})

describe('group repository storage moves', () => {
  test('do not exist on Free', async () => {
    const group = await createTestGroup(server.database.db, { path: 'free-group' })
    for (const [method, url] of [
      ['GET', '/api/v4/group_repository_storage_moves'],
      ['POST', '/api/v4/group_repository_storage_moves'],
      ['GET', '/api/v4/group_repository_storage_moves/1'],
      ['GET', `/api/v4/groups/${group.id}/repository_storage_moves`],
      ['POST', `/api/v4/groups/${group.id}/repository_storage_moves`],
      ['GET', `/api/v4/groups/${group.id}/repository_storage_moves/1`],
    ]) {
      for (const token of [server.rootToken, userToken, undefined]) {
        const res = await request(method, url, { token })
        expect([url, res.status, res.text]).toEqual([url, 404, '{"error":"404 Not Found"}'])
      }
    }
  })
})

describe('group repository storage moves on Premium', () => {
  let premium: TestServer
  let roots: { default: string; other: string }
  beforeAll(async () => {
    const storages = storagesEnv()
    roots = storages.roots
    premium = await startTestServer({ ...storages.env, SVC_TIER: 'premium' })
  })
  afterAll(async () => {
    await premium.close()
    fs.rmSync(path.dirname(roots.default), { recursive: true, force: true })
  })

  test("moves a group's wiki repository; a group without one just finishes", async () => {
    const call = client(premium.url)
    const db = premium.database.db
    const withWiki = await createTestGroup(db, { path: 'wiki-group', name: 'Wiki Group' })
    const wiki = await createRepository(premium.config, {
      storage: 'default',
      projectId: withWiki.id,
      kind: 'group-wiki',
      defaultBranch: 'main',
      objectFormat: 'sha1',
    })
    await db.updateTable('namespaces').set({ wiki_repository_storage: 'default' }).where('id', '=', withWiki.id).execute()

    const res = await call('POST', `/api/v4/groups/${withWiki.id}/repository_storage_moves`, {
      token: premium.rootToken,
      body: { destination_storage_name: 'other' },
    })
    expect(res.status, res.text).toBe(201)
    expect(Object.keys(res.body)).toEqual([
      'id',
      'created_at',
      'state',
      'source_storage_name',
      'destination_storage_name',
      'error_message',
      'group',
    ])
    expect(res.body).toEqual({
      id: expect.any(Number),
      created_at: expect.stringMatching(ISO),
      state: 'scheduled',
      source_storage_name: 'default',
      destination_storage_name: 'other',
      error_message: null,
      group: { id: withWiki.id, web_url: `${premium.url}/groups/wiki-group`, name: 'Wiki Group' },
    })
    const again = await call('POST', `/api/v4/groups/${withWiki.id}/repository_storage_moves`, {
      token: premium.rootToken,
      body: { destination_storage_name: 'other' },
    })
    expect(again.body).toEqual({ message: { group: ['is read-only'] } })
    await premium.runJobs()
    const shown = await call('GET', `/api/v4/groups/${withWiki.id}/repository_storage_moves/${res.body.id}`, { token: premium.rootToken })
    expect(shown.body.state).toBe('finished')
    expect(fs.existsSync(wiki)).toBe(false)
    await git(['fsck', '--no-progress'], { gitDir: path.join(roots.other, hashedRepositoryPath(withWiki.id, 'group-wiki')) })
    expect(
      await db
        .selectFrom('namespaces')
        .select(['wiki_repository_storage', 'wiki_repository_read_only'])
        .where('id', '=', withWiki.id)
        .executeTakeFirst(),
    ).toEqual({
      wiki_repository_storage: 'other',
      wiki_repository_read_only: 0,
    })

    // GL GroupWiki#repository_storage: without a wiki the source is the weighted pick, and the move has nothing to carry.
    const bare = await createTestGroup(db, { path: 'bare-group' })
    const beaker = new Gitlab({ host: premium.url, token: premium.rootToken })
    const scheduled = await beaker.GroupRepositoryStorageMoves.schedule('default', { groupId: bare.id, destinationStorageName: 'other' })
    expect(scheduled).toMatchObject({ state: 'scheduled', source_storage_name: 'default', group: { id: bare.id } })
    await premium.runJobs()
    expect((await beaker.GroupRepositoryStorageMoves.show(scheduled.id)).state).toBe('finished')
    expect(
      await db
        .selectFrom('namespaces')
        .select(['wiki_repository_storage', 'wiki_repository_read_only'])
        .where('id', '=', bare.id)
        .executeTakeFirst(),
    ).toEqual({
      wiki_repository_storage: null,
      wiki_repository_read_only: 0,
    })
    const all = await beaker.GroupRepositoryStorageMoves.all()
    expect(all.map((move) => move.id)).toEqual([scheduled.id, res.body.id])

    // Bulk: groups whose wiki is on the source.
    expect(await beaker.GroupRepositoryStorageMoves.schedule('other', { destinationStorageName: 'default' })).toEqual({
      message: '202 Accepted',
    })
    await premium.runJobs()
    const ofWikiGroup = await call('GET', `/api/v4/groups/${withWiki.id}/repository_storage_moves`, { token: premium.rootToken })
    expect(ofWikiGroup.body.map((move: any) => [move.destination_storage_name, move.state])).toEqual([
      ['default', 'finished'],
      ['other', 'finished'],
    ])
    expect(fs.existsSync(wiki)).toBe(true)

    const userToken = (await createTestToken(db, await createTestUser(db, { username: 'premium-user' }))).value
    const forbidden = await call('GET', '/api/v4/group_repository_storage_moves', { token: userToken })
    expect([forbidden.status, forbidden.body]).toEqual([403, { message: '403 Forbidden' }])
    const anonymous = await call('GET', `/api/v4/groups/${bare.id}/repository_storage_moves`)
    expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }])
    expect((await call('GET', '/api/v4/groups/999999/repository_storage_moves', { token: premium.rootToken })).body).toEqual({
      message: '404 Group Not Found',
    })
  })
})

describe('snippet repository storage moves', () => {
  test("moves a snippet's repository; its content reads from the new storage", async () => {
    const created = await request('POST', '/api/v4/snippets', {
      token: server.rootToken,
      body: { title: 'Moved snippet', file_name: 'hello.txt', content: 'hello\n', visibility: 'private' },
    })
    expect(created.status, created.text).toBe(201)
    const id = created.body.id as number
    const source = repositoryPath('default', id, 'snippet')
    const refs = await refsOf(source)

    const res = await request('POST', `/api/v4/snippets/${id}/repository_storage_moves`, {
      token: server.rootToken,
      body: { destination_storage_name: 'other' },
    })
    expect(res.status, res.text).toBe(201)
    expect(Object.keys(res.body)).toEqual([
      'id',
      'created_at',
      'state',
      'source_storage_name',
      'destination_storage_name',
      'error_message',
      'snippet',
    ])
    expect(res.body).toMatchObject({
      state: 'scheduled',
      source_storage_name: 'default',
      destination_storage_name: 'other',
      error_message: null,
    })
    const shownSnippet = await request('GET', `/api/v4/snippets/${id}`, { token: server.rootToken })
    const {
      id: _id,
      title,
      description,
      visibility,
      author,
      created_at,
      updated_at,
      project_id,
      web_url,
      raw_url,
      ssh_url_to_repo,
      http_url_to_repo,
    } = shownSnippet.body
    expect(res.body.snippet).toEqual({
      id,
      title,
      description,
      visibility,
      author,
      created_at,
      updated_at,
      project_id,
      web_url,
      raw_url,
      ssh_url_to_repo,
      http_url_to_repo,
    })
    const twice = await request('POST', `/api/v4/snippets/${id}/repository_storage_moves`, { token: server.rootToken, body: {} })
    expect([twice.status, twice.body]).toEqual([400, { message: { snippet: ['is read-only'] } }])

    await server.runJobs()
    const beaker = await admin.SnippetRepositoryStorageMoves.show(res.body.id, { snippetId: id })
    expect(beaker.state).toBe('finished')
    expect(fs.existsSync(source)).toBe(false)
    const destination = repositoryPath('other', id, 'snippet')
    expect(await refsOf(destination)).toBe(refs)
    await git(['fsck', '--no-progress'], { gitDir: destination })
    expect(
      await server.database.db
        .selectFrom('snippets')
        .select(['repository_storage', 'repository_read_only'])
        .where('id', '=', id)
        .executeTakeFirst(),
    ).toEqual({
      repository_storage: 'other',
      repository_read_only: 0,
    })
    const raw = await request('GET', `/api/v4/snippets/${id}/raw`, { token: server.rootToken })
    expect([raw.status, raw.text]).toEqual([200, 'hello\n'])

    const listed = await admin.SnippetRepositoryStorageMoves.all()
    expect(listed.map((move) => move.id)).toContain(res.body.id)
    expect(
      (await request('GET', `/api/v4/snippets/${id}/repository_storage_moves`, { token: server.rootToken })).body.map(
        (move: any) => move.id,
      ),
    ).toEqual([res.body.id])
    expect((await request('GET', '/api/v4/snippets/999999/repository_storage_moves', { token: server.rootToken })).body).toEqual({
      message: '404 Snippet Not Found',
    })
    const forbidden = await request('GET', '/api/v4/snippet_repository_storage_moves', { token: userToken })
    expect([forbidden.status, forbidden.body]).toEqual([403, { message: '403 Forbidden' }])

    // Bulk, back to default.
    const bulk = await request('POST', '/api/v4/snippet_repository_storage_moves', {
      token: server.rootToken,
      body: { source_storage_name: 'other', destination_storage_name: 'default' },
    })
    expect([bulk.status, bulk.text]).toEqual([202, '{"message":"202 Accepted"}'])
    await server.runJobs()
    expect(fs.existsSync(source)).toBe(true)
    expect(fs.existsSync(destination)).toBe(false)
    expect((await request('GET', `/api/v4/snippets/${id}/raw`, { token: server.rootToken })).text).toBe('hello\n')
  })
})
