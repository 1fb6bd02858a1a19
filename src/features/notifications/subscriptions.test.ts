import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import {
  addTestMember,
  createTestGroup,
  createTestIssue,
  createTestMergeRequest,
  createTestProject,
  createTestToken,
  createTestUser,
} from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { startSmtpSink, type SmtpSink } from '../mail/testing.js'
import { deliveredMails, tellIssue } from './testing.js'

// Subscribing to an issue or a merge request through the API (GL API::Subscriptions): 201 with the issue or merge
// request when it changes, 304 when it already was so; a subscriber hears of the issue as GitLab's rules say.

let sink: SmtpSink
let server: TestServer
let request: ReturnType<typeof client>

beforeAll(async () => {
  sink = await startSmtpSink()
  server = await startTestServer({ SVC_SMTP_URL: sink.url })
  request = client(`${server.url}/api/v4`)
})
afterAll(async () => {
  await server?.close()
  await sink?.close()
})

const db = () => server.database.db

async function tokenOf(user: User): Promise<string> {
  return (await createTestToken(db(), user)).value
}

async function project() {
  const group = await createTestGroup(db(), { visibility: 'private' })
  const made = await createTestProject(db(), { namespace: group, visibility: 'private' })
  const author = await createTestUser(db())
  const watcher = await createTestUser(db())
  await addTestMember(db(), { user: author, project: made, accessLevel: 30 })
  await addTestMember(db(), { user: watcher, project: made, accessLevel: 30 })
  return { project: made, author, watcher }
}

describe('POST …/issues/:issue_iid/subscribe and /unsubscribe', () => {
  test('subscribe a member who does not take part, who then hears of the issue; 304 when nothing changes', async () => {
    const { project: made, author, watcher } = await project()
    const issue = await createTestIssue(db(), { project: made, author, title: 'Leak' })
    const token = await tokenOf(watcher)
    const path = `/projects/${made.id}/issues/${issue.iid}`
    expect((await request('GET', path, { token })).body.subscribed).toBe(false)

    const subscribed = await request('POST', `${path}/subscribe`, { token })
    expect(subscribed.status).toBe(201)
    expect(subscribed.body).toMatchObject({ iid: issue.iid, title: 'Leak', subscribed: true })
    const again = await request('POST', `${path}/subscribe`, { token })
    expect([again.status, again.text]).toEqual([304, ''])
    expect((await request('GET', path, { token })).body.subscribed).toBe(true)
    await tellIssue(server, author, issue, 'close')
    expect((await deliveredMails(server, sink)).map((mail) => mail.to)).toEqual([watcher.email])

    const unsubscribed = await request('POST', `${path}/unsubscribe`, { token })
    expect([unsubscribed.status, unsubscribed.body.subscribed]).toEqual([201, false])
    const notThere = await request('POST', `${path}/unsubscribe`, { token })
    expect([notThere.status, notThere.text]).toEqual([304, ''])
    await tellIssue(server, author, issue, 'reopen')
    expect(await deliveredMails(server, sink)).toEqual([])
  })

  test('unsubscribe a participant, who then hears nothing of it; refuse the anonymous and those who cannot read it', async () => {
    const { project: made, author, watcher } = await project()
    const issue = await createTestIssue(db(), { project: made, author: watcher, title: 'Spill', assignees: [author] })
    const token = await tokenOf(author)
    const path = `/projects/${made.id}/issues/${issue.iid}`
    expect((await request('GET', path, { token })).body.subscribed).toBe(true)
    const res = await request('POST', `${path}/unsubscribe`, { token })
    expect([res.status, res.body.subscribed]).toEqual([201, false])
    await tellIssue(server, watcher, issue, 'close')
    expect(await deliveredMails(server, sink)).toEqual([])

    expect((await request('POST', `${path}/subscribe`)).status).toBe(401)
    const outsider = await createTestUser(db())
    const refused = await request('POST', `${path}/subscribe`, { token: await tokenOf(outsider) })
    expect([refused.status, refused.body]).toEqual([404, { message: '404 Project Not Found' }])
  })
})

describe('POST …/merge_requests/:merge_request_iid/subscribe and /unsubscribe', () => {
  test('answer the merge request with subscribed as asked, and 304 when nothing changes', async () => {
    const { project: made, author, watcher } = await project()
    const mergeRequest = await createTestMergeRequest(db(), { project: made, author })
    const token = await tokenOf(watcher)
    const path = `/projects/${made.id}/merge_requests/${mergeRequest.iid}`
    expect((await request('GET', path, { token })).body.subscribed).toBe(false)
    const subscribed = await request('POST', `${path}/subscribe`, { token })
    expect(subscribed.status).toBe(201)
    expect(subscribed.body).toMatchObject({ iid: mergeRequest.iid, subscribed: true })
    expect((await request('POST', `${path}/subscribe`, { token })).status).toBe(304)
    expect((await request('GET', path, { token })).body.subscribed).toBe(true)
    const authorToken = await tokenOf(author)
    expect((await request('GET', path, { token: authorToken })).body.subscribed).toBe(true)
    expect((await request('POST', `${path}/unsubscribe`, { token: authorToken })).body.subscribed).toBe(false)
    expect((await request('GET', path, { token: authorToken })).body.subscribed).toBe(false)
  })
})
