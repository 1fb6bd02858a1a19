import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'

let server: TestServer
let db: Db

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
})
afterAll(() => server.close())

async function visit(method: string, path: string, session?: TestSession, form?: [string, string][]) {
  const headers: Record<string, string> = {}
  if (session) headers.cookie = session.cookie
  let body: string | undefined
  if (form && session) {
    body = new URLSearchParams([['authenticity_token', session.csrfToken], ...form]).toString()
    headers['content-type'] = 'application/x-www-form-urlencoded'
  }
  const response = await fetch(server.url + path, { method, headers, body, redirect: 'manual' })
  return { status: response.status, location: response.headers.get('location'), text: await response.text() }
}

async function session(project: ProjectRow, accessLevel: number | null) {
  const user = await createTestUser(db)
  if (accessLevel !== null) await addTestMember(db, { user, project, accessLevel })
  return createTestSession(server, user)
}

async function deepProject() {
  let group = await createTestGroup(db, { visibility: 'private' })
  for (let level = 1; level < 3; level++) group = await createTestGroup(db, { visibility: 'private', parent: group })
  return createTestProject(db, { namespace: group, visibility: 'private' })
}

async function insertError(project: ProjectRow, name: string, status = 0) {
  const at = '2026-01-01T00:00:00.000Z'
  return db
    .insertInto('error_tracking_errors')
    .values({
      project_id: project.id,
      name,
      description: '<b>boom</b>',
      actor: 'run(app)',
      first_seen_at: at,
      last_seen_at: at,
      status,
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

describe('error tracking pages', () => {
  test('visitors sign in; no access or a Guest get the 404 page; Reporters see the list at any depth, escaped', async () => {
    const project = await deepProject()
    const error = await insertError(project, 'TypeError')
    await insertError(project, 'SkippedError', 2)
    const list = `/${project.full_path}/-/error_tracking`
    const details = `${list}/${error.id}/details`
    for (const path of [list, details]) {
      const anonymous = await visit('GET', path)
      expect(anonymous.status).toBe(302)
      expect(new URL(anonymous.location ?? '', server.url).pathname).toBe('/users/sign_in')
      expect((await visit('GET', path, await session(project, null))).status).toBe(404)
      expect((await visit('GET', path, await session(project, AccessLevel.GUEST))).status).toBe(404)
    }
    const reporter = await session(project, AccessLevel.REPORTER)
    const page = await visit('GET', list, reporter)
    expect(page.status).toBe(200)
    expect(page.text).toContain(`<a href="${details}">TypeError &lt;b&gt;boom&lt;/b&gt;</a>`)
    expect(page.text).not.toContain('SkippedError')
    expect((await visit('GET', `${list}?status=ignored`, reporter)).text).toContain('SkippedError')
    expect((await visit('GET', `${list}/999999999/details`, reporter)).status).toBe(404)
    expect((await visit('GET', `${list}/abc/details`, reporter)).status).toBe(404)
    // Reporters read; changing the status is for Developers.
    expect((await visit('GET', details, reporter)).text).not.toContain('error-status-form')
    expect((await visit('POST', details, reporter, [['status', 'resolved']])).status).toBe(404)
  })

  test('a Developer resolves an error from its page', async () => {
    const project = await deepProject()
    const error = await insertError(project, 'KeyError')
    const details = `/${project.full_path}/-/error_tracking/${error.id}/details`
    const developer = await session(project, AccessLevel.DEVELOPER)
    const done = await visit('POST', details, developer, [['status', 'resolved']])
    expect(done.status).toBe(302)
    expect(done.location).toBe(details)
    const row = await db.selectFrom('error_tracking_errors').select('status').where('id', '=', error.id).executeTakeFirstOrThrow()
    expect(row.status).toBe(1)
    expect((await visit('GET', details, developer)).text).toContain('<dd class="error-status">Resolved</dd>')
  })
})
