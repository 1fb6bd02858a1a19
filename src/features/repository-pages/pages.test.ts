import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { BrowseFixture, type CreatedProject, type Person } from '../repository-browse/browse-fixtures.js'

let server: TestServer
let fixture: BrowseFixture
let owner: Person
let ownerSession: TestSession
let project: CreatedProject
let dir: string
let first: string
let second: string
let featureHead: string

const EVIL_FILE = `say "hi" <script>alert('f') & co.txt`
const EVIL_MESSAGE = `Fix <script>alert("m")</script> & 'quotes'`
const EVIL_BRANCH = `x"<script>b`

interface Page {
  status: number
  headers: Headers
  text: string
}

async function visit(path: string, session: TestSession | null = ownerSession, headers: Record<string, string> = {}): Promise<Page> {
  const response = await fetch(server.url + path, {
    headers: { ...headers, ...(session ? { cookie: session.cookie } : {}) },
    redirect: 'manual',
  })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

function at(suffix: string): string {
  return `/${project.path_with_namespace}${suffix}`
}

function expectPage(page: Page, status = 200) {
  expect(page.status, page.text.slice(0, 400)).toBe(status)
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
  expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
}

/** No markup users wrote reaches the page unescaped. */
function expectEscaped(text: string) {
  expect(text).not.toContain('<script>alert')
  expect(text).not.toContain('<script>b')
}

beforeAll(async () => {
  server = await startTestServer()
  fixture = new BrowseFixture(server)
  owner = await fixture.person('rhea')
  ownerSession = await createTestSession(server, owner.user)
  project = await fixture.project(owner, { initialize_with_readme: false, visibility: 'public' })
  dir = await fixture.clone(owner, project.path_with_namespace)
  first = await fixture.commit(
    dir,
    {
      'README.md': '# Hello pages\n\nSee [the app](src/app.ts).\n',
      'src/app.ts': 'export function add(a: number, b: number): number {\n  return a + b\n}\n',
      'docs/guide.md': '# Guide\n',
      [EVIL_FILE]: 'evil\n',
      'long.txt': `${'x'.repeat(3000)}\n`,
      'image.png': Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex'),
    },
    'Add the first files',
  )
  second = await fixture.commit(
    dir,
    { 'src/app.ts': 'export function add(a: number, b: number): number {\n  return b + a\n}\n' },
    EVIL_MESSAGE,
  )
  await fixture.ok(dir, 'tag', '-a', 'v1.0', '-m', 'First <release>', first)
  await fixture.ok(dir, 'checkout', '--quiet', '-b', 'feature/x')
  featureHead = await fixture.commit(
    dir,
    { 'only-on-feature.txt': 'feature\n', 'src/app.ts': 'export const x = 1\n' },
    'Work on the feature',
  )
  await fixture.ok(dir, 'branch', EVIL_BRANCH, first)
  await fixture.ok(dir, 'push', '--quiet', 'origin', 'main', 'feature/x', EVIL_BRANCH, 'v1.0')
})

afterAll(async () => {
  await server.close()
  fixture.remove()
})

describe('the file tree', () => {
  test('lists folders first, then files, with the last commit, the README rendered and names escaped', async () => {
    const page = await visit(at('/-/tree/main'))
    expectPage(page)
    expectEscaped(page.text)
    const names = [...page.text.matchAll(/<td class="tree-item"><svg[^>]*><use[^>]*><\/svg><a href="[^"]+"[^>]*>([^<]*)<\/a>/g)].map(
      (match) => match[1],
    )
    expect(names).toEqual([
      'docs',
      'src',
      'README.md',
      'image.png',
      'long.txt',
      `say &quot;hi&quot; &lt;script&gt;alert(&#39;f&#39;) &amp; co.txt`,
    ])
    expect(page.text).toContain(`href="${at('/-/tree/main/docs')}"`)
    expect(page.text).toContain(`href="${at('/-/blob/main/say%20%22hi%22%20%3Cscript%3Ealert(&#39;f&#39;)%20%26%20co.txt')}"`)
    expect(page.text).toContain(`href="${at(`/-/commit/${second}`)}"`)
    expect(page.text).toContain('Fix &lt;script&gt;alert(&quot;m&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;')
    expect(page.text).toMatch(/<section class="box readme"[^>]*>[\s\S]*<h1[^>]*>[\s\S]*Hello pages/)
    expect(page.text).toContain(`<option value="feature/x">feature/x</option>`)
    expect(page.text).toContain(`<option value="main" selected>main</option>`)
    expect(page.text).toContain(`<option value="x&quot;&lt;script&gt;b">x&quot;&lt;script&gt;b</option>`)
    expect(page.text).toContain(`href="${at('/-/archive/main/')}${project.path}-main.zip"`)
    expect(page.text).toContain('<nav class="sidebar"')
  })

  test('a folder, a ref with a slash, an object id, and the redirects of a bare tree and of a file', async () => {
    const folder = await visit(at('/-/tree/main/src'))
    expectPage(folder)
    expect(folder.text).toContain(`href="${at('/-/blob/main/src/app.ts')}"`)
    expect(folder.text).toContain(`aria-label="Parent folder"`)

    const feature = await visit(at('/-/tree/feature/x'))
    expectPage(feature)
    expect(feature.text).toContain(`href="${at('/-/blob/feature/x/only-on-feature.txt')}"`)
    expect(feature.text).toContain(`<option value="feature/x" selected>feature/x</option>`)
    const featureFolder = await visit(at('/-/tree/feature/x/src'))
    expectPage(featureFolder)
    expect(featureFolder.text).toContain(`href="${at('/-/blob/feature/x/src/app.ts')}"`)

    const bySha = await visit(at(`/-/tree/${first}/src`))
    expectPage(bySha)
    expect(bySha.text).toContain(`href="${at(`/-/blob/${first}/src/app.ts`)}"`)

    const bare = await visit(at('/-/tree'))
    expect([bare.status, bare.headers.get('location')]).toEqual([302, at('/-/tree/main')])
    const file = await visit(at('/-/tree/main/src/app.ts'))
    expect([file.status, file.headers.get('location')]).toEqual([302, at('/-/blob/main/src/app.ts')])
  })

  test('a ref or path that is not there is the 404 page', async () => {
    for (const path of ['/-/tree/nope', '/-/tree/main/nope', '/-/tree/feature/y', '/-/blob/main/nope.txt', '/-/blame/nope/src/app.ts']) {
      const page = await visit(at(path))
      expectPage(page, 404)
      expect(page.text).toContain('404: Page not found')
    }
  })

  test('the switcher answers with the same page at the chosen ref', async () => {
    const page = await visit(at('/-/refs/switch?destination=blob&path=src/app.ts&ref=feature/x'))
    expect([page.status, page.headers.get('location')]).toEqual([302, at('/-/blob/feature/x/src/app.ts')])
    const tree = await visit(at('/-/refs/switch?destination=evil&ref=v1.0'))
    expect(tree.headers.get('location')).toBe(at('/-/tree/v1.0'))
  })
})

describe('a file', () => {
  test('is highlighted with line numbers and anchors, with its last commit and actions', async () => {
    const page = await visit(at('/-/blob/main/src/app.ts'))
    expectPage(page)
    expect(page.text).toContain('<tr id="L1">')
    expect(page.text).toContain('<a href="#L3">3</a>')
    expect(page.text).toContain('<span class="hljs-keyword">export</span>')
    expect(page.text).toContain(`href="${at('/-/blame/main/src/app.ts')}"`)
    expect(page.text).toContain(`href="${at('/-/commits/main/src/app.ts')}"`)
    expect(page.text).toContain(`href="${at('/-/raw/main/src/app.ts')}"`)
    expect(page.text).toContain(`href="${at(`/-/blob/${second}/src/app.ts`)}"`)
    expectEscaped(page.text)
  })

  test('a file name with markup is escaped, and a long line scrolls in its box', async () => {
    const page = await visit(at(`/-/blob/main/${encodeURIComponent(EVIL_FILE)}`))
    expectPage(page)
    expectEscaped(page.text)
    expect(page.text).toContain('<span class="file-name">say &quot;hi&quot; &lt;script&gt;alert(&#39;f&#39;) &amp; co.txt</span>')
    const long = await visit(at('/-/blob/main/long.txt'))
    expect(long.text).toContain('<div class="code blob-content" role="region" aria-label="Contents of long.txt" tabindex="0">')
  })

  test('Markdown is rendered, its source one link away', async () => {
    const rendered = await visit(at('/-/blob/main/README.md'))
    expectPage(rendered)
    expect(rendered.text).toMatch(/<div class="body markdown">[\s\S]*Hello pages/)
    expect(rendered.text).toContain(`href="${at('/-/blob/main/README.md')}?plain=1">Code</a>`)
    const source = await visit(at('/-/blob/main/README.md?plain=1'))
    expect(source.text).toContain('<tr id="L1">')
    expect(source.text).not.toContain('<div class="body markdown">')
  })

  test('an image is shown from its raw URL; a folder under /-/blob/ is its tree', async () => {
    const page = await visit(at('/-/blob/main/image.png'))
    expect(page.text).toContain(`<img src="${at('/-/raw/main/image.png')}" alt="image.png" />`)
    const folder = await visit(at('/-/blob/main/src'))
    expect([folder.status, folder.headers.get('location')]).toEqual([302, at('/-/tree/main/src')])
  })

  test('raw answers the bytes, typed as the API types them', async () => {
    for (const path of ['src/app.ts', 'image.png', EVIL_FILE]) {
      const page = await fetch(`${server.url}${at(`/-/raw/main/${encodeURIComponent(path).replaceAll('%2F', '/')}`)}`)
      const api = await fetch(`${server.url}/api/v4/projects/${project.id}/repository/files/${encodeURIComponent(path)}/raw?ref=main`)
      expect(page.status).toBe(200)
      expect(api.status).toBe(200)
      expect(page.headers.get('content-type')).toBe(api.headers.get('content-type'))
      expect(page.headers.get('content-disposition')).toBe(api.headers.get('content-disposition'))
      expect(page.headers.get('x-content-type-options')).toBe('nosniff')
      expect(page.headers.get('cache-control')).toBe('max-age=60, public')
      expect(Buffer.from(await page.arrayBuffer())).toEqual(Buffer.from(await api.arrayBuffer()))
    }
    const text = await fetch(`${server.url}${at('/-/raw/feature/x/only-on-feature.txt')}`)
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(await text.text()).toBe('feature\n')
    const etag = text.headers.get('etag')!
    expect((await visit(at('/-/raw/feature/x/only-on-feature.txt'), null, { 'if-none-match': etag })).status).toBe(304)
    const download = await fetch(`${server.url}${at('/-/raw/main/src/app.ts?inline=false')}`)
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="app.ts"; filename*=UTF-8''app.ts`)
    expect((await visit(at('/-/raw/main/nope.txt'))).status).toBe(404)
    expect((await visit(at('/-/raw/main/src'))).status).toBe(404)
  })

  test('blame shows each run of lines beside its commit', async () => {
    const page = await visit(at('/-/blame/main/src/app.ts'))
    expectPage(page)
    expectEscaped(page.text)
    // Lines 1 and 3 come from the first commit, line 2 from the second.
    expect(page.text.match(/<td class="blame-commit" rowspan="1">/g)).toHaveLength(3)
    expect(page.text).toContain('Fix &lt;script&gt;alert(&quot;m&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;')
    expect(page.text).toContain('Add the first files')
    expect(page.text).toContain('<tr id="L3"')
    const feature = await visit(at('/-/blame/feature/x/only-on-feature.txt'))
    expectPage(feature)
    expect(feature.text).toContain('Work on the feature')
  })
})

describe('commits', () => {
  test('the history of a ref and of a file, newest first, messages escaped', async () => {
    const page = await visit(at('/-/commits/main'))
    expectPage(page)
    expectEscaped(page.text)
    const titles = [...page.text.matchAll(/<a class="title commit-title" href="([^"]+)">([^<]*)<\/a>/g)].map((match) => [
      match[1],
      match[2],
    ])
    expect(titles).toEqual([
      [at(`/-/commit/${second}`), 'Fix &lt;script&gt;alert(&quot;m&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;'],
      [at(`/-/commit/${first}`), 'Add the first files'],
    ])
    const feature = await visit(at('/-/commits/feature/x/only-on-feature.txt'))
    expectPage(feature)
    const featureTitles = [...feature.text.matchAll(/<a class="title commit-title" href="[^"]+">([^<]*)<\/a>/g)].map((match) => match[1])
    expect(featureTitles).toEqual(['Work on the feature'])
    expect((await visit(at('/-/commits/nope'))).status).toBe(404)
  })

  test('a commit shows its message, parents, refs and diff', async () => {
    const page = await visit(at(`/-/commit/${second}`))
    expectPage(page)
    expectEscaped(page.text)
    expect(page.text).toContain(
      '<h1 class="commit-title">Fix &lt;script&gt;alert(&quot;m&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;</h1>',
    )
    expect(page.text).toContain(`href="${at(`/-/commit/${first}`)}"`)
    expect(page.text).toContain(`<a class="badge" href="${at('/-/tree/main')}">main</a>`)
    // The merge request pages' diff: highlighted, the changed words marked, inline by default with a side-by-side view.
    expect(page.text).toContain('1 file changed')
    expect(page.text).toContain('<nav class="file-tree box" aria-label="Changed files">')
    expect(page.text).toMatch(/<tr class="removed" id="[0-9a-f]{40}_2_">[\s\S]*?aria-label="Old line 2">2<\/a>/)
    expect(page.text).toContain(
      '<span class="sign" aria-hidden="true">-</span>  <span class="hljs-keyword">return</span> <del>a + b</del></td>',
    )
    expect(page.text).toContain(
      '<span class="sign" aria-hidden="true">+</span>  <span class="hljs-keyword">return</span> <ins>b + a</ins></td>',
    )
    expect(page.text).toMatch(/href="[^"]*\/-\/commit\/[0-9a-f]{40}\?view=inline" aria-current="page">Inline<\/a>/)
    expect(page.text).toContain(`<a class="button small view-file" href="${at(`/-/blob/${second}/src/app.ts`)}">View file</a>`)
    const parallel = await visit(at(`/-/commit/${second}?view=parallel`))
    expect(parallel.text).toContain('<table class="diff-table parallel">')
    expect(parallel.text).toMatch(/<td class="line old removed">.*<del>a \+ b<\/del><\/td>/)
    expect(parallel.text).toMatch(/<td class="line new added">.*<ins>b \+ a<\/ins><\/td>/)
    expect(parallel.text).toMatch(/aria-current="page"\s*>Side-by-side<\/a>/)
    const root = await visit(at(`/-/commit/${first}`))
    expect(root.text).toContain('None (a root commit)')
    expect(root.text).toContain('6 files changed')
    expect(root.text).toContain('Binary file added; its contents are not shown.')
    expectEscaped(root.text)
    expect((await visit(at('/-/commit/0123456789abcdef0123456789abcdef01234567'))).status).toBe(404)
  })

  test('a commit as an e-mail patch and as a plain diff, as git writes them', async () => {
    const page = await visit(at(`/-/commit/${second}`))
    expect(page.text).toContain(`<a class="button" href="${at(`/-/commit/${second}`)}.patch">Email patch</a>`)
    const patch = await visit(at(`/-/commit/${second}.patch`))
    expect(patch.status).toBe(200)
    expect(patch.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(patch.headers.get('x-content-type-options')).toBe('nosniff')
    expect(patch.text).toMatch(new RegExp(`^From ${second} Mon Sep 17 00:00:00 2001\nFrom: `))
    expect(patch.text).toContain(`Subject: [PATCH] Fix <script>alert("m")</script> & 'quotes'\n`)
    expect(patch.text).toContain('-  return a + b\n+  return b + a\n')
    const diff = await visit(at(`/-/commit/${second}.diff`))
    expect(diff.status).toBe(200)
    expect(diff.text).toMatch(
      /^diff --git a\/src\/app\.ts b\/src\/app\.ts\nindex [0-9a-f]{40}\.\.[0-9a-f]{40} 100644\n--- a\/src\/app\.ts\n\+\+\+ b\/src\/app\.ts\n/,
    )
    // The root commit's diff shows every file it added.
    expect((await visit(at(`/-/commit/${first}.diff`))).text).toContain('new file mode 100644')
    expect((await visit(at('/-/commit/0123456789abcdef0123456789abcdef01234567.patch'))).status).toBe(404)
  })
})

describe('branches, tags and compare', () => {
  test('branches and tags list every ref, escaped, and search', async () => {
    const branches = await visit(at('/-/branches'))
    expectPage(branches)
    expectEscaped(branches.text)
    expect(branches.text).toContain(`<a class="title ref-name" href="${at('/-/tree/feature/x')}">feature/x</a>`)
    expect(branches.text).toContain(`<a class="title ref-name" href="${at('/-/tree/x%22%3Cscript%3Eb')}">x&quot;&lt;script&gt;b</a>`)
    expect(branches.text).toContain(`href="${at('/-/compare/main...feature/x')}"`)
    const searched = await visit(at('/-/branches?search=feat'))
    const names = [...searched.text.matchAll(/class="title ref-name" href="[^"]+">([^<]*)</g)].map((match) => match[1])
    expect(names).toEqual(['feature/x'])

    const tags = await visit(at('/-/tags'))
    expectPage(tags)
    expect(tags.text).toContain(`<a class="title ref-name" href="${at('/-/tree/v1.0')}">v1.0</a>`)
    expect(tags.text).toContain('First &lt;release&gt;')
    expect(tags.text).toContain(`href="${at(`/-/archive/v1.0/${project.path}-v1.0.zip`)}"`)
  })

  test('compare: the form, its redirect, and a comparison of two refs', async () => {
    const form = await visit(at('/-/compare'))
    expectPage(form)
    expect(form.text).toContain('<input type="text" id="compare_from" name="from" list="compare-refs" value="main" required')
    const go = await visit(at('/-/compare?from=main&to=feature%2Fx'))
    expect([go.status, go.headers.get('location')]).toEqual([302, at('/-/compare/main...feature/x')])
    const page = await visit(at('/-/compare/main...feature/x'))
    expectPage(page)
    expect(page.text).toContain('Work on the feature')
    expect(page.text).toContain(`href="${at(`/-/commit/${featureHead}`)}"`)
    expect(page.text).toContain('2 files changed')
    expect(page.text).toContain('only-on-feature.txt')
    expect(page.text).toContain('<span class="hljs-keyword">export</span> <span class="hljs-keyword"><del>function</del></span>')
    expect(page.text).toContain('<span class="hljs-keyword">export</span> <span class="hljs-keyword"><ins>const</ins></span>')
    expect(page.text).toContain(`href="${at('/-/compare/main...feature/x')}?view=parallel"`)
    const parallel = await visit(at('/-/compare/main...feature/x?view=parallel'))
    expect(parallel.text).toContain('<table class="diff-table parallel">')
    expect(parallel.text).toMatch(/aria-current="page"\s*>Side-by-side<\/a>/)
    const same = await visit(at('/-/compare/main...main'))
    expect(same.text).toContain('These revisions are the same')
    const straight = await visit(at(`/-/compare/${first}..main`))
    expect(straight.text).toContain('1 file changed')
    expect(straight.text).toContain(`href="${at(`/-/compare/${first}..main`)}?view=parallel"`)
    expect((await visit(at('/-/compare/main...nope'))).status).toBe(404)
  })

  test('archives download as zip and tar.gz, also at a ref with a slash', async () => {
    const zip = await fetch(`${server.url}${at(`/-/archive/main/${project.path}-main.zip`)}`)
    expect(zip.status).toBe(200)
    expect(zip.headers.get('content-type')).toBe('application/zip')
    expect(zip.headers.get('content-disposition')).toBe(`attachment; filename="${project.path}-main-${second}.zip"`)
    const zipBytes = Buffer.from(await zip.arrayBuffer())
    expect(zipBytes.subarray(0, 4)).toEqual(Buffer.from('504b0304', 'hex'))
    const tgz = await fetch(`${server.url}${at(`/-/archive/feature/x/${project.path}-feature-x.tar.gz`)}`)
    expect(tgz.status).toBe(200)
    expect(tgz.headers.get('content-type')).toBe('application/octet-stream')
    const tar = zlib.gunzipSync(Buffer.from(await tgz.arrayBuffer()))
    expect(tar.toString('latin1')).toContain(`${project.path}-feature-x-${featureHead}/only-on-feature.txt`)
    const folder = await fetch(`${server.url}${at(`/-/archive/main/${project.path}-main.tar.gz?path=src`)}`)
    const folderTar = zlib.gunzipSync(Buffer.from(await folder.arrayBuffer())).toString('latin1')
    expect(folderTar).toContain('src/app.ts')
    expect(folderTar).not.toContain('README.md')
    expect((await visit(at(`/-/archive/nope/${project.path}-nope.zip`))).status).toBe(404)
    expect((await visit(at(`/-/archive/main/${project.path}-main.rar`))).status).toBe(404)
  })
})

describe('who may see the code', () => {
  test('a private project: sign-in for a visitor, the 404 page for a non-member and a Guest, the pages for a Reporter', async () => {
    const privateProject = await fixture.project(owner, { initialize_with_readme: true, visibility: 'private' })
    const base = `/${privateProject.path_with_namespace}`
    const paths = [
      '/-/tree/main',
      '/-/blob/main/README.md',
      '/-/raw/main/README.md',
      '/-/blame/main/README.md',
      '/-/commits/main',
      '/-/branches',
      '/-/tags',
      '/-/compare',
      `/-/archive/main/${privateProject.path}-main.zip`,
      '/-/find_file/main',
    ]
    const outsider = await fixture.person('otto')
    const guest = await fixture.person('gus')
    const reporter = await fixture.person('remy')
    await fixture.member(guest, privateProject.id, 10)
    await fixture.member(reporter, privateProject.id, 20)
    const [outsiderSession, guestSession, reporterSession] = await Promise.all(
      [outsider, guest, reporter].map((who) => createTestSession(server, who.user)),
    )
    for (const path of paths) {
      const anonymous = await visit(base + path, null)
      expect([path, anonymous.status, anonymous.headers.get('location')]).toEqual([path, 302, '/users/sign_in'])
      for (const session of [outsiderSession, guestSession]) {
        const hidden = await visit(base + path, session)
        expect([path, hidden.status]).toEqual([path, 404])
        expect(hidden.text).toContain('404: Page not found')
      }
      const seen = await visit(base + path, reporterSession)
      expect([path, seen.status]).toEqual([path, 200])
    }
  })

  test('an empty repository: its tree page says how to push; other pages are the 404 page', async () => {
    const empty = await fixture.project(owner, { initialize_with_readme: false, visibility: 'public' })
    const page = await visit(`/${empty.path_with_namespace}/-/tree/main`)
    expectPage(page)
    expect(page.text).toContain('<h1>The repository for this project is empty</h1>')
    expect(page.text).toContain(`git remote add origin ${server.url}/${empty.path_with_namespace}.git`)
    expectPage(await visit(`/${empty.path_with_namespace}/-/tree`))
    expectPage(await visit(`/${empty.path_with_namespace}/-/blob/main/README.md`), 404)
    expectPage(await visit(`/${empty.path_with_namespace}/-/commits/main`), 404)
    const branches = await visit(`/${empty.path_with_namespace}/-/branches`)
    expectPage(branches)
    expect(branches.text).toContain('This repository has no branches yet.')
  })

  test('a public project: anyone reads its code', async () => {
    expectPage(await visit(at('/-/tree/main'), null))
    expectPage(await visit(at('/-/blob/main/src/app.ts'), null))
  })
})

describe('large trees and files', () => {
  // How fast they render is measured by bench/pages.mjs.
  test('a 1,000-entry tree lists every entry; a 5,000-line file shows every line, unhighlighted past the limit', async () => {
    const files: Record<string, string> = {}
    for (let n = 0; n < 1000; n++) files[`many/file-${String(n).padStart(4, '0')}.ts`] = `export const n${n} = ${n}\n`
    files['big.ts'] =
      Array.from({ length: 5000 }, (_, n) => `export const value${n} = { index: ${n}, name: 'value ${n}' } // line ${n}`).join('\n') + '\n'
    await fixture.commit(dir, files, 'Add many files')
    await fixture.ok(dir, 'push', '--quiet', 'origin', 'HEAD:refs/heads/many')
    const tree = await visit(at('/-/tree/many/many'))
    expect(tree.status).toBe(200)
    expect(tree.text.match(/href="[^"]*\/-\/blob\/many\/many\/file-\d{4}\.ts"/g)).toHaveLength(1000)
    const page = await visit(at('/-/blob/many/big.ts'))
    expect(page.status).toBe(200)
    expect(page.text).toContain('<tr id="L5000">')
    expect(page.text).toContain('Syntax highlighting is off')
  })
})
