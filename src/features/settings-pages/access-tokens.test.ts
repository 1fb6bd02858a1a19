import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
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
let ownerSession: TestSession
let maintainerSession: TestSession
let developerSession: TestSession
let project: Record<string, any>

const PAGE = '/olivia/atlas/-/settings/access_tokens'

function tokenFields(values: { name: string; scopes?: string[]; level?: string; expiresAt?: string }): [string, string][] {
  return [
    ['resource_access_token[name]', values.name],
    ['resource_access_token[expires_at]', values.expiresAt ?? ''],
    ['resource_access_token[access_level]', values.level ?? '30'],
    ...(values.scopes ?? []).map((scope) => ['resource_access_token[scopes][]', scope] as [string, string]),
  ]
}

async function apiTokens(): Promise<any[]> {
  return (await api('GET', `/projects/${project.id}/access_tokens`, { token: owner.token })).body
}

function inFuture(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
}

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  api = client(`${server.url}/api/v4`)
  web = pages(server.url)
  owner = await createPerson(db, 'olivia')
  maintainer = await createPerson(db, 'mia')
  developer = await createPerson(db, 'dev')
  ownerSession = await createTestSession(server, owner.user)
  maintainerSession = await createTestSession(server, maintainer.user)
  developerSession = await createTestSession(server, developer.user)
  project = await createRepositoryProject(api, owner, { name: 'Atlas', path: 'atlas', visibility: 'private' })
  await addProjectMember(db, maintainer, project.id, AccessLevel.MAINTAINER)
  await addProjectMember(db, developer, project.id, AccessLevel.DEVELOPER)
})
afterAll(() => server.close())

describe('the access tokens page', () => {
  test('offers a Maintainer the form with the roles they hold and every scope described, and lists no tokens yet', async () => {
    const res = await web.get(PAGE, maintainerSession)
    expect(res.status).toBe(200)
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(res.text).toContain('<title>Project access tokens · Olivia / Atlas · svc</title>')
    expect(res.text).toContain('<a href="/olivia/atlas/-/settings/access_tokens" aria-current="page">Access tokens</a>')
    expect(res.text).toContain('<form method="post" action="/olivia/atlas/-/settings/access_tokens" class="new-access-token">')
    expect([...res.text.matchAll(/<option value="(\d+)" (selected)?>([^<]+)<\/option>/g)].map((m) => `${m[3]}${m[2] ? '*' : ''}`)).toEqual([
      'Guest',
      'Planner',
      'Reporter',
      'Developer',
      'Maintainer*',
    ])
    expect(res.text).toMatch(
      /type="checkbox"\s+id="resource_access_token_scopes_read_repository"\s+name="resource_access_token\[scopes\]\[\]"\s+value="read_repository"/,
    )
    expect(res.text).toContain(
      '<p class="help" id="resource_access_token_scopes_api_help">Grants complete read/write access to the API, including all groups and projects.</p>',
    )
    expect(res.text).not.toContain('value="sudo"')
    expect(res.text).toMatch(new RegExp(`name="resource_access_token\\[expires_at\\]"\\s+value="${inFuture(30)}"`))
    expect(res.text).toContain('<h2 id="active-tokens-heading">Active project access tokens (0)</h2>')
    expect(res.text).toContain('This project has no active access tokens.')
    const forOwner = await web.get(PAGE, ownerSession)
    expect(forOwner.text).toContain('<option value="50" >Owner</option>')
  })

  test('is the 404 page for a Developer, who may not make one either', async () => {
    expect((await web.get(PAGE, developerSession)).status).toBe(404)
    expect((await web.post(PAGE, developerSession, tokenFields({ name: 'CI', scopes: ['api'] }))).status).toBe(404)
    expect(await apiTokens()).toEqual([])
  })
})

describe('making and revoking a project access token', () => {
  test('the new token is shown once on the next page, works, and is listed with its role and scopes', async () => {
    const res = await web.post(
      PAGE,
      maintainerSession,
      tokenFields({ name: 'Deploy bot', scopes: ['read_api', 'read_repository'], expiresAt: inFuture(10) }),
    )
    expect([res.status, res.headers.location]).toEqual([302, PAGE])
    const shown = await web.get(PAGE, maintainerSession)
    expect(flashOf(shown.text)).toBe('Your new project access token has been created.')
    const value = /id="created-project-access-token"\s+value="([^"]+)"/.exec(shown.text)?.[1]
    expect(value).toMatch(/^svcpat-/)
    expect(shown.text).toContain("Make sure you save it - you won't be able to access it again.")
    expect(shown.text).toContain('<button type="button" data-copy="created-project-access-token">Copy</button>')
    // Never again: not on the next page, and not kept in the session.
    const again = await web.get(PAGE, maintainerSession)
    expect(again.text).not.toContain(value)
    expect(again.text).not.toContain('created-project-access-token')
    const sessions = await server.database.db.selectFrom('sessions').select('flash').execute()
    expect(sessions.some((row) => (row.flash ?? '').includes(value!))).toBe(false)
    // The token reads the private project through the API.
    const read = await api('GET', `/projects/${project.id}`, { token: value })
    expect(read.status).toBe(200)
    expect(again.text).toMatch(
      new RegExp(
        `<td class="token-name">Deploy bot</td>\\s*<td>read_api, read_repository</td>\\s*<td><time datetime="[^"]+">[^<]+</time></td>\\s*<td>[^<]*<[^>]+>[^<]*</[^>]+></td>\\s*<td><time datetime="${inFuture(10)}">${inFuture(10)}</time></td>\\s*<td>Developer</td>`,
      ),
    )
    expect(await apiTokens()).toMatchObject([
      { name: 'Deploy bot', scopes: ['read_api', 'read_repository'], access_level: 30, active: true },
    ])
  })

  test('a refusal keeps what was typed, escaped, each message beside its field', async () => {
    const res = await web.post(PAGE, maintainerSession, tokenFields({ name: '', level: '20', expiresAt: inFuture(5) }))
    expect(res.status).toBe(422)
    expect(res.text).toContain('<li>Name can&#39;t be blank</li>')
    expect(res.text).toContain('<li>Scopes can&#39;t be blank</li>')
    expect(res.text).toContain('<p class="field-error" id="resource_access_token_name_error">Name can&#39;t be blank</p>')
    expect(res.text).toContain('<p class="field-error" id="resource_access_token_scopes_error">Scopes can&#39;t be blank</p>')
    expect(res.text).toContain('<option value="20" selected>Reporter</option>')
    expect(res.text).toMatch(new RegExp(`name="resource_access_token\\[expires_at\\]"\\s+value="${inFuture(5)}"`))
    const hostile = await web.post(PAGE, maintainerSession, tokenFields({ name: XSS, level: '50', scopes: ['api'] }))
    expect(hostile.status).toBe(422)
    expect(hostile.text).toContain('<li>Access level of the token contains permissions not held by the creating user</li>')
    expect(hostile.text).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"')
    expect(hostile.text).toMatch(/value="api"\s+checked/)
    expect(hostile.text).not.toContain(XSS)
    const forged = await web.post(PAGE, maintainerSession, tokenFields({ name: 'Forged', scopes: ['api'] }), null)
    expect(forged.status).toBe(422)
    expect((await apiTokens()).map((token) => token.name)).toEqual(['Deploy bot'])
  })

  test('revoking ends the token and takes it off the list', async () => {
    const [created] = await apiTokens()
    const at = `${PAGE}/${created.id}/revoke`
    expect((await web.post(at, maintainerSession, { _method: 'put' }, null)).status).toBe(422)
    expect((await web.post(at, developerSession, { _method: 'put' })).status).toBe(404)
    expect((await apiTokens())[0].revoked).toBe(false)
    const res = await web.post(at, maintainerSession, { _method: 'put' })
    expect([res.status, res.headers.location]).toEqual([302, PAGE])
    const next = await web.get(PAGE, maintainerSession)
    expect(flashOf(next.text)).toBe('Revoked project access token Deploy bot!')
    expect(next.text).toContain('Active project access tokens (0)')
    // Its bot leaves the project, so the API no longer counts the token among the project's.
    expect(await apiTokens()).toEqual([])
    const row = await server.database.db
      .selectFrom('personal_access_tokens')
      .select('revoked')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow()
    expect(row.revoked).toBe(1)
    expect((await web.post(`${PAGE}/999999/revoke`, maintainerSession, { _method: 'put' })).status).toBe(404)
  })
})
