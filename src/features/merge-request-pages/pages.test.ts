import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Db } from '../../db/index.js'
import { addTestMember, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'

let server: TestServer
let db: Db
let request: ReturnType<typeof client>
let owner: Person
let developerSession: TestSession
let project: Record<string, any>
let mergeRequest: Record<string, any>

const EVIL_TITLE = `<script>alert("t")</script> & "quoted" 'single'`
const EVIL_BRANCH = `evil"<script>'x`
const EVIL_FILE = `<img src=x onerror=alert(1)>"'.txt`
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 1, 2, 3]).toString(
  'base64',
)

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

async function api(method: string, path: string, body?: unknown) {
  const res = await request(method, path, { token: owner.token, body })
  expect(res.status, res.text).toBeLessThan(300)
  return res.body
}

/** A page without its per-render CSRF tokens, to compare two answers. */
function withoutTokens(text: string): string {
  return text.replace(/(csrf-token" content|authenticity_token" value)="[^"]*"/g, '$1=""')
}

/** Nothing a user wrote arrives as markup: no script, no image with an error handler, no attribute broken out of. */
function expectInert(text: string) {
  expect(text).not.toContain('<script>alert')
  expect(text).not.toContain('<img src=x onerror')
  expect(text).not.toContain(`"'.txt`)
  expect(text).not.toMatch(/onerror=alert\(1\)>"/)
}

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  request = client(server.url + '/api/v4')
  owner = await createPerson(db, 'mrpagesowner')
  project = await createRepositoryProject(request, owner, { name: 'Reviewed', path: 'reviewed', visibility: 'private' })
  const developer = await createPerson(db, 'mrpagesdev')
  await addProjectMember(db, developer, project.id, 30)
  developerSession = await createTestSession(server, developer.user)
  const commits = `/projects/${project.id}/repository/commits`
  await api('POST', commits, {
    branch: 'main',
    commit_message: 'Add the files to change',
    actions: [
      { action: 'create', file_path: 'keep.txt', content: 'one\nthe quick brown fox\nthree\n' },
      { action: 'create', file_path: 'old-name.md', content: '# Moved\n' },
      { action: 'create', file_path: 'gone.txt', content: 'bye\n' },
    ],
  })
  await api('POST', commits, {
    branch: EVIL_BRANCH,
    start_branch: 'main',
    commit_message: `Change <b>things</b>`,
    actions: [
      { action: 'update', file_path: 'keep.txt', content: 'one\nthe quick red fox\nthree\n' },
      { action: 'move', previous_path: 'old-name.md', file_path: 'new-name.md' },
      { action: 'delete', file_path: 'gone.txt' },
      { action: 'create', file_path: 'src/app.ts', content: 'export const answer: number = 42 // "<script>"\n' },
      { action: 'create', file_path: 'logo.png', content: PNG, encoding: 'base64' },
      { action: 'create', file_path: EVIL_FILE, content: 'x\n' },
    ],
  })
  mergeRequest = await api('POST', `/projects/${project.id}/merge_requests`, {
    source_branch: EVIL_BRANCH,
    target_branch: 'main',
    title: EVIL_TITLE,
    description: '**bold** <img src=x onerror=alert(1)> and <script>alert("d")</script>',
  })
  await api('POST', `/projects/${project.id}/merge_requests/${mergeRequest.iid}/notes`, { body: 'First <script>alert("n")</script> note' })
  await api('PUT', `/projects/${project.id}/merge_requests/${mergeRequest.iid}`, { labels: 'review' })
  await api('POST', `/projects/${project.id}/merge_requests/${mergeRequest.iid}/notes`, { body: 'Second note, _after_ the label' })
})
afterAll(() => server.close())

function pathOf(suffix = '') {
  return `/${project.path_with_namespace}/-/merge_requests${suffix}`
}

describe('the merge request list', () => {
  test('shows the open merge requests with counts per state, escaped', async () => {
    const page = await visit(pathOf(), developerSession)
    expect(page.status).toBe(200)
    expect(page.type).toBe('text/html; charset=utf-8')
    expect(page.text).toContain('<h1>Merge requests</h1>')
    expect(page.text).toMatch(/aria-current="page"\s*>Open <span class="badge count">1<\/span>/)
    expect(page.text).toMatch(/>Merged <span class="badge count">0<\/span>/)
    expect(page.text).toContain(`id="merge_request_${mergeRequest.iid}"`)
    expect(page.text).toContain('&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt; &amp; &quot;quoted&quot; &#39;single&#39;')
    expectInert(page.text)
  })

  test('searches, and says so when nothing matches', async () => {
    const found = await visit(pathOf('?search=quoted'), developerSession)
    expect(found.text).toContain(`id="merge_request_${mergeRequest.iid}"`)
    const none = await visit(pathOf('?search=nothing-like-this&state=merged'), developerSession)
    expect(none.status).toBe(200)
    expect(none.text).toContain('No merge requests match your search or filter.')
    expect(none.text).toContain('<input type="hidden" name="state" value="merged" />')
  })
})

describe('a merge request', () => {
  test('its overview shows the title, state, branches, description as Markdown and the discussion in order', async () => {
    const page = await visit(pathOf(`/${mergeRequest.iid}`), developerSession)
    expect(page.status).toBe(200)
    expect(page.type).toBe('text/html; charset=utf-8')
    expect(page.text).toContain(
      '<h1 class="issuable-title">&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt; &amp; &quot;quoted&quot; &#39;single&#39;</h1>',
    )
    expect(page.text).toContain('<span class="badge status-opened issuable-state">Open</span>')
    expect(page.text).toContain('<code>evil&quot;&lt;script&gt;&#39;x</code>')
    expect(page.text).toContain('<code>main</code>')
    expect(page.text).toContain('<strong>bold</strong>')
    // The sanitizer drops the script element with its text.
    const first = page.text.indexOf('First  note</p>')
    expect(page.text).not.toContain('alert("n")')
    const label = page.text.indexOf('class="note system-note"')
    const second = page.text.indexOf('Second note, <em>after</em> the label')
    expect(first).toBeGreaterThan(0)
    expect(label).toBeGreaterThan(first)
    expect(second).toBeGreaterThan(label)
    expect(page.text).toMatch(/aria-current="page"\s*>Overview <span class="badge count">2<\/span>/)
    expect(page.text).toMatch(/>Changes <span class="badge count">6<\/span>/)
    expectInert(page.text)
  })

  test('its commits tab lists the commits with their titles escaped', async () => {
    const page = await visit(pathOf(`/${mergeRequest.iid}/commits`), developerSession)
    expect(page.status).toBe(200)
    expect(page.text).toContain('Change &lt;b&gt;things&lt;/b&gt;')
    expect(page.text).toMatch(/aria-current="page"\s*>Commits <span class="badge count">1<\/span>/)
    expect(page.text).toMatch(/<code>[0-9a-f]{8}<\/code>/)
  })

  test('its changes show an added, a removed, a renamed and a binary file, inline by default', async () => {
    const page = await visit(pathOf(`/${mergeRequest.iid}/diffs`), developerSession)
    expect(page.status).toBe(200)
    expect(page.text).toContain('<table class="diff-table inline">')
    expect(page.text).toContain('6 files changed')
    expect(page.text).toMatch(/class="box diff-file file-added"[^>]*open>[\s\S]*?<span class="file-path">src\/app.ts<\/span>/)
    expect(page.text).toMatch(/class="box diff-file file-deleted"[^>]*open>[\s\S]*?<span class="file-path">gone.txt<\/span>/)
    expect(page.text).toContain('<span class="file-path old-path">old-name.md</span>')
    expect(page.text).toContain('File moved without changes.')
    expect(page.text).toContain('Binary file added; its contents are not shown.')
    expect(page.text).toMatch(/<a class="button small view-file" href="[^"]*\/-\/blob\/[0-9a-f]{40}\/src\/app.ts">View file<\/a>/)
    // Highlighted, and the changed word marked inside the highlighting.
    expect(page.text).toContain('<span class="hljs-keyword">export</span>')
    expect(page.text).toContain('the quick <del>brown</del> fox')
    expect(page.text).toContain('the quick <ins>red</ins> fox')
    // The file tree links to each file's box.
    expect(page.text).toContain('<nav class="file-tree box" aria-label="Changed files">')
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;.txt')
    expect(page.text).toMatch(/aria-current="page"\s*>Inline<\/a>/)
    expectInert(page.text)
  })

  test('its changes side by side', async () => {
    const page = await visit(pathOf(`/${mergeRequest.iid}/diffs?view=parallel`), developerSession)
    expect(page.status).toBe(200)
    expect(page.text).toContain('<table class="diff-table parallel">')
    expect(page.text).toMatch(/<td class="line old removed">.*the quick <del>brown<\/del> fox<\/td>/)
    expect(page.text).toMatch(/aria-current="page"\s*>Side-by-side<\/a>/)
    expectInert(page.text)
  })

  test('one that does not exist is the 404 page', async () => {
    const page = await visit(pathOf('/999'), developerSession)
    expect(page.status).toBe(404)
    expect(page.text).toContain('404: Page not found')
    expect((await visit(pathOf('/abc/diffs'), developerSession)).status).toBe(404)
  })
})

describe('reviewers', () => {
  test('the sidebar lists the reviewers, and the discussion says who asked', async () => {
    const reviewer = await createPerson(db, 'mrpagesreviewer')
    await addProjectMember(db, reviewer, project.id, 30)
    await api('PUT', `/projects/${project.id}/merge_requests/${mergeRequest.iid}`, { reviewer_ids: [reviewer.user.id] })
    const page = await visit(pathOf(`/${mergeRequest.iid}`), developerSession)
    expect(page.text).toMatch(
      /<div class="issuable-field reviewers">\s*<h3>Reviewers<\/h3>\s*<div><ul class="plain"><li><a class="user-link" href="\/mrpagesreviewer">Mrpagesreviewer<\/a> <span class="note-username">@mrpagesreviewer<\/span><\/li><\/ul><\/div>/,
    )
    expect(page.text).toContain('requested review from')
  })
})

describe('who sees the pages', () => {
  test('a visitor is sent to sign in, a signed-in non-member gets the 404 page of a missing project', async () => {
    for (const suffix of ['', `/${mergeRequest.iid}`, `/${mergeRequest.iid}/commits`, `/${mergeRequest.iid}/diffs`]) {
      const visitor = await visit(pathOf(suffix))
      expect(visitor.status).toBe(302)
      expect(visitor.location).toBe('/users/sign_in')
    }
    const stranger = await createTestSession(server, await createTestUser(db))
    const hidden = await visit(pathOf(`/${mergeRequest.iid}`), stranger)
    const missing = await visit(`/no-such-group/no-such-project/-/merge_requests/${mergeRequest.iid}`, stranger)
    expect(hidden.status).toBe(404)
    expect(withoutTokens(hidden.text)).toBe(withoutTokens(missing.text))
    expect(hidden.text).not.toContain('quoted')
  })

  test('a Guest of a private project sees no merge requests (GL read_merge_request needs read_code)', async () => {
    const guest = await createTestUser(db)
    const projectRow = await db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow()
    await addTestMember(db, { user: guest, project: projectRow, accessLevel: 10 })
    const session = await createTestSession(server, guest)
    expect((await visit(pathOf(), session)).status).toBe(404)
    expect((await visit(pathOf(`/${mergeRequest.iid}`), session)).status).toBe(404)
    const apiAnswer = await request('GET', `/projects/${project.id}/merge_requests/${mergeRequest.iid}`, {
      headers: { cookie: session.cookie },
    })
    expect(apiAnswer.status).toBe(404)
  })
})

describe('a long discussion', () => {
  // Its render time is measured by bench/pages.mjs.
  test('a merge request with 200 comments shows every one', async () => {
    const iid = mergeRequest.iid
    const mr = await db
      .selectFrom('merge_requests')
      .selectAll()
      .where('project_id', '=', project.id)
      .where('iid', '=', iid)
      .executeTakeFirstOrThrow()
    const at = new Date().toISOString()
    await db
      .insertInto('notes')
      .values(
        Array.from({ length: 200 }, (_, index) => ({
          project_id: project.id,
          merge_request_id: mr.id,
          issue_id: null,
          author_id: owner.user.id,
          body: `Comment ${index} with **Markdown**, \`code\` and a [link](https://example.com/${index}).`,
          system: 0,
          created_at: at,
          updated_at: at,
        })),
      )
      .execute()
    const page = await visit(pathOf(`/${iid}`), developerSession)
    expect(page.status).toBe(200)
    expect(page.text.match(/class="note user-note/g)).toHaveLength(202)
    expect(page.text).toContain('Comment 199 with <strong>Markdown</strong>, <code>code</code> and a')
  })
})
