import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { IssueRow, LabelRow, MilestoneRow } from '../../db/schema.js'
import { createTestIssue, createTestLabel, createTestMilestone } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { createProjectTeam, type Person, type ProjectTeam } from '../../testing/roles.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

// Quick actions through the API: POST …/notes runs them (202 with what they did when the comment held only commands),
// and an issue's description runs them on create and edit (GL Notes::CreateService, IssuableBaseService).

let server: TestServer
let request: ReturnType<typeof client>
let team: ProjectTeam<'developer' | 'guest'>
let bug: LabelRow
let needsReview: LabelRow
let platform: LabelRow
let v1: MilestoneRow
let issue: IssueRow
// A Wednesday.
const now = new Date('2026-11-25T10:00:00.000Z')

beforeAll(async () => {
  server = await startTestServer()
  request = client(`${server.url}/api/v4`)
  const db = server.database.db
  team = await createProjectTeam(db, { roles: ['developer', 'guest'] })
  bug = await createTestLabel(db, { project: team.project, title: 'bug' })
  needsReview = await createTestLabel(db, { project: team.project, title: 'needs review' })
  platform = await createTestLabel(db, { group: team.group, title: 'platform' })
  v1 = await createTestMilestone(db, { project: team.project, title: 'v1.0' })
})
afterAll(() => server.close())
beforeEach(async () => {
  server.freeze(now)
  issue = await createTestIssue(server.database.db, { project: team.project, author: team.developer.user, title: 'Broken' })
})

const notesPath = () => `/projects/${team.project.id}/issues/${issue.iid}/notes`

function comment(person: Person, body: string) {
  return request('POST', notesPath(), { token: person.token, body: { body } })
}

async function issueNow(person: Person = team.developer) {
  return (await request('GET', `/projects/${team.project.id}/issues/${issue.iid}`, { token: person.token })).body
}

async function notesNow() {
  const res = await request('GET', `${notesPath()}?sort=asc&per_page=100`, { token: team.developer.token })
  return res.body.map((note: any) => ({ body: note.body, system: note.system }))
}

describe('a comment with text and commands', () => {
  test('keeps the text as the note, shows the changes, and records each change after it', async () => {
    const res = await comment(team.developer, 'Confirmed on staging.\n/label ~bug ~"needs review"\n/assign me')
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      body: 'Confirmed on staging.',
      commands_changes: { add_label_ids: [bug.id, needsReview.id], assignee_ids: [team.developer.user.id] },
    })
    expect(Object.keys(res.body.commands_changes)).toEqual(['add_label_ids', 'assignee_ids'])
    const now = await issueNow()
    expect(now.labels).toEqual(['bug', 'needs review'])
    expect(now.assignees.map((user: any) => user.username)).toEqual([team.developer.user.username])
    expect(await notesNow()).toEqual([
      { body: 'Confirmed on staging.', system: false },
      { body: `added ~${bug.id} ~${needsReview.id} labels`, system: true },
      { body: `assigned to @${team.developer.user.username}`, system: true },
    ])
  })

  test('a comment without commands is kept as written, with no changes', async () => {
    const res = await comment(team.developer, 'Just a note about /label ~bug\n`/close`')
    expect(res.status).toBe(201)
    expect(res.body.body).toBe('Just a note about /label ~bug\n`/close`')
    expect(res.body.commands_changes).toEqual({})
    expect((await issueNow()).state).toBe('opened')
  })
})

describe('a comment of commands alone', () => {
  test('creates no note and answers 202 with the changes and what they did', async () => {
    const res = await comment(team.developer, '/label ~bug\n/assign me')
    expect(res.status).toBe(202)
    expect(res.body).toEqual({
      commands_changes: { add_label_ids: [bug.id], assignee_ids: [team.developer.user.id] },
      summary: [`Added ~"bug" label. Assigned @${team.developer.user.username}.`],
    })
    expect(await notesNow()).toEqual([
      { body: `added ~${bug.id} label`, system: true },
      { body: `assigned to @${team.developer.user.username}`, system: true },
    ])
  })

  test('commands that change nothing are refused: "Failed to apply commands."', async () => {
    const res = await comment(team.developer, '/label ~nothing-like-this')
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ message: '400 Bad request - Failed to apply commands.' })
    expect(await notesNow()).toEqual([])
  })

  test('a command not available now says so', async () => {
    const res = await comment(team.developer, '/reopen')
    expect([res.status, res.body]).toEqual([202, { commands_changes: {}, summary: ['Could not apply reopen command.'] }])
  })

  test('a Guest may not set labels or close an issue they did not open', async () => {
    const res = await comment(team.guest, '/label ~bug\n/close')
    expect([res.status, res.body]).toEqual([
      202,
      { commands_changes: {}, summary: ['Could not apply label command. Could not apply close command.'] },
    ])
    const now = await issueNow()
    expect([now.labels, now.state]).toEqual([[], 'opened'])
  })
})

describe('each command', () => {
  test('/label with group labels, plain names and ids; /labels is the same command', async () => {
    let res = await comment(team.developer, '/labels platform unknown')
    expect(res.body).toEqual({ commands_changes: { add_label_ids: [platform.id] }, summary: ['Added ~"platform" label.'] })
    res = await comment(team.developer, `/label ~${bug.id}`)
    expect(res.body.summary).toEqual(['Added ~"bug" label.'])
    expect((await issueNow()).labels).toEqual(['bug', 'platform'])
  })

  test('/unlabel removes the labels named, or all of them', async () => {
    await comment(team.developer, '/label ~bug ~"needs review" ~platform')
    let res = await comment(team.developer, '/unlabel ~bug')
    expect(res.body).toEqual({ commands_changes: { remove_label_ids: [bug.id] }, summary: ['Removed ~"bug" label.'] })
    expect((await issueNow()).labels).toEqual(['needs review', 'platform'])
    res = await comment(team.developer, '/remove_label')
    expect(res.body).toEqual({ commands_changes: { label_ids: [] }, summary: ['Removed all labels.'] })
    expect((await issueNow()).labels).toEqual([])
    expect((await notesNow()).at(-1)).toEqual({ body: `removed ~${needsReview.id} ~${platform.id} labels`, system: true })
  })

  test('/assign @user, /assign me, and a user who does not exist', async () => {
    let res = await comment(team.developer, `/assign @${team.guest.user.username}`)
    expect(res.body).toEqual({
      commands_changes: { assignee_ids: [team.guest.user.id] },
      summary: [`Assigned @${team.guest.user.username}.`],
    })
    res = await comment(team.developer, '/assign @nobody-here')
    expect(res.body).toEqual({
      commands_changes: {},
      summary: ["Could not apply assign command. Failed to find users for '@nobody-here'."],
    })
    res = await comment(team.developer, '/assign')
    expect(res.body.summary).toEqual(['Failed to assign a user because no user was found.'])
    // One assignee on the free tier: the new one replaces the old.
    res = await comment(team.developer, '/assign me')
    expect(res.body.commands_changes).toEqual({ assignee_ids: [team.developer.user.id] })
    expect((await issueNow()).assignees.map((user: any) => user.username)).toEqual([team.developer.user.username])
    expect((await notesNow()).at(-1)).toEqual({
      body: `assigned to @${team.developer.user.username} and unassigned @${team.guest.user.username}`,
      system: true,
    })
  })

  test('/unassign', async () => {
    expect((await comment(team.developer, '/unassign')).body.summary).toEqual(['Could not apply unassign command.'])
    await comment(team.developer, '/assign me')
    const res = await comment(team.developer, '/unassign')
    expect(res.body).toEqual({
      commands_changes: { assignee_ids: [] },
      summary: [`Removed assignee @${team.developer.user.username}.`],
    })
    expect((await issueNow()).assignees).toEqual([])
    expect((await notesNow()).at(-1)).toEqual({ body: `unassigned @${team.developer.user.username}`, system: true })
  })

  test('/milestone and /remove_milestone', async () => {
    let res = await comment(team.developer, '/milestone %"v1.0"')
    expect(res.body).toEqual({ commands_changes: { milestone_id: v1.id }, summary: ['Set the milestone to %"v1.0".'] })
    expect((await issueNow()).milestone.title).toBe('v1.0')
    res = await comment(team.developer, '/remove_milestone')
    expect(res.body).toEqual({ commands_changes: { milestone_id: null }, summary: ['Removed %"v1.0" milestone.'] })
    expect((await issueNow()).milestone).toBeNull()
    expect((await notesNow()).map((note: any) => note.body)).toEqual([`changed milestone to %${v1.iid}`, 'removed milestone'])
  })

  test('/close and /reopen', async () => {
    let res = await comment(team.developer, '/close')
    expect(res.body).toEqual({ commands_changes: { state_event: 'close' }, summary: ['Closed this issue.'] })
    expect((await issueNow()).state).toBe('closed')
    expect((await comment(team.developer, '/close')).body.summary).toEqual(['Could not apply close command.'])
    res = await comment(team.developer, '/reopen')
    expect(res.body).toEqual({ commands_changes: { state_event: 'reopen' }, summary: ['Reopened this issue.'] })
    expect((await issueNow()).state).toBe('opened')
    expect(await notesNow()).toEqual([
      { body: 'closed', system: true },
      { body: 'reopened', system: true },
    ])
  })

  test('/due in GitLab date forms, an unreadable one, and /remove_due_date', async () => {
    let res = await comment(team.developer, '/due 2026-12-01')
    expect(res.body).toEqual({ commands_changes: { due_date: '2026-12-01' }, summary: ['Set the due date to Dec 1, 2026.'] })
    res = await comment(team.developer, '/due in 2 days')
    expect(res.body.commands_changes).toEqual({ due_date: '2026-11-27' })
    res = await comment(team.developer, '/due tomorrow')
    expect(res.body).toEqual({ commands_changes: { due_date: '2026-11-26' }, summary: ['Set the due date to Nov 26, 2026.'] })
    expect((await issueNow()).due_date).toBe('2026-11-26')
    res = await comment(team.developer, '/due someday')
    expect(res.body).toEqual({ commands_changes: {}, summary: ['Failed to set due date because the date format is invalid.'] })
    res = await comment(team.developer, '/remove_due_date')
    expect(res.body).toEqual({ commands_changes: { due_date: null }, summary: ['Removed the due date.'] })
    expect((await issueNow()).due_date).toBeNull()
    expect((await notesNow()).map((note: any) => note.body)).toEqual([
      'changed due date to December 1, 2026',
      'changed due date to November 27, 2026',
      'changed due date to November 26, 2026',
      'removed due date',
    ])
  })

  test('/title, /confidential, /lock and /unlock', async () => {
    const res = await comment(team.developer, '/title Broken on Fridays\n/confidential\n/lock')
    expect(res.body).toEqual({
      commands_changes: { title: 'Broken on Fridays', confidential: true, discussion_locked: true },
      summary: ['Changed the title to "Broken on Fridays". Made this issue confidential. Locked the discussion.'],
    })
    const now = await issueNow()
    expect([now.title, now.confidential, now.discussion_locked]).toEqual(['Broken on Fridays', true, true])
    expect((await comment(team.developer, '/unlock')).body.commands_changes).toEqual({ discussion_locked: false })
  })
})

describe('commands in a description', () => {
  test('run when the issue is created, and leave the description', async () => {
    const res = await request('POST', `/projects/${team.project.id}/issues`, {
      token: team.developer.token,
      body: { title: 'From the API', description: 'It fails.\n/label ~bug\n/assign me\n/due in 2 days\n/milestone %"v1.0"\n/close' },
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      description: 'It fails.',
      labels: ['bug'],
      assignees: [{ username: team.developer.user.username }],
      due_date: '2026-11-27',
      milestone: { id: v1.id },
      // Closing needs an issue that exists already.
      state: 'opened',
    })
  })

  test('run on an edit, except those the description held before', async () => {
    await server.database.db.updateTable('issues').set({ description: 'Old text\n/label ~bug' }).where('id', '=', issue.id).execute()
    const res = await request('PUT', `/projects/${team.project.id}/issues/${issue.iid}`, {
      token: team.developer.token,
      body: { description: 'New text\n/label ~bug\n/close' },
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ description: 'New text', labels: [], state: 'closed' })
  })

  test("a Guest's commands are not run, but leave the description", async () => {
    const res = await request('POST', `/projects/${team.project.id}/issues`, {
      token: team.guest.token,
      body: { title: 'By a guest', description: 'Hi\n/label ~bug' },
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ description: 'Hi', labels: [] })
  })
})
