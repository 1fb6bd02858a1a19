import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt, screenshots, signInAt } from '../../testing/browser.js'
import { addTestMember, createTestGroup, createTestProject, createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

/**
 * The alert pages in a real browser, without JavaScript: sign in, add an integration, send a test alert, list alerts,
 * open one, acknowledge and resolve it.
 */

const PASSWORD = 'alert-pages-password'

let server: TestServer
let browser: Browser
let project: ProjectRow
let maintainer: User
let developer: User

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  const group = await createTestGroup(db, { visibility: 'private' })
  const subgroup = await createTestGroup(db, { visibility: 'private', parent: group })
  project = await createTestProject(db, { namespace: subgroup, visibility: 'private' })
  maintainer = await createTestUser(db, { password: PASSWORD })
  developer = await createTestUser(db, { password: PASSWORD })
  await addTestMember(db, { user: maintainer, project, accessLevel: 40 })
  await addTestMember(db, { user: developer, project, accessLevel: 30 })
  browser = await launchBrowser()
})
afterAll(async () => {
  await closeBrowser(browser)
  await server.close()
})

describe('the alert pages in a browser', () => {
  test('a Maintainer adds an integration, sees its URL and key, sends a test alert and finds it in the list', async () => {
    const settings = `/${project.full_path}/-/settings/operations`
    const page = await signInAt(browser, server.url, { username: maintainer.username, password: PASSWORD }, settings)
    try {
      expect(await page.textContent('.no-integrations')).toBe('No integrations have been added yet.')
      await page.selectOption('#integration_type', 'http')
      await page.fill('#integration_name', 'Production monitor')
      await page.click('.integration-form button[type="submit"]')
      expect(await page.textContent('.flash.notice')).toBe('Integration successfully saved.')

      const integration = await server.database.db
        .selectFrom('alert_integrations')
        .selectAll()
        .where('project_id', '=', project.id)
        .executeTakeFirstOrThrow()
      expect(await page.textContent('.integration-name')).toBe('Production monitor')
      expect(await page.textContent('.integration-status')).toBe('Active')
      expect(await page.textContent('.integration-url')).toBe(
        `${server.url}/${project.full_path}/alerts/notify/production-monitor/${integration.endpoint_identifier}.json`,
      )
      expect(await page.textContent('.integration-token')).toBe(integration.token)

      const form = page.locator(`#test_alert_${integration.id}`)
      await form.locator('textarea').fill('{"title": "CPU at 100%", "severity": "high", "service": "api"}')
      await form.locator('button[type="submit"]').click()
      // Back on the settings page, whose notice at the top says what the test alert made.
      expect(page.url()).toBe(server.url + settings)
      expect(await page.textContent('.flash.notice')).toBe('Test alert sent successfully. Alert #1: CPU at 100%')
      await lookAt(page, 'alerts-settings')

      await page.goto(`${server.url}/${project.full_path}/-/alert_management`)
      expect(await page.textContent('#alert_1 .alert-title')).toBe('#1 CPU at 100%')
      expect(await page.textContent('#alert_1 .alert-severity')).toBe('High')
      expect(await page.textContent('#alert_1 .alert-status')).toBe('Triggered')
      expect(await page.textContent('#alert_1 .alert-events')).toBe('1')
      await screenshots(page, 'alerts-list')
      await page.click('a.status-tab:has-text("Resolved")')
      expect(await page.textContent('.no-alerts')).toBe('No alerts to display.')
    } finally {
      await page.context().close()
    }
  })

  test('a Developer sees the test form but no URL or key, and can send a test alert', async () => {
    const settings = `/${project.full_path}/-/settings/operations`
    const page = await signInAt(browser, server.url, { username: developer.username, password: PASSWORD }, settings)
    try {
      expect(await page.locator('.integration-token').count()).toBe(0)
      expect(await page.locator('.integration-url').count()).toBe(0)
      expect(await page.locator('.integration-form').count()).toBe(0)
      const integration = await server.database.db
        .selectFrom('alert_integrations')
        .selectAll()
        .where('project_id', '=', project.id)
        .executeTakeFirstOrThrow()
      expect(await page.content()).not.toContain(integration.token)
      const form = page.locator(`#test_alert_${integration.id}`)
      await form.locator('textarea').fill('{"title": "Memory low"}')
      await form.locator('button[type="submit"]').click()
      expect(await page.textContent('.flash.notice')).toBe('Test alert sent successfully. Alert #2: Memory low')
    } finally {
      await page.context().close()
    }
  })

  test(
    'a Developer opens an alert from the list, acknowledges and resolves it, and sees each status and its system note',
    { timeout: BROWSER_WALK_MS },
    async () => {
      const list = `/${project.full_path}/-/alert_management`
      const page = await signInAt(browser, server.url, { username: developer.username, password: PASSWORD }, list)
      try {
        await Promise.all([page.waitForURL(`${server.url}${list}/1/details`), page.click('#alert_1 .alert-title a')])
        expect(await page.textContent('h1.alert-title')).toBe('CPU at 100%')
        expect(await page.textContent('.alert-header .badge')).toBe('Triggered')
        expect(await page.textContent('dd.alert-severity')).toBe('High')
        expect(await page.textContent('dd.alert-service')).toBe('api')
        expect(await page.textContent('dd.alert-events')).toBe('1')
        expect(await page.locator('.status-actions button').allTextContents()).toEqual(['Acknowledge', 'Resolve', 'Ignore'])
        const notes = page.locator('#alert-activity li.system-note')
        expect(await notes.locator('.note-body').allTextContents()).toEqual(['logged an alert from Production monitor'])

        await page.click('#status_acknowledged button')
        expect(page.url()).toBe(`${server.url}${list}/1/details`)
        expect(await page.textContent('.alert-header .badge')).toBe('Acknowledged')
        await screenshots(page, 'alerts-details')
        expect(await page.locator('.status-actions button').allTextContents()).toEqual(['Resolve', 'Ignore', 'Reopen'])
        expect(await notes.locator('.note-body').allTextContents()).toEqual([
          'logged an alert from Production monitor',
          'changed the status to Acknowledged',
        ])
        expect(await notes.nth(1).locator('.note-username').textContent()).toBe(`@${developer.username}`)

        await page.click('#status_resolved button')
        expect(page.url()).toBe(`${server.url}${list}/1/details`)
        expect(await page.textContent('.alert-header .badge')).toBe('Resolved')
        expect(await page.locator('.status-actions button').allTextContents()).toEqual(['Acknowledge', 'Ignore', 'Reopen'])
        expect(await notes.locator('.note-body').allTextContents()).toEqual([
          'logged an alert from Production monitor',
          'changed the status to Acknowledged',
          'changed the status to Resolved',
        ])
        await lookAt(page, 'alerts-details-resolved')

        await page.goto(server.url + list)
        expect(await page.textContent('#alert_1 .alert-status')).toBe('Resolved')

        // On a phone the list scrolls inside its own box; the page itself stays as wide as the screen.
        await page.setViewportSize({ width: 390, height: 844 })
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(390)
      } finally {
        await page.context().close()
      }
    },
  )
})
