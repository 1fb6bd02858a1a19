import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { IssueRow, MergeRequestRow, NoteRow, ProjectRow } from '../../db/schema.js'
import { createTestIssue, createTestMergeRequest } from '../../testing/factories.js'
import { client, type RequestOptions } from '../../testing/http.js'
import { createProjectTeam, type Person } from '../../testing/roles.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { expectedBasic } from '../users/testing.js'
import { createSystemNote } from './index.js'
import { eventsOfProject } from '../events/testing.js'
import { noteRowOf, notesOfIssue } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>
let url: string
const start = new Date('2026-11-20T10:00:00.000Z')

beforeAll(async () => {
  server = await startTestServer()
  server.freeze(start)
  request = client(server.url)
  url = server.url
})
afterAll(() => server.close())
// Every test starts at the same moment; tests that need time to pass move the clock themselves.
beforeEach(() => server.freeze(start))

function call(method: string, path: string, person: Person | undefined, body?: RequestOptions['body'], headers?: Record<string, string>) {
  return request(method, `/api/v4${path}`, { token: person?.token, body, headers })
}

/** A project in a group with one person per role, an outsider, and an issue and a merge request by the developer. */
async function team(visibility: 'public' | 'private' = 'public') {
  const db = server.database.db
  const roles = ['owner', 'maintainer', 'developer', 'reporter', 'planner', 'guest'] as const
  const team = await createProjectTeam(db, { roles, visibility })
  const issue = await createTestIssue(db, { project: team.project, author: team.developer.user })
  const mergeRequest = await createTestMergeRequest(db, { project: team.project, author: team.developer.user })
  return { ...team, issue, mergeRequest }
}

/** A note as GitLab's Note entity shows it, computed independently of the presenter. */
function expectedNote(
  note: Pick<NoteRow, 'id' | 'body' | 'created_at' | 'updated_at' | 'system' | 'internal'>,
  author: User,
  project: ProjectRow,
  noteable: IssueRow | MergeRequestRow,
  type: 'Issue' | 'MergeRequest' = 'Issue',
) {
  return {
    id: note.id,
    type: null,
    body: note.body,
    attachment: null,
    author: expectedBasic(author, url),
    created_at: note.created_at,
    updated_at: note.updated_at,
    system: note.system === 1,
    noteable_id: noteable.id,
    noteable_type: type,
    project_id: project.id,
    resolvable: false,
    confidential: note.internal === 1,
    internal: note.internal === 1,
    imported: false,
    imported_from: 'none',
    noteable_iid: noteable.iid,
    commands_changes: {},
  }
}

const NOTE_KEYS = Object.keys(
  expectedNote(
    { id: 0, body: '', created_at: '', updated_at: '', system: 0, internal: 0 },
    { email: '' } as User,
    {} as ProjectRow,
    {} as IssueRow,
  ),
)

describe('POST /projects/:id/issues/:issue_iid/notes', () => {
  test('a member comments: 201 with the Note entity in GitLab field order, a commented event in the same write', async () => {
    const { project, issue, guest } = await team()
    const res = await call('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, guest, { body: 'Looks good' })
    expect(res.status).toBe(201)
    expect(res.headers['content-type']).toBe('application/json')
    const row = (await noteRowOf(server.database.db, res.body.id))!
    expect(row).toMatchObject({ issue_id: issue.id, merge_request_id: null, author_id: guest.user.id, system: 0, internal: 0 })
    expect(row.created_at).toBe(start.toISOString())
    expect(res.body).toEqual(expectedNote(row, guest.user, project, issue))
    expect(Object.keys(res.body)).toEqual(NOTE_KEYS)
    expect(await eventsOfProject(server.database.db, project.id)).toEqual([
      {
        project_id: project.id,
        author_id: guest.user.id,
        action: 6,
        target_type: 'Note',
        target_id: row.id,
        created_at: start.toISOString(),
      },
    ])
  })

  test('a signed-in non-member may comment on a public project; an anonymous caller gets 401', async () => {
    const { project, issue, outsider } = await team()
    expect((await call('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, outsider, { body: 'hi' })).status).toBe(201)
    const anonymous = await call('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, undefined, { body: 'hi' })
    expect(anonymous.status).toBe(401)
    expect(anonymous.body).toEqual({ message: '401 Unauthorized' })
  })

  test('a missing body is the contract 400; a blank one is the model error; nothing is written', async () => {
    const { project, issue, developer } = await team()
    const missing = await call('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, developer, {})
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({ message: '400 (Bad request) "body" not given' })
    const blank = await call('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, developer, { body: '  ' })
    expect(blank.status).toBe(400)
    expect(blank.body).toEqual({ message: '400 Bad request - Note {:note=>["can\'t be blank"]}' })
    expect(await notesOfIssue(server.database.db, issue.id)).toEqual([])
    expect(await eventsOfProject(server.database.db, project.id)).toEqual([])
  })

  test('an unknown or hidden issue is 404 "Not found"; a hidden project is 404 Project Not Found', async () => {
    const { project, issue, developer, outsider, maintainer } = await team()
    const unknown = await call('POST', `/projects/${project.id}/issues/999/notes`, developer, { body: 'x' })
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ message: '404 Not found' })
    const secret = await createTestIssue(server.database.db, { project, author: maintainer.user, confidential: true })
    const hidden = await call('POST', `/projects/${project.id}/issues/${secret.iid}/notes`, outsider, { body: 'x' })
    expect(hidden.status).toBe(404)
    expect(hidden.body).toEqual({ message: '404 Not found' })
    const bad = await call('GET', `/projects/${project.id}/issues/abc/notes`, developer)
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'noteable_id is invalid' })
    const priv = await team('private')
    const res = await call('POST', `/projects/${priv.project.id}/issues/${issue.iid}/notes`, outsider, { body: 'x' })
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ message: '404 Project Not Found' })
  })

  test('a locked discussion refuses non-members with 403 and lets members comment', async () => {
    const { project, developer, guest, outsider } = await team()
    const db = server.database.db
    const issue = await createTestIssue(db, { project, author: developer.user })
    await db.updateTable('issues').set({ discussion_locked: 1 }).where('id', '=', issue.id).execute()
    const refused = await call('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, outsider, { body: 'x' })
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ message: '403 Forbidden' })
    expect((await call('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, guest, { body: 'x' })).status).toBe(201)
  })

  test('internal (or the deprecated confidential) is kept for Reporters and up and dropped for Guests', async () => {
    const { project, issue, reporter, guest } = await team()
    const internal = await call('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, reporter, { body: 'secret', internal: true })
    expect(internal.status).toBe(201)
    expect(internal.body).toMatchObject({ internal: true, confidential: true })
    const legacy = await call('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, reporter, { body: 's', confidential: 'true' })
    expect(legacy.body).toMatchObject({ internal: true, confidential: true })
    const dropped = await call('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, guest, { body: 'g', internal: true })
    expect(dropped.status).toBe(201)
    expect(dropped.body).toMatchObject({ internal: false, confidential: false })
  })

  test('created_at is honoured for Owners and administrators and ignored for others', async () => {
    const { project, issue, owner, developer } = await team()
    const past = '2020-01-02T03:04:05.000Z'
    const byOwner = await call('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, owner, { body: 'old', created_at: past })
    expect(byOwner.body).toMatchObject({ created_at: past, updated_at: past })
    const root = { user: {} as User, token: server.rootToken }
    const byAdmin = await call('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, root, { body: 'old', created_at: past })
    expect(byAdmin.body).toMatchObject({ created_at: past })
    const byDeveloper = await call('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, developer, { body: 'x', created_at: past })
    expect(byDeveloper.body).toMatchObject({ created_at: start.toISOString(), updated_at: start.toISOString() })
  })
})

describe('GET /projects/:id/issues/:issue_iid/notes', () => {
  async function threeNotes() {
    const t = await team()
    const ids: number[] = []
    for (const body of ['first', 'second', 'third']) {
      server.travel(1000)
      ids.push((await call('POST', `/projects/${t.project.id}/issues/${t.issue.iid}/notes`, t.developer, { body })).body.id)
    }
    return { ...t, ids }
  }

  test('newest first by default, paginated with GitLab headers; asc and updated_at on request', async () => {
    const { project, issue, developer, ids } = await threeNotes()
    const path = `/projects/${project.id}/issues/${issue.iid}/notes`
    const res = await call('GET', `${path}?per_page=2`, developer)
    expect(res.status).toBe(200)
    expect(res.body.map((n: { id: number }) => n.id)).toEqual([ids[2], ids[1]])
    expect(res.headers).toMatchObject({ 'x-total': '3', 'x-total-pages': '2', 'x-page': '1', 'x-per-page': '2', 'x-next-page': '2' })
    const rows = await notesOfIssue(server.database.db, issue.id)
    expect(res.body[0]).toEqual(expectedNote(rows[2], developer.user, project, issue))
    const asc = await call('GET', `${path}?sort=asc`, developer)
    expect(asc.body.map((n: { id: number }) => n.id)).toEqual(ids)
    server.travel(1000)
    await call('PUT', `${path}/${ids[0]}`, developer, { body: 'first, edited' })
    const byUpdate = await call('GET', `${path}?order_by=updated_at`, developer)
    expect(byUpdate.body.map((n: { id: number }) => n.id)).toEqual([ids[0], ids[2], ids[1]])
    const wrong = await call('GET', `${path}?order_by=title`, developer)
    expect(wrong.status).toBe(400)
    expect(wrong.body).toEqual({ error: 'order_by does not have a valid value' })
  })

  test('system notes by others are listed; activity_filter picks comments or activity', async () => {
    const { project, issue, developer, maintainer, ids } = await threeNotes()
    const db = server.database.db
    const system = await createSystemNote(
      db,
      { type: 'Issue', id: issue.id, projectId: project.id },
      maintainer.user.id,
      'closed',
      new Date(start.getTime() + 60_000),
    )
    const path = `/projects/${project.id}/issues/${issue.iid}/notes`
    const all = await call('GET', `${path}?sort=asc`, developer)
    expect(all.body.map((n: { id: number }) => n.id)).toEqual([...ids, system.id])
    expect(all.body[3]).toEqual(expectedNote(system, maintainer.user, project, issue))
    expect(all.body[3].system).toBe(true)
    const comments = await call('GET', `${path}?sort=asc&activity_filter=only_comments`, developer)
    expect(comments.body.map((n: { id: number }) => n.id)).toEqual(ids)
    const activity = await call('GET', `${path}?activity_filter=only_activity`, developer)
    expect(activity.body.map((n: { id: number }) => n.id)).toEqual([system.id])
    // No event for a system note.
    expect((await eventsOfProject(db, project.id)).map((e) => e.target_id)).toEqual(ids)
  })

  test('internal notes are shown to Reporters and up only; a Guest gets 404 Note Not Found for one', async () => {
    const { project, issue, reporter, guest, planner } = await team()
    const path = `/projects/${project.id}/issues/${issue.iid}/notes`
    const open = (await call('POST', path, guest, { body: 'open' })).body
    const secret = (await call('POST', path, reporter, { body: 'secret', internal: true })).body
    expect((await call('GET', path, reporter)).body.map((n: { id: number }) => n.id)).toEqual([secret.id, open.id])
    for (const viewer of [guest, planner]) {
      const list = await call('GET', path, viewer)
      expect(list.body.map((n: { id: number }) => n.id)).toEqual([open.id])
      const one = await call('GET', `${path}/${secret.id}`, viewer)
      expect(one.status).toBe(404)
      expect(one.body).toEqual({ message: '404 Note Not Found' })
    }
    const shown = await call('GET', `${path}/${secret.id}`, reporter)
    expect(shown.status).toBe(200)
    expect(shown.body).toMatchObject({ id: secret.id, internal: true })
    const missing = await call('GET', `${path}/999999`, reporter)
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ message: '404 Not found' })
  })
})

describe('PUT and DELETE /projects/:id/issues/:issue_iid/notes/:note_id', () => {
  test('the author edits the body; updated_at moves; others below Maintainer get 403; a Maintainer may edit', async () => {
    const { project, issue, developer, reporter, maintainer } = await team()
    const path = `/projects/${project.id}/issues/${issue.iid}/notes`
    const note = (await call('POST', path, developer, { body: 'before' })).body
    server.travel(5000)
    const edited = await call('PUT', `${path}/${note.id}`, developer, { body: 'after' })
    expect(edited.status).toBe(200)
    const row = (await noteRowOf(server.database.db, note.id))!
    expect(row).toMatchObject({ body: 'after', updated_by_id: developer.user.id })
    expect(row.updated_at).not.toBe(row.created_at)
    expect(edited.body).toEqual(expectedNote(row, developer.user, project, issue))
    const refused = await call('PUT', `${path}/${note.id}`, reporter, { body: 'hijack' })
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ message: '403 Forbidden' })
    expect((await call('PUT', `${path}/${note.id}`, maintainer, { body: 'moderated' })).body.body).toBe('moderated')
  })

  test("a blank body is Grape's 400; internal-ness cannot change; an unknown note is 404; a system note cannot be edited", async () => {
    const { project, issue, developer, maintainer } = await team()
    const path = `/projects/${project.id}/issues/${issue.iid}/notes`
    const note = (await call('POST', path, developer, { body: 'text' })).body
    const blank = await call('PUT', `${path}/${note.id}`, developer, { body: '' })
    expect(blank.status).toBe(400)
    expect(blank.body).toEqual({ error: 'body is empty' })
    const flip = await call('PUT', `${path}/${note.id}`, developer, { confidential: true })
    expect(flip.status).toBe(400)
    expect(flip.body).toEqual({ message: '400 Bad request - Note {:confidential=>["can not be changed for existing notes"]}' })
    const same = await call('PUT', `${path}/${note.id}`, developer, { confidential: false })
    expect(same.status).toBe(200)
    expect((await noteRowOf(server.database.db, note.id))!.body).toBe('text')
    const unknown = await call('PUT', `${path}/999999`, developer, { body: 'x' })
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ message: '404 Not found' })
    const system = await createSystemNote(
      server.database.db,
      { type: 'Issue', id: issue.id, projectId: project.id },
      maintainer.user.id,
      'closed',
      start,
    )
    for (const method of ['PUT', 'DELETE']) {
      const res = await call(method, `${path}/${system.id}`, maintainer, { body: 'x' })
      expect(res.status).toBe(403)
    }
  })

  test('the author or a Maintainer deletes (204); others get 403; an old If-Unmodified-Since is 412', async () => {
    const { project, issue, developer, reporter, maintainer } = await team()
    const path = `/projects/${project.id}/issues/${issue.iid}/notes`
    const mine = (await call('POST', path, developer, { body: 'one' })).body
    const other = (await call('POST', path, developer, { body: 'two' })).body
    const refused = await call('DELETE', `${path}/${mine.id}`, reporter)
    expect(refused.status).toBe(403)
    const stale = await call('DELETE', `${path}/${mine.id}`, developer, undefined, {
      'if-unmodified-since': 'Thu, 01 Jan 2015 00:00:00 GMT',
    })
    expect(stale.status).toBe(412)
    expect(stale.body).toEqual({ message: '412 Precondition Failed' })
    const removed = await call('DELETE', `${path}/${mine.id}`, developer)
    expect(removed.status).toBe(204)
    expect(removed.text).toBe('')
    expect(await noteRowOf(server.database.db, mine.id)).toBeUndefined()
    expect((await call('DELETE', `${path}/${mine.id}`, developer)).status).toBe(404)
    expect((await call('DELETE', `${path}/${other.id}`, maintainer)).status).toBe(204)
  })
})

describe('notes on merge requests', () => {
  test('the same endpoints under merge_requests, with noteable_type MergeRequest', async () => {
    const { project, mergeRequest, reporter } = await team()
    const path = `/projects/${project.id}/merge_requests/${mergeRequest.iid}/notes`
    const created = await call('POST', path, reporter, { body: 'LGTM' })
    expect(created.status).toBe(201)
    const row = (await noteRowOf(server.database.db, created.body.id))!
    expect(row).toMatchObject({ merge_request_id: mergeRequest.id, issue_id: null })
    expect(created.body).toEqual(expectedNote(row, reporter.user, project, mergeRequest, 'MergeRequest'))
    expect((await call('GET', path, reporter)).body).toEqual([created.body])
    expect((await call('GET', `${path}/${row.id}`, reporter)).body).toEqual(created.body)
    expect((await call('PUT', `${path}/${row.id}`, reporter, { body: 'LGTM!' })).body.body).toBe('LGTM!')
    expect((await call('DELETE', `${path}/${row.id}`, reporter)).status).toBe(204)
    const missing = await call('GET', `/projects/${project.id}/merge_requests/999/notes`, reporter)
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ message: '404 Not found' })
  })
})
