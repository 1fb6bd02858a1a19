import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt } from '../../testing/browser.js'
import { addTestMember, createTestGroup, createTestIssue, createTestProject, createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { startSmtpSink, type SmtpSink } from '../mail/testing.js'
import { deliveredMails, tellIssue } from '../notifications/testing.js'

// The unsubscribe link of a notification e-mail in a real browser, without JavaScript: a signed-out reader is asked
// to confirm, unsubscribes and lands on the sign-in page with the notice.

let sink: SmtpSink
let server: TestServer
let browser: Browser

beforeAll(async () => {
  sink = await startSmtpSink()
  server = await startTestServer({ SVC_SMTP_URL: sink.url })
  browser = await launchBrowser()
})
afterAll(async () => {
  await closeBrowser(browser)
  await server?.close()
  await sink?.close()
})

test(
  'a signed-out reader confirms, is unsubscribed and sees the notice on the sign-in page',
  async () => {
    const db = server.database.db
    const group = await createTestGroup(db, { name: 'Space Programme' })
    const project = await createTestProject(db, { namespace: group, name: 'Rocket Engine' })
    const author = await createTestUser(db)
    const assignee = await createTestUser(db)
    await addTestMember(db, { user: author, project, accessLevel: 30 })
    await addTestMember(db, { user: assignee, project, accessLevel: 30 })
    const issue = await createTestIssue(db, {
      project,
      author,
      title: 'The second-stage engine stalls at 3000 rpm whenever the fuel pressure drops below the nominal line',
      assignees: [assignee],
    })
    await tellIssue(server, author, issue, 'open')
    const [mail] = await deliveredMails(server, sink)
    const link = /Unsubscribe from this thread: (\S+)/.exec(mail.text)![1]

    const page = await (await browser.newContext({ javaScriptEnabled: false })).newPage()
    await page.goto(link)
    expect(await page.textContent('main h1')).toBe('Unsubscribe from issue')
    expect(await page.textContent('main p')).toBe(`Are you sure you want to unsubscribe from the issue: ${issue.title} (#${issue.iid})?`)
    await lookAt(page, 'unsubscribe-confirm')

    await page.click('text=Unsubscribe >> nth=-1')
    expect(new URL(page.url()).pathname).toBe('/users/sign_in')
    expect(await page.textContent('.flash.notice')).toBe('You have been unsubscribed from this thread.')
    await lookAt(page, 'unsubscribe-done')

    await tellIssue(server, author, issue, 'close')
    expect(await deliveredMails(server, sink)).toEqual([])
  },
  BROWSER_WALK_MS,
)
