import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import type { ProjectRow } from '../../db/schema.js'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt, signInAt } from '../../testing/browser.js'
import { addTestMember, createTestGroup, createTestIssue, createTestLabel, createTestProject } from '../../testing/factories.js'
import { createPerson, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

/**
 * Planning in a real browser, without JavaScript: a Developer creates a label with a suggested colour and prioritises
 * it, creates a milestone and closes it, creates a project snippet and reads it highlighted; a Guest reads the same
 * pages without their buttons. Every page fits a phone.
 */

let server: TestServer
let browser: Browser
let developer: Person
let guest: Person
let project: ProjectRow
const XSS = '<img src=x onerror="document.title=\'pwned\'">'

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  developer = await createPerson(db, 'dana')
  guest = await createPerson(db, 'gil')
  const group = await createTestGroup(db, { path: 'harbour', name: 'Harbour' })
  project = await createTestProject(db, { namespace: group, path: 'lighthouse', name: 'Lighthouse', visibility: 'internal' })
  await addTestMember(db, { user: developer.user, project, accessLevel: AccessLevel.DEVELOPER })
  await addTestMember(db, { user: guest.user, project, accessLevel: AccessLevel.GUEST })
  await createTestLabel(db, { group, title: 'harbour-wide', color: '#428bca', description: 'Shared by every project of the group' })
  await createTestLabel(db, { project, title: `needs a very long label title that wraps ${XSS}`, color: '#f7e7ce' })
  browser = await launchBrowser()
})

afterAll(async () => {
  await closeBrowser(browser)
  await server.close()
})

const base = '/harbour/lighthouse'

/** Clicks a form's button and waits for the page the answer leads to (the same URL, often, after a redirect). */
async function submitted(page: Page, selector: string) {
  await Promise.all([page.waitForEvent('load'), page.click(selector)])
}

describe('labels, milestones and snippets in a browser', () => {
  test('a Developer creates a label with a suggested colour and prioritises it', { timeout: BROWSER_WALK_MS }, async () => {
    const page = await signInAt(browser, server.url, { username: 'dana', password: developer.password }, `${base}/-/labels`)
    await lookAt(page, 'labels-before')
    await page.click('a:has-text("New label")')
    expect(new URL(page.url()).pathname).toBe(`${base}/-/labels/new`)
    await page.fill('#label_title', 'bug')
    await page.fill('#label_description', 'Something does not work')
    await page.click('label.swatch[title="Crimson"]')
    expect(await page.isChecked('input[name="suggested_color"][value="#dc143c"]')).toBe(true)
    await lookAt(page, 'label-new')
    await submitted(page, 'button:has-text("Create label")')
    expect(new URL(page.url()).pathname).toBe(`${base}/-/labels`)
    const row = page.locator('li.label-row', { hasText: 'bug' }).first()
    expect(await row.locator('circle').getAttribute('fill')).toBe('#dc143c')
    await submitted(page, 'button[aria-label="Prioritize label bug"]')
    const prioritized = page.locator('section.prioritized-labels li.label-row')
    expect(await prioritized.locator('.label-title').allTextContents()).toEqual(['bug'])
    expect(await page.title()).toBe('Labels · Harbour / Lighthouse · svc')
    await lookAt(page, 'labels-prioritized')

    // A taken title comes back beside the field.
    await page.goto(`${server.url}${base}/-/labels/new`)
    await page.fill('#label_title', 'bug')
    await submitted(page, 'button:has-text("Create label")')
    expect(await page.locator('#label_title_error').textContent()).toBe('Title has already been taken')
    await lookAt(page, 'label-refused')

    // Delete asks first.
    await page.goto(`${server.url}${base}/-/labels`)
    await page.click('summary[aria-label="Delete label bug"]')
    expect(await page.locator('details.confirm-menu[open] p').textContent()).toContain('will be permanently deleted from Lighthouse')
    await lookAt(page, 'label-delete-confirm')
    await page.context().close()
  })

  test('a Developer creates a milestone, sees its progress and closes it', { timeout: BROWSER_WALK_MS }, async () => {
    const page = await signInAt(browser, server.url, { username: 'dana', password: developer.password }, `${base}/-/milestones`)
    await lookAt(page, 'milestones-empty')
    await page.click('main a:has-text("New milestone")')
    await page.fill('#milestone_title', 'Season opening')
    await page.fill('#milestone_start_date', '2099-03-01')
    await page.fill('#milestone_due_date', '2099-04-01')
    await page.fill('#milestone_description', 'Lights on for the **season**.')
    await lookAt(page, 'milestone-new')
    await submitted(page, 'button:has-text("Create milestone")')
    expect(await page.locator('h1').textContent()).toBe('Season opening')
    const db = server.database.db
    const milestone = await db.selectFrom('milestones').selectAll().where('title', '=', 'Season opening').executeTakeFirstOrThrow()
    for (const state of ['closed', 'opened', 'opened'] as const) {
      await createTestIssue(db, { project, author: developer.user, milestone, state, title: `Check the lamp (${state})` })
    }
    await page.reload()
    expect(await page.locator('.progress-text').textContent()).toBe('1 of 3 issues closed (33% complete)')
    await lookAt(page, 'milestone')
    await page.goto(`${server.url}${base}/-/milestones`)
    expect(await page.locator('.percent-complete').textContent()).toBe('33% complete')
    await lookAt(page, 'milestones-list')
    await submitted(page, 'button[aria-label="Close milestone Season opening"]')
    expect(await page.locator('.issuable-header .badge').first().textContent()).toBe('Closed')
    await page.goto(`${server.url}${base}/-/milestones?state=closed`)
    expect(await page.locator('li.milestone-row a.title').allTextContents()).toEqual(['Season opening'])
    await page.context().close()
  })

  test('a Developer creates a project snippet and reads it highlighted', { timeout: BROWSER_WALK_MS }, async () => {
    const page = await signInAt(browser, server.url, { username: 'dana', password: developer.password }, `${base}/-/snippets`)
    await lookAt(page, 'snippets-empty')
    await page.click('main a:has-text("New snippet")')
    await page.fill('#snippet_title', 'Beacon timing')
    await page.fill('#snippet_description', 'How often the light **flashes**.')
    await page.fill('#files_0_file_path', 'beacon.py')
    await page.fill('#files_0_content', 'def flash(period):\n    """Seconds between flashes."""\n    return period * 2  # twice\n')
    await page.check('#snippet_visibility_internal')
    await lookAt(page, 'snippet-new')
    await submitted(page, 'button:has-text("Create snippet")')
    expect(await page.locator('h1').textContent()).toBe('Beacon timing')
    expect(await page.locator('.snippet-file .hljs-keyword').first().textContent()).toBe('def')
    expect(await page.locator('.snippet-file td.line-number').allTextContents()).toEqual(['1', '2', '3'])
    await lookAt(page, 'snippet')
    await page.click('main a:has-text("Edit")')
    await lookAt(page, 'snippet-edit')
    await page.goto(`${server.url}${base}/-/snippets`)
    expect(await page.locator('li.snippet-row a.title').allTextContents()).toEqual(['Beacon timing'])
    await lookAt(page, 'snippets-list')
    await page.goto(`${server.url}/dashboard/snippets`)
    await lookAt(page, 'snippets-dashboard')
    await page.context().close()
  })

  test('a Guest reads the labels and the milestone without their buttons', { timeout: BROWSER_WALK_MS }, async () => {
    const page = await signInAt(browser, server.url, { username: 'gil', password: guest.password }, `${base}/-/labels`)
    expect(await page.locator('main a:has-text("New label")').count()).toBe(0)
    expect(await page.locator('button:has-text("Prioritize")').count()).toBe(0)
    expect(await page.title()).not.toBe('pwned')
    await lookAt(page, 'labels-guest')
    await page.goto(`${server.url}${base}/-/milestones?state=all`)
    expect(await page.locator('button:has-text("milestone")').count()).toBe(0)
    await page.context().close()
  })
})
