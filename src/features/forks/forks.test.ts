import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { enqueueJob } from '../../jobs/index.js'
import { addTestMember, createTestGroup, createTestToken, createTestUser } from '../../testing/factories.js'
import { GitClient, repoUrl } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { repositoryDirectory } from '../repositories/index.js'
import { ForkRepository } from './jobs.js'

let server: TestServer
let request: ReturnType<typeof client>
let alice: User
let aliceToken: string
let bob: User
let bobToken: string
/** alice's public project with history, three branches and two tags, pushed through the server. */
let source: Record<string, any>

const gitClient = new GitClient()

async function createProject(body: Record<string, unknown>, token = aliceToken): Promise<Record<string, any>> {
  const res = await request('POST', '/api/v4/projects', { token, body })
  expect(res.status, res.text).toBe(201)
  return res.body as Record<string, any>
}

/** A working copy with several commits on main, branches feature-a and topic/b, an annotated and a light tag, pushed. */
async function pushHistory(fullPath: string, user: User, token: string): Promise<void> {
  const { run, dir } = await gitClient.clone(repoUrl(server.url, fullPath, user.username, token))
  expect(run.code, run.stderr).toBe(0)
  for (let i = 1; i <= 3; i++) {
    fs.writeFileSync(path.join(dir, `file${i}.txt`), `content ${i}\n`.repeat(100 * i))
    await gitClient.ok(dir, 'add', '.')
    await gitClient.ok(dir, 'commit', '--quiet', '-m', `Commit ${i}`)
  }
  await gitClient.ok(dir, 'tag', '-a', 'v1.0', '-m', 'Release 1.0')
  await gitClient.ok(dir, 'checkout', '--quiet', '-b', 'feature-a')
  fs.writeFileSync(path.join(dir, 'feature.txt'), 'feature\n')
  await gitClient.ok(dir, 'add', '.')
  await gitClient.ok(dir, 'commit', '--quiet', '-m', 'Feature A')
  await gitClient.ok(dir, 'tag', 'light')
  await gitClient.ok(dir, 'checkout', '--quiet', '-b', 'topic/b', 'main')
  fs.rmSync(path.join(dir, 'file1.txt'))
  await gitClient.ok(dir, 'commit', '--quiet', '-am', 'Topic B')
  await gitClient.ok(dir, 'push', '--quiet', 'origin', '--all')
  await gitClient.ok(dir, 'push', '--quiet', 'origin', '--tags')
}

function directoryOf(project: Record<string, any>, storage = 'default'): string {
  return repositoryDirectory(server.config, storage, project.id as number)
}

async function refsOf(directory: string, patterns: string[] = ['refs/heads/', 'refs/tags/']): Promise<string> {
  return gitClient.ok(directory, '--git-dir', directory, 'for-each-ref', '--format=%(objectname) %(objecttype) %(refname)', ...patterns)
}

async function fsck(directory: string): Promise<void> {
  const result = await gitClient.run(directory, '--git-dir', directory, 'fsck', '--strict', '--no-dangling')
  expect(result.code, result.stderr + result.stdout).toBe(0)
}

async function fork(id: number | string, body: Record<string, unknown> = {}, token = aliceToken) {
  return request('POST', `/api/v4/projects/${encodeURIComponent(String(id))}/fork`, { token, body })
}

async function forked(id: number | string, body: Record<string, unknown> = {}, token = aliceToken): Promise<Record<string, any>> {
  const res = await fork(id, body, token)
  expect(res.status, res.text).toBe(201)
  return res.body as Record<string, any>
}

async function show(id: number, token = aliceToken): Promise<Record<string, any>> {
  const res = await request('GET', `/api/v4/projects/${id}`, { token })
  expect(res.status, res.text).toBe(200)
  return res.body as Record<string, any>
}

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  alice = await createTestUser(db, { username: 'alice', name: 'Alice' })
  aliceToken = (await createTestToken(db, alice, { scopes: ['api', 'write_repository'] })).value
  bob = await createTestUser(db, { username: 'bob', name: 'Bob' })
  bobToken = (await createTestToken(db, bob)).value
  source = await createProject({
    name: 'Upstream',
    path: 'upstream',
    visibility: 'public',
    description: 'The source',
    initialize_with_readme: true,
  })
  await pushHistory(source.path_with_namespace as string, alice, aliceToken)
}, 60_000)

afterAll(async () => {
  await server.close()
  gitClient.remove()
})

describe('POST /projects/:id/fork', () => {
  test('answers 201 at once with the scheduled fork, and the job copies every branch and tag', async () => {
    const res = await fork(source.id, {}, bobToken)
    expect(res.status, res.text).toBe(201)
    const body = res.body as Record<string, any>
    expect(body).toMatchObject({
      name: 'Upstream',
      path: 'upstream',
      path_with_namespace: 'bob/upstream',
      description: 'The source',
      visibility: 'public',
      import_status: 'scheduled',
      empty_repo: true,
      default_branch: 'main',
      readme_url: null,
      namespace: { id: expect.any(Number), path: 'bob', kind: 'user', full_path: 'bob' },
      owner: { username: 'bob' },
      mr_default_target_self: false,
      forks_count: 0,
      forked_from_project: {
        id: source.id,
        path_with_namespace: 'alice/upstream',
        name: 'Upstream',
        forks_count: 1,
        default_branch: 'main',
      },
    })
    expect(body.import_error).toBeNull()
    // The 201 body is the Project entity exactly as GET /projects/:id shows it, without the caller's permissions.
    const shown = await show(body.id as number, bobToken)
    delete shown.permissions
    expect(body).toEqual(shown)
    expect(fs.existsSync(directoryOf(body))).toBe(false)

    expect(await server.runJobs()).toBeGreaterThanOrEqual(1)
    const finished = await show(body.id as number, bobToken)
    expect(finished).toMatchObject({
      import_status: 'finished',
      import_error: null,
      empty_repo: false,
      default_branch: 'main',
      readme_url: `${server.url}/bob/upstream/-/blob/main/README.md`,
    })
    const target = directoryOf(body)
    expect(await refsOf(target)).toBe(await refsOf(directoryOf(source)))
    expect((await refsOf(target)).split('\n').filter(Boolean)).toHaveLength(5)
    expect((await gitClient.ok(target, '--git-dir', target, 'symbolic-ref', 'HEAD')).trim()).toBe('refs/heads/main')
    await fsck(target)
    // Same storage: the fork's object files are the source's, hard-linked.
    const packs = fs.readdirSync(path.join(target, 'objects', 'pack')).filter((name) => name.endsWith('.pack'))
    const loose = fs.readdirSync(path.join(target, 'objects')).filter((name) => /^[0-9a-f]{2}$/.test(name))
    const sample = packs.length ? path.join(target, 'objects', 'pack', packs[0]) : path.join(target, 'objects', loose[0])
    expect(fs.statSync(sample).nlink).toBeGreaterThan(1)

    // The fork clones over HTTP like any project.
    const { run, dir } = await gitClient.clone(repoUrl(server.url, 'bob/upstream'))
    expect(run.code, run.stderr).toBe(0)
    expect(fs.readFileSync(path.join(dir, 'file3.txt'), 'utf8')).toBe('content 3\n'.repeat(300))
  })

  test('a rerun of a finished fork job changes nothing, and an interrupted copy is started over', async () => {
    const body = await forked(source.id, { path: 'rerun', name: 'Rerun' })
    const target = directoryOf(body)
    // A copy a crash left behind beside the target is removed by the next run.
    fs.mkdirSync(path.dirname(target), { recursive: true })
    const leftover = `${target}.fork-deadbeef0000`
    fs.mkdirSync(path.join(leftover, 'objects'), { recursive: true })
    fs.writeFileSync(path.join(leftover, 'objects', 'garbage'), 'partial')
    await server.runJobs()
    expect(fs.existsSync(leftover)).toBe(false)
    await fsck(target)
    const refs = await refsOf(target)
    expect(refs).toBe(await refsOf(directoryOf(source)))
    expect((await show(body.id as number)).import_status).toBe('finished')

    // The same job again (a crash between copying and recording): the fork stays as it is.
    const before = fs.statSync(path.join(target, 'HEAD')).ino
    await enqueueJob(server.database.db, ForkRepository, { projectId: body.id as number, branch: null })
    expect(await server.runJobs()).toBe(1)
    expect(fs.statSync(path.join(target, 'HEAD')).ino).toBe(before)
    expect(await refsOf(target)).toBe(refs)

    // A crash after the rename but before "finished" was recorded: the next run keeps the repository and finishes.
    await server.database.db.updateTable('projects').set({ import_status: 'started' }).where('id', '=', body.id).execute()
    await enqueueJob(server.database.db, ForkRepository, { projectId: body.id as number, branch: null })
    await server.runJobs()
    expect((await show(body.id as number)).import_status).toBe('finished')
    expect(fs.statSync(path.join(target, 'HEAD')).ino).toBe(before)
  })

  test('the fork stays whole when the source repository is gone', async () => {
    const upstream = await createProject({ name: 'Short lived', visibility: 'public', initialize_with_readme: true })
    await pushHistory(upstream.path_with_namespace as string, alice, aliceToken)
    const body = await forked(upstream.id, {}, bobToken)
    await server.runJobs()
    const expected = await refsOf(directoryOf(upstream))
    fs.rmSync(directoryOf(upstream), { recursive: true, force: true })
    await fsck(directoryOf(body))
    expect(await refsOf(directoryOf(body))).toBe(expected)
  })

  test('branches forks that branch alone, as the default branch; a missing one is 404', async () => {
    const body = await forked(source.id, { branches: 'feature-a', path: 'only-a', name: 'Only A' })
    expect(body).toMatchObject({ import_status: 'scheduled', default_branch: 'feature-a' })
    await server.runJobs()
    const target = directoryOf(body)
    const sourceRefs = await refsOf(directoryOf(source), ['refs/heads/feature-a'])
    expect(await refsOf(target)).toBe(sourceRefs)
    expect((await gitClient.ok(target, '--git-dir', target, 'symbolic-ref', 'HEAD')).trim()).toBe('refs/heads/feature-a')
    await fsck(target)
    expect(await show(body.id as number)).toMatchObject({ import_status: 'finished', default_branch: 'feature-a', empty_repo: false })

    for (const branches of ['nope', 'feature', 'topic', 'feature-a,main']) {
      const res = await fork(source.id, { branches, path: 'missing-branch' })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ message: '404 Source Branch Not Found' })
    }
    // Blank is "all branches" (GL `present?`).
    const all = await forked(source.id, { branches: '', path: 'all-branches', name: 'All branches' })
    await server.runJobs()
    expect(await refsOf(directoryOf(all))).toBe(await refsOf(directoryOf(source)))
  })

  test('name, path, description and mr_default_target_self are taken from the request; feature levels from the source', async () => {
    const upstream = await createProject({
      name: 'Featured',
      visibility: 'public',
      initialize_with_readme: true,
      issues_access_level: 'disabled',
      wiki_access_level: 'private',
      builds_access_level: 'private',
      snippets_access_level: 'disabled',
      suggestion_commit_message: 'Apply %{suggestions_count} suggestions',
      ci_config_path: 'ci/pipeline.yml',
    })
    const body = await forked(
      upstream.id,
      { name: 'My Copy', path: 'my-copy', description: 'Mine now', mr_default_target_self: true },
      bobToken,
    )
    expect(body).toMatchObject({
      name: 'My Copy',
      path: 'my-copy',
      path_with_namespace: 'bob/my-copy',
      description: 'Mine now',
      mr_default_target_self: true,
      issues_access_level: 'disabled',
      issues_enabled: false,
      wiki_access_level: 'private',
      builds_access_level: 'private',
      snippets_access_level: 'disabled',
      repository_access_level: 'enabled',
      forking_access_level: 'enabled',
      suggestion_commit_message: 'Apply %{suggestions_count} suggestions',
      ci_config_path: 'ci/pipeline.yml',
    })
    await server.runJobs()
    expect(await show(body.id as number, bobToken)).toMatchObject({
      import_status: 'finished',
      readme_url: expect.stringContaining('README.md'),
    })
  })

  test('into a group by namespace_id, namespace_path or the deprecated namespace, in that order of precedence', async () => {
    const db = server.database.db
    const team = await createTestGroup(db, { path: 'team', visibility: 'public' })
    await addTestMember(db, { user: bob, group: team, accessLevel: 30 })
    const byId = await forked(source.id, { namespace_id: team.id, namespace_path: 'no/such', namespace: 'nothing' }, bobToken)
    expect(byId.path_with_namespace).toBe('team/upstream')
    expect(byId.namespace).toMatchObject({ id: team.id, kind: 'group' })
    expect(byId.owner).toBeUndefined()
    const byPath = await forked(source.id, { namespace_path: 'TEAM', namespace: 'nothing', path: 'by-path', name: 'By path' }, bobToken)
    expect(byPath.path_with_namespace).toBe('team/by-path')
    const byOldId = await forked(source.id, { namespace: String(team.id), path: 'by-old-id', name: 'By old id' }, bobToken)
    expect(byOldId.path_with_namespace).toBe('team/by-old-id')
    const byOldPath = await forked(source.id, { namespace: 'team', path: 'by-old-path', name: 'By old path' }, bobToken)
    expect(byOldPath.path_with_namespace).toBe('team/by-old-path')
    await server.runJobs()
    for (const project of [byId, byPath, byOldId, byOldPath]) expect((await show(project.id as number)).import_status).toBe('finished')
  })

  test('visibility is the lowest of the source, the target namespace and the one asked for', async () => {
    const db = server.database.db
    const internalGroup = await createTestGroup(db, { visibility: 'internal' })
    const privateGroup = await createTestGroup(db, { visibility: 'private' })
    for (const group of [internalGroup, privateGroup]) await addTestMember(db, { user: bob, group, accessLevel: 40 })
    const internalSource = await createProject({ name: 'Inside', visibility: 'internal', initialize_with_readme: true })
    const cases: [Record<string, any>, Record<string, unknown>, string][] = [
      [source, { path: 'v1' }, 'public'],
      [source, { path: 'v2', visibility: 'private' }, 'private'],
      [source, { path: 'v3', visibility: 'internal' }, 'internal'],
      [source, { path: 'v4', namespace_id: internalGroup.id }, 'internal'],
      [source, { path: 'v5', namespace_id: internalGroup.id, visibility: 'public' }, 'internal'],
      [source, { path: 'v6', namespace_id: privateGroup.id }, 'private'],
      [internalSource, { path: 'v7' }, 'internal'],
      [internalSource, { path: 'v8', visibility: 'public' }, 'internal'],
      [internalSource, { path: 'v9', visibility: 'private' }, 'private'],
    ]
    for (const [upstream, body, expected] of cases) {
      const project = await forked(upstream.id, { name: body.path, ...body }, bobToken)
      expect(project.visibility, JSON.stringify(body)).toBe(expected)
    }
  })

  test('refusals: GitLab’s statuses and bodies, nothing created', async () => {
    const db = server.database.db
    const count = async () =>
      Number(
        (
          await db
            .selectFrom('projects')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const refused = async (id: unknown, body: Record<string, unknown>, token: string | undefined, status: number, expected: unknown) => {
      const res = await request('POST', `/api/v4/projects/${String(id)}/fork`, { token, body })
      expect([res.status, res.body], JSON.stringify(body)).toEqual([status, expected])
    }
    const carol = await createTestUser(db, { username: 'carol' })
    const carolToken = (await createTestToken(db, carol)).value
    const hidden = await createProject({ name: 'Hidden', visibility: 'private', initialize_with_readme: true })
    const noForks = await createProject({
      name: 'No forks',
      visibility: 'public',
      forking_access_level: 'disabled',
      initialize_with_readme: true,
    })
    const membersOnly = await createProject({
      name: 'Members only',
      visibility: 'public',
      forking_access_level: 'private',
      initialize_with_readme: true,
    })
    const guestOnly = await createTestGroup(db, { visibility: 'public' })
    await addTestMember(db, { user: carol, group: guestOnly, accessLevel: 10 })
    const secretGroup = await createTestGroup(db, { visibility: 'private' })
    const publicGroup = await createTestGroup(db, { visibility: 'public' })
    const privateMember = await createProject({ name: 'Guest here', visibility: 'private', initialize_with_readme: true })
    const privateRow = await db
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', privateMember.id as number)
      .executeTakeFirstOrThrow()
    await addTestMember(db, { user: carol, project: privateRow, accessLevel: 10 })
    const before = await count()

    await refused(source.id, {}, undefined, 401, { message: '401 Unauthorized' })
    await refused(hidden.id, {}, carolToken, 404, { message: '404 Project Not Found' })
    await refused(99999999, {}, carolToken, 404, { message: '404 Project Not Found' })
    // No fork permission is 404 without a resource name (spec §4.1): forking disabled, members-only forking, a mere Guest.
    await refused(noForks.id, {}, carolToken, 404, { message: '404 Not Found' })
    await refused(membersOnly.id, {}, carolToken, 404, { message: '404 Not Found' })
    await refused(privateMember.id, {}, carolToken, 404, { message: '404 Not Found' })
    await refused(source.id, { namespace_id: 99999999 }, carolToken, 404, { message: '404 Namespace Not Found' })
    await refused(source.id, { namespace_path: 'no/such/group' }, carolToken, 404, { message: '404 Namespace Not Found' })
    await refused(source.id, { namespace: 'no-such-group' }, carolToken, 404, { message: '404 Namespace Not Found' })
    await refused(source.id, { namespace_path: secretGroup.full_path }, carolToken, 404, { message: '404 Namespace Not Found' })
    // Reading a namespace takes membership, even of a public group; another user's namespace is theirs alone.
    await refused(source.id, { namespace_id: publicGroup.id }, carolToken, 404, { message: '404 Namespace Not Found' })
    await refused(source.id, { namespace_path: 'bob' }, carolToken, 404, { message: '404 Namespace Not Found' })
    await refused(source.id, { namespace_id: guestOnly.id }, carolToken, 404, { message: '404 Target Namespace Not Found' })
    // The namespace is judged before the branch, the branch before the target.
    await refused(source.id, { namespace_id: 99999999, branches: 'nope' }, carolToken, 404, { message: '404 Namespace Not Found' })
    await refused(source.id, { namespace_id: guestOnly.id, branches: 'nope' }, carolToken, 404, { message: '404 Source Branch Not Found' })
    // Taken name and path: 409 with the full messages (GL `conflict!(result.message)`).
    await refused(source.id, {}, aliceToken, 409, { message: ['Name has already been taken', 'Path has already been taken'] })
    await refused(source.id, { name: 'Other name' }, aliceToken, 409, { message: ['Path has already been taken'] })
    await refused(source.id, { path: '-bad-', name: 'Bad path' }, aliceToken, 409, {
      message: ["Path can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"],
    })
    // Bad parameters: Grape's 400s.
    await refused(source.id, { visibility: 'secret' }, carolToken, 400, { error: 'visibility does not have a valid value' })
    await refused(source.id, { namespace_id: 'team' }, carolToken, 400, { error: 'namespace_id is invalid' })
    await refused(source.id, { mr_default_target_self: 'maybe' }, carolToken, 400, { error: 'mr_default_target_self is invalid' })
    expect(await count()).toBe(before)
  })

  test('a user who may not create personal projects forks only into a group', async () => {
    const db = server.database.db
    const dora = await createTestUser(db, { username: 'dora', projects_limit: 0 })
    const doraToken = (await createTestToken(db, dora)).value
    const res = await fork(source.id, {}, doraToken)
    expect([res.status, res.body]).toEqual([
      409,
      { message: ['Limit reached Personal project creation is not allowed. Please contact your administrator with questions'] },
    ])
    const group = await createTestGroup(db)
    await addTestMember(db, { user: dora, group, accessLevel: 50 })
    const body = await forked(source.id, { namespace_path: group.full_path }, doraToken)
    expect(body.path_with_namespace).toBe(`${group.full_path}/upstream`)
  })

  test('a failed copy is recorded in import_status and import_error, which administrators and maintainers see', async () => {
    const upstream = await createProject({ name: 'Vanishing', visibility: 'public', initialize_with_readme: true })
    const body = await forked(upstream.id, {}, bobToken)
    // The source is removed before the job runs: forks lose their source with it.
    await server.database.db.deleteFrom('projects').where('id', '=', upstream.id).execute()
    await server.runJobs()
    const shown = await show(body.id as number, bobToken)
    expect(shown).toMatchObject({ import_status: 'failed', import_error: 'Source project cannot be found.', empty_repo: true })
    const res = await request('GET', `/api/v4/projects/${body.id}`, { token: aliceToken })
    expect(res.status).toBe(200)
    expect(res.body.import_status).toBe('failed')
    expect('import_error' in res.body).toBe(false)
  })
})

describe('forks on another storage', () => {
  let other: TestServer
  test('a private source is copied in full to the storage new projects go to; a public one stays on its storage', async () => {
    const storages = fs.mkdtempSync(path.join(server.config.dataDir, 'storages-'))
    other = await startTestServer({ SVC_STORAGES: `default=${storages}/a,second=${storages}/b` })
    try {
      const req = client(other.url)
      const db = other.database.db
      const erin = await createTestUser(db, { username: 'erin' })
      const erinToken = (await createTestToken(db, erin, { scopes: ['api', 'write_repository'] })).value
      const make = async (name: string, visibility: string) => {
        const res = await req('POST', '/api/v4/projects', { token: erinToken, body: { name, visibility, initialize_with_readme: true } })
        expect(res.status, res.text).toBe(201)
        return res.body as Record<string, any>
      }
      const closed = await make('Closed', 'private')
      const open = await make('Open', 'public')
      const { run, dir } = await gitClient.clone(repoUrl(other.url, closed.path_with_namespace as string, 'erin', erinToken))
      expect(run.code, run.stderr).toBe(0)
      fs.writeFileSync(path.join(dir, 'data.bin'), Buffer.alloc(200_000, 7))
      await gitClient.ok(dir, 'add', '.')
      await gitClient.ok(dir, 'commit', '--quiet', '-m', 'Data')
      await gitClient.ok(dir, 'tag', 'v2')
      await gitClient.ok(dir, 'push', '--quiet', 'origin', 'main', '--tags')
      const settings = await req('PUT', '/api/v4/application/settings', {
        token: other.rootToken,
        body: { repository_storages_weighted: { default: 0, second: 100 } },
      })
      expect(settings.status, settings.text).toBe(200)

      const closedFork = await req('POST', `/api/v4/projects/${closed.id}/fork`, {
        token: erinToken,
        body: { path: 'closed-fork', name: 'Closed fork' },
      })
      const openFork = await req('POST', `/api/v4/projects/${open.id}/fork`, {
        token: erinToken,
        body: { path: 'open-fork', name: 'Open fork' },
      })
      expect([closedFork.status, openFork.status]).toEqual([201, 201])
      expect(closedFork.body.repository_storage).toBeUndefined()
      await other.runJobs()
      const rows = await db
        .selectFrom('projects')
        .select(['id', 'repository_storage', 'import_status'])
        .where('id', 'in', [closedFork.body.id, openFork.body.id])
        .orderBy('id')
        .execute()
      expect(rows.map((r) => [r.repository_storage, r.import_status])).toEqual([
        ['second', 'finished'],
        ['default', 'finished'],
      ])
      const copied = repositoryDirectory(other.config, 'second', closedFork.body.id as number)
      const sourceDir = repositoryDirectory(other.config, 'default', closed.id as number)
      expect(await refsOf(copied)).toBe(await refsOf(sourceDir))
      await fsck(copied)
      const objectFiles = (root: string): string[] =>
        fs
          .readdirSync(root, { withFileTypes: true })
          .flatMap((e) => (e.isDirectory() ? objectFiles(path.join(root, e.name)) : [path.join(root, e.name)]))
      for (const file of objectFiles(path.join(copied, 'objects'))) expect(fs.statSync(file).nlink).toBe(1)
      const admin = await req('GET', `/api/v4/projects/${closedFork.body.id}`, { token: other.rootToken })
      expect(admin.body).toMatchObject({ repository_storage: 'second', import_status: 'finished', empty_repo: false })
    } finally {
      await other.close()
    }
  })
})
