import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
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
let coOwner: Person
let maintainer: Person
let reporter: Person
let sam: Person
let ownerSession: TestSession
let maintainerSession: TestSession
let reporterSession: TestSession
let samSession: TestSession
let project: Record<string, any>

const PAGE = '/olivia/atlas/-/project_members'

async function apiMember(userId: number): Promise<{ status: number; body: any }> {
  return api('GET', `/projects/${project.id}/members/${userId}`, { token: owner.token })
}

async function memberId(userId: number): Promise<number> {
  const row = await server.database.db
    .selectFrom('members')
    .select('id')
    .where('project_id', '=', project.id)
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow()
  return row.id
}

function inDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
}

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  api = client(`${server.url}/api/v4`)
  web = pages(server.url)
  owner = await createPerson(db, 'olivia')
  coOwner = await createPerson(db, 'otto')
  maintainer = await createPerson(db, 'mia')
  reporter = await createPerson(db, 'rey')
  sam = await createPerson(db, 'sam')
  ownerSession = await createTestSession(server, owner.user)
  maintainerSession = await createTestSession(server, maintainer.user)
  reporterSession = await createTestSession(server, reporter.user)
  samSession = await createTestSession(server, sam.user)
  project = await createRepositoryProject(api, owner, { name: 'Atlas', path: 'atlas', visibility: 'private' })
  await addProjectMember(db, coOwner, project.id, AccessLevel.OWNER)
  await addProjectMember(db, maintainer, project.id, AccessLevel.MAINTAINER)
  await addProjectMember(db, reporter, project.id, AccessLevel.REPORTER)
})
afterAll(() => server.close())

describe('the members page', () => {
  test('a Reporter sees who belongs, with role and expiry, and no button', async () => {
    const res = await web.get(PAGE, reporterSession)
    expect(res.status).toBe(200)
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(res.text).toContain('<title>Members · Olivia / Atlas · svc</title>')
    expect(res.text).toContain('<a href="/olivia/atlas/-/project_members" aria-current="page">Members</a>')
    expect(res.text).toContain('<h2 id="members-heading">Members (4)</h2>')
    const rows = [...res.text.matchAll(/<td><a href="\/(\w+)">[^<]*<\/a>[\s\S]*?<td>Direct member<\/td>\s*<td>(\w+)<\/td>/g)].map((m) => [
      m[1],
      m[2],
    ])
    expect(rows).toEqual([
      ['olivia', 'Owner'],
      ['otto', 'Owner'],
      ['mia', 'Maintainer'],
      ['rey', 'Reporter'],
    ])
    expect(res.text).toContain('No expiration set')
    expect(res.text).not.toContain('<form method="post" action="/olivia/atlas/-/project_members')
    expect(res.text).not.toContain('Remove member')
    expect(res.text).not.toContain('Invite members')
  })

  test('a Maintainer may invite, and change or remove the members below Owner, never the namespace holder', async () => {
    const res = await web.get(PAGE, maintainerSession)
    expect(res.status).toBe(200)
    expect(res.text).toContain('<form method="post" action="/olivia/atlas/-/project_members" class="invite-member">')
    expect([...res.text.matchAll(/<select id="invite_access_level"[^>]*>([\s\S]*?)<\/select>/g)][0][1]).not.toContain('Owner')
    const editable = [
      ...res.text.matchAll(/<form method="post" action="\/olivia\/atlas\/-\/project_members\/(\d+)" class="remove-member">/g),
    ].map((m) => Number(m[1]))
    expect(editable).toEqual([await memberId(maintainer.user.id), await memberId(reporter.user.id)])
    // An Owner may change the other Owner, not the holder of the personal namespace.
    const forOwner = await web.get(PAGE, ownerSession)
    expect(forOwner.text).toContain(`action="/olivia/atlas/-/project_members/${await memberId(coOwner.user.id)}" class="remove-member"`)
    expect(forOwner.text).not.toContain(`action="/olivia/atlas/-/project_members/${await memberId(owner.user.id)}"`)
  })

  test('a private project is the 404 page to a stranger; a visitor is sent to sign in', async () => {
    expect((await web.get(PAGE, samSession)).status).toBe(404)
    const visitor = await web.get(PAGE, null)
    expect([visitor.status, visitor.headers.location]).toEqual([302, '/users/sign_in'])
  })

  test('members inherited from the group say where they come from', async () => {
    const db = server.database.db
    const crew = await createTestGroup(db, { path: 'crew', name: 'Crew' })
    await addTestMember(db, { user: maintainer.user, group: crew, accessLevel: AccessLevel.OWNER })
    const created = await api('POST', '/projects', {
      token: maintainer.token,
      body: { name: 'Globe', path: 'globe', namespace_id: crew.id },
    })
    expect(created.status).toBe(201)
    const res = await web.get('/crew/globe/-/project_members', maintainerSession)
    expect(res.status).toBe(200)
    expect(res.text).toMatch(
      /<a href="\/mia">Mia<\/a>[\s\S]*?<td>Inherited from <a href="\/groups\/crew">crew<\/a><\/td>\s*<td>Owner<\/td>/,
    )
  })
})

describe('inviting', () => {
  test('a Maintainer adds an existing user with a role and an expiry date; the API shows the membership', async () => {
    const res = await web.post(PAGE, maintainerSession, {
      'project_member[username]': 'sam',
      'project_member[access_level]': '30',
      'project_member[expires_at]': inDays(30),
    })
    expect([res.status, res.headers.location]).toEqual([302, PAGE])
    expect(flashOf((await web.get(PAGE, maintainerSession)).text)).toBe('Users were successfully added.')
    expect((await apiMember(sam.user.id)).body).toMatchObject({ username: 'sam', access_level: 30, expires_at: inDays(30) })
  })

  test('refusals come back beside the field with what was typed, escaped; nothing is added', async () => {
    const unknown = await web.post(PAGE, maintainerSession, { 'project_member[username]': XSS, 'project_member[access_level]': '20' })
    expect(unknown.status).toBe(422)
    expect(unknown.text).toContain('<p class="field-error" id="invite_username_error">User Not Found</p>')
    expect(unknown.text).toMatch(
      /id="invite_username"\s+name="project_member\[username\]"\s+value="&lt;script&gt;alert\(1\)&lt;\/script&gt;"/,
    )
    expect(unknown.text).toMatch(/<option value="20" selected>Reporter<\/option>/)
    expect(unknown.text).not.toContain(XSS)
    const again = await web.post(PAGE, maintainerSession, { 'project_member[username]': 'sam', 'project_member[access_level]': '20' })
    expect(again.status).toBe(422)
    expect(again.text).toContain('<li>Member already exists</li>')
    const past = await createPerson(server.database.db, 'pat')
    const late = await web.post(PAGE, maintainerSession, {
      'project_member[username]': 'pat',
      'project_member[access_level]': '10',
      'project_member[expires_at]': '2001-01-01',
    })
    expect(late.status).toBe(422)
    expect(late.text).toContain('<p class="field-error" id="invite_expires_at_error">Expires at cannot be a date in the past</p>')
    expect(late.text).toContain('value="2001-01-01"')
    expect((await apiMember(past.user.id)).status).toBe(404)
  })

  test('a Maintainer cannot make an Owner, a Reporter cannot invite, and a form without its token is refused', async () => {
    const owner = await web.post(PAGE, maintainerSession, { 'project_member[username]': 'pat', 'project_member[access_level]': '50' })
    expect(owner.status).toBe(404)
    const byReporter = await web.post(PAGE, reporterSession, { 'project_member[username]': 'pat', 'project_member[access_level]': '10' })
    expect(byReporter.status).toBe(404)
    const forged = await web.post(
      PAGE,
      maintainerSession,
      { 'project_member[username]': 'pat', 'project_member[access_level]': '10' },
      null,
    )
    expect(forged.status).toBe(422)
    expect(forged.text).toContain('The change you requested was rejected.')
    const pat = await server.database.db.selectFrom('users').select('id').where('username', '=', 'pat').executeTakeFirstOrThrow()
    expect((await apiMember(pat.id)).status).toBe(404)
  })
})

describe('changing and removing members', () => {
  test('a Maintainer changes a role, then an expiry date, each with its notice', async () => {
    const at = `${PAGE}/${await memberId(sam.user.id)}`
    const role = await web.post(at, maintainerSession, {
      _method: 'put',
      'project_member[access_level]': '20',
      'project_member[expires_at]': inDays(30),
    })
    expect([role.status, role.headers.location]).toEqual([302, PAGE])
    expect(flashOf((await web.get(PAGE, maintainerSession)).text)).toBe('Role updated successfully.')
    expect((await apiMember(sam.user.id)).body.access_level).toBe(20)
    await web.post(at, maintainerSession, { _method: 'put', 'project_member[access_level]': '20', 'project_member[expires_at]': '' })
    expect(flashOf((await web.get(PAGE, maintainerSession)).text)).toBe('Expiration date updated successfully.')
    expect((await apiMember(sam.user.id)).body.expires_at).toBeNull()
    const past = await web.post(at, maintainerSession, {
      _method: 'put',
      'project_member[access_level]': '30',
      'project_member[expires_at]': '2001-01-01',
    })
    expect(past.status).toBe(422)
    expect(past.text).toContain(
      `<p class="field-error" id="member_form_${await memberId(sam.user.id)}_expires_at_error">Expires at cannot be a date in the past</p>`,
    )
    expect(past.text).toMatch(/<option value="30" selected>Developer<\/option>/)
    expect((await apiMember(sam.user.id)).body.access_level).toBe(20)
  })

  test('an Owner and the namespace holder stay: a Maintainer changing or removing them gets the 404 page', async () => {
    const otto = `${PAGE}/${await memberId(coOwner.user.id)}`
    expect((await web.post(otto, maintainerSession, { _method: 'put', 'project_member[access_level]': '10' })).status).toBe(404)
    expect((await web.post(otto, maintainerSession, { _method: 'delete' })).status).toBe(404)
    expect((await apiMember(coOwner.user.id)).body.access_level).toBe(50)
    const holder = `${PAGE}/${await memberId(owner.user.id)}`
    expect((await web.post(holder, ownerSession, { _method: 'delete' })).status).toBe(404)
    expect((await apiMember(owner.user.id)).status).toBe(200)
  })

  test('a Maintainer removes a member; a forged form and a Reporter remove nobody', async () => {
    const at = `${PAGE}/${await memberId(sam.user.id)}`
    expect((await web.post(at, maintainerSession, { _method: 'delete' }, 'forged')).status).toBe(422)
    expect((await web.post(at, reporterSession, { _method: 'delete' })).status).toBe(404)
    expect((await apiMember(sam.user.id)).status).toBe(200)
    const res = await web.post(at, maintainerSession, { _method: 'delete' })
    expect([res.status, res.headers.location]).toEqual([302, PAGE])
    expect(flashOf((await web.get(PAGE, maintainerSession)).text)).toBe('User was successfully removed from project.')
    expect((await apiMember(sam.user.id)).status).toBe(404)
    expect((await web.post(at, maintainerSession, { _method: 'delete' })).status).toBe(404)
  })
})
