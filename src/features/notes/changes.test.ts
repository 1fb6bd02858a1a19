import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'
import { createTestIssue, createTestMergeRequest, createTestProject } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, type Person } from '../../testing/repositories.js'
import type { TestServer } from '../../testing/server.js'
import { startNoticingServer, type Noticed } from '../webhooks/payloads/testing.js'

const seen = vi.hoisted(() => [] as Noticed[])
vi.mock('../change-notices/index.js', async (original) => {
  const { keepingNotices } = await import('../webhooks/payloads/testing.js')
  return keepingNotices(await original(), seen)
})

let server: TestServer
let request: ReturnType<typeof client>
let owner: Person
let reporter: Person
let projectId: number
let issue: { id: number; iid: number }
let mergeRequest: { id: number; iid: number }

beforeAll(async () => {
  server = await startNoticingServer()
  request = client(`${server.url}/api/v4`)
  const db = server.database.db
  owner = await createPerson(db, 'olga')
  reporter = await createPerson(db, 'rita')
  const project = await createTestProject(db, { owner: owner.user })
  projectId = project.id
  await addProjectMember(db, reporter, projectId, 20)
  issue = await createTestIssue(db, { project, author: owner.user })
  mergeRequest = await createTestMergeRequest(db, { project, author: owner.user })
})
afterAll(() => server.close())
beforeEach(() => {
  seen.length = 0
})

const AT = new Date('2026-11-20T10:00:00.000Z')

describe('comments tell of their changes in their transaction', () => {
  test.each([
    ['an issue', () => `issues/${issue.iid}`],
    ['a merge request', () => `merge_requests/${mergeRequest.iid}`],
  ])('a comment on %s is told when written and when edited, by its author', async (_name, path) => {
    server.freeze(AT)
    const created = await request('POST', `/projects/${projectId}/${path()}/notes`, { token: reporter.token, body: { body: 'Looks good' } })
    expect(created.status, created.text).toBe(201)
    const noteId = created.body.id
    const subject = { kind: 'note', projectId, noteId, actorId: reporter.user.id, at: AT }
    expect(seen.map((noticed) => noticed.change)).toEqual([{ ...subject, action: 'create' }])

    seen.length = 0
    const edited = await request('PUT', `/projects/${projectId}/${path()}/notes/${noteId}`, {
      token: reporter.token,
      body: { body: 'Looks great' },
    })
    expect(edited.status, edited.text).toBe(200)
    expect(seen.map((noticed) => noticed.change)).toEqual([{ ...subject, action: 'update' }])

    seen.length = 0
    const same = await request('PUT', `/projects/${projectId}/${path()}/notes/${noteId}`, {
      token: reporter.token,
      body: { body: 'Looks great' },
    })
    expect(same.status, same.text).toBe(200)
    expect(seen).toEqual([])
  })

  test('resolving the last open thread of a merge request updates it', async () => {
    const threads = []
    for (const body of ['First', 'Second']) {
      const res = await request('POST', `/projects/${projectId}/merge_requests/${mergeRequest.iid}/discussions`, {
        token: owner.token,
        body: { body },
      })
      expect(res.status, res.text).toBe(201)
      threads.push(res.body.id as string)
    }
    seen.length = 0
    for (const thread of threads) {
      const res = await request('PUT', `/projects/${projectId}/merge_requests/${mergeRequest.iid}/discussions/${thread}`, {
        token: owner.token,
        body: { resolved: true },
      })
      expect(res.status, res.text).toBe(200)
      expect(seen.length).toBe(thread === threads[0] ? 0 : 1)
    }
    expect(seen[0].change).toEqual({
      kind: 'merge_request',
      action: 'update',
      projectId,
      mergeRequestId: mergeRequest.id,
      actorId: owner.user.id,
      changes: {},
      at: expect.any(Date),
    })
  })

  test('a change that leaves a system note tells no comment', async () => {
    const res = await request('PUT', `/projects/${projectId}/issues/${issue.iid}`, { token: owner.token, body: { labels: 'bug' } })
    expect(res.status, res.text).toBe(200)
    expect(seen.map((noticed) => noticed.change.kind)).toEqual(['issue'])
  })
})
