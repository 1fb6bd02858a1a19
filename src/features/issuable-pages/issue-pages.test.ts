import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { IssueRow, LabelRow, MilestoneRow, ProjectRow } from '../../db/schema.js'
import { createTestIssue, createTestLabel, createTestMilestone, createTestProject } from '../../testing/factories.js'
import { client, type TestResponse } from '../../testing/http.js'
import { addProjectMembersByRole, createPerson, createProjectTeam, type Person, type ProjectTeam } from '../../testing/roles.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { CONTENT_SECURITY_POLICY } from '../../web/html.js'
import { flashOf } from '../sessions/testing.js'

// Working on issues in the browser: the list's filters, the issue page's comment form (preview, quick actions, Close
// and Reopen), its sidebar form, and the new and edit forms, all through the API's services.

let server: TestServer
let api: ReturnType<typeof client>
let web: ReturnType<typeof client>
let team: ProjectTeam<'developer' | 'reporter' | 'guest'>
let sessions: Record<'developer' | 'reporter' | 'guest' | 'outsider', TestSession>
let bug: LabelRow
let docs: LabelRow
let v1: MilestoneRow
let issue: IssueRow
const EVIL = `<script>alert("x")</script><img src=x onerror=alert(1)>`

beforeAll(async () => {
  server = await startTestServer()
  api = client(`${server.url}/api/v4`)
  web = client(server.url)
  const db = server.database.db
  team = await createProjectTeam(db, { roles: ['developer', 'reporter', 'guest'] })
  sessions = {
    developer: await createTestSession(server, team.developer.user),
    reporter: await createTestSession(server, team.reporter.user),
    guest: await createTestSession(server, team.guest.user),
    outsider: await createTestSession(server, team.outsider.user),
  }
  bug = await createTestLabel(db, { project: team.project, title: 'bug', color: '#d9534f' })
  docs = await createTestLabel(db, { group: team.group, title: 'docs', color: '#428bca' })
  v1 = await createTestMilestone(db, { project: team.project, title: 'v1.0' })
})
afterAll(() => server.close())
beforeEach(async () => {
  issue = await createTestIssue(server.database.db, { project: team.project, author: team.reporter.user, title: 'Crash on save' })
})

const base = () => `/${team.project.full_path}`
const issuePath = (target: Pick<IssueRow, 'iid'> = issue) => `${base()}/-/issues/${target.iid}`
const notesPath = (target: Pick<IssueRow, 'id'> = issue) => `${base()}/notes?target_type=issue&target_id=${target.id}`

function visit(path: string, session: TestSession | null = null): Promise<TestResponse> {
  return web('GET', path, { headers: session ? { cookie: session.cookie, accept: 'text/html' } : { accept: 'text/html' } })
}

/** A form's POST as a browser sends it; `null` as the token leaves it out. */
function submit(session: TestSession, path: string, fields: [string, string][], token: string | null = session.csrfToken) {
  const body = new URLSearchParams(token === null ? fields : [['authenticity_token', token], ...fields]).toString()
  return web('POST', path, {
    body,
    headers: { cookie: session.cookie, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
  })
}

async function issueNow(target: Pick<IssueRow, 'iid'> = issue, person: Person = team.developer) {
  return (await api('GET', `/projects/${team.project.id}/issues/${target.iid}`, { token: person.token })).body
}

async function notesNow(target: Pick<IssueRow, 'iid'> = issue) {
  const res = await api('GET', `/projects/${team.project.id}/issues/${target.iid}/notes?sort=asc`, { token: team.developer.token })
  return res.body.map((note: any) => ({ body: note.body, system: note.system, internal: note.internal }))
}

function expectInert(text: string) {
  expect(text).not.toContain('<script>alert')
  expect(text).not.toMatch(/<img src="?x"? onerror/)
}

describe('the issue list', () => {
  let listed: IssueRow[]
  beforeAll(async () => {
    const db = server.database.db
    listed = [
      await createTestIssue(db, { project: team.project, author: team.developer.user, title: 'Alpha task', labels: [bug], milestone: v1 }),
      await createTestIssue(db, { project: team.project, author: team.guest.user, title: 'Beta task', labels: [bug, docs] }),
      await createTestIssue(db, {
        project: team.project,
        author: team.developer.user,
        title: 'Gamma task',
        assignees: [team.guest.user],
        state: 'closed',
      }),
    ]
  })
  const rowsOf = (text: string) => [...text.matchAll(/<a class="title" href="[^"]+">([^<]+) task<\/a>/g)].map((match) => match[1])

  test('offers New issue to those who may open one, and a filter form of inputs and selects', async () => {
    const res = await visit(`${base()}/-/issues`, sessions.guest)
    expect(res.status).toBe(200)
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(res.text).toContain(`<a class="button primary" href="${base()}/-/issues/new">New issue</a>`)
    expect(res.text).toContain(
      `<form class="issuable-filters" method="get" action="${base()}/-/issues" role="search" aria-label="Filter issues">`,
    )
    expect(res.text).toContain('<label for="filter_author_username">Author</label>')
    expect(res.text).toContain('<select id="filter_label_name" name="label_name[]" multiple size="3">')
    expect(res.text).toContain('<option value="docs" >docs</option>')
    expect(res.text).toContain('<option value="v1.0" >v1.0</option>')
    expect(res.text).toContain('<option value="created_date" selected>Created date</option>')
    const anonymous = await visit(`${base()}/-/issues`)
    expect(anonymous.status).toBe(200)
    expect(anonymous.text).not.toContain('New issue')
  })

  test("filters by GitLab's query params, and its tabs and pages keep them", async () => {
    const byLabels = await visit(`${base()}/-/issues?label_name[]=bug&label_name[]=docs`, sessions.guest)
    expect(rowsOf(byLabels.text)).toEqual(['Beta'])
    expect(byLabels.text).toContain('<option value="docs" selected>docs</option>')
    expect(byLabels.text).toContain('aria-label="Remove label filter docs"')
    const byMilestone = await visit(`${base()}/-/issues?milestone_title=v1.0`, sessions.guest)
    expect(rowsOf(byMilestone.text)).toEqual(['Alpha'])
    expect(byMilestone.text).toContain(`href="${base()}/-/issues?state=closed&amp;milestone_title=v1.0"`)
    const byAuthor = await visit(
      `${base()}/-/issues?author_username=${team.developer.user.username}&state=all&sort=title_desc`,
      sessions.guest,
    )
    expect(rowsOf(byAuthor.text)).toEqual(['Gamma', 'Alpha'])
    expect(byAuthor.text).toContain('<option value="title_desc" selected>Title, Z to A</option>')
    expect(byAuthor.text).toMatch(/aria-current="page"\s*>All <span class="badge count">2<\/span>/)
    const byAssignee = await visit(`${base()}/-/issues?assignee_username=${team.guest.user.username}&state=closed`, sessions.guest)
    expect(rowsOf(byAssignee.text)).toEqual(['Gamma'])
    const bySearch = await visit(`${base()}/-/issues?search=beta`, sessions.guest)
    expect(rowsOf(bySearch.text)).toEqual(['Beta'])
    const none = await visit(`${base()}/-/issues?search=zzzz`, sessions.guest)
    expect(none.text).toContain('<p><strong>Sorry, your filter produced no results</strong></p>')
    expect(listed).toHaveLength(3)
  })
})

describe('the issue page', () => {
  test('a Developer sees Edit, Close issue, the comment form and the sidebar form', async () => {
    const res = await visit(issuePath(), sessions.developer)
    expect(res.status).toBe(200)
    expect(res.text).toContain(`<a class="button" href="${issuePath()}/edit">Edit</a>`)
    expect(res.text).toContain('<input type="hidden" name="issue[state_event]" value="close" />')
    expect(res.text).toContain(`<form method="post" action="${base()}/notes?target_type=issue&amp;target_id=${issue.id}" class="new-note"`)
    expect(res.text).toContain('<textarea id="note_note" name="note[note]"')
    expect(res.text).toContain('<button type="submit" name="button" value="preview">Preview</button>')
    expect(res.text).toContain('<button type="submit" name="button" value="close">Close issue</button>')
    expect(res.text).toContain('<summary class="button">Edit details</summary>')
    expect(res.text).toContain(`<input type="checkbox" id="sidebar_label_${docs.id}" name="issue[label_ids][]" value="${docs.id}"`)
    expect(res.text).toContain(`<option value="${team.guest.user.id}" >${team.guest.user.name} (@${team.guest.user.username})</option>`)
    expect(res.text).toContain(`<option value="${v1.id}" >v1.0</option>`)
  })

  test('a Guest may comment but sees no Edit, Close or sidebar form, and a forged Close is refused', async () => {
    const other = await createTestIssue(server.database.db, { project: team.project, author: team.developer.user })
    const res = await visit(issuePath(other), sessions.guest)
    expect(res.status).toBe(200)
    expect(res.text).toContain('<textarea id="note_note" name="note[note]"')
    expect(res.text).not.toContain('/edit">Edit</a>')
    expect(res.text).not.toContain('issue[state_event]')
    expect(res.text).not.toContain('value="close"')
    expect(res.text).not.toContain('Edit details')
    const forged = await submit(sessions.guest, issuePath(other), [
      ['_method', 'put'],
      ['issue[state_event]', 'close'],
    ])
    expect(forged.status).toBe(404)
    const closeByComment = await submit(sessions.guest, notesPath(other), [
      ['note[note]', ''],
      ['button', 'close'],
    ])
    expect(closeByComment.status).toBe(404)
    const labelled = await submit(sessions.guest, issuePath(other), [
      ['_method', 'put'],
      ['issue[label_ids][]', String(bug.id)],
    ])
    expect(labelled.status).toBe(404)
    const now = await issueNow(other)
    expect([now.state, now.labels]).toEqual(['opened', []])
    expect((await visit(`${issuePath(other)}/edit`, sessions.guest)).status).toBe(404)
  })

  test('a visitor reads a public issue without any form', async () => {
    const res = await visit(issuePath())
    expect(res.status).toBe(200)
    expect(res.text).toContain('<p class="comment-signed-out muted">Please <a href="/users/sign_in">sign in</a> to reply</p>')
    expect(res.text).not.toContain('<form method="post"')
    expect(res.text).not.toContain('authenticity_token')
  })
})

describe('commenting', () => {
  test('a comment is added and the page opens at it', async () => {
    const res = await submit(sessions.guest, notesPath(), [
      ['note[note]', `Seen it **too** ${EVIL}`],
      ['button', 'comment'],
    ])
    expect(res.status).toBe(302)
    const notes = await notesNow()
    expect(notes).toEqual([{ body: `Seen it **too** ${EVIL}`, system: false, internal: false }])
    const [note] = (await api('GET', `/projects/${team.project.id}/issues/${issue.iid}/notes`, { token: team.developer.token })).body
    expect(res.headers.location).toBe(`${issuePath()}#note_${note.id}`)
    const page = await visit(issuePath(), sessions.guest)
    expect(page.text).toContain('Seen it <strong>too</strong>')
    expectInert(page.text)
  })

  test('quick actions run and say what they did; a comment of commands alone leaves no note', async () => {
    const res = await submit(sessions.developer, notesPath(), [
      ['note[note]', '/label ~bug\n/assign me\n/due 2030-01-15'],
      ['button', 'comment'],
    ])
    expect([res.status, res.headers.location]).toEqual([302, issuePath()])
    const page = await visit(issuePath(), sessions.developer)
    expect(flashOf(page.text)).toBe(`Added ~"bug" label. Assigned @${team.developer.user.username}. Set the due date to Jan 15, 2030.`)
    const now = await issueNow()
    expect([now.labels, now.assignees.map((user: any) => user.username), now.due_date]).toEqual([
      ['bug'],
      [team.developer.user.username],
      '2030-01-15',
    ])
    expect((await notesNow()).map((note: any) => note.body)).toEqual([
      `added ~${bug.id} label`,
      `assigned to @${team.developer.user.username}`,
      'changed due date to January 15, 2030',
    ])
    expect(page.text).toContain('class="note system-note"')
  })

  test('Preview shows the rendered comment and keeps the text, creating nothing', async () => {
    const res = await submit(sessions.guest, notesPath(), [
      ['note[note]', `**Bold** move ${EVIL}`],
      ['button', 'preview'],
    ])
    expect(res.status).toBe(200)
    expect(res.text).toContain('<section class="markdown-preview" id="note_preview" aria-label="Preview">')
    expect(res.text).toContain('<strong>Bold</strong> move')
    expect(res.text).toContain('**Bold** move &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;')
    expectInert(res.text)
    expect(await notesNow()).toEqual([])
  })

  test('a blank comment and commands that did nothing come back with the reason', async () => {
    const blank = await submit(sessions.guest, notesPath(), [
      ['note[note]', '  '],
      ['button', 'comment'],
    ])
    expect(blank.status).toBe(422)
    expect(blank.text).toContain('<li>Note can&#39;t be blank</li>')
    const nothing = await submit(sessions.developer, notesPath(), [
      ['note[note]', '/label ~no-such-label'],
      ['button', 'comment'],
    ])
    expect(nothing.status).toBe(422)
    expect(nothing.text).toContain('<li>Failed to apply commands.</li>')
    expect(nothing.text).toContain('>/label ~no-such-label</textarea>')
    expect(await notesNow()).toEqual([])
  })

  test('Close issue comments first, then closes; Reopen issue reopens', async () => {
    let res = await submit(sessions.developer, notesPath(), [
      ['note[note]', 'Fixed in main.'],
      ['button', 'close'],
    ])
    expect(res.status).toBe(302)
    let page = await visit(issuePath(), sessions.developer)
    expect(flashOf(page.text)).toBe('Closed this issue.')
    expect(page.text).toContain('<span class="badge status-closed issuable-state">Closed</span>')
    expect(page.text).toContain('<button type="submit" name="button" value="reopen">Reopen issue</button>')
    expect((await issueNow()).state).toBe('closed')
    res = await submit(sessions.developer, notesPath(), [
      ['note[note]', ''],
      ['button', 'reopen'],
    ])
    expect(res.status).toBe(302)
    page = await visit(issuePath(), sessions.developer)
    expect(flashOf(page.text)).toBe('Reopened this issue.')
    expect((await issueNow()).state).toBe('opened')
    expect((await notesNow()).map((note: any) => note.body)).toEqual(['Fixed in main.', 'closed', 'reopened'])
  })

  test('a Reporter may make a comment internal; a Guest is not offered it', async () => {
    expect((await visit(issuePath(), sessions.reporter)).text).toContain('Make this an internal note')
    expect((await visit(issuePath(), sessions.guest)).text).not.toContain('Make this an internal note')
    await submit(sessions.reporter, notesPath(), [
      ['note[note]', 'For the team'],
      ['note[internal]', '1'],
      ['button', 'comment'],
    ])
    expect(await notesNow()).toEqual([{ body: 'For the team', system: false, internal: true }])
  })

  test('a locked discussion takes comments from members only, saying so to others', async () => {
    await server.database.db.updateTable('issues').set({ discussion_locked: 1 }).where('id', '=', issue.id).execute()
    const page = await visit(issuePath(), sessions.outsider)
    expect(page.text).toContain(
      '<p class="comment-locked muted">The discussion in this issue is locked. Only project members can comment.</p>',
    )
    expect(page.text).not.toContain('note[note]')
    const refused = await submit(sessions.outsider, notesPath(), [
      ['note[note]', 'Let me in'],
      ['button', 'comment'],
    ])
    expect(refused.status).toBe(404)
    expect((await visit(issuePath(), sessions.guest)).text).toContain('<textarea id="note_note"')
    expect(await notesNow()).toEqual([])
  })

  test('a form without its token is refused', async () => {
    const res = await submit(
      sessions.developer,
      notesPath(),
      [
        ['note[note]', 'no token'],
        ['button', 'comment'],
      ],
      null,
    )
    expect(res.status).toBe(422)
    expect(res.text).toContain('The change you requested was rejected.')
    expect(await notesNow()).toEqual([])
  })
})

describe('the header and sidebar', () => {
  test('Close issue and Reopen issue in the header', async () => {
    let res = await submit(sessions.developer, issuePath(), [
      ['_method', 'put'],
      ['issue[state_event]', 'close'],
    ])
    expect([res.status, res.headers.location]).toEqual([302, issuePath()])
    expect(flashOf((await visit(issuePath(), sessions.developer)).text)).toBe('Closed this issue.')
    res = await submit(sessions.developer, issuePath(), [
      ['_method', 'put'],
      ['issue[state_event]', 'reopen'],
    ])
    expect((await issueNow()).state).toBe('opened')
  })

  test('the sidebar form sets assignee, labels, milestone, due date and confidentiality', async () => {
    const res = await submit(sessions.developer, issuePath(), [
      ['_method', 'put'],
      ['issue[assignee_ids][]', String(team.guest.user.id)],
      ['issue[label_ids][]', ''],
      ['issue[label_ids][]', String(bug.id)],
      ['issue[label_ids][]', String(docs.id)],
      ['issue[milestone_id]', String(v1.id)],
      ['issue[due_date]', '2030-02-01'],
      ['issue[confidential]', '0'],
      ['issue[confidential]', '1'],
    ])
    expect([res.status, res.headers.location]).toEqual([302, issuePath()])
    const now = await issueNow()
    expect(now).toMatchObject({
      labels: ['bug', 'docs'],
      milestone: { id: v1.id },
      due_date: '2030-02-01',
      confidential: true,
      assignees: [{ id: team.guest.user.id }],
    })
    // Ticking nothing takes every label off; "Unassigned" removes the assignee.
    await submit(sessions.developer, issuePath(), [
      ['_method', 'put'],
      ['issue[assignee_ids][]', '0'],
      ['issue[label_ids][]', ''],
      ['issue[milestone_id]', ''],
      ['issue[due_date]', ''],
      ['issue[confidential]', '0'],
    ])
    const cleared = await issueNow()
    expect([cleared.labels, cleared.milestone, cleared.due_date, cleared.confidential, cleared.assignees]).toEqual([
      [],
      null,
      null,
      false,
      [],
    ])
    expect((await notesNow()).map((note: any) => note.body)).toContain('made the issue confidential')
  })

  test('a refused sidebar form comes back beside the field', async () => {
    const res = await submit(sessions.developer, issuePath(), [
      ['_method', 'put'],
      ['issue[due_date]', 'next sometime'],
    ])
    expect(res.status).toBe(422)
    expect(res.text).toContain('<details class="sidebar-edit" open>')
    expect(res.text).toContain('<p class="field-error" id="sidebar_due_date_error">Due date is invalid</p>')
    expect(res.text).toContain('value="next sometime"')
  })
})

describe('the new issue form', () => {
  test('a member sees every field; a visitor is sent to sign in', async () => {
    const res = await visit(`${base()}/-/issues/new`, sessions.developer)
    expect(res.status).toBe(200)
    expect(res.text).toContain(`<form method="post" action="${base()}/-/issues" class="issue-form" novalidate>`)
    expect(res.text).toContain('<input type="text" id="issue_title" name="issue[title]" value="" maxlength="255" required')
    expect(res.text).toContain('<textarea id="issue_description" name="issue[description]" rows="10"')
    expect(res.text).toContain('id="issue_confidential"')
    expect(res.text).toContain('<select id="issue_assignee_ids" name="issue[assignee_ids][]">')
    expect(res.text).toContain('<input type="date" id="issue_due_date" name="issue[due_date]"')
    expect(res.text).toContain('>Create issue</button>')
    const visitor = await visit(`${base()}/-/issues/new`)
    expect([visitor.status, visitor.headers.location]).toEqual([302, '/users/sign_in'])
    // A signed-in user who is no member may open an issue, but sets no metadata.
    const outsider = await visit(`${base()}/-/issues/new`, sessions.outsider)
    expect(outsider.status).toBe(200)
    expect(outsider.text).not.toContain('issue[label_ids]')
    expect(outsider.text).not.toContain('issue_confidential')
  })

  test('creates the issue with its metadata and the description quick actions, and opens it', async () => {
    const res = await submit(sessions.developer, `${base()}/-/issues`, [
      ['issue[title]', `Login fails ${EVIL}`],
      ['issue[description]', 'Steps to reproduce\n/due in 2 days'],
      ['issue[confidential]', '0'],
      ['issue[assignee_ids][]', String(team.developer.user.id)],
      ['issue[label_ids][]', ''],
      ['issue[label_ids][]', String(docs.id)],
      ['issue[milestone_id]', String(v1.id)],
      ['issue[due_date]', ''],
      ['button', 'save'],
    ])
    expect(res.status).toBe(302)
    const iid = Number(/\/-\/issues\/(\d+)$/.exec(res.headers.location)![1])
    const created = await issueNow({ iid })
    expect(created).toMatchObject({
      title: `Login fails ${EVIL}`,
      description: 'Steps to reproduce',
      labels: ['docs'],
      milestone: { id: v1.id },
      assignees: [{ id: team.developer.user.id }],
      confidential: false,
    })
    expect(created.due_date).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    const page = await visit(res.headers.location, sessions.developer)
    expect(page.text).toContain('<h1 class="issuable-title">Login fails &lt;script&gt;')
    expectInert(page.text)
  })

  test('a refusal comes back beside the title with what was typed; Preview renders the description', async () => {
    const refused = await submit(sessions.developer, `${base()}/-/issues`, [
      ['issue[title]', '  '],
      ['issue[description]', `Kept ${EVIL}`],
      ['button', 'save'],
    ])
    expect(refused.status).toBe(422)
    expect(refused.text).toContain('<li>Title can&#39;t be blank</li>')
    expect(refused.text).toContain('<p class="field-error" id="issue_title_error">Title can&#39;t be blank</p>')
    expect(refused.text).toContain('aria-invalid="true" aria-describedby="issue_title_error"')
    expect(refused.text).toContain('>Kept &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</textarea>')
    expectInert(refused.text)
    const preview = await submit(sessions.developer, `${base()}/-/issues`, [
      ['issue[title]', 'Draft'],
      ['issue[description]', '# Heading\n\n*soft*'],
      ['button', 'preview'],
    ])
    expect(preview.status).toBe(200)
    expect(preview.text).toContain('<section class="markdown-preview" id="issue_description_preview" aria-label="Preview">')
    expect(preview.text).toContain('<em>soft</em>')
    expect(preview.text).toContain('value="Draft"')
  })

  test('a form without its token is refused', async () => {
    const res = await submit(sessions.developer, `${base()}/-/issues`, [['issue[title]', 'No token']], null)
    expect(res.status).toBe(422)
    expect(res.text).toContain('The change you requested was rejected.')
  })
})

describe('the edit form', () => {
  test("the issue's author edits the title and description but is offered no metadata", async () => {
    const own = await createTestIssue(server.database.db, { project: team.project, author: team.guest.user, title: 'Mine' })
    const form = await visit(`${issuePath(own)}/edit`, sessions.guest)
    expect(form.status).toBe(200)
    expect(form.text).toContain(`<form method="post" action="${issuePath(own)}" class="issue-form" novalidate>`)
    expect(form.text).toContain('<input type="hidden" name="_method" value="put" />')
    expect(form.text).toContain('value="Mine"')
    expect(form.text).not.toContain('issue[label_ids]')
    const res = await submit(sessions.guest, issuePath(own), [
      ['_method', 'put'],
      ['issue[title]', 'Mine, renamed'],
      ['issue[description]', 'Now with words'],
      ['button', 'save'],
    ])
    expect([res.status, res.headers.location]).toEqual([302, issuePath(own)])
    expect(await issueNow(own)).toMatchObject({ title: 'Mine, renamed', description: 'Now with words' })
    const refused = await submit(sessions.guest, issuePath(own), [
      ['_method', 'put'],
      ['issue[title]', ''],
      ['issue[description]', 'x'],
      ['button', 'save'],
    ])
    expect(refused.status).toBe(422)
    expect(refused.text).toContain('<p class="field-error" id="issue_title_error">Title can&#39;t be blank</p>')
  })
})

describe('who may see', () => {
  let secretProject: ProjectRow
  let hidden: IssueRow
  let confidential: IssueRow
  let insider: TestSession
  beforeAll(async () => {
    const db = server.database.db
    const owner = await createPerson(db)
    secretProject = await createTestProject(db, { owner: owner.user, visibility: 'private' })
    const { developer } = await addProjectMembersByRole(db, secretProject, ['developer'])
    insider = await createTestSession(server, developer.user)
    hidden = await createTestIssue(db, { project: secretProject, author: owner.user })
    confidential = await createTestIssue(db, {
      project: team.project,
      author: team.developer.user,
      title: 'Secret plan',
      confidential: true,
    })
  })

  test('a private project is the 404 page to an outsider for every issue page and form', async () => {
    const path = `/${secretProject.full_path}`
    for (const page of [
      `${path}/-/issues`,
      `${path}/-/issues/${hidden.iid}`,
      `${path}/-/issues/new`,
      `${path}/-/issues/${hidden.iid}/edit`,
    ]) {
      expect((await visit(page, sessions.outsider)).status).toBe(404)
    }
    const comment = await submit(sessions.outsider, `${path}/notes?target_type=issue&target_id=${hidden.id}`, [['note[note]', 'hi']])
    expect(comment.status).toBe(404)
    const created = await submit(sessions.outsider, `${path}/-/issues`, [['issue[title]', 'sneaky']])
    expect(created.status).toBe(404)
    expect((await visit(`${path}/-/issues/${hidden.iid}`, insider)).status).toBe(200)
  })

  test('a confidential issue is the 404 page to a Guest, whose comment on it is refused', async () => {
    expect((await visit(issuePath(confidential), sessions.guest)).status).toBe(404)
    const comment = await submit(sessions.guest, notesPath(confidential), [['note[note]', 'peek']])
    expect(comment.status).toBe(404)
    expect(await notesNow(confidential)).toEqual([])
    expect((await visit(issuePath(confidential), sessions.reporter)).status).toBe(200)
  })

  test("an issue of another project is not reached through this project's comment form", async () => {
    const path = `/${team.project.full_path}/notes?target_type=issue&target_id=${hidden.id}`
    expect((await submit(insider, path, [['note[note]', 'hi']])).status).toBe(404)
  })
})

describe('an incident opened for an alert', () => {
  test('links the alert with its severity and status for those who may read alerts', async () => {
    const db = server.database.db
    const incident = await createTestIssue(db, {
      project: team.project,
      author: team.developer.user,
      issueType: 'incident',
      title: 'Outage',
    })
    const at = '2026-11-01T10:00:00.000Z'
    await db
      .insertInto('alerts')
      .values({
        project_id: team.project.id,
        iid: 7,
        title: `Disk full ${EVIL}`,
        severity: 1,
        status: 1,
        started_at: at,
        payload: '{}',
        events: 4,
        issue_id: incident.id,
        created_at: at,
        updated_at: at,
      })
      .execute()
    const page = await visit(`${base()}/-/issues/incident/${incident.iid}`, sessions.reporter)
    expect(page.status).toBe(200)
    expect(page.text).toContain(
      `<h2 id="incident-alert-heading">Original alert: <a href="${base()}/-/alert_management/7/details">#7 Disk full &lt;script&gt;`,
    )
    expect(page.text).toContain('<dd class="alert-severity">High</dd>')
    expect(page.text).toContain('<dd><span class="badge status-acknowledged">Acknowledged</span></dd>')
    expect(page.text).toContain('<dd>4</dd>')
    expectInert(page.text)
    const forGuest = await visit(`${base()}/-/issues/incident/${incident.iid}`, sessions.guest)
    expect(forGuest.status).toBe(200)
    expect(forGuest.text).not.toContain('Original alert')
  })
})
