import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  addTestMember,
  createTestIssue,
  createTestMergeRequest,
  createTestMilestone,
  createTestProject,
  createTestToken,
  createTestUser,
} from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
})
afterAll(() => server.close())

const ISSUE_BASIC_KEYS = [
  'id',
  'iid',
  'project_id',
  'title',
  'description',
  'state',
  'created_at',
  'updated_at',
  'closed_at',
  'closed_by',
  'labels',
  'milestone',
  'assignees',
  'author',
  'type',
  'assignee',
  'user_notes_count',
  'merge_requests_count',
  'upvotes',
  'downvotes',
  'due_date',
  'confidential',
  'discussion_locked',
  'issue_type',
  'web_url',
  'time_stats',
  'task_completion_status',
]

async function fixture() {
  const db = server.database.db
  const owner = await createTestUser(db)
  const guest = await createTestUser(db)
  const project = await createTestProject(db, { owner, visibility: 'public' })
  await addTestMember(db, { user: guest, project, accessLevel: 10 })
  const milestone = await createTestMilestone(db, { project, title: 'v1' })
  const other = await createTestMilestone(db, { project, title: 'v2' })
  const first = await createTestIssue(db, { project, author: owner, milestone, title: 'first' })
  const secret = await createTestIssue(db, { project, author: owner, milestone, title: 'secret', confidential: true })
  await createTestIssue(db, { project, author: owner, milestone: other, title: 'elsewhere' })
  await createTestIssue(db, { project, author: owner, title: 'none' })
  await db.updateTable('issues').set({ milestone_id: milestone.id }).where('id', 'in', [first.id, secret.id]).execute()
  const mergeRequest = await createTestMergeRequest(db, { project, author: owner, title: 'in v1' })
  await db.updateTable('merge_requests').set({ milestone_id: milestone.id }).where('id', '=', mergeRequest.id).execute()
  await createTestMergeRequest(db, { project, author: owner, title: 'not in v1' })
  return {
    project,
    milestone,
    first,
    secret,
    mergeRequest,
    ownerToken: (await createTestToken(db, owner)).value,
    guestToken: (await createTestToken(db, guest)).value,
  }
}

describe('a milestone’s issues and merge requests', () => {
  test('issues as IssueBasic, confidential ones only for those who may see them, paginated', async () => {
    const { project, milestone, first, secret, ownerToken, guestToken } = await fixture()
    const path = `/api/v4/projects/${project.id}/milestones/${milestone.id}/issues`
    const byOwner = await request('GET', path, { token: ownerToken })
    expect(byOwner.status).toBe(200)
    expect(byOwner.headers['x-total']).toBe('2')
    expect(byOwner.body.map((issue: { id: number }) => issue.id)).toEqual([first.id, secret.id])
    expect(Object.keys(byOwner.body[0])).toEqual(ISSUE_BASIC_KEYS)
    expect(byOwner.body[0].milestone).toMatchObject({ id: milestone.id, title: 'v1' })

    const byGuest = await request('GET', path, { token: guestToken })
    expect(byGuest.body.map((issue: { id: number }) => issue.id)).toEqual([first.id])
    const anonymous = await request('GET', path)
    expect(anonymous.body.map((issue: { id: number }) => issue.id)).toEqual([first.id])

    const paged = await request('GET', `${path}?per_page=1&page=2`, { token: ownerToken })
    expect([paged.headers['x-page'], paged.headers['x-total-pages'], paged.body.map((i: { id: number }) => i.id)]).toEqual([
      '2',
      '2',
      [secret.id],
    ])
  })

  test('merge requests as MergeRequestBasic; an unknown milestone is 404', async () => {
    const { project, milestone, mergeRequest, ownerToken } = await fixture()
    const list = await request('GET', `/api/v4/projects/${project.id}/milestones/${milestone.id}/merge_requests`, { token: ownerToken })
    expect(list.status).toBe(200)
    expect(list.body.map((mr: { id: number }) => mr.id)).toEqual([mergeRequest.id])
    expect(list.body[0]).toMatchObject({ iid: mergeRequest.iid, title: 'in v1', milestone: { id: milestone.id } })

    for (const kind of ['issues', 'merge_requests']) {
      const missing = await request('GET', `/api/v4/projects/${project.id}/milestones/999999/${kind}`, { token: ownerToken })
      expect([missing.status, missing.body]).toEqual([404, { message: '404 Not found' }])
    }
  })
})
