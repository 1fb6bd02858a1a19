import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import type { NamespaceRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestToken, createTestUser } from '../../testing/factories.js'
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

async function person(): Promise<Person> {
  const user = await createTestUser(db)
  return { user, session: await createTestSession(server, user), token: (await createTestToken(db, user)).value }
}

const membersOf = (group: NamespaceRow) => `/groups/${group.full_path}/-/group_members`

function notice(text: string) {
  return `<div class="flash notice" role="alert">${text}</div>`
}

function inDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
}

async function membershipId(group: NamespaceRow, user: User): Promise<number> {
  const row = await db
    .selectFrom('members')
    .select('id')
    .where('namespace_id', '=', group.id)
    .where('user_id', '=', user.id)
    .executeTakeFirstOrThrow()
  return row.id
}

async function apiMember(group: NamespaceRow, user: User, token: string) {
  return api('GET', `/groups/${group.id}/members/${user.id}`, { token })
}

/** A private group with its Owner and a Developer. */
async function team() {
  const owner = await person()
  const developer = await person()
  const group = await createTestGroup(db, { visibility: 'private' })
  await addTestMember(db, { user: owner.user, group, accessLevel: AccessLevel.OWNER })
  await addTestMember(db, { user: developer.user, group, accessLevel: AccessLevel.DEVELOPER })
  return { owner, developer, group }
}

describe("a group's members page", () => {
  test('an Owner gets the invitation form and a form in each changeable row; a Developer sees the list alone', async () => {
    const { owner, developer, group } = await team()
    const parentOwner = await person()
    const parent = await createTestGroup(db, { visibility: 'private' })
    await addTestMember(db, { user: parentOwner.user, group: parent, accessLevel: AccessLevel.OWNER })
    const child = await createTestGroup(db, { visibility: 'private', parent })
    await addTestMember(db, { user: owner.user, group: child, accessLevel: AccessLevel.OWNER })
    await addTestMember(db, { user: developer.user, group: child, accessLevel: AccessLevel.DEVELOPER })

    const page = await visit('GET', membersOf(child), owner.session)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
    expect(page.text).toContain(`<title>Members · ${child.full_name} · svc</title>`)
    expect(page.text).toContain(`<a href="${membersOf(child)}" aria-current="page">Members</a>`)
    expect(page.text).toContain(`You're inviting members to the <strong>${child.name}</strong> group.`)
    expect(page.text).toContain(`<form method="post" action="${membersOf(child)}" class="invite-member">`)
    expect(page.text).toMatch(/name="group_member\[username\]"/)
    expect(page.text).toMatch(/<select id="invite_access_level" name="group_member\[access_level\]"\s*>/)
    expect(page.text).toContain('<option value="50" >Owner</option>')
    expect(page.text).toContain('<h2 id="members-heading">Members (3)</h2>')
    // The parent's Owner is inherited: shown with its source, no form.
    const inherited = await membershipId(parent, parentOwner.user)
    expect(page.text).toMatch(
      new RegExp(
        `<tr id="member_${inherited}">[\\s\\S]*?<td>Inherited from <a href="/groups/${parent.full_path}">${parent.full_path}</a></td>\\s*<td>Owner</td>`,
      ),
    )
    const developerRow = await membershipId(child, developer.user)
    expect(page.text).toContain(`<form method="post" action="${membersOf(child)}/${developerRow}" id="member_form_${developerRow}">`)
    expect(page.text).toContain(`name="group_member[access_level]" form="member_form_${developerRow}"`)

    const developerPage = await visit('GET', membersOf(group), developer.session)
    expect(developerPage.status).toBe(200)
    expect(developerPage.text).not.toContain('invite-member')
    expect(developerPage.text).not.toContain('member_form_')
    expect(developerPage.text).not.toContain('Remove member')
    expect(developerPage.text).toMatch(/<td>Direct member<\/td>\s*<td>Developer<\/td>/)

    const stranger = await person()
    expect((await visit('GET', membersOf(group), stranger.session)).status).toBe(404)
    const visitor = await visit('GET', membersOf(group))
    expect([visitor.status, visitor.location]).toEqual([302, '/users/sign_in'])
  })

  test('the Owner invites an existing user with a role and an expiry; the API shows the membership', async () => {
    const { owner, group } = await team()
    const newcomer = await person()
    const expires = inDays(30)
    const invited = await submit(owner.session, membersOf(group), [
      ['group_member[username]', newcomer.user.username],
      ['group_member[access_level]', '30'],
      ['group_member[expires_at]', expires],
    ])
    expect([invited.status, invited.location]).toEqual([302, membersOf(group)])
    const page = await visit('GET', membersOf(group), owner.session)
    expect(page.text).toContain(notice('Users were successfully added.'))
    expect(page.text).toContain(`<a href="/${newcomer.user.username}">${newcomer.user.name}</a>`)
    const member = await apiMember(group, newcomer.user, owner.token)
    expect(member.status).toBe(200)
    expect(member.body).toMatchObject({ username: newcomer.user.username, access_level: 30, expires_at: expires })
    // The newcomer now sees the group.
    expect((await visit('GET', `/groups/${group.full_path}`, newcomer.session)).status).toBe(200)
  })

  test('an unknown user, an existing member and a past expiry are refused beside their fields, with what was typed', async () => {
    const { owner, developer, group } = await team()
    const unknown = await submit(owner.session, membersOf(group), [
      ['group_member[username]', XSS],
      ['group_member[access_level]', '20'],
      ['group_member[expires_at]', ''],
    ])
    expect(unknown.status).toBe(422)
    expect(unknown.text).toContain('<p class="field-error" id="invite_username_error">User Not Found</p>')
    expect(unknown.text).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"')
    expect(unknown.text).not.toContain(XSS)
    expect(unknown.text).toContain('<option value="20" selected>Reporter</option>')

    const existing = await submit(owner.session, membersOf(group), [
      ['group_member[username]', developer.user.username],
      ['group_member[access_level]', '30'],
    ])
    expect(existing.status).toBe(422)
    expect(existing.text).toContain('<p class="field-error" id="invite_username_error">Member already exists</p>')

    const newcomer = await person()
    const past = await submit(owner.session, membersOf(group), [
      ['group_member[username]', newcomer.user.username],
      ['group_member[access_level]', '30'],
      ['group_member[expires_at]', inDays(-3)],
    ])
    expect(past.status).toBe(422)
    expect(past.text).toMatch(/<p class="field-error" id="invite_expires_at_error">Expires at [^<]+<\/p>/)
    expect(past.text).toContain(`value="${inDays(-3)}"`)
    expect((await apiMember(group, newcomer.user, owner.token)).status).toBe(404)
  })

  test("the Owner changes a member's role and expiry, and removes them, with GitLab's notices", async () => {
    const { owner, developer, group } = await team()
    const id = await membershipId(group, developer.user)
    const promoted = await submit(owner.session, `${membersOf(group)}/${id}`, [
      ['_method', 'put'],
      ['group_member[access_level]', '40'],
      ['group_member[expires_at]', ''],
    ])
    expect([promoted.status, promoted.location]).toEqual([302, membersOf(group)])
    expect((await visit('GET', membersOf(group), owner.session)).text).toContain(notice('Role updated successfully.'))
    expect((await apiMember(group, developer.user, owner.token)).body.access_level).toBe(40)

    const expires = inDays(10)
    await submit(owner.session, `${membersOf(group)}/${id}`, [
      ['_method', 'put'],
      ['group_member[access_level]', '40'],
      ['group_member[expires_at]', expires],
    ])
    expect((await visit('GET', membersOf(group), owner.session)).text).toContain(notice('Expiration date updated successfully.'))
    expect((await apiMember(group, developer.user, owner.token)).body.expires_at).toBe(expires)

    const removed = await submit(owner.session, `${membersOf(group)}/${id}`, [['_method', 'delete']])
    expect([removed.status, removed.location]).toEqual([302, membersOf(group)])
    expect((await visit('GET', membersOf(group), owner.session)).text).toContain(notice('User was successfully removed from group.'))
    expect((await apiMember(group, developer.user, owner.token)).status).toBe(404)
    expect((await visit('GET', `/groups/${group.full_path}`, developer.session)).status).toBe(404)
  })

  test('the last Owner stays: no form in their row, and a forged change or removal is the 404 page', async () => {
    const { owner, group } = await team()
    const ownerRow = await membershipId(group, owner.user)
    const page = await visit('GET', membersOf(group), owner.session)
    expect(page.text).not.toContain(`id="member_form_${ownerRow}"`)
    expect(page.text).toMatch(new RegExp(`<tr id="member_${ownerRow}">[\\s\\S]*?<td>Direct member</td>\\s*<td>Owner</td>`))
    const demoted = await submit(owner.session, `${membersOf(group)}/${ownerRow}`, [
      ['_method', 'put'],
      ['group_member[access_level]', '30'],
    ])
    expect(demoted.status).toBe(404)
    const removed = await submit(owner.session, `${membersOf(group)}/${ownerRow}`, [['_method', 'delete']])
    expect(removed.status).toBe(404)
    expect((await apiMember(group, owner.user, owner.token)).body.access_level).toBe(50)

    // With a second Owner, either may be changed.
    const second = await person()
    await addTestMember(db, { user: second.user, group, accessLevel: AccessLevel.OWNER })
    const withTwo = await visit('GET', membersOf(group), owner.session)
    expect(withTwo.text).toContain(`id="member_form_${ownerRow}"`)
  })

  test('a Maintainer or a stranger forging the forms gets the 404 page and changes nothing; no CSRF token is refused', async () => {
    const { owner, developer, group } = await team()
    const maintainer = await person()
    await addTestMember(db, { user: maintainer.user, group, accessLevel: AccessLevel.MAINTAINER })
    const stranger = await person()
    const newcomer = await person()
    const id = await membershipId(group, developer.user)
    for (const forger of [maintainer, stranger]) {
      const responses = [
        await submit(forger.session, membersOf(group), [
          ['group_member[username]', newcomer.user.username],
          ['group_member[access_level]', '30'],
        ]),
        await submit(forger.session, `${membersOf(group)}/${id}`, [
          ['_method', 'put'],
          ['group_member[access_level]', '10'],
        ]),
        await submit(forger.session, `${membersOf(group)}/${id}`, [['_method', 'delete']]),
      ]
      expect(responses.map((response) => response.status)).toEqual([404, 404, 404])
    }
    const withoutToken = await submit(
      owner.session,
      membersOf(group),
      [
        ['group_member[username]', newcomer.user.username],
        ['group_member[access_level]', '30'],
      ],
      null,
    )
    expect(withoutToken.status).toBe(422)
    expect(withoutToken.text).toContain('The change you requested was rejected')
    expect((await apiMember(group, newcomer.user, owner.token)).status).toBe(404)
    expect((await apiMember(group, developer.user, owner.token)).body.access_level).toBe(30)
  })
})
