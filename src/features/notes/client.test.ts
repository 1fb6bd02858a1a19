import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  addTestMember,
  createTestIssue,
  createTestMergeRequest,
  createTestProject,
  createTestToken,
  createTestUser,
} from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { noteRowOf } from './testing.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

async function setup() {
  const db = server.database.db
  const owner = await createTestUser(db)
  const project = await createTestProject(db, { owner })
  const developer = await createTestUser(db)
  await addTestMember(db, { user: developer, project, accessLevel: 30 })
  const token = (await createTestToken(db, developer)).value
  const issue = await createTestIssue(db, { project, author: owner })
  const mergeRequest = await createTestMergeRequest(db, { project, author: owner })
  return { project, developer, token, issue, mergeRequest, gitlab: new Gitlab({ host: server.url, token }) }
}

describe('the gitbeaker IssueNotes and MergeRequestNotes APIs', () => {
  test('create, list, show, edit and remove notes on an issue', async () => {
    const { project, developer, issue, gitlab } = await setup()
    const created = await gitlab.IssueNotes.create(project.id, issue.iid, 'From gitbeaker')
    expect(created).toMatchObject({ body: 'From gitbeaker', noteable_type: 'Issue', noteable_iid: issue.iid, author: { id: developer.id } })
    const listed = await gitlab.IssueNotes.all(project.id, issue.iid, { sort: 'asc', orderBy: 'created_at' })
    expect(listed.map((n) => n.id)).toEqual([created.id])
    expect(await gitlab.IssueNotes.show(project.id, issue.iid, created.id)).toMatchObject({ id: created.id })
    const edited = await gitlab.IssueNotes.edit(project.id, issue.iid, created.id, { body: 'Edited by gitbeaker' })
    expect(edited.body).toBe('Edited by gitbeaker')
    await gitlab.IssueNotes.remove(project.id, issue.iid, created.id)
    expect(await noteRowOf(server.database.db, created.id)).toBeUndefined()
  })

  test('create, list, edit and remove notes on a merge request', async () => {
    const { project, mergeRequest, gitlab } = await setup()
    const created = await gitlab.MergeRequestNotes.create(project.id, mergeRequest.iid, 'Review comment')
    expect(created).toMatchObject({ body: 'Review comment', noteable_type: 'MergeRequest', noteable_id: mergeRequest.id })
    expect((await gitlab.MergeRequestNotes.all(project.id, mergeRequest.iid)).map((n) => n.id)).toEqual([created.id])
    const edited = await gitlab.MergeRequestNotes.edit(project.id, mergeRequest.iid, created.id, { body: 'Resolved' })
    expect(edited.body).toBe('Resolved')
    await gitlab.MergeRequestNotes.remove(project.id, mergeRequest.iid, created.id)
    expect(await noteRowOf(server.database.db, created.id)).toBeUndefined()
  })
})

describe('the spam check', () => {
  test('refuses an edit that turns a note into spam, leaving the note as it was', async () => {
    const { project, issue, token } = await setup()
    const request = client(server.url)
    const path = `/api/v4/projects/${project.id}/issues/${issue.iid}/notes`
    const note = (await request('POST', path, { token, body: { body: 'Plain words' } })).body
    const settings = await request('PUT', '/api/v4/application/settings', {
      token: server.rootToken,
      body: { spam_check_patterns: 'cheap pills' },
    })
    expect(settings.status).toBe(200)
    const res = await request('PUT', `${path}/${note.id}`, { token, body: { body: 'now with cheap pills' } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ message: { error: 'Your note has been recognized as spam and has been discarded.' } })
    expect((await noteRowOf(server.database.db, note.id))!.body).toBe('Plain words')
  })
})
