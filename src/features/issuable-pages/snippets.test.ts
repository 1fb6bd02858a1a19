import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'

let server: TestServer
let db: Db
let api: ReturnType<typeof client>
let request: ReturnType<typeof client>
let project: ProjectRow
let hidden: ProjectRow

interface Person {
  user: User
  session: TestSession
  token: string
}
let reporter: Person
let developer: Person
let guest: Person
let stranger: Person

const EVIL = `<script>alert("x")</script> <img src=x onerror=alert(1)>`
const ESCAPED_EVIL = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt;'

const snippetsOf = (suffix = '', of: ProjectRow = project) => `/${of.full_path}/-/snippets${suffix}`

function page(path: string, who?: Person | null) {
  return request('GET', path, { headers: who ? { cookie: who.session.cookie, accept: 'text/html' } : { accept: 'text/html' } })
}

function submit(who: Person, path: string, fields: [string, string][], token: string | null = who.session.csrfToken) {
  const body = new URLSearchParams(token === null ? fields : [['authenticity_token', token], ...fields]).toString()
  return request('POST', path, {
    body,
    headers: { cookie: who.session.cookie, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
  })
}

function expectInert(text: string) {
  expect(text).not.toContain('<script>alert')
  expect(text).not.toContain('<img src=x onerror')
}

async function person(accessLevel: number | null, of: ProjectRow | null = null): Promise<Person> {
  const user = await createTestUser(db)
  if (accessLevel !== null && of) await addTestMember(db, { user, project: of, accessLevel })
  return { user, session: await createTestSession(server, user), token: (await createTestToken(db, user)).value }
}

/** A snippet made through the API, as its author. */
async function apiSnippet(who: Person, body: Record<string, unknown>, of: ProjectRow | null = project) {
  const res = await api('POST', of ? `/projects/${of.id}/snippets` : '/snippets', { token: who.token, body })
  expect(res.status, res.text).toBe(201)
  return res.body as { id: number; web_url: string }
}

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  api = client(`${server.url}/api/v4`)
  request = client(server.url)
  const group = await createTestGroup(db, { name: 'Tools', visibility: 'public' })
  project = await createTestProject(db, { namespace: group, name: 'Kit', visibility: 'public' })
  hidden = await createTestProject(db, { namespace: await createTestGroup(db, { visibility: 'private' }), visibility: 'private' })
  reporter = await person(20, project)
  developer = await person(30, project)
  guest = await person(10, project)
  stranger = await person(null)
})
afterAll(() => server.close())

describe('a new project snippet', () => {
  test('the form offers title, description, a file and the visibility levels the project allows', async () => {
    const res = await page(snippetsOf('/new'), reporter)
    expect(res.status).toBe(200)
    expect(res.text).toContain('<title>New snippet · Tools / Kit · svc</title>')
    expect(res.text).toContain(`<form method="post" action="${snippetsOf()}" class="snippet-form">`)
    expect(res.text).toMatch(/<input\s+type="text"\s+id="snippet_title"\s+name="snippet\[title\]"\s+value=""\s+required/)
    expect(res.text).toMatch(/id="files_0_file_path"\s+name="files\[0\]\[file_path\]"/)
    expect(res.text).toContain('<textarea id="files_0_content" name="files[0][content]" rows="12" class="code-input" spellcheck="false" >')
    expect(res.text).toMatch(/id="snippet_visibility_private" name="snippet\[visibility\]" value="private" checked/)
    expect(res.text).toContain('<p class="help">The snippet is visible only to project members.</p>')
    expect(res.text).toContain('<p class="help">The snippet can be accessed without any authentication.</p>')
  })

  test('creates the snippet through the snippets service and opens it highlighted, with line numbers', async () => {
    const res = await submit(reporter, snippetsOf(), [
      ['snippet[title]', 'Greeter'],
      ['snippet[description]', 'Says **hello**'],
      ['files[0][file_path]', 'hello.py'],
      ['files[0][content]', 'def hello():\n    return "hi"\n'],
      ['files[1][file_path]', ''],
      ['files[1][content]', ''],
      ['snippet[visibility]', 'public'],
    ])
    expect(res.status).toBe(302)
    const listed = (await api('GET', `/projects/${project.id}/snippets`, { token: reporter.token })).body as Record<string, any>[]
    const created = listed.find((snippet) => snippet.title === 'Greeter')!
    expect(created).toMatchObject({ visibility: 'public', description: 'Says **hello**', file_name: 'hello.py' })
    expect(created.files.map((file: { path: string }) => file.path)).toEqual(['hello.py'])
    expect(res.headers.location).toBe(snippetsOf(`/${created.id}`))
    const shown = await page(res.headers.location, reporter)
    expect(shown.status).toBe(200)
    expect(shown.text).toContain('<span class="hljs-keyword">def</span>')
    expect(shown.text).toContain('<td class="line-number"><a href="#file-1-L2">2</a></td>')
    expect(shown.text).toContain('<strong>hello</strong>')
    expect(shown.text).toContain(`<a class="button" href="${snippetsOf(`/${created.id}/edit`)}">Edit</a>`)
  })

  test('refusals come back beside the fields with what was typed, inert', async () => {
    const res = await submit(reporter, snippetsOf(), [
      ['snippet[title]', ' '],
      ['snippet[description]', EVIL],
      ['files[0][file_path]', `../${EVIL}`],
      ['files[0][content]', ''],
      ['snippet[visibility]', 'internal'],
    ])
    expect(res.status).toBe(422)
    expect(res.text).toContain('<p class="field-error" id="snippet_title_error">Title can&#39;t be blank</p>')
    expect(res.text).toContain('<p class="field-error" id="files_0_file_path_error">File name should be a valid file path</p>')
    expect(res.text).toContain('<p class="field-error" id="files_0_content_error">Content can&#39;t be blank</p>')
    expect(res.text).toContain(`value="../${ESCAPED_EVIL}"`)
    expect(res.text).toContain(`>${ESCAPED_EVIL}</textarea>`)
    expect(res.text).toMatch(/value="internal" checked/)
    expectInert(res.text)
  })

  test('a Guest sees no New snippet button, and the form and a forged POST are the 404 page', async () => {
    const list = await page(snippetsOf(), guest)
    expect(list.status).toBe(200)
    expect(list.text).not.toContain(`href="${snippetsOf('/new')}"`)
    expect((await page(snippetsOf('/new'), guest)).status).toBe(404)
    const forged = await submit(guest, snippetsOf(), [
      ['snippet[title]', 'Guest made'],
      ['files[0][file_path]', 'a.txt'],
      ['files[0][content]', 'x'],
    ])
    expect(forged.status).toBe(404)
    const titles = ((await api('GET', `/projects/${project.id}/snippets`, { token: reporter.token })).body as { title: string }[]).map(
      (snippet) => snippet.title,
    )
    expect(titles).not.toContain('Guest made')
  })

  test('a POST without the CSRF token is refused', async () => {
    const res = await submit(reporter, snippetsOf(), [['snippet[title]', 'No token']], null)
    expect(res.status).toBe(422)
    expect(res.text).toContain('The change you requested was rejected.')
  })
})

describe('editing and deleting a snippet', () => {
  test('the author renames a file, changes its content, adds one, and changes title and visibility', async () => {
    const snippet = await apiSnippet(reporter, {
      title: 'Notes',
      visibility: 'private',
      files: [{ file_path: 'a.md', content: '# A\n' }],
    })
    const form = await page(snippetsOf(`/${snippet.id}/edit`), reporter)
    expect(form.status).toBe(200)
    expect(form.text).toContain('<input type="hidden" name="_method" value="put" />')
    expect(form.text).toContain('<input type="hidden" name="files[0][previous_path]" value="a.md" />')
    expect(form.text).toContain('<summary class="button">Add another file</summary>')
    const res = await submit(reporter, snippetsOf(`/${snippet.id}`), [
      ['_method', 'put'],
      ['snippet[title]', 'Renamed notes'],
      ['snippet[description]', ''],
      ['snippet[visibility]', 'internal'],
      ['files[0][previous_path]', 'a.md'],
      ['files[0][file_path]', 'b.md'],
      ['files[0][content]', '# B\n'],
      ['files[1][file_path]', 'c.rb'],
      ['files[1][content]', 'puts 1\n'],
    ])
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe(snippetsOf(`/${snippet.id}`))
    const after = (await api('GET', `/projects/${project.id}/snippets/${snippet.id}`, { token: reporter.token })).body
    expect(after).toMatchObject({ title: 'Renamed notes', visibility: 'internal' })
    expect(after.files.map((file: { path: string }) => file.path).sort()).toEqual(['b.md', 'c.rb'])
    const raw = await api('GET', `/projects/${project.id}/snippets/${snippet.id}/files/main/b.md/raw`, { token: reporter.token })
    expect(raw.text).toBe('# B\n')
    // With two files, each can be deleted from the form.
    const again = await page(snippetsOf(`/${snippet.id}/edit`), reporter)
    expect(again.text).toContain('<input type="checkbox" name="files[0][delete]" value="1"  /> Delete this file</label')
    await submit(reporter, snippetsOf(`/${snippet.id}`), [
      ['_method', 'put'],
      ['snippet[title]', 'Renamed notes'],
      ['snippet[visibility]', 'internal'],
      ['files[0][previous_path]', 'b.md'],
      ['files[0][file_path]', 'b.md'],
      ['files[0][content]', '# B\n'],
      ['files[0][delete]', '1'],
      ['files[1][previous_path]', 'c.rb'],
      ['files[1][file_path]', 'c.rb'],
      ['files[1][content]', 'puts 1\n'],
    ])
    const last = (await api('GET', `/projects/${project.id}/snippets/${snippet.id}`, { token: reporter.token })).body
    expect(last.files.map((file: { path: string }) => file.path)).toEqual(['c.rb'])
  })

  test('a refused edit keeps the values; the service refusal reads as the API words it', async () => {
    const snippet = await apiSnippet(reporter, {
      title: 'Pair',
      visibility: 'public',
      files: [
        { file_path: 'one.txt', content: '1' },
        { file_path: 'two.txt', content: '2' },
      ],
    })
    const res = await submit(reporter, snippetsOf(`/${snippet.id}`), [
      ['_method', 'put'],
      ['snippet[title]', 'Pair'],
      ['snippet[visibility]', 'public'],
      ['files[0][previous_path]', 'one.txt'],
      ['files[0][file_path]', 'two.txt'],
      ['files[0][content]', '1'],
      ['files[1][previous_path]', 'two.txt'],
      ['files[1][file_path]', 'two.txt'],
      ['files[1][content]', '2'],
    ])
    expect(res.status).toBe(422)
    expect(res.text).toContain('<li>Repository Error updating the snippet</li>')
    expect(res.text).toMatch(/id="files_0_file_path"\s+name="files\[0\]\[file_path\]"\s+value="two.txt"/)
  })

  test('someone who may not edit gets no Edit or Delete, and a 404 for the form and forged changes', async () => {
    const snippet = await apiSnippet(reporter, { title: 'Mine', visibility: 'public', files: [{ file_path: 'm.txt', content: 'm' }] })
    const shown = await page(snippetsOf(`/${snippet.id}`), developer)
    expect(shown.status).toBe(200)
    expect(shown.text).not.toContain('>Edit</a>')
    expect(shown.text).not.toContain('Delete snippet')
    expect((await page(snippetsOf(`/${snippet.id}/edit`), developer)).status).toBe(404)
    const forged = await submit(developer, snippetsOf(`/${snippet.id}`), [
      ['_method', 'put'],
      ['snippet[title]', 'Taken'],
    ])
    expect(forged.status).toBe(404)
    expect((await submit(developer, snippetsOf(`/${snippet.id}`), [['_method', 'delete']])).status).toBe(404)
    expect((await api('GET', `/projects/${project.id}/snippets/${snippet.id}`, { token: reporter.token })).body.title).toBe('Mine')
  })

  test('delete asks first, then removes the snippet and goes back to the project snippets', async () => {
    const snippet = await apiSnippet(reporter, { title: 'Doomed', visibility: 'public', files: [{ file_path: 'd.txt', content: 'd' }] })
    const shown = await page(snippetsOf(`/${snippet.id}`), reporter)
    expect(shown.text).toContain('<p>Are you sure you want to delete <strong>Doomed</strong>?</p>')
    const res = await submit(reporter, snippetsOf(`/${snippet.id}`), [['_method', 'delete']])
    expect(res.status).toBe(303)
    expect(res.headers.location).toBe(snippetsOf())
    expect((await api('GET', `/projects/${project.id}/snippets/${snippet.id}`, { token: reporter.token })).status).toBe(404)
  })

  test('a personal snippet is edited and deleted at /-/snippets/<id>, and is the 404 page for others', async () => {
    const snippet = await apiSnippet(
      stranger,
      { title: 'Private notes', visibility: 'private', files: [{ file_path: 'n.md', content: 'n' }] },
      null,
    )
    const form = await page(`/-/snippets/${snippet.id}/edit`, stranger)
    expect(form.status).toBe(200)
    expect(form.text).toContain(`<form method="post" action="/-/snippets/${snippet.id}" class="snippet-form">`)
    expect(form.text).toContain('<p class="help">The snippet is visible only to me.</p>')
    for (const other of [reporter, null]) {
      const res = await page(`/-/snippets/${snippet.id}/edit`, other)
      expect(res.status).toBe(other ? 404 : 302)
    }
    expect((await submit(reporter, `/-/snippets/${snippet.id}`, [['_method', 'delete']])).status).toBe(404)
    const saved = await submit(stranger, `/-/snippets/${snippet.id}`, [
      ['_method', 'put'],
      ['snippet[title]', `Notes ${EVIL}`],
      ['snippet[visibility]', 'private'],
      ['files[0][previous_path]', 'n.md'],
      ['files[0][file_path]', 'n.md'],
      ['files[0][content]', 'n'],
    ])
    expect(saved.status).toBe(302)
    const shown = await page(`/-/snippets/${snippet.id}`, stranger)
    expect(shown.text).toContain(`<h1 class="issuable-title">Notes ${ESCAPED_EVIL}</h1>`)
    expectInert(shown.text)
    const deleted = await submit(stranger, `/-/snippets/${snippet.id}`, [['_method', 'delete']])
    expect([deleted.status, deleted.headers.location]).toEqual([303, '/dashboard/snippets'])
    expect((await page(`/-/snippets/${snippet.id}`, stranger)).status).toBe(404)
  })
})

describe('the snippet lists', () => {
  test('/dashboard/snippets lists only your own, by visibility, with counts', async () => {
    const author = await person(20, project)
    const evil = await apiSnippet(
      author,
      {
        title: `Mine public ${EVIL}`,
        description: `About ${EVIL}`,
        visibility: 'public',
        files: [{ file_path: `f${EVIL}.js`, content: EVIL }],
      },
      null,
    )
    await apiSnippet(author, { title: 'Mine private', visibility: 'private', files: [{ file_path: 'p.txt', content: 'p' }] }, null)
    await apiSnippet(author, { title: 'Mine in project', visibility: 'internal', files: [{ file_path: 'i.txt', content: 'i' }] })
    await apiSnippet(reporter, { title: 'Not mine', visibility: 'public', files: [{ file_path: 'x.txt', content: 'x' }] }, null)
    const all = await page('/dashboard/snippets', author)
    expect(all.status).toBe(200)
    expect(all.text).toContain(`Mine public ${ESCAPED_EVIL}`)
    expect(all.text).toContain('Mine private')
    expect(all.text).toContain(`in <a href="/${project.full_path}">${project.full_path}</a>`)
    expect(all.text).not.toContain('Not mine')
    expect(all.text).toMatch(/aria-current="page"\s*>All <span class="badge count">3<\/span>/)
    expect(all.text).toMatch(/>Private <span class="badge count">1<\/span>/)
    expectInert(all.text)
    // Its title, description, file name and content stay inert on its page and in its edit form.
    for (const path of [`/-/snippets/${evil.id}`, `/-/snippets/${evil.id}/edit`]) {
      const shown = await page(path, author)
      expect(shown.status, path).toBe(200)
      expect(shown.text).toContain(ESCAPED_EVIL)
      expectInert(shown.text)
    }
    const privateOnly = await page('/dashboard/snippets?scope=are_private', author)
    expect(privateOnly.text).toContain('Mine private')
    expect(privateOnly.text).not.toContain('Mine public')
    const visitor = await page('/dashboard/snippets', null)
    expect([visitor.status, visitor.headers.location]).toEqual([302, '/users/sign_in'])
  })

  test('/explore/snippets lists public personal snippets, internal ones only to signed-in users, never private ones', async () => {
    const author = await person(null)
    await apiSnippet(author, { title: 'Explore public', visibility: 'public', files: [{ file_path: 'e.txt', content: 'e' }] }, null)
    await apiSnippet(author, { title: 'Explore internal', visibility: 'internal', files: [{ file_path: 'e.txt', content: 'e' }] }, null)
    await apiSnippet(author, { title: 'Explore private', visibility: 'private', files: [{ file_path: 'e.txt', content: 'e' }] }, null)
    const visitor = await page('/explore/snippets', null)
    expect(visitor.status).toBe(200)
    expect(visitor.text).toContain('<h1>Explore snippets</h1>')
    expect(visitor.text).toContain('Explore public')
    expect(visitor.text).not.toContain('Explore internal')
    expect(visitor.text).not.toContain('Explore private')
    const signedIn = await page('/explore/snippets', guest)
    expect(signedIn.text).toContain('Explore internal')
    expect(signedIn.text).not.toContain('Explore private')
  })

  test('a project snippet list leaves out private snippets for non-members; a private project is a 404 everywhere', async () => {
    await apiSnippet(reporter, { title: 'Members only', visibility: 'private', files: [{ file_path: 'm.txt', content: 'm' }] })
    expect((await page(snippetsOf(), guest)).text).toContain('Members only')
    const outside = await page(snippetsOf(), stranger)
    expect(outside.status).toBe(200)
    expect(outside.text).not.toContain('Members only')
    const owner = await person(40, hidden)
    const secret = await apiSnippet(
      owner,
      { title: 'Hidden', visibility: 'private', files: [{ file_path: 'h.txt', content: 'h' }] },
      hidden,
    )
    for (const suffix of ['', '/new', `/${secret.id}`, `/${secret.id}/edit`]) {
      expect((await page(snippetsOf(suffix, hidden), stranger)).status).toBe(404)
      const visitor = await page(snippetsOf(suffix, hidden), null)
      expect([visitor.status, visitor.headers.location]).toEqual([302, '/users/sign_in'])
    }
    expect((await submit(stranger, snippetsOf(`/${secret.id}`, hidden), [['_method', 'delete']])).status).toBe(404)
    expect((await page(snippetsOf(`/${secret.id}/edit`, hidden), owner)).status).toBe(200)
  })
})
