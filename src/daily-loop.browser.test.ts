import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createTestUser } from './testing/factories.js'
import { GitClient, repoUrl } from './testing/git.js'
import { client } from './testing/http.js'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt, signInAt } from './testing/browser.js'
import { createPerson, type Person } from './testing/repositories.js'
import { startTestServer, type TestServer } from './testing/server.js'

/**
 * A day's work in svc through a browser without JavaScript, as a Maintainer and a Developer: a project with a README,
 * a member invited, an issue with a quick action, a merge request reviewed line by line and merged, the issue it
 * names closed; a protected branch refusing the Developer's push; an administrator blocking a user who then cannot
 * sign in.
 */

const ADMIN_PASSWORD = 'admin-password-1'

let server: TestServer
let browser: Browser
let git: GitClient
let maya: Person
let dev: Person

beforeAll(async () => {
  server = await startTestServer()
  maya = await createPerson(server.database.db, 'maya')
  dev = await createPerson(server.database.db, 'dev')
  git = new GitClient()
  browser = await launchBrowser()
})
afterAll(async () => {
  await closeBrowser(browser)
  git.remove()
  await server.close()
})

async function submit(page: Page, selector: string) {
  await Promise.all([page.waitForLoadState('load'), page.click(selector)])
}

test(
  'a project, an issue, a reviewed merge request closing it, a protected branch and a blocked user',
  { timeout: BROWSER_WALK_MS * 2 },
  async () => {
    const api = client(`${server.url}/api/v4`)
    const project = '/maya/daily'

    // The Maintainer creates the project with its README and invites the Developer.
    const owner = await signInAt(browser, server.url, { username: 'maya', password: maya.password }, '/projects/new')
    await owner.fill('#project_name', 'Daily')
    await owner.fill('#project_path', 'daily')
    await submit(owner, 'button:has-text("Create project")')
    expect(new URL(owner.url()).pathname).toBe(project)
    expect(await owner.textContent('#readme-heading')).toBe('README.md')
    await owner.goto(`${server.url}${project}/-/project_members`)
    await owner.fill('#invite_username', 'dev')
    await owner.selectOption('#invite_access_level', '30')
    await submit(owner, 'button:has-text("Invite")')
    expect(await owner.textContent('#members-heading')).toBe('Members (2)')
    await lookAt(owner, 'daily-members')

    // The Developer opens an issue and takes it with a quick action.
    const developer = await signInAt(browser, server.url, { username: 'dev', password: dev.password }, `${project}/-/issues/new`)
    await developer.fill('#issue_title', 'Totals ignore the last line')
    await submit(developer, 'button[value="save"]')
    expect(new URL(developer.url()).pathname).toBe(`${project}/-/issues/1`)
    await developer.fill('#note_note', "I'll take it.\n/assign me")
    await submit(developer, '.new-note button[value="comment"]')
    expect(await developer.textContent('.issuable-sidebar .assignees')).toContain('@dev')
    expect(await developer.textContent('.discussion')).toContain('assigned to @dev')
    await lookAt(developer, 'daily-issue')

    // A branch and a commit through the API, then the merge request from the pages, its diff seen first.
    const projectId = (await api('GET', `/projects/${encodeURIComponent('maya/daily')}`, { token: dev.token })).body.id
    const committed = await api('POST', `/projects/${projectId}/repository/commits`, {
      token: dev.token,
      body: {
        branch: 'fix-totals',
        start_branch: 'main',
        commit_message: 'Count the last line',
        actions: [{ action: 'create', file_path: 'totals.ts', content: 'export const lines = (n: number) => n + 1\n' }],
      },
    })
    expect(committed.status, committed.text).toBe(201)
    await developer.goto(`${server.url}${project}/-/merge_requests`)
    await submit(developer, 'a.button:has-text("New merge request")')
    await developer.selectOption('#merge_request_source_branch', 'fix-totals')
    await submit(developer, 'button:has-text("Compare branches and continue")')
    expect(await developer.textContent('.mr-new-changes .file-path')).toBe('totals.ts')
    await developer.fill('#merge_request_description', 'Closes #1')
    await submit(developer, 'button:has-text("Create merge request")')
    expect(new URL(developer.url()).pathname).toBe(`${project}/-/merge_requests/1`)

    // The Developer reviews the change and comments on its line.
    await submit(developer, '.merge-request-tabs a:has-text("Changes")')
    await submit(developer, 'a.add-diff-note[aria-label="Add a comment to line 1"]')
    await developer.fill('.mr-line-form textarea', 'Off by one is intended here.')
    await submit(developer, '.mr-line-form button:has-text("Start a thread")')
    expect(await developer.textContent('.diff-file')).toContain('Off by one is intended here.')
    await lookAt(developer, 'daily-review')

    // The Maintainer merges; the issue is closed by "Closes #1".
    await owner.goto(`${server.url}${project}/-/merge_requests/1`)
    await submit(owner, '.mr-merge-form button:has-text("Merge")')
    expect(await owner.textContent('.issuable-header .issuable-state')).toBe('Merged')
    await owner.goto(`${server.url}${project}/-/issues/1`)
    expect(await owner.textContent('.issuable-header .issuable-state')).toBe('Closed')
    await lookAt(owner, 'daily-issue-closed')

    // The Maintainer protects a branch for Maintainers; the Developer's push to it is refused.
    const branch = await api('POST', `/projects/${projectId}/repository/branches`, {
      token: maya.token,
      body: { branch: 'release', ref: 'main' },
    })
    expect(branch.status, branch.text).toBe(201)
    await owner.goto(`${server.url}${project}/-/settings/repository`)
    await owner.fill('#protected_branch_name', 'release')
    await owner.selectOption('#protected_branch_push_access_level', '40')
    await submit(owner, 'form.new-protected-branch button:has-text("Protect")')
    await lookAt(owner, 'daily-protected')
    const { run, dir } = await git.clone(repoUrl(server.url, 'maya/daily', 'dev', dev.password))
    expect(run.code, run.stderr).toBe(0)
    await git.ok(dir, 'commit', '--allow-empty', '-m', 'Try the release branch')
    const push = await git.run(dir, 'push', 'origin', 'HEAD:release')
    expect(push.code).not.toBe(0)
    expect(push.stderr).toContain('You are not allowed to push code to protected branches on this project.')

    // An administrator blocks the Developer, who can no longer sign in.
    const admin = await createTestUser(server.database.db, { admin: 1, password: ADMIN_PASSWORD })
    const adminPage = await signInAt(browser, server.url, { username: admin.username, password: ADMIN_PASSWORD }, '/admin/users/dev')
    await submit(adminPage, 'button:has-text("Block")')
    expect(await adminPage.textContent('.flash.notice')).toBe('Successfully blocked')
    const again = await (await browser.newContext({ javaScriptEnabled: false })).newPage()
    await again.goto(`${server.url}/users/sign_in`)
    await again.fill('input[name="user[login]"]', 'dev')
    await again.fill('input[name="user[password]"]', dev.password)
    await submit(again, 'main button[type="submit"]')
    expect(new URL(again.url()).pathname).toBe('/users/sign_in')
    expect(await again.textContent('.flash.alert')).toContain('blocked')
    await lookAt(again, 'daily-blocked')
  },
)
