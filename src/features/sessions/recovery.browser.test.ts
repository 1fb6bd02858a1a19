import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt } from '../../testing/browser.js'
import { createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { partOf, startSmtpSink, type SmtpSink } from '../mail/testing.js'

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

test('a browser follows "Forgot your password?" to a new password, by the link the mail brings', { timeout: BROWSER_WALK_MS }, async () => {
  const user = await createTestUser(server.database.db, { password: 'forgotten-password' })
  const context = await browser.newContext({ javaScriptEnabled: false })
  try {
    const page = await context.newPage()
    await page.goto(`${server.url}/users/sign_in`)
    await lookAt(page, 'sign-in')
    await Promise.all([page.waitForURL(`${server.url}/users/password/new`), page.click('text=Forgot your password?')])
    expect(await page.textContent('main h1')).toBe('Reset password')
    await lookAt(page, 'password-new')
    await page.fill('input[name="user[email]"]', user.email)
    await Promise.all([page.waitForURL(`${server.url}/users/sign_in`), page.click('main button[type="submit"]')])
    expect(await page.textContent('.flash')).toBe(
      'If your email address exists in our database, you will receive a password recovery link at your email address in a few minutes.',
    )
    await lookAt(page, 'password-sent')

    await server.runJobs()
    const link = /https?:\S+reset_password_token=\S+/.exec(partOf(sink.received[0].raw, 'text/plain'))![0]
    await page.goto(link)
    expect(await page.textContent('main h1')).toBe('Change your password')
    await page.fill('input[name="user[password]"]', 'brand-new-password')
    await page.fill('input[name="user[password_confirmation]"]', 'not-the-same')
    await page.click('main button[type="submit"]')
    expect(await page.textContent('#error_explanation li')).toBe("Password confirmation doesn't match Password")
    await lookAt(page, 'password-edit-refused')
    await page.fill('input[name="user[password]"]', 'brand-new-password')
    await page.fill('input[name="user[password_confirmation]"]', 'brand-new-password')
    await Promise.all([page.waitForURL(`${server.url}/users/sign_in`), page.click('main button[type="submit"]')])
    expect(await page.textContent('.flash')).toBe('Your password was changed successfully.')

    await page.fill('input[name="user[login]"]', user.username)
    await page.fill('input[name="user[password]"]', 'brand-new-password')
    await Promise.all([page.waitForURL(`${server.url}/`), page.click('main button[type="submit"]')])
    expect(await page.textContent('header .who')).toBe(user.username)

    const visitor = await (await browser.newContext({ javaScriptEnabled: false })).newPage()
    await visitor.goto(`${server.url}/users/unlock?unlock_token=unknown`)
    expect(await visitor.textContent('#error_explanation li')).toBe('Unlock token is invalid')
    await lookAt(visitor, 'unlock-invalid')
    await visitor.context().close()
  } finally {
    await context.close()
  }
})
