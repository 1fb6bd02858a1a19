import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt, screenshots, signInAt } from '../../testing/browser.js'
import {
  addTestMember,
  createTestGroup,
  createTestLabel,
  createTestMilestone,
  createTestProject,
  createTestUser,
} from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

/**
 * The issue pages in a real browser, without JavaScript: a Developer opens an issue, previews and posts comments with
 * quick actions, edits the sidebar, closes and reopens it; a visitor reads the public issue with no form to fill.
 */

const PASSWORD = 'issue-pages-password'

let server: TestServer
let browser: Browser
let project: ProjectRow
let developer: User

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  const group = await createTestGroup(db, { visibility: 'public' })
  project = await createTestProject(db, { namespace: group, visibility: 'public' })
  developer = await createTestUser(db, { password: PASSWORD, name: 'Dana Developer' })
  await addTestMember(db, { user: developer, project, accessLevel: 30 })
  await createTestLabel(db, { project, title: 'bug', color: '#d9534f' })
  await createTestLabel(db, { project, title: 'needs review', color: '#8fbc8f' })
  await createTestLabel(db, { group, title: 'platform', color: '#428bca' })
  await createTestMilestone(db, { project, title: 'v1.0', dueDate: '2030-06-30' })
  browser = await launchBrowser()
})
afterAll(async () => {
  await closeBrowser(browser)
  await server.close()
})

describe('the issue pages in a browser', () => {
  test(
    'a Developer opens an issue, comments with quick actions, edits its details, closes and reopens it',
    { timeout: BROWSER_WALK_MS },
    async () => {
      const list = `/${project.full_path}/-/issues`
      // Opening an issue needs a signed-in user: the form sends a visitor to sign in, then back.
      const page = await signInAt(browser, server.url, { username: developer.username, password: PASSWORD }, `${list}/new`)
      try {
        await page.goto(server.url + list)
        expect(await page.textContent('.no-issues strong')).toBe('There are no open issues')
        await Promise.all([page.waitForURL(`${server.url}${list}/new`), page.click('a.button.primary:has-text("New issue")')])
        await page.fill('#issue_title', 'Saving a draft loses the last paragraph')
        await page.fill('#issue_description', 'Steps:\n\n1. Write **three** paragraphs\n2. Save')
        await page.click('button[value="preview"]')
        expect(await page.textContent('#issue_description_preview strong')).toBe('three')
        expect(await page.inputValue('#issue_title')).toBe('Saving a draft loses the last paragraph')
        await page.check('label.checkbox-label:has-text("platform") input')
        await page.selectOption('#issue_milestone_id', { label: 'v1.0' })
        await lookAt(page, 'issues-new')
        await Promise.all([page.waitForURL(`${server.url}${list}/1`), page.click('button[value="save"]')])
        expect(await page.textContent('h1.issuable-title')).toBe('Saving a draft loses the last paragraph')
        expect(await page.textContent('.issuable-field.labels .label-title')).toBe('platform')
        expect(await page.textContent('.issuable-field.milestone a')).toBe('v1.0')

        await page.fill('#note_note', 'I can reproduce this.\n/label ~bug\n/assign me')
        await page.click('.new-note button[value="preview"]')
        expect(await page.textContent('#note_preview')).toContain('I can reproduce this.')
        await page.click('.new-note button[value="comment"]')
        expect(await page.textContent('.flash.notice')).toBe(`Added ~"bug" label. Assigned @${developer.username}.`)
        expect(await page.locator('.issuable-field.labels .label-title').allTextContents()).toEqual(['bug', 'platform'])
        expect(await page.textContent('.issuable-field.assignees .user-link')).toBe('Dana Developer')
        expect(await page.locator('.user-note .note-text').allTextContents()).toEqual(['I can reproduce this.'])
        const systemNotes = page.locator('.system-note .system-note-body .markdown')
        expect((await systemNotes.allTextContents()).map((text) => text.trim()).slice(-2)).toEqual([
          'added bug label',
          `assigned to @${developer.username}`,
        ])
        await lookAt(page, 'issues-show')

        await page.click('details.sidebar-edit > summary')
        await page.fill('#sidebar_due_date', '2030-01-31')
        await page.check('#sidebar_confidential')
        await screenshots(page, 'issues-sidebar-form')
        await page.click('.issue-sidebar-form button[type="submit"]')
        expect(await page.textContent('.issuable-field.due-date time')).toBe('2030-01-31')
        expect(await page.textContent('.issuable-header .confidential-badge')).toBe('Confidential')

        await page.click('.issuable-actions button:has-text("Close issue")')
        expect(await page.textContent('.flash.notice')).toBe('Closed this issue.')
        expect(await page.textContent('.issuable-header .issuable-state')).toBe('Closed')
        await page.fill('#note_note', 'Fixed by the autosave change.')
        await page.click('.new-note button:has-text("Reopen issue")')
        expect(await page.textContent('.flash.notice')).toBe('Reopened this issue.')
        expect(await page.textContent('.issuable-header .issuable-state')).toBe('Open')
        expect(await page.locator('.user-note .note-text').allTextContents()).toEqual([
          'I can reproduce this.',
          'Fixed by the autosave change.',
        ])

        await page.goto(`${server.url}${list}/1/edit`)
        await page.fill('#issue_title', 'Saving a draft loses its last paragraph')
        await page.click('button[value="save"]')
        expect(await page.textContent('h1.issuable-title')).toBe('Saving a draft loses its last paragraph')

        await page.goto(`${server.url}${list}?label_name[]=bug&sort=updated_desc`)
        expect(await page.locator('.issue-row .title').allTextContents()).toEqual(['Saving a draft loses its last paragraph'])
        await lookAt(page, 'issues-list')
      } finally {
        await page.context().close()
      }
    },
  )

  test('a visitor reads the public issue with no form to fill', { timeout: BROWSER_WALK_MS }, async () => {
    const db = server.database.db
    await db.updateTable('issues').set({ confidential: 0 }).where('project_id', '=', project.id).execute()
    const page = await (await browser.newContext({ javaScriptEnabled: false })).newPage()
    try {
      await page.goto(`${server.url}/${project.full_path}/-/issues/1`)
      expect(await page.textContent('h1.issuable-title')).toBe('Saving a draft loses its last paragraph')
      expect(await page.locator('main form[method="post"]').count()).toBe(0)
      expect(await page.locator('.issuable-actions').count()).toBe(0)
      expect(await page.textContent('.comment-signed-out')).toBe('Please sign in to reply')
      await lookAt(page, 'issues-show-visitor')
    } finally {
      await page.context().close()
    }
  })
})
