import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Db } from '../../db/index.js'
import { createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { flashOf } from '../sessions/testing.js'

// Commenting on a merge request's pages: a Preview that works without JavaScript, on the overview's comment form, a
// reply and a thread on a diff line; quick actions run from the comment form as from the API.

let server: TestServer
let db: Db
let api: ReturnType<typeof client>
let web: ReturnType<typeof client>
let owner: Person
let developer: Person
let developerSession: TestSession
let ownerSession: TestSession
let strangerSession: TestSession
let project: Record<string, any>
let mr: Record<string, any>
const XSS = `<script>alert("x")</script><img src=x onerror=alert(1)>`

interface Page {
  status: number
  text: string
  location: string | null
}

async function visit(path: string, session: TestSession): Promise<Page> {
  const res = await web('GET', path, { headers: { cookie: session.cookie, accept: 'text/html' } })
  return { status: res.status, text: res.text, location: res.headers.location ?? null }
}

async function submit(session: TestSession, path: string, fields: [string, string][]): Promise<Page> {
  const res = await web('POST', path, {
    body: new URLSearchParams([['authenticity_token', session.csrfToken], ...fields]).toString(),
    headers: { cookie: session.cookie, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
  })
  return { status: res.status, text: res.text, location: res.headers.location ?? null }
}

async function call(method: string, path: string, body?: unknown, who: Person = owner) {
  const res = await api(method, path, { token: who.token, body })
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300)
  return res.body
}

const mrPath = (suffix = '') => `/${project.path_with_namespace}/-/merge_requests/${mr.iid}${suffix}`
const notesOf = async () =>
  (await call('GET', `/projects/${project.id}/merge_requests/${mr.iid}/notes?sort=asc`)).map((note: any) => note.body)

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  api = client(`${server.url}/api/v4`)
  web = client(server.url)
  owner = await createPerson(db, 'mrcommentowner')
  developer = await createPerson(db, 'mrcommentdev')
  project = await createRepositoryProject(api, owner, { name: 'Shop', path: 'shop', visibility: 'private' })
  await addProjectMember(db, developer, project.id, 30)
  developerSession = await createTestSession(server, developer.user)
  ownerSession = await createTestSession(server, owner.user)
  strangerSession = await createTestSession(server, await createTestUser(db))
  await call('POST', `/projects/${project.id}/repository/commits`, {
    branch: 'feature/cart',
    start_branch: 'main',
    commit_message: 'Keep the cart',
    actions: [{ action: 'create', file_path: 'cart.txt', content: 'cart\n' }],
  })
  mr = await call('POST', `/projects/${project.id}/merge_requests`, {
    source_branch: 'feature/cart',
    target_branch: 'main',
    title: 'Keep the cart',
  })
})
afterAll(() => server.close())

describe('Preview', () => {
  test('the comment form shows the Markdown as the page will, keeps the text, and posts nothing', async () => {
    const overview = await visit(mrPath(), developerSession)
    expect(overview.text).toContain('<button type="submit" name="button" value="preview">Preview</button>')
    const preview = await submit(developerSession, mrPath('/notes'), [
      ['note[note]', `Works **well** ${XSS}`],
      ['button', 'preview'],
    ])
    expect(preview.status).toBe(200)
    expect(preview.text).toContain('<section class="markdown-preview" id="note_note_preview" aria-label="Preview">')
    expect(preview.text).toMatch(/<div class="markdown"><p [^>]*>Works <strong>well<\/strong> <img src="x"><\/p><\/div>/)
    expect(preview.text).toContain(`&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</textarea`)
    expect(preview.text).not.toContain('<script>alert')
    expect(preview.text).not.toMatch(/<img src="?x"? onerror/)
    const empty = await submit(developerSession, mrPath('/notes'), [
      ['note[note]', ' '],
      ['button', 'preview'],
    ])
    expect(empty.status).toBe(200)
    expect(empty.text).toMatch(
      /id="note_note_preview" aria-label="Preview">\s*<h3>Preview<\/h3>\s*<p class="muted">Nothing to preview.<\/p>/,
    )
    expect(await notesOf()).toEqual([])
    expect(
      (
        await submit(strangerSession, mrPath('/notes'), [
          ['note[note]', 'x'],
          ['button', 'preview'],
        ])
      ).status,
    ).toBe(404)
  })

  test('a reply and a thread on a diff line preview in their own forms, on their own tab', async () => {
    const thread = await call('POST', `/projects/${project.id}/merge_requests/${mr.iid}/discussions`, { body: 'Is the cart kept?' })
    const reply = await submit(developerSession, mrPath('/notes'), [
      ['note[note]', 'It is, _for a week_.'],
      ['in_reply_to_discussion_id', thread.id],
      ['button', 'preview'],
    ])
    expect(reply.status).toBe(200)
    expect(reply.text).toMatch(new RegExp(`<details class="mr-reply" open>[\\s\\S]*id="reply_${thread.id.slice(0, 12)}_preview"`))
    expect(reply.text).toContain('It is, <em>for a week</em>.')

    const code = `${createHash('sha1').update('cart.txt').digest('hex')}_0_1`
    const opened = await visit(mrPath(`/diffs?line_code=${code}`), developerSession)
    const hidden = (name: string) => new RegExp(`name="note\\[position\\]\\[${name}\\]" value="([^"]*)"`).exec(opened.text)![1]
    const line = await submit(developerSession, mrPath('/notes'), [
      ['note[note]', 'Rename `cart`?'],
      ...['base_sha', 'start_sha', 'head_sha', 'position_type', 'old_path', 'new_path', 'old_line', 'new_line'].map(
        (name) => [`note[position][${name}]`, hidden(name)] as [string, string],
      ),
      ['line_code', code],
      ['return_to', 'diffs'],
      ['view', 'inline'],
      ['button', 'preview'],
    ])
    expect(line.status).toBe(200)
    expect(line.text).toContain(`<section class="markdown-preview" id="line_note_${code}_preview" aria-label="Preview">`)
    expect(line.text).toContain('Rename <code>cart</code>?')
    expect(await notesOf()).toEqual(['Is the cart kept?'])
  })
})

describe('quick actions in the comment form', () => {
  test('run when commenting: the notice says what they did; commands alone leave no comment', async () => {
    await call('POST', `/projects/${project.id}/labels`, { name: 'checkout', color: '#428bca' })
    let res = await submit(developerSession, mrPath('/notes'), [['note[note]', 'Not yet.\n/label ~checkout\n/draft']])
    expect(res.status).toBe(302)
    expect(res.location).toMatch(new RegExp(`${mrPath()}#note_\\d+$`))
    let page = await visit(mrPath(), developerSession)
    expect(flashOf(page.text)).toBe('Added ~"checkout" label. Marked this merge request as a draft.')
    expect(page.text).toContain('<span class="badge draft-badge">Draft</span>')
    expect(await call('GET', `/projects/${project.id}/merge_requests/${mr.iid}`)).toMatchObject({ labels: ['checkout'], draft: true })
    res = await submit(developerSession, mrPath('/notes'), [['note[note]', '/ready']])
    expect([res.status, res.location]).toEqual([302, mrPath()])
    page = await visit(mrPath(), developerSession)
    expect(flashOf(page.text)).toBe('Marked this merge request as ready.')
    expect((await notesOf()).filter((body: string) => !body.startsWith('Is the cart') && !body.includes('~'))).toEqual([
      'Not yet.',
      'marked this merge request as **draft**',
      'marked this merge request as **ready**',
    ])
    const nothing = await submit(developerSession, mrPath('/notes'), [['note[note]', '/label ~nothing-like-this']])
    expect(nothing.status).toBe(422)
    expect(nothing.text).toContain('<li>Failed to apply commands.</li>')
  })

  test('/merge merges the head the page showed, for those who may merge', async () => {
    const head = (await call('GET', `/projects/${project.id}/merge_requests/${mr.iid}`)).sha
    const overview = await visit(mrPath(), ownerSession)
    expect(overview.text).toContain(`<input type="hidden" name="merge_request_diff_head_sha" value="${head}" />`)
    const refused = await submit(developerSession, mrPath('/notes'), [
      ['note[note]', '/merge'],
      ['merge_request_diff_head_sha', head],
    ])
    expect(refused.status).toBe(302)
    expect(flashOf((await visit(mrPath(), developerSession)).text)).toBe('Could not apply merge command.')
    const merged = await submit(ownerSession, mrPath('/notes'), [
      ['note[note]', '/merge'],
      ['merge_request_diff_head_sha', head],
    ])
    expect([merged.status, merged.location]).toEqual([302, mrPath()])
    const page = await visit(mrPath(), ownerSession)
    expect(flashOf(page.text)).toBe('Merged this merge request.')
    expect(page.text).toContain('<span class="badge status-merged issuable-state">Merged</span>')
  })
})
