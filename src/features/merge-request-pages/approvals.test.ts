import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Db } from '../../db/index.js'
import { createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { systemNotesOf } from '../issuables/testing.js'

// The overview's approvals: "Approved by", Approve and Revoke approval for those who may (GL Free's approvals widget).

let server: TestServer
let db: Db
let api: ReturnType<typeof client>
let web: ReturnType<typeof client>
let owner: Person
let developer: Person
let developerSession: TestSession
let ownerSession: TestSession
let reporterSession: TestSession
let strangerSession: TestSession
let project: Record<string, any>
let sequence = 0

async function visit(path: string, session?: TestSession) {
  const res = await web('GET', path, { headers: session ? { cookie: session.cookie, accept: 'text/html' } : { accept: 'text/html' } })
  return { status: res.status, text: res.text }
}

async function submit(session: TestSession, path: string, token: string | null = session.csrfToken) {
  const res = await web('POST', path, {
    body: new URLSearchParams(token === null ? [] : [['authenticity_token', token]]).toString(),
    headers: { cookie: session.cookie, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
  })
  return { status: res.status, location: res.headers.location ?? null }
}

async function openMergeRequest() {
  sequence += 1
  const name = `topic-${sequence}`
  const branch = await api('POST', `/projects/${project.id}/repository/branches`, {
    token: owner.token,
    body: { branch: name, ref: 'main' },
  })
  expect(branch.status, branch.text).toBe(201)
  const created = await api('POST', `/projects/${project.id}/merge_requests`, {
    token: owner.token,
    body: { source_branch: name, target_branch: 'main', title: `Change ${sequence}` },
  })
  expect(created.status, created.text).toBe(201)
  return { ...created.body, page: `/${project.path_with_namespace}/-/merge_requests/${created.body.iid}` }
}

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  api = client(`${server.url}/api/v4`)
  web = client(server.url)
  owner = await createPerson(db, 'approvalowner')
  developer = await createPerson(db, 'approvaldev')
  const reporter = await createPerson(db, 'approvalreporter')
  project = await createRepositoryProject(api, owner, { name: 'Approved', path: 'approved', visibility: 'public' })
  await addProjectMember(db, developer, project.id, 30)
  await addProjectMember(db, reporter, project.id, 20)
  ownerSession = await createTestSession(server, owner.user)
  developerSession = await createTestSession(server, developer.user)
  reporterSession = await createTestSession(server, reporter.user)
  strangerSession = await createTestSession(server, await createTestUser(db))
})
afterAll(async () => {
  await server.close()
})

describe('approvals on the overview', () => {
  test('the Approve button shows only for those who may approve', async () => {
    const mr = await openMergeRequest()
    const seen = await visit(mr.page, developerSession)
    expect(seen.status).toBe(200)
    expect(seen.text).toContain(`action="${mr.page}/approve"`)
    expect(seen.text).toContain('Approval is optional')
    for (const session of [reporterSession, strangerSession, undefined]) {
      const page = await visit(mr.page, session)
      expect(page.status).toBe(200)
      expect(page.text).not.toContain(`${mr.page}/approve"`)
    }
  })

  test('approving shows "Approved by" and Revoke approval; revoking takes it back', async () => {
    const mr = await openMergeRequest()
    const approved = await submit(developerSession, `${mr.page}/approve`)
    expect([approved.status, approved.location]).toEqual([302, mr.page])
    await submit(ownerSession, `${mr.page}/approve`)
    const page = await visit(mr.page, developerSession)
    expect(page.text).toContain(`Approved by @${developer.user.username}, @${owner.user.username}`)
    expect(page.text).toContain(`action="${mr.page}/unapprove"`)
    expect(page.text).toContain('Revoke approval')
    expect(page.text).not.toContain(`action="${mr.page}/approve"`)
    // A second approval changes nothing.
    expect((await submit(developerSession, `${mr.page}/approve`)).status).toBe(302)

    const revoked = await submit(developerSession, `${mr.page}/unapprove`)
    expect([revoked.status, revoked.location]).toEqual([302, mr.page])
    expect((await visit(mr.page, developerSession)).text).toContain(`Approved by @${owner.user.username}<`)
    expect(await systemNotesOf(db, { mergeRequestId: mr.id })).toEqual([
      'approved this merge request',
      'approved this merge request',
      'unapproved this merge request',
    ])
  })

  test('those who may not approve get the 404 page; a form without its CSRF token is refused with 422', async () => {
    const mr = await openMergeRequest()
    expect((await submit(reporterSession, `${mr.page}/approve`)).status).toBe(404)
    expect((await submit(strangerSession, `${mr.page}/unapprove`)).status).toBe(404)
    expect((await submit(developerSession, `${mr.page}/approve`, null)).status).toBe(422)
    expect((await submit(developerSession, `${mr.page}/approve`, 'forged')).status).toBe(422)
    expect(await systemNotesOf(db, { mergeRequestId: mr.id })).toEqual([])
  })
})
