import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt, signInAt } from '../../testing/browser.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

/**
 * Merge requests in a real browser, without JavaScript, as a Developer: the list filtered by reviewer and sorted by
 * title through its filter form; a comment previewed, then posted; quick actions in a comment, and /merge by the
 * project's owner. Each page fits a phone.
 */

let server: TestServer
let browser: Browser
let owner: Person
let developer: Person
let reviewer: Person
let project: Record<string, any>

async function api(method: string, path: string, body?: unknown) {
  const res = await client(server.url + '/api/v4')(method, path, { token: owner.token, body })
  expect(res.status, res.text).toBeLessThan(300)
  return res.body
}

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  owner = await createPerson(db, 'shopowner')
  developer = await createPerson(db, 'shopdev')
  reviewer = await createPerson(db, 'shopreviewer')
  project = await createRepositoryProject(client(server.url + '/api/v4'), owner, { name: 'Shop', path: 'shop', visibility: 'private' })
  await addProjectMember(db, developer, project.id, 30)
  await addProjectMember(db, reviewer, project.id, 30)
  const milestone = await api('POST', `/projects/${project.id}/milestones`, { title: 'Autumn release', due_date: '2026-11-30' })
  await api('POST', `/projects/${project.id}/labels`, { name: 'checkout', color: '#428bca' })
  const topics = [
    { branch: 'feature/cart', title: 'Keep the cart between visits', reviewed: true },
    { branch: 'feature/coupons', title: 'Accept coupons at checkout', reviewed: true },
    { branch: 'feature/receipts', title: 'E-mail a receipt after payment', reviewed: false },
  ]
  for (const topic of topics) {
    await api('POST', `/projects/${project.id}/repository/commits`, {
      branch: topic.branch,
      start_branch: 'main',
      commit_message: topic.title,
      actions: [{ action: 'create', file_path: `${topic.branch.slice('feature/'.length)}.md`, content: `# ${topic.title}\n` }],
    })
    await api('POST', `/projects/${project.id}/merge_requests`, {
      source_branch: topic.branch,
      target_branch: 'main',
      title: topic.title,
      labels: 'checkout',
      milestone_id: milestone.id,
      reviewer_ids: topic.reviewed ? [reviewer.user.id] : [],
    })
  }
  browser = await launchBrowser()
})
afterAll(async () => {
  await closeBrowser(browser)
  await server.close()
})

describe('merge requests in a browser', () => {
  test('a Developer filters the list by reviewer and sorts it by title', { timeout: BROWSER_WALK_MS }, async () => {
    const list = `/${project.path_with_namespace}/-/merge_requests`
    const page = await signInAt(browser, server.url, { username: developer.user.username, password: developer.password }, list)
    try {
      expect(await page.locator('.merge-request-row').count()).toBe(3)
      await page.fill('#filter_reviewer_username', reviewer.user.username)
      await page.selectOption('#filter_sort', 'title_asc')
      await Promise.all([page.waitForURL(/reviewer_username=/), page.click('form.issuable-filters button[type="submit"]')])
      const url = new URL(page.url())
      expect(url.searchParams.get('reviewer_username')).toBe(reviewer.user.username)
      expect(url.searchParams.get('sort')).toBe('title_asc')
      expect(await page.locator('.merge-request-row a.title').allTextContents()).toEqual([
        'Accept coupons at checkout',
        'Keep the cart between visits',
      ])
      expect(await page.locator('.state-tabs [aria-current=page]').textContent()).toMatch(/Open\s+2/)
      expect(await page.textContent('.active-filters')).toContain(`Reviewer: @${reviewer.user.username}`)
      await lookAt(page, 'mr-list-filtered')

      await page.click(`.active-filters a[aria-label="Remove reviewer filter @${reviewer.user.username}"]`)
      expect(new URL(page.url()).searchParams.get('reviewer_username')).toBeNull()
      expect(await page.locator('.merge-request-row').count()).toBe(3)
    } finally {
      await page.context().close()
    }
  })

  test('a Developer previews a comment, then posts it', { timeout: BROWSER_WALK_MS }, async () => {
    const overview = `/${project.path_with_namespace}/-/merge_requests/1`
    const page = await signInAt(browser, server.url, { username: developer.user.username, password: developer.password }, overview)
    try {
      const text = 'The cart is kept for **a week**:\n\n- in a cookie\n- `cart_id` only'
      await page.fill('#note_note', text)
      await Promise.all([page.waitForLoadState('load'), page.click('.mr-new-note button[value="preview"]')])
      expect(await page.inputValue('#note_note')).toBe(text)
      expect(await page.textContent('#note_note_preview strong')).toBe('a week')
      expect(await page.locator('#note_note_preview li').allTextContents()).toEqual(['in a cookie', 'cart_id only'])
      expect(await page.locator('.note.user-note').count()).toBe(0)
      await lookAt(page, 'mr-comment-preview')

      await Promise.all([page.waitForURL(/#note_\d+$/), page.click('.mr-new-note button.primary')])
      expect(await page.locator('.note.user-note .note-text strong').textContent()).toBe('a week')
      expect(await page.locator('#note_note_preview').count()).toBe(0)
    } finally {
      await page.context().close()
    }
  })

  test('a Developer runs quick actions from a comment; the owner merges with /merge', { timeout: BROWSER_WALK_MS }, async () => {
    const overview = `/${project.path_with_namespace}/-/merge_requests/2`
    let page = await signInAt(browser, server.url, { username: developer.user.username, password: developer.password }, overview)
    try {
      await page.fill('#note_note', `Almost there.\n/assign me\n/reviewer @${owner.user.username}\n/draft`)
      await Promise.all([page.waitForURL(/#note_\d+$/), page.click('.mr-new-note button.primary')])
      expect((await page.textContent('.flash.notice'))?.trim()).toBe(
        `Assigned @${developer.user.username}. Assigned @${owner.user.username} as reviewer. Marked this merge request as a draft.`,
      )
      expect(await page.textContent('h1.issuable-title')).toBe('Draft: Accept coupons at checkout')
      expect(await page.textContent('.issuable-sidebar .assignees')).toContain(`@${developer.user.username}`)
      expect(await page.textContent('.issuable-sidebar .reviewers')).toContain(`@${owner.user.username}`)
      expect(await page.locator('.note.user-note .note-text').last().textContent()).toBe('Almost there.')
      await lookAt(page, 'mr-quick-actions')
      await page.fill('#note_note', '/ready')
      await Promise.all([page.waitForURL(server.url + overview), page.click('.mr-new-note button.primary')])
      expect((await page.textContent('.flash.notice'))?.trim()).toBe('Marked this merge request as ready.')
    } finally {
      await page.context().close()
    }
    page = await signInAt(browser, server.url, { username: owner.user.username, password: owner.password }, overview)
    try {
      await page.fill('#note_note', 'Thanks!\n/merge')
      await Promise.all([page.waitForURL(/#note_\d+$/), page.click('.mr-new-note button.primary')])
      expect((await page.textContent('.flash.notice'))?.trim()).toBe('Merged this merge request.')
      expect(await page.textContent('.issuable-header .issuable-state')).toBe('Merged')
      await lookAt(page, 'mr-quick-action-merged')
    } finally {
      await page.context().close()
    }
  })
})
