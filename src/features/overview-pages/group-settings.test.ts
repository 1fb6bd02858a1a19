import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import type { NamespaceRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { CONTENT_SECURITY_POLICY } from '../../web/html.js'

let server: TestServer
let db: Db
let api: ReturnType<typeof client>
const XSS = '<script>alert(1)</script>'

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  api = client(`${server.url}/api/v4`)
})
afterAll(() => server.close())

interface PageResponse {
  status: number
  location: string | null
  headers: Headers
  text: string
}

async function visit(method: string, path: string, session?: TestSession, form?: [string, string][]): Promise<PageResponse> {
  const headers: Record<string, string> = { accept: 'text/html' }
  if (session) headers.cookie = session.cookie
  let body: string | undefined
  if (form) {
    body = new URLSearchParams(form).toString()
    headers['content-type'] = 'application/x-www-form-urlencoded'
  }
  const response = await fetch(server.url + path, { method, headers, body, redirect: 'manual' })
  return { status: response.status, location: response.headers.get('location'), headers: response.headers, text: await response.text() }
}

function submit(session: TestSession, path: string, fields: [string, string][], token: string | null = session.csrfToken) {
  return visit('POST', path, session, token === null ? fields : [['authenticity_token', token], ...fields])
}

interface Person {
  user: User
  session: TestSession
  token: string
}

async function person(overrides: { admin?: 0 | 1; can_create_group?: 0 | 1 } = {}): Promise<Person> {
  const user = await createTestUser(db, overrides)
  return { user, session: await createTestSession(server, user), token: (await createTestToken(db, user)).value }
}

async function groupWith(
  owner: Person,
  options: { visibility?: 'private' | 'internal' | 'public'; parent?: NamespaceRow; name?: string } = {},
) {
  const group = await createTestGroup(db, { visibility: options.visibility ?? 'private', parent: options.parent, name: options.name })
  await addTestMember(db, { user: owner.user, group, accessLevel: AccessLevel.OWNER })
  return group
}

const editOf = (group: NamespaceRow) => `/groups/${group.full_path}/-/edit`
const groupUrl = (group: NamespaceRow) => `/groups/${group.full_path}`

function notice(text: string) {
  return `<div class="flash notice" role="alert">${text}</div>`
}

function alert(text: string) {
  return `<div class="flash alert" role="alert">${text}</div>`
}

async function apiGroup(group: NamespaceRow | number, token: string) {
  return api('GET', `/groups/${typeof group === 'number' ? group : group.id}`, { token })
}

describe('the group settings page', () => {
  test('an Owner sees the general settings with the group values; the sidebar links them', async () => {
    const owner = await person()
    const group = await groupWith(owner, { visibility: 'internal', name: 'Platform' })
    await db.updateTable('namespaces').set({ description: 'Core services' }).where('id', '=', group.id).execute()
    const page = await visit('GET', editOf(group), owner.session)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
    expect(page.text).toContain('<title>General settings · Platform · svc</title>')
    expect(page.text).toContain('<h1>General settings</h1>')
    expect(page.text).toContain(`<form method="post" action="${groupUrl(group)}" class="edit-group">`)
    expect(page.text).toMatch(/<input\s+type="text"\s+id="group_name"\s+name="group\[name\]"\s+value="Platform"/)
    expect(page.text).toContain(`<input type="text" id="group_id" value="${group.id}" readonly />`)
    expect(page.text).toMatch(/<textarea id="group_description" name="group\[description\]" rows="3"\s*>\nCore services<\/textarea/)
    expect(page.text).toMatch(/id="group_visibility_level_10"\s+name="group\[visibility_level\]"\s+value="10"\s+checked/)
    expect(page.text).toContain('The group and its projects can only be viewed by members.')
    expect(page.text).toContain(`<label for="confirm_name_input">Enter the following to confirm: <code>${group.full_path}</code></label>`)
    expect(page.text).toContain(`<a href="${editOf(group)}" aria-current="page">General</a>`)
    // The overview links the settings for the Owner alone.
    expect((await visit('GET', groupUrl(group), owner.session)).text).toContain(`href="${editOf(group)}"`)
  })

  test('Maintainers and strangers get the 404 page, visitors are sent to sign in; an administrator may edit', async () => {
    const owner = await person()
    const group = await groupWith(owner)
    const maintainer = await person()
    await addTestMember(db, { user: maintainer.user, group, accessLevel: AccessLevel.MAINTAINER })
    const maintainerPage = await visit('GET', editOf(group), maintainer.session)
    expect(maintainerPage.status).toBe(404)
    expect(maintainerPage.text).toContain('404: Page not found')
    expect((await visit('GET', groupUrl(group), maintainer.session)).text).not.toContain(editOf(group))
    const stranger = await person()
    expect((await visit('GET', editOf(group), stranger.session)).status).toBe(404)
    const visitor = await visit('GET', editOf(group))
    expect([visitor.status, visitor.location]).toEqual([302, '/users/sign_in'])
    const admin = await person({ admin: 1 })
    expect((await visit('GET', editOf(group), admin.session)).status).toBe(200)
  })

  test("saving the name, description and visibility says so with GitLab's notice; the API shows them", async () => {
    const owner = await person()
    const group = await groupWith(owner, { visibility: 'private' })
    const saved = await submit(owner.session, groupUrl(group), [
      ['_method', 'patch'],
      ['group[name]', 'Data Team'],
      ['group[description]', 'Pipelines & dashboards'],
      ['group[visibility_level]', '20'],
    ])
    expect([saved.status, saved.location]).toEqual([302, editOf(group)])
    const page = await visit('GET', editOf(group), owner.session)
    expect(page.text).toContain(notice('Group &#39;Data Team&#39; was successfully updated.'))
    const shown = await apiGroup(group, owner.token)
    expect(shown.body).toMatchObject({ name: 'Data Team', description: 'Pipelines & dashboards', visibility: 'public', path: group.path })
  })

  test('a visibility below its projects is refused as the API refuses it, beside the field, with the values typed', async () => {
    const owner = await person()
    const group = await groupWith(owner, { visibility: 'public' })
    await createTestProject(db, { namespace: group, visibility: 'public' })
    const refused = await submit(owner.session, groupUrl(group), [
      ['_method', 'patch'],
      ['group[name]', 'Renamed'],
      ['group[description]', XSS],
      ['group[visibility_level]', '0'],
    ])
    expect(refused.status).toBe(422)
    const message = 'Visibility level private is not allowed since this group contains projects with higher visibility.'
    expect(refused.text).toContain(`<li>${message}</li>`)
    expect(refused.text).toContain(`<p class="field-error" id="group_visibility_level_error">${message}</p>`)
    expect(refused.text).toMatch(/id="group_visibility_level_0"\s+name="group\[visibility_level\]"\s+value="0"\s+checked/)
    expect(refused.text).toMatch(/name="group\[name\]"\s+value="Renamed"/)
    expect(refused.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;</textarea')
    expect(refused.text).not.toContain(XSS)
    const api = await apiGroup(group, owner.token)
    expect(api.body).toMatchObject({ name: group.name, visibility: 'public' })
    // The API refuses it in the same words.
    const put = await client(`${server.url}/api/v4`)('PUT', `/groups/${group.id}`, { token: owner.token, body: { visibility: 'private' } })
    expect(put.status).toBe(400)
    expect(JSON.stringify(put.body)).toContain('private is not allowed since this group contains projects with higher visibility.')
  })

  test('a name with markup is refused and shown as text', async () => {
    const owner = await person()
    const group = await groupWith(owner)
    const refused = await submit(owner.session, groupUrl(group), [
      ['_method', 'patch'],
      ['group[name]', XSS],
      ['group[visibility_level]', '0'],
    ])
    expect(refused.status).toBe(422)
    expect(refused.text).toMatch(/<li>Name can contain only/)
    expect(refused.text).toMatch(/<p class="field-error" id="group_name_error">Name can contain only/)
    expect(refused.text).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"')
    expect(refused.text).not.toContain(XSS)
  })

  test('changing the path moves the group; a taken path is refused beside the field', async () => {
    const owner = await person()
    const group = await groupWith(owner)
    const other = await groupWith(owner)
    const taken = await submit(owner.session, groupUrl(group), [
      ['_method', 'patch'],
      ['group[path]', other.path],
    ])
    expect(taken.status).toBe(422)
    expect(taken.text).toContain('<p class="field-error" id="group_path_error">Path has already been taken</p>')
    expect(taken.text).toMatch(new RegExp(`name="group\\[path\\]"\\s+value="${other.path}"`))
    const newPath = `${group.path}-moved`
    const moved = await submit(owner.session, groupUrl(group), [
      ['_method', 'patch'],
      ['group[path]', newPath],
    ])
    expect([moved.status, moved.location]).toEqual([302, `/groups/${newPath}/-/edit`])
    expect((await apiGroup(group, owner.token)).body.full_path).toBe(newPath)
    const page = await visit('GET', `/groups/${newPath}/-/edit`, owner.session)
    expect(page.text).toContain(notice(`Group &#39;${group.name}&#39; was successfully updated.`))
  })

  test('transfers under a group the Owner may create subgroups in, or to the top level; a forged parent is refused', async () => {
    const owner = await person()
    const group = await groupWith(owner, { visibility: 'public' })
    const target = await groupWith(owner, { visibility: 'private' })
    const elsewhere = await createTestGroup(db, { visibility: 'private' })
    await addTestMember(db, { user: owner.user, group: elsewhere, accessLevel: AccessLevel.DEVELOPER })
    const page = await visit('GET', editOf(group), owner.session)
    expect(page.text).toContain(`<option value="${target.id}">${target.full_path}</option>`)
    expect(page.text).not.toContain(`<option value="${elsewhere.id}">`)
    expect(page.text).not.toContain(`<option value="${group.id}">`)
    // A top-level group has no "No parent group".
    expect(page.text).not.toContain('No parent group')

    const forged = await submit(owner.session, `${groupUrl(group)}/-/transfer`, [
      ['_method', 'put'],
      ['new_parent_group_id', String(elsewhere.id)],
    ])
    expect([forged.status, forged.location]).toEqual([302, editOf(group)])
    expect((await visit('GET', editOf(group), owner.session)).text).toContain(
      alert('Transfer failed: You don&#39;t have enough permissions.'),
    )

    const moved = await submit(owner.session, `${groupUrl(group)}/-/transfer`, [
      ['_method', 'put'],
      ['new_parent_group_id', String(target.id)],
    ])
    const newPath = `${target.full_path}/${group.path}`
    expect([moved.status, moved.location]).toEqual([302, `/groups/${newPath}`])
    expect((await visit('GET', `/groups/${newPath}`, owner.session)).text).toContain(
      notice(`Group &#39;${group.name}&#39; was successfully transferred.`),
    )
    // Moved under a private parent, it became private.
    expect((await apiGroup(group, owner.token)).body).toMatchObject({ parent_id: target.id, full_path: newPath, visibility: 'private' })

    const subgroupPage = await visit('GET', `/groups/${newPath}/-/edit`, owner.session)
    expect(subgroupPage.text).toContain('<option value="none">No parent group</option>')
    const back = await submit(owner.session, `/groups/${newPath}/-/transfer`, [
      ['_method', 'put'],
      ['new_parent_group_id', 'none'],
    ])
    expect([back.status, back.location]).toEqual([302, `/groups/${group.path}`])
    expect((await apiGroup(group, owner.token)).body.parent_id).toBeNull()
  })

  test('deleting asks for the full path; typed right, the group is scheduled for deletion', async () => {
    const owner = await person()
    const parent = await groupWith(owner)
    const group = await groupWith(owner, { parent })
    const wrong = await submit(owner.session, groupUrl(group), [
      ['_method', 'delete'],
      ['confirm_name', group.path],
    ])
    expect(wrong.status).toBe(422)
    expect(wrong.text).toContain(
      `<p class="field-error" id="confirm_name_input_error">Enter the following to confirm: ${group.full_path}</p>`,
    )
    expect((await apiGroup(group, owner.token)).status).toBe(200)
    const deleted = await submit(owner.session, groupUrl(group), [
      ['_method', 'delete'],
      ['confirm_name', group.full_path],
    ])
    expect([deleted.status, deleted.location]).toEqual([302, '/'])
    expect((await visit('GET', '/', owner.session)).text).toContain(alert(`Group &#39;${group.name}&#39; was scheduled for deletion.`))
    await server.runJobs()
    expect((await apiGroup(group, owner.token)).status).toBe(404)
  })

  test('a Maintainer or a stranger forging the forms gets the 404 page and changes nothing; no CSRF token is refused', async () => {
    const owner = await person()
    const group = await groupWith(owner)
    const target = await groupWith(owner)
    const maintainer = await person()
    await addTestMember(db, { user: maintainer.user, group, accessLevel: AccessLevel.MAINTAINER })
    await addTestMember(db, { user: maintainer.user, group: target, accessLevel: AccessLevel.OWNER })
    const stranger = await person()
    for (const forger of [maintainer, stranger]) {
      const responses = [
        await submit(forger.session, groupUrl(group), [
          ['_method', 'patch'],
          ['group[name]', 'Forged'],
        ]),
        await submit(forger.session, `${groupUrl(group)}/-/transfer`, [
          ['_method', 'put'],
          ['new_parent_group_id', String(target.id)],
        ]),
        await submit(forger.session, groupUrl(group), [
          ['_method', 'delete'],
          ['confirm_name', group.full_path],
        ]),
      ]
      expect(responses.map((response) => response.status)).toEqual([404, 404, 404])
    }
    const withoutToken = await submit(
      owner.session,
      groupUrl(group),
      [
        ['_method', 'patch'],
        ['group[name]', 'Forged'],
      ],
      null,
    )
    expect(withoutToken.status).toBe(422)
    expect(withoutToken.text).toContain('The change you requested was rejected')
    await server.runJobs()
    expect((await apiGroup(group, owner.token)).body).toMatchObject({ name: group.name, parent_id: null })
  })
})
