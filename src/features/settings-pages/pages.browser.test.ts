import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt, signInAt } from '../../testing/browser.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { startReceiver, type Receiver } from '../webhooks/testing.js'

/**
 * A project's settings in a real browser without JavaScript: a Maintainer renames the project, protects a branch,
 * makes a project access token and revokes it, adds a webhook and tests it, and invites a member; an Owner sees the
 * danger zone; a Reporter reads the members. Every page fits a phone.
 */

let server: TestServer
let receiver: Receiver
let browser: Browser
let api: ReturnType<typeof client>
let owner: Person
let maintainer: Person
let reporter: Person
let project: Record<string, any>
const XSS = '<img src=x onerror="document.title=\'pwned\'">'

beforeAll(async () => {
  ;[server, receiver] = await Promise.all([startTestServer(), startReceiver()])
  const db = server.database.db
  api = client(`${server.url}/api/v4`)
  owner = await createPerson(db, 'grace')
  maintainer = await createPerson(db, 'mia')
  reporter = await createPerson(db, 'rey')
  await createPerson(db, 'sam')
  project = await createRepositoryProject(api, owner, {
    name: 'Telescope',
    path: 'telescope',
    description: `Points at the sky. ${XSS}`,
  })
  await addProjectMember(db, maintainer, project.id, AccessLevel.MAINTAINER)
  await addProjectMember(db, reporter, project.id, AccessLevel.REPORTER)
  const branch = await api('POST', `/projects/${project.id}/repository/branches`, {
    token: owner.token,
    body: { branch: 'release-1.0', ref: 'main' },
  })
  expect(branch.status).toBe(201)
  browser = await launchBrowser()
})

afterAll(async () => {
  await closeBrowser(browser)
  await Promise.all([server.close(), receiver.close()])
})

describe('project settings in a browser', () => {
  test('a Maintainer renames the project and protects a branch', { timeout: BROWSER_WALK_MS }, async () => {
    const page = await signInAt(browser, server.url, { username: 'mia', password: maintainer.password }, '/grace/telescope/edit')
    expect(await page.title()).toBe('General settings · Grace / Telescope · svc')
    expect(await page.locator('#project_description').inputValue()).toBe(`Points at the sky. ${XSS}`)
    await lookAt(page, 'settings-general')
    await page.fill('#project_name_edit', 'Tele scope!')
    await Promise.all([page.waitForLoadState(), page.click('form.edit-project button[type="submit"]')])
    expect(await page.locator('#error_explanation li').allTextContents()).toEqual([
      expect.stringMatching(/^Name can contain only letters, digits/),
    ])
    expect(await page.locator('#project_name_edit').inputValue()).toBe('Tele scope!')
    await lookAt(page, 'settings-general-refused')
    await page.fill('#project_name_edit', 'Great Telescope')
    await Promise.all([page.waitForURL(`${server.url}/grace/telescope/edit`), page.click('form.edit-project button[type="submit"]')])
    expect(await page.locator('.flash.notice').textContent()).toBe("Project 'Great Telescope' was successfully updated.")
    expect(await page.locator('nav.sidebar a.context').textContent()).toBe('Great Telescope')
    expect((await api('GET', `/projects/${project.id}`, { token: owner.token })).body.name).toBe('Great Telescope')

    await page.click('nav.sidebar a:text-is("Repository") >> nth=-1')
    expect(new URL(page.url()).pathname).toBe('/grace/telescope/-/settings/repository')
    await page.fill('#protected_branch_name', 'release-*')
    await page.selectOption('#protected_branch_merge_access_level', { label: 'Developers + Maintainers' })
    await Promise.all([
      page.waitForURL(`${server.url}/grace/telescope/-/settings/repository`),
      page.click('form.new-protected-branch button'),
    ])
    expect(await page.locator('.flash.notice').textContent()).toBe('Protected branch was successfully created')
    expect(await page.locator('table.protected-branches code.ref-name').allTextContents()).toEqual(['main', 'release-*'])
    await lookAt(page, 'settings-repository')
    const branches = (await api('GET', `/projects/${project.id}/protected_branches`, { token: owner.token })).body
    expect(branches.find((branch: any) => branch.name === 'release-*').merge_access_levels[0].access_level).toBe(30)

    await page.goto(`${server.url}/grace/telescope/-/settings/merge_requests`)
    await page.check('#project_merge_method_ff')
    await Promise.all([
      page.waitForURL(`${server.url}/grace/telescope/-/settings/merge_requests`),
      page.click('form.merge-request-settings button'),
    ])
    expect(await page.locator('.flash.notice').textContent()).toBe("Project 'Great Telescope' was successfully updated.")
    await lookAt(page, 'settings-merge-requests')
    await page.context().close()
  })

  test('a Maintainer makes a project access token, sees it once, and revokes it', { timeout: BROWSER_WALK_MS }, async () => {
    const path = '/grace/telescope/-/settings/access_tokens'
    const page = await signInAt(browser, server.url, { username: 'mia', password: maintainer.password }, path)
    await lookAt(page, 'settings-access-tokens')
    await page.fill('#resource_access_token_name', 'Deploy bot')
    await page.selectOption('#resource_access_token_access_level', { label: 'Developer' })
    await page.check('#resource_access_token_scopes_read_api')
    await Promise.all([page.waitForURL(server.url + path), page.click('form.new-access-token button')])
    expect(await page.locator('.flash.notice').textContent()).toBe('Your new project access token has been created.')
    const value = await page.locator('#created-project-access-token').inputValue()
    expect((await api('GET', `/projects/${project.id}`, { token: value })).status).toBe(200)
    await lookAt(page, 'settings-access-token-created')
    await page.reload()
    expect(await page.locator('#created-project-access-token').count()).toBe(0)
    expect(await page.locator('table.project-access-tokens td.token-name').allTextContents()).toEqual(['Deploy bot'])
    await Promise.all([page.waitForURL(server.url + path), page.click('button[aria-label="Revoke Deploy bot"]')])
    expect(await page.locator('.flash.notice').textContent()).toBe('Revoked project access token Deploy bot!')
    expect((await api('GET', `/projects/${project.id}`, { token: value })).status).toBe(401)
    await page.context().close()
  })

  test('a Maintainer adds a webhook, tests it and reads the request it sent', { timeout: BROWSER_WALK_MS }, async () => {
    const allowed = await api('PUT', '/application/settings', {
      token: server.rootToken,
      body: { allow_local_requests_from_web_hooks_and_services: true },
    })
    expect(allowed.status).toBe(200)
    const path = '/grace/telescope/-/hooks'
    const page = await signInAt(browser, server.url, { username: 'mia', password: maintainer.password }, path)
    await page.click('details.add-webhook > summary')
    await lookAt(page, 'settings-webhooks-form')
    await page.fill('#hook_url', `${receiver.url}/chat`)
    await page.fill('#hook_name', 'Chat')
    await page.check('#hook_issues_events')
    await Promise.all([page.waitForURL(server.url + path), page.click('form.hook-form button[type="submit"]')])
    expect(await page.locator('.flash.notice').textContent()).toBe('Webhook was created')
    expect(await page.locator('.hook .hook-badges .badge').allTextContents()).toEqual([
      'Push events',
      'Issues events',
      'SSL Verification: enabled',
    ])
    await page.click('.hook details.test-hook > summary')
    await Promise.all([page.waitForURL(server.url + path), page.click('.hook button[value="push_events"]')])
    expect(await page.locator('.flash.notice').textContent()).toBe('Hook executed successfully: HTTP 200')
    expect(receiver.received.map((request) => [request.path, request.headers['x-gitlab-event']])).toEqual([['/chat', 'Push Hook']])
    await lookAt(page, 'settings-webhooks')
    await page.click('.hook a:text-is("Edit")')
    expect(await page.locator('table.hook-events tbody tr').count()).toBe(1)
    await lookAt(page, 'settings-webhook-edit')
    await page.click('table.hook-events a:text-is("View details")')
    expect(await page.locator('h1').textContent()).toBe('Request details')
    await lookAt(page, 'settings-webhook-request')
    await page.context().close()
  })

  test('a Maintainer invites a member; a Reporter reads the list without buttons', { timeout: BROWSER_WALK_MS }, async () => {
    const path = '/grace/telescope/-/project_members'
    const page = await signInAt(browser, server.url, { username: 'mia', password: maintainer.password }, path)
    await page.fill('#invite_username', 'sam')
    await page.selectOption('#invite_access_level', { label: 'Developer' })
    await Promise.all([page.waitForURL(server.url + path), page.click('form.invite-member button')])
    expect(await page.locator('.flash.notice').textContent()).toBe('Users were successfully added.')
    await lookAt(page, 'settings-members')
    const members = (await api('GET', `/projects/${project.id}/members`, { token: owner.token })).body
    expect(members.find((member: any) => member.username === 'sam').access_level).toBe(30)
    await page.context().close()

    const reading = await signInAt(browser, server.url, { username: 'rey', password: reporter.password }, path)
    expect(await reading.locator('main button').count()).toBe(0)
    expect(await reading.locator('nav.sidebar a[href$="/edit"]').count()).toBe(0)
    await lookAt(reading, 'settings-members-reporter')
    await reading.context().close()
  })

  test('an Owner sees visibility, archive, transfer and delete', { timeout: BROWSER_WALK_MS }, async () => {
    const page = await signInAt(browser, server.url, { username: 'grace', password: owner.password }, '/grace/telescope/edit')
    expect(await page.locator('section.danger-zone h2').textContent()).toBe('Delete project')
    await page.fill('#confirm_name_input', 'wrong')
    await Promise.all([page.waitForLoadState(), page.click('form.delete-project button')])
    expect(await page.locator('#confirm_name_input_error').textContent()).toBe('Enter the following to confirm: telescope')
    expect(await page.title()).not.toBe('pwned')
    await lookAt(page, 'settings-general-owner')
    await page.context().close()
  })
})
