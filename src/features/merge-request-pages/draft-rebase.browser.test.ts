import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt, signInAt } from '../../testing/browser.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

/**
 * A draft merge request whose branch is behind in a fast-forward project, in a real browser without JavaScript, as a
 * Developer: Mark as ready, then Rebase, "Rebase in progress" until the job ran, then ready to merge; and a rebase
 * that conflicts, said in the widget. Each page fits a phone.
 */

let server: TestServer
let browser: Browser
let owner: Person
let developer: Person
let project: Record<string, any>
let draftIid: number
let clashIid: number

async function api(method: string, path: string, body?: unknown, who: Person = owner) {
  const res = await client(server.url + '/api/v4')(method, path, { token: who.token, body })
  expect(res.status, res.text).toBeLessThan(300)
  return res.body
}

async function commit(branch: string, file: string, content: string, message: string, start?: string) {
  await api('POST', `/projects/${project.id}/repository/commits`, {
    branch,
    ...(start ? { start_branch: start } : {}),
    commit_message: message,
    actions: [{ action: 'create', file_path: file, content }],
  })
}

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  owner = await createPerson(db, 'rebaseowner')
  developer = await createPerson(db, 'rebasedev')
  project = await createRepositoryProject(client(server.url + '/api/v4'), owner, {
    name: 'Ledger',
    path: 'ledger',
    visibility: 'private',
    merge_method: 'ff',
  })
  await addProjectMember(db, developer, project.id, 30)
  await commit('feature/totals', 'totals.ts', 'export const total = 1\n', 'Add the totals', 'main')
  await commit('feature/clash', 'ledger.txt', 'ours\n', 'Write the ledger', 'main')
  const draft = await api(
    'POST',
    `/projects/${project.id}/merge_requests`,
    { source_branch: 'feature/totals', target_branch: 'main', title: 'Draft: Compute the totals' },
    developer,
  )
  const clash = await api(
    'POST',
    `/projects/${project.id}/merge_requests`,
    { source_branch: 'feature/clash', target_branch: 'main', title: 'Write the ledger' },
    developer,
  )
  draftIid = draft.iid
  clashIid = clash.iid
  await commit('main', 'ledger.txt', 'theirs\n', 'Start the ledger on main')
  browser = await launchBrowser()
}, BROWSER_WALK_MS)

afterAll(async () => {
  await closeBrowser(browser)
  await server.close()
})

test(
  'Mark as ready, then Rebase: the widget says the rebase is running, then that it can be merged',
  async () => {
    const path = `/${project.path_with_namespace}/-/merge_requests/${draftIid}`
    const page = await signInAt(browser, server.url, { username: developer.user.username, password: developer.password }, path)
    const widget = page.locator('.mr-widget')
    await expect(widget.locator('h2').textContent()).resolves.toContain(
      'Merge blocked: Select Mark as ready to remove it from Draft status.',
    )
    await expect(page.locator('.mr-actions button', { hasText: 'Mark as ready' }).count()).resolves.toBe(1)
    await expect(widget.locator('button', { hasText: 'Rebase' }).count()).resolves.toBe(1)
    await lookAt(page, 'mr-draft-behind')

    await Promise.all([page.waitForURL(server.url + path), widget.locator('button', { hasText: 'Mark as ready' }).click()])
    await expect(page.locator('h1.issuable-title').textContent()).resolves.toBe('Compute the totals')
    await expect(page.locator('.mr-actions button', { hasText: 'Mark as draft' }).count()).resolves.toBe(1)
    await expect(widget.locator('h2').textContent()).resolves.toContain(
      'Merge blocked: the source branch must be rebased onto the target branch.',
    )
    await lookAt(page, 'mr-needs-rebase')

    await Promise.all([page.waitForURL(server.url + path), widget.locator('button', { hasText: 'Rebase' }).click()])
    await expect(widget.locator('.mr-rebase-status').textContent()).resolves.toContain('Rebase in progress')
    await lookAt(page, 'mr-rebase-in-progress')

    expect(await server.runJobs()).toBe(1)
    await page.reload()
    await expect(widget.locator('h2').textContent()).resolves.toContain('Ready to merge by members who can write to the target branch.')
    await expect(widget.locator('.mr-rebase-status').count()).resolves.toBe(0)
    await lookAt(page, 'mr-rebased')

    const clashPath = `/${project.path_with_namespace}/-/merge_requests/${clashIid}`
    await page.goto(server.url + clashPath)
    // A conflicting branch is not offered Rebase; one asked for through the API fails and says why.
    await expect(widget.locator('button', { hasText: 'Rebase' }).count()).resolves.toBe(0)
    await api('PUT', `/projects/${project.id}/merge_requests/${clashIid}/rebase`, {}, developer)
    expect(await server.runJobs()).toBe(1)
    await page.reload()
    await expect(widget.locator('.mr-merge-error').textContent()).resolves.toBe(
      'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.',
    )
    await lookAt(page, 'mr-rebase-failed')
  },
  BROWSER_WALK_MS,
)
