import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestIssue, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestEvent, createTestNote } from './testing.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

describe('the gitbeaker Events API', () => {
  test("lists the caller's, a user's and a project's events, filtered and paged", async () => {
    const db = server.database.db
    const user = await createTestUser(db)
    const token = await createTestToken(db, user, { scopes: ['read_user', 'read_api'] })
    const gitlab = new Gitlab({ host: server.url, token: token.value })
    const project = await createTestProject(db, { owner: user })
    const issue = await createTestIssue(db, { project, author: user, title: 'From the client' })
    const note = await createTestNote(db, { issue, author: user, body: 'Noted' })
    const opened = await createTestEvent(db, { project, author: user, action: 'created', target: { type: 'Issue', id: issue.id } })
    const commented = await createTestEvent(db, { project, author: user, action: 'commented', target: { type: 'Note', id: note.id } })
    const joins = []
    for (let n = 0; n < 3; n++) joins.push(await createTestEvent(db, { project, author: user, action: 'joined' }))

    const mine = await gitlab.Events.all()
    expect(mine.map((e) => e.id)).toEqual([...joins.map((e) => e.id)].reverse().concat([commented.id, opened.id]))
    expect(mine[4]).toMatchObject({
      action_name: 'opened',
      target_type: 'Issue',
      target_title: 'From the client',
      author_username: user.username,
    })

    const notes = await gitlab.Events.all({ projectId: project.id, action: 'commented' })
    expect(notes).toHaveLength(1)
    expect(notes[0]).toMatchObject({ action_name: 'commented on', data: null, note: { body: 'Noted', noteable_iid: issue.iid } })

    const issues = await gitlab.Users.allEvents(user.id, { targetType: 'issue', sort: 'asc' })
    expect(issues.map((e) => e.id)).toEqual([opened.id])
    const byPath = await gitlab.Events.all({ projectId: project.full_path, sort: 'asc' })
    expect(byPath.map((e) => e.id)).toEqual([opened.id, commented.id, ...joins.map((e) => e.id)])

    // gitbeaker follows the Link header through every page.
    const paged = await gitlab.Events.all({ projectId: project.id, perPage: 2, showExpanded: true })
    expect(paged.data.map((e) => e.id)).toHaveLength(5)
    expect(paged.paginationInfo).toMatchObject({ total: 5, totalPages: 3, perPage: 2 })
    const one = await gitlab.Events.all({ projectId: project.id, perPage: 2, page: 2, maxPages: 1 })
    expect(one.map((e) => e.id)).toEqual([joins[0].id, commented.id])

    await expect(gitlab.Users.allEvents(999999999)).rejects.toMatchObject({ cause: { description: '404 User Not Found' } })
  })
})
