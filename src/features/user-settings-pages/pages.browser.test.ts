import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt, signInAt } from '../../testing/browser.js'
import { addTestMember, createTestGroup, createTestProject } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { createPerson, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

/**
 * The user settings pages in a real browser without JavaScript: a user makes a personal access token, sees it once,
 * uses it, revokes it; edits the profile and the notifications; changes the password, which signs them out, and
 * signs in again with the new one. Each page fits a phone.
 */

let server: TestServer
let browser: Browser
let ada: Person

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  ada = await createPerson(db, 'ada')
  const group = await createTestGroup(db, { path: 'engines', name: 'Analytical Engines' })
  await addTestMember(db, { user: ada.user, group, accessLevel: AccessLevel.DEVELOPER })
  await createTestProject(db, { namespace: group, path: 'difference', name: 'Difference Engine' })
  browser = await launchBrowser()
})

afterAll(async () => {
  await closeBrowser(browser)
  await server.close()
})

describe('user settings in a browser', () => {
  test(
    'a token is made, shown once, used and revoked; the password changes and signs the user in again',
    { timeout: BROWSER_WALK_MS * 2 },
    async () => {
      const api = client(`${server.url}/api/v4`)
      const page = await signInAt(
        browser,
        server.url,
        { username: 'ada', password: ada.password },
        '/-/user_settings/personal_access_tokens',
      )
      expect(await page.title()).toBe('Personal access tokens · svc')
      await lookAt(page, 'user-settings-access-tokens')

      await page.fill('#personal_access_token_name', 'Notebook <b>sync</b>')
      await page.check('#personal_access_token_scopes_read_api')
      await page.check('#personal_access_token_scopes_read_repository')
      await Promise.all([
        page.waitForURL(`${server.url}/-/user_settings/personal_access_tokens`),
        page.click('form.new-access-token button[type="submit"]'),
      ])
      expect(await page.locator('.flash.notice').textContent()).toBe('Your new personal access token has been created.')
      const value = await page.inputValue('#created-personal-access-token')
      expect(value).toMatch(/^svcpat-/)
      expect(await page.locator('table.access-tokens td.token-name', { hasText: 'Notebook' }).textContent()).toContain(
        'Notebook <b>sync</b>',
      )
      await lookAt(page, 'user-settings-token-created')
      expect((await api('GET', '/user', { token: value })).body.username).toBe('ada')

      // Seen once: the next visit shows the list without it.
      await page.reload()
      expect(await page.locator('#created-personal-access-token').count()).toBe(0)
      expect(await page.content()).not.toContain(value)

      // Revoke asks first.
      const row = page.locator('table.access-tokens tbody tr', { hasText: 'Notebook' })
      await row.locator('summary', { hasText: 'Revoke' }).click()
      expect(await row.locator('.confirm-body p').textContent()).toContain(
        'Are you sure you want to revoke the personal access token "Notebook <b>sync</b>"?',
      )
      await lookAt(page, 'user-settings-token-revoke')
      await Promise.all([
        page.waitForURL(`${server.url}/-/user_settings/personal_access_tokens`),
        row.locator('.confirm-body button').click(),
      ])
      expect(await page.locator('.flash.notice').textContent()).toBe('Revoked personal access token Notebook <b>sync</b>!')
      expect(await page.locator('table.access-tokens td.token-name', { hasText: 'Notebook' }).count()).toBe(0)
      expect((await api('GET', '/user', { token: value })).status).toBe(401)

      // The profile, reached from the user menu.
      await page.click('summary[aria-label="Your account"]')
      await Promise.all([page.waitForURL(`${server.url}/-/user_settings/profile`), page.click('text=Edit profile')])
      await page.fill('#user_name', 'Ada Lovelace')
      await page.fill('#user_location', 'London')
      await page.fill('#user_website_url', 'not a url')
      await page.click('form.edit-user button[type="submit"]')
      expect(await page.locator('#error_explanation li').allTextContents()).toEqual(['Website url is not a valid URL'])
      expect(await page.inputValue('#user_location')).toBe('London')
      await lookAt(page, 'user-settings-profile-refused')
      await page.fill('#user_website_url', 'https://ada.example')
      await Promise.all([page.waitForURL(`${server.url}/-/user_settings/profile`), page.click('form.edit-user button[type="submit"]')])
      expect(await page.locator('.flash.notice').textContent()).toBe('Profile was successfully updated')
      await lookAt(page, 'user-settings-profile')

      // Notifications: Custom opens its events.
      await page.click('nav.sidebar >> text=Notifications')
      expect(await page.title()).toBe('Notifications · svc')
      await lookAt(page, 'user-settings-notifications')
      await page.selectOption('#global_notification_setting_level', 'custom')
      await page.locator('#global_notification_setting_level').locator('xpath=ancestor::form').locator('summary').click()
      await page.check('#global_notification_setting_new_merge_request')
      await Promise.all([
        page.waitForURL(`${server.url}/-/profile/notifications`),
        page
          .locator('#global_notification_setting_level')
          .locator('xpath=ancestor::form')
          .locator('.custom-events button[type="submit"]')
          .click(),
      ])
      expect(await page.locator('.flash.notice').textContent()).toBe('Notification settings saved')
      expect(await page.isChecked('#global_notification_setting_new_merge_request')).toBe(true)
      await lookAt(page, 'user-settings-notifications-custom')

      // Applications share the sidebar.
      await page.click('nav.sidebar >> text=Applications')
      expect(await page.title()).toBe('Applications · svc')
      await lookAt(page, 'user-settings-applications')

      // The password: a changed one signs the user out and asks them to sign in again.
      await page.click('nav.sidebar >> text=Password')
      await lookAt(page, 'user-settings-password')
      await page.fill('#user_password', ada.password)
      await page.fill('#user_new_password', 'a-new-secret-2')
      await page.fill('#user_password_confirmation', 'a-new-secret-2')
      await Promise.all([page.waitForURL(`${server.url}/users/sign_in`), page.click('form.update-password button[type="submit"]')])
      expect(await page.locator('.flash.notice').textContent()).toBe('Password was successfully updated. Please sign in again.')
      await lookAt(page, 'user-settings-password-changed')
      await page.fill('input[name="user[login]"]', 'ada')
      await page.fill('input[name="user[password]"]', 'a-new-secret-2')
      await Promise.all([page.waitForURL(`${server.url}/`), page.click('main button[type="submit"]')])
      expect(await page.locator('summary[aria-label="Your account"] .who').textContent()).toBe('ada')
      await page.context().close()
    },
  )
})
