import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { IssueRow, ProjectRow } from '../../db/schema.js'
import {
  addTestMember,
  createTestGroup,
  createTestIssue,
  createTestProject,
  createTestToken,
  createTestUser,
} from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession } from '../../testing/sessions.js'
import { startSmtpSink, type SmtpSink } from '../mail/testing.js'
import { deliveredMails, tellIssue } from '../notifications/testing.js'

let sink: SmtpSink
let server: TestServer
let request: ReturnType<typeof client>

beforeAll(async () => {
  sink = await startSmtpSink()
  server = await startTestServer({ SVC_SMTP_URL: sink.url })
  request = client(server.url)
})
afterAll(async () => {
  await server?.close()
  await sink?.close()
})

const db = () => server.database.db

/** A project with an issue whose assignee got the e-mail of its creation: the path of its unsubscribe link. */
async function mailedIssue(visibility: 'public' | 'private' = 'public') {
  const group = await createTestGroup(db(), { visibility })
  const project = await createTestProject(db(), { namespace: group, visibility, name: 'Rocket' })
  const author = await createTestUser(db())
  const assignee = await createTestUser(db())
  await addTestMember(db(), { user: author, project, accessLevel: 30 })
  await addTestMember(db(), { user: assignee, project, accessLevel: 30 })
  const issue = await createTestIssue(db(), { project, author, title: 'Fuel <leak>', assignees: [assignee] })
  await tellIssue(server, author, issue, 'open')
  const [mail] = await deliveredMails(server, sink)
  const forced = /^<(.*)>$/.exec(mail.headers['List-Unsubscribe'])![1]
  const link = new URL(forced)
  return { project, issue, author, assignee, path: link.pathname, forcedPath: `${link.pathname}${link.search}` }
}

/** Who hears of the issue's closing by its author now. */
async function closingRecipients(project: ProjectRow, issue: IssueRow, author: User) {
  await tellIssue(server, author, issue, 'close')
  return (await deliveredMails(server, sink)).map((mail) => mail.to)
}

describe('the unsubscribe link of a notification e-mail', () => {
  test('asks a signed-out visitor to confirm, naming the issue as far as they may see it', async () => {
    const { issue, path, project, author, assignee } = await mailedIssue()
    const page = await request('GET', path)
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(page.text).toContain('<h1>Unsubscribe from issue</h1>')
    const url = `${server.url}/${project.full_path}/-/issues/${issue.iid}`
    expect(page.text).toContain(
      `<p>Are you sure you want to unsubscribe from the issue: <a href="${url}">Fuel &lt;leak&gt; (#${issue.iid})</a>?</p>`,
    )
    expect(page.text).toContain(`<a class="button primary" href="${path}?force=true">Unsubscribe</a>`)
    expect(page.text).toContain('<a class="button" href="/users/sign_in">Cancel</a>')
    // Asking changes nothing.
    expect(await closingRecipients(project, issue, author)).toEqual([assignee.email])

    const hidden = await mailedIssue('private')
    const privatePage = await request('GET', hidden.path)
    expect(privatePage.text).toContain(`<p>Are you sure you want to unsubscribe from the issue: <strong>#${hidden.issue.iid}</strong>?</p>`)
    expect(privatePage.text).not.toContain('Fuel')
  })

  test('with force=true unsubscribes the recipient and sends a signed-out visitor to sign in with the notice', async () => {
    const { issue, forcedPath, project, author, assignee } = await mailedIssue()
    // The assignee takes part, so the API calls them subscribed until they unsubscribe (GL Subscribable#subscribed?).
    const { value: token } = await createTestToken(db(), assignee)
    const subscribed = async () =>
      (await request('GET', `/api/v4/projects/${project.id}/issues/${issue.iid}`, { token })).body.subscribed as boolean
    expect(await subscribed()).toBe(true)
    const visitor = await createTestSession(server, null)
    const answer = await request('GET', forcedPath, { headers: { cookie: visitor.cookie } })
    expect(answer.status).toBe(302)
    expect(answer.headers.location).toBe('/users/sign_in')
    expect(await closingRecipients(project, issue, author)).toEqual([])
    expect(await subscribed()).toBe(false)
    const signIn = await request('GET', '/users/sign_in', { headers: { cookie: visitor.cookie } })
    expect(signIn.text).toContain('<div class="flash notice" role="alert">You have been unsubscribed from this thread.</div>')
  })

  test('unsubscribes at once for a signed-in user, who goes back to the issue with the notice', async () => {
    const { issue, path, project, author, assignee } = await mailedIssue()
    const session = await createTestSession(server, assignee)
    const answer = await request('GET', path, { headers: { cookie: session.cookie } })
    expect(answer.status).toBe(302)
    expect(answer.headers.location).toBe(`/${project.full_path}/-/issues/${issue.iid}`)
    const issuePage = await request('GET', answer.headers.location, { headers: { cookie: session.cookie } })
    expect(issuePage.text).toContain('You have been unsubscribed from this thread.')
    expect(await closingRecipients(project, issue, author)).toEqual([])
  })

  test('a signed-in user who may not read the issue goes to the home page', async () => {
    const { issue, path, project, author } = await mailedIssue('private')
    const stranger = await createTestUser(db())
    const session = await createTestSession(server, stranger)
    const answer = await request('GET', path, { headers: { cookie: session.cookie } })
    expect(answer.status).toBe(302)
    expect(answer.headers.location).toBe('/')
    expect(await closingRecipients(project, issue, author)).toEqual([])
  })

  test('a mail client unsubscribes with one POST, without a session or a token (RFC 8058)', async () => {
    const { issue, forcedPath, project, author } = await mailedIssue()
    const answer = await request('POST', forcedPath, { body: { 'List-Unsubscribe': 'One-Click' }, form: true })
    expect(answer.status).toBe(302)
    expect(answer.headers.location).toBe('/users/sign_in')
    expect(await closingRecipients(project, issue, author)).toEqual([])
  })

  test('an unknown key finds nothing', async () => {
    const missing = '/-/sent_notifications/0123456789abcdef0123456789abcdef/unsubscribe'
    const assignee = await createTestUser(db())
    const session = await createTestSession(server, assignee)
    expect((await request('GET', missing, { headers: { cookie: session.cookie } })).status).toBe(404)
    expect(
      (await request('GET', '/-/sent_notifications/nope/unsubscribe?force=true', { headers: { cookie: session.cookie } })).status,
    ).toBe(404)
    expect((await request('POST', missing, { body: { 'List-Unsubscribe': 'One-Click' }, form: true })).status).toBe(404)
  })
})
