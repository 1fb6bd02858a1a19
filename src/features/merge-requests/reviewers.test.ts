import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { systemNotesOf } from '../issuables/testing.js'
import { expectedBasic } from '../users/testing.js'

// Reviewers (GL merge_request_reviewers): reviewer_ids on create and update, the reviewers list, the list filters.

let free: TestServer
let premium: TestServer

beforeAll(async () => {
  free = await startTestServer()
  premium = await startTestServer({ SVC_TIER: 'premium' })
})
afterAll(async () => {
  await free.close()
  await premium.close()
})

async function userWithToken(server: TestServer): Promise<{ user: User; token: string }> {
  const user = await createTestUser(server.database.db)
  return { user, token: (await createTestToken(server.database.db, user)).value }
}

async function fixture(server: TestServer, visibility: 'public' | 'private' = 'private') {
  const db = server.database.db
  const group = await createTestGroup(db, { visibility })
  const project = await createTestProject(db, { namespace: group, visibility })
  const developer = await userWithToken(server)
  const reviewer = await userWithToken(server)
  const second = await userWithToken(server)
  const guest = await userWithToken(server)
  const outsider = await userWithToken(server)
  for (const [member, level] of [
    [developer, 30],
    [reviewer, 30],
    [second, 20],
    [guest, 10],
  ] as const) {
    await addTestMember(db, { user: member.user, project, accessLevel: level })
  }
  const request = client(`${server.url}/api/v4`)
  return { db, project, developer, reviewer, second, guest, outsider, request }
}

describe('reviewer_ids', () => {
  test('asks for a review on create; the list, the filters and GET …/reviewers show it', async () => {
    const { project, developer, reviewer, outsider, request } = await fixture(free)
    const created = await request('POST', `/projects/${project.id}/merge_requests`, {
      token: developer.token,
      // The outsider cannot read the private project's merge requests, so is dropped as GitLab drops them.
      body: { source_branch: 'topic', target_branch: 'main', title: 'Review me', reviewer_ids: [outsider.user.id, reviewer.user.id] },
    })
    expect(created.status).toBe(201)
    expect(created.body.reviewers).toEqual([expectedBasic(reviewer.user, free.url)])
    const iid = created.body.iid

    const listed = await request('GET', `/projects/${project.id}/merge_requests/${iid}/reviewers`, { token: developer.token })
    expect(listed.status).toBe(200)
    expect(listed.headers['x-total']).toBe('1')
    expect(listed.body).toEqual([
      { user: expectedBasic(reviewer.user, free.url), state: 'unreviewed', created_at: created.body.created_at },
    ])
    const hidden = await request('GET', `/projects/${project.id}/merge_requests/${iid}/reviewers`, { token: outsider.token })
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Project Not Found' }])

    const list = (query: string) => request('GET', `/projects/${project.id}/merge_requests?${query}`, { token: developer.token })
    const iids = async (query: string) => ((await list(query)).body as { iid: number }[]).map((mr) => mr.iid)
    const other = await request('POST', `/projects/${project.id}/merge_requests`, {
      token: developer.token,
      body: { source_branch: 'other', target_branch: 'main', title: 'No reviewer' },
    })
    expect(await iids(`reviewer_id=${reviewer.user.id}`)).toEqual([iid])
    expect(await iids(`reviewer_username=${reviewer.user.username.toUpperCase()}`)).toEqual([iid])
    expect(await iids('reviewer_id=Any')).toEqual([iid])
    expect(await iids('reviewer_id=None')).toEqual([other.body.iid])
    expect(await iids(`reviewer_id=${developer.user.id}`)).toEqual([])
    const both = await list(`reviewer_id=${reviewer.user.id}&reviewer_username=${reviewer.user.username}`)
    expect([both.status, both.body]).toEqual([400, { error: 'reviewer_id, reviewer_username are mutually exclusive' }])
    const bad = await list('reviewer_id=someone')
    expect([bad.status, bad.body]).toEqual([400, { error: 'reviewer_id does not have a valid value' }])
    // The dashboard's question: open merge requests anywhere that wait for my review.
    const mine = await request('GET', `/merge_requests?scope=all&state=opened&reviewer_id=${reviewer.user.id}`, { token: reviewer.token })
    expect((mine.body as { iid: number }[]).map((mr) => mr.iid)).toEqual([iid])
  })

  test('update replaces reviewers with a system note, keeps the free tier to one, and refuses those who may not edit', async () => {
    const { db, project, developer, reviewer, second, guest, request } = await fixture(free)
    const created = await request('POST', `/projects/${project.id}/merge_requests`, {
      token: developer.token,
      body: { source_branch: 'topic', target_branch: 'main', title: 'Review me' },
    })
    const path = `/projects/${project.id}/merge_requests/${created.body.iid}`
    const asked = await request('PUT', path, { token: developer.token, body: { reviewer_ids: [second.user.id, reviewer.user.id] } })
    expect(asked.status).toBe(200)
    expect(asked.body.reviewers).toEqual([expectedBasic(second.user, free.url)])
    const swapped = await request('PUT', path, { token: developer.token, body: { reviewer_ids: `${reviewer.user.id}` } })
    expect(swapped.body.reviewers).toEqual([expectedBasic(reviewer.user, free.url)])
    // A Guest of a private project cannot read its merge requests, and a Reporter may not edit others'.
    const byGuest = await request('PUT', path, { token: guest.token, body: { reviewer_ids: [guest.user.id] } })
    expect([byGuest.status, byGuest.body]).toEqual([404, { message: '404 Not found' }])
    const byReporter = await request('PUT', path, { token: second.token, body: { reviewer_ids: [second.user.id] } })
    expect([byReporter.status, byReporter.body]).toEqual([403, { message: '403 Forbidden' }])
    const cleared = await request('PUT', path, { token: developer.token, body: { reviewer_ids: [0] } })
    expect(cleared.body.reviewers).toEqual([])
    const unchanged = await request('PUT', path, { token: developer.token, body: { reviewer_ids: [] } })
    expect(unchanged.body.updated_at).toBe(cleared.body.updated_at)
    const mergeRequestId = created.body.id as number
    expect(await systemNotesOf(db, { mergeRequestId })).toEqual([
      `requested review from @${second.user.username}`,
      `requested review from @${reviewer.user.username} and removed review request for @${second.user.username}`,
      `removed review request for @${reviewer.user.username}`,
    ])
  })

  test('premium keeps several reviewers', async () => {
    const { project, developer, reviewer, second, request } = await fixture(premium)
    const created = await request('POST', `/projects/${project.id}/merge_requests`, {
      token: developer.token,
      body: { source_branch: 'topic', target_branch: 'main', title: 'Review me', reviewer_ids: [second.user.id, reviewer.user.id] },
    })
    expect(created.body.reviewers).toEqual([expectedBasic(reviewer.user, premium.url), expectedBasic(second.user, premium.url)])
  })
})
