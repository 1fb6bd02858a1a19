import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestGroup, createTestProject, addTestMember } from '../../testing/factories.js'
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
const XSS = `<script>alert(1)</script><img src=x onerror="alert(2)">`

function as(session: TestSession | null): { headers: Record<string, string> } {
  return { headers: session ? { cookie: session.cookie, accept: 'text/html' } : { accept: 'text/html' } }
}

beforeAll(async () => {
  server = await startTestServer()
  api = client(`${server.url}/api/v4`)
  request = client(server.url)
  owner = await createPerson(server.database.db, 'olivia')
  stranger = await createPerson(server.database.db, 'sam')
  ownerSession = await createTestSession(server, owner.user)
  strangerSession = await createTestSession(server, stranger.user)
  project = await createRepositoryProject(api, owner, { name: 'Atlas', path: 'atlas', description: `Maps **fast** ${XSS}` })
})
afterAll(() => server.close())

describe('the project overview', () => {
  test('a public project shows its name, description, clone URL, last commit, README and activity to a visitor', async () => {
    const res = await request('GET', `/${project.path_with_namespace}`, as(null))
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(res.text).toContain('<title>Atlas · Olivia / Atlas · svc</title>')
    expect(res.text).toContain(
      `<input type="text" id="http_project_clone" value="${server.url}/${project.path_with_namespace}.git" readonly`,
    )
    expect(res.text).toContain('<button type="button" data-copy="http_project_clone">Copy URL</button>')
    // The description is Markdown, and what it holds of HTML stays inert.
    expect(res.text).toContain('<strong>fast</strong>')
    expect(res.text).not.toContain('<script>alert(1)</script>')
    expect(res.text).not.toMatch(/<img[^>]*onerror/)
    // The README that creation wrote, rendered.
    expect(res.text).toMatch(/<h2 id="readme-heading"><a href="\/olivia\/atlas\/-\/blob\/main\/README.md">README.md<\/a><\/h2>/)
    expect(res.text).toContain('Getting started</h2>')
    expect(res.text).toContain('Initial commit')
    expect(res.text).toContain(`<a class="button" href="/olivia/atlas/-/tree/main">Files</a>`)
    // The sidebar offers what a visitor may use.
    expect(res.text).toContain('<a class="context" href="/olivia/atlas">Atlas</a>')
    expect(res.text).not.toContain('/-/settings/operations')
  })

  test('the owner sees the settings in the sidebar', async () => {
    const res = await request('GET', `/${project.path_with_namespace}`, as(ownerSession))
    expect(res.status).toBe(200)
    expect(res.text).toContain('<a href="/olivia/atlas/-/settings/operations" >Monitor</a>')
  })

  test('a private project is a 404 for a signed-in stranger and a sign-in for a visitor, as if it did not exist', async () => {
    const hidden = await createRepositoryProject(api, owner, { name: 'Vault', path: 'vault', visibility: 'private' })
    const forStranger = await request('GET', `/${hidden.path_with_namespace}`, as(strangerSession))
    const missing = await request('GET', '/olivia/no-such-project', as(strangerSession))
    const withoutTokens = (text: string) => text.replace(/(name="csrf-token" content|name="authenticity_token" value)="[^"]+"/g, '$1=""')
    expect(forStranger.status).toBe(404)
    expect(missing.status).toBe(404)
    expect(withoutTokens(forStranger.text)).toBe(withoutTokens(missing.text))
    expect(forStranger.text).toContain('<h1>404: Page not found</h1>')
    const forVisitor = await request('GET', `/${hidden.path_with_namespace}`, as(null))
    expect(forVisitor.status).toBe(302)
    expect(forVisitor.headers.location).toBe('/users/sign_in')
    expect((await request('GET', `/${hidden.path_with_namespace}`, as(ownerSession))).status).toBe(200)
  })

  test('an empty repository says how to push to it', async () => {
    const empty = await createRepositoryProject(api, owner, { name: 'Blank', path: 'blank', initialize_with_readme: false })
    const res = await request('GET', `/${empty.path_with_namespace}`, as(ownerSession))
    expect(res.status).toBe(200)
    expect(res.text).toContain('<h2>The repository for this project is empty</h2>')
    expect(res.text).toContain(`git remote add origin ${server.url}/${empty.path_with_namespace}.git`)
  })
})

describe('groups and users', () => {
  test('a group shows its subgroups, its projects and its members', async () => {
    const group = await createTestGroup(server.database.db, { path: 'cartography', name: 'Cartography' })
    await createTestGroup(server.database.db, { path: 'sea', name: 'Sea charts', parent: group })
    await createTestProject(server.database.db, { namespace: group, path: 'globe', name: 'Globe' })
    await addTestMember(server.database.db, { user: owner.user, group, accessLevel: 50 })
    const res = await request('GET', '/groups/cartography', as(strangerSession))
    expect(res.status).toBe(200)
    expect(res.text).toContain('<a class="title" href="/groups/cartography/sea">Cartography / Sea charts</a>')
    expect(res.text).toContain('<a class="title" href="/cartography/globe">Cartography / Globe</a>')
    const members = await request('GET', '/groups/cartography/-/group_members', as(strangerSession))
    expect(members.status).toBe(200)
    expect(members.text).toMatch(
      /<td><a href="\/olivia">Olivia<\/a> <span class="muted">@olivia<\/span>\s*<\/td>\s*<td>Direct member<\/td>\s*<td>Owner<\/td>/,
    )
    // One segment that names a group goes to the group's page.
    const short = await request('GET', '/cartography', as(strangerSession))
    expect(short.status).toBe(302)
    expect(short.headers.location).toBe('/groups/cartography')
  })

  test('a private group is hidden from a stranger', async () => {
    await createTestGroup(server.database.db, { path: 'secret-maps', visibility: 'private' })
    expect((await request('GET', '/groups/secret-maps', as(strangerSession))).status).toBe(404)
    expect((await request('GET', '/groups/secret-maps/-/group_members', as(strangerSession))).status).toBe(404)
  })

  test("a user's page shows their profile, personal projects and activity", async () => {
    const res = await request('GET', '/olivia', as(strangerSession))
    expect(res.status).toBe(200)
    expect(res.text).toContain('<h1>Olivia</h1>')
    expect(res.text).toContain('<a class="title" href="/olivia/atlas">Olivia / Atlas</a>')
    expect(res.text).toMatch(/<a href="\/olivia">Olivia<\/a> created\s+project/)
    expect((await request('GET', '/nobody-by-that-name', as(strangerSession))).status).toBe(404)
  })
})

describe('dashboard, explore, search and help', () => {
  test('home signed in lists your projects and groups; signed out, it is sign-in', async () => {
    const res = await request('GET', '/', as(ownerSession))
    expect(res.status).toBe(200)
    expect(res.text).toContain('<h1>Welcome, Olivia</h1>')
    expect(res.text).toContain('<a class="title" href="/olivia/atlas">Olivia / Atlas</a>')
    expect(res.text).toContain('No open issues are assigned to you.')
    const visitor = await request('GET', '/', as(null))
    expect(visitor.status).toBe(302)
    expect(visitor.headers.location).toBe('/users/sign_in')
  })

  test('explore lists what the visitor may see, and filters by name', async () => {
    const res = await request('GET', '/explore', as(null))
    expect(res.status).toBe(200)
    expect(res.text).toContain('<a class="title" href="/olivia/atlas">Olivia / Atlas</a>')
    expect(res.text).not.toContain('Vault')
    const filtered = await request('GET', '/explore/projects?search=blank', as(null))
    expect(filtered.text).not.toContain('Olivia / Atlas')
    expect(filtered.text).toContain('Olivia / Blank')
    const groups = await request('GET', '/explore/groups', as(null))
    expect(groups.text).toContain('<a class="title" href="/groups/cartography">Cartography</a>')
    expect(groups.text).not.toContain('secret-maps')
  })

  test('search finds projects, groups and users, escaping what was asked', async () => {
    const res = await request('GET', '/search?search=cartog', as(strangerSession))
    expect(res.status).toBe(200)
    expect(res.text).toContain('<a class="title" href="/groups/cartography">Cartography</a>')
    expect(res.text).not.toContain('Cartography / Globe')
    const projects = await request('GET', '/search?search=glob', as(strangerSession))
    expect(projects.text).toContain('<a class="title" href="/cartography/globe">Cartography / Globe</a>')
    const users = await request('GET', '/search?search=olivi', as(strangerSession))
    expect(users.text).toContain('<a class="title" href="/olivia">Olivia</a>')
    const hostile = await request('GET', `/search?search=${encodeURIComponent('"><script>x</script>')}`, as(strangerSession))
    expect(hostile.status).toBe(200)
    expect(hostile.text).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"')
    expect(hostile.text).not.toContain('<script>x</script>')
  })

  test("the help link of Git's authentication error leads to a page", async () => {
    const res = await request('GET', '/help/topics/git/troubleshooting_git.md', as(null))
    expect(res.status).toBe(200)
    expect(res.text).toContain(
      '<a href="#error-on-git-fetch-http-basic-access-denied" aria-hidden="true" class="anchor" id="user-content-error-on-git-fetch-http-basic-access-denied"></a>',
    )
    expect((await request('GET', '/help', as(null))).status).toBe(200)
    expect((await request('GET', '/help/no/such/topic', as(strangerSession))).status).toBe(404)
  })
})
