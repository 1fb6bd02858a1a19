import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { GitClient } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { addProjectMember, branchHead, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { systemNotesOf } from '../issuables/testing.js'
import { expectedBasic } from '../users/testing.js'

// Optional approvals as GitLab Free has them (GL merge_request_approvals.rb): approve, unapprove and the approvals.

let server: TestServer
let request: ReturnType<typeof client>
const git = new GitClient()
let sequence = 0

beforeAll(async () => {
  server = await startTestServer()
  request = client(`${server.url}/api/v4`)
})
afterAll(async () => {
  await server.close()
})

async function fixture() {
  sequence += 1
  const db = server.database.db
  const owner = await createPerson(db, `owner${sequence}`)
  const developer = await createPerson(db, `developer${sequence}`)
  const second = await createPerson(db, `second${sequence}`)
  const reporter = await createPerson(db, `reporter${sequence}`)
  const project = await createRepositoryProject(request, owner, { name: `Approvals ${sequence}` })
  await addProjectMember(db, developer, project.id, 30)
  await addProjectMember(db, second, project.id, 30)
  await addProjectMember(db, reporter, project.id, 20)
  const branch = await request('POST', `/projects/${project.id}/repository/branches`, {
    token: owner.token,
    body: { branch: 'topic', ref: 'main' },
  })
  expect(branch.status, branch.text).toBe(201)
  const created = await request('POST', `/projects/${project.id}/merge_requests`, {
    token: owner.token,
    body: { source_branch: 'topic', target_branch: 'main', title: 'Approve me' },
  })
  expect(created.status, created.text).toBe(201)
  const mergeRequest = created.body
  const path = `/projects/${project.id}/merge_requests/${mergeRequest.iid}`
  const as = (who: Person | null, method: 'GET' | 'POST' | 'PUT', suffix: string, body?: Record<string, unknown>) =>
    request(method, `${path}${suffix}`, { token: who?.token, body })
  const notes = () => systemNotesOf(db, { mergeRequestId: mergeRequest.id })
  return { owner, developer, second, reporter, project, mergeRequest, as, notes }
}

describe('approving', () => {
  test('approving shows who approved; a second approval adds to the list; the system notes say so', async () => {
    const { owner, developer, second, as, notes } = await fixture()
    const before = await as(developer, 'GET', '/approvals')
    expect([before.status, before.body]).toEqual([
      200,
      { user_has_approved: false, user_can_approve: true, approved: false, approved_by: [] },
    ])

    const approved = await as(developer, 'POST', '/approve')
    expect(approved.status, approved.text).toBe(201)
    expect(Object.keys(approved.body)).toEqual(['user_has_approved', 'user_can_approve', 'approved', 'approved_by'])
    expect(approved.body).toEqual({
      user_has_approved: true,
      user_can_approve: false,
      approved: true,
      approved_by: [{ user: expectedBasic(developer.user, server.url), approved_at: expect.any(String) }],
    })

    // The author may approve too in Free.
    expect((await as(owner, 'POST', '/approve')).status).toBe(201)
    const seen = await as(second, 'GET', '/approvals')
    expect(seen.body).toMatchObject({ user_has_approved: false, user_can_approve: true, approved: true })
    expect(seen.body.approved_by.map((entry: { user: { username: string } }) => entry.user.username)).toEqual([
      developer.user.username,
      owner.user.username,
    ])
    expect(await notes()).toEqual(['approved this merge request', 'approved this merge request'])
  })

  test('approving twice is 401 Unauthorized and writes nothing', async () => {
    const { developer, as, notes } = await fixture()
    expect((await as(developer, 'POST', '/approve')).status).toBe(201)
    const again = await as(developer, 'POST', '/approve')
    expect([again.status, again.body]).toEqual([401, { message: '401 Unauthorized' }])
    expect(await notes()).toEqual(['approved this merge request'])
  })

  test('a Reporter, a stranger and an anonymous caller are refused', async () => {
    const { reporter, as } = await fixture()
    const refused = await as(reporter, 'POST', '/approve')
    expect([refused.status, refused.body]).toEqual([403, { message: '403 Forbidden' }])
    expect((await as(reporter, 'GET', '/approvals')).body).toMatchObject({ user_can_approve: false })
    const stranger = await createPerson(server.database.db, `stranger${sequence}`)
    expect((await as(stranger, 'POST', '/approve')).status).toBe(403)
    expect((await as(null, 'POST', '/approve')).status).toBe(401)
    const anonymous = await as(null, 'GET', '/approvals')
    expect([anonymous.status, anonymous.body]).toEqual([
      200,
      { user_has_approved: false, user_can_approve: false, approved: false, approved_by: [] },
    ])
  })

  test('a closed merge request cannot be approved', async () => {
    const { owner, developer, as } = await fixture()
    expect((await as(owner, 'PUT', '', { state_event: 'close' })).status).toBe(200)
    expect((await as(developer, 'POST', '/approve')).status).toBe(403)
    expect((await as(developer, 'GET', '/approvals')).body).toMatchObject({ user_can_approve: false })
  })

  test('`sha` must be the head of the source branch', async () => {
    const { developer, project, as, notes } = await fixture()
    const head = await branchHead(server, git, project.id, 'topic')
    const stale = await as(developer, 'POST', '/approve', { sha: '0'.repeat(40) })
    expect([stale.status, stale.body]).toEqual([409, { message: `SHA does not match HEAD of source branch: ${head}` }])
    expect(await notes()).toEqual([])
    const fresh = await as(developer, 'POST', '/approve', { sha: head })
    expect([fresh.status, fresh.body.approved]).toEqual([201, true])
  })
})

describe('unapproving', () => {
  test('removes the approval and writes the system note', async () => {
    const { developer, as, notes } = await fixture()
    await as(developer, 'POST', '/approve')
    const removed = await as(developer, 'POST', '/unapprove')
    expect([removed.status, removed.body]).toEqual([
      201,
      { user_has_approved: false, user_can_approve: true, approved: false, approved_by: [] },
    ])
    expect(await notes()).toEqual(['approved this merge request', 'unapproved this merge request'])
  })

  test('is 404 when the caller had not approved, and 403 for who may not approve', async () => {
    const { developer, reporter, as, notes } = await fixture()
    const missing = await as(developer, 'POST', '/unapprove')
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Not found' }])
    expect((await as(reporter, 'POST', '/unapprove')).status).toBe(403)
    expect(await notes()).toEqual([])
  })
})

describe('merging', () => {
  test("the merge commit template's %{approved_by} lists the approvers, and the approvals stay after the merge", async () => {
    const { owner, developer, project, as } = await fixture()
    const committed = await request('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'topic', commit_message: 'Add a file', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] },
    })
    expect(committed.status, committed.text).toBe(201)
    const template = await request('PUT', `/projects/${project.id}`, {
      token: owner.token,
      body: { merge_commit_template: '%{title}\n\n%{approved_by}' },
    })
    expect(template.status, template.text).toBe(200)
    expect((await as(developer, 'POST', '/approve')).status).toBe(201)
    expect((await as(owner, 'POST', '/approve')).status).toBe(201)

    const merged = await as(owner, 'PUT', '/merge')
    expect(merged.status, merged.text).toBe(200)
    const commit = await request('GET', `/projects/${project.id}/repository/commits/${merged.body.merge_commit_sha}`, {
      token: owner.token,
    })
    expect(commit.body.message.trimEnd()).toBe(
      [
        'Approve me',
        '',
        `Approved-by: ${developer.user.name} <${developer.user.email}>`,
        `Approved-by: ${owner.user.name} <${owner.user.email}>`,
      ].join('\n'),
    )
    const after = await as(developer, 'GET', '/approvals')
    expect(after.body).toMatchObject({ user_has_approved: true, user_can_approve: false, approved: true })
    expect(after.body.approved_by).toHaveLength(2)
  })
})

describe('resetting approvals', () => {
  async function projectBot(owner: Person, projectId: number, accessLevel: number): Promise<string> {
    const created = await request('POST', `/projects/${projectId}/access_tokens`, {
      token: owner.token,
      body: { name: `bot${sequence}`, scopes: ['api'], access_level: accessLevel },
    })
    expect(created.status, created.text).toBe(201)
    return created.body.token
  }

  test('a project bot removes every approval: 202, and the approvals are empty', async () => {
    const { owner, developer, project, mergeRequest, as, notes } = await fixture()
    await as(developer, 'POST', '/approve')
    await as(owner, 'POST', '/approve')
    const bot = await projectBot(owner, project.id, 30)
    const reset = await request('PUT', `/projects/${project.id}/merge_requests/${mergeRequest.iid}/reset_approvals`, { token: bot })
    expect([reset.status, reset.headers['content-type'], reset.text]).toEqual([202, 'application/json', '202'])
    const after = await as(developer, 'GET', '/approvals')
    expect([after.status, after.body]).toEqual([
      200,
      { user_has_approved: false, user_can_approve: true, approved: false, approved_by: [] },
    ])
    // GL deletes the approvals and writes no note.
    expect(await notes()).toEqual(['approved this merge request', 'approved this merge request'])
    const again = await request('PUT', `/projects/${project.id}/merge_requests/${mergeRequest.iid}/reset_approvals`, { token: bot })
    expect(again.status).toBe(202)
  })

  test('people, a bot that may not approve, and a merged merge request get 401; an unknown one 404', async () => {
    const { owner, developer, project, mergeRequest, as } = await fixture()
    await as(developer, 'POST', '/approve')
    const path = `/projects/${project.id}/merge_requests/${mergeRequest.iid}/reset_approvals`
    for (const who of [owner, developer]) {
      const refused = await request('PUT', path, { token: who.token })
      expect([refused.status, refused.body]).toEqual([401, { message: '401 Unauthorized' }])
    }
    const anonymous = await request('PUT', path, {})
    expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }])
    const reporterBot = await projectBot(owner, project.id, 20)
    const byReporterBot = await request('PUT', path, { token: reporterBot })
    expect([byReporterBot.status, byReporterBot.body]).toEqual([401, { message: '401 Unauthorized' }])
    const bot = await projectBot(owner, project.id, 40)
    const missing = await request('PUT', `/projects/${project.id}/merge_requests/999/reset_approvals`, { token: bot })
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Not found' }])
    expect((await as(developer, 'GET', '/approvals')).body.approved).toBe(true)

    const committed = await request('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'topic', commit_message: 'Add a file', actions: [{ action: 'create', file_path: 'b.txt', content: 'b\n' }] },
    })
    expect(committed.status, committed.text).toBe(201)
    expect((await as(owner, 'PUT', '/merge')).status).toBe(200)
    const merged = await request('PUT', path, { token: bot })
    expect([merged.status, merged.body]).toEqual([401, { message: '401 Unauthorized' }])
    expect((await as(developer, 'GET', '/approvals')).body.approved_by).toHaveLength(1)
  })
})
