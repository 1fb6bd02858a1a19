import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'
import { createTestLabel, createTestProject } from '../../testing/factories.js'
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
let developer: Person
let projectId: number

beforeAll(async () => {
  server = await startNoticingServer()
  request = client(`${server.url}/api/v4`)
  const db = server.database.db
  owner = await createPerson(db, 'olga')
  developer = await createPerson(db, 'dev')
  const project = await createTestProject(db, { owner: owner.user })
  projectId = project.id
  await addProjectMember(db, developer, projectId, 30)
})
afterAll(() => server.close())
beforeEach(() => {
  seen.length = 0
})

const AT = new Date('2026-11-20T10:00:00.000Z')
const LATER = new Date('2026-11-21T11:30:00.000Z')

function changesSeen() {
  return seen.map((noticed) => noticed.change)
}

describe('issues tell of their changes in their transaction', () => {
  test('opening an issue tells its columns as set from nothing, as GitLab’s creation does', async () => {
    server.freeze(AT)
    const res = await request('POST', `/projects/${projectId}/issues`, {
      token: owner.token,
      body: { title: 'Broken build', description: 'It fails', due_date: '2026-12-01', assignee_ids: [developer.user.id] },
    })
    expect(res.status, res.text).toBe(201)
    const { id, iid } = res.body
    expect(changesSeen()).toEqual([
      {
        kind: 'issue',
        action: 'open',
        projectId,
        issueId: id,
        actorId: owner.user.id,
        changes: {
          author_id: { previous: null, current: owner.user.id },
          created_at: { previous: null, current: AT.toISOString() },
          description: { previous: null, current: 'It fails' },
          due_date: { previous: null, current: '2026-12-01' },
          id: { previous: null, current: id },
          iid: { previous: null, current: iid },
          project_id: { previous: null, current: projectId },
          title: { previous: null, current: 'Broken build' },
          updated_at: { previous: null, current: AT.toISOString() },
        },
        at: AT,
      },
    ])
  })

  test('an edit that closes tells the close first, then the rest with labels and people', async () => {
    const db = server.database.db
    const project = await db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirstOrThrow()
    const bug = await createTestLabel(db, { project, title: 'bug' })
    server.freeze(AT)
    const created = await request('POST', `/projects/${projectId}/issues`, { token: owner.token, body: { title: 'Old title' } })
    seen.length = 0
    server.freeze(LATER)
    const res = await request('PUT', `/projects/${projectId}/issues/${created.body.iid}`, {
      token: owner.token,
      body: { title: 'New title', state_event: 'close', add_labels: 'bug', assignee_ids: [developer.user.id] },
    })
    expect(res.status, res.text).toBe(200)
    const subject = { kind: 'issue', projectId, issueId: created.body.id, actorId: owner.user.id, at: LATER }
    const updatedAt = { previous: AT.toISOString(), current: LATER.toISOString() }
    expect(changesSeen()).toEqual([
      {
        ...subject,
        action: 'close',
        changes: {
          closed_at: { previous: null, current: LATER.toISOString() },
          state_id: { previous: 1, current: 2 },
          updated_at: updatedAt,
        },
      },
      {
        ...subject,
        action: 'update',
        changes: {
          title: { previous: 'Old title', current: 'New title' },
          updated_by_id: { previous: null, current: owner.user.id },
          assignees: { previous: [], current: [developer.user.id] },
          labels: { previous: [], current: [bug.id] },
          updated_at: updatedAt,
        },
      },
    ])

    seen.length = 0
    server.freeze(AT)
    const reopened = await request('PUT', `/projects/${projectId}/issues/${created.body.iid}`, {
      token: owner.token,
      body: { state_event: 'reopen' },
    })
    expect(reopened.status, reopened.text).toBe(200)
    expect(changesSeen()).toEqual([
      {
        ...subject,
        action: 'reopen',
        at: AT,
        changes: {
          closed_at: { previous: LATER.toISOString(), current: null },
          state_id: { previous: 2, current: 1 },
          updated_at: { previous: LATER.toISOString(), current: AT.toISOString() },
        },
      },
    ])
  })

  test('an edit that changes nothing tells nothing', async () => {
    const created = await request('POST', `/projects/${projectId}/issues`, { token: owner.token, body: { title: 'Same' } })
    seen.length = 0
    const res = await request('PUT', `/projects/${projectId}/issues/${created.body.iid}`, { token: owner.token, body: { title: 'Same' } })
    expect(res.status, res.text).toBe(200)
    expect(seen).toEqual([])
  })

  test('a comment of a quick action alone closes the issue as an edit does, and is no note', async () => {
    const created = await request('POST', `/projects/${projectId}/issues`, { token: owner.token, body: { title: 'To close' } })
    seen.length = 0
    server.freeze(LATER)
    const res = await request('POST', `/projects/${projectId}/issues/${created.body.iid}/notes`, {
      token: developer.token,
      body: { body: '/close' },
    })
    expect(res.status, res.text).toBe(202)
    expect(changesSeen()).toEqual([
      expect.objectContaining({ kind: 'issue', action: 'close', issueId: created.body.id, actorId: developer.user.id }),
    ])
  })
})
