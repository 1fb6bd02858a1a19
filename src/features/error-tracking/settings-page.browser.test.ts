import * as Sentry from '@sentry/node'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt } from '../../testing/browser.js'
import { addTestMember, createTestGroup, createTestProject, createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

/** The monitor settings' error tracking section in a real browser, with its copy button, and a real SDK using the DSN. */

const PASSWORD = 'error-settings-password'

let server: TestServer
let browser: Browser
let project: ProjectRow
let maintainer: User

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  const group = await createTestGroup(db, { visibility: 'private' })
  project = await createTestProject(db, { namespace: group, visibility: 'private' })
  maintainer = await createTestUser(db, { password: PASSWORD })
  await addTestMember(db, { user: maintainer, project, accessLevel: 40 })
  browser = await launchBrowser()
})
afterAll(async () => {
  await Sentry.close()
  await closeBrowser(browser)
  await server.close()
})

test(
  'a Maintainer switches error tracking on, copies the DSN with its button, and an SDK event sent to it is listed',
  { timeout: BROWSER_WALK_MS },
  async () => {
    const settings = `/${project.full_path}/-/settings/operations`
    // JavaScript on, for the copy button and the clipboard it writes.
    const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] })
    const page = await context.newPage()
    try {
      await page.goto(server.url + settings)
      await page.fill('input[name="user[login]"]', maintainer.username)
      await page.fill('input[name="user[password]"]', PASSWORD)
      await Promise.all([page.waitForURL(server.url + settings), page.click('main button[type="submit"]')])

      const section = page.locator('#js-error-tracking-settings')
      expect(await section.locator('h2').textContent()).toBe('Error tracking')
      expect(await page.isDisabled('#error-tracking-backend-sentry')).toBe(true)
      expect(await page.isChecked('#error-tracking-backend-gitlab')).toBe(true)
      expect(await section.locator('#error-tracking-dsn').count()).toBe(0)
      await page.check('#error-tracking-enabled')
      await Promise.all([page.waitForURL(server.url + settings), section.locator('button:has-text("Save changes")').click()])
      expect(await page.textContent('.flash.notice')).toBe('Your changes have been saved')
      expect(await page.isChecked('#error-tracking-enabled')).toBe(true)

      const shown = await page.inputValue('#error-tracking-dsn')
      expect(shown).toMatch(new RegExp(`^http://svcet_[0-9a-f]{32}@127\\.0\\.0\\.1:\\d+/api/v4/error_tracking/collector/${project.id}$`))
      const copy = section.locator('button[data-copy="error-tracking-dsn"]')
      await copy.click()
      await expect.poll(() => copy.textContent()).toBe('Copied')
      const copied = await page.evaluate<string>('navigator.clipboard.readText()')
      expect(copied).toBe(shown)
      await page.locator('#error-tracking-dsn').focus()
      await lookAt(page, 'monitor-settings-error-tracking')

      Sentry.init({ dsn: copied, defaultIntegrations: false, environment: 'production' })
      Sentry.captureException(new TypeError("Cannot read properties of undefined (reading 'price')"))
      expect(await Sentry.flush(10_000)).toBe(true)

      await page.goto(`${server.url}/${project.full_path}/-/error_tracking`)
      expect(await page.textContent('.error-title a')).toBe("TypeError Cannot read properties of undefined (reading 'price')")
    } finally {
      await context.close()
    }
  },
)
