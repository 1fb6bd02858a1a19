import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { BrowseFixture, type CreatedProject, type Person } from '../repository-browse/browse-fixtures.js'
import { FIND_FILE_RESULTS } from './find-file.js'
import { LAST_COMMITS_WALK_LIMIT } from './last-commits.js'

// The last commit of each entry of the file tree, and the file finder, on a history written with fixed dates.

let server: TestServer
let fixture: BrowseFixture
let owner: Person
let ownerSession: TestSession
let project: CreatedProject
const oids = new Map<string, string>()

const EVIL_FILE = `say "hi" <b>&'.txt`
const EVIL_TITLE = `Start <the> project & "more"`
const SUBMODULE_COMMIT = '0123456789abcdef0123456789abcdef01234567'
const MANY_FILES = FIND_FILE_RESULTS + 20

const DAY = 24 * 60 * 60
const now = Math.floor(Date.now() / 1000)

/** One commit of a fast-import stream: its files (a null content removes one), on `ref`, at `at` (Unix seconds). */
interface ImportedCommit {
  mark: string
  ref: string
  at: number
  message: string
  from?: string
  merge?: string
  files?: Record<string, string | null>
  submodules?: Record<string, string>
}

/** fast-import's marks are numbers: each commit's is its place in the stream. */
function importStream(commits: ImportedCommit[]): string {
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}`
  const marks = new Map(commits.map((commit, n) => [commit.mark, n + 1]))
  const out: string[] = []
  for (const commit of commits) {
    out.push(
      `commit ${commit.ref}`,
      `mark :${marks.get(commit.mark)}`,
      `committer Tess <tess@example.com> ${commit.at} +0000`,
      data(commit.message),
    )
    if (commit.from) out.push(`from :${marks.get(commit.from)}`)
    if (commit.merge) out.push(`merge :${marks.get(commit.merge)}`)
    for (const [path, content] of Object.entries(commit.files ?? {})) {
      const quoted = `"${path.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
      out.push(content === null ? `D ${quoted}` : `M 100644 inline ${quoted}\n${data(content)}`)
    }
    for (const [path, oid] of Object.entries(commit.submodules ?? {})) out.push(`M 160000 ${oid} ${path}`)
    out.push('')
  }
  return out.join('\n')
}

async function fastImport(dir: string, stream: string) {
  const child = spawn('git', ['fast-import', '--quiet'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir } })
  const exited = new Promise<void>((resolve, reject) =>
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`fast-import exited ${code}`)))),
  )
  child.stdin.end(stream)
  await exited
}

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
}

/** Each row of the tree table: its name, and its last commit's link, title and time as the page shows them. */
function treeRows(text: string): string[][] {
  const body = /<table class="tree-table">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(text)![1]
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, row]) => {
    const name = /<td class="tree-item">[\s\S]*?<(?:a|span)[^>]*>([^<]*)</.exec(row)![1]
    const commit = /<td class="tree-commit">(?:<a href="([^"]+)" title="([^"]*)">([^<]*)<\/a>)?<\/td>/.exec(row)!
    const time = /<td class="tree-time">(?:<time datetime="([^"]+)" title="([^"]+)">([^<]*)<\/time>)?<\/td>/.exec(row)!
    if (commit[1] === undefined) return [name]
    expect(commit[2]).toBe(commit[3])
    return [name, commit[1], commit[3], time[3]]
  })
}

/** The rows of the file finder: each link and its text, matched characters in brackets. */
function foundRows(text: string): string[][] {
  return [...text.matchAll(/<td class="tree-item"><svg[^>]*><use[^>]*><\/svg><a href="([^"]+)">(.*?)<\/a><\/td>/g)].map(
    ([, href, label]) => [href, label.replaceAll('<b>', '[').replaceAll('</b>', ']')],
  )
}

beforeAll(async () => {
  server = await startTestServer()
  fixture = new BrowseFixture(server)
  owner = await fixture.person('tess')
  ownerSession = await createTestSession(server, owner.user)
  project = await fixture.project(owner, { initialize_with_readme: false, visibility: 'public' })
  const dir = await fixture.clone(owner, project.path_with_namespace)
  const busy: ImportedCommit[] = Array.from({ length: LAST_COMMITS_WALK_LIMIT }, (_, n) => ({
    mark: `busy${n + 1}`,
    ref: 'refs/heads/busy',
    at: now - 10 * DAY + n,
    message: `Count to ${n + 1}`,
    from: n === 0 ? 'busy0' : undefined,
    files: { 'busy/counter.txt': `${n + 1}\n` },
  }))
  const many = Object.fromEntries(Array.from({ length: MANY_FILES }, (_, n) => [`many/file-${String(n).padStart(3, '0')}.txt`, `${n}\n`]))
  await fastImport(
    dir,
    importStream([
      {
        mark: 'start',
        ref: 'refs/heads/main',
        at: now - 400 * DAY,
        message: `${EVIL_TITLE}\n\nThe body is not shown.\n`,
        files: {
          'README.md': '# Atlas\n',
          'docs/guide.md': '# Guide\n',
          'docs/old notes.txt': 'old\n',
          'src/a & b.ts': 'export const a = 1\n',
          'src/lib/deep.ts': 'export const deep = 1\n',
          [EVIL_FILE]: 'hi\n',
        },
        submodules: { vendor: SUBMODULE_COMMIT },
      },
      {
        mark: 'guide',
        ref: 'refs/heads/main',
        at: now - 3 * DAY,
        message: 'Update the guide',
        files: { 'docs/guide.md': '# Guide\n\nMore.\n' },
      },
      {
        mark: 'side',
        ref: 'refs/heads/side',
        at: now - 5 * 3600,
        message: 'Change a & b',
        from: 'guide',
        files: { 'src/a & b.ts': 'export const a = 2\n' },
      },
      {
        mark: 'readme',
        ref: 'refs/heads/main',
        at: now - 4 * 3600,
        message: 'Reword the README',
        from: 'guide',
        files: { 'README.md': '# Atlas!\n' },
      },
      // fast-import writes a merge's tree as its first parent's plus the changes listed: the side's change comes along.
      {
        mark: 'merge',
        ref: 'refs/heads/main',
        at: now - 2 * 3600,
        message: "Merge branch 'side'",
        from: 'readme',
        merge: 'side',
        files: { 'src/a & b.ts': 'export const a = 2\n' },
      },
      {
        mark: 'busy0',
        ref: 'refs/heads/busy',
        at: now - 11 * DAY,
        message: 'Start counting',
        files: { 'busy/still.txt': 'still\n', 'busy/counter.txt': '0\n' },
      },
      ...busy,
      { mark: 'many', ref: 'refs/heads/feature/many', at: now - 60, message: 'Add many files', from: 'merge', files: many },
    ]),
  )
  const names = {
    merge: 'main',
    readme: 'main^1',
    side: 'main^2',
    guide: 'main~2',
    start: 'main~3',
    busy: 'busy',
    busy1: 'busy~1',
    busy0: 'busy~1000',
  }
  const found = (await fixture.ok(dir, 'rev-parse', ...Object.values(names))).trim().split('\n')
  Object.keys(names).forEach((name, n) => oids.set(name, found[n]))
  await fixture.ok(dir, 'push', '--quiet', 'origin', 'main', 'side', 'busy', 'feature/many')
}, 60_000)

afterAll(async () => {
  await server.close()
  fixture.remove()
})

function commitHref(name: string): string {
  return at(`/-/commit/${oids.get(name)}`)
}

describe('the last commit of each entry of the file tree', () => {
  test('each folder, file and submodule shows the last commit that changed it, through a merge, titles escaped', async () => {
    const page = await visit(at('/-/tree/main'))
    expectPage(page)
    expect(page.text).toContain('<th scope="col" class="tree-commit">Last commit</th>')
    expect(page.text).toContain('<th scope="col" class="tree-time">Last update</th>')
    const escapedTitle = 'Start &lt;the&gt; project &amp; &quot;more&quot;'
    expect(treeRows(page.text)).toEqual([
      ['docs', commitHref('guide'), 'Update the guide', '3 days ago'],
      ['src', commitHref('side'), 'Change a &amp; b', '5 hours ago'],
      ['README.md', commitHref('readme'), 'Reword the README', '4 hours ago'],
      [`say &quot;hi&quot; &lt;b&gt;&amp;&#39;.txt`, commitHref('start'), escapedTitle, '1 year ago'],
      ['vendor', commitHref('start'), escapedTitle, '1 year ago'],
    ])
    expect(page.text).not.toContain('<the>')
    // The folder's own last commit is the merge, and the time's title is the exact time.
    expect(page.text).toMatch(
      new RegExp(`<div class="box last-commit">[\\s\\S]*?href="${commitHref('merge')}">Merge branch &#39;side&#39;</a>`),
    )
    const exact = new Date((now - 3 * DAY) * 1000).toISOString().replace('T', ' ').slice(0, 19)
    expect(page.text).toContain(`<time datetime="${exact.replace(' ', 'T')}+00:00" title="${exact} UTC">3 days ago</time>`)
  })

  test('a folder, with paths holding spaces and ampersands, at a ref with a slash and at an object id', async () => {
    const docs = await visit(at('/-/tree/main/docs'))
    expectPage(docs)
    expect(treeRows(docs.text)).toEqual([
      ['..'],
      ['guide.md', commitHref('guide'), 'Update the guide', '3 days ago'],
      ['old notes.txt', commitHref('start'), 'Start &lt;the&gt; project &amp; &quot;more&quot;', '1 year ago'],
    ])
    expect(docs.text).toContain(`href="${at('/-/blob/main/docs/old%20notes.txt')}"`)
    const src = await visit(at('/-/tree/feature/many/src'))
    expectPage(src)
    expect(treeRows(src.text)).toEqual([
      ['..'],
      ['lib', commitHref('start'), 'Start &lt;the&gt; project &amp; &quot;more&quot;', '1 year ago'],
      ['a &amp; b.ts', commitHref('side'), 'Change a &amp; b', '5 hours ago'],
    ])
    const before = await visit(at(`/-/tree/${oids.get('guide')}/src`))
    expect(treeRows(before.text).map((row) => row.slice(0, 2))).toEqual([
      ['..'],
      ['lib', commitHref('start')],
      ['a &amp; b.ts', commitHref('start')],
    ])
  })

  test(`an entry not changed within the last ${LAST_COMMITS_WALK_LIMIT} commits of its folder shows no commit`, async () => {
    const page = await visit(at('/-/tree/busy/busy'))
    expectPage(page)
    expect(treeRows(page.text)).toEqual([
      ['..'],
      ['counter.txt', commitHref('busy'), `Count to ${LAST_COMMITS_WALK_LIMIT}`, '1 week ago'],
      ['still.txt'],
    ])
    // One commit fewer on top, and the walk reaches the commit that added it.
    const earlier = await visit(at(`/-/tree/${oids.get('busy1')}/busy`))
    expect(treeRows(earlier.text)).toEqual([
      ['..'],
      ['counter.txt', commitHref('busy1'), `Count to ${LAST_COMMITS_WALK_LIMIT - 1}`, '1 week ago'],
      ['still.txt', commitHref('busy0'), 'Start counting', '1 week ago'],
    ])
  })

  test('the tree page links the file finder at its ref', async () => {
    const page = await visit(at('/-/tree/feature/many/docs'))
    expect(page.text).toContain(`<a class="button" href="${at('/-/find_file/feature/many')}">Find file</a>`)
  })
})

describe('find file', () => {
  test('lists every file of the ref in git order, submodules left out, each linked to its page', async () => {
    const page = await visit(at('/-/find_file/main'))
    expectPage(page)
    expect(page.text).toContain('<title>Find file · main')
    expect(page.text).toContain(`<form class="find-file-form" method="get" action="${at('/-/find_file/main')}" role="search">`)
    expect(page.text).toContain('<input type="search" id="file_find" name="q" value="" placeholder="Find by path" autocomplete="off" />')
    expect(page.text).toContain('<input type="hidden" name="destination" value="find_file" />')
    expect(foundRows(page.text)).toEqual([
      [at('/-/blob/main/README.md'), 'README.md'],
      [at('/-/blob/main/docs/guide.md'), 'docs/guide.md'],
      [at('/-/blob/main/docs/old%20notes.txt'), 'docs/old notes.txt'],
      [at(`/-/blob/main/say%20%22hi%22%20%3Cb%3E%26&#39;.txt`), `say &quot;hi&quot; &lt;b&gt;&amp;&#39;.txt`],
      [at('/-/blob/main/src/a%20%26%20b.ts'), 'src/a &amp; b.ts'],
      [at('/-/blob/main/src/lib/deep.ts'), 'src/lib/deep.ts'],
    ])
    expect(page.text).not.toContain('Showing the first')
    const blank = await visit(at('/-/find_file/main?q=%20%20'))
    expect(blank.text).toContain('name="q" value="  "')
    expect(foundRows(blank.text)).toEqual(foundRows(page.text))
  })

  test("filters by GitLab's fuzzy rule, best first, the matched characters in bold, the query escaped", async () => {
    const guide = await visit(at('/-/find_file/main?q=gd'))
    expectPage(guide)
    expect(guide.text).toContain('value="gd"')
    expect(foundRows(guide.text)).toEqual([[at('/-/blob/main/docs/guide.md'), 'docs/[g]ui[d]e.md']])
    const upper = await visit(at('/-/find_file/main?q=SRCDEEP'))
    expect(foundRows(upper.text)).toEqual([[at('/-/blob/main/src/lib/deep.ts'), '[src]/lib/[deep].ts']])
    const evil = await visit(at(`/-/find_file/main?q=${encodeURIComponent('"hi" <b>')}`))
    expect(evil.text).toContain('value="&quot;hi&quot; &lt;b&gt;"')
    expect(foundRows(evil.text)).toEqual([
      [at(`/-/blob/main/say%20%22hi%22%20%3Cb%3E%26&#39;.txt`), `say [&quot;hi&quot; &lt;b&gt;]&amp;&#39;.txt`],
    ])
    expect(evil.text).not.toContain('"hi" <b>')
  })

  test('no match says so; too many are capped with a message, at a ref with a slash', async () => {
    const none = await visit(at('/-/find_file/main?q=zzzz'))
    expectPage(none)
    expect(foundRows(none.text)).toEqual([])
    expect(none.text).toContain('<h2>There are no matching files</h2>')
    expect(none.text).toContain('<p>Try using a different search term to find the file you are looking for.</p>')

    const all = await visit(at('/-/find_file/feature/many'))
    expectPage(all)
    const rows = foundRows(all.text)
    expect(rows).toHaveLength(FIND_FILE_RESULTS)
    expect(rows[0]).toEqual([at('/-/blob/feature/many/README.md'), 'README.md'])
    expect(rows[3]).toEqual([at('/-/blob/feature/many/many/file-000.txt'), 'many/file-000.txt'])
    expect(all.text).toMatch(
      new RegExp(`Showing the first ${FIND_FILE_RESULTS} of ${MANY_FILES + 6} files\\. Type more of the\\s+path to narrow the list\\.`),
    )
    const matching = await visit(at('/-/find_file/feature/many?q=file-'))
    expect(foundRows(matching.text)).toHaveLength(FIND_FILE_RESULTS)
    expect(matching.text).toMatch(new RegExp(`Showing the first ${FIND_FILE_RESULTS} of ${MANY_FILES} files that match\\.`))
    const narrowed = await visit(at('/-/find_file/feature/many?q=file-11'))
    // The query's characters need not be together: file-101 and file-011 match too, ranked after the closer matches.
    expect(foundRows(narrowed.text).map(([href]) => href)).toEqual(
      [...Array.from({ length: 10 }, (_, n) => `11${n}`), '101', '011'].map((n) => at(`/-/blob/feature/many/many/file-${n}.txt`)),
    )
    expect(narrowed.text).not.toContain('Showing the first')
  })

  test('an unknown ref is the 404 page; the switcher keeps the finder', async () => {
    for (const path of ['/-/find_file/nope', '/-/find_file/', '/-/find_file/feature/nope']) {
      const page = await visit(at(path), ownerSession, { accept: 'text/html' })
      expectPage(page, 404)
      expect(page.text).toContain('404: Page not found')
    }
    const switched = await visit(at('/-/refs/switch?destination=find_file&ref=feature/many&path=docs'))
    expect([switched.status, switched.headers.get('location')]).toEqual([302, at('/-/find_file/feature/many')])
  })
})
