import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import type { LabelRow, NamespaceRow, ProjectRow } from '../../db/schema.js'
import {
  addTestMember,
  createTestGroup,
  createTestIssue,
  createTestLabel,
  createTestProject,
  createTestToken,
  createTestUser,
} from '../../testing/factories.js'
import { client, type TestResponse } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { flashOf } from '../sessions/testing.js'

let server: TestServer
let db: Db
let api: ReturnType<typeof client>
let request: ReturnType<typeof client>
let group: NamespaceRow
let project: ProjectRow
let hidden: ProjectRow
let reporter: { user: User; session: TestSession; token: string }
let guest: { user: User; session: TestSession }
let stranger: TestSession
let groupLabel: LabelRow

const EVIL = `<script>alert("x")</script> <img src=x onerror=alert(1)>`
const ESCAPED_EVIL = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt;'

const labelsOf = (suffix = '', of: ProjectRow = project) => `/${of.full_path}/-/labels${suffix}`

function page(path: string, session?: TestSession | null) {
  return request('GET', path, { headers: session ? { cookie: session.cookie, accept: 'text/html' } : { accept: 'text/html' } })
}

/** A form's POST as a browser sends it: fields in order (repeated names allowed), with the session's token unless told. */
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

async function labelNamed(title: string): Promise<LabelRow | undefined> {
  return db.selectFrom('labels').selectAll().where('project_id', '=', project.id).where('title', '=', title).executeTakeFirst()
}

async function apiLabel(id: number): Promise<TestResponse> {
  return api('GET', `/projects/${project.id}/labels/${id}`, { token: reporter.token })
}

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  api = client(`${server.url}/api/v4`)
  request = client(server.url)
  group = await createTestGroup(db, { name: 'Platform team', visibility: 'public' })
  project = await createTestProject(db, { namespace: group, name: 'Atlas', visibility: 'public' })
  hidden = await createTestProject(db, { namespace: await createTestGroup(db, { visibility: 'private' }), visibility: 'private' })
  const reporterUser = await createTestUser(db)
  await addTestMember(db, { user: reporterUser, project, accessLevel: 20 })
  reporter = {
    user: reporterUser,
    session: await createTestSession(server, reporterUser),
    token: (await createTestToken(db, reporterUser)).value,
  }
  const guestUser = await createTestUser(db)
  await addTestMember(db, { user: guestUser, project, accessLevel: 10 })
  guest = { user: guestUser, session: await createTestSession(server, guestUser) }
  stranger = await createTestSession(server, await createTestUser(db))
  groupLabel = await createTestLabel(db, { group, title: 'platform', color: '#428bca' })
})
afterAll(() => server.close())

describe('creating a label', () => {
  test('the form offers the title, description, colour and GitLab suggested colours drawn as SVG swatches', async () => {
    const res = await page(labelsOf('/new'), reporter.session)
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.text).toContain('<title>New label · Platform team / Atlas · svc</title>')
    expect(res.text).toContain(`<form method="post" action="${labelsOf()}" class="label-form">`)
    expect(res.text).toMatch(/<input type="text" id="label_title" name="label\[title\]" value="" required\s*\/>/)
    expect(res.text).toContain('<label for="label_description">Description (optional)</label>')
    expect(res.text).toMatch(/<input\s+type="text"\s+id="label_color"\s+name="label\[color\]"\s+value="#6699cc"/)
    expect(res.text).toMatch(/<input type="radio" name="suggested_color" value="#009966" data-color-field="label_color"\s*\/>/)
    expect(res.text).toContain('<rect x="2" y="2" width="24" height="24" rx="4" fill="#009966" />')
    expect(res.text).toContain('<span class="visually-hidden">Aztec Gold #c39953</span>')
    expect(res.text).not.toContain('style=')
  })

  test('creates the label through the labels service and goes back to the list, where it shows', async () => {
    const res = await submit(reporter.session, labelsOf(), [
      ['label[title]', 'bug'],
      ['label[description]', 'Something is broken'],
      ['label[color]', '#d9534f'],
      ['suggested_color', ''],
    ])
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe(labelsOf())
    const created = await labelNamed('bug')
    expect((await apiLabel(created!.id)).body).toMatchObject({
      name: 'bug',
      color: '#d9534f',
      description: 'Something is broken',
      priority: null,
      is_project_label: true,
    })
    const list = await page(labelsOf(), reporter.session)
    expect(list.text).toContain(`id="label_${created!.id}"`)
    expect(list.text).toContain('<circle cx="5" cy="5" r="5" fill="#d9534f" />')
  })

  test('a chosen suggested colour wins over the typed one', async () => {
    const res = await submit(reporter.session, labelsOf(), [
      ['label[title]', 'feature'],
      ['label[color]', '#000000'],
      ['suggested_color', '#3cb371'],
    ])
    expect(res.status).toBe(302)
    expect((await labelNamed('feature'))!.color).toBe('#3cb371')
  })

  test('a taken title and an invalid colour come back beside the fields with the values typed, escaped', async () => {
    const res = await submit(reporter.session, labelsOf(), [
      ['label[title]', 'bug'],
      ['label[description]', EVIL],
      ['label[color]', 'not a colour'],
      ['suggested_color', ''],
    ])
    expect(res.status).toBe(422)
    expect(res.text).toContain('<div class="flash alert" role="alert" id="error_explanation">')
    expect(res.text).toContain('<li>Color must be a valid color code</li>')
    expect(res.text).toContain('<li>Title has already been taken</li>')
    expect(res.text).toContain('<p class="field-error" id="label_title_error">Title has already been taken</p>')
    expect(res.text).toContain('<p class="field-error" id="label_color_error">Color must be a valid color code</p>')
    expect(res.text).toMatch(/id="label_title" name="label\[title\]" value="bug" required aria-describedby="label_title_error"/)
    expect(res.text).toContain(`>${ESCAPED_EVIL}</textarea>`)
    expect(res.text).toContain('value="not a colour"')
    expectInert(res.text)
  })

  test('a title a group label has is refused in GitLab words', async () => {
    const res = await submit(reporter.session, labelsOf(), [
      ['label[title]', 'platform'],
      ['label[color]', '#ffffff'],
    ])
    expect(res.status).toBe(422)
    expect(res.text).toContain('<li>Title already exists at group level for Platform team. Please choose another one.</li>')
  })

  test('a Guest gets the 404 page for the form and for a forged POST, which creates nothing', async () => {
    expect((await page(labelsOf('/new'), guest.session)).status).toBe(404)
    const forged = await submit(guest.session, labelsOf(), [
      ['label[title]', 'guest-made'],
      ['label[color]', '#ffffff'],
    ])
    expect(forged.status).toBe(404)
    expect(await labelNamed('guest-made')).toBeUndefined()
  })

  test('a POST without the CSRF token is refused with Rails 422 page', async () => {
    const res = await submit(reporter.session, labelsOf(), [['label[title]', 'no-token']], null)
    expect(res.status).toBe(422)
    expect(res.text).toContain('The change you requested was rejected.')
    expect(await labelNamed('no-token')).toBeUndefined()
  })
})

describe('editing and deleting a label', () => {
  test('the edit form is filled from the label; saving changes it as the API sees it', async () => {
    const label = await createTestLabel(db, { project, title: 'to-edit', color: '#808080', description: 'Old' })
    const form = await page(labelsOf(`/${label.id}/edit`), reporter.session)
    expect(form.status).toBe(200)
    expect(form.text).toContain(`<form method="post" action="${labelsOf(`/${label.id}`)}" class="label-form">`)
    expect(form.text).toContain('<input type="hidden" name="_method" value="put" />')
    expect(form.text).toMatch(/id="label_title" name="label\[title\]" value="to-edit" required/)
    expect(form.text).toMatch(/<input type="radio" name="suggested_color" value="#808080" data-color-field="label_color" checked\s*\/>/)
    const res = await submit(reporter.session, labelsOf(`/${label.id}`), [
      ['_method', 'put'],
      ['label[title]', 'edited'],
      ['label[description]', 'New'],
      ['label[color]', 'red'],
      ['suggested_color', ''],
    ])
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe(labelsOf())
    expect((await apiLabel(label.id)).body).toMatchObject({ name: 'edited', description: 'New', color: '#FF0000' })
  })

  test('a refused edit keeps the values beside the fields', async () => {
    const label = await createTestLabel(db, { project, title: 'keep-me' })
    const res = await submit(reporter.session, labelsOf(`/${label.id}`), [
      ['_method', 'put'],
      ['label[title]', ''],
      ['label[color]', '#12345'],
    ])
    expect(res.status).toBe(422)
    expect(res.text).toContain('<p class="field-error" id="label_title_error">Title can&#39;t be blank, Title is invalid</p>')
    expect(res.text).toContain('value="#12345"')
    expect((await apiLabel(label.id)).body.name).toBe('keep-me')
  })

  test('a group label has no edit page here, and a Guest cannot open or forge one', async () => {
    expect((await page(labelsOf(`/${groupLabel.id}/edit`), reporter.session)).status).toBe(404)
    const label = await createTestLabel(db, { project, title: 'guarded' })
    expect((await page(labelsOf(`/${label.id}/edit`), guest.session)).status).toBe(404)
    const forged = await submit(guest.session, labelsOf(`/${label.id}`), [
      ['_method', 'put'],
      ['label[title]', 'taken over'],
    ])
    expect(forged.status).toBe(404)
    const deleted = await submit(guest.session, labelsOf(`/${label.id}`), [['_method', 'delete']])
    expect(deleted.status).toBe(404)
    expect((await apiLabel(label.id)).body.name).toBe('guarded')
  })

  test('delete asks first, then removes the label and says so once', async () => {
    const label = await createTestLabel(db, { project, title: 'doomed' })
    const list = await page(labelsOf(), reporter.session)
    expect(list.text).toContain(`<summary class="button small danger-outline" aria-label="Delete label doomed">Delete</summary>`)
    expect(list.text).toContain('<p><strong>doomed</strong> will be permanently deleted from Atlas. This cannot be undone.</p>')
    const res = await submit(reporter.session, labelsOf(`/${label.id}`), [['_method', 'delete']])
    expect(res.status).toBe(303)
    expect(res.headers.location).toBe(labelsOf())
    expect((await apiLabel(label.id)).status).toBe(404)
    const after = await page(labelsOf(), reporter.session)
    expect(flashOf(after.text)).toBe('doomed was removed')
    expect(flashOf((await page(labelsOf(), reporter.session)).text)).toBeNull()
  })
})

describe('priorities and subscriptions', () => {
  test('Prioritize moves a label to the prioritized section, in the order the forms send; Remove priority takes it back', async () => {
    const first = await createTestLabel(db, { project, title: 'p-first' })
    const second = await createTestLabel(db, { project, title: 'p-second' })
    const prioritize = (ids: number[]) =>
      submit(
        reporter.session,
        labelsOf('/set_priorities'),
        ids.map((id) => ['label_ids[]', String(id)]),
      )
    expect((await prioritize([second.id])).headers.location).toBe(labelsOf())
    let list = await page(labelsOf(), reporter.session)
    // The Prioritize button of an unprioritised label sends the current order with it at the end.
    expect(list.text).toMatch(
      new RegExp(
        `<input type="hidden" name="label_ids\\[\\]" value="${second.id}" />\\s*<input type="hidden" name="label_ids\\[\\]" value="${first.id}" />\\s*<button type="submit" class="small" aria-label="Prioritize label p-first">Prioritize</button>`,
      ),
    )
    await prioritize([second.id, first.id])
    expect((await apiLabel(second.id)).body.priority).toBe(0)
    expect((await apiLabel(first.id)).body.priority).toBe(1)
    list = await page(labelsOf(), reporter.session)
    const prioritizedSection = list.text.slice(list.text.indexOf('Prioritized labels</h2>'), list.text.indexOf('Other labels</h2>'))
    expect(prioritizedSection.indexOf(`id="label_${second.id}"`)).toBeGreaterThan(-1)
    expect(prioritizedSection.indexOf(`id="label_${second.id}"`)).toBeLessThan(prioritizedSection.indexOf(`id="label_${first.id}"`))
    expect(prioritizedSection).toContain('<span class="badge prioritized-badge">Prioritized label</span>')
    expect(prioritizedSection).toContain('aria-label="Move label p-first up">Move up</button>')
    const removed = await submit(reporter.session, labelsOf(`/${second.id}/remove_priority`), [])
    expect(removed.status).toBe(302)
    expect((await apiLabel(second.id)).body.priority).toBeNull()
    // A Guest may not reorder.
    expect((await submit(guest.session, labelsOf('/set_priorities'), [['label_ids[]', String(second.id)]])).status).toBe(404)
    expect((await apiLabel(second.id)).body.priority).toBeNull()
  })

  test('a group label can be prioritized in the project too, and links to its group', async () => {
    await submit(reporter.session, labelsOf('/set_priorities'), [['label_ids[]', String(groupLabel.id)]])
    const list = await page(labelsOf(), reporter.session)
    expect(list.text).toContain(
      `<span class="badge label-scope">Group label</span>\n                <a class="label-group" href="/groups/${group.full_path}">Platform team</a>`,
    )
    expect(list.text).not.toContain(`href="${labelsOf(`/${groupLabel.id}/edit`)}"`)
    await submit(reporter.session, labelsOf(`/${groupLabel.id}/remove_priority`), [])
  })

  test('Subscribe and Unsubscribe toggle the subscription as the API reports it, for a Guest too', async () => {
    const label = await createTestLabel(db, { project, title: 'followed' })
    const toggle = () => submit(guest.session, labelsOf(`/${label.id}/toggle_subscription`), [])
    let list = await page(labelsOf(), guest.session)
    expect(list.text).toContain(`aria-label="Subscribe to label followed">`)
    expect((await toggle()).status).toBe(302)
    const guestToken = (await createTestToken(db, guest.user)).value
    const asGuest = () => api('GET', `/projects/${project.id}/labels/${label.id}`, { token: guestToken })
    expect((await asGuest()).body.subscribed).toBe(true)
    list = await page(labelsOf(), guest.session)
    expect(list.text).toContain(`aria-label="Unsubscribe from label followed">`)
    await toggle()
    expect((await asGuest()).body.subscribed).toBe(false)
  })
})

describe('the labels list', () => {
  test('a Guest sees the labels and Subscribe, but no buttons to manage them; a visitor sees no forms at all', async () => {
    const guestList = await page(labelsOf(), guest.session)
    expect(guestList.status).toBe(200)
    expect(guestList.text).toContain('<h2 id="prioritized-labels-heading">Prioritized labels</h2>')
    for (const text of ['New label', '>Prioritize<', '>Edit<', '>Delete<', 'Remove priority', '/set_priorities']) {
      expect(guestList.text).not.toContain(text)
    }
    const visitor = await page(labelsOf(), null)
    expect(visitor.status).toBe(200)
    expect(visitor.text).not.toContain('<form method="post"')
  })

  test('a Reporter sees New label, Prioritize, Edit and Delete', async () => {
    const list = await page(labelsOf(), reporter.session)
    expect(list.text).toContain(`<a class="button primary" href="${labelsOf('/new')}">New label</a>`)
    expect(list.text).toContain('Labels can be applied to issues and merge requests. Star a label to make it a priority label.')
    expect(list.text).toContain('>Prioritize</button>')
  })

  test('titles and descriptions stay inert; counts of open issues link to the filtered list', async () => {
    const evil = await createTestLabel(db, { project, title: `x ${EVIL}`, description: `d ${EVIL}` })
    await createTestIssue(db, { project, author: reporter.user, labels: [evil] })
    const list = await page(labelsOf(), reporter.session)
    expect(list.text).toContain(`<span class="label-title">x ${ESCAPED_EVIL}</span>`)
    expect(list.text).toContain(`<div class="meta label-description">d ${ESCAPED_EVIL}</div>`)
    expect(list.text).toContain(`aria-label="Edit label x ${ESCAPED_EVIL}"`)
    expect(list.text).toContain('1 open issue</a>')
    expectInert(list.text)
    const searched = await page(labelsOf(`?search=${encodeURIComponent('zzz-nothing')}`), reporter.session)
    expect(searched.text).toContain('No prioritized labels with such name or description')
    expect(searched.text).toContain('No other labels with such name or description')
  })

  test('a private project answers 404 on every label page for a stranger, and sign-in for a visitor', async () => {
    const label = await createTestLabel(db, { project: hidden, title: 'secret' })
    for (const suffix of ['', '/new', `/${label.id}/edit`]) {
      expect((await page(labelsOf(suffix, hidden), stranger)).status).toBe(404)
      const visitor = await page(labelsOf(suffix, hidden), null)
      expect([visitor.status, visitor.headers.location]).toEqual([302, '/users/sign_in'])
    }
    const forged = await submit(stranger, labelsOf(`/${label.id}/toggle_subscription`, hidden), [])
    expect(forged.status).toBe(404)
  })
})
