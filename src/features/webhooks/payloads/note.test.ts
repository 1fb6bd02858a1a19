import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'
import type { ProjectRow } from '../../../db/schema.js'
import { createTestIssue, createTestProject } from '../../../testing/factories.js'
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
let reporter: Person
let project: ProjectRow

beforeAll(async () => {
  server = await startNoticingServer()
  request = client(`${server.url}/api/v4`)
  const db = server.database.db
  owner = await createPerson(db, 'olga')
  reporter = await createPerson(db, 'rita')
  project = await createTestProject(db, { owner: owner.user, path: 'notes' })
  await addProjectMember(db, reporter, project.id, 20)
})
afterAll(() => server.close())
beforeEach(() => {
  seen.length = 0
})

const AT = new Date('2026-11-20T10:00:00.000Z')
const LATER = new Date('2026-11-21T11:30:05.000Z')

describe('Note Hook', () => {
  test('a comment on an issue, then edited by someone else: in the name of its author, with the issue', async () => {
    const issue = await createTestIssue(server.database.db, { project, author: owner.user, title: 'Crash', createdAt: AT })
    server.freeze(AT)
    const created = await request('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, {
      token: reporter.token,
      body: { body: 'Seen it: ![shot](/uploads/1/shot.png)' },
    })
    expect(created.status, created.text).toBe(201)
    const note = await server.database.db.selectFrom('notes').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow()
    const [{ payloads }] = seen
    const projectJson = expectedHookProject(server.url, project, owner.user.name)
    const issueUrl = `${server.url}/${project.full_path}/-/issues/${issue.iid}`
    const objectAttributes = {
      attachment: null,
      author_id: reporter.user.id,
      change_position: null,
      commit_id: null,
      created_at: utc(AT),
      discussion_id: note.discussion_id,
      id: note.id,
      line_code: null,
      note: 'Seen it: ![shot](/uploads/1/shot.png)',
      noteable_id: issue.id,
      noteable_type: 'Issue',
      original_position: null,
      position: null,
      project_id: project.id,
      resolved_at: null,
      resolved_by_id: null,
      resolved_by_push: null,
      st_diff: null,
      system: false,
      type: null,
      updated_at: utc(AT),
      updated_by_id: null,
      description: `Seen it: ![shot](${server.url}/${project.full_path}/uploads/1/shot.png)`,
      url: `${issueUrl}#note_${note.id}`,
      action: 'create',
    }
    const issueRow = await server.database.db.selectFrom('issues').selectAll().where('id', '=', issue.id).executeTakeFirstOrThrow()
    const body = {
      object_kind: 'note',
      event_type: 'note',
      user: expectedHookUser(reporter.user),
      project_id: project.id,
      project: projectJson,
      object_attributes: objectAttributes,
      repository: { name: project.name, url: projectJson.url, description: project.description, homepage: projectJson.homepage },
      issue: {
        author_id: owner.user.id,
        closed_at: null,
        confidential: false,
        created_at: utc(AT),
        description: null,
        discussion_locked: null,
        due_date: null,
        id: issue.id,
        iid: issue.iid,
        last_edited_at: null,
        last_edited_by_id: null,
        milestone_id: null,
        moved_to_id: null,
        duplicated_to_id: null,
        project_id: project.id,
        relative_position: null,
        state_id: 1,
        time_estimate: 0,
        title: 'Crash',
        // The comment touched its issue.
        updated_at: utc(issueRow.updated_at),
        updated_by_id: null,
        type: 'Issue',
        url: issueUrl,
        total_time_spent: 0,
        time_change: 0,
        human_total_time_spent: null,
        human_time_change: null,
        human_time_estimate: null,
        assignee_ids: [],
        assignee_id: null,
        labels: [],
        state: 'opened',
        severity: 'unknown',
        customer_relations_contacts: [],
      },
    }
    expect(payloads).toEqual([{ event: 'Note Hook', trigger: 'note_events', scope: 'project', body }])
    expect(Object.keys(payloads[0].body.object_attributes as object)).toEqual(Object.keys(objectAttributes))

    seen.length = 0
    server.freeze(LATER)
    const edited = await request('PUT', `/projects/${project.id}/issues/${issue.iid}/notes/${note.id}`, {
      token: owner.token,
      body: { body: 'Seen it twice' },
    })
    expect(edited.status, edited.text).toBe(200)
    const [{ payloads: updated }] = seen
    expect(updated[0].body.user).toEqual(expectedHookUser(reporter.user))
    expect(updated[0].body.object_attributes).toMatchObject({
      action: 'update',
      note: 'Seen it twice',
      updated_at: utc(LATER),
      updated_by_id: owner.user.id,
    })
  })

  test('an internal comment, and any comment on a confidential issue, is heard by confidential_note_events', async () => {
    const open = await createTestIssue(server.database.db, { project, author: owner.user })
    const secret = await createTestIssue(server.database.db, { project, author: owner.user, confidential: true })
    await request('POST', `/projects/${project.id}/issues/${open.iid}/notes`, {
      token: owner.token,
      body: { body: 'Internal', internal: true },
    })
    await request('POST', `/projects/${project.id}/issues/${secret.iid}/notes`, { token: owner.token, body: { body: 'Hush' } })
    await request('POST', `/projects/${project.id}/issues/${open.iid}/notes`, { token: owner.token, body: { body: 'Public' } })
    expect(seen.map(({ payloads: [payload] }) => [payload.trigger, payload.body.event_type])).toEqual([
      ['confidential_note_events', 'confidential_note'],
      ['confidential_note_events', 'confidential_note'],
      ['note_events', 'note'],
    ])
  })

  test('a comment on a merge request carries the merge request', async () => {
    const created = await createRepositoryProject(request, owner, { path: 'reviewed' })
    const commit = await request('POST', `/projects/${created.id}/repository/commits`, {
      token: owner.token,
      body: {
        branch: 'feature',
        start_branch: 'main',
        commit_message: 'Add a',
        actions: [{ action: 'create', file_path: 'a', content: 'a' }],
      },
    })
    expect(commit.status, commit.text).toBe(201)
    const opened = await request('POST', `/projects/${created.id}/merge_requests`, {
      token: owner.token,
      body: { source_branch: 'feature', target_branch: 'main', title: 'Add a' },
    })
    seen.length = 0
    const res = await request('POST', `/projects/${created.id}/merge_requests/${opened.body.iid}/notes`, {
      token: owner.token,
      body: { body: 'Ship it' },
    })
    expect(res.status, res.text).toBe(201)
    const [{ payloads }] = seen
    expect(payloads[0].body.object_attributes).toMatchObject({
      noteable_type: 'MergeRequest',
      noteable_id: opened.body.id,
      url: `${opened.body.web_url}#note_${res.body.id}`,
    })
    expect(payloads[0].body.merge_request).toMatchObject({ id: opened.body.id, iid: opened.body.iid, title: 'Add a', state: 'opened' })
    expect(payloads[0].body.merge_request).not.toHaveProperty('action')
  })
})
