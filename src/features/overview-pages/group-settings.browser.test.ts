import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import type { User } from '../../core/caller.js'
import type { NamespaceRow } from '../../db/schema.js'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt, signInAt } from '../../testing/browser.js'
import { addTestMember, createTestGroup, createTestProject, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

/** A group's Owner at its settings and members pages, in a real browser without JavaScript. */

const PASSWORD = 'group-settings-password'

let server: TestServer
let browser: Browser
let group: NamespaceRow
let owner: User
let newcomer: User

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  group = await createTestGroup(db, { visibility: 'private', path: 'field-ops', name: 'Field Ops' })
  await createTestProject(db, { namespace: group, visibility: 'private' })
  owner = await createTestUser(db, { password: PASSWORD })
  newcomer = await createTestUser(db, { username: 'nadia', name: 'Nadia Novak' })
  await addTestMember(db, { user: owner, group, accessLevel: AccessLevel.OWNER })
  browser = await launchBrowser()
})
afterAll(async () => {
  await closeBrowser(browser)
  await server.close()
})

test('a group Owner renames the group, then invites a member with a role and an expiry date', { timeout: BROWSER_WALK_MS }, async () => {
  const edit = `/groups/${group.full_path}/-/edit`
  const page = await signInAt(browser, server.url, { username: owner.username, password: PASSWORD }, edit)
  try {
    expect(await page.textContent('h1')).toBe('General settings')
    expect(await page.inputValue('#group_name')).toBe('Field Ops')
    await lookAt(page, 'group-settings')
    await page.fill('#group_name', 'Field Operations')
    await page.fill('#group_description', 'Everyone who works on site.')
    await Promise.all([page.waitForURL(server.url + edit), page.click('form.edit-group button[type="submit"]')])
    expect(await page.textContent('.flash.notice')).toBe("Group 'Field Operations' was successfully updated.")
    expect(await page.inputValue('#group_name')).toBe('Field Operations')

    // The sidebar leads to the members page.
    const members = `/groups/${group.full_path}/-/group_members`
    await Promise.all([page.waitForURL(server.url + members), page.click('nav a:text-is("Members")')])
    await page.fill('#invite_username', newcomer.username)
    await page.selectOption('#invite_access_level', { label: 'Developer' })
    const expires = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10)
    await page.fill('#invite_expires_at', expires)
    await Promise.all([page.waitForURL(server.url + members), page.click('form.invite-member button[type="submit"]')])
    expect(await page.textContent('.flash.notice')).toBe('Users were successfully added.')
    const row = page.locator('tr', { hasText: '@nadia' })
    expect(await row.locator('select').inputValue()).toBe('30')
    expect(await row.locator('input[type="date"]').inputValue()).toBe(expires)
    await lookAt(page, 'group-members')

    const api = client(`${server.url}/api/v4`)
    const shown = await api('GET', `/groups/${group.id}/members/${newcomer.id}`, { token: server.rootToken })
    expect(shown.body).toMatchObject({ username: 'nadia', access_level: 30, expires_at: expires })
    expect((await api('GET', `/groups/${group.id}`, { token: server.rootToken })).body).toMatchObject({
      name: 'Field Operations',
      description: 'Everyone who works on site.',
    })
  } finally {
    await page.context().close()
  }
})

test("on Premium, a group Owner finds Webhooks under the group's Settings and opens the form", { timeout: BROWSER_WALK_MS }, async () => {
  const premium = await startTestServer({ SVC_TIER: 'premium' })
  try {
    const db = premium.database.db
    const team = await createTestGroup(db, { path: 'hooked-ops', name: 'Hooked Ops' })
    const teamOwner = await createTestUser(db, { password: PASSWORD })
    await addTestMember(db, { user: teamOwner, group: team, accessLevel: AccessLevel.OWNER })
    const page = await signInAt(
      browser,
      premium.url,
      { username: teamOwner.username, password: PASSWORD },
      `/groups/${team.full_path}/-/edit`,
    )
    try {
      await Promise.all([page.waitForURL(`${premium.url}/groups/${team.full_path}/-/hooks`), page.click('nav a:text-is("Webhooks")')])
      expect(await page.textContent('h1')).toBe('Webhooks')
      await page.click('details.add-webhook > summary')
      expect(await page.isChecked('#hook_member_events')).toBe(false)
      await lookAt(page, 'group-webhooks')
    } finally {
      await page.context().close()
    }
  } finally {
    await premium.close()
  }
})
