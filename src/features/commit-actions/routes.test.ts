import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { ProjectRow } from '../../db/schema.js'
import { addTestMember } from '../../testing/factories.js'
import { GitClient } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import {
  addProjectMember,
  branchHead,
  createPerson,
  createRepositoryProject,
  gitInRepository,
  type Person,
} from '../../testing/repositories.js'

let server: TestServer
let request: ReturnType<typeof client>
let db: TestServer['database']['db']
const gitClient = new GitClient()

let sequence = 0

async function projectRow(id: number): Promise<ProjectRow> {
  return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

/** A public project with a README commit on main, made through the API by `who`. */
function repository(who: Person): Promise<Record<string, any>> {
  sequence += 1
  return createRepositoryProject(request, who, { name: `Repo ${sequence}` })
}

async function files(projectId: number, rev: string): Promise<string[]> {
  return (await gitInRepository(server, gitClient, projectId, 'ls-tree', '-r', '--format=%(objectmode) %(path)', rev)).trim().split('\n')
}

function commitCreate(who: Person, projectId: number, body: Record<string, unknown>) {
  return request('POST', `/projects/${projectId}/repository/commits`, { token: who.token, body })
}

const AT = '2026-11-27T10:00:00.000Z'
/** The same moment as a commit shows it: in the offset git recorded. */
const COMMIT_AT = '2026-11-27T10:00:00.000+00:00'
let owner: Person
let developer: Person
let reporter: Person

beforeAll(async () => {
  server = await startTestServer()
  server.freeze(new Date(AT))
  request = client(`${server.url}/api/v4`)
  db = server.database.db
  owner = await createPerson(db, 'olive', { email: 'olive@example.com' })
  developer = await createPerson(db, 'devon', { email: 'devon@example.com' })
  reporter = await createPerson(db, 'remy', { email: 'remy@example.com' })
})

afterAll(async () => {
  await server.close()
  gitClient.remove()
})

describe('POST /projects/:id/repository/commits', () => {
  test('gitbeaker commits every kind of action, and GitLab commit detail answers with stats', async () => {
    const project = await repository(owner)
    const api = new Gitlab({ host: server.url, token: owner.token })
    const before = await branchHead(server, gitClient, project.id)

    const first = (await api.Commits.create(project.id, 'main', 'Add files', [
      { action: 'create', filePath: 'docs/a.txt', content: 'one\ntwo\n' },
      { action: 'create', filePath: 'bin/blob', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' },
      { action: 'create', filePath: 'old.txt', content: 'moving\n' },
      { action: 'create', filePath: 'run.sh', content: 'echo hi\n' },
    ])) as unknown as Record<string, unknown>
    const firstSha = await branchHead(server, gitClient, project.id)
    expect(first).toEqual({
      id: firstSha,
      short_id: firstSha.slice(0, 8),
      created_at: COMMIT_AT,
      parent_ids: [before],
      title: 'Add files',
      message: 'Add files',
      author_name: 'Olive',
      author_email: 'olive@example.com',
      authored_date: COMMIT_AT,
      committer_name: 'Olive',
      committer_email: 'olive@example.com',
      committed_date: COMMIT_AT,
      trailers: {},
      extended_trailers: {},
      web_url: `${server.config.externalUrl}/${project.path_with_namespace}/-/commit/${firstSha}`,
      stats: { additions: 4, deletions: 0, total: 4 },
      status: null,
      project_id: project.id,
      last_pipeline: null,
    })

    const second = (await api.Commits.create(
      project.id,
      'main',
      'Change files\n\nwith a body',
      [
        { action: 'update', filePath: 'docs/a.txt', content: 'one\nTWO\n', lastCommitId: firstSha },
        { action: 'move', filePath: 'new.txt', previousPath: 'old.txt' },
        { action: 'delete', filePath: 'bin/blob' },
        { action: 'chmod', filePath: 'run.sh', execute_filemode: true } as never,
      ],
      { authorName: 'Ann Author', authorEmail: 'ann@example.com' },
    )) as unknown as Record<string, unknown>
    const secondSha = await branchHead(server, gitClient, project.id)
    expect(second).toMatchObject({
      id: secondSha,
      parent_ids: [firstSha],
      title: 'Change files',
      message: 'Change files\n\nwith a body',
      author_name: 'Ann Author',
      author_email: 'ann@example.com',
      committer_name: 'Olive',
      committer_email: 'olive@example.com',
      // A rename counts no lines; the binary file none either.
      stats: { additions: 1, deletions: 1, total: 2 },
    })
    // The answer is the commit as GET /repository/commits/:sha shows it.
    const shown = await request('GET', `/projects/${project.id}/repository/commits/${secondSha}`, { token: owner.token })
    expect(shown.status).toBe(200)
    expect(shown.body).toEqual(second)
    expect(await files(project.id, secondSha)).toEqual(['100644 README.md', '100644 docs/a.txt', '100644 new.txt', '100755 run.sh'])
    expect(await gitInRepository(server, gitClient, project.id, 'show', `${secondSha}:docs/a.txt`)).toBe('one\nTWO\n')
    expect(await gitInRepository(server, gitClient, project.id, 'show', `${secondSha}:new.txt`)).toBe('moving\n')
  })

  test('author names and emails lose what git refuses in an identity', async () => {
    const project = await repository(owner)
    const res = await commitCreate(owner, project.id, {
      branch: 'main',
      commit_message: 'Odd author',
      author_name: 'Mal <lory>\nInjected: yes',
      author_email: '<mal@example.com>\n',
      actions: [{ action: 'create', file_path: 'odd.txt', content: 'x' }],
    })
    expect(res.status, res.text).toBe(201)
    expect(res.body).toMatchObject({ author_name: 'Mal loryInjected: yes', author_email: 'mal@example.com' })
    const blank = await commitCreate(owner, project.id, {
      branch: 'main',
      commit_message: 'Blank author',
      author_name: '<>',
      actions: [{ action: 'create', file_path: 'blank.txt', content: 'x' }],
    })
    expect(blank.status, blank.text).toBe(201)
    expect(blank.body.author_name).toBe('Olive')
  })

  test("python-gitlab's request (a JSON body with actions as objects) works, and stats=false leaves stats out", async () => {
    const project = await repository(owner)
    const res = await commitCreate(owner, project.id, {
      branch: 'main',
      commit_message: 'From python-gitlab',
      actions: [{ action: 'create', file_path: 'py.txt', content: 'hello' }],
      stats: false,
    })
    expect(res.status, res.text).toBe(201)
    expect(res.headers['content-type']).toBe('application/json')
    const sha = await branchHead(server, gitClient, project.id)
    expect(Object.keys(res.body)).toEqual([
      'id',
      'short_id',
      'created_at',
      'parent_ids',
      'title',
      'message',
      'author_name',
      'author_email',
      'authored_date',
      'committer_name',
      'committer_email',
      'committed_date',
      'trailers',
      'extended_trailers',
      'web_url',
      'status',
      'project_id',
      'last_pipeline',
    ])
    expect(res.body.id).toBe(sha)
    expect(await gitInRepository(server, gitClient, project.id, 'show', `${sha}:py.txt`)).toBe('hello')
  })

  test('a form body with actions[][...] works too', async () => {
    const project = await repository(owner)
    const body = 'branch=main&commit_message=Form&actions[][action]=create&actions[][file_path]=f.txt&actions[][content]=x'
    const res = await request('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(res.status, res.text).toBe(201)
    expect(await gitInRepository(server, gitClient, project.id, 'show', 'main:f.txt')).toBe('x')
  })

  test('a new branch starts from start_branch or start_sha; force overwrites an existing one', async () => {
    const project = await repository(owner)
    const main = await branchHead(server, gitClient, project.id)
    const created = await commitCreate(owner, project.id, {
      branch: 'feature',
      start_branch: 'main',
      commit_message: 'On feature',
      actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }],
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body.parent_ids).toEqual([main])
    expect(await branchHead(server, gitClient, project.id)).toBe(main)

    const again = await commitCreate(owner, project.id, {
      branch: 'feature',
      start_branch: 'main',
      commit_message: 'Again',
      actions: [{ action: 'create', file_path: 'g.txt', content: 'g' }],
    })
    expect(again.status).toBe(400)
    expect(again.body).toEqual({ message: "A branch called 'feature' already exists. Switch to that branch in order to make changes" })

    const forced = await commitCreate(owner, project.id, {
      branch: 'feature',
      start_sha: main,
      force: true,
      commit_message: 'Forced',
      actions: [{ action: 'create', file_path: 'g.txt', content: 'g' }],
    })
    expect(forced.status, forced.text).toBe(201)
    expect(forced.body.parent_ids).toEqual([main])
    expect(await files(project.id, 'feature')).toEqual(['100644 README.md', '100644 g.txt'])

    // main is protected (Maintainers push, nobody force-pushes): replacing its history is refused in the hooks' words.
    const ahead = await commitCreate(owner, project.id, {
      branch: 'main',
      commit_message: 'Ahead',
      actions: [{ action: 'create', file_path: 'ahead.txt', content: 'a' }],
    })
    expect(ahead.status).toBe(201)
    const rewrite = await commitCreate(owner, project.id, {
      branch: 'main',
      start_sha: main,
      force: true,
      commit_message: 'Rewrite',
      actions: [{ action: 'create', file_path: 'h.txt', content: 'h' }],
    })
    expect(rewrite.status).toBe(400)
    expect(rewrite.body).toEqual({ message: 'You are not allowed to force push code to a protected branch on this project.' })
    expect(await branchHead(server, gitClient, project.id)).toBe(ahead.body.id)
  })

  test('an empty repository takes a first commit on any branch, and the project shows it', async () => {
    sequence += 1
    const made = await request('POST', '/projects', { token: owner.token, body: { name: `Empty ${sequence}` } })
    expect(made.status).toBe(201)
    expect(made.body.empty_repo).toBe(true)
    const res = await commitCreate(owner, made.body.id, {
      branch: 'main',
      commit_message: 'First',
      actions: [{ action: 'create', file_path: 'README.md', content: '# Hi\n' }],
    })
    expect(res.status, res.text).toBe(201)
    expect(res.body.parent_ids).toEqual([])
    const shown = await request('GET', `/projects/${made.body.id}`, { token: owner.token })
    expect(shown.body).toMatchObject({
      empty_repo: false,
      default_branch: 'main',
      readme_url: `${server.config.externalUrl}/${made.body.path_with_namespace}/-/blob/main/README.md`,
    })
  })

  test('start_project: a fork starts a branch from its upstream; any other project is refused', async () => {
    const upstream = await repository(owner)
    const forked = await request('POST', `/projects/${upstream.id}/fork`, { token: developer.token, body: { path: `fork-${upstream.id}` } })
    expect(forked.status, forked.text).toBe(201)
    await server.runJobs()
    const moved = await commitCreate(owner, upstream.id, {
      branch: 'main',
      commit_message: 'Only upstream has this',
      actions: [{ action: 'create', file_path: 'upstream.txt', content: 'u' }],
    })
    expect(moved.status).toBe(201)
    const body = {
      branch: 'from-upstream',
      start_branch: 'main',
      start_project: upstream.id,
      commit_message: 'On the fork',
      actions: [{ action: 'update', file_path: 'upstream.txt', content: 'forked' }],
    }
    const res = await commitCreate(developer, forked.body.id, body)
    expect(res.status, res.text).toBe(201)
    expect(res.body.parent_ids).toEqual([moved.body.id])
    expect(await gitInRepository(server, gitClient, forked.body.id, 'show', 'from-upstream:upstream.txt')).toBe('forked')

    const self = await commitCreate(developer, forked.body.id, { ...body, branch: 'self', start_project: forked.body.id })
    expect(self.status).toBe(403)
    expect(self.body).toEqual({
      message: `403 Forbidden - Project is not included in the fork network for ${forked.body.name_with_namespace}`,
    })
    const unrelated = await repository(owner)
    const other = await commitCreate(developer, forked.body.id, { ...body, branch: 'other', start_project: unrelated.id })
    expect(other.status).toBe(403)
    expect(other.body).toEqual({
      message: `403 Forbidden - Project is not included in the fork network for ${unrelated.name_with_namespace}`,
    })
  })

  test('a repository being moved to another storage takes no commit', async () => {
    const project = await repository(owner)
    const main = await branchHead(server, gitClient, project.id)
    await db.updateTable('projects').set({ repository_read_only: 1 }).where('id', '=', project.id).execute()
    const res = await commitCreate(owner, project.id, {
      branch: 'main',
      commit_message: 'During a move',
      actions: [{ action: 'create', file_path: 'm.txt', content: 'm' }],
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ message: 'The repository is temporarily read-only. Please try again later.' })
    expect(await branchHead(server, gitClient, project.id)).toBe(main)
  })

  test('a commit records a push event, as a push does', async () => {
    const project = await repository(owner)
    const before = await branchHead(server, gitClient, project.id)
    const res = await commitCreate(owner, project.id, {
      branch: 'main',
      commit_message: 'Pushed through the API',
      actions: [{ action: 'create', file_path: 'e.txt', content: 'e' }],
    })
    expect(res.status).toBe(201)
    const events = await request('GET', `/projects/${project.id}/events`, { token: owner.token })
    expect(events.status).toBe(200)
    expect(events.body[0]).toMatchObject({
      action_name: 'pushed to',
      author_id: owner.user.id,
      push_data: {
        commit_count: 1,
        action: 'pushed',
        ref_type: 'branch',
        commit_from: before,
        commit_to: res.body.id,
        ref: 'main',
        commit_title: 'Pushed through the API',
      },
    })
  })

  test("GitLab's refusals, each leaving the branch where it was", async () => {
    const project = await repository(owner)
    const setup = await commitCreate(owner, project.id, {
      branch: 'main',
      commit_message: 'Setup',
      actions: [{ action: 'create', file_path: 'dir/file.txt', content: 'x' }],
    })
    expect(setup.status).toBe(201)
    const main = await branchHead(server, gitClient, project.id)
    const refused = async (body: Record<string, unknown>, status: number, expected: unknown, who = owner) => {
      const res = await commitCreate(who, project.id, { branch: 'main', commit_message: 'No', ...body })
      expect(res.status, res.text).toBe(status)
      expect(res.body).toEqual(expected)
      expect(await branchHead(server, gitClient, project.id)).toBe(main)
    }
    const one = (action: Record<string, unknown>) => ({ actions: [action] })
    const message = (text: string) => ({ message: text })

    await refused(one({ action: 'create', file_path: 'README.md', content: 'x' }), 400, message('A file with this name already exists'))
    await refused(one({ action: 'create', file_path: 'dir', content: 'x' }), 400, message('A directory with this name already exists'))
    await refused(one({ action: 'create', file_path: 'README.md/x', content: 'x' }), 400, message('A file with this name already exists'))
    await refused(one({ action: 'update', file_path: 'nope.txt', content: 'x' }), 400, message("A file with this name doesn't exist"))
    await refused(one({ action: 'delete', file_path: 'dir' }), 400, message("A file with this name doesn't exist"))
    await refused(
      one({ action: 'move', file_path: 'a.txt', previous_path: 'nope.txt' }),
      400,
      message("A file with this name doesn't exist"),
    )
    await refused(
      one({ action: 'move', file_path: 'README.md', previous_path: 'dir/file.txt' }),
      400,
      message('A file with this name already exists'),
    )
    await refused(one({ action: 'chmod', file_path: 'nope', execute_filemode: true }), 400, message("A file with this name doesn't exist"))
    await refused(one({ action: 'create', file_path: '../x', content: 'x' }), 400, message('Path cannot include directory traversal'))
    await refused(one({ action: 'create', file_path: 'a/../../x', content: 'x' }), 400, message('Path cannot include directory traversal'))
    await refused(one({ action: 'create', file_path: '.git/config', content: 'x' }), 400, message("invalid path: '.git/config'"))
    await refused(one({ action: 'create', file_path: 'a/.GIT/hooks', content: 'x' }), 400, message("invalid path: 'a/.GIT/hooks'"))
    await refused(one({ action: 'create', file_path: '/etc/passwd', content: 'x' }), 400, message("invalid path: '/etc/passwd'"))
    await refused(one({ action: 'create', file_path: 'a//b', content: 'x' }), 400, message("invalid path: 'a//b'"))
    await refused(
      one({ action: 'create', file_path: 'b.bin', content: 'not base64!', encoding: 'base64' }),
      400,
      message('400 Bad request - actions[0][content] is not valid base64'),
    )
    // Two actions on one commit: the second sees the first.
    await refused(
      {
        actions: [
          { action: 'create', file_path: 'n.txt', content: 'x' },
          { action: 'create', file_path: 'n.txt', content: 'y' },
        ],
      },
      400,
      message('A file with this name already exists'),
    )
  })

  test("GitLab's parameter checks", async () => {
    const project = await repository(owner)
    const main = await branchHead(server, gitClient, project.id)
    const check = async (body: Record<string, unknown>, expected: unknown) => {
      const res = await commitCreate(owner, project.id, body)
      expect(res.status, res.text).toBe(400)
      expect(res.body).toEqual(expected)
      expect(await branchHead(server, gitClient, project.id)).toBe(main)
    }
    const base = { branch: 'main', commit_message: 'M' }
    const bad = (text: string) => ({ message: `400 Bad request - ${text}` })
    await check({ commit_message: 'M', actions: [] }, { message: '400 (Bad request) "branch" not given' })
    await check({ branch: 'main', actions: [] }, { message: '400 (Bad request) "commit_message" not given' })
    await check(base, { message: '400 (Bad request) "actions" not given' })
    await check({ ...base, actions: [] }, bad('actions is required'))
    await check({ ...base, branch: '', actions: [{}] }, bad('branch is required'))
    await check({ ...base, actions: [{ file_path: 'a' }] }, bad('actions[0][action] is required'))
    await check({ ...base, actions: [{ action: 'create' }] }, bad('actions[0][file_path] is required'))
    await check(
      { ...base, actions: [{ action: 'copy', file_path: 'a' }] },
      bad('actions[0][action] must be one of: create, update, move, delete, chmod'),
    )
    await check(
      { ...base, actions: [{ action: 'create', file_path: 'a', encoding: 'hex' }] },
      bad('actions[0][encoding] must be text or base64'),
    )
    await check(
      { ...base, actions: [{ action: 'update', file_path: 'README.md' }] },
      bad('actions[0][content] is required for update action'),
    )
    await check({ ...base, actions: [{ action: 'move', file_path: 'a' }] }, bad('actions[0][previous_path] is required for move action'))
    await check(
      { ...base, actions: [{ action: 'chmod', file_path: 'a' }] },
      bad('actions[0][execute_filemode] is required for chmod action'),
    )
    await check(
      { ...base, actions: [{ action: 'chmod', file_path: 'a', execute_filemode: 'yes' }] },
      bad('actions[0][execute_filemode] must be a boolean'),
    )
    const create = [{ action: 'create', file_path: 'z', content: 'z' }]
    await check({ ...base, start_branch: 'main', start_sha: main, actions: create }, bad('start_branch, start_sha are mutually exclusive'))
    await check({ ...base, branch: 'other', start_sha: 'abc', actions: create }, { message: "Invalid start_sha 'abc'" })
    await check(
      { ...base, branch: 'other', start_sha: 'f'.repeat(40), actions: create },
      { message: `Cannot find start_sha '${'f'.repeat(40)}'` },
    )
    await check({ ...base, branch: 'nowhere', actions: create }, { message: 'You can only create or edit files when you are on a branch' })
    await check(
      { ...base, branch: 'other', start_branch: 'nowhere', actions: create },
      { message: 'You can only create or edit files when you are on a branch' },
    )
    await check(
      { ...base, branch: 'bad..name', start_branch: 'main', actions: create },
      { message: "Something went wrong when we tried to create 'bad..name' for you: Branch name is invalid" },
    )
  })

  test('a stale last_commit_id is refused with the path; a current one is accepted', async () => {
    const project = await repository(owner)
    const first = await branchHead(server, gitClient, project.id)
    const changed = await commitCreate(owner, project.id, {
      branch: 'main',
      commit_message: 'Change README',
      actions: [{ action: 'update', file_path: 'README.md', content: 'changed\n', last_commit_id: first }],
    })
    expect(changed.status, changed.text).toBe(201)
    const second = changed.body.id
    const stale = await commitCreate(owner, project.id, {
      branch: 'main',
      commit_message: 'Stale',
      actions: [{ action: 'update', file_path: 'README.md', content: 'mine\n', last_commit_id: first }],
    })
    expect(stale.status).toBe(400)
    expect(stale.body).toEqual({ message: 'The file has changed since you started editing it: README.md' })
    expect(await branchHead(server, gitClient, project.id)).toBe(second)
    const current = await commitCreate(owner, project.id, {
      branch: 'main',
      commit_message: 'Current',
      actions: [{ action: 'delete', file_path: 'README.md', last_commit_id: second }],
    })
    expect(current.status, current.text).toBe(201)
  })

  test('commits racing on one branch: each either lands on top of the others or gets 400, none is lost', async () => {
    const project = await repository(owner)
    const start = await branchHead(server, gitClient, project.id)
    const racers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        commitCreate(owner, project.id, {
          branch: 'main',
          commit_message: `Racer ${i}`,
          actions: [{ action: 'create', file_path: `racer-${i}.txt`, content: `${i}` }],
        }),
      ),
    )
    const won = racers.filter((res) => res.status === 201)
    const lost = racers.filter((res) => res.status !== 201)
    // All read the branch before the first of them moves it (a commit takes several git processes): most lose.
    expect(won.length).toBeGreaterThanOrEqual(1)
    expect(lost.length).toBeGreaterThanOrEqual(1)
    for (const res of lost) {
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ message: 'Could not update branch main. Please refresh and try again.' })
    }
    const history = (await gitInRepository(server, gitClient, project.id, 'rev-list', `${start}..main`)).trim().split('\n')
    expect(history.sort()).toEqual(won.map((res) => res.body.id as string).sort())
    const present = await files(project.id, 'main')
    expect(present.filter((line) => line.includes('racer-')).length).toBe(won.length)
  })

  test('who may write: 401 anonymous, 403 Reporter, 404 a private project they cannot see; a Developer may', async () => {
    const project = await repository(owner)
    const row = await projectRow(project.id)
    await addTestMember(db, { user: reporter.user, project: row, accessLevel: 20 })
    await addTestMember(db, { user: developer.user, project: row, accessLevel: 30 })
    const body = {
      branch: 'topic',
      start_branch: 'main',
      commit_message: 'M',
      actions: [{ action: 'create', file_path: 'x', content: 'x' }],
    }
    const anonymous = await request('POST', `/projects/${project.id}/repository/commits`, { body })
    expect(anonymous.status).toBe(401)
    expect(anonymous.body).toEqual({ message: '401 Unauthorized' })
    const asReporter = await commitCreate(reporter, project.id, body)
    expect(asReporter.status).toBe(403)
    expect(asReporter.body).toEqual({ message: '403 Forbidden - You are not allowed to push into this branch' })
    // Who may not commit hears so before any parameter is looked at.
    const reporterWithoutParams = await commitCreate(reporter, project.id, {})
    expect(reporterWithoutParams.status).toBe(403)
    expect(reporterWithoutParams.body).toEqual({ message: '403 Forbidden - You are not allowed to push into this branch' })
    const asDeveloper = await commitCreate(developer, project.id, body)
    expect(asDeveloper.status, asDeveloper.text).toBe(201)

    sequence += 1
    const secret = await request('POST', '/projects', {
      token: owner.token,
      body: { name: `Secret ${sequence}`, initialize_with_readme: true },
    })
    const hidden = await commitCreate(developer, secret.body.id, body)
    expect(hidden.status).toBe(404)
    expect(hidden.body).toEqual({ message: '404 Project Not Found' })
  })
})

describe('cherry-pick and revert', () => {
  async function pickFixture() {
    const project = await repository(owner)
    const base = await commitCreate(owner, project.id, {
      branch: 'main',
      commit_message: 'Base',
      actions: [
        { action: 'create', file_path: 'shared.txt', content: 'a\nb\nc\n' },
        { action: 'create', file_path: 'other.txt', content: '1\n' },
      ],
    })
    expect(base.status).toBe(201)
    const feature = await commitCreate(owner, project.id, {
      branch: 'feature',
      start_branch: 'main',
      commit_message: 'Feature change',
      author_name: 'Fay',
      author_email: 'fay@example.com',
      actions: [{ action: 'update', file_path: 'shared.txt', content: 'a\nB\nc\n' }],
    })
    expect(feature.status).toBe(201)
    return { project, base: base.body.id as string, pick: feature.body.id as string }
  }

  test('gitbeaker cherry-picks a commit: GitLab commit entity, message with the trailer, committed by the caller', async () => {
    const { project, base, pick } = await pickFixture()
    const api = new Gitlab({ host: server.url, token: owner.token })
    const dry = await request('POST', `/projects/${project.id}/repository/commits/${pick}/cherry_pick`, {
      token: owner.token,
      body: { branch: 'main', dry_run: true },
    })
    expect(dry.status).toBe(200)
    expect(dry.body).toEqual({ dry_run: 'success' })
    expect(await branchHead(server, gitClient, project.id)).toBe(base)

    const picked = (await api.Commits.cherryPick(project.id, pick, 'main')) as unknown as Record<string, unknown>
    const sha = await branchHead(server, gitClient, project.id)
    expect(picked).toEqual({
      id: sha,
      short_id: sha.slice(0, 8),
      created_at: COMMIT_AT,
      parent_ids: [base],
      title: 'Feature change',
      message: `Feature change\n\n(cherry-picked from commit ${pick})\n\nCo-authored-by: Fay <fay@example.com>`,
      author_name: 'Olive',
      author_email: 'olive@example.com',
      authored_date: COMMIT_AT,
      committer_name: 'Olive',
      committer_email: 'olive@example.com',
      committed_date: COMMIT_AT,
      trailers: {},
      extended_trailers: {},
      web_url: `${server.config.externalUrl}/${project.path_with_namespace}/-/commit/${sha}`,
    })
    expect(await gitInRepository(server, gitClient, project.id, 'show', 'main:shared.txt')).toBe('a\nB\nc\n')

    const again = await request('POST', `/projects/${project.id}/repository/commits/${pick}/cherry_pick`, {
      token: owner.token,
      body: { branch: 'main', message: 'Custom' },
    })
    expect(again.status).toBe(400)
    expect(again.body).toEqual({
      message:
        "Commit cherry-pick failed: Can't perform this action automatically. It may have already been done, or a more recent commit may have updated some of this content. Please perform this action locally.",
      error_code: 'empty',
    })
    expect(await branchHead(server, gitClient, project.id)).toBe(sha)
  })

  test('a conflicting cherry-pick answers error_code conflict (and dry_run error), and changes nothing', async () => {
    const { project, pick } = await pickFixture()
    const mainChange = await commitCreate(owner, project.id, {
      branch: 'main',
      commit_message: 'Main change',
      actions: [{ action: 'update', file_path: 'shared.txt', content: 'a\nX\nc\n' }],
    })
    expect(mainChange.status).toBe(201)
    const main = await branchHead(server, gitClient, project.id)
    const failure =
      "Commit cherry-pick failed: Can't perform this action automatically. It may have already been done, or a more recent commit may have updated some of this content. Please perform this action locally."
    const res = await request('POST', `/projects/${project.id}/repository/commits/${pick}/cherry_pick`, {
      token: owner.token,
      body: { branch: 'main' },
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ message: failure, error_code: 'conflict' })
    const dry = await request('POST', `/projects/${project.id}/repository/commits/${pick}/cherry_pick`, {
      token: owner.token,
      body: { branch: 'main', dry_run: true },
    })
    expect(dry.status).toBe(400)
    expect(dry.body).toEqual({ message: failure, error_code: 'conflict', dry_run: 'error' })
    expect(await branchHead(server, gitClient, project.id)).toBe(main)
  })

  test('revert through gitbeaker, then a revert that conflicts', async () => {
    const { project, pick } = await pickFixture()
    const api = new Gitlab({ host: server.url, token: owner.token })
    await api.Commits.cherryPick(project.id, pick, 'main')
    const picked = await branchHead(server, gitClient, project.id)
    const reverted = (await api.Commits.revert(project.id, picked, 'main')) as unknown as Record<string, unknown>
    const sha = await branchHead(server, gitClient, project.id)
    expect(reverted).toMatchObject({
      id: sha,
      parent_ids: [picked],
      title: 'Revert "Feature change"',
      message: `Revert "Feature change"\n\nThis reverts commit ${picked}`,
      author_name: 'Olive',
    })
    expect(await gitInRepository(server, gitClient, project.id, 'show', 'main:shared.txt')).toBe('a\nb\nc\n')

    const again = await request('POST', `/projects/${project.id}/repository/commits/${picked}/revert`, {
      token: owner.token,
      body: { branch: 'main' },
    })
    expect(again.status).toBe(400)
    expect(again.body.error_code).toBe('empty')
    expect(again.body.message).toMatch(/^Commit revert failed: Can't perform this action automatically\./)

    // main changes the line the picked commit changed: reverting that commit now conflicts.
    const changed = await commitCreate(owner, project.id, {
      branch: 'main',
      commit_message: 'Main moves on',
      actions: [{ action: 'update', file_path: 'shared.txt', content: 'a\nZ\nc\n' }],
    })
    expect(changed.status).toBe(201)
    const conflict = await request('POST', `/projects/${project.id}/repository/commits/${pick}/revert`, {
      token: owner.token,
      body: { branch: 'main' },
    })
    expect(conflict.status).toBe(400)
    expect(conflict.body).toEqual({
      message:
        "Commit revert failed: Can't perform this action automatically. It may have already been done, or a more recent commit may have updated some of this content. Please perform this action locally.",
      error_code: 'conflict',
    })
    expect(await branchHead(server, gitClient, project.id)).toBe(changed.body.id)
  })

  test('unknown commit, unknown branch, missing branch, and who may', async () => {
    const { project, pick } = await pickFixture()
    const post = (who: Person, sha: string, body: Record<string, unknown>) =>
      request('POST', `/projects/${project.id}/repository/commits/${sha}/cherry_pick`, { token: who.token, body })
    expect((await post(owner, 'f'.repeat(40), { branch: 'main' })).body).toEqual({ message: '404 Commit Not Found' })
    expect((await post(owner, 'main:README.md', { branch: 'main' })).body).toEqual({ message: '404 Commit Not Found' })
    expect((await post(owner, pick, { branch: 'nowhere' })).body).toEqual({ message: '404 Branch Not Found' })
    expect((await post(owner, pick, {})).body).toEqual({ message: '400 (Bad request) "branch" not given' })
    expect((await post(owner, pick, { branch: ' ' })).body).toEqual({ error: 'branch is empty' })
    await addProjectMember(db, reporter, project.id, 20)
    const asReporter = await post(reporter, pick, { branch: 'main' })
    expect(asReporter.status).toBe(403)
    expect(asReporter.body).toEqual({ message: '403 Forbidden - You are not allowed to push into this branch' })
    const disabled = await request('PUT', `/projects/${project.id}`, { token: owner.token, body: { repository_access_level: 'disabled' } })
    expect(disabled.status, disabled.text).toBe(200)
    // The repository check comes before the parameters are looked at.
    for (const res of [
      await post(owner, pick, {}),
      await request('POST', `/projects/${project.id}/repository/commits/${pick}/revert`, { token: owner.token, body: {} }),
      await commitCreate(owner, project.id, {}),
    ]) {
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ message: '404 Repository Not Found' })
    }
    await request('PUT', `/projects/${project.id}`, { token: owner.token, body: { repository_access_level: 'enabled' } })
    const revertMissing = await request('POST', `/projects/${project.id}/repository/commits/${'e'.repeat(40)}/revert`, {
      token: owner.token,
      body: { branch: 'main' },
    })
    expect(revertMissing.status).toBe(404)
    expect(revertMissing.body).toEqual({ message: '404 Commit Not Found' })
  })
})
