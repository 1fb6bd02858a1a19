import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type Page } from 'playwright-core'
import { expect } from 'vitest'

/** Debian's chromium package; CI installs it when missing (.ci/run). */
export const CHROMIUM_PATH = '/usr/bin/chromium'

/** Flags for a quiet headless run in a container: no sandbox (no user namespaces), no background traffic. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-gpu',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]

/** A headless Chromium for browser tests; close it with `closeBrowser`. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS })
}

export async function closeBrowser(browser: Browser | undefined) {
  await browser?.close()
}

/** How long a test walking several pages may take: it screenshots every page at two widths, on a busy machine too. */
export const BROWSER_WALK_MS = 90_000

/** Where browser tests keep their screenshots (a CI artifact; not committed). */
export const SCREENSHOT_DIR = new URL('../../test-artifacts/screenshots/', import.meta.url)

/**
 * Screenshots of the page at a phone's width (390 px) and a laptop's (1280 px), whole pages, as
 * `test-artifacts/screenshots/<name>-390.png` and `-1280.png`; the page is left at 1280 px.
 */
export async function screenshots(page: Page, name: string) {
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 })
    await page.screenshot({ path: fileURLToPath(new URL(`${name}-${width}.png`, SCREENSHOT_DIR)), fullPage: true })
  }
}

/** The page's widest element overflow: a page readable on a phone scrolls only inside its own boxes. */
export async function horizontalOverflow(page: Page): Promise<number> {
  // A string, evaluated in the page: the program's types know no DOM.
  return page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')
}

/** Screenshots at both widths (see `screenshots`), and nothing wider than a phone's screen at 390 px. */
export async function lookAt(page: Page, name: string) {
  await page.setViewportSize({ width: 390, height: 900 })
  expect(await horizontalOverflow(page), `${name} overflows at 390 px`).toBe(0)
  await screenshots(page, name)
}

/**
 * A new browser, without JavaScript, that opens `path`, is sent to sign in, signs in as `who` and comes back to
 * `path`: the page, at 1280 px.
 */
export async function signInAt(
  browser: Browser,
  baseUrl: string,
  who: { username: string; password: string },
  path: string,
): Promise<Page> {
  const page = await (await browser.newContext({ javaScriptEnabled: false })).newPage()
  await page.goto(baseUrl + path)
  expect(new URL(page.url()).pathname).toBe('/users/sign_in')
  await page.fill('input[name="user[login]"]', who.username)
  await page.fill('input[name="user[password]"]', who.password)
  await Promise.all([page.waitForURL(baseUrl + path), page.click('main button[type="submit"]')])
  return page
}
