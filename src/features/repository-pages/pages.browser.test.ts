import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BROWSER_WALK_MS, closeBrowser, launchBrowser, lookAt, signInAt } from '../../testing/browser.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { BrowseFixture, type CreatedProject, type Person } from '../repository-browse/browse-fixtures.js'

/**
 * The repository pages in a real browser, without JavaScript, as a Developer: files with their last commits, the file
 * finder, a file, its blame and history, a commit and a comparison, switching branches with the switcher; each page
 * screenshot at 390 and 1280 px.
 */

let server: TestServer
let browser: Browser
let fixture: BrowseFixture
let developer: Person
let project: CreatedProject

const APP = `import { readFile } from 'node:fs/promises'

/** Reads the configuration, falling back to the defaults. */
export async function loadConfig(path: string): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>
  } catch {
    return { port: 8080, host: '127.0.0.1', name: "a very long default name that goes on and on well past the width of any phone screen to check scrolling" }
  }
}
`

beforeAll(async () => {
  server = await startTestServer()
  fixture = new BrowseFixture(server)
  const owner = await fixture.person('mira')
  developer = await fixture.person('devi')
  project = await fixture.project(owner, { initialize_with_readme: false, visibility: 'private' })
  await fixture.member(developer, project.id, 30)
  const dir = await fixture.clone(owner, project.path_with_namespace)
  await fixture.commit(
    dir,
    {
      'README.md': '# Settings service\n\nReads `config.json` and serves it.\n\n```ts\nconst answer = 42\n```\n',
      'src/config.ts': APP,
      'src/server.ts': 'export const PORT = 8080\n',
      'docs/usage.md': '# Usage\n',
      'long-line.txt': `${'a long line without spaces '.repeat(20).replaceAll(' ', '_')}\n`,
    },
    'Start the settings service',
  )
  await fixture.commit(
    dir,
    { 'src/server.ts': 'export const PORT = Number(process.env.PORT ?? 8080)\n' },
    'Read the port from the environment',
  )
  await fixture.ok(dir, 'checkout', '--quiet', '-b', 'feature/login')
  await fixture.commit(
    dir,
    { 'src/login.ts': 'export function login(user: string) {\n  return `hello ${user}`\n}\n' },
    'Add a login <form> helper',
  )
  await fixture.ok(dir, 'tag', 'v0.1', 'main')
  await fixture.ok(dir, 'push', '--quiet', 'origin', 'main', 'feature/login', 'v0.1')
  browser = await launchBrowser()
})
afterAll(async () => {
  await closeBrowser(browser)
  await server.close()
  fixture.remove()
})

function pathOf(page: Page): string {
  return decodeURIComponent(new URL(page.url()).pathname)
}

describe('the repository pages in a browser', () => {
  test('a Developer walks files, a file, blame, history, a commit and a comparison', { timeout: BROWSER_WALK_MS }, async () => {
    const base = `/${project.path_with_namespace}`
    const page = await signInAt(browser, server.url, { username: developer.user.username, password: developer.password }, base)
    try {
      await Promise.all([page.waitForURL(`**${base}/-/tree/main`), page.click('.sidebar a:text-is("Repository")')])
      expect(await page.locator('.tree-table tbody td.tree-item a').allTextContents()).toEqual([
        'docs',
        'src',
        'README.md',
        'long-line.txt',
      ])
      expect(await page.locator('.tree-table tbody td.tree-commit a').allTextContents()).toEqual([
        'Start the settings service',
        'Read the port from the environment',
        'Start the settings service',
        'Start the settings service',
      ])
      for (const time of await page.locator('.tree-table tbody td.tree-time').allTextContents())
        expect(time).toMatch(/^(just now|\d+ minutes? ago)$/)
      expect(await page.textContent('.readme h1')).toContain('Settings service')
      await lookAt(page, 'repository-tree')

      await page.click('.repository-header a:text-is("Find file")')
      expect(pathOf(page)).toBe(`${base}/-/find_file/main`)
      expect(await page.locator('.find-file-table td.tree-item a').allTextContents()).toEqual([
        'README.md',
        'docs/usage.md',
        'long-line.txt',
        'src/config.ts',
        'src/server.ts',
      ])
      await page.fill('#file_find', 'srvr')
      await Promise.all([page.waitForURL(`**${base}/-/find_file/main?q=srvr`), page.press('#file_find', 'Enter')])
      expect(await page.locator('.find-file-table td.tree-item a').allTextContents()).toEqual(['src/server.ts'])
      // fuzzaldrin-plus marks the query's match in the whole path and in the file name, as GitLab's finder shows them.
      expect(await page.locator('.find-file-table td.tree-item a b').allTextContents()).toEqual(['sr', 's', 'rv', 'r'])
      await lookAt(page, 'repository-find-file')
      await page.click('.find-file-table td.tree-item a >> nth=0')
      expect(pathOf(page)).toBe(`${base}/-/blob/main/src/server.ts`)
      await page.goto(`${server.url}${base}/-/tree/main`)

      await page.selectOption('select[name="ref"]', 'feature/login')
      await Promise.all([page.waitForURL(`**${base}/-/tree/feature/login`), page.click('.ref-switcher button')])
      await page.click('.tree-table a:text-is("src")')
      expect(pathOf(page)).toBe(`${base}/-/tree/feature/login/src`)
      expect(await page.locator('.tree-table tbody td.tree-item a').allTextContents()).toEqual(['..', 'config.ts', 'login.ts', 'server.ts'])
      await lookAt(page, 'repository-folder')

      await page.click('.tree-table a:text-is("config.ts")')
      expect(pathOf(page)).toBe(`${base}/-/blob/feature/login/src/config.ts`)
      expect(await page.textContent('#L4 .line')).toContain('export async function loadConfig')
      expect(await page.locator('#L4 .hljs-keyword').first().textContent()).toBe('export')
      await lookAt(page, 'repository-blob')

      await page.click('.repository-header a:text-is("Blame")')
      expect(pathOf(page)).toBe(`${base}/-/blame/feature/login/src/config.ts`)
      expect(await page.textContent('.blame-commit .commit-title')).toBe('Start the settings service')
      await lookAt(page, 'repository-blame')

      await page.selectOption('select[name="ref"]', 'main')
      await Promise.all([page.waitForURL(`**${base}/-/blame/main/src/config.ts`), page.click('.ref-switcher button')])
      await page.click('.repository-header a:text-is("History")')
      expect(pathOf(page)).toBe(`${base}/-/commits/main/src/config.ts`)
      expect(await page.locator('.commit-list .commit-title').allTextContents()).toEqual(['Start the settings service'])
      await page.goto(`${server.url}${base}/-/commits/main`)
      expect(await page.locator('.commit-list .commit-title').allTextContents()).toEqual([
        'Read the port from the environment',
        'Start the settings service',
      ])
      await lookAt(page, 'repository-commits')

      await page.click('.commit-list a.commit-title >> nth=0')
      expect(await page.textContent('h1.commit-title')).toBe('Read the port from the environment')
      expect(await page.locator('.diff tr.added .line').allTextContents()).toEqual([
        '+export const PORT = Number(process.env.PORT ?? 8080)',
      ])
      expect(await page.locator('.diff tr.added .hljs-keyword').first().textContent()).toBe('export')
      await lookAt(page, 'repository-commit')
      await page.click('.view-switch a:text-is("Side-by-side")')
      expect(new URL(page.url()).search).toBe('?view=parallel')
      await page.setViewportSize({ width: 1280, height: 900 })
      expect(await page.locator('table.diff-table.parallel td.line.new.added').allTextContents()).toEqual([
        '+export const PORT = Number(process.env.PORT ?? 8080)',
      ])
      await lookAt(page, 'repository-commit-parallel')

      await page.click('.sidebar a:text-is("Compare revisions")')
      expect(pathOf(page)).toBe(`${base}/-/compare`)
      await page.fill('#compare_from', 'main')
      await page.fill('#compare_to', 'feature/login')
      await Promise.all([page.waitForURL(`**${base}/-/compare/main...feature/login`), page.click('.compare-form button[type="submit"]')])
      expect(await page.locator('.commit-list .commit-title').allTextContents()).toEqual(['Add a login <form> helper'])
      expect(await page.locator('.diff-file .file-title').allTextContents()).toEqual(['src/login.ts'])
      await lookAt(page, 'repository-compare')

      await page.goto(`${server.url}${base}/-/blob/main/README.md`)
      expect(await page.textContent('.file-box .markdown h1')).toContain('Settings service')
      await lookAt(page, 'repository-blob-markdown')
      await page.goto(`${server.url}${base}/-/blob/main/long-line.txt`)
      await lookAt(page, 'repository-blob-long-line')
      await page.click('.sidebar a:text-is("Branches")')
      expect(await page.locator('.ref-list .ref-name').allTextContents()).toEqual(['feature/login', 'main'])
      await lookAt(page, 'repository-branches')
      await page.click('.sidebar a:text-is("Tags")')
      expect(await page.locator('.ref-list .ref-name').allTextContents()).toEqual(['v0.1'])
      await lookAt(page, 'repository-tags')
    } finally {
      await page.context().close()
    }
  })
})
