import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import type { NamespaceRow } from '../../db/schema.js'
import { addTestMember, createTestGroup } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { CONTENT_SECURITY_POLICY } from '../../web/html.js'

let server: TestServer
let api: ReturnType<typeof client>
let request: ReturnType<typeof client>
let owner: Person
let sam: Person
let guest: Person
let ownerSession: TestSession
let samSession: TestSession
let guestSession: TestSession
let crew: NamespaceRow
let onlookers: NamespaceRow
let personal: { id: number }
let source: Record<string, any>
let hidden: Record<string, any>
const XSS = `<script>alert(1)</script>`

function as(session: TestSession | null): { headers: Record<string, string> } {
  return { headers: session ? { cookie: session.cookie, accept: 'text/html' } : { accept: 'text/html' } }
}

/** The fork form's POST, as a browser sends it. */
function fork(session: TestSession, fields: Record<string, string>, path = 'olivia/atlas', token: string | null = session.csrfToken) {
  return request('POST', `/${path}/-/forks`, {
    form: true,
    headers: { cookie: session.cookie, accept: 'text/html' },
    body: token === null ? fields : { authenticity_token: token, ...fields },
  })
}

const titles = (text: string) => [...text.matchAll(/<a class="title" href="\/([^"]+)">/g)].map((match) => match[1])

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  api = client(`${server.url}/api/v4`)
  request = client(server.url)
  owner = await createPerson(db, 'olivia')
  sam = await createPerson(db, 'sam')
  guest = await createPerson(db, 'gus')
  ownerSession = await createTestSession(server, owner.user)
  samSession = await createTestSession(server, sam.user)
  guestSession = await createTestSession(server, guest.user)
  crew = await createTestGroup(db, { path: 'crew', name: 'Crew' })
  onlookers = await createTestGroup(db, { path: 'onlookers', name: 'Onlookers' })
  await addTestMember(db, { user: sam.user, group: crew, accessLevel: AccessLevel.DEVELOPER })
  await addTestMember(db, { user: sam.user, group: onlookers, accessLevel: AccessLevel.GUEST })
  personal = await db.selectFrom('namespaces').select('id').where('kind', '=', 'user').where('path', '=', 'sam').executeTakeFirstOrThrow()
  source = await createRepositoryProject(api, owner, { name: 'Atlas', path: 'atlas', description: 'Maps' })
  hidden = await createRepositoryProject(api, owner, { name: 'Vault', path: 'vault', visibility: 'private' })
  await addProjectMember(db, guest, hidden.id, AccessLevel.GUEST)
})
afterAll(() => server.close())

describe('the Fork button', () => {
  test('a visitor sees the count linking to the forks; a user who may fork sees the button too', async () => {
    const visitor = await request('GET', '/olivia/atlas', as(null))
    expect(visitor.status).toBe(200)
    expect(visitor.text).toContain('<a class="button forks" href="/olivia/atlas/-/forks" title="Forks">0 forks</a>')
    expect(visitor.text).not.toContain('/-/forks/new')
    const user = await request('GET', '/olivia/atlas', as(samSession))
    expect(user.text).toMatch(
      /<span class="count-button forks">\s*<a class="button" href="\/olivia\/atlas\/-\/forks\/new" title="Fork project">Fork<\/a>\s*<a class="count" href="\/olivia\/atlas\/-\/forks" title="Forks" aria-label="0 forks">0<\/a>\s*<\/span>/,
    )
  })

  test('a Guest of a private project, who may not read its code, sees only the count', async () => {
    const res = await request('GET', '/olivia/vault', as(guestSession))
    expect(res.status).toBe(200)
    expect(res.text).toContain('<span class="badge forks" title="Forks">0 forks</span>')
    expect((await request('GET', '/olivia/vault/-/forks', as(guestSession))).status).toBe(404)
    expect((await request('GET', '/olivia/vault/-/forks/new', as(guestSession))).status).toBe(404)
  })
})

describe('the fork form', () => {
  test('offers the personal namespace and the groups where the user may create projects, filled from the source', async () => {
    const res = await request('GET', '/olivia/atlas/-/forks/new', as(samSession))
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(res.text).toContain('<title>Fork project · Olivia / Atlas · svc</title>')
    expect(res.text).toContain('<form method="post" action="/olivia/atlas/-/forks" class="fork-project">')
    expect(res.text).toContain('<input type="text" id="fork_name" name="name" value="Atlas" required />')
    expect(res.text).toContain('<input type="text" id="fork_path" name="path" value="atlas" required />')
    expect(res.text).toContain('<textarea id="fork_description" name="description" rows="3">Maps</textarea>')
    const options = [...res.text.matchAll(/<option value="(\d+)" >\s*([^<]*?)\s*<\/option>/g)].map((match) => [Number(match[1]), match[2]])
    expect(options).toEqual([
      [personal.id, `${server.url}/sam/`],
      [crew.id, `${server.url}/crew/`],
    ])
    expect(res.text).toMatch(/<input type="radio" name="visibility" value="public" checked \/>/)
  })

  test('a visitor is sent to sign in; a private project is a 404 to a stranger', async () => {
    const visitor = await request('GET', '/olivia/atlas/-/forks/new', as(null))
    expect([visitor.status, visitor.headers.location]).toEqual([302, '/users/sign_in'])
    expect((await request('GET', '/olivia/vault/-/forks/new', as(samSession))).status).toBe(404)
    expect((await fork(samSession, { namespace_key: String(personal.id) }, 'olivia/vault')).status).toBe(404)
  })

  test('forks into the chosen namespace and opens the fork', async () => {
    const res = await fork(samSession, {
      namespace_key: String(personal.id),
      name: 'Atlas',
      path: 'atlas',
      description: 'Maps',
      visibility: 'public',
    })
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe('/sam/atlas')
    await server.runJobs()
    const opened = await request('GET', '/sam/atlas', as(samSession))
    expect(opened.text).toContain(`<div class="flash notice" role="alert">The project &#39;Atlas&#39; was successfully forked.</div>`)
    const created = await api('GET', `/projects/${encodeURIComponent('sam/atlas')}`, { token: sam.token })
    expect(created.body).toMatchObject({
      name: 'Atlas',
      visibility: 'public',
      import_status: 'finished',
      forked_from_project: { id: source.id },
    })
    const page = await request('GET', '/sam/atlas', as(samSession))
    expect(page.status).toBe(200)
    expect(page.text).toMatch(/README\.md<\/a><\/h2>/)
    const overview = await request('GET', '/olivia/atlas', as(null))
    expect(overview.text).toContain('<a class="button forks" href="/olivia/atlas/-/forks" title="Forks">1 fork</a>')
  })

  test('a refusal comes back beside the form with the values given, escaped', async () => {
    const taken = await fork(samSession, { namespace_key: String(personal.id), name: 'Atlas', path: 'atlas', visibility: 'public' })
    expect(taken.status).toBe(422)
    expect(taken.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(taken.text).toContain('<li>Name has already been taken</li>')
    expect(taken.text).toContain('<li>Path has already been taken</li>')
    const hostile = await fork(samSession, { namespace_key: String(crew.id), name: `Atlas ${XSS}`, path: 'atlas', visibility: 'public' })
    expect(hostile.status).toBe(422)
    expect(hostile.text).toMatch(/<li>Name can contain only letters, digits/)
    expect(hostile.text).toContain('value="Atlas &lt;script&gt;alert(1)&lt;/script&gt;"')
    expect(hostile.text).not.toContain(XSS)
    expect(hostile.text).toMatch(new RegExp(`<option value="${crew.id}" selected>`))
    const forks = await api('GET', `/projects/${source.id}/forks`, { token: owner.token })
    expect(forks.body.map((p: any) => p.path_with_namespace)).toEqual(['sam/atlas'])
  })

  test('a namespace the user may not create projects in, or none, is a 404; a form without its token is refused', async () => {
    const guestGroup = await fork(samSession, { namespace_key: String(onlookers.id), name: 'Atlas', path: 'atlas-2' })
    expect(guestGroup.status).toBe(404)
    expect(guestGroup.text).toContain('<h1>404: Page not found</h1>')
    expect((await fork(samSession, { name: 'Atlas', path: 'atlas-2' })).status).toBe(404)
    expect((await fork(samSession, { namespace_key: 'crew', name: 'Atlas', path: 'atlas-2' })).status).toBe(404)
    const forged = await fork(samSession, { namespace_key: String(crew.id), name: 'Atlas', path: 'atlas-2' }, 'olivia/atlas', null)
    expect(forged.status).toBe(422)
    expect(forged.text).toContain('The change you requested was rejected.')
    const forks = await api('GET', `/projects/${source.id}/forks`, { token: owner.token })
    expect(forks.body).toHaveLength(1)
  })

  test('a private source offers only private visibility', async () => {
    const res = await request('GET', '/olivia/vault/-/forks/new', as(ownerSession))
    expect(res.status).toBe(200)
    expect([...res.text.matchAll(/name="visibility" value="(\w+)"/g)].map((match) => match[1])).toEqual(['private'])
  })
})

describe('the forks page', () => {
  beforeAll(async () => {
    const res = await fork(samSession, { namespace_key: String(crew.id), name: 'Atlas copy', path: 'atlas-copy', visibility: 'private' })
    expect([res.status, res.headers.location]).toEqual([302, '/crew/atlas-copy'])
    await server.runJobs()
  })

  test('lists the forks the reader may see, newest first', async () => {
    const forSam = await request('GET', '/olivia/atlas/-/forks', as(samSession))
    expect(forSam.status).toBe(200)
    expect(forSam.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(forSam.text).toContain('<title>Forks · Olivia / Atlas · svc</title>')
    expect(titles(forSam.text)).toEqual(['crew/atlas-copy', 'sam/atlas'])
    expect(forSam.text).toContain('<a class="button primary" href="/olivia/atlas/-/forks/new">Fork</a>')
    expect(forSam.text).toContain('<span class="page-info">Page 1 of 1 (2 forks)</span>')
    // The private fork stays hidden from those who may not see it, as the API's list hides it.
    const forVisitor = await request('GET', '/olivia/atlas/-/forks', as(null))
    expect(forVisitor.status).toBe(200)
    expect(titles(forVisitor.text)).toEqual(['sam/atlas'])
    expect(forVisitor.text).not.toContain('/-/forks/new')
    const oldest = await request('GET', '/olivia/atlas/-/forks?sort=created_asc', as(samSession))
    expect(titles(oldest.text)).toEqual(['sam/atlas', 'crew/atlas-copy'])
    expect(oldest.text).toContain('<strong class="status-tab current">Oldest created</strong>')
  })

  test('searches', async () => {
    const res = await request('GET', '/olivia/atlas/-/forks?search=copy', as(samSession))
    expect(titles(res.text)).toEqual(['crew/atlas-copy'])
    expect(res.text).toContain('<input type="text" id="fork_search" name="search" value="copy" />')
    const none = await request('GET', `/olivia/atlas/-/forks?search=${encodeURIComponent(XSS)}`, as(samSession))
    expect(none.status).toBe(200)
    expect(none.text).toContain('<p>No forks matched your search.</p>')
    expect(none.text).not.toContain(XSS)
  })

  test('a private project is a 404 to a stranger and sign-in to a visitor; an empty repository goes back to the project', async () => {
    expect((await request('GET', '/olivia/vault/-/forks', as(samSession))).status).toBe(404)
    const visitor = await request('GET', '/olivia/vault/-/forks', as(null))
    expect([visitor.status, visitor.headers.location]).toEqual([302, '/users/sign_in'])
    const owned = await request('GET', '/olivia/vault/-/forks', as(ownerSession))
    expect(owned.status).toBe(200)
    expect(owned.text).toContain('<div class="empty-state"><p>This project has no forks yet.</p></div>')
    await createRepositoryProject(api, owner, { name: 'Blank', path: 'blank', initialize_with_readme: false })
    for (const path of ['/olivia/blank/-/forks', '/olivia/blank/-/forks/new']) {
      const res = await request('GET', path, as(samSession))
      expect([res.status, res.headers.location]).toEqual([303, '/olivia/blank'])
    }
  })
})
