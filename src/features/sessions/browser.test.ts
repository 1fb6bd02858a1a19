import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { closeBrowser, launchBrowser } from '../../testing/browser.js'
import { createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let browser: Browser
let user: User

beforeAll(async () => {
  server = await startTestServer()
  user = await createTestUser(server.database.db, { password: 'browser-password' })
  browser = await launchBrowser()
})
afterAll(async () => {
  await closeBrowser(browser)
  await server.close()
})

describe('signing in with a real browser', () => {
  test('the form signs in, lands on the home page, and the header form signs out', { timeout: 60000 }, async () => {
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await page.goto(`${server.url}/`)
      expect(new URL(page.url()).pathname).toBe('/users/sign_in')

      await page.fill('input[name="user[login]"]', user.email)
      await page.fill('input[name="user[password]"]', 'wrong-password')
      await page.click('button[type="submit"]')
      expect(await page.textContent('.flash')).toBe('Invalid login or password.')

      await page.fill('input[name="user[login]"]', user.username)
      await page.fill('input[name="user[password]"]', 'browser-password')
      await Promise.all([page.waitForURL(`${server.url}/`), page.click('button[type="submit"]')])
      expect(await page.textContent('header .who')).toBe(user.username)
      expect(await page.textContent('main strong')).toBe(`@${user.username}`)

      const [cookie] = (await context.cookies()).filter((c) => c.name === '_svc_session')
      expect(cookie).toMatchObject({ path: '/', httpOnly: true, secure: false, sameSite: 'Lax', expires: -1 })
      // HttpOnly: scripts of the page cannot read it.
      expect(await page.evaluate('document.cookie')).not.toContain('_svc_session')

      await page.click('header .user-menu summary')
      await Promise.all([page.waitForURL(`${server.url}/users/sign_in`), page.click('header .user-menu button[type="submit"]')])
      expect(await page.isVisible('input[name="user[password]"]')).toBe(true)
      expect((await context.cookies()).filter((c) => c.name === '_svc_session' && c.value !== '')).toHaveLength(1)
      await page.goto(`${server.url}/`)
      expect(new URL(page.url()).pathname).toBe('/users/sign_in')
    } finally {
      await context.close()
    }
  })
})
