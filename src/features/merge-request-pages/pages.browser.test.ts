import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt, signInAt } from '../../testing/browser.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

/**
 * The review pages in a real browser, without JavaScript, as a Developer: the project's merge requests, one merge
 * request, its commits, its changes inline and side by side, then an issue it names; then a new merge request from a
 * branch (its diff seen before creating it), a thread on a diff line, the merge, and the issue it closed. Each page
 * fits a phone.
 */

let server: TestServer
let browser: Browser
let owner: Person
let developer: Person
let project: Record<string, any>
let mergeRequestIid: number
let issueIid: number
let taxIssueIid: number
let conflictingIid: number

async function api(method: string, path: string, body?: unknown) {
  const res = await client(server.url + '/api/v4')(method, path, { token: owner.token, body })
  expect(res.status, res.text).toBeLessThan(300)
  return res.body
}

const LONG_LINE = `export const endpoints = [${Array.from({ length: 30 }, (_, i) => `'/api/v4/resource/${i}'`).join(', ')}]`

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  owner = await createPerson(db, 'revieweeowner')
  developer = await createPerson(db, 'reviewerdev')
  project = await createRepositoryProject(client(server.url + '/api/v4'), owner, {
    name: 'Billing',
    path: 'billing',
    visibility: 'private',
  })
  await addProjectMember(db, developer, project.id, 30)
  const commits = `/projects/${project.id}/repository/commits`
  await api('POST', commits, {
    branch: 'main',
    commit_message: 'Add the invoice module',
    actions: [
      {
        action: 'create',
        file_path: 'src/invoice.ts',
        content: 'export function total(items: number[]) {\n  let sum = 0\n  for (const item of items) sum += item\n  return sum\n}\n',
      },
      { action: 'create', file_path: 'docs/old-guide.md', content: '# Guide\n\nHow to bill.\n' },
      { action: 'create', file_path: 'legacy.txt', content: 'remove me\n' },
    ],
  })
  await api('POST', commits, {
    branch: 'feature/discounts',
    start_branch: 'main',
    commit_message: 'Apply discounts to invoice totals',
    actions: [
      {
        action: 'update',
        file_path: 'src/invoice.ts',
        content:
          'export function total(items: number[], discount = 0) {\n  let sum = 0\n  for (const item of items) sum += item\n  return sum * (1 - discount)\n}\n',
      },
      { action: 'move', previous_path: 'docs/old-guide.md', file_path: 'docs/guide.md' },
      { action: 'delete', file_path: 'legacy.txt' },
    ],
  })
  await api('POST', commits, {
    branch: 'feature/discounts',
    commit_message: 'List the endpoints',
    actions: [{ action: 'create', file_path: 'src/endpoints.ts', content: `${LONG_LINE}\n` }],
  })
  const issue = await api('POST', `/projects/${project.id}/issues`, {
    title: 'Discounts are not applied',
    description:
      'Totals ignore the **discount** field; see ~billing.\n\n- [x] find the cause\n- [ ] fix it\n\n' +
      '<details><summary>Steps</summary>\n\nPress <kbd>Enter</kbd> on a cart with a discount.\n\n</details>',
    labels: 'bug,billing',
  })
  issueIid = issue.iid
  const mr = await api('POST', `/projects/${project.id}/merge_requests`, {
    source_branch: 'feature/discounts',
    target_branch: 'main',
    title: 'Apply discounts to invoice totals',
    description: `Closes #${issue.iid}.\n\nThe \`total\` function takes a discount now.`,
    labels: 'billing',
  })
  mergeRequestIid = mr.iid
  await api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/notes`, { body: 'Looks good; can we add a test?' })
  taxIssueIid = (await api('POST', `/projects/${project.id}/issues`, { title: 'Totals lack tax' })).iid
  await api('POST', commits, {
    branch: 'feature/tax',
    start_branch: 'main',
    commit_message: `Add tax to invoice totals\n\nThe rate comes from the customer's country. Closes #${taxIssueIid}`,
    actions: [
      {
        action: 'create',
        file_path: 'src/tax.ts',
        content: 'export function withTax(total: number, rate: number) {\n  return total * (1 + rate)\n}\n',
      },
    ],
  })
  // A merge request whose branch conflicts with main, for the merge widget's explanation.
  await api('POST', commits, {
    branch: 'main',
    commit_message: 'Add the settings',
    actions: [{ action: 'create', file_path: 'settings.txt', content: 'currency = EUR\n' }],
  })
  await api('POST', commits, {
    branch: 'feature/currency',
    start_branch: 'main',
    commit_message: 'Bill in dollars',
    actions: [{ action: 'update', file_path: 'settings.txt', content: 'currency = USD\n' }],
  })
  await api('POST', commits, {
    branch: 'main',
    commit_message: 'Bill in pounds',
    actions: [{ action: 'update', file_path: 'settings.txt', content: 'currency = GBP\n' }],
  })
  conflictingIid = (
    await api('POST', `/projects/${project.id}/merge_requests`, {
      source_branch: 'feature/currency',
      target_branch: 'main',
      title: 'Bill in dollars',
    })
  ).iid
  // Developers may merge into main here, as a project's Maintainer can allow.
  await api('DELETE', `/projects/${project.id}/protected_branches/main`)
  await api('POST', `/projects/${project.id}/protected_branches`, { name: 'main', push_access_level: 40, merge_access_level: 30 })
  await api('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, { body: `Fixed by !${mr.iid}.` })
  browser = await launchBrowser()
})
afterAll(async () => {
  await closeBrowser(browser)
  await server.close()
})

describe('the merge request pages in a browser', () => {
  test(
    'a Developer reviews a merge request: list, overview, commits, changes inline and side by side, then the issue',
    { timeout: BROWSER_WALK_MS },
    async () => {
      const list = `/${project.path_with_namespace}/-/merge_requests`
      const page = await signInAt(browser, server.url, { username: developer.user.username, password: developer.password }, list)
      try {
        expect(await page.textContent('h1')).toBe('Merge requests')
        expect(await page.locator('.state-tabs [aria-current=page]').textContent()).toMatch(/Open\s+2/)
        await lookAt(page, 'mr-list')

        await page.click(`#merge_request_${mergeRequestIid} a.title`)
        expect(new URL(page.url()).pathname).toBe(`${list}/${mergeRequestIid}`)
        expect(await page.textContent('h1')).toBe('Apply discounts to invoice totals')
        expect(await page.textContent('.description code')).toBe('total')
        expect(await page.locator('.note.user-note').count()).toBe(1)
        await lookAt(page, 'mr-overview')

        await page.click('.merge-request-tabs a:has-text("Commits")')
        expect(await page.locator('.commit-row').count()).toBe(2)
        await lookAt(page, 'mr-commits')

        await page.click('.merge-request-tabs a:has-text("Changes")')
        expect(await page.locator('details.diff-file').count()).toBe(4)
        expect(await page.textContent('.file-renamed .old-path')).toBe('docs/old-guide.md')
        await page.click('.file-tree a:has-text("src/invoice.ts")')
        expect(new URL(page.url()).hash).toMatch(/^#[0-9a-f]{40}$/)
        await lookAt(page, 'mr-changes-inline')

        await page.click('.view-switch a:has-text("Side-by-side")')
        expect(new URL(page.url()).search).toBe('?view=parallel')
        expect(await page.locator('table.diff-table.parallel').count()).toBeGreaterThan(0)
        await lookAt(page, 'mr-changes-parallel')

        await page.click('.merge-request-tabs a:has-text("Overview")')
        await page.click(`.description a[href$="/-/issues/${issueIid}"]`)
        expect(await page.textContent('h1')).toBe('Discounts are not applied')
        expect(await page.locator('.issuable-sidebar .label-badge').count()).toBe(2)
        expect(await page.textContent('.description .gl-label-link')).toBe('billing')
        expect(await page.isVisible('.description details kbd')).toBe(false)
        await page.click('.description details summary')
        expect(await page.textContent('.description details kbd')).toBe('Enter')
        await lookAt(page, 'mr-issue')

        await page.click('.issuable-sidebar .label-badge:has-text("bug")')
        expect(new URL(page.url()).searchParams.getAll('label_name[]')).toEqual(['bug'])
        expect(await page.locator('.issue-row').count()).toBe(1)
        await lookAt(page, 'mr-issue-list')
      } finally {
        await page.context().close()
      }
    },
  )

  test(
    'a Developer creates a merge request from a branch, seeing its diff first, comments on a diff line, merges it and sees the issue closed',
    { timeout: BROWSER_WALK_MS },
    async () => {
      const list = `/${project.path_with_namespace}/-/merge_requests`
      const page = await signInAt(browser, server.url, { username: developer.user.username, password: developer.password }, list)
      try {
        await page.click('a.button:has-text("New merge request")')
        expect(new URL(page.url()).pathname).toBe(`${list}/new`)
        await page.selectOption('#merge_request_source_branch', 'feature/tax')
        expect(await page.inputValue('#merge_request_target_branch')).toBe('main')
        await lookAt(page, 'mr-new-branches')
        await page.click('button:has-text("Compare branches and continue")')
        expect(await page.inputValue('#merge_request_title')).toBe('Add tax to invoice totals')
        expect(await page.inputValue('#merge_request_description')).toBe(
          `The rate comes from the customer's country. Closes #${taxIssueIid}`,
        )
        expect(await page.locator('.mr-new-changes details.diff-file').count()).toBe(1)
        expect(await page.textContent('.mr-new-changes .file-path')).toBe('src/tax.ts')
        expect(await page.locator('.mr-new-commits .commit-row').count()).toBe(1)
        await page.check('.mr-checkbox-label:has-text("billing") input')
        await lookAt(page, 'mr-new-form')
        await page.click('button:has-text("Create merge request")')
        expect(await page.textContent('h1')).toBe('Add tax to invoice totals')
        expect(await page.locator('.issuable-sidebar .label-badge').count()).toBe(1)
        const iid = Number(/\/merge_requests\/(\d+)$/.exec(new URL(page.url()).pathname)![1])
        await lookAt(page, 'mr-created')

        await page.click('.mr-actions a:has-text("Edit")')
        expect(await page.inputValue('#merge_request_title')).toBe('Add tax to invoice totals')
        await page.fill('#merge_request_title', 'Add tax to invoice totals, per country')
        await lookAt(page, 'mr-edit')
        await page.click('button:has-text("Save changes")')
        expect(await page.textContent('h1')).toBe('Add tax to invoice totals, per country')

        await page.click('.merge-request-tabs a:has-text("Changes")')
        await page.click('a.add-diff-note[aria-label="Add a comment to line 2"]')
        expect(new URL(page.url()).searchParams.get('line_code')).toMatch(/^[0-9a-f]{40}_\d+_2$/)
        await page.fill('.mr-line-form textarea', 'Should the rate be **rounded**?')
        await lookAt(page, 'mr-diff-note-form')
        await page.click('.mr-line-form button:has-text("Start a thread")')
        expect(await page.locator('.diff-notes-row .mr-thread').count()).toBe(1)
        expect(await page.textContent('.diff-notes-row .note-text strong')).toBe('rounded')
        await lookAt(page, 'mr-diff-thread')
        await page.click('.view-switch a:has-text("Side-by-side")')
        expect(await page.locator('table.diff-table.parallel .diff-notes-row .mr-thread').count()).toBe(1)
        await lookAt(page, 'mr-diff-thread-parallel')

        await page.click('.merge-request-tabs a:has-text("Overview")')
        expect(await page.textContent('.mr-widget-status')).toBe('Ready to merge!')
        expect(await page.locator('.discussion .mr-thread-context').textContent()).toContain('src/tax.ts')
        await page.click('.mr-commit-messages summary')
        await lookAt(page, 'mr-ready-to-merge')
        await page.click('.mr-merge-form button:has-text("Merge")')
        expect(await page.textContent('.issuable-header .issuable-state')).toBe('Merged')
        expect(await page.textContent('.mr-widget-status')).toContain('Merged by')
        await lookAt(page, 'mr-merged')

        await page.goto(`${server.url}${list}/${conflictingIid}`)
        expect(await page.textContent('.mr-widget-status')).toBe('Merge blocked: merge conflicts must be resolved.')
        expect(await page.locator('.mr-merge-form').count()).toBe(0)
        await lookAt(page, 'mr-blocked')

        await page.goto(`${server.url}/${project.path_with_namespace}/-/issues/${taxIssueIid}`)
        expect(await page.textContent('.issuable-header .issuable-state')).toBe('Closed')
        expect(await page.locator('.system-note').last().textContent()).toContain(`closed via merge request !${iid}`)
        await lookAt(page, 'mr-closed-issue')
      } finally {
        await page.context().close()
      }
    },
  )
})
