import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt, signInAt } from '../../testing/browser.js'
import { createTestGroup, addTestMember } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

/**
 * The pages people start from, in a real browser: a visitor explores, a Guest of a private project reads its
 * overview and finds it again from the dashboard, the group and the search box, stars and forks a public project;
 * each page fits a phone.
 */

let server: TestServer
let browser: Browser
let owner: Person
let guest: Person
let hidden: Record<string, any>
const XSS = '<img src=x onerror="document.title=\'pwned\'">'

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  const api = client(`${server.url}/api/v4`)
  owner = await createPerson(db, 'grace')
  guest = await createPerson(db, 'gus')
  const group = await createTestGroup(db, { path: 'observatory', name: 'Observatory' })
  await addTestMember(db, { user: owner.user, group, accessLevel: AccessLevel.OWNER })
  const res = await api('POST', '/projects', {
    token: owner.token,
    body: {
      name: 'Telescope',
      path: 'telescope',
      namespace_id: group.id,
      visibility: 'public',
      initialize_with_readme: true,
      description: `Points at the sky. ${XSS} A very long word: ${'x'.repeat(120)}`,
    },
  })
  expect(res.status, res.text).toBe(201)
  hidden = await createRepositoryProject(api, owner, { name: 'Logbook', path: 'logbook', visibility: 'private' })
  await addProjectMember(db, guest, hidden.id, AccessLevel.GUEST)
  browser = await launchBrowser()
})

afterAll(async () => {
  await closeBrowser(browser)
  await server.close()
})

describe('overview pages in a browser', () => {
  test('a visitor explores public projects and opens one; the private one stays invisible', { timeout: BROWSER_WALK_MS }, async () => {
    const page = await (await browser.newContext()).newPage()
    await page.goto(`${server.url}/explore`)
    expect(await page.locator('ul.projects a.title').allTextContents()).toEqual(['Observatory / Telescope'])
    await lookAt(page, 'overview-explore')
    await page.click('text=Observatory / Telescope')
    expect(new URL(page.url()).pathname).toBe('/observatory/telescope')
    expect(await page.title()).toBe('Telescope · Observatory / Telescope · svc')
    expect(await page.locator('.readme > header h2').textContent()).toBe('README.md')
    // The description's raw HTML keeps the image and loses its handler, as GitLab's sanitizing does.
    expect(await page.locator('img[src="x"]').count()).toBe(1)
    expect(await page.locator('img[onerror]').count()).toBe(0)
    await lookAt(page, 'overview-project-visitor')
    expect(await page.title()).toBe('Telescope · Observatory / Telescope · svc')
    await page.goto(`${server.url}/grace/logbook`)
    expect(new URL(page.url()).pathname).toBe('/users/sign_in')
    await page.context().close()
  })

  test(
    'a Guest finds the private project from the dashboard and the search box, and reads the group',
    { timeout: BROWSER_WALK_MS },
    async () => {
      const page = await signInAt(browser, server.url, { username: guest.user.username, password: guest.password }, '/')
      expect(await page.locator('h1').textContent()).toBe('Welcome, Gus')
      expect(await page.locator('ul.projects a.title').allTextContents()).toEqual(['Grace / Logbook'])
      await lookAt(page, 'overview-dashboard')
      await page.click('text=Grace / Logbook')
      expect(new URL(page.url()).pathname).toBe('/grace/logbook')
      // A Guest of a private project may not read its code or merge requests, so the page shows no files and the
      // sidebar no merge requests.
      expect(await page.locator('.readme').count()).toBe(0)
      expect(await page.locator('nav.sidebar a').allTextContents()).toEqual([
        'Logbook',
        'Project overview',
        'Issues',
        'Milestones',
        'Labels',
        'Snippets',
        'Members',
      ])
      await lookAt(page, 'overview-project-guest')
      await page.fill('header input[name="search"]', 'observ')
      await Promise.all([page.waitForURL(/\/search\?search=observ$/), page.press('header input[name="search"]', 'Enter')])
      await lookAt(page, 'overview-search')
      await page.click('text=Observatory >> nth=0')
      expect(new URL(page.url()).pathname).toBe('/groups/observatory')
      expect(await page.locator('ul.projects a.title').allTextContents()).toEqual(['Observatory / Telescope'])
      await lookAt(page, 'overview-group')
      await page.goto(`${server.url}/grace`)
      await lookAt(page, 'overview-user')
      await page.context().close()
    },
  )

  test('an administrator sees the private project too', { timeout: BROWSER_WALK_MS }, async () => {
    const admin = await createPerson(server.database.db, 'ada')
    await server.database.db.updateTable('users').set({ admin: 1 }).where('id', '=', admin.user.id).execute()
    const page = await signInAt(browser, server.url, { username: admin.user.username, password: admin.password }, '/')
    await page.goto(`${server.url}/explore`)
    expect((await page.locator('ul.projects a.title').allTextContents()).sort()).toEqual(['Grace / Logbook', 'Observatory / Telescope'])
    await page.goto(`${server.url}/grace/logbook`)
    expect(await page.locator('.readme > header h2').textContent()).toBe('README.md')
    await page.context().close()
  })

  test(
    'a signed-in user stars a project by clicking, sees the count change, reads the starrers and forks the project',
    { timeout: BROWSER_WALK_MS },
    async () => {
      const page = await signInAt(browser, server.url, { username: guest.user.username, password: guest.password }, '/')
      await page.goto(`${server.url}/observatory/telescope`)
      expect(await page.locator('form.stars .count').textContent()).toBe('0')
      expect((await page.locator('button.star-toggle').textContent())?.trim()).toBe('\u2606 Star')
      await Promise.all([page.waitForURL(`${server.url}/observatory/telescope`), page.click('button.star-toggle')])
      expect(await page.locator('form.stars .count').textContent()).toBe('1')
      expect((await page.locator('button.star-toggle').textContent())?.trim()).toBe('\u2605 Unstar')
      await lookAt(page, 'overview-project-starred')
      await Promise.all([page.waitForURL(`${server.url}/observatory/telescope/-/starrers`), page.click('form.stars .count')])
      expect(await page.locator('ul.starrers a.title').allTextContents()).toEqual(['Gus'])
      await lookAt(page, 'overview-starrers')
      await page.goto(`${server.url}/observatory/telescope`)
      await Promise.all([
        page.waitForURL(`${server.url}/observatory/telescope/-/forks/new`),
        page.click('.count-button.forks >> text=Fork'),
      ])
      expect((await page.locator('#fork_namespace_key option').allTextContents()).map((text) => text.trim())).toEqual([
        `${server.url}/gus/`,
      ])
      await lookAt(page, 'overview-fork-new')
      await Promise.all([page.waitForURL(`${server.url}/gus/telescope`), page.click('main button[type="submit"]')])
      await page.goto(`${server.url}/observatory/telescope/-/forks/new`)
      await Promise.all([page.waitForURL(`${server.url}/observatory/telescope/-/forks`), page.click('main button[type="submit"]')])
      expect(await page.locator('.flash.alert li').allTextContents()).toEqual([
        'Name has already been taken',
        'Path has already been taken',
      ])
      await lookAt(page, 'overview-fork-refused')
      await page.goto(`${server.url}/observatory/telescope`)
      await Promise.all([page.waitForURL(`${server.url}/observatory/telescope/-/forks`), page.click('.count-button.forks .count')])
      expect(await page.locator('ul.projects a.title').allTextContents()).toEqual(['Gus / Telescope'])
      await lookAt(page, 'overview-forks')
      await page.context().close()
    },
  )
})
