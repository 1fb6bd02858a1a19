import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { CONTENT_SECURITY_POLICY } from '../../web/html.js'

let server: TestServer
let api: ReturnType<typeof client>
let request: ReturnType<typeof client>
let owner: Person
let stranger: Person
let ownerSession: TestSession
let strangerSession: TestSession
let project: Record<string, any>
let hidden: Record<string, any>
const XSS = `<script>alert(1)</script>`

function as(session: TestSession | null, headers: Record<string, string> = {}): { headers: Record<string, string> } {
  return { headers: { accept: 'text/html', ...(session ? { cookie: session.cookie } : {}), ...headers } }
}

/** The Star form's POST, as a browser without JavaScript sends it. */
function toggle(path: string, session: TestSession, token: string | null = session.csrfToken, accept = 'text/html') {
  return request('POST', `/${path}/toggle_star.json`, {
    form: true,
    headers: { cookie: session.cookie, accept },
    body: token === null ? {} : { authenticity_token: token },
  })
}

async function starCount(id: number): Promise<number> {
  const res = await api('GET', `/projects/${id}`, { token: owner.token })
  return res.body.star_count
}

beforeAll(async () => {
  server = await startTestServer()
  api = client(`${server.url}/api/v4`)
  request = client(server.url)
  owner = await createPerson(server.database.db, 'olivia')
  stranger = await createPerson(server.database.db, 'sam')
  ownerSession = await createTestSession(server, owner.user)
  strangerSession = await createTestSession(server, stranger.user)
  project = await createRepositoryProject(api, owner, { name: 'Atlas', path: 'atlas' })
  hidden = await createRepositoryProject(api, owner, { name: 'Vault', path: 'vault', visibility: 'private' })
})
afterAll(() => server.close())

describe('the Star button', () => {
  test('a visitor sees the count linking to the starrers, and no button', async () => {
    const res = await request('GET', '/olivia/atlas', as(null))
    expect(res.status).toBe(200)
    expect(res.text).toContain('<a class="button stars" href="/olivia/atlas/-/starrers" title="Starrers">&#9733; 0 stars</a>')
    expect(res.text).not.toContain('toggle_star')
  })

  test('a signed-in user stars and unstars with the form, and comes back to the project each time', async () => {
    const before = await request('GET', '/olivia/atlas', as(strangerSession))
    expect(before.status).toBe(200)
    expect(before.text).toMatch(
      /<form class="count-button stars" method="post" action="\/olivia\/atlas\/toggle_star\.json">\s*<input type="hidden" name="authenticity_token" value="[^"]+" \/>\s*<button type="submit" class="star-toggle" aria-pressed="false">\s*&#9734; Star\s*<\/button>\s*<a class="count" href="\/olivia\/atlas\/-\/starrers" title="Starrers" aria-label="0 stars">0<\/a>/,
    )
    const starred = await toggle('olivia/atlas', strangerSession)
    expect(starred.status).toBe(302)
    expect(starred.headers.location).toBe('/olivia/atlas')
    expect(starred.text).toBe('<html><body>You are being <a href="/olivia/atlas">redirected</a>.</body></html>')
    expect(await starCount(project.id)).toBe(1)
    const after = await request('GET', '/olivia/atlas', as(strangerSession))
    expect(after.text).toMatch(/aria-pressed="true">\s*&#9733; Unstar\s*<\/button>/)
    expect(after.text).toContain('aria-label="1 star">1</a>')
    const unstarred = await toggle('olivia/atlas', strangerSession)
    expect([unstarred.status, unstarred.headers.location]).toEqual([302, '/olivia/atlas'])
    expect(await starCount(project.id)).toBe(0)
    // The path without the format suffix is the same route.
    const plain = await request('POST', '/olivia/atlas/toggle_star', {
      form: true,
      headers: { cookie: strangerSession.cookie, accept: 'text/html' },
      body: { authenticity_token: strangerSession.csrfToken },
    })
    expect(plain.status).toBe(302)
    expect(await starCount(project.id)).toBe(1)
    await toggle('olivia/atlas', strangerSession)
  })

  test('a script asking for JSON gets the new count, with the token in X-CSRF-Token', async () => {
    const res = await request('POST', '/olivia/atlas/toggle_star.json', {
      headers: { cookie: ownerSession.cookie, accept: 'application/json', 'x-csrf-token': ownerSession.csrfToken },
    })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(res.text).toBe('{"star_count":1}')
    const again = await toggle('olivia/atlas', ownerSession, ownerSession.csrfToken, 'application/json')
    expect([again.status, again.text]).toEqual([200, '{"star_count":0}'])
  })

  test("a form without its token, or with another session's, is refused and changes nothing", async () => {
    for (const token of [null, 'forged', ownerSession.csrfToken]) {
      const res = await toggle('olivia/atlas', strangerSession, token)
      expect(res.status).toBe(422)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
      expect(res.text).toContain('<h1>The change you requested was rejected.</h1>')
    }
    expect(await starCount(project.id)).toBe(0)
  })

  test('a visitor with a session is sent to sign in, or told so in JSON', async () => {
    const visitor = await createTestSession(server, null)
    const res = await toggle('olivia/atlas', visitor)
    expect([res.status, res.headers.location]).toEqual([302, '/users/sign_in'])
    const json = await toggle('olivia/atlas', visitor, visitor.csrfToken, 'application/json')
    expect(json.status).toBe(401)
    expect(json.body).toEqual({ error: 'You need to sign in or sign up before continuing.' })
    expect(await starCount(project.id)).toBe(0)
  })

  test('a private project is a 404 to a stranger, who cannot star it', async () => {
    const res = await toggle('olivia/vault', strangerSession)
    expect(res.status).toBe(404)
    expect(res.text).toContain('<h1>404: Page not found</h1>')
    expect(await starCount(hidden.id)).toBe(0)
    const ownerStar = await toggle('olivia/vault', ownerSession)
    expect(ownerStar.status).toBe(302)
    expect(await starCount(hidden.id)).toBe(1)
  })
})

describe('the starrers page', () => {
  let starrersProject: Record<string, any>

  beforeAll(async () => {
    starrersProject = await createRepositoryProject(api, owner, { name: 'Globe', path: 'globe' })
    const db = server.database.db
    const people = [
      { username: 'carol', name: 'Carol' },
      { username: 'alan', name: 'Alan' },
      { username: 'xena', name: `Xena ${XSS}` },
      { username: 'bruno', name: 'Bruno', private_profile: 1 },
    ]
    for (const person of people) {
      const user = await createTestUser(db, person)
      const token = (await createTestToken(db, user)).value
      expect((await api('POST', `/projects/${starrersProject.id}/star`, { token })).status).toBe(201)
    }
    await toggle('olivia/globe', strangerSession)
  })

  const names = (text: string) => [...text.matchAll(/<a class="title" href="\/([^"]+)">/g)].map((match) => match[1])

  test('lists who starred, by name, with the date, and hides private profiles as the API does', async () => {
    const res = await request('GET', '/olivia/globe/-/starrers', as(strangerSession))
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(res.text).toContain('<title>Starrers · Olivia / Globe · svc</title>')
    expect(res.text).toMatch(/<p class="starrer-counts">\s*5 starrers: 4 public and 1 private\s*<\/p>/)
    expect(names(res.text)).toEqual(['alan', 'carol', 'sam', 'xena'])
    expect(res.text).toMatch(
      /<a class="title" href="\/sam">Sam<\/a> <span class="muted">@sam<\/span>\s*<span class="badge status-opened">It's you<\/span>/,
    )
    expect(res.text).toMatch(
      /<span class="meta">Starred <time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z">\d{4}-\d\d-\d\d [\d:]+ UTC<\/time><\/span>/,
    )
    expect(res.text).toContain('Xena &lt;script&gt;alert(1)&lt;/script&gt;')
    expect(res.text).not.toContain(XSS)
    expect(res.text).toContain('<strong class="status-tab current">Name</strong>')
    expect(res.text).toContain('<a class="status-tab" href="/olivia/globe/-/starrers?sort=created_desc">Recently starred</a>')
    expect(res.text).toContain('<span class="page-info">Page 1 of 1 (4 starrers)</span>')
    // An administrator sees the private profile too.
    const root = await server.database.db.selectFrom('users').select('id').where('username', '=', 'root').executeTakeFirstOrThrow()
    const admin = await createTestSession(server, root)
    expect(names((await request('GET', '/olivia/globe/-/starrers', as(admin))).text)).toEqual(['alan', 'bruno', 'carol', 'sam', 'xena'])
  })

  test('sorts as asked and searches, keeping the sort', async () => {
    const descending = await request('GET', '/olivia/globe/-/starrers?sort=name_desc', as(null))
    expect(descending.status).toBe(200)
    expect(names(descending.text)).toEqual(['xena', 'sam', 'carol', 'alan'])
    const recent = await request('GET', '/olivia/globe/-/starrers?sort=created_desc', as(null))
    expect(names(recent.text)).toEqual(['sam', 'xena', 'alan', 'carol'])
    const oldest = await request('GET', '/olivia/globe/-/starrers?sort=created_asc', as(null))
    expect(names(oldest.text)).toEqual(['carol', 'alan', 'xena', 'sam'])
    const searched = await request('GET', '/olivia/globe/-/starrers?sort=name_desc&search=car', as(null))
    expect(names(searched.text)).toEqual(['carol'])
    expect(searched.text).toContain('<input type="hidden" name="sort" value="name_desc" />')
    expect(searched.text).toContain('<input type="text" id="starrer_search" name="search" value="car" />')
    const none = await request('GET', `/olivia/globe/-/starrers?search=${encodeURIComponent('"><b>x</b>')}`, as(null))
    expect(none.status).toBe(200)
    expect(none.text).toContain('<div class="empty-state">No starrers matched your search</div>')
    expect(none.text).toContain('value="&quot;&gt;&lt;b&gt;x&lt;/b&gt;"')
    // An unknown sort is the default one.
    expect(names((await request('GET', '/olivia/globe/-/starrers?sort=bogus', as(null))).text)).toEqual(['alan', 'carol', 'sam', 'xena'])
  })

  test('pages twenty at a time', async () => {
    const db = server.database.db
    const many = await createRepositoryProject(api, owner, { name: 'Crowd', path: 'crowd' })
    for (let n = 0; n < 21; n++) {
      const user = await createTestUser(db, { username: `fan${String(n).padStart(2, '0')}`, name: `Fan ${String(n).padStart(2, '0')}` })
      const token = (await createTestToken(db, user)).value
      expect((await api('POST', `/projects/${many.id}/star`, { token })).status).toBe(201)
    }
    const first = await request('GET', '/olivia/crowd/-/starrers', as(null))
    expect(names(first.text)).toHaveLength(20)
    expect(first.text).toContain('<span class="page-info">Page 1 of 2 (21 starrers)</span>')
    expect(first.text).toContain('<a rel="next" href="/olivia/crowd/-/starrers?page=2">Next</a>')
    const second = await request('GET', '/olivia/crowd/-/starrers?page=2', as(null))
    expect(names(second.text)).toEqual(['fan20'])
    expect(second.text).toContain('<a rel="prev" href="/olivia/crowd/-/starrers">Prev</a>')
  })

  test('an unstarred project says so; a private one is a 404 to a stranger and sign-in to a visitor', async () => {
    const empty = await createRepositoryProject(api, owner, { name: 'Quiet', path: 'quiet' })
    const res = await request('GET', `/${empty.path_with_namespace}/-/starrers`, as(null))
    expect(res.status).toBe(200)
    expect(res.text).toMatch(/0 starrers: 0 public and 0 private/)
    expect(res.text).toContain('<div class="empty-state">Nobody has starred this repository yet</div>')
    expect(res.text).not.toContain('starrer-search')
    const forStranger = await request('GET', '/olivia/vault/-/starrers', as(strangerSession))
    expect(forStranger.status).toBe(404)
    const forVisitor = await request('GET', '/olivia/vault/-/starrers', as(null))
    expect([forVisitor.status, forVisitor.headers.location]).toEqual([302, '/users/sign_in'])
    const forOwner = await request('GET', '/olivia/vault/-/starrers', as(ownerSession))
    expect(forOwner.status).toBe(200)
    expect(names(forOwner.text)).toEqual(['olivia'])
  })

  test('the overview links its stars to this page', async () => {
    const res = await request('GET', '/olivia/globe', as(null))
    expect(res.text).toContain('<a class="button stars" href="/olivia/globe/-/starrers" title="Starrers">&#9733; 5 stars</a>')
  })
})
