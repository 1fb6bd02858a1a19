import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'
import type { LabelRow, NamespaceRow, ProjectRow } from '../../../db/schema.js'
import { createTestGroup, createTestLabel, createTestProject } from '../../../testing/factories.js'
import { client } from '../../../testing/http.js'
import { addProjectMember, createPerson, type Person } from '../../../testing/repositories.js'
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
let developer: Person
let group: NamespaceRow
let project: ProjectRow
let bug: LabelRow
let ux: LabelRow

beforeAll(async () => {
  server = await startNoticingServer()
  request = client(`${server.url}/api/v4`)
  const db = server.database.db
  owner = await createPerson(db, 'olga', { email: 'olga@example.com' })
  await db.updateTable('users').set({ public_email: 'olga@example.com' }).where('id', '=', owner.user.id).execute()
  owner.user = { ...owner.user, public_email: 'olga@example.com' }
  developer = await createPerson(db, 'dev')
  group = await createTestGroup(db, { name: 'Platform Team', path: 'platform' })
  project = await createTestProject(db, { namespace: group, path: 'api', name: 'API' })
  await addProjectMember(db, owner, project.id, 50)
  await addProjectMember(db, developer, project.id, 30)
  bug = await createTestLabel(db, { project, title: 'bug', color: '#ff0000', description: 'Something is wrong' })
  ux = await createTestLabel(db, { group, title: 'ux' })
})
afterAll(() => server.close())
beforeEach(() => {
  seen.length = 0
})

const AT = new Date('2026-11-20T10:00:00.000Z')
const LATER = new Date('2026-11-21T11:30:05.000Z')

function labelJson(label: LabelRow) {
  return {
    id: label.id,
    title: label.title,
    color: label.color,
    project_id: label.project_id,
    created_at: utc(label.created_at),
    updated_at: utc(label.updated_at),
    template: false,
    description: label.description,
    type: label.group_id === null ? 'ProjectLabel' : 'GroupLabel',
    group_id: label.group_id,
  }
}

function projectJson() {
  return expectedHookProject(server.url, project, 'Platform Team')
}

describe('Issue Hook', () => {
  test('an issue opened with labels and an assignee: GitLab’s body, field by field', async () => {
    server.freeze(AT)
    const res = await request('POST', `/projects/${project.id}/issues`, {
      token: owner.token,
      body: {
        title: 'Broken build',
        description: 'See ![log](/uploads/abc/log.png) and ![x](https://example.com/x.png)',
        labels: 'bug,ux',
        assignee_ids: [developer.user.id],
        due_date: '2026-12-01',
      },
    })
    expect(res.status, res.text).toBe(201)
    const { id, iid } = res.body
    expect(seen).toHaveLength(1)
    const [{ payloads }] = seen
    const labels = [labelJson(bug), labelJson(ux)]
    const objectAttributes = {
      author_id: owner.user.id,
      closed_at: null,
      confidential: false,
      created_at: utc(AT),
      description: `See ![log](${server.url}/${project.full_path}/uploads/abc/log.png) and ![x](https://example.com/x.png)`,
      discussion_locked: null,
      due_date: '2026-12-01',
      id,
      iid,
      last_edited_at: null,
      last_edited_by_id: null,
      milestone_id: null,
      moved_to_id: null,
      duplicated_to_id: null,
      project_id: project.id,
      relative_position: null,
      state_id: 1,
      time_estimate: 0,
      title: 'Broken build',
      updated_at: utc(AT),
      updated_by_id: null,
      type: 'Issue',
      url: `${server.url}/${project.full_path}/-/issues/${iid}`,
      total_time_spent: 0,
      time_change: 0,
      human_total_time_spent: null,
      human_time_change: null,
      human_time_estimate: null,
      assignee_ids: [developer.user.id],
      assignee_id: developer.user.id,
      labels,
      state: 'opened',
      severity: 'unknown',
      customer_relations_contacts: [],
      action: 'open',
    }
    const body = {
      object_kind: 'issue',
      event_type: 'issue',
      user: expectedHookUser(owner.user),
      project: projectJson(),
      object_attributes: objectAttributes,
      labels,
      changes: {
        author_id: { previous: null, current: owner.user.id },
        created_at: { previous: null, current: utc(AT) },
        description: { previous: null, current: 'See ![log](/uploads/abc/log.png) and ![x](https://example.com/x.png)' },
        due_date: { previous: null, current: '2026-12-01' },
        id: { previous: null, current: id },
        iid: { previous: null, current: iid },
        project_id: { previous: null, current: project.id },
        title: { previous: null, current: 'Broken build' },
        updated_at: { previous: null, current: utc(AT) },
      },
      repository: {
        name: 'API',
        url: projectJson().url,
        description: project.description,
        homepage: projectJson().homepage,
      },
      assignees: [expectedHookUser(developer.user)],
    }
    expect(payloads).toEqual([{ event: 'Issue Hook', trigger: 'issues_events', scope: 'project', body }])
    // Fields in GitLab's order, as its builders write them.
    expect(Object.keys(payloads[0].body)).toEqual(Object.keys(body))
    expect(Object.keys(payloads[0].body.object_attributes as object)).toEqual(Object.keys(objectAttributes))
  })

  test('an edit tells labels and people as GitLab does, in the order of its safe keys; a close tells its state', async () => {
    server.freeze(AT)
    const created = await request('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Old', labels: 'bug' } })
    seen.length = 0
    server.freeze(LATER)
    const res = await request('PUT', `/projects/${project.id}/issues/${created.body.iid}`, {
      token: developer.token,
      body: { title: 'New', labels: 'ux', assignee_ids: [owner.user.id], state_event: 'close' },
    })
    expect(res.status, res.text).toBe(200)
    const [closed, updated] = seen.map((noticed) => noticed.payloads[0].body)
    expect(closed.object_attributes).toMatchObject({ action: 'close', state: 'closed', state_id: 2, closed_at: utc(LATER) })
    expect(closed.user).toEqual(expectedHookUser(developer.user))
    expect(closed.changes).toEqual({
      closed_at: { previous: null, current: utc(LATER) },
      state_id: { previous: 1, current: 2 },
      updated_at: { previous: utc(AT), current: utc(LATER) },
    })
    expect(updated.object_attributes).toMatchObject({ action: 'update', title: 'New', updated_by_id: developer.user.id })
    expect(updated.changes).toEqual({
      title: { previous: 'Old', current: 'New' },
      updated_at: { previous: utc(AT), current: utc(LATER) },
      updated_by_id: { previous: null, current: developer.user.id },
      assignees: { previous: [], current: [expectedHookUser(owner.user)] },
      labels: { previous: [labelJson(bug)], current: [labelJson(ux)] },
    })
    expect(Object.keys(updated.changes as object)).toEqual(['title', 'updated_at', 'updated_by_id', 'assignees', 'labels'])
  })

  test('a confidential issue is heard by confidential_issues_events as confidential_issue', async () => {
    const res = await request('POST', `/projects/${project.id}/issues`, {
      token: owner.token,
      body: { title: 'Secret', confidential: true },
    })
    expect(res.status, res.text).toBe(201)
    const [payload] = seen[0].payloads
    expect([payload.event, payload.trigger, payload.scope, payload.body.event_type, payload.body.object_kind]).toEqual([
      'Issue Hook',
      'confidential_issues_events',
      'project',
      'confidential_issue',
      'issue',
    ])
    expect(payload.body).not.toHaveProperty('assignees')
  })
})
