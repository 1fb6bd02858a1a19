import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
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
let reviewer: Person
let developer: Person

beforeAll(async () => {
  server = await startNoticingServer()
  request = client(`${server.url}/api/v4`)
  const db = server.database.db
  owner = await createPerson(db, 'olga')
  reviewer = await createPerson(db, 'rene')
  developer = await createPerson(db, 'dora')
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

/** Commits one file on `branch` through the commits API (from main when the branch is new); answers the commit's id. */
async function commitFile(projectId: number, branch: string, file: string, startBranch?: string): Promise<string> {
  const res = await request('POST', `/projects/${projectId}/repository/commits`, {
    token: owner.token,
    body: {
      branch,
      ...(startBranch ? { start_branch: startBranch } : {}),
      commit_message: `Add ${file}`,
      actions: [{ action: 'create', file_path: file, content: `${file}\n` }],
    },
  })
  expect(res.status, res.text).toBe(201)
  return res.body.id
}

async function fixture() {
  const project = await createRepositoryProject(request, owner, { path: `repo-${Math.random().toString(36).slice(2, 8)}` })
  await addProjectMember(server.database.db, reviewer, project.id, 30)
  await addProjectMember(server.database.db, developer, project.id, 30)
  const head = await commitFile(project.id, 'feature', 'a.txt', 'main')
  seen.length = 0
  return { projectId: project.id as number, head }
}

describe('merge requests tell of their changes in their transaction', () => {
  test('opening, editing, closing and reopening', async () => {
    const { projectId } = await fixture()
    server.freeze(AT)
    const created = await request('POST', `/projects/${projectId}/merge_requests`, {
      token: owner.token,
      body: { source_branch: 'feature', target_branch: 'main', title: 'Add a', description: 'First' },
    })
    expect(created.status, created.text).toBe(201)
    const { id, iid } = created.body
    const subject = { kind: 'merge_request', projectId, mergeRequestId: id, actorId: owner.user.id }
    expect(changesSeen()).toEqual([
      {
        ...subject,
        action: 'open',
        at: AT,
        changes: {
          author_id: { previous: null, current: owner.user.id },
          created_at: { previous: null, current: AT.toISOString() },
          description: { previous: null, current: 'First' },
          id: { previous: null, current: id },
          iid: { previous: null, current: iid },
          source_branch: { previous: null, current: 'feature' },
          source_project_id: { previous: null, current: projectId },
          target_branch: { previous: null, current: 'main' },
          target_project_id: { previous: null, current: projectId },
          title: { previous: null, current: 'Add a' },
          updated_at: { previous: null, current: AT.toISOString() },
        },
      },
    ])

    seen.length = 0
    server.freeze(LATER)
    const closed = await request('PUT', `/projects/${projectId}/merge_requests/${iid}`, {
      token: owner.token,
      body: { title: 'Draft: Add a', state_event: 'close', reviewer_ids: [reviewer.user.id] },
    })
    expect(closed.status, closed.text).toBe(200)
    const updatedAt = { previous: AT.toISOString(), current: LATER.toISOString() }
    expect(changesSeen()).toEqual([
      { ...subject, action: 'close', at: LATER, changes: { state_id: { previous: 1, current: 2 }, updated_at: updatedAt } },
      {
        ...subject,
        action: 'update',
        at: LATER,
        changes: {
          draft: { previous: false, current: true },
          title: { previous: 'Add a', current: 'Draft: Add a' },
          updated_by_id: { previous: null, current: owner.user.id },
          reviewers: { previous: [], current: [reviewer.user.id] },
          updated_at: updatedAt,
        },
      },
    ])

    seen.length = 0
    server.freeze(AT)
    const reopened = await request('PUT', `/projects/${projectId}/merge_requests/${iid}`, {
      token: owner.token,
      body: { state_event: 'reopen' },
    })
    expect(reopened.status, reopened.text).toBe(200)
    expect(changesSeen()).toEqual([
      {
        ...subject,
        action: 'reopen',
        at: AT,
        changes: { state_id: { previous: 2, current: 1 }, updated_at: { previous: LATER.toISOString(), current: AT.toISOString() } },
      },
    ])
  })

  test('approvals: the first approves, others approve too; taking back all but the last is an unapproval', async () => {
    const { projectId } = await fixture()
    const created = await request('POST', `/projects/${projectId}/merge_requests`, {
      token: owner.token,
      body: { source_branch: 'feature', target_branch: 'main', title: 'Add a' },
    })
    const { id, iid } = created.body
    const approvals: [Person, string][] = [
      [reviewer, 'approve'],
      [developer, 'approve'],
      [reviewer, 'unapprove'],
      [developer, 'unapprove'],
    ]
    seen.length = 0
    for (const [who, verb] of approvals) {
      const res = await request('POST', `/projects/${projectId}/merge_requests/${iid}/${verb}`, { token: who.token })
      expect(res.status, res.text).toBe(verb === 'approve' ? 201 : 201)
    }
    expect(
      changesSeen().map((change) => [change.kind, 'action' in change && change.action, 'actorId' in change && change.actorId]),
    ).toEqual([
      ['merge_request', 'approved', reviewer.user.id],
      ['merge_request', 'approval', developer.user.id],
      ['merge_request', 'unapproval', reviewer.user.id],
      ['merge_request', 'unapproved', developer.user.id],
    ])
    expect(changesSeen().every((change) => change.kind === 'merge_request' && change.mergeRequestId === id)).toBe(true)
  })

  test('a commit on the source branch updates the merge request with its old head; a merge is a push and a merge', async () => {
    const { projectId, head } = await fixture()
    const created = await request('POST', `/projects/${projectId}/merge_requests`, {
      token: owner.token,
      body: { source_branch: 'feature', target_branch: 'main', title: 'Add a' },
    })
    const { id, iid } = created.body
    seen.length = 0
    server.freeze(AT)
    const next = await commitFile(projectId, 'feature', 'b.txt')
    expect(changesSeen()).toEqual([
      { kind: 'push', projectId, actorId: owner.user.id, ref: 'refs/heads/feature', before: head, after: next, at: AT },
      { kind: 'merge_request', action: 'update', projectId, mergeRequestId: id, actorId: owner.user.id, changes: {}, oldrev: head, at: AT },
    ])

    const main = await request('GET', `/projects/${projectId}/repository/branches/main`, { token: owner.token })
    seen.length = 0
    server.freeze(LATER)
    const merged = await request('PUT', `/projects/${projectId}/merge_requests/${iid}/merge`, { token: owner.token })
    expect(merged.status, merged.text).toBe(200)
    expect(changesSeen()).toEqual([
      {
        kind: 'push',
        projectId,
        actorId: owner.user.id,
        ref: 'refs/heads/main',
        before: main.body.commit.id,
        after: merged.body.merge_commit_sha,
        at: LATER,
      },
      {
        kind: 'merge_request',
        action: 'merge',
        projectId,
        mergeRequestId: id,
        actorId: owner.user.id,
        changes: { state_id: { previous: 1, current: 3 }, updated_at: { previous: expect.any(String), current: LATER.toISOString() } },
        at: LATER,
      },
    ])
  })
})
