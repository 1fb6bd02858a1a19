import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { GitClient } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import {
  addProjectMember,
  branchHead,
  createPerson,
  createRepositoryProject,
  gitInRepository,
  type Person,
} from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

// PUT …/merge_requests/:iid/rebase (GL merge_requests.rb `rebase`, RebaseWorker, MergeRequests::RebaseService): the
// source branch rebased onto the target branch by a job, told by `rebase_in_progress` and `merge_error`.

let server: TestServer
let request: ReturnType<typeof client>
const git = new GitClient()
let sequence = 0

const REBASE_ERROR = 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.'
const RESOURCE_LOCK = { message: '409 Conflict: Resource lock' }

beforeAll(async () => {
  server = await startTestServer()
  request = client(`${server.url}/api/v4`)
})
afterAll(async () => {
  await server.close()
  git.remove()
})

async function commitFile(who: Person, projectId: number, branch: string, file: string, content: string, message: string) {
  const res = await request('POST', `/projects/${projectId}/repository/commits`, {
    token: who.token,
    body: { branch, commit_message: message, actions: [{ action: 'create', file_path: file, content }] },
  })
  expect(res.status, res.text).toBe(201)
  return res.body.id as string
}

/** A fast-forward project whose `topic` (one commit by the owner) is behind main by one commit, and its merge request. */
async function fixture(options: { conflicting?: boolean; mergeMethod?: string } = {}) {
  sequence += 1
  const db = server.database.db
  const owner = await createPerson(db, `rebaseowner${sequence}`)
  const developer = await createPerson(db, `rebasedev${sequence}`)
  const reporter = await createPerson(db, `rebasereporter${sequence}`)
  const project = await createRepositoryProject(request, owner, { name: `Rebase ${sequence}`, merge_method: options.mergeMethod ?? 'ff' })
  await addProjectMember(db, developer, project.id, 30)
  await addProjectMember(db, reporter, project.id, 20)
  const branched = await request('POST', `/projects/${project.id}/repository/branches`, {
    token: owner.token,
    body: { branch: 'topic', ref: 'main' },
  })
  expect(branched.status, branched.text).toBe(201)
  const topicCommit = await commitFile(
    owner,
    project.id,
    'topic',
    options.conflicting ? 'shared.txt' : 'topic.txt',
    'topic\n',
    'Add the topic',
  )
  const mainCommit = await commitFile(owner, project.id, 'main', options.conflicting ? 'shared.txt' : 'main.txt', 'main\n', 'Move main on')
  const created = await request('POST', `/projects/${project.id}/merge_requests`, {
    token: owner.token,
    body: { source_branch: 'topic', target_branch: 'main', title: 'Rebase me' },
  })
  expect(created.status, created.text).toBe(201)
  const path = `/projects/${project.id}/merge_requests/${created.body.iid}`
  const rebase = (who: Person | null, body: Record<string, unknown> = {}) => request('PUT', `${path}/rebase`, { token: who?.token, body })
  const show = async () => (await request('GET', `${path}?include_rebase_in_progress=true`, { token: owner.token })).body
  return { owner, developer, reporter, project, path, topicCommit, mainCommit, rebase, show }
}

describe('rebasing', () => {
  test('202 queues the rebase; the job replays the commits onto main, keeping their author; then it merges fast-forward', async () => {
    const { owner, developer, project, path, topicCommit, mainCommit, rebase, show } = await fixture()
    expect(await show()).toMatchObject({ detailed_merge_status: 'need_rebase', merge_error: null, rebase_in_progress: false })

    const queued = await rebase(developer, { skip_ci: true })
    expect([queued.status, queued.headers['content-type'], queued.body]).toEqual([202, 'application/json', { rebase_in_progress: true }])
    const during = await show()
    expect(during).toMatchObject({ rebase_in_progress: true, merge_error: null })
    // GL Entities::MergeRequest: the field follows merge_error, and only when asked for.
    const keys = Object.keys(during)
    expect(keys.slice(keys.indexOf('merge_error'), keys.indexOf('merge_error') + 3)).toEqual([
      'merge_error',
      'rebase_in_progress',
      'first_contribution',
    ])
    expect((await request('GET', path, { token: owner.token })).body).not.toHaveProperty('rebase_in_progress')
    const again = await rebase(owner)
    expect([again.status, again.body]).toEqual([409, RESOURCE_LOCK])

    // The rebase, then the e-mail telling the author of the commits it pushed.
    expect(await server.runJobs()).toBe(2)
    const after = await show()
    expect(after).toMatchObject({ rebase_in_progress: false, merge_error: null, detailed_merge_status: 'mergeable' })
    const head = await branchHead(server, git, project.id, 'topic')
    expect(after.sha).toBe(head)
    expect(head).not.toBe(topicCommit)
    const log = await gitInRepository(server, git, project.id, 'log', '--format=%P|%an|%ae|%cn|%ce|%s', '-1', head)
    expect(log.trim()).toBe(
      [mainCommit, owner.user.name, owner.user.email, developer.user.name, developer.user.email, 'Add the topic'].join('|'),
    )
    const original = await gitInRepository(server, git, project.id, 'log', '--format=%ad', '--date=raw', '-1', topicCommit)
    expect(await gitInRepository(server, git, project.id, 'log', '--format=%ad', '--date=raw', '-1', head)).toBe(original)
    expect(await gitInRepository(server, git, project.id, 'ls-tree', '--name-only', head)).toBe('README.md\nmain.txt\ntopic.txt\n')
    const versions = await request('GET', `${path}/versions`, { token: owner.token })
    expect(versions.body.map((version: { head_commit_sha: string }) => version.head_commit_sha)).toEqual([head, topicCommit])

    const merged = await request('PUT', `${path}/merge`, { token: owner.token })
    expect([merged.status, merged.body.state, merged.body.merge_commit_sha]).toEqual([200, 'merged', null])
    expect(await branchHead(server, git, project.id, 'main')).toBe(head)
  })

  test('a conflict leaves the branch as it was and says so in merge_error', async () => {
    const { developer, project, topicCommit, rebase, show } = await fixture({ conflicting: true })
    expect((await rebase(developer)).status).toBe(202)
    expect(await server.runJobs()).toBe(1)
    expect(await show()).toMatchObject({ rebase_in_progress: false, merge_error: REBASE_ERROR })
    expect(await branchHead(server, git, project.id, 'topic')).toBe(topicCommit)
  })

  test('a branch based on the target already stays as it is, and a rebase that succeeds clears the last error', async () => {
    const { owner, developer, project, path, rebase, show } = await fixture({ mergeMethod: 'merge' })
    await server.database.db
      .updateTable('merge_requests')
      .set({ merge_error: 'Merge failed' })
      .where('project_id', '=', project.id)
      .execute()
    expect((await rebase(developer)).status).toBe(202)
    // The rebase, then the e-mail telling the author of the commits it pushed.
    expect(await server.runJobs()).toBe(2)
    const head = await branchHead(server, git, project.id, 'topic')
    expect(await show()).toMatchObject({ merge_error: null, rebase_in_progress: false, sha: head })
    expect((await rebase(owner)).status).toBe(202)
    expect(await server.runJobs()).toBe(1)
    expect(await branchHead(server, git, project.id, 'topic')).toBe(head)
    expect((await request('GET', `${path}/versions`, { token: owner.token })).body).toHaveLength(2)
  })

  test('who may not push to the source branch hears 403, a missing branch 403, a closed merge request 409', async () => {
    const { owner, developer, reporter, project, path, rebase } = await fixture()
    const anonymous = await rebase(null)
    expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }])
    const byReporter = await rebase(reporter)
    expect([byReporter.status, byReporter.body]).toEqual([403, { message: '403 Forbidden - Cannot push to source branch' }])
    const missing = await request('PUT', `/projects/${project.id}/merge_requests/999/rebase`, { token: owner.token })
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Not found' }])

    const protectedBranch = await request('POST', `/projects/${project.id}/protected_branches`, {
      token: owner.token,
      body: { name: 'topic', push_access_level: 40, merge_access_level: 40 },
    })
    expect(protectedBranch.status, protectedBranch.text).toBe(201)
    const byDeveloper = await rebase(developer)
    expect([byDeveloper.status, byDeveloper.body]).toEqual([403, { message: '403 Forbidden - Cannot push to source branch' }])
    // Maintainers may push to it, but the rebase is a force push the protection refuses (GL's pre-receive hook).
    expect((await rebase(owner)).status).toBe(202)
    expect(await server.runJobs()).toBe(1)
    expect((await request('GET', path, { token: owner.token })).body.merge_error).toBe(
      'The rebase pre-receive hook failed: You are not allowed to force push code to a protected branch on this project..',
    )

    const closed = await request('PUT', path, { token: owner.token, body: { state_event: 'close' } })
    expect(closed.status).toBe(200)
    const refused = await rebase(owner)
    expect([refused.status, refused.body]).toEqual([409, RESOURCE_LOCK])

    const gone = await request('POST', `/projects/${project.id}/merge_requests`, {
      token: owner.token,
      body: { source_branch: 'nowhere', target_branch: 'main', title: 'Nowhere' },
    })
    const noBranch = await request('PUT', `/projects/${project.id}/merge_requests/${gone.body.iid}/rebase`, { token: owner.token })
    expect([noBranch.status, noBranch.body]).toEqual([403, { message: '403 Forbidden - Source branch does not exist' }])
  })

  test("a fork's branch is rebased in the fork onto the upstream's target branch", async () => {
    const { owner, project } = await fixture()
    const forker = await createPerson(server.database.db, `rebaseforker${sequence}`)
    const fork = await request('POST', `/projects/${project.id}/fork`, { token: forker.token, body: { path: `fork-${sequence}` } })
    expect(fork.status, fork.text).toBe(201)
    expect(await server.runJobs()).toBe(1)
    const branched = await request('POST', `/projects/${fork.body.id}/repository/branches`, {
      token: forker.token,
      body: { branch: 'improve', ref: 'main' },
    })
    expect(branched.status, branched.text).toBe(201)
    const forkTopic = await commitFile(forker, fork.body.id, 'improve', 'fork.txt', 'fork\n', 'Improve in the fork')
    const created = await request('POST', `/projects/${fork.body.id}/merge_requests`, {
      token: forker.token,
      body: { source_branch: 'improve', target_branch: 'main', target_project_id: project.id, title: 'From the fork' },
    })
    expect(created.status, created.text).toBe(201)
    const upstreamMain = await commitFile(owner, project.id, 'main', 'upstream.txt', 'upstream\n', 'Upstream moves on')
    const path = `/projects/${project.id}/merge_requests/${created.body.iid}`
    // The upstream's Maintainer may not push to the fork: only the fork's people rebase it.
    const byUpstream = await request('PUT', `${path}/rebase`, { token: owner.token })
    expect([byUpstream.status, byUpstream.body]).toEqual([403, { message: '403 Forbidden - Cannot push to source branch' }])
    expect((await request('PUT', `${path}/rebase`, { token: forker.token })).status).toBe(202)
    expect(await server.runJobs()).toBe(1)
    const head = await branchHead(server, git, fork.body.id, 'improve')
    expect(head).not.toBe(forkTopic)
    expect((await gitInRepository(server, git, fork.body.id, 'log', '--format=%P', '-1', head)).trim()).toBe(upstreamMain)
    expect((await request('GET', path, { token: owner.token })).body).toMatchObject({
      sha: head,
      merge_error: null,
      detailed_merge_status: 'mergeable',
    })
  })
})
