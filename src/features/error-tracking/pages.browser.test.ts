import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import { BROWSER_WALK_MS, closeBrowser, horizontalOverflow, launchBrowser, lookAt, signInAt } from '../../testing/browser.js'
import { addTestMember, createTestGroup, createTestProject, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

/** The error pages in a real browser without JavaScript, for an error an SDK reported through a client key's DSN. */

const PASSWORD = 'error-pages-password'

let server: TestServer
let browser: Browser
let project: ProjectRow
let developer: User

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  const group = await createTestGroup(db, { visibility: 'private' })
  const subgroup = await createTestGroup(db, { visibility: 'private', parent: group })
  project = await createTestProject(db, { namespace: subgroup, visibility: 'private' })
  developer = await createTestUser(db, { password: PASSWORD })
  await addTestMember(db, { user: developer, project, accessLevel: 30 })
  browser = await launchBrowser()
})
afterAll(async () => {
  await closeBrowser(browser)
  await server.close()
})

/** Turns the project's integrated error tracking on once, and sends `event` to the collector with its client key. */
let publicKey: string | null = null
async function reportEvent(event: unknown) {
  const api = client(`${server.url}/api/v4`)
  if (publicKey === null) {
    const enabled = await api('PUT', `/projects/${project.id}/error_tracking/settings`, {
      token: server.rootToken,
      body: { active: true, integrated: true },
    })
    expect(enabled.status).toBe(200)
    const [key] = (await api('GET', `/projects/${project.id}/error_tracking/client_keys`, { token: server.rootToken })).body
    publicKey = key.public_key as string
  }
  const stored = await fetch(`${server.url}/api/v4/error_tracking/collector/api/${project.id}/store`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sentry-auth': `Sentry sentry_version=7, sentry_key=${publicKey}` },
    body: JSON.stringify(event),
  })
  expect(stored.status).toBe(200)
}

test(
  'an SDK event shows in the error list; its page shows the stack trace; a Developer resolves it',
  { timeout: BROWSER_WALK_MS },
  async () => {
    const event = {
      platform: 'python',
      environment: 'production',
      exception: {
        values: [
          {
            type: 'ZeroDivisionError',
            value: 'division by zero',
            stacktrace: {
              frames: [
                {
                  filename: 'calc.py',
                  module: 'calc',
                  function: 'divide',
                  lineno: 7,
                  context_line: 'return a / b',
                  pre_context: ['def divide(a, b):'],
                },
              ],
            },
          },
        ],
      },
    }
    await reportEvent(event)

    const list = `/${project.full_path}/-/error_tracking`
    const page = await signInAt(browser, server.url, { username: developer.username, password: PASSWORD }, list)
    try {
      expect(await page.textContent('.error-title a')).toBe('ZeroDivisionError division by zero')
      expect(await page.textContent('.error-culprit')).toBe('divide(calc)')
      await Promise.all([page.waitForURL(/\/details$/), page.click('.error-title a')])
      expect(await page.textContent('h1.error-title')).toBe('ZeroDivisionError division by zero')
      expect(await page.textContent('.frame-function')).toBe('divide')
      expect(await page.textContent('.frame-context')).toBe('6  def divide(a, b):\n7  return a / b\n')
      // Resolve and Ignore sit beside the title, as on GitLab's error page.
      expect(await page.locator('.error-header .actions button').allTextContents()).toEqual(['Ignore', 'Resolve'])
      await lookAt(page, 'errors-details')
      await Promise.all([page.waitForURL(/\/details$/), page.click('button.error-status-resolved')])
      expect(await page.textContent('dd.error-status')).toBe('Resolved')
      await page.goto(server.url + list)
      expect(await page.textContent('.no-errors')).toBe('No errors to display.')
      await page.click('a.status-tab:has-text("Resolved")')
      expect(await page.textContent('.error-status')).toBe('Resolved')
    } finally {
      await page.context().close()
    }
  },
)

test(
  'a long source line scrolls inside its own box at 1280 and 390 px; the culprit frame is marked',
  { timeout: BROWSER_WALK_MS },
  async () => {
    const longLine = `total = ${Array.from({ length: 120 }, (_, n) => `weights[${n}] * values[${n}]`).join(' + ')}`
    await reportEvent({
      platform: 'python',
      exception: {
        values: [
          {
            type: 'OverflowError',
            value: 'math range error',
            stacktrace: {
              frames: [
                {
                  filename: 'framework/runner.py',
                  module: 'framework.runner',
                  function: 'run',
                  lineno: 40,
                  context_line: 'handler()',
                  in_app: false,
                },
                {
                  filename: 'stats/weighted.py',
                  module: 'stats.weighted',
                  function: 'weighted_total',
                  lineno: 12,
                  pre_context: ['def weighted_total(weights, values):'],
                  context_line: longLine,
                  post_context: ['    return total'],
                  in_app: true,
                },
              ],
            },
          },
        ],
      },
    })
    const list = `/${project.full_path}/-/error_tracking`
    const page = await signInAt(browser, server.url, { username: developer.username, password: PASSWORD }, list)
    try {
      await Promise.all([page.waitForURL(/\/details$/), page.click('.error-title a:has-text("OverflowError")')])
      expect(await page.locator('.frame.culprit .frame-function').textContent()).toBe('weighted_total')
      expect(await page.locator('.frame.culprit .culprit-badge').textContent()).toBe('Culprit')
      expect(await page.locator('.frame.culprit .context-line.current').textContent()).toBe(`12  ${longLine}\n`)
      expect(await page.locator('.frame').count()).toBe(2)
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 })
        expect(await horizontalOverflow(page), `the page overflows at ${width} px`).toBe(0)
        // The line is there, in a box that scrolls sideways.
        const { scrollWidth, clientWidth } = await page.evaluate<{ scrollWidth: number; clientWidth: number }>(
          "(({ scrollWidth, clientWidth }) => ({ scrollWidth, clientWidth }))(document.querySelector('.frame.culprit .frame-context'))",
        )
        expect(scrollWidth).toBeGreaterThan(clientWidth)
        expect(clientWidth).toBeLessThanOrEqual(width)
      }
      await lookAt(page, 'errors-details-long-line')
    } finally {
      await page.context().close()
    }
  },
)
