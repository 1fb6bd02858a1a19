import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import type { IssueRow, LabelRow, MergeRequestRow, MilestoneRow, NamespaceRow, ProjectRow } from '../../db/schema.js'
import { contextFor } from '../../testing/context.js'
import {
  addTestMember,
  createTestGroup,
  createTestIssue,
  createTestLabel,
  createTestMergeRequest,
  createTestMilestone,
  createTestProject,
  createTestUser,
} from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { findProject, type LoadedProject } from '../access/index.js'
import { renderMarkdown, renderMarkdownField, renderSingleLineField } from './index.js'

let server: TestServer
let url: string
let group: NamespaceRow
let project: ProjectRow
let hidden: ProjectRow
let anna: User
let reader: User
let issue: IssueRow
let closedIssue: IssueRow
let secret: IssueRow
let hiddenIssue: IssueRow
let mergeRequest: MergeRequestRow
let bug: LabelRow
let toDo: LabelRow
let release: MilestoneRow
let spring: MilestoneRow

beforeAll(async () => {
  server = await startTestServer()
  url = server.config.externalUrl
  const db = server.database.db
  anna = await createTestUser(db, { username: 'anna-md', name: 'Anna <Apple>' })
  reader = await createTestUser(db, { username: 'reader-md' })
  group = await createTestGroup(db, { path: 'md-group', name: 'MD Group' })
  project = await createTestProject(db, { namespace: group, path: 'tool' })
  hidden = await createTestProject(db, { namespace: group, path: 'hidden', visibility: 'private' })
  await addTestMember(db, { user: anna, group, accessLevel: 50 })
  issue = await createTestIssue(db, { project, author: anna, title: 'Crash on "start" <now>' })
  closedIssue = await createTestIssue(db, { project, author: anna, title: 'Old', state: 'closed' })
  secret = await createTestIssue(db, { project, author: anna, title: 'Secret', confidential: true })
  hiddenIssue = await createTestIssue(db, { project: hidden, author: anna, title: 'Hidden' })
  mergeRequest = await createTestMergeRequest(db, { project, author: anna, title: 'Add the tool' })
  bug = await createTestLabel(db, { project, title: 'bug', color: '#d9534f', description: 'Something is broken' })
  toDo = await createTestLabel(db, { group, title: 'to do', color: '#6699cc' })
  release = await createTestMilestone(db, { project, title: 'v1.0' })
  spring = await createTestMilestone(db, { project, title: 'Spring release' })
})

afterAll(() => server?.close())

const issueLink = (target: IssueRow, text: string, suffix = '') =>
  `<a href="${url}/${project.full_path}/-/issues/${target.iid}" data-reference-type="issue" data-original="${text}" data-link="false" ` +
  `data-link-reference="false" data-project="${project.id}" data-issue="${target.id}" data-project-path="${project.full_path}" ` +
  `data-iid="${target.iid}" data-issue-type="issue" data-container="body" data-placement="top" ` +
  `title="${target.title.replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}" class="gfm gfm-issue">${text}${suffix}</a>`

function anonymousContext(): Context {
  return contextFor(server, null)
}

async function loaded(ctx: Context, target: ProjectRow = project): Promise<LoadedProject> {
  return findProject(ctx, target.id)
}

async function html(text: string, user: User | null = reader, options: { base?: { ref: string; path: string } } = {}) {
  const ctx = contextFor(server, user)
  return (await renderMarkdownField(ctx, text, { project: await loaded(ctx), ...options })).html
}

describe('Markdown', () => {
  test('paragraphs keep their source positions', async () => {
    expect(await html('Hello *world*\n\nSecond line')).toBe(
      '<p data-sourcepos="1:1-1:13" dir="auto">Hello <em>world</em></p>\n<p data-sourcepos="3:1-3:11" dir="auto">Second line</p>',
    )
    expect(await html('')).toBe('')
  })

  test('headings get GitLab anchors, unique within the document', async () => {
    expect(await html('# Title\n\n## Title\n\n### Über `code` & more!')).toBe(
      [
        '<h1 data-sourcepos="1:1-1:7" dir="auto"><a href="#title" aria-hidden="true" class="anchor" id="user-content-title"></a>Title</h1>',
        '<h2 data-sourcepos="3:1-3:8" dir="auto"><a href="#title-1" aria-hidden="true" class="anchor" id="user-content-title-1"></a>Title</h2>',
        '<h3 data-sourcepos="5:1-5:24" dir="auto"><a href="#%C3%BCber-code-more" aria-hidden="true" class="anchor" id="user-content-über-code-more"></a>Über <code>code</code> &amp; more!</h3>',
      ].join('\n'),
    )
  })

  test('tables align with attributes, not inline styles', async () => {
    expect(await html('| a | b |\n|:-:|--:|\n| 1 | 2 |')).toBe(
      [
        '<table data-sourcepos="1:1-3:9" dir="auto">',
        '<thead>',
        '<tr data-sourcepos="1:1-1:9">',
        '<th align="center">a</th>',
        '<th align="right">b</th>',
        '</tr>',
        '</thead>',
        '<tbody>',
        '<tr data-sourcepos="3:1-3:9">',
        '<td align="center">1</td>',
        '<td align="right">2</td>',
        '</tr>',
        '</tbody>',
        '</table>',
      ].join('\n'),
    )
  })

  test('task lists show disabled checkboxes', async () => {
    expect(await html('- [ ] todo\n- [x] done\n  - nested')).toBe(
      [
        '<ul data-sourcepos="1:1-3:10" dir="auto" class="task-list">',
        '<li data-sourcepos="1:1-1:10" class="task-list-item"><task-button></task-button><input type="checkbox" class="task-list-item-checkbox" disabled> todo</li>',
        '<li data-sourcepos="2:1-3:10" class="task-list-item"><task-button></task-button><input type="checkbox" class="task-list-item-checkbox" checked disabled> done',
        '<ul data-sourcepos="3:3-3:10" dir="auto">',
        '<li data-sourcepos="3:3-3:10">nested</li>',
        '</ul>',
        '</li>',
        '</ul>',
      ].join('\n'),
    )
  })

  test('fenced code is highlighted on the server; unknown languages and indented code are escaped text', async () => {
    const wrap = (position: string, lang: string, language: string, code: string) =>
      `<div class="gl-relative markdown-code-block js-markdown-code">\n<pre data-sourcepos="${position}" lang="${lang}" ` +
      `class="code highlight js-syntax-highlight language-${language}" v-pre="true"><code>${code}</code></pre>\n</div>`
    expect(await html('```js\nconst a = "<b>" // #1\n```')).toBe(
      wrap(
        '1:1-3:3',
        'js',
        'javascript',
        '<span class="hljs-keyword">const</span> a = <span class="hljs-string">&quot;&lt;b&gt;&quot;</span> <span class="hljs-comment">// #1</span>\n',
      ),
    )
    expect(await html('```nosuchlanguage\n<script>alert(1)</script>\n```')).toBe(
      wrap('1:1-3:3', 'nosuchlanguage', 'plaintext', '&lt;script&gt;alert(1)&lt;/script&gt;\n'),
    )
    expect(await html('    indented <x> #1')).toBe(wrap('1:5-1:19', 'plaintext', 'plaintext', 'indented &lt;x&gt; #1\n'))
  })

  test('autolinks: links elsewhere open apart, links to the instance do not', async () => {
    expect(await html(`see https://example.com/x?a=1&b=2 and ${url}/x or <mailto:a@example.com>`)).toBe(
      `<p data-sourcepos="1:1-1:${66 + url.length}" dir="auto">see <a href="https://example.com/x?a=1&amp;b=2" rel="nofollow noreferrer noopener" target="_blank">https://example.com/x?a=1&amp;b=2</a>` +
        ` and <a href="${url}/x">${url}/x</a> or <a href="mailto:a@example.com">mailto:a@example.com</a></p>`,
    )
  })

  test('emoji shortcodes become gl-emoji; emoticons stay text', async () => {
    expect(await html(':thumbsup: :tada: :nosuchemoji: :)')).toBe(
      '<p data-sourcepos="1:1-1:34" dir="auto"><gl-emoji title="thumbsup" data-name="thumbsup">\u{1F44D}</gl-emoji> ' +
        '<gl-emoji title="tada" data-name="tada">\u{1F389}</gl-emoji> :nosuchemoji: :)</p>',
    )
  })

  test('relative links of a README point into the repository at its ref', async () => {
    const text =
      '[a](docs/a.md#part) ![logo](./img/logo.png) [up](../LICENSE) [root](/CONTRIBUTING.md) [dir](sub/) [top](#intro) [web](https://example.com)'
    const rendered = await html(text, reader, { base: { ref: 'release/1.0', path: 'guide/README.md' } })
    const base = `/${project.full_path}/-`
    expect(rendered).toContain(`<a href="${base}/blob/release/1.0/guide/docs/a.md#part">a</a>`)
    expect(rendered).toContain(`<img src="${base}/raw/release/1.0/guide/img/logo.png" alt="logo">`)
    expect(rendered).toContain(`<a href="${base}/blob/release/1.0/LICENSE">up</a>`)
    expect(rendered).toContain(`<a href="${base}/blob/release/1.0/CONTRIBUTING.md">root</a>`)
    expect(rendered).toContain(`<a href="${base}/tree/release/1.0/guide/sub">dir</a>`)
    expect(rendered).toContain('<a href="#intro">top</a>')
    expect(rendered).toContain('<a href="https://example.com" rel="nofollow noreferrer noopener" target="_blank">web</a>')
  })

  test('renderMarkdown answers page markup', async () => {
    const ctx = anonymousContext()
    const page = await renderMarkdown(ctx, '**hi**', { project: await loaded(ctx) })
    expect(page.text).toBe('<p data-sourcepos="1:1-1:6" dir="auto"><strong>hi</strong></p>')
  })
})

describe('raw HTML', () => {
  const paragraph = (text: string, inner: string) => `<p data-sourcepos="1:1-1:${text.length}" dir="auto">${inner}</p>`

  test("GitLab's inline elements come through as written", async () => {
    const text =
      'Press <kbd>Ctrl</kbd>+<kbd>C</kbd>: H<sub>2</sub>O, x<sup>2</sup>,<br>an <abbr title="HyperText">HTML</abbr> <mark>mark</mark>'
    expect(await html(text)).toBe(paragraph(text, text))
  })

  test('details and summary hold Markdown, references included, and open stays', async () => {
    expect(await html(`<details open>\n<summary>More about <b>it</b></summary>\n\nSee **#${issue.iid}**\n\n</details>`)).toBe(
      '<details open>\n<summary>More about <b>it</b></summary>\n' +
        `<p data-sourcepos="4:1-4:${9 + String(issue.iid).length}" dir="auto">See <strong>${issueLink(issue, `#${issue.iid}`)}</strong></p>\n` +
        '</details>',
    )
  })

  test('definition lists, tables with alignment and images with their size', async () => {
    expect(await html('<dl><dt>Term</dt><dd>Meaning</dd></dl>')).toBe('<dl><dt>Term</dt><dd>Meaning</dd></dl>')
    expect(
      await html('<table><tr><th align="center">a</th><td style="color: red; text-align: right">b</td><td style="x">c</td></tr></table>'),
    ).toBe('<table><tr><th align="center">a</th><td align="right">b</td><td>c</td></tr></table>')
    expect(await html('<img src="logo.png" alt="Logo" title="The logo" width="20" height="10" style="float:left" class="x">')).toBe(
      '<img src="logo.png" alt="Logo" title="The logo" width="20" height="10">',
    )
  })

  test('links keep href and title, and get the rel of Markdown links; classes, data and ids GitLab strips go', async () => {
    const forged = `<a href="${url}/x" title="t" class="gfm gfm-issue" data-reference-type="issue" data-issue="${secret.id}" id="x" rel="me">forged</a>`
    expect(await html(forged)).toBe(paragraph(forged, `<a href="${url}/x" title="t">forged</a>`))
    const external = '<a href="https://example.com" target="_self" rel="license">x</a> <a href="//example.com/y">y</a>'
    expect(await html(external)).toBe(
      paragraph(
        external,
        '<a href="https://example.com" rel="nofollow noreferrer noopener" target="_blank">x</a> ' +
          '<a href="//example.com/y" rel="nofollow noreferrer noopener" target="_blank">y</a>',
      ),
    )
    // GitLab keeps a heading anchor's class and its `user-content-` id, and rel="license".
    const anchors =
      '<a class="anchor" id="user-content-x" href="#x">a</a> <a class="anchor" id="top">b</a> <a href="/l" rel="license">c</a>'
    expect(await html(anchors)).toBe(
      paragraph(anchors, '<a class="anchor" id="user-content-x" href="#x">a</a> <a class="anchor">b</a> <a href="/l" rel="license">c</a>'),
    )
  })

  test("markup written by hand cannot pass for the engine's", async () => {
    expect(
      await html(
        '<ul class="task-list"><li class="task-list-item"><input type="checkbox" checked> <task-button></task-button>x</li></ul>\n\n' +
          '<pre class="code highlight"><code><span class="hljs-keyword">const</span></code></pre>\n\n<gl-emoji data-name="tada">y</gl-emoji>',
      ),
    ).toBe('<ul><li> x</li></ul>\n<pre><code><span>const</span></code></pre>\n<p data-sourcepos="5:1-5:39" dir="auto">y</p>')
  })

  test('what a writer leaves open is closed inside the document, and what it never opened is dropped', async () => {
    expect(await html('<div><b>open <i>nested\n\nafter')).toBe(
      '<div><b>open <i>nested\n<p data-sourcepos="3:1-3:5" dir="auto">after</p>\n</i></b></div>',
    )
    expect(await html('text</div></main></body>\n\n<li>item</li><td>cell</td>')).toBe(
      '<p data-sourcepos="1:1-1:24" dir="auto">text</p>\nitemcell',
    )
  })

  test('references inside a link or code written in HTML stay text', async () => {
    const text = `<a href="/x">#${issue.iid}</a> <code>#${issue.iid}</code> <b>#${issue.iid}</b>`
    expect(await html(text)).toBe(
      paragraph(text, `<a href="/x">#${issue.iid}</a> <code>#${issue.iid}</code> <b>${issueLink(issue, `#${issue.iid}`)}</b>`),
    )
  })

  test('links and images written in HTML in a README point into the repository too', async () => {
    const rendered = await html('<a href="docs/a.md">a</a> <img src="img/logo.png" alt="">', reader, {
      base: { ref: 'main', path: 'guide/README.md' },
    })
    expect(rendered).toBe(
      '<p data-sourcepos="1:1-1:57" dir="auto">' +
        `<a href="/${project.full_path}/-/blob/main/guide/docs/a.md">a</a> <img src="/${project.full_path}/-/raw/main/guide/img/logo.png" alt=""></p>`,
    )
  })
})

describe('XSS', () => {
  const inert = [
    ['<script>alert(1)</script>', ''],
    ['Hi <script>alert(1)</script> there', '<p data-sourcepos="1:1-1:34" dir="auto">Hi  there</p>'],
    ['<img src=x onerror=alert(1)>', '<img src="x">'],
    ['An <img src=x onerror=alert(1)> image', '<p data-sourcepos="1:1-1:37" dir="auto">An <img src="x"> image</p>'],
    ['<a href="javascript:alert(1)">x</a>', '<p data-sourcepos="1:1-1:35" dir="auto"><a>x</a></p>'],
    ['<a href="JaVaScRiPt:alert(1)">x</a>', '<p data-sourcepos="1:1-1:35" dir="auto"><a>x</a></p>'],
    ['<a href="&#106;avascript:alert(1)">x</a>', '<p data-sourcepos="1:1-1:40" dir="auto"><a>x</a></p>'],
    ['<a href="&#x6A;avascript&colon;alert(1)">x</a>', '<p data-sourcepos="1:1-1:46" dir="auto"><a>x</a></p>'],
    ['<a href="java&#x09;script:alert(1)">x</a>', '<p data-sourcepos="1:1-1:41" dir="auto"><a>x</a></p>'],
    ['<a href="  javascript:alert(1)">x</a>', '<p data-sourcepos="1:1-1:37" dir="auto"><a>x</a></p>'],
    ['<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>', '<p data-sourcepos="1:1-1:50" dir="auto"><a>x</a></p>'],
    ['<img src="data:image/svg+xml,<svg onload=alert(1)>">', '<img>'],
    ['<a href="vbscript:msgbox(1)">x</a>', '<p data-sourcepos="1:1-1:34" dir="auto"><a>x</a></p>'],
    ['<svg onload=alert(1)>', ''],
    ['x <svg><script>alert(1)</script></svg> y', '<p data-sourcepos="1:1-1:40" dir="auto">x  y</p>'],
    ['<iframe src="javascript:alert(1)"></iframe>', ''],
    ['x <iframe src="https://example.com"></iframe> y', '<p data-sourcepos="1:1-1:47" dir="auto">x  y</p>'],
    ['<style>body{display:none}</style>', ''],
    ['x <style>*{}</style> y', '<p data-sourcepos="1:1-1:22" dir="auto">x  y</p>'],
    ['<form action="https://example.com"><input type="submit" value="Go"></form>', ''],
    // A form closes the paragraph it opens in, as a browser would; what is left is text.
    [
      'x <form><input name=a><button formaction="javascript:alert(1)">b</button></form> y',
      '<p data-sourcepos="1:1-1:82" dir="auto">x </p>b y<p></p>',
    ],
    [
      '<a href="https://example.com" title="a" onmouseover="alert(1)">x</a>',
      '<p data-sourcepos="1:1-1:68" dir="auto"><a href="https://example.com" title="a" rel="nofollow noreferrer noopener" target="_blank">x</a></p>',
    ],
    [
      '<a title="x&quot; onmouseover=&quot;alert(1)">x</a>',
      '<p data-sourcepos="1:1-1:51" dir="auto"><a title="x&quot; onmouseover=&quot;alert(1)">x</a></p>',
    ],
    [`<img src="x" alt='"><script>alert(1)</script>'>`, '<img src="x" alt="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">'],
    ['<b><i>unclosed', '<p data-sourcepos="1:1-1:14" dir="auto"><b><i>unclosed</i></b></p>'],
    ['<div><span>a</div>b', '<div><span>a</span></div>b'],
    ['<details open ontoggle=alert(1)><summary>s</summary>x</details>', '<details open><summary>s</summary>x</details>'],
    ['<p style="background:url(javascript:alert(1))" onclick="alert(1)">x</p>', '<p>x</p>'],
    [
      '<object data="x"></object><embed src="x"><base href="https://evil.example"><meta http-equiv="refresh" content="0"><link rel=stylesheet href=x>',
      '<p data-sourcepos="1:1-1:142" dir="auto"></p>',
    ],
    ['<textarea><p>x</p></textarea>', ''],
    [
      '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
      '<p data-sourcepos="1:1-1:72" dir="auto"><p title="&lt;/noscript&gt;&lt;img src=x onerror=alert(1)&gt;"></p></p>',
    ],
    ['<math><mi xlink:href="javascript:alert(1)">x</mi></math>', '<p data-sourcepos="1:1-1:56" dir="auto">x</p>'],
    ['x<!--<img src=x onerror=alert(1)>-->y', '<p data-sourcepos="1:1-1:37" dir="auto">xy</p>'],
    ['<title><img src=x onerror=alert(1)></title>', '&lt;img src=x onerror=alert(1)&gt;'],
    ['[x](javascript:alert(1))', '<p data-sourcepos="1:1-1:24" dir="auto">[x](javascript:alert(1))</p>'],
    ['[x](JaVaScRiPt:alert(1))', '<p data-sourcepos="1:1-1:24" dir="auto">[x](JaVaScRiPt:alert(1))</p>'],
    ['[x](&#106;avascript:alert(1))', '<p data-sourcepos="1:1-1:29" dir="auto">[x](javascript:alert(1))</p>'],
    ['[x](<java\tscript:alert(1)>)', '<p data-sourcepos="1:1-1:27" dir="auto">[x](&lt;java\tscript:alert(1)&gt;)</p>'],
    ['<javascript:alert(1)>', '<p data-sourcepos="1:1-1:21" dir="auto">&lt;javascript:alert(1)&gt;</p>'],
    ['[x](data:text/html;base64,PHNjcmlwdD4=)', '<p data-sourcepos="1:1-1:39" dir="auto">[x](data:text/html;base64,PHNjcmlwdD4=)</p>'],
    ['![x](data:image/svg+xml,<svg onload=alert(1)>)', '<p data-sourcepos="1:1-1:46" dir="auto">![x](data:image/svg+xml,)</p>'],
    ['[x](vbscript:msgbox(1))', '<p data-sourcepos="1:1-1:23" dir="auto">[x](vbscript:msgbox(1))</p>'],
    [
      '[x](https://example.com "a\\" onmouseover=\\"alert(1)")',
      '<p data-sourcepos="1:1-1:53" dir="auto"><a href="https://example.com" title="a&quot; onmouseover=&quot;alert(1)" rel="nofollow noreferrer noopener" target="_blank">x</a></p>',
    ],
    [
      '[<b onclick=alert(1)>x</b>](https://example.com)',
      '<p data-sourcepos="1:1-1:48" dir="auto"><a href="https://example.com" rel="nofollow noreferrer noopener" target="_blank"><b>x</b></a></p>',
    ],
    ['<div style="x" onmouseover="alert(1)">\nhi\n</div>', '<div>\nhi\n</div>'],
    ['```"><script>alert(1)</script>\nx\n```', undefined],
  ] as const

  test.each(inert)('%j stays inert', async (text, expected) => {
    const rendered = await html(text)
    if (expected !== undefined) expect(rendered).toBe(expected)
    expect(rendered).not.toMatch(/<(?:script|style|iframe|svg|form|input|object|embed|base|meta|link|math)\b/i)
    expect(rendered).not.toMatch(/<[a-z][^>]*\s(?:on[a-z]+|style|formaction)="|(?:href|src)="\s*(?:javascript|vbscript|data):/i)
  })

  test('a fence info string cannot break out of its attribute', async () => {
    expect(await html('```"><script>alert(1)</script>\nx\n```')).toContain('lang="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"')
  })
})

describe('references', () => {
  test('#123 links an issue the reader may see, with its title; closed ones say so', async () => {
    expect(await html(`See #${issue.iid} and #${closedIssue.iid}.`)).toBe(
      `<p data-sourcepos="1:1-1:14" dir="auto">See ${issueLink(issue, `#${issue.iid}`)} and ${issueLink(closedIssue, `#${closedIssue.iid}`, ' (closed)')}.</p>`,
    )
  })

  test('!45 links a merge request', async () => {
    expect(await html(`Fixed by !${mergeRequest.iid}`)).toBe(
      `<p data-sourcepos="1:1-1:11" dir="auto">Fixed by <a href="${url}/${project.full_path}/-/merge_requests/${mergeRequest.iid}" data-reference-type="merge_request" ` +
        `data-original="!${mergeRequest.iid}" data-link="false" data-link-reference="false" data-project="${project.id}" ` +
        `data-merge-request="${mergeRequest.id}" data-project-path="${project.full_path}" data-iid="${mergeRequest.iid}" ` +
        `data-container="body" data-placement="top" title="Add the tool" class="gfm gfm-merge_request">!${mergeRequest.iid}</a></p>`,
    )
  })

  test('@user links a profile, @group a group; unknown names stay text', async () => {
    expect(await html('Thanks @anna-md. And @md-group, @nobody-here')).toBe(
      `<p data-sourcepos="1:1-1:44" dir="auto">Thanks <a href="${url}/anna-md" data-reference-type="user" data-user="${anna.id}" data-container="body" ` +
        `data-placement="top" class="gfm gfm-project_member js-user-link" title="Anna &lt;Apple&gt;">@anna-md</a>. And ` +
        `<a href="${url}/groups/md-group" data-reference-type="user" data-group="${group.id}" data-container="body" data-placement="top" ` +
        `class="gfm gfm-project_member js-user-link" title="MD Group">@md-group</a>, @nobody-here</p>`,
    )
  })

  test('@user links any user, for anyone; @group only a group the reader may see', async () => {
    const privateGroup = await createTestGroup(server.database.db, { path: 'md-private', name: 'Private', visibility: 'private' })
    const internalGroup = await createTestGroup(server.database.db, { path: 'md-internal', name: 'Internal', visibility: 'internal' })
    await addTestMember(server.database.db, { user: anna, group: privateGroup, accessLevel: 10 })
    const text = '@anna-md @md-private @md-internal'
    const userLink =
      `<a href="${url}/anna-md" data-reference-type="user" data-user="${anna.id}" data-container="body" data-placement="top" ` +
      'class="gfm gfm-project_member js-user-link" title="Anna &lt;Apple&gt;">@anna-md</a>'
    const groupLink = (target: NamespaceRow) =>
      `<a href="${url}/groups/${target.full_path}" data-reference-type="user" data-group="${target.id}" data-container="body" ` +
      `data-placement="top" class="gfm gfm-project_member js-user-link" title="${target.full_name}">@${target.full_path}</a>`
    const paragraph = (inner: string) => `<p data-sourcepos="1:1-1:${text.length}" dir="auto">${inner}</p>`
    expect(await html(text, null)).toBe(paragraph(`${userLink} @md-private @md-internal`))
    expect(await html(text, reader)).toBe(paragraph(`${userLink} @md-private ${groupLink(internalGroup)}`))
    expect(await html(text, anna)).toBe(paragraph(`${userLink} ${groupLink(privateGroup)} ${groupLink(internalGroup)}`))
  })

  test('~label and ~"multi word" link the project’s issues with that label, a group label too, with a dot of its colour', async () => {
    const labelLink = (label: LabelRow, text: string, title: string) =>
      `<span class="gl-label gl-label-sm"><a href="${url}/${project.full_path}/-/issues?label_name[]=${encodeURIComponent(label.title)}" ` +
      `data-reference-type="label" data-original="${text}" data-link="false" data-link-reference="false" data-project="${project.id}" ` +
      `data-label="${label.id}" data-container="body" data-placement="top" title="${title}" ` +
      `class="gfm gfm-label has-tooltip gl-link gl-label-link">` +
      '<svg class="label-dot" width="10" height="10" viewBox="0 0 10 10" aria-hidden="true" focusable="false">' +
      `<circle cx="5" cy="5" r="5" fill="${label.color}" /></svg><span class="gl-label-text">${label.title}</span></a></span>`
    expect(await html('Marked ~bug and ~"to do", not ~missing')).toBe(
      `<p data-sourcepos="1:1-1:38" dir="auto">Marked ${labelLink(bug, '~bug', 'Something is broken')} and ` +
        `${labelLink(toDo, '~&quot;to do&quot;', '')}, not ~missing</p>`,
    )
    expect(await html(`By id: ~${bug.id}`)).toContain(`data-label="${bug.id}"`)
    expect(bug.color).toBe('#d9534f')
  })

  test('%milestone and %"multi word" link the milestone', async () => {
    const milestoneLink = (milestone: MilestoneRow, text: string) =>
      `<a href="${url}/${project.full_path}/-/milestones/${milestone.iid}" data-reference-type="milestone" data-original="${text}" ` +
      `data-link="false" data-link-reference="false" data-project="${project.id}" data-milestone="${milestone.id}" ` +
      `data-container="body" data-placement="top" class="gfm gfm-milestone has-tooltip">${milestone.title}</a>`
    expect(await html('Due in %v1.0. Then %"Spring release".')).toBe(
      `<p data-sourcepos="1:1-1:37" dir="auto">Due in ${milestoneLink(release, '%v1.0')}. Then ${milestoneLink(spring, '%&quot;Spring release&quot;')}.</p>`,
    )
  })

  test('cross-project references name the project by its path', async () => {
    const rendered = await html(`${project.full_path}#${issue.iid} and tool#${issue.iid}`, anna)
    expect(rendered).toContain(`data-original="${project.full_path}#${issue.iid}"`)
    expect(rendered).toContain(`data-original="tool#${issue.iid}"`)
    expect(await html(`${hidden.full_path}#${hiddenIssue.iid}`, anna)).toContain(`data-issue="${hiddenIssue.id}"`)
  })

  test('references the reader may not see stay text', async () => {
    // A confidential issue for an outsider, and an issue of a private project.
    expect(await html(`#${secret.iid} ${hidden.full_path}#${hiddenIssue.iid} hidden#${hiddenIssue.iid}`, reader)).toBe(
      `<p data-sourcepos="1:1-1:${`#${secret.iid} ${hidden.full_path}#${hiddenIssue.iid} hidden#${hiddenIssue.iid}`.length}" dir="auto">` +
        `#${secret.iid} ${hidden.full_path}#${hiddenIssue.iid} hidden#${hiddenIssue.iid}</p>`,
    )
    expect(await html(`#${secret.iid}`, null)).not.toContain('<a')
    expect(await html(`#${secret.iid}`, anna)).toContain(`data-issue="${secret.id}"`)
    expect(await html('#999999 !999999 %nothing')).not.toContain('<a')
  })

  test('references in code, code blocks and links are never expanded', async () => {
    const rendered = await html(
      `\`#${issue.iid} @anna-md\`\n\n\`\`\`\n#${issue.iid} ~bug\n\`\`\`\n\n[see #${issue.iid}](https://example.com) https://example.com/#${issue.iid} \\#${issue.iid}`,
    )
    expect(rendered).not.toContain('gfm')
    expect(rendered).toContain(`<code>#${issue.iid} @anna-md</code>`)
  })

  test('an address is not a mention, and a word before # names a project', async () => {
    expect(await html('mail anna-md@example.com or x@anna-md')).not.toContain('gfm')
    expect(await html(`abc#${issue.iid}`)).not.toContain('gfm')
  })

  test('titles use the single-line pipeline: no Markdown, but autolinks, emoji and references', async () => {
    const ctx = contextFor(server, reader)
    const rendered = await renderSingleLineField(ctx, `Fix *it* <b> for #${issue.iid} :tada: https://example.com`, {
      project: await loaded(ctx),
    })
    expect(rendered.dependsOnReader).toBe(true)
    expect(rendered.html).toBe(
      `Fix *it* &lt;b&gt; for ${issueLink(issue, `#${issue.iid}`)} <gl-emoji title="tada" data-name="tada">\u{1F389}</gl-emoji> ` +
        '<a href="https://example.com" rel="nofollow noreferrer noopener" target="_blank">https://example.com</a>',
    )
  })

  test('a document without references is rendered once and does not depend on the reader', async () => {
    const ctx = contextFor(server, reader)
    const first = await renderMarkdownField(ctx, 'Plain *text* only')
    const second = await renderMarkdownField(contextFor(server, anna), 'Plain *text* only')
    expect(first).toEqual({ html: '<p data-sourcepos="1:1-1:17" dir="auto">Plain <em>text</em> only</p>', dependsOnReader: false })
    expect(second.html).toBe(first.html)
  })
})
