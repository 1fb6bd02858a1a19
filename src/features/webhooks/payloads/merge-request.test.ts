import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'
import { client } from '../../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../../testing/repositories.js'
import type { TestServer } from '../../../testing/server.js'
import { expectedHookProject, expectedHookUser, utc, startNoticingServer, type Noticed } from './testing.js'

const seen = vi.hoisted(() => [] as Noticed[])
vi.mock('../../change-notices/index.js', async (original) => {
  const { keepingNotices } = await import('./testing.js')
  return keepingNotices(await original(), seen)
})

let server: TestServer
let request: ReturnType<typeof client>
let owner: Person
let reviewer: Person

beforeAll(async () => {
  server = await startNoticingServer()
  request = client(`${server.url}/api/v4`)
  owner = await createPerson(server.database.db, 'olga')
  reviewer = await createPerson(server.database.db, 'rene')
})
afterAll(() => server.close())
beforeEach(() => {
  seen.length = 0
})

const AT = new Date('2026-11-20T10:00:00.000Z')
const LATER = new Date('2026-11-21T11:30:05.000Z')

async function commitFile(projectId: number, branch: string, file: string, startBranch?: string): Promise<Record<string, any>> {
  const res = await request('POST', `/projects/${projectId}/repository/commits`, {
    token: owner.token,
    body: {
      branch,
      ...(startBranch ? { start_branch: startBranch } : {}),
      commit_message: `Add ${file}\n\nWith a body.`,
      actions: [{ action: 'create', file_path: file, content: `${file}\n` }],
    },
  })
  expect(res.status, res.text).toBe(201)
  return res.body
}

/** GL Commit#hook_attrs of a commit as the API showed it. */
function commitJson(projectPath: string, commit: Record<string, any>) {
  return {
    id: commit.id,
    message: commit.message,
    title: commit.title,
    timestamp: commit.committed_date.replace(/\.\d{3}/, ''),
    url: `${server.url}/${projectPath}/-/commit/${commit.id}`,
    author: { name: commit.author_name, email: commit.author_email },
  }
}

describe('Merge Request Hook', () => {
  test('opened, then updated by a commit on its source branch, then merged: GitLab’s bodies', async () => {
    const created = await createRepositoryProject(request, owner, { path: 'shop' })
    const projectId = created.id as number
    await addProjectMember(server.database.db, reviewer, projectId, 30)
    const first = await commitFile(projectId, 'feature', 'a.txt', 'main')
    const project = await server.database.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirstOrThrow()
    const projectJson = expectedHookProject(server.url, project, owner.user.name)
    seen.length = 0
    server.freeze(AT)
    const opened = await request('POST', `/projects/${projectId}/merge_requests`, {
      token: owner.token,
      body: {
        source_branch: 'feature',
        target_branch: 'main',
        title: 'Add a',
        description: 'Adds a.',
        labels: 'shop',
        assignee_ids: [owner.user.id],
        reviewer_ids: [reviewer.user.id],
        remove_source_branch: true,
      },
    })
    expect(opened.status, opened.text).toBe(201)
    const { id, iid } = opened.body
    const label = opened.body.labels
    expect(label).toEqual(['shop'])
    const labelRow = await server.database.db.selectFrom('labels').selectAll().where('title', '=', 'shop').executeTakeFirstOrThrow()
    const labelJson = {
      id: labelRow.id,
      title: 'shop',
      color: labelRow.color,
      project_id: projectId,
      created_at: utc(labelRow.created_at),
      updated_at: utc(labelRow.updated_at),
      template: false,
      description: null,
      type: 'ProjectLabel',
      group_id: null,
    }
    const objectAttributes = {
      assignee_id: owner.user.id,
      author_id: owner.user.id,
      created_at: utc(AT),
      description: 'Adds a.',
      draft: false,
      head_pipeline_id: null,
      id,
      iid,
      last_edited_at: null,
      last_edited_by_id: null,
      merge_commit_sha: null,
      merge_error: null,
      merge_params: { force_remove_source_branch: true },
      merge_status: 'unchecked',
      merge_user_id: null,
      merge_when_pipeline_succeeds: false,
      milestone_id: null,
      source_branch: 'feature',
      source_project_id: projectId,
      state_id: 1,
      target_branch: 'main',
      target_project_id: projectId,
      time_estimate: 0,
      title: 'Add a',
      updated_at: utc(AT),
      updated_by_id: null,
      prepared_at: utc(AT),
      assignee_ids: [owner.user.id],
      blocking_discussions_resolved: true,
      detailed_merge_status: 'unchecked',
      first_contribution: false,
      human_time_change: null,
      human_time_estimate: null,
      human_total_time_spent: null,
      labels: [labelJson],
      last_commit: commitJson(project.full_path, first),
      reviewer_ids: [reviewer.user.id],
      source: projectJson,
      state: 'opened',
      target: projectJson,
      time_change: 0,
      total_time_spent: 0,
      url: `${server.url}/${project.full_path}/-/merge_requests/${iid}`,
      work_in_progress: false,
      action: 'open',
    }
    const body = {
      object_kind: 'merge_request',
      event_type: 'merge_request',
      user: expectedHookUser(owner.user),
      project: projectJson,
      object_attributes: objectAttributes,
      labels: [labelJson],
      changes: {
        author_id: { previous: null, current: owner.user.id },
        created_at: { previous: null, current: utc(AT) },
        description: { previous: null, current: 'Adds a.' },
        id: { previous: null, current: id },
        iid: { previous: null, current: iid },
        source_branch: { previous: null, current: 'feature' },
        source_project_id: { previous: null, current: projectId },
        target_branch: { previous: null, current: 'main' },
        target_project_id: { previous: null, current: projectId },
        title: { previous: null, current: 'Add a' },
        updated_at: { previous: null, current: utc(AT) },
      },
      repository: { name: project.name, url: projectJson.url, description: project.description, homepage: projectJson.homepage },
      assignees: [expectedHookUser(owner.user)],
      reviewers: [expectedHookUser(reviewer.user)],
    }
    expect(seen.map((noticed) => noticed.payloads)).toEqual([
      [{ event: 'Merge Request Hook', trigger: 'merge_requests_events', scope: 'project', body }],
    ])
    expect(Object.keys(seen[0].payloads[0].body.object_attributes as object)).toEqual(Object.keys(objectAttributes))

    seen.length = 0
    const second = await commitFile(projectId, 'feature', 'b.txt')
    const updated = seen.find((noticed) => noticed.change.kind === 'merge_request')!.payloads[0].body
    expect(updated.changes).toEqual({})
    expect(updated.object_attributes).toMatchObject({
      action: 'update',
      oldrev: first.id,
      last_commit: commitJson(project.full_path, second),
    })
    expect(Object.keys(updated.object_attributes as object).slice(-2)).toEqual(['action', 'oldrev'])

    seen.length = 0
    server.freeze(LATER)
    const merged = await request('PUT', `/projects/${projectId}/merge_requests/${iid}/merge`, { token: owner.token })
    expect(merged.status, merged.text).toBe(200)
    const mergeBody = seen.find((noticed) => noticed.change.kind === 'merge_request')!.payloads[0].body
    expect(mergeBody.object_attributes).toMatchObject({
      action: 'merge',
      state: 'merged',
      state_id: 3,
      merge_status: 'can_be_merged',
      detailed_merge_status: 'not_open',
      merge_commit_sha: merged.body.merge_commit_sha,
      merge_user_id: owner.user.id,
      last_commit: commitJson(project.full_path, second),
    })
    expect(mergeBody.changes).toEqual({ state_id: { previous: 1, current: 3 }, updated_at: { previous: utc(AT), current: utc(LATER) } })
  })

  test('approvals are told as approved and unapproved, with nothing changed', async () => {
    const created = await createRepositoryProject(request, owner, { path: 'approvals' })
    await addProjectMember(server.database.db, reviewer, created.id, 30)
    await commitFile(created.id, 'feature', 'a.txt', 'main')
    const opened = await request('POST', `/projects/${created.id}/merge_requests`, {
      token: owner.token,
      body: { source_branch: 'feature', target_branch: 'main', title: 'Add a' },
    })
    seen.length = 0
    await request('POST', `/projects/${created.id}/merge_requests/${opened.body.iid}/approve`, { token: reviewer.token })
    await request('POST', `/projects/${created.id}/merge_requests/${opened.body.iid}/unapprove`, { token: reviewer.token })
    const bodies = seen.map((noticed) => noticed.payloads[0].body)
    expect(
      bodies.map((body) => [(body.object_attributes as Record<string, unknown>).action, body.changes, (body.user as { id: number }).id]),
    ).toEqual([
      ['approved', {}, reviewer.user.id],
      ['unapproved', {}, reviewer.user.id],
    ])
  })
})
