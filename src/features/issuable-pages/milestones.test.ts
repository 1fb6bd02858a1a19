import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'
import {
  addTestMember,
  createTestGroup,
  createTestIssue,
  createTestMilestone,
  createTestProject,
  createTestToken,
  createTestUser,
} from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'

let server: TestServer
let db: Db
let api: ReturnType<typeof client>
let request: ReturnType<typeof client>
let project: ProjectRow
let hidden: ProjectRow
let reporter: { user: User; session: TestSession; token: string }
let guest: TestSession
let stranger: TestSession

const EVIL = `<script>alert("x")</script> <img src=x onerror=alert(1)>`
const ESCAPED_EVIL = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt;'

const milestonesOf = (suffix = '', of: ProjectRow = project) => `/${of.full_path}/-/milestones${suffix}`

function page(path: string, session?: TestSession | null) {
  return request('GET', path, { headers: session ? { cookie: session.cookie, accept: 'text/html' } : { accept: 'text/html' } })
}

function submit(session: TestSession, path: string, fields: [string, string][], token: string | null = session.csrfToken) {
  const body = new URLSearchParams(token === null ? fields : [['authenticity_token', token], ...fields]).toString()
  return request('POST', path, {
    body,
    headers: { cookie: session.cookie, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
  })
}

function expectInert(text: string) {
  expect(text).not.toContain('<script>alert')
  expect(text).not.toContain('<img src=x onerror')
}

async function apiMilestones(state = 'all') {
  return (await api('GET', `/projects/${project.id}/milestones?state=${state}&per_page=100`, { token: reporter.token })).body as Record<
    string,
    any
  >[]
}

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  api = client(`${server.url}/api/v4`)
  request = client(server.url)
  const group = await createTestGroup(db, { name: 'Road', visibility: 'public' })
  project = await createTestProject(db, { namespace: group, name: 'Map', visibility: 'public' })
  hidden = await createTestProject(db, { namespace: await createTestGroup(db, { visibility: 'private' }), visibility: 'private' })
  const user = await createTestUser(db)
  await addTestMember(db, { user, project, accessLevel: 20 })
  reporter = { user, session: await createTestSession(server, user), token: (await createTestToken(db, user)).value }
  const guestUser = await createTestUser(db)
  await addTestMember(db, { user: guestUser, project, accessLevel: 10 })
  guest = await createTestSession(server, guestUser)
  stranger = await createTestSession(server, await createTestUser(db))
})
afterAll(() => server.close())

describe('creating a milestone', () => {
  test('an empty project invites a Reporter to create the first one; a Guest sees no button', async () => {
    const empty = await page(milestonesOf(), reporter.session)
    expect(empty.status).toBe(200)
    expect(empty.text).toContain('Use milestones to track issues and merge requests over a fixed period of time')
    expect(empty.text).toContain(`<a class="button primary" href="${milestonesOf('/new')}">New milestone</a>`)
    const asGuest = await page(milestonesOf(), guest)
    expect(asGuest.text).not.toContain('New milestone')
  })

  test('the form has GitLab fields, and creating opens the new milestone as the API sees it', async () => {
    const form = await page(milestonesOf('/new'), reporter.session)
    expect(form.status).toBe(200)
    expect(form.text).toContain('<title>New milestone · Road / Map · svc</title>')
    expect(form.text).toContain(`<form method="post" action="${milestonesOf()}" class="milestone-form">`)
    expect(form.text).toContain('<label for="milestone_start_date">Start date</label>')
    expect(form.text).toMatch(/<input type="date" id="milestone_due_date" name="milestone\[due_date\]" value=""\s*\/>/)
    const res = await submit(reporter.session, milestonesOf(), [
      ['milestone[title]', 'v1.0'],
      ['milestone[start_date]', '2030-01-01'],
      ['milestone[due_date]', '2030-02-01'],
      ['milestone[description]', 'First **release**'],
    ])
    expect(res.status).toBe(302)
    const [created] = await apiMilestones()
    expect(created).toMatchObject({ title: 'v1.0', start_date: '2030-01-01', due_date: '2030-02-01', description: 'First **release**' })
    expect(res.headers.location).toBe(milestonesOf(`/${created.iid}`))
    const shown = await page(res.headers.location, reporter.session)
    expect(shown.text).toContain('<h1 class="issuable-title">v1.0</h1>')
    expect(shown.text).toContain('<strong>release</strong>')
    expect(shown.text).toContain('<span class="badge status-upcoming">Upcoming</span>')
  })

  test('refusals come back beside the fields with the values typed, escaped', async () => {
    const res = await submit(reporter.session, milestonesOf(), [
      ['milestone[title]', 'v1.0'],
      ['milestone[start_date]', '2030-03-01'],
      ['milestone[due_date]', '2030-02-01'],
      ['milestone[description]', EVIL],
    ])
    expect(res.status).toBe(422)
    expect(res.text).toContain('<li>Title already being used for another group or project milestone.</li>')
    expect(res.text).toContain('<li>Due date must be greater than start date</li>')
    expect(res.text).toContain(
      '<p class="field-error" id="milestone_title_error">Title already being used for another group or project milestone.</p>',
    )
    expect(res.text).toContain('<p class="field-error" id="milestone_due_date_error">Due date must be greater than start date</p>')
    expect(res.text).toMatch(/value="2030-03-01"/)
    expect(res.text).toContain(`>${ESCAPED_EVIL}</textarea>`)
    expectInert(res.text)
    const blank = await submit(reporter.session, milestonesOf(), [['milestone[title]', '  ']])
    expect(blank.status).toBe(422)
    expect(blank.text).toContain('<p class="field-error" id="milestone_title_error">Title can&#39;t be blank</p>')
    expect((await apiMilestones()).length).toBe(1)
  })

  test('a Guest gets the 404 page for the form and a forged POST, and a POST without a token is refused', async () => {
    expect((await page(milestonesOf('/new'), guest)).status).toBe(404)
    expect((await submit(guest, milestonesOf(), [['milestone[title]', 'guest']])).status).toBe(404)
    const noToken = await submit(reporter.session, milestonesOf(), [['milestone[title]', 'no token']], null)
    expect(noToken.status).toBe(422)
    expect(noToken.text).toContain('The change you requested was rejected.')
    expect((await apiMilestones()).map((milestone) => milestone.title)).toEqual(['v1.0'])
  })
})

describe('a milestone', () => {
  test('the list and the page show progress: closed issues of all, as a bar and a percentage', async () => {
    const milestone = await createTestMilestone(db, { project, title: `Beta ${EVIL}`, dueDate: '2099-01-01' })
    await createTestIssue(db, { project, author: reporter.user, milestone, state: 'closed' })
    await createTestIssue(db, { project, author: reporter.user, milestone, state: 'closed' })
    await createTestIssue(db, { project, author: reporter.user, milestone })
    await createTestIssue(db, { project, author: reporter.user, milestone, confidential: true })
    const list = await page(milestonesOf(), reporter.session)
    expect(list.status).toBe(200)
    expect(list.text).toContain(`<a class="title" href="${milestonesOf(`/${milestone.iid}`)}">Beta ${ESCAPED_EVIL}</a>`)
    expect(list.text).toContain(`<progress class="milestone-progress" max="100" value="50" aria-label="Progress of Beta ${ESCAPED_EVIL}"`)
    expect(list.text).toContain('4 Issues</a>')
    expect(list.text).toContain('<span class="percent-complete">50% complete</span>')
    expect(list.text).toMatch(/aria-current="page"\s*>Open <span class="badge count">2<\/span>/)
    expectInert(list.text)
    // A Guest does not count the confidential issue.
    const asGuest = await page(milestonesOf(), guest)
    expect(asGuest.text).toContain('<span class="percent-complete">66% complete</span>')
    expect(asGuest.text).toContain('3 Issues</a>')
    const shown = await page(milestonesOf(`/${milestone.iid}`), reporter.session)
    expect(shown.text).toContain('2 of 4 issues closed (50% complete)')
    expect(shown.text).toContain('<progress class="milestone-progress" max="100" value="50"')
    expectInert(shown.text)
  })

  test('Close and Reopen change its state as the API reports it, and move it between the tabs', async () => {
    const milestone = await createTestMilestone(db, { project, title: 'To close' })
    const list = await page(milestonesOf(), reporter.session)
    expect(list.text).toContain('<input type="hidden" name="milestone[state_event]" value="close" />')
    const closed = await submit(reporter.session, milestonesOf(`/${milestone.iid}`), [
      ['_method', 'put'],
      ['milestone[state_event]', 'close'],
    ])
    expect(closed.status).toBe(302)
    expect(closed.headers.location).toBe(milestonesOf(`/${milestone.iid}`))
    expect((await apiMilestones('closed')).map((row) => row.title)).toContain('To close')
    const tab = await page(milestonesOf('?state=closed'), reporter.session)
    expect(tab.text).toContain(`id="milestone_${milestone.iid}"`)
    expect(tab.text).toContain('aria-label="Reopen milestone To close"')
    await submit(reporter.session, milestonesOf(`/${milestone.iid}`), [
      ['_method', 'put'],
      ['milestone[state_event]', 'activate'],
    ])
    expect((await apiMilestones('active')).map((row) => row.title)).toContain('To close')
  })

  test('edit changes its fields; a refused edit keeps the values', async () => {
    const milestone = await createTestMilestone(db, { project, title: 'Gamma' })
    const form = await page(milestonesOf(`/${milestone.iid}/edit`), reporter.session)
    expect(form.status).toBe(200)
    expect(form.text).toContain('<input type="hidden" name="_method" value="put" />')
    expect(form.text).toMatch(/id="milestone_title"\s+name="milestone\[title\]"\s+value="Gamma"/)
    const refused = await submit(reporter.session, milestonesOf(`/${milestone.iid}`), [
      ['_method', 'put'],
      ['milestone[title]', 'Gamma 2'],
      ['milestone[start_date]', '2031-05-05'],
      ['milestone[due_date]', '2031-05-01'],
    ])
    expect(refused.status).toBe(422)
    expect(refused.text).toMatch(/value="Gamma 2"/)
    expect(refused.text).toContain('Due date must be greater than start date')
    const saved = await submit(reporter.session, milestonesOf(`/${milestone.iid}`), [
      ['_method', 'put'],
      ['milestone[title]', 'Gamma 2'],
      ['milestone[start_date]', '2031-05-01'],
      ['milestone[due_date]', '2031-05-05'],
      ['milestone[description]', 'Now described'],
    ])
    expect(saved.status).toBe(302)
    const row = (await apiMilestones()).find((entry) => entry.id === milestone.id)!
    expect(row).toMatchObject({ title: 'Gamma 2', start_date: '2031-05-01', due_date: '2031-05-05', description: 'Now described' })
  })

  test('delete asks first with GitLab words, then removes it and goes back to the list', async () => {
    const milestone = await createTestMilestone(db, { project, title: 'Doomed' })
    await createTestIssue(db, { project, author: reporter.user, milestone })
    const shown = await page(milestonesOf(`/${milestone.iid}`), reporter.session)
    expect(shown.text).toContain(
      'You&rsquo;re about to permanently delete the milestone <strong>Doomed</strong> and remove it from\n                1 issue and 0 merge requests.',
    )
    const res = await submit(reporter.session, milestonesOf(`/${milestone.iid}`), [['_method', 'delete']])
    expect(res.status).toBe(303)
    expect(res.headers.location).toBe(milestonesOf())
    expect((await apiMilestones()).map((row) => row.id)).not.toContain(milestone.id)
    expect((await page(milestonesOf(`/${milestone.iid}`), reporter.session)).status).toBe(404)
  })

  test('a Guest sees no buttons, and forged changes are the 404 page and change nothing', async () => {
    const milestone = await createTestMilestone(db, { project, title: 'Guarded' })
    const shown = await page(milestonesOf(`/${milestone.iid}`), guest)
    expect(shown.status).toBe(200)
    for (const text of ['Close milestone', '>Edit<', 'Delete milestone', `<form method="post" action="${milestonesOf()}`]) {
      expect(shown.text).not.toContain(text)
    }
    expect((await page(milestonesOf(`/${milestone.iid}/edit`), guest)).status).toBe(404)
    const close = await submit(guest, milestonesOf(`/${milestone.iid}`), [
      ['_method', 'put'],
      ['milestone[state_event]', 'close'],
    ])
    expect(close.status).toBe(404)
    expect((await submit(guest, milestonesOf(`/${milestone.iid}`), [['_method', 'delete']])).status).toBe(404)
    expect((await apiMilestones('active')).map((row) => row.title)).toContain('Guarded')
  })

  test('a private project answers 404 to a stranger and sign-in to a visitor on every milestone page', async () => {
    const milestone = await createTestMilestone(db, { project: hidden, title: 'Secret' })
    for (const suffix of ['', '/new', `/${milestone.iid}`, `/${milestone.iid}/edit`]) {
      expect((await page(milestonesOf(suffix, hidden), stranger)).status).toBe(404)
      const visitor = await page(milestonesOf(suffix, hidden), null)
      expect([visitor.status, visitor.headers.location]).toEqual([302, '/users/sign_in'])
    }
    expect((await submit(stranger, milestonesOf(`/${milestone.iid}`, hidden), [['_method', 'delete']])).status).toBe(404)
  })
})
