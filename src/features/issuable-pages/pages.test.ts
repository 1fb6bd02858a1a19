import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import type { IssueRow, LabelRow, MilestoneRow, ProjectRow } from '../../db/schema.js'
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
import { createTestSession, type TestSession } from '../../testing/sessions.js'

let server: TestServer
let db: Db
let request: ReturnType<typeof client>
let project: ProjectRow
let author: User
let reporter: TestSession
let guest: TestSession
let stranger: TestSession
let label: LabelRow
let groupLabel: LabelRow
let milestone: MilestoneRow
let issue: IssueRow
let secret: IssueRow
let incident: IssueRow

const EVIL = `<script>alert("x")</script> "q" 'a' <img src=x onerror=alert(1)>`

interface Page {
  status: number
  type: string | null
  location: string | null
  text: string
}

async function visit(path: string, session?: TestSession): Promise<Page> {
  const response = await fetch(server.url + path, { headers: session ? { cookie: session.cookie } : {}, redirect: 'manual' })
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    location: response.headers.get('location'),
    text: await response.text(),
  }
}

function withoutTokens(text: string): string {
  return text.replace(/(csrf-token" content|authenticity_token" value)="[^"]*"/g, '$1=""')
}

function expectInert(text: string) {
  expect(text).not.toContain('<script>alert')
  expect(text).not.toContain('<img src=x onerror')
}

async function member(accessLevel: number | null): Promise<{ user: User; session: TestSession }> {
  const user = await createTestUser(db)
  if (accessLevel !== null) await addTestMember(db, { user, project, accessLevel })
  return { user, session: await createTestSession(server, user) }
}

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  request = client(server.url + '/api/v4')
  const group = await createTestGroup(db, { visibility: 'public' })
  project = await createTestProject(db, { namespace: group, visibility: 'public' })
  author = await createTestUser(db, { name: `Author ${EVIL}` })
  reporter = (await member(20)).session
  guest = (await member(10)).session
  stranger = await createTestSession(server, await createTestUser(db))
  label = await createTestLabel(db, { project, title: `bug ${EVIL}`, color: '#d9534f', description: `Label ${EVIL}` })
  groupLabel = await createTestLabel(db, { group, title: 'platform', color: '#428bca' })
  milestone = await createTestMilestone(db, { project, title: `v1 ${EVIL}`, dueDate: '2099-01-01' })
  issue = await createTestIssue(db, {
    project,
    author,
    title: `Crash ${EVIL}`,
    description: `**Steps** ${EVIL}`,
    labels: [label, groupLabel],
    milestone,
    assignees: [author],
  })
  await db.updateTable('issues').set({ due_date: '2099-02-03' }).where('id', '=', issue.id).execute()
  secret = await createTestIssue(db, { project, author, title: 'Secret plan', confidential: true })
  incident = await createTestIssue(db, { project, author, title: 'Outage', issueType: 'incident' })
  await createTestIssue(db, { project, author, title: 'Closed one', state: 'closed' })
  const at = new Date().toISOString()
  await db
    .insertInto('notes')
    .values([
      {
        project_id: project.id,
        issue_id: issue.id,
        merge_request_id: null,
        author_id: author.id,
        body: `Note ${EVIL}`,
        system: 0,
        internal: 0,
        created_at: at,
        updated_at: at,
      },
      {
        project_id: project.id,
        issue_id: issue.id,
        merge_request_id: null,
        author_id: author.id,
        body: 'Internal only',
        system: 0,
        internal: 1,
        created_at: at,
        updated_at: at,
      },
      {
        project_id: project.id,
        issue_id: issue.id,
        merge_request_id: null,
        author_id: author.id,
        body: 'changed the description',
        system: 1,
        internal: 0,
        created_at: at,
        updated_at: at,
      },
    ])
    .execute()
})
afterAll(() => server.close())

const issuesOf = (suffix = '') => `/${project.full_path}/-/issues${suffix}`

describe('the issue list', () => {
  test('shows open issues with counts, labels and milestone, escaped', async () => {
    const page = await visit(issuesOf(), reporter)
    expect(page.status).toBe(200)
    expect(page.type).toBe('text/html; charset=utf-8')
    expect(page.text).toMatch(/aria-current="page"\s*>Open <span class="badge count">3<\/span>/)
    expect(page.text).toMatch(/>Closed <span class="badge count">1<\/span>/)
    expect(page.text).toMatch(/>All <span class="badge count">4<\/span>/)
    expect(page.text).toContain(`id="issue_${issue.iid}"`)
    expect(page.text).toContain(
      'Crash &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &quot;q&quot; &#39;a&#39; &lt;img src=x onerror=alert(1)&gt;',
    )
    expect(page.text).toContain(`href="/${project.full_path}/-/issues/incident/${incident.iid}"`)
    expect(page.text).toContain('<circle cx="5" cy="5" r="5" fill="#d9534f" />')
    expectInert(page.text)
  })

  test('a Guest does not see the confidential issue in the list or its count', async () => {
    const page = await visit(issuesOf(), guest)
    expect(page.status).toBe(200)
    expect(page.text).not.toContain('Secret plan')
    expect(page.text).toMatch(/aria-current="page"\s*>Open <span class="badge count">2<\/span>/)
  })

  test('filters by label_name[] as Markdown ~label links write it, and by search', async () => {
    const byLabel = await visit(issuesOf(`?label_name[]=${encodeURIComponent('platform')}`), reporter)
    expect(byLabel.status).toBe(200)
    expect(byLabel.text).toContain(`id="issue_${issue.iid}"`)
    expect(byLabel.text).not.toContain(`id="issue_${incident.iid}"`)
    expect(byLabel.text).toContain('<option value="platform" selected>platform</option>')
    expect(byLabel.text).toContain('aria-label="Remove label filter platform"')
    const bySearch = await visit(issuesOf('?search=outage&state=all'), reporter)
    expect(bySearch.text).toContain(`id="issue_${incident.iid}"`)
    expect(bySearch.text).not.toContain(`id="issue_${issue.iid}"`)
    const none = await visit(issuesOf('?search=zzzzzz'), reporter)
    expect(none.text).toContain('Sorry, your filter produced no results')
  })
})

describe('an issue', () => {
  test('shows its title, state, Markdown description, labels, milestone, assignees, due date and discussion', async () => {
    const page = await visit(issuesOf(`/${issue.iid}`), reporter)
    expect(page.status).toBe(200)
    expect(page.type).toBe('text/html; charset=utf-8')
    expect(page.text).toContain(
      '<h1 class="issuable-title">Crash &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &quot;q&quot; &#39;a&#39; &lt;img src=x onerror=alert(1)&gt;</h1>',
    )
    expect(page.text).toContain('<span class="badge status-opened issuable-state">Open</span>')
    expect(page.text).toContain('<strong>Steps</strong>')
    expect(page.text).toContain(`href="/${project.full_path}/-/milestones/${milestone.iid}">v1 &lt;script&gt;`)
    expect(page.text).toContain('<time datetime="2099-02-03">2099-02-03</time>')
    expect(page.text).toContain('Author &lt;script&gt;')
    expect(page.text).toContain(
      'title="Label &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &quot;q&quot; &#39;a&#39; &lt;img src=x onerror=alert(1)&gt;"',
    )
    // GitLab's sanitizing drops the script and the handler; the rest of the raw HTML stays.
    expect(page.text).toContain(`Note  "q" 'a' <img src="x"></p>`)
    expect(page.text).toContain('Internal only')
    expect(page.text).toContain('class="note system-note"')
    expectInert(page.text)
  })

  test('internal notes are left out for a Guest', async () => {
    const page = await visit(issuesOf(`/${issue.iid}`), guest)
    expect(page.status).toBe(200)
    expect(page.text).toContain(`Note  "q" 'a' <img src="x"></p>`)
    expect(page.text).not.toContain('Internal only')
  })

  test('an incident opens at its web_url under issues/incident', async () => {
    const page = await visit(issuesOf(`/incident/${incident.iid}`), reporter)
    expect(page.status).toBe(200)
    expect(page.text).toContain('Incident created')
  })

  test('a confidential issue is the 404 page for a Guest and a non-member, as one that does not exist', async () => {
    const allowed = await visit(issuesOf(`/${secret.iid}`), reporter)
    expect(allowed.status).toBe(200)
    expect(allowed.text).toContain('<span class="badge confidential-badge" role="note">Confidential</span>')
    for (const session of [guest, stranger]) {
      const hidden = await visit(issuesOf(`/${secret.iid}`), session)
      const missing = await visit(issuesOf('/99999'), session)
      expect(hidden.status).toBe(404)
      expect(withoutTokens(hidden.text)).toBe(withoutTokens(missing.text))
      expect(hidden.text).not.toContain('Secret plan')
    }
    const api = await request('GET', `/projects/${project.id}/issues/${secret.iid}`, { headers: { cookie: guest.cookie } })
    expect(api.status).toBe(404)
    const visitor = await visit(issuesOf(`/${secret.iid}`))
    expect(visitor.status).toBe(302)
    expect(visitor.location).toBe('/users/sign_in')
  })

  test('the author of a confidential issue sees it', async () => {
    const session = await createTestSession(server, author)
    await addTestMember(db, { user: author, project, accessLevel: 10 })
    expect((await visit(issuesOf(`/${secret.iid}`), session)).status).toBe(200)
  })
})

describe('a private project', () => {
  test('is the 404 page for a signed-in non-member and sign-in for a visitor, on every page', async () => {
    const hiddenProject = await createTestProject(db, {
      namespace: await createTestGroup(db, { visibility: 'private' }),
      visibility: 'private',
    })
    const hiddenIssue = await createTestIssue(db, { project: hiddenProject, author })
    const hiddenMilestone = await createTestMilestone(db, { project: hiddenProject })
    for (const suffix of [
      '/-/issues',
      `/-/issues/${hiddenIssue.iid}`,
      '/-/labels',
      '/-/milestones',
      `/-/milestones/${hiddenMilestone.iid}`,
    ]) {
      const path = `/${hiddenProject.full_path}${suffix}`
      const visitor = await visit(path)
      expect(visitor.status, path).toBe(302)
      expect(visitor.location).toBe('/users/sign_in')
      const outsider = await visit(path, stranger)
      expect(outsider.status, path).toBe(404)
      expect(outsider.text).toContain('404: Page not found')
    }
  })
})

describe('labels and milestones', () => {
  test('the labels page lists project and group labels with their open issue counts', async () => {
    const page = await visit(`/${project.full_path}/-/labels`, reporter)
    expect(page.status).toBe(200)
    expect(page.text).toContain('<h1>Labels</h1>')
    expect(page.text).toContain('<span class="label-title">bug &lt;script&gt;')
    expect(page.text).toContain('<span class="label-title">platform</span>')
    expect(page.text).toContain('<span class="badge label-scope">Group label</span>')
    expect(page.text).toContain(`href="/${project.full_path}/-/issues?label_name[]=platform">1 open issue</a>`)
    expectInert(page.text)
  })

  test('the milestones page lists them; a milestone shows its progress and issues', async () => {
    const list = await visit(`/${project.full_path}/-/milestones`, reporter)
    expect(list.status).toBe(200)
    expect(list.text).toContain(`href="/${project.full_path}/-/milestones/${milestone.iid}">v1 &lt;script&gt;`)
    expect(list.text).toMatch(/aria-current="page"\s*>Open <span class="badge count">1<\/span>/)
    expectInert(list.text)
    const page = await visit(`/${project.full_path}/-/milestones/${milestone.iid}`, reporter)
    expect(page.status).toBe(200)
    expect(page.text).toContain('<h1 class="issuable-title">v1 &lt;script&gt;')
    expect(page.text).toContain('0 of 1 issues closed (0% complete)')
    expect(page.text).toContain(`id="issue_${issue.iid}"`)
    expectInert(page.text)
    expect((await visit(`/${project.full_path}/-/milestones/9999`, reporter)).status).toBe(404)
  })
})

describe('snippets', () => {
  test('a project snippet and a personal snippet show their files highlighted, escaped', async () => {
    const owner = await createTestUser(db)
    await addTestMember(db, { user: owner, project, accessLevel: 40 })
    const token = (await createTestToken(db, owner)).value
    const projectSnippet = await request('POST', `/projects/${project.id}/snippets`, {
      token,
      body: {
        title: `Snippet ${EVIL}`,
        description: `Uses **bold** ${EVIL}`,
        visibility: 'public',
        files: [{ file_path: 'hello.py', content: 'def hello():\n    return "<script>alert(1)</script>"\n' }],
      },
    })
    expect(projectSnippet.status, projectSnippet.text).toBe(201)
    const page = await visit(new URL(projectSnippet.body.web_url).pathname, reporter)
    expect(page.status).toBe(200)
    expect(page.text).toContain('<h1 class="issuable-title">Snippet &lt;script&gt;')
    expect(page.text).toContain('<span class="hljs-keyword">def</span>')
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(page.text).toContain('<strong>bold</strong>')
    expectInert(page.text)

    const personal = await request('POST', '/snippets', {
      token,
      body: { title: 'Private notes', visibility: 'private', files: [{ file_path: 'notes.md', content: '# Hi\n' }] },
    })
    expect(personal.status, personal.text).toBe(201)
    const path = new URL(personal.body.web_url).pathname
    expect(path).toBe(`/-/snippets/${personal.body.id}`)
    const mine = await visit(path, await createTestSession(server, owner))
    expect(mine.status).toBe(200)
    expect(mine.text).toContain('<h2 class="file-name" id="file-1-name">notes.md</h2>')
    const other = await visit(path, stranger)
    expect(other.status).toBe(404)
    expect(withoutTokens(other.text)).toBe(withoutTokens((await visit('/-/snippets/999999', stranger)).text))
    // A project snippet is not a personal one.
    expect((await visit(`/-/snippets/${projectSnippet.body.id}`, reporter)).status).toBe(404)

    // The raw URLs the API hands out are pages too, answered as the API's raw endpoints answer.
    const [file] = projectSnippet.body.files as { raw_url: string }[]
    expect(page.text).toContain(`<a class="button small" href="${new URL(file.raw_url).pathname}">Open raw</a>`)
    for (const url of [projectSnippet.body.raw_url as string, file.raw_url]) {
      const raw = await fetch(server.url + new URL(url).pathname, { headers: { cookie: reporter.cookie } })
      expect(raw.status).toBe(200)
      expect(raw.headers.get('content-type')).toBe('text/plain; charset=utf-8')
      expect(raw.headers.get('content-disposition')).toBe(`inline; filename="hello.py"; filename*=UTF-8''hello.py`)
      expect(await raw.text()).toBe('def hello():\n    return "<script>alert(1)</script>"\n')
    }
    const mineRaw = await visit(`${path}/raw`, await createTestSession(server, owner))
    expect(mineRaw.status).toBe(200)
    expect(mineRaw.text).toBe('# Hi\n')
    expect((await visit(`${path}/raw`, stranger)).status).toBe(404)
    expect((await visit(`${new URL(projectSnippet.body.web_url).pathname}/raw/main/missing.py`, reporter)).status).toBe(404)
    expect((await visit(`${new URL(projectSnippet.body.web_url).pathname}/raw/main/../hello.py`, reporter)).status).toBe(404)
  })
})
