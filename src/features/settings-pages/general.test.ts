import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import type { NamespaceRow } from '../../db/schema.js'
import { addTestMember, createTestGroup } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { CONTENT_SECURITY_POLICY } from '../../web/html.js'
import { flashOf } from '../sessions/testing.js'
import { pages, XSS } from './testing.js'

let server: TestServer
let api: ReturnType<typeof client>
let web: ReturnType<typeof pages>
let owner: Person
let maintainer: Person
let developer: Person
let guest: Person
let ownerSession: TestSession
let maintainerSession: TestSession
let developerSession: TestSession
let guestSession: TestSession
let crew: NamespaceRow
let project: Record<string, any>

function sidebarOf(text: string): string {
  return /<nav class="sidebar"[\s\S]*?<\/nav>/.exec(text)?.[0] ?? ''
}

async function apiProject(idOrPath: number | string): Promise<Record<string, any>> {
  const res = await api('GET', `/projects/${encodeURIComponent(String(idOrPath))}`, { token: owner.token })
  return res.body
}

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  api = client(`${server.url}/api/v4`)
  web = pages(server.url)
  owner = await createPerson(db, 'olivia')
  maintainer = await createPerson(db, 'mia')
  developer = await createPerson(db, 'dev')
  guest = await createPerson(db, 'gus')
  ownerSession = await createTestSession(server, owner.user)
  maintainerSession = await createTestSession(server, maintainer.user)
  developerSession = await createTestSession(server, developer.user)
  guestSession = await createTestSession(server, guest.user)
  crew = await createTestGroup(db, { path: 'crew', name: 'Crew' })
  await addTestMember(db, { user: owner.user, group: crew, accessLevel: AccessLevel.OWNER })
  project = await createRepositoryProject(api, owner, { name: 'Atlas', path: 'atlas', description: 'Maps' })
  await addProjectMember(db, maintainer, project.id, AccessLevel.MAINTAINER)
  await addProjectMember(db, developer, project.id, AccessLevel.DEVELOPER)
  await addProjectMember(db, guest, project.id, AccessLevel.GUEST)
  const branch = await api('POST', `/projects/${project.id}/repository/branches`, {
    token: owner.token,
    body: { branch: 'develop', ref: 'main' },
  })
  expect(branch.status).toBe(201)
})
afterAll(() => server.close())

describe('the general settings page', () => {
  test('shows a Maintainer the name, description and default branch, and the Settings entries in the sidebar', async () => {
    const res = await web.get('/olivia/atlas/edit', maintainerSession)
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(res.text).toContain('<title>General settings · Olivia / Atlas · svc</title>')
    expect(res.text).toContain('<form method="post" action="/olivia/atlas" class="edit-project">')
    expect(res.text).toContain('<input type="hidden" name="_method" value="patch" />')
    expect(res.text).toMatch(/<input\s+type="text"\s+id="project_name_edit"\s+name="project\[name\]"\s+value="Atlas"\s+required/)
    expect(res.text).toContain(`<input type="text" id="project_id" value="${project.id}" readonly />`)
    expect(res.text).toMatch(/name="project\[description\]"[^>]*>Maps<\/textarea>/)
    expect([...res.text.matchAll(/<option value="([^"]+)" (selected)?>/g)].map((m) => [m[1], m[2] ?? ''])).toEqual([
      ['develop', ''],
      ['main', 'selected'],
    ])
    // A Maintainer may rename and change the path, not change visibility, archive, transfer or delete (Owners).
    expect(res.text).toContain('id="project_path"')
    expect(res.text).not.toContain('project[visibility_level]')
    expect(res.text).not.toContain('/archive"')
    expect(res.text).not.toContain('/transfer"')
    expect(res.text).not.toContain('Delete project')
    // The sidebar's Settings and its pages.
    expect(res.text).toContain('<a href="/olivia/atlas/edit" aria-current="page">Settings</a>')
    for (const [href, label] of [
      ['/olivia/atlas/edit', 'General'],
      ['/olivia/atlas/-/settings/access_tokens', 'Access tokens'],
      ['/olivia/atlas/-/settings/repository', 'Repository'],
      ['/olivia/atlas/-/settings/merge_requests', 'Merge requests'],
      ['/olivia/atlas/-/settings/operations', 'Monitor'],
    ]) {
      expect(res.text).toMatch(new RegExp(`<a href="${href}" (aria-current="page")?>${label}</a>`))
    }
    expect(res.text).toContain('<a href="/olivia/atlas/-/project_members" >Members</a>')
  })

  test('shows an Owner visibility, archive, transfer and delete', async () => {
    const res = await web.get('/olivia/atlas/edit', ownerSession)
    expect(res.status).toBe(200)
    expect(res.text).toMatch(
      /<input\s+type="radio"\s+id="project_visibility_level_20"\s+name="project\[visibility_level\]"\s+value="20"\s+checked/,
    )
    expect(res.text).toContain('<form method="post" action="/olivia/atlas/archive" class="archive-project">')
    expect(res.text).toContain('<form method="post" action="/olivia/atlas/transfer" class="transfer-project">')
    expect(res.text).toContain(`<option value="${crew.id}">crew</option>`)
    expect(res.text).toContain('<form method="post" action="/olivia/atlas" class="delete-project">')
    expect(res.text).toContain('<label for="confirm_name_input">Enter the following to confirm: <code>atlas</code></label>')
  })

  test('is the 404 page for a Developer and a Guest, with no Settings in their sidebar; a visitor is sent to sign in', async () => {
    for (const session of [developerSession, guestSession]) {
      const res = await web.get('/olivia/atlas/edit', session)
      expect(res.status).toBe(404)
      expect(res.text).toContain('<h1>404: Page not found</h1>')
      const sidebar = sidebarOf((await web.get('/olivia/atlas', session)).text)
      expect(sidebar).not.toContain('/olivia/atlas/edit')
      expect(sidebar).not.toContain('/-/settings/')
      expect(sidebar).toContain('<a href="/olivia/atlas/-/project_members" >Members</a>')
    }
    const visitor = await web.get('/olivia/atlas/edit', null)
    expect([visitor.status, visitor.headers.location]).toEqual([302, '/users/sign_in'])
    const dashed = await web.get('/olivia/atlas/-/edit', maintainerSession)
    expect([dashed.status, dashed.headers.location]).toEqual([302, '/olivia/atlas/edit'])
  })
})

describe('saving the general settings', () => {
  test('renames the project, changes the description and the default branch, and says so on the next page', async () => {
    const res = await web.post('/olivia/atlas', maintainerSession, {
      _method: 'patch',
      update_section: 'js-general-settings',
      'project[name]': 'Atlas Maps',
      'project[description]': 'All the maps',
      'project[default_branch]': 'develop',
    })
    expect([res.status, res.headers.location]).toEqual([302, '/olivia/atlas/edit'])
    const next = await web.get('/olivia/atlas/edit', maintainerSession)
    expect(flashOf(next.text)).toBe("Project 'Atlas Maps' was successfully updated.")
    expect(flashOf((await web.get('/olivia/atlas/edit', maintainerSession)).text)).toBeNull()
    expect(await apiProject(project.id)).toMatchObject({ name: 'Atlas Maps', description: 'All the maps', default_branch: 'develop' })
    const back = await web.post('/olivia/atlas', maintainerSession, {
      _method: 'patch',
      'project[name]': 'Atlas',
      'project[description]': 'Maps',
      'project[default_branch]': 'main',
    })
    expect(back.status).toBe(302)
    expect(await apiProject(project.id)).toMatchObject({ name: 'Atlas', description: 'Maps', default_branch: 'main' })
  })

  test('a refusal comes back beside the field with what was typed, escaped, and changes nothing', async () => {
    const res = await web.post('/olivia/atlas', maintainerSession, {
      _method: 'patch',
      update_section: 'js-general-settings',
      'project[name]': `Atlas ${XSS}`,
      'project[description]': `Says ${XSS}`,
    })
    expect(res.status).toBe(422)
    expect(res.text).toMatch(/<li>Name can contain only letters, digits/)
    expect(res.text).toMatch(/<p class="field-error" id="project_name_edit_error">Name can contain only letters, digits/)
    expect(res.text).toContain('value="Atlas &lt;script&gt;alert(1)&lt;/script&gt;"')
    expect(res.text).toContain('>Says &lt;script&gt;alert(1)&lt;/script&gt;</textarea>')
    expect(res.text).not.toContain(XSS)
    expect(await apiProject(project.id)).toMatchObject({ name: 'Atlas', description: 'Maps' })
    const branch = await web.post('/olivia/atlas', maintainerSession, { _method: 'patch', 'project[default_branch]': 'nowhere' })
    expect(branch.status).toBe(422)
    expect(branch.text).toContain('<li>Could not change HEAD: branch &#39;nowhere&#39; does not exist</li>')
  })

  test('a form without a valid token is refused with 422 and changes nothing', async () => {
    for (const token of [null, 'forged']) {
      const res = await web.post('/olivia/atlas', maintainerSession, { _method: 'patch', 'project[name]': 'Forged' }, token)
      expect(res.status).toBe(422)
      expect(res.text).toContain('The change you requested was rejected.')
    }
    expect((await apiProject(project.id)).name).toBe('Atlas')
  })

  test('a Developer may not save, whatever the form says', async () => {
    const res = await web.post('/olivia/atlas', developerSession, { _method: 'patch', 'project[name]': 'Taken' })
    expect(res.status).toBe(404)
    expect((await apiProject(project.id)).name).toBe('Atlas')
  })

  test('an Owner changes the visibility; a Maintainer who sends it anyway is refused', async () => {
    const forged = await web.post('/olivia/atlas', maintainerSession, { _method: 'patch', 'project[visibility_level]': '0' })
    expect(forged.status).toBe(404)
    const res = await web.post('/olivia/atlas', ownerSession, {
      _method: 'patch',
      update_section: 'js-shared-permissions',
      'project[visibility_level]': '10',
    })
    expect([res.status, res.headers.location]).toEqual([302, '/olivia/atlas/edit'])
    expect((await apiProject(project.id)).visibility).toBe('internal')
    await web.post('/olivia/atlas', ownerSession, { _method: 'patch', 'project[visibility_level]': '20' })
    expect((await apiProject(project.id)).visibility).toBe('public')
  })

  test('a new path moves the project, and the old path leads to it', async () => {
    const res = await web.post('/olivia/atlas', maintainerSession, {
      _method: 'patch',
      update_section: 'js-project-advanced-settings',
      'project[path]': 'atlas-maps',
    })
    expect([res.status, res.headers.location]).toEqual([302, '/olivia/atlas-maps/edit'])
    expect((await apiProject(project.id)).path_with_namespace).toBe('olivia/atlas-maps')
    const old = await web.get('/olivia/atlas', maintainerSession)
    expect(old.status).toBe(301)
    expect(old.headers.location).toMatch(/\/olivia\/atlas-maps$/)
    const taken = await createRepositoryProject(api, owner, { name: 'Taken', path: 'taken' })
    const refused = await web.post('/olivia/atlas-maps', maintainerSession, {
      _method: 'patch',
      update_section: 'js-project-advanced-settings',
      'project[path]': taken.path,
    })
    expect(refused.status).toBe(422)
    expect(refused.text).toContain('<p class="field-error" id="project_path_error">Path has already been taken</p>')
    expect(refused.text).toMatch(/id="project_path"\s+name="project\[path\]"\s+value="taken"/)
    await web.post('/olivia/atlas-maps', maintainerSession, { _method: 'patch', 'project[path]': 'atlas' })
    expect((await apiProject(project.id)).path_with_namespace).toBe('olivia/atlas')
  })
})

describe('archive, transfer and delete', () => {
  test('an Owner archives and unarchives the project; a Maintainer may not', async () => {
    expect((await web.post('/olivia/atlas/archive', maintainerSession, {})).status).toBe(404)
    expect((await apiProject(project.id)).archived).toBe(false)
    const archived = await web.post('/olivia/atlas/archive', ownerSession, {})
    expect([archived.status, archived.headers.location]).toEqual([302, '/olivia/atlas'])
    expect(flashOf((await web.get('/olivia/atlas', ownerSession)).text)).toBe("Project 'Atlas' was successfully archived.")
    expect((await apiProject(project.id)).archived).toBe(true)
    const page = await web.get('/olivia/atlas/edit', ownerSession)
    expect(page.text).toContain('<form method="post" action="/olivia/atlas/unarchive" class="unarchive-project">')
    expect((await web.post('/olivia/atlas/unarchive', ownerSession, {}, null)).status).toBe(422)
    expect((await apiProject(project.id)).archived).toBe(true)
    const unarchived = await web.post('/olivia/atlas/unarchive', ownerSession, {})
    expect([unarchived.status, unarchived.headers.location]).toEqual([302, '/olivia/atlas'])
    expect((await apiProject(project.id)).archived).toBe(false)
  })

  test('an Owner transfers the project to a group; a refusal is an alert on the settings page', async () => {
    const other = await createRepositoryProject(api, owner, { name: 'Globe', path: 'globe' })
    const none = await web.post('/olivia/globe/transfer', ownerSession, { _method: 'put', new_namespace_id: '' })
    expect([none.status, none.headers.location]).toEqual([302, '/olivia/globe/edit'])
    expect(flashOf((await web.get('/olivia/globe/edit', ownerSession)).text)).toBe('Please select a new namespace for your project.')
    const stranger = await createTestGroup(server.database.db, { path: 'strangers' })
    await web.post('/olivia/globe/transfer', ownerSession, { _method: 'put', new_namespace_id: String(stranger.id) })
    expect(flashOf((await web.get('/olivia/globe/edit', ownerSession)).text)).toBe('Please select a new namespace for your project.')
    const moved = await web.post('/olivia/globe/transfer', ownerSession, { _method: 'put', new_namespace_id: String(crew.id) })
    expect([moved.status, moved.headers.location]).toEqual([302, '/crew/globe/edit'])
    expect(flashOf((await web.get('/crew/globe/edit', ownerSession)).text)).toBe("Project 'Globe' was successfully transferred.")
    expect((await apiProject(other.id)).path_with_namespace).toBe('crew/globe')
    const again = await createRepositoryProject(api, owner, { name: 'Globe', path: 'globe' })
    await web.post('/olivia/globe/transfer', ownerSession, { _method: 'put', new_namespace_id: String(crew.id) })
    expect(flashOf((await web.get('/olivia/globe/edit', ownerSession)).text)).toBe(
      'Project with same name or path in target namespace already exists',
    )
    expect((await apiProject(again.id)).path_with_namespace).toBe('olivia/globe')
    expect(
      (await web.post('/olivia/atlas/transfer', maintainerSession, { _method: 'put', new_namespace_id: String(crew.id) })).status,
    ).toBe(404)
  })

  test('an Owner deletes the project after typing its path; the wrong path is refused beside the field', async () => {
    const doomed = await createRepositoryProject(api, owner, { name: 'Doomed', path: 'doomed' })
    const wrong = await web.post('/olivia/doomed', ownerSession, { _method: 'delete', confirm_name: 'doom' })
    expect(wrong.status).toBe(422)
    expect(wrong.text).toContain('<p class="field-error" id="confirm_name_input_error">Enter the following to confirm: doomed</p>')
    expect((await web.post('/olivia/doomed', maintainerSession, { _method: 'delete', confirm_name: 'doomed' })).status).toBe(404)
    expect((await web.post('/olivia/doomed', ownerSession, { _method: 'delete', confirm_name: 'doomed' }, null)).status).toBe(422)
    const res = await web.post('/olivia/doomed', ownerSession, { _method: 'delete', confirm_name: 'doomed' })
    expect([res.status, res.headers.location]).toEqual([302, '/'])
    expect(flashOf((await web.get('/', ownerSession)).text)).toBe("Project 'Olivia / Doomed' is in the process of being deleted.")
    await server.runJobs()
    expect((await api('GET', `/projects/${doomed.id}`, { token: owner.token })).status).toBe(404)
  })
})
