import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import {
  addTestMember,
  createTestGroup,
  createTestIssue,
  createTestLabel,
  createTestMilestone,
  createTestProject,
  createTestToken,
  createTestUser,
} from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { expectedBasic } from '../users/testing.js'
import { eventsOf, systemNotesOf } from '../issuables/testing.js'

let server: TestServer
let request: ReturnType<typeof client>
let db: TestServer['database']['db']

beforeAll(async () => {
  server = await startTestServer()
  request = client(`${server.url}/api/v4`)
  db = server.database.db
})
afterAll(() => server.close())

async function userWithToken(overrides: Parameters<typeof createTestUser>[1] = {}): Promise<{ user: User; token: string }> {
  const user = await createTestUser(db, overrides)
  return { user, token: (await createTestToken(db, user)).value }
}

/** A group project with an owner, a reporter, a guest, and an outsider. */
async function fixture(visibility: 'public' | 'private' = 'public') {
  const group = await createTestGroup(db, { visibility })
  const project = await createTestProject(db, { namespace: group, visibility })
  const owner = await userWithToken()
  const reporter = await userWithToken()
  const guest = await userWithToken()
  const outsider = await userWithToken()
  await addTestMember(db, { user: owner.user, project, accessLevel: 50 })
  await addTestMember(db, { user: reporter.user, project, accessLevel: 20 })
  await addTestMember(db, { user: guest.user, project, accessLevel: 10 })
  return { group, project, owner, reporter, guest, outsider }
}

const ISSUE_KEYS = [
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
  'has_tasks',
  '_links',
  'references',
  'severity',
  'subscribed',
  'moved_to_id',
  'imported',
  'imported_from',
  'service_desk_reply_to',
]

describe('POST /projects/:id/issues', () => {
  test('creates an issue and answers the Issue entity in GitLab order', async () => {
    const { project, reporter } = await fixture()
    const label = await createTestLabel(db, { project, title: 'bug' })
    const milestone = await createTestMilestone(db, { project, title: 'v1' })
    const response = await request('POST', `/projects/${project.id}/issues`, {
      token: reporter.token,
      body: {
        title: 'Broken',
        description: '- [x] one\n- [ ] two',
        labels: 'bug,new-one',
        assignee_ids: [reporter.user.id],
        milestone_id: milestone.id,
        due_date: '2030-01-02',
      },
    })
    expect(response.status).toBe(201)
    const body = response.body
    expect(Object.keys(body)).toEqual([...ISSUE_KEYS.slice(0, 28), 'task_status', ...ISSUE_KEYS.slice(28)])
    const base = server.url
    expect(body).toMatchObject({
      iid: 1,
      project_id: project.id,
      title: 'Broken',
      state: 'opened',
      closed_at: null,
      closed_by: null,
      labels: ['bug', 'new-one'],
      assignees: [expectedBasic(reporter.user, base)],
      assignee: expectedBasic(reporter.user, base),
      author: expectedBasic(reporter.user, base),
      type: 'ISSUE',
      issue_type: 'issue',
      due_date: '2030-01-02',
      confidential: false,
      discussion_locked: null,
      user_notes_count: 0,
      web_url: `${base}/${project.full_path}/-/issues/1`,
      time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
      task_completion_status: { count: 2, completed_count: 1 },
      has_tasks: true,
      task_status: '1 of 2 tasks completed',
      _links: {
        self: `${base}/api/v4/projects/${project.id}/issues/1`,
        notes: `${base}/api/v4/projects/${project.id}/issues/1/notes`,
        award_emoji: `${base}/api/v4/projects/${project.id}/issues/1/award_emoji`,
        project: `${base}/api/v4/projects/${project.id}`,
        closed_as_duplicate_of: null,
      },
      references: { short: '#1', relative: '#1', full: `${project.full_path}#1` },
      severity: 'UNKNOWN',
      subscribed: true,
    })
    expect(body.milestone).toEqual({
      id: milestone.id,
      iid: milestone.iid,
      project_id: project.id,
      title: 'v1',
      description: null,
      state: 'active',
      created_at: milestone.created_at,
      updated_at: milestone.updated_at,
      due_date: null,
      start_date: null,
      expired: false,
      web_url: `${base}/${project.full_path}/-/milestones/${milestone.iid}`,
    })
    const created = (await db.selectFrom('labels').selectAll().where('title', '=', 'new-one').executeTakeFirst())!
    expect(await systemNotesOf(db, { issueId: body.id })).toEqual([
      `added ~${label.id} ~${created.id} labels`,
      `changed milestone to %${milestone.iid}`,
      'changed due date to January 2, 2030',
    ])
    expect(await eventsOf(db, 'Issue', body.id)).toEqual([[1, reporter.user.id]])
  })

  test('a guest creates an issue but its labels, assignees, milestone and confidentiality are dropped', async () => {
    const { project, guest, reporter } = await fixture()
    await createTestLabel(db, { project, title: 'bug' })
    const milestone = await createTestMilestone(db, { project })
    const response = await request('POST', `/projects/${project.id}/issues`, {
      token: guest.token,
      body: { title: 'From a guest', labels: ['bug'], assignee_ids: [reporter.user.id], milestone_id: milestone.id, confidential: true },
    })
    expect(response.status).toBe(201)
    expect(response.body).toMatchObject({ labels: [], assignees: [], assignee: null, milestone: null, confidential: false })
    expect(await systemNotesOf(db, { issueId: response.body.id })).toEqual([])
  })

  test('refuses anonymous callers, outsiders of private projects, blank titles and missing titles', async () => {
    const { project, owner, outsider } = await fixture('private')
    expect((await request('POST', `/projects/${project.id}/issues`, { body: { title: 'x' } })).status).toBe(401)
    const hidden = await request('POST', `/projects/${project.id}/issues`, { token: outsider.token, body: { title: 'x' } })
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Project Not Found' }])
    const missing = await request('POST', `/projects/${project.id}/issues`, { token: owner.token, body: {} })
    expect([missing.status, missing.body]).toEqual([400, { message: '400 (Bad request) "title" not given' }])
    const blank = await request('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: ' ' } })
    expect([blank.status, blank.body]).toEqual([400, { message: { title: ["can't be blank"] } }])
    const long = await request('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'x'.repeat(256) } })
    expect([long.status, long.body]).toEqual([400, { message: { title: ['is too long (maximum is 255 characters)'] } }])
    const badType = await request('POST', `/projects/${project.id}/issues`, {
      token: owner.token,
      body: { title: 'x', issue_type: 'epic' },
    })
    expect([badType.status, badType.body]).toEqual([400, { error: 'issue_type does not have a valid value' }])
    expect(await db.selectFrom('issues').select('id').where('project_id', '=', project.id).execute()).toEqual([])
  })

  test('hands out iids 1..N without gaps or duplicates to concurrent creations', async () => {
    const { project, owner } = await fixture()
    const count = 25
    const responses = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        request('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: `n${i}` } }),
      ),
    )
    expect(responses.map((r) => r.status)).toEqual(Array(count).fill(201))
    const iids = responses.map((r) => r.body.iid as number).sort((a, b) => a - b)
    expect(iids).toEqual(Array.from({ length: count }, (_, i) => i + 1))
  })

  test('created_at is taken from owners and administrators only; incidents need a Reporter', async () => {
    const { project, owner, guest } = await fixture()
    const byOwner = await request('POST', `/projects/${project.id}/issues`, {
      token: owner.token,
      body: { title: 'old', created_at: '2020-01-01T00:00:00Z', issue_type: 'incident' },
    })
    expect(byOwner.body).toMatchObject({ created_at: '2020-01-01T00:00:00.000Z', type: 'INCIDENT', issue_type: 'incident' })
    expect(byOwner.body.web_url).toBe(`${server.url}/${project.full_path}/-/issues/incident/${byOwner.body.iid}`)
    const byGuest = await request('POST', `/projects/${project.id}/issues`, {
      token: guest.token,
      body: { title: 'old', created_at: '2020-01-01T00:00:00Z', issue_type: 'incident' },
    })
    expect(byGuest.body.created_at).not.toBe('2020-01-01T00:00:00.000Z')
    expect(byGuest.body.type).toBe('ISSUE')
  })
})

describe('PUT /projects/:id/issues/:issue_iid', () => {
  test('changes labels with add_labels and remove_labels, closes and reopens, with notes and events', async () => {
    const { project, reporter, guest } = await fixture()
    const a = await createTestLabel(db, { project, title: 'a' })
    const b = await createTestLabel(db, { project, title: 'b' })
    const c = await createTestLabel(db, { project, title: 'c' })
    const issue = await createTestIssue(db, { project, author: guest.user, labels: [a] })
    const path = `/projects/${project.id}/issues/${issue.iid}`
    const labelled = await request('PUT', path, { token: reporter.token, body: { add_labels: 'b,c', remove_labels: 'a' } })
    expect(labelled.status).toBe(200)
    expect(labelled.body.labels).toEqual(['b', 'c'])
    const assigned = await request('PUT', path, { token: reporter.token, body: { assignee_ids: [guest.user.id], labels: 'c' } })
    expect(assigned.body.assignees.map((u: { id: number }) => u.id)).toEqual([guest.user.id])
    const closed = await request('PUT', path, { token: reporter.token, body: { state_event: 'close' } })
    expect(closed.body).toMatchObject({ state: 'closed', closed_by: expectedBasic(reporter.user, server.url) })
    expect(closed.body.closed_at).toEqual(expect.any(String))
    const again = await request('PUT', path, { token: reporter.token, body: { state_event: 'close' } })
    expect(again.body.state).toBe('closed')
    const reopened = await request('PUT', path, { token: reporter.token, body: { state_event: 'reopen' } })
    expect(reopened.body).toMatchObject({ state: 'opened', closed_at: null, closed_by: null })
    const confidential = await request('PUT', path, { token: reporter.token, body: { confidential: true } })
    expect(confidential.body.confidential).toBe(true)
    expect(await systemNotesOf(db, { issueId: issue.id })).toEqual([
      `added ~${b.id} ~${c.id} and removed ~${a.id} labels`,
      `removed ~${b.id} label`,
      `assigned to @${guest.user.username}`,
      'closed',
      'reopened',
      'made the issue confidential',
    ])
    expect(await eventsOf(db, 'Issue', issue.id)).toEqual([
      [3, reporter.user.id],
      [4, reporter.user.id],
    ])
  })

  test('authors may edit their issues; other guests may not; metadata from guests is dropped', async () => {
    const { project, guest, outsider } = await fixture()
    const label = await createTestLabel(db, { project, title: 'x' })
    const issue = await createTestIssue(db, { project, author: guest.user })
    const path = `/projects/${project.id}/issues/${issue.iid}`
    const edited = await request('PUT', path, { token: guest.token, body: { title: 'Renamed', labels: label.title } })
    expect(edited.status).toBe(200)
    expect(edited.body).toMatchObject({ title: 'Renamed', labels: [] })
    const refused = await request('PUT', path, { token: outsider.token, body: { title: 'Nope' } })
    expect([refused.status, refused.body]).toEqual([403, { message: '403 Forbidden' }])
    const none = await request('PUT', path, { token: guest.token, body: {} })
    expect(none.status).toBe(400)
    expect(none.body.error).toMatch(/^title, description, assignee_ids, .* are missing, at least one parameter must be provided$/)
    const missing = await request('PUT', `/projects/${project.id}/issues/999`, { token: guest.token, body: { title: 'x' } })
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Not found' }])
  })
})

describe('DELETE /projects/:id/issues/:issue_iid', () => {
  test('owners delete issues; reporters may not', async () => {
    const { project, owner, reporter } = await fixture()
    const issue = await createTestIssue(db, { project, author: reporter.user })
    const path = `/projects/${project.id}/issues/${issue.iid}`
    expect((await request('DELETE', path, { token: reporter.token })).status).toBe(403)
    const deleted = await request('DELETE', path, { token: owner.token })
    expect([deleted.status, deleted.text]).toEqual([204, ''])
    const gone = await request('DELETE', path, { token: owner.token })
    expect([gone.status, gone.body]).toEqual([404, { message: '404 Issue Not Found' }])
  })
})

describe('confidential issues', () => {
  test('are seen by their author, assignees, reporters and admins only, in lists and lookups', async () => {
    const { project, reporter, guest, outsider } = await fixture()
    const assignee = await userWithToken()
    await addTestMember(db, { user: assignee.user, project, accessLevel: 10 })
    const secret = await createTestIssue(db, { project, author: guest.user, confidential: true, assignees: [assignee.user] })
    const open = await createTestIssue(db, { project, author: reporter.user })
    const other = await userWithToken()
    await addTestMember(db, { user: other.user, project, accessLevel: 10 })
    const seen = async (token?: string) =>
      ((await request('GET', `/projects/${project.id}/issues`, { token })).body as { id: number }[]).map((i) => i.id).sort()
    const both = [secret.id, open.id].sort()
    expect(await seen(guest.token)).toEqual(both)
    expect(await seen(assignee.token)).toEqual(both)
    expect(await seen(reporter.token)).toEqual(both)
    expect(await seen(server.rootToken)).toEqual(both)
    expect(await seen(other.token)).toEqual([open.id])
    expect(await seen(outsider.token)).toEqual([open.id])
    expect(await seen()).toEqual([open.id])
    const lookup = await request('GET', `/projects/${project.id}/issues/${secret.iid}`, { token: other.token })
    expect([lookup.status, lookup.body]).toEqual([404, { message: '404 Not found' }])
    expect((await request('GET', `/projects/${project.id}/issues/${secret.iid}`, { token: assignee.token })).status).toBe(200)
    const all = await request('GET', `/issues?scope=all&iids[]=${secret.iid}`, { token: other.token })
    expect(all.body.map((i: { id: number }) => i.id)).not.toContain(secret.id)
  })
})

describe('GET lists', () => {
  test('filter by state, labels, milestone, assignee, author, search and dates; order and paginate', async () => {
    const { group, project, reporter, guest } = await fixture()
    const bug = await createTestLabel(db, { project, title: 'bug' })
    const ui = await createTestLabel(db, { project, title: 'ui' })
    const milestone = await createTestMilestone(db, { project, title: 'M1' })
    const one = await createTestIssue(db, {
      project,
      author: reporter.user,
      title: 'Alpha crash',
      labels: [bug, ui],
      createdAt: new Date('2024-01-01T00:00:00Z'),
    })
    const two = await createTestIssue(db, {
      project,
      author: guest.user,
      title: 'Beta',
      description: 'crash here',
      labels: [bug],
      assignees: [guest.user],
      milestone,
      createdAt: new Date('2024-02-01T00:00:00Z'),
    })
    const three = await createTestIssue(db, {
      project,
      author: guest.user,
      title: 'Gamma',
      state: 'closed',
      createdAt: new Date('2024-03-01T00:00:00Z'),
    })
    const ids = async (query: string, token = reporter.token) =>
      ((await request('GET', `/projects/${project.id}/issues?${query}`, { token })).body as { id: number }[]).map((i) => i.id)
    expect(await ids('')).toEqual([three.id, two.id, one.id])
    expect(await ids('state=opened')).toEqual([two.id, one.id])
    expect(await ids('state=closed')).toEqual([three.id])
    expect(await ids('labels=bug,ui')).toEqual([one.id])
    expect(await ids('labels=bug')).toEqual([two.id, one.id])
    expect(await ids('labels=None')).toEqual([three.id])
    expect(await ids('labels=Any')).toEqual([two.id, one.id])
    expect(await ids('milestone=M1')).toEqual([two.id])
    expect(await ids('milestone=None')).toEqual([three.id, one.id])
    expect(await ids('milestone=Any')).toEqual([two.id])
    expect(await ids(`assignee_id=${guest.user.id}`)).toEqual([two.id])
    expect(await ids('assignee_id=None')).toEqual([three.id, one.id])
    expect(await ids('assignee_id=Any')).toEqual([two.id])
    expect(await ids(`author_id=${guest.user.id}`)).toEqual([three.id, two.id])
    expect(await ids('search=crash')).toEqual([two.id, one.id])
    expect(await ids('search=crash&in=title')).toEqual([one.id])
    expect(await ids(`iids[]=${one.iid}&iids[]=${three.iid}`)).toEqual([three.id, one.id])
    expect(await ids('created_after=2024-01-15T00:00:00Z&created_before=2024-02-15T00:00:00Z')).toEqual([two.id])
    expect(await ids('order_by=title&sort=asc')).toEqual([one.id, two.id, three.id])
    expect(await ids('order_by=created_at&sort=asc')).toEqual([one.id, two.id, three.id])
    const bad = await request('GET', `/projects/${project.id}/issues?assignee_id=someone`, { token: reporter.token })
    expect([bad.status, bad.body]).toEqual([400, { error: 'assignee_id does not have a valid value' }])
    const paged = await request('GET', `/projects/${project.id}/issues?per_page=2&page=2`, { token: reporter.token })
    expect(paged.headers).toMatchObject({
      'x-total': '3',
      'x-total-pages': '2',
      'x-page': '2',
      'x-per-page': '2',
      'x-prev-page': '1',
      'x-next-page': '',
    })
    expect(paged.body.map((i: { id: number }) => i.id)).toEqual([one.id])
    expect(paged.body[0]).not.toHaveProperty('subscribed')
    const detailed = await request('GET', `/projects/${project.id}/issues?labels=ui&with_labels_details=true`, { token: reporter.token })
    expect(detailed.body[0].labels).toEqual([
      { id: bug.id, name: 'bug', color: '#6699cc', description: null, description_html: '', text_color: '#FFFFFF' },
      { id: ui.id, name: 'ui', color: '#6699cc', description: null, description_html: '', text_color: '#FFFFFF' },
    ])

    expect(Object.keys(detailed.body[0].labels[0])).toEqual(['id', 'name', 'color', 'description', 'description_html', 'text_color'])

    const grouped = await request('GET', `/groups/${group.id}/issues?state=opened`, { token: reporter.token })
    expect(grouped.body.map((i: { id: number }) => i.id)).toEqual([two.id, one.id])
    expect(grouped.body[0].references.relative).toBe(`${project.path}#${two.iid}`)

    const mine = await request('GET', '/issues', { token: guest.token })
    expect(mine.body.map((i: { id: number }) => i.id)).toEqual([three.id, two.id])
    const assigned = await request('GET', '/issues?scope=assigned_to_me', { token: guest.token })
    expect(assigned.body.map((i: { id: number }) => i.id)).toEqual([two.id])
    expect((await request('GET', '/issues')).status).toBe(401)
    expect((await request('GET', '/issues?scope=all')).status).toBe(200)
  })

  test('keyset pages of project issues follow the Link header to the end', async () => {
    const { project, reporter } = await fixture()
    const made: number[] = []
    for (let i = 0; i < 5; i++) {
      made.push(
        (
          await createTestIssue(db, {
            project,
            author: reporter.user,
            title: `t${i % 2}`,
            createdAt: new Date(Date.UTC(2024, 0, 1 + (i % 3))),
          })
        ).id,
      )
    }
    for (const [orderBy, sort] of [
      ['created_at', 'asc'],
      ['title', 'desc'],
      ['due_date', 'asc'],
      ['id', 'desc'],
    ]) {
      const offset = await request('GET', `/projects/${project.id}/issues?order_by=${orderBy}&sort=${sort}&per_page=100`, {
        token: reporter.token,
      })
      const expected = offset.body.map((i: { id: number }) => i.id)
      const seen: number[] = []
      const firstUrl = `${server.url}/api/v4/projects/${project.id}/issues?pagination=keyset&per_page=2&order_by=${orderBy}&sort=${sort}`
      const pages: { ids: number[]; prev: string | null }[] = []
      let url: string | null = firstUrl
      while (url) {
        const response: Response = await fetch(url, { headers: { 'private-token': reporter.token } })
        const page = (await response.json()) as { id: number }[]
        seen.push(...page.map((i) => i.id))
        pages.push({ ids: page.map((i) => i.id), prev: response.headers.get('x-prev-cursor') })
        const link = response.headers.get('link')
        url = link ? /<([^>]+)>; rel="next"/.exec(link)![1] : null
        if (link) expect(link).toContain(`cursor=${response.headers.get('x-next-cursor')}&`)
        else expect(response.headers.get('x-next-cursor')).toBeNull()
      }
      expect(seen).toEqual(expected)
      expect(seen.sort()).toEqual([...made].sort())
      // Back from the last page by X-PREV-CURSOR: the same pages in reverse, and none before the first.
      expect(pages.map((page) => page.prev === null)).toEqual(pages.map((_, i) => i === 0))
      for (let i = pages.length - 1; i > 0; i--) {
        const response = await fetch(`${firstUrl}&cursor=${pages[i].prev}`, { headers: { 'private-token': reporter.token } })
        const page = (await response.json()) as { id: number }[]
        expect({ ids: page.map((issue) => issue.id), prev: response.headers.get('x-prev-cursor') }).toEqual(pages[i - 1])
      }
    }
    const refused = await request('GET', `/projects/${project.id}/issues?pagination=keyset&order_by=popularity`, { token: reporter.token })
    expect(refused.status).toBe(405)
  })
})

describe('the gitbeaker Issues API', () => {
  test('creates, shows, edits, lists and removes issues', async () => {
    const gitlab = new Gitlab({ host: server.url, token: server.rootToken })
    const owner = await createTestUser(db)
    const project: ProjectRow = await createTestProject(db, { owner })
    const created = await gitlab.Issues.create(project.id, 'From gitbeaker', { description: 'Body', labels: 'one,two' })
    expect(created).toMatchObject({ iid: 1, title: 'From gitbeaker', labels: ['one', 'two'], state: 'opened' })
    const shown = await gitlab.Issues.show(created.iid, { projectId: project.id })
    expect(shown.id).toBe(created.id)
    const edited = await gitlab.Issues.edit(project.id, created.iid, { stateEvent: 'close', removeLabels: 'one' })
    expect(edited).toMatchObject({ state: 'closed', labels: ['two'] })
    const listed = await gitlab.Issues.all({ projectId: project.id, state: 'closed' })
    expect(listed.map((i) => i.id)).toEqual([created.id])
    const group = await createTestGroup(db)
    await gitlab.Issues.all({ groupId: group.id })
    await gitlab.Issues.remove(project.id, created.iid)
    await expect(gitlab.Issues.show(created.iid, { projectId: project.id })).rejects.toMatchObject({
      cause: { description: '404 Not found' },
    })
  })
})

describe('labels named on issues', () => {
  test('many issues naming the same new labels at once make each label once, and every request succeeds', async () => {
    const { project, reporter } = await fixture()
    const issues = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        request('POST', `/projects/${project.id}/issues`, { token: reporter.token, body: { title: `Issue ${n}` } }),
      ),
    )
    const updates = await Promise.all(
      issues.map((issue) =>
        request('PUT', `/projects/${project.id}/issues/${issue.body.iid}`, { token: reporter.token, body: { labels: 'fresh-a,fresh-b' } }),
      ),
    )
    expect(updates.map((update) => update.status)).toEqual(Array(8).fill(200))
    expect(updates.map((update) => update.body.labels)).toEqual(Array(8).fill(['fresh-a', 'fresh-b']))
    const labels = await request('GET', `/projects/${project.id}/labels?search=fresh`, { token: reporter.token })
    expect(labels.body.map((label: { name: string }) => label.name)).toEqual(['fresh-a', 'fresh-b'])
  })
})
