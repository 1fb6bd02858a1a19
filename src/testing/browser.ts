import { chromium, type Browser } from 'playwright-core'

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
