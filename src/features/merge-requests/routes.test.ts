import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import {
  addTestMember,
  createTestGroup,
  createTestLabel,
  createTestMergeRequest,
  createTestMilestone,
  createTestProject,
  createTestToken,
  createTestUser,
} from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { eventsOf, systemNotesOf } from '../issuables/testing.js'
import { expectedBasic } from '../users/testing.js'

let server: TestServer
let request: ReturnType<typeof client>
let db: TestServer['database']['db']

beforeAll(async () => {
  server = await startTestServer()
  request = client(`${server.url}/api/v4`)
  db = server.database.db
})
afterAll(() => server.close())

async function userWithToken(): Promise<{ user: User; token: string }> {
  const user = await createTestUser(db)
  return { user, token: (await createTestToken(db, user)).value }
}

async function fixture(visibility: 'public' | 'private' = 'public') {
  const group = await createTestGroup(db, { visibility })
  const project = await createTestProject(db, { namespace: group, visibility })
  const owner = await userWithToken()
  const developer = await userWithToken()
  const guest = await userWithToken()
  await addTestMember(db, { user: owner.user, project, accessLevel: 50 })
  await addTestMember(db, { user: developer.user, project, accessLevel: 30 })
  await addTestMember(db, { user: guest.user, project, accessLevel: 10 })
  return { group, project, owner, developer, guest }
}

const BASIC_KEYS = [
  'id',
  'iid',
  'project_id',
  'title',
  'description',
  'state',
  'created_at',
  'updated_at',
  'merged_by',
  'merge_user',
  'merged_at',
  'closed_by',
  'closed_at',
  'target_branch',
  'source_branch',
  'user_notes_count',
  'upvotes',
  'downvotes',
  'author',
  'assignees',
  'assignee',
  'reviewers',
  'source_project_id',
  'target_project_id',
  'labels',
  'draft',
  'imported',
  'imported_from',
  'work_in_progress',
  'milestone',
  'merge_when_pipeline_succeeds',
  'merge_status',
  'detailed_merge_status',
  'merge_after',
  'sha',
  'merge_commit_sha',
  'squash_commit_sha',
  'discussion_locked',
  'should_remove_source_branch',
  'force_remove_source_branch',
  'prepared_at',
  'reference',
  'references',
  'web_url',
  'time_stats',
  'squash',
  'squash_on_merge',
  'task_completion_status',
  'has_conflicts',
  'blocking_discussions_resolved',
]

describe('POST /projects/:id/merge_requests', () => {
  test('creates a merge request and answers the MergeRequest entity in GitLab order', async () => {
    const { project, developer } = await fixture()
    const label = await createTestLabel(db, { project, title: 'feature' })
    const milestone = await createTestMilestone(db, { project })
    const response = await request('POST', `/projects/${project.id}/merge_requests`, {
      token: developer.token,
      body: {
        source_branch: 'topic',
        target_branch: 'main',
        title: 'Draft: Add things',
        labels: 'feature',
        assignee_ids: [developer.user.id],
        milestone_id: milestone.id,
        remove_source_branch: true,
        squash: true,
      },
    })
    expect(response.status).toBe(201)
    expect(Object.keys(response.body)).toEqual([
      ...BASIC_KEYS,
      'subscribed',
      'changes_count',
      'latest_build_started_at',
      'latest_build_finished_at',
      'first_deployed_to_production_at',
      'pipeline',
      'head_pipeline',
      'diff_refs',
      'merge_error',
      'first_contribution',
      'user',
    ])
    expect(response.body).toMatchObject({
      iid: 1,
      project_id: project.id,
      title: 'Draft: Add things',
      state: 'opened',
      merged_by: null,
      merge_user: null,
      closed_by: null,
      target_branch: 'main',
      source_branch: 'topic',
      author: expectedBasic(developer.user, server.url),
      assignees: [expectedBasic(developer.user, server.url)],
      assignee: expectedBasic(developer.user, server.url),
      reviewers: [],
      source_project_id: project.id,
      target_project_id: project.id,
      labels: ['feature'],
      draft: true,
      work_in_progress: true,
      merge_status: 'unchecked',
      detailed_merge_status: 'unchecked',
      sha: null,
      force_remove_source_branch: true,
      reference: '!1',
      references: { short: '!1', relative: '!1', full: `${project.full_path}!1` },
      web_url: `${server.url}/${project.full_path}/-/merge_requests/1`,
      squash: true,
      has_conflicts: false,
      subscribed: true,
      diff_refs: null,
      first_contribution: false,
      // The default branch of an empty repository is protected: a Developer may not merge into it.
      user: { can_merge: false },
    })
    expect(response.body.milestone.id).toBe(milestone.id)
    expect(await systemNotesOf(db, { mergeRequestId: response.body.id })).toEqual([
      `added ~${label.id} label`,
      `changed milestone to %${milestone.iid}`,
    ])
    expect(await eventsOf(db, 'MergeRequest', response.body.id)).toEqual([[1, developer.user.id]])
  })

  test('refuses duplicates, equal branches, guests, other target projects and missing params', async () => {
    const { project, developer, guest } = await fixture()
    const path = `/projects/${project.id}/merge_requests`
    const first = await request('POST', path, { token: developer.token, body: { source_branch: 'a', target_branch: 'main', title: 'One' } })
    expect(first.status).toBe(201)
    const again = await request('POST', path, { token: developer.token, body: { source_branch: 'a', target_branch: 'main', title: 'Two' } })
    expect([again.status, again.body]).toEqual([409, { message: ['Another open merge request already exists for this source branch: !1'] }])
    const same = await request('POST', path, { token: developer.token, body: { source_branch: 'main', target_branch: 'main', title: 'x' } })
    expect([same.status, same.body]).toEqual([422, { message: ["You can't use same project/branch for source and target"] }])
    const byGuest = await request('POST', path, { token: guest.token, body: { source_branch: 'b', target_branch: 'main', title: 'x' } })
    expect([byGuest.status, byGuest.body]).toEqual([403, { message: '403 Forbidden' }])
    const other = await createTestProject(db, { owner: developer.user })
    const elsewhere = await request('POST', path, {
      token: developer.token,
      body: { source_branch: 'c', target_branch: 'main', title: 'x', target_project_id: other.id },
    })
    expect(elsewhere.status).toBe(422)
    const missing = await request('POST', path, { token: developer.token, body: { target_branch: 'main', title: 'x' } })
    expect([missing.status, missing.body]).toEqual([400, { message: '400 (Bad request) "source_branch" not given' }])
    const blank = await request('POST', path, { token: developer.token, body: { source_branch: 'd', target_branch: 'main', title: '' } })
    expect([blank.status, blank.body]).toEqual([400, { message: { title: ["can't be blank"] } }])
    const rows = await db.selectFrom('merge_requests').select('iid').where('project_id', '=', project.id).execute()
    expect(rows.map((r) => r.iid)).toEqual([1])
  })
})

describe('PUT /projects/:id/merge_requests/:merge_request_iid', () => {
  test('edits, closes and reopens with notes and events; merged ones stay merged; reopening a duplicate is refused', async () => {
    const { project, developer, guest } = await fixture()
    const label = await createTestLabel(db, { project, title: 'l1' })
    const mr = await createTestMergeRequest(db, { project, author: developer.user, sourceBranch: 'topic' })
    const path = `/projects/${project.id}/merge_requests/${mr.iid}`
    const edited = await request('PUT', path, {
      token: developer.token,
      body: { title: 'Renamed', add_labels: 'l1', target_branch: 'develop', assignee_id: guest.user.id },
    })
    expect(edited.status).toBe(200)
    expect(edited.body).toMatchObject({ title: 'Renamed', labels: ['l1'], target_branch: 'develop', draft: false })
    expect(edited.body.assignees.map((u: { id: number }) => u.id)).toEqual([guest.user.id])
    const closed = await request('PUT', path, { token: developer.token, body: { state_event: 'close' } })
    expect(closed.body).toMatchObject({ state: 'closed', closed_by: expectedBasic(developer.user, server.url) })
    await createTestMergeRequest(db, { project, author: developer.user, sourceBranch: 'topic', targetBranch: 'develop' })
    const conflict = await request('PUT', path, { token: developer.token, body: { state_event: 'reopen' } })
    expect([conflict.status, conflict.body]).toEqual([
      409,
      { message: ['Another open merge request already exists for this source branch: !2'] },
    ])
    expect((await request('GET', path, { token: developer.token })).body.state).toBe('closed')
    await request('PUT', `/projects/${project.id}/merge_requests/2`, { token: developer.token, body: { state_event: 'close' } })
    const reopened = await request('PUT', path, { token: developer.token, body: { state_event: 'reopen' } })
    expect(reopened.body.state).toBe('opened')
    expect(await systemNotesOf(db, { mergeRequestId: mr.id })).toEqual([
      `added ~${label.id} label`,
      `assigned to @${guest.user.username}`,
      'changed target branch from `main` to `develop`',
      'closed',
      'reopened',
    ])
    expect(await eventsOf(db, 'MergeRequest', mr.id)).toEqual([
      [3, developer.user.id],
      [4, developer.user.id],
    ])

    const merged = await createTestMergeRequest(db, { project, author: developer.user, state: 'merged' })
    const stays = await request('PUT', `/projects/${project.id}/merge_requests/${merged.iid}`, {
      token: developer.token,
      body: { state_event: 'close' },
    })
    expect([stays.status, stays.body.state]).toEqual([200, 'merged'])
    const locked = await createTestMergeRequest(db, { project, author: developer.user, state: 'locked' })
    const closesLocked = await request('PUT', `/projects/${project.id}/merge_requests/${locked.iid}`, {
      token: developer.token,
      body: { state_event: 'close' },
    })
    expect(closesLocked.body.state).toBe('closed')

    const outsider = await userWithToken()
    const refused = await request('PUT', path, { token: outsider.token, body: { title: 'x' } })
    expect([refused.status, refused.body]).toEqual([403, { message: '403 Forbidden' }])
    const nothing = await request('PUT', path, { token: developer.token, body: {} })
    expect(nothing.status).toBe(400)
    expect(nothing.body.error).toMatch(/are missing, at least one parameter must be provided$/)
  })

  test('a title gaining or losing its Draft prefix marks the merge request as a draft or as ready', async () => {
    const { project, developer } = await fixture()
    const mr = await createTestMergeRequest(db, { project, author: developer.user, sourceBranch: 'topic', title: 'Add things' })
    const path = `/projects/${project.id}/merge_requests/${mr.iid}`
    const drafted = await request('PUT', path, { token: developer.token, body: { title: 'Draft: Add things' } })
    expect([drafted.status, drafted.body.draft, drafted.body.work_in_progress]).toEqual([200, true, true])
    const renamed = await request('PUT', path, { token: developer.token, body: { title: '[Draft] Add more things' } })
    expect(renamed.body.draft).toBe(true)
    const ready = await request('PUT', path, { token: developer.token, body: { title: 'Add more things' } })
    expect([ready.body.title, ready.body.draft]).toEqual(['Add more things', false])
    expect(await systemNotesOf(db, { mergeRequestId: mr.id })).toEqual([
      'marked this merge request as **draft**',
      'marked this merge request as **ready**',
    ])
  })
})

describe('lists and deletion', () => {
  test('filters by state, branches, labels, author and search; scope for /merge_requests; owners delete', async () => {
    const { group, project, owner, developer } = await fixture()
    const label = await createTestLabel(db, { project, title: 'x' })
    const a = await createTestMergeRequest(db, {
      project,
      author: developer.user,
      title: 'Fix login',
      sourceBranch: 'fix',
      labels: [label],
    })
    const b = await createTestMergeRequest(db, {
      project,
      author: owner.user,
      title: 'Add api',
      sourceBranch: 'api',
      targetBranch: 'dev',
      state: 'merged',
    })
    const c = await createTestMergeRequest(db, { project, author: developer.user, title: 'Old', sourceBranch: 'old', state: 'closed' })
    const ids = async (query: string, path = `/projects/${project.id}/merge_requests`) =>
      ((await request('GET', `${path}?${query}`, { token: developer.token })).body as { id: number }[]).map((m) => m.id)
    expect(await ids('')).toEqual([c.id, b.id, a.id])
    expect(await ids('state=opened')).toEqual([a.id])
    expect(await ids('state=merged')).toEqual([b.id])
    expect(await ids('source_branch=api')).toEqual([b.id])
    expect(await ids('target_branch=dev')).toEqual([b.id])
    expect(await ids('labels=x')).toEqual([a.id])
    expect(await ids(`author_id=${owner.user.id}`)).toEqual([b.id])
    expect(await ids('search=login')).toEqual([a.id])
    expect(await ids('order_by=title&sort=asc')).toEqual([b.id, a.id, c.id])
    expect(await ids('state=opened', `/groups/${group.id}/merge_requests`)).toEqual([a.id])
    expect(await ids('', '/merge_requests')).toEqual([c.id, a.id])
    const list = await request('GET', `/projects/${project.id}/merge_requests?per_page=1`, { token: developer.token })
    expect(Object.keys(list.body[0])).toEqual(BASIC_KEYS)
    expect(list.headers).toMatchObject({ 'x-total': '3', 'x-next-page': '2' })
    expect((await request('GET', '/merge_requests')).status).toBe(401)
    expect((await request('DELETE', `/projects/${project.id}/merge_requests/${a.iid}`, { token: developer.token })).status).toBe(403)
    expect((await request('DELETE', `/projects/${project.id}/merge_requests/${a.iid}`, { token: owner.token })).status).toBe(204)
    const gone = await request('GET', `/projects/${project.id}/merge_requests/${a.iid}`, { token: owner.token })
    expect([gone.status, gone.body]).toEqual([404, { message: '404 Not found' }])
  })
})

describe('who may read merge requests', () => {
  test('a Guest of a private project cannot, a Reporter can (GL ProjectPolicy read_merge_request)', async () => {
    const { project, owner, guest } = await fixture('private')
    const reporter = await userWithToken()
    await addTestMember(db, { user: reporter.user, project, accessLevel: 20 })
    const mergeRequest = await createTestMergeRequest(db, { project, author: owner.user })
    const path = `/projects/${project.id}/merge_requests`
    const list = await request('GET', path, { token: guest.token })
    expect([list.status, list.body]).toEqual([403, { message: '403 Forbidden' }])
    const one = await request('GET', `${path}/${mergeRequest.iid}`, { token: guest.token })
    expect([one.status, one.body]).toEqual([404, { message: '404 Not found' }])
    const byReporter = await request('GET', `${path}/${mergeRequest.iid}`, { token: reporter.token })
    expect([byReporter.status, byReporter.body.iid]).toEqual([200, mergeRequest.iid])
  })
})

describe('the gitbeaker MergeRequests API', () => {
  test('creates, shows, edits, lists and removes merge requests', async () => {
    const gitlab = new Gitlab({ host: server.url, token: server.rootToken })
    const owner = await createTestUser(db)
    const project = await createTestProject(db, { owner })
    const created = await gitlab.MergeRequests.create(project.id, 'feature', 'main', 'From gitbeaker', { labels: 'a' })
    expect(created).toMatchObject({ iid: 1, title: 'From gitbeaker', labels: ['a'], state: 'opened' })
    expect((await gitlab.MergeRequests.show(project.id, created.iid)).id).toBe(created.id)
    const edited = await gitlab.MergeRequests.edit(project.id, created.iid, { stateEvent: 'close' })
    expect(edited.state).toBe('closed')
    const listed = await gitlab.MergeRequests.all({ projectId: project.id, state: 'closed' })
    expect(listed.map((m) => m.id)).toEqual([created.id])
    await gitlab.MergeRequests.remove(project.id, created.iid)
    await expect(gitlab.MergeRequests.show(project.id, created.iid)).rejects.toMatchObject({ cause: { description: '404 Not found' } })
  })
})
