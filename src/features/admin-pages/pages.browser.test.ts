import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt, signInAt } from '../../testing/browser.js'
import { createTestGroup, createTestProject, createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

/**
 * The admin area in a real browser without JavaScript: an administrator finds a user, blocks and unblocks them,
 * impersonates them and stops, retries a failed job and meets a refused setting.
 */

const PASSWORD = 'admin-pages-password'

let server: TestServer
let browser: Browser
let admin: User
let user: User
let failedJobId: number

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  admin = await createTestUser(db, { admin: 1, password: PASSWORD, name: 'Ada Admin' })
  user = await createTestUser(db, { name: 'Grace Hopper' })
  const group = await createTestGroup(db, { visibility: 'private' })
  await createTestProject(db, { namespace: group, visibility: 'private' })
  const at = new Date().toISOString()
  const job = await db
    .insertInto('jobs')
    .values({
      kind: 'walk.mailer',
      payload: '{}',
      state: 'failed',
      attempts: 5,
      max_attempts: 5,
      run_at: at,
      last_error: `connect ECONNREFUSED 127.0.0.1:25 ${'while sending the weekly digest to every member of the instance '.repeat(4)}`,
      created_at: at,
      updated_at: at,
      finished_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  failedJobId = Number(job.id)
  browser = await launchBrowser()
})
afterAll(async () => {
  await closeBrowser(browser)
  await server.close()
})

test(
  'an administrator blocks and unblocks a user, impersonates them and stops, and retries a failed job',
  { timeout: BROWSER_WALK_MS },
  async () => {
    const page = await signInAt(browser, server.url, { username: admin.username, password: PASSWORD }, '/admin')
    try {
      expect(await page.textContent('h1')).toBe('Admin area')
      await lookAt(page, 'admin-overview')

      await Promise.all([page.waitForURL(`${server.url}/admin/users`), page.click('nav.sidebar a:has-text("Users")')])
      await page.fill('#admin_search', user.username)
      await Promise.all([page.waitForURL(/search_query=/), page.click('form.list-search button')])
      await lookAt(page, 'admin-users')
      await Promise.all([page.waitForURL(`${server.url}/admin/users/${user.username}`), page.click(`a.title:has-text("Grace Hopper")`)])
      expect(await page.textContent('dd.user-state')).toBe('active')
      await lookAt(page, 'admin-user')

      await page.click('button:has-text("Block")')
      expect(await page.textContent('.flash.notice')).toBe('Successfully blocked')
      expect(await page.textContent('dd.user-state')).toBe('blocked')
      expect(await page.textContent('.impersonation-refused')).toBe('You cannot impersonate a blocked user')
      await page.click('button:has-text("Unblock")')
      expect(await page.textContent('.flash.notice')).toBe('Successfully unblocked')
      expect(await page.textContent('dd.user-state')).toBe('active')

      await Promise.all([page.waitForURL(`${server.url}/`), page.click('button:has-text("Impersonate")')])
      expect(await page.textContent('.flash.notice')).toBe(`You are now impersonating ${user.username}`)
      expect(await page.textContent('.impersonation-banner strong')).toBe(`@${user.username}`)
      await page.click('.user-menu summary')
      expect(await page.textContent('.user-menu .menu-header')).toBe(`Impersonating @${user.username}`)
      await lookAt(page, 'admin-impersonating')
      await Promise.all([
        page.waitForURL(`${server.url}/admin/users/${user.username}`),
        page.click('.impersonation-banner button:has-text("Stop impersonating")'),
      ])
      expect(await page.locator('.impersonation-banner').count()).toBe(0)
      await page.click('.user-menu summary')
      expect(await page.textContent('.user-menu .menu-header')).toBe(`Signed in as @${admin.username}`)

      await page.goto(`${server.url}/admin/background_jobs`)
      expect(await page.textContent(`#job_${failedJobId} .title`)).toBe(`walk.mailer #${failedJobId}`)
      await lookAt(page, 'admin-jobs')
      await page.click(`#job_${failedJobId} button:has-text("Retry")`)
      expect(await page.textContent('.flash.notice')).toBe(`Job #${failedJobId} (walk.mailer) is queued to run again.`)
      expect(await page.locator(`#job_${failedJobId}`).count()).toBe(0)
      const job = await server.database.db
        .selectFrom('jobs')
        .select(['state', 'attempts'])
        .where('id', '=', failedJobId)
        .executeTakeFirstOrThrow()
      expect(job).toEqual({ state: 'queued', attempts: 0 })

      await page.goto(`${server.url}/admin/hooks`)
      expect(await page.textContent('h1')).toBe('System hooks')
      await lookAt(page, 'admin-system-hooks')

      await page.goto(`${server.url}/admin/application_settings/general`)
      await lookAt(page, 'admin-settings')
      await page.fill('#application_setting_minimum_password_length', '3')
      await page.click('#js-signup-settings button[type="submit"]')
      expect(await page.textContent('#application_setting_minimum_password_length_error')).toBe(
        'Minimum password length must be greater than or equal to 8',
      )
      expect(await page.inputValue('#application_setting_minimum_password_length')).toBe('3')
      await lookAt(page, 'admin-settings-refused')
    } finally {
      await page.context().close()
    }
  },
)
