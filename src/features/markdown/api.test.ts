import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { IssueRow, MergeRequestRow, ProjectRow } from '../../db/schema.js'
import {
  addTestMember,
  createTestGroup,
  createTestIssue,
  createTestMergeRequest,
  createTestProject,
  createTestToken,
  createTestUser,
} from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>
let project: ProjectRow
let anna: User
let annaToken: string
let readerToken: string
let secret: IssueRow
let mergeRequest: MergeRequestRow

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  anna = await createTestUser(db)
  const reader = await createTestUser(db)
  annaToken = (await createTestToken(db, anna)).value
  readerToken = (await createTestToken(db, reader)).value
  const group = await createTestGroup(db)
  project = await createTestProject(db, { namespace: group })
  await addTestMember(db, { user: anna, group, accessLevel: 50 })
  secret = await createTestIssue(db, { project, author: anna, title: 'Secret plan', confidential: true })
  mergeRequest = await createTestMergeRequest(db, { project, author: anna, title: 'Fix #1 :tada:' })
  await db.updateTable('merge_requests').set({ description: '## Changes\n\n- [x] done' }).where('id', '=', mergeRequest.id).execute()
})

afterAll(() => server?.close())

describe('description_html of a project', () => {
  test('is the description as GitLab Flavored Markdown', async () => {
    const updated = await request('PUT', `/api/v4/projects/${project.id}`, {
      token: server.rootToken,
      body: { description: '# About\n\nSee **this** :wave:' },
    })
    expect(updated.status).toBe(200)
    const expected =
      '<h1 data-sourcepos="1:1-1:7" dir="auto"><a href="#about" aria-hidden="true" class="anchor" id="user-content-about"></a>About</h1>\n' +
      '<p data-sourcepos="3:1-3:19" dir="auto">See <strong>this</strong> <gl-emoji title="wave" data-name="wave">\u{1F44B}</gl-emoji></p>'
    expect(updated.body.description_html).toBe(expected)
    const shown = await request('GET', `/api/v4/projects/${project.id}`, { token: readerToken })
    expect(shown.body.description_html).toBe(expected)
    const listed = await request('GET', `/api/v4/projects?search=${project.path}`, { token: readerToken })
    expect(listed.body[0].description_html).toBe(expected)
  })

  test('keeps the raw HTML GitLab allows and drops the rest', async () => {
    const description =
      '<details><summary>Why</summary>\n\n<kbd>K</kbd> <img src=x onerror=alert(1)> ' +
      '<a href="javascript:alert(1)" class="gfm gfm-issue" data-issue="1">x</a> <script>alert(1)</script>\n\n</details>'
    const updated = await request('PUT', `/api/v4/projects/${project.id}`, { token: server.rootToken, body: { description } })
    expect(updated.status).toBe(200)
    const expected =
      '<details><summary>Why</summary>\n<p data-sourcepos="3:1-3:140" dir="auto"><kbd>K</kbd> <img src="x"> <a>x</a> </p>\n</details>'
    expect(updated.body.description).toBe(description)
    expect(updated.body.description_html).toBe(expected)
    const shown = await request('GET', `/api/v4/projects/${project.id}`, { token: readerToken })
    expect(shown.body.description_html).toBe(expected)
  })

  test('shows a reference only to those who may see it, also when asked again', async () => {
    await request('PUT', `/api/v4/projects/${project.id}`, { token: server.rootToken, body: { description: `Tracks #${secret.iid}` } })
    for (let round = 0; round < 2; round++) {
      const member = await request('GET', `/api/v4/projects/${project.id}`, { token: annaToken })
      expect(member.body.description_html).toContain(`data-issue="${secret.id}"`)
      expect(member.body.description_html).toContain('title="Secret plan"')
      const outsider = await request('GET', `/api/v4/projects/${project.id}`, { token: readerToken })
      expect(outsider.body.description_html).toBe(`<p data-sourcepos="1:1-1:9" dir="auto">Tracks #${secret.iid}</p>`)
    }
  })
})

describe('render_html on a single merge request', () => {
  test('adds title_html and description_html after closed_at', async () => {
    const path = `/api/v4/projects/${project.id}/merge_requests/${mergeRequest.iid}`
    const plain = await request('GET', path, { token: readerToken })
    expect(plain.status).toBe(200)
    expect(plain.body).not.toHaveProperty('title_html')
    expect(plain.body).not.toHaveProperty('description_html')
    const rendered = await request('GET', `${path}?render_html=true`, { token: readerToken })
    expect(rendered.status).toBe(200)
    // #1 is the confidential issue, which the reader may not see.
    expect(rendered.body.title_html).toBe('Fix #1 <gl-emoji title="tada" data-name="tada">\u{1F389}</gl-emoji>')
    expect(rendered.body.description_html).toBe(
      '<h2 data-sourcepos="1:1-1:10" dir="auto"><a href="#changes" aria-hidden="true" class="anchor" id="user-content-changes"></a>Changes</h2>\n' +
        '<ul data-sourcepos="3:1-3:10" dir="auto" class="task-list">\n' +
        '<li data-sourcepos="3:1-3:10" class="task-list-item"><task-button></task-button><input type="checkbox" class="task-list-item-checkbox" checked disabled> done</li>\n' +
        '</ul>',
    )
    const keys = Object.keys(rendered.body)
    expect(keys.slice(keys.indexOf('closed_at'), keys.indexOf('closed_at') + 4)).toEqual([
      'closed_at',
      'title_html',
      'description_html',
      'target_branch',
    ])
    const member = await request('GET', `${path}?render_html=true`, { token: annaToken })
    expect(member.body.title_html).toContain(`data-issue="${secret.id}"`)
  })
})
