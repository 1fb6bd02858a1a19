import { NotFound } from '../../core/errors.js'
import { html, Html } from '../../web/html.js'
import { timeOf } from '../../web/list-page.js'
import { commitTitle, shortCommitId } from '../commits/index.js'
import { renderMarkdown } from '../markdown/index.js'
import { renderProjectPage } from '../projects/index.js'
import { blameRangesOf, contentDisposition, openBlame, readRepositoryFile, type RepositoryFile } from '../repository-files/index.js'
import { blobContentType, blobDisposition, destroyOnClose, findTreeEntry, readCommit, type ParsedCommit } from '../repositories/index.js'
import { HIGHLIGHT_MAX_BYTES, highlightedLines } from '../../web/highlight.js'
import {
  codeCrumbs,
  commitUrl,
  isMarkdownPath,
  lastCommitBox,
  refUrl,
  repositoryHeader,
  resolveRefPath,
  sizeOf,
  wildcardOf,
  type CodePage,
  type RefNames,
} from './shared.js'

// GL Projects::BlobController#show, Projects::RawController#show and Projects::BlameController#show.

interface OpenedFile {
  ref: string
  path: string
  refs: RefNames
  file: RepositoryFile
}

/**
 * The file a `/-/blob/`, `/-/raw/` or `/-/blame/` URL names. A folder's path answers a redirect to its tree (as GitLab
 * does); nothing there, NotFound.
 */
async function openFile(page: CodePage, kind: 'blob' | 'raw' | 'blame'): Promise<OpenedFile | { redirect: string }> {
  const { ref, path, commit, refs } = await resolveRefPath(page, wildcardOf(page.w))
  if (path === '') return { redirect: refUrl(page.loaded, 'tree', ref) }
  try {
    return { ref, path, refs, file: await readRepositoryFile(page.w.ctx, page.loaded, path, commit.oid) }
  } catch (error) {
    if (!(error instanceof NotFound) || kind === 'raw') throw error
    const entry = await findTreeEntry(page.directory, commit.tree, path.split('/'))
    if (entry?.type === 'tree') return { redirect: refUrl(page.loaded, 'tree', ref, path) }
    throw error
  }
}

/** What the file's bytes are, for showing them. */
function kindOf(file: RepositoryFile): 'large' | 'image' | 'binary' | 'text' | 'empty' {
  if (file.content === null) return 'large'
  if (file.size === 0) return 'empty'
  const type = blobContentType(file.head)
  if (type.startsWith('image/') && type !== 'image/svg+xml') return 'image'
  if (type === 'text/plain; charset=utf-8' || type === 'image/svg+xml') return 'text'
  return 'binary'
}

/** A file's lines in a table: each line number a link to the line's anchor (`#L12`), long lines scrolling in the box. */
function codeTable(lines: Html[], label: string): Html {
  return html`<div class="code blob-content" role="region" aria-label="${label}" tabindex="0">
    <table>
      <tbody>
        ${numberedRows(lines)}
      </tbody>
    </table>
  </div>`
}

/**
 * The rows of a file's lines. Made without a template per row, for a file of thousands of lines: nothing but line
 * numbers and the lines' markup (escaped or highlighted already) goes in.
 */
function numberedRows(lines: readonly Html[]): Html {
  const rows = new Array<string>(lines.length)
  for (let index = 0; index < lines.length; index++) {
    const number = index + 1
    rows[index] =
      `<tr id="L${number}"><td class="line-number"><a href="#L${number}">${number}</a></td><td class="line">${lines[index].text}</td></tr>`
  }
  return new Html(rows.join('\n'))
}

function fileActions(page: CodePage, opened: OpenedFile, current: 'blob' | 'blame'): Html {
  const { loaded } = page
  const { ref, path, file } = opened
  return html`${
    current === 'blob'
      ? html`<a class="button" href="${refUrl(loaded, 'blame', ref, path)}">Blame</a>`
      : html`<a class="button" href="${refUrl(loaded, 'blob', ref, path)}">Normal view</a>`
  }
    <a class="button" href="${refUrl(loaded, 'commits', ref, path)}">History</a>
    <a class="button" href="${refUrl(loaded, current, file.commitId, path)}">Permalink</a>`
}

function fileBoxHeader(page: CodePage, opened: OpenedFile, extra: Html = html``): Html {
  const { loaded } = page
  const { ref, path, file } = opened
  return html`<header class="file-header">
    <h2 class="file-title"><span class="file-name">${file.name}</span></h2>
    <span class="muted file-size">${sizeOf(file.size)}</span>
    ${extra}
    <span class="file-actions">
      <a class="button small" href="${refUrl(loaded, 'raw', ref, path)}">Open raw</a>
      <a class="button small" href="${refUrl(loaded, 'raw', ref, path)}?inline=false" download="${file.name}">Download</a>
    </span>
  </header>`
}

/** GET /-/blob/<ref>/<path>: the file with line numbers and anchors, highlighted; Markdown rendered unless `?plain=1`. */
export async function showBlob(page: CodePage) {
  const { w, loaded } = page
  const opened = await openFile(page, 'blob')
  if ('redirect' in opened) return w.redirect(opened.redirect)
  const { ref, path, file, refs } = opened
  const last = await readCommit(page.directory, file.lastCommitId)
  const kind = kindOf(file)
  const markdown = kind === 'text' && isMarkdownPath(path)
  const plain = w.params.plain === '1' || w.params.plain === 'true'
  let content: Html
  let toggle: Html = html``
  let note: Html = html``
  if (kind === 'large') {
    content = html`<div class="body empty-state">
      <p>This file is too large to show here (${sizeOf(file.size)}).</p>
      <p><a class="button" href="${refUrl(loaded, 'raw', ref, path)}?inline=false">Download it</a></p>
    </div>`
  } else if (kind === 'empty') {
    content = html`<div class="body empty-state"><p>Empty file</p></div>`
  } else if (kind === 'image') {
    content = html`<div class="body image-view"><img src="${refUrl(loaded, 'raw', ref, path)}" alt="${file.name}" /></div>`
  } else if (kind === 'binary') {
    content = html`<div class="body empty-state">
      <p>This file is stored in a binary format and is not shown.</p>
      <p><a class="button" href="${refUrl(loaded, 'raw', ref, path)}?inline=false">Download it</a></p>
    </div>`
  } else if (markdown && !plain) {
    const text = (file.content as Buffer).toString('utf8')
    content = html`<div class="body markdown">${await renderMarkdown(w.ctx, text, { project: loaded, base: { ref, path } })}</div>`
  } else {
    const { lines, tooLarge } = await highlightedLines(file.name, (file.content as Buffer).toString('utf8'), file.blobId)
    content = codeTable(lines, `Contents of ${file.name}`)
    if (tooLarge)
      note = html`<span class="muted highlight-note">Syntax highlighting is off for files over ${sizeOf(HIGHLIGHT_MAX_BYTES)}.</span>`
  }
  if (markdown) {
    const base = refUrl(loaded, 'blob', ref, path)
    toggle = html`<nav class="view-toggle" aria-label="View">
      ${plain ? html`<a href="${base}">Preview</a>` : html`<strong aria-current="page">Preview</strong>`}
      ${plain ? html`<strong aria-current="page">Code</strong>` : html`<a href="${base}?plain=1">Code</a>`}
    </nav>`
  }
  const body = html`<h1 class="sr-only">${path}</h1>
    ${repositoryHeader(page, refs, ref, path, 'blob', fileActions(page, opened, 'blob'))} ${last ? lastCommitBox(loaded, last) : ''}
    <section class="box file-box" aria-label="${file.name}">${fileBoxHeader(page, opened, html`${toggle}${note}`)} ${content}</section>`
  return renderProjectPage(w, loaded, { title: `${path} · ${ref}`, section: 'files', crumbs: codeCrumbs(loaded, { text: ref }) }, body)
}

/** GET /-/raw/<ref>/<path>: the file's bytes, typed as the API's raw file endpoint types them (never as HTML). */
export async function sendRaw(page: CodePage) {
  const { w, loaded } = page
  const opened = await openFile(page, 'raw')
  if ('redirect' in opened) throw new NotFound('File')
  const { file } = opened
  const type = blobContentType(file.head)
  const disposition = w.params.inline === 'false' ? 'attachment' : blobDisposition(type)
  // GL SendsBlob#send_blob: cached a minute, publicly only when anyone may read the code; the blob id as the ETag.
  const isPublic = loaded.project.visibility_level === 20 && loaded.project.repository_access_level >= 20
  const etag = `"${file.blobId}"`
  w.reply
    .header('content-type', type)
    .header('content-disposition', contentDisposition(disposition, file.name))
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', `max-age=60, ${isPublic ? 'public' : 'private'}`)
    .header('etag', etag)
  if (w.request.headers['if-none-match'] === etag) return w.reply.code(304).send()
  if (file.content !== null) return w.reply.send(file.content)
  const body = await file.open()
  destroyOnClose(body, w.reply.raw)
  return w.reply.header('content-length', String(file.size)).send(body)
}

function blameCommitCell(page: CodePage, commit: ParsedCommit, rows: number): Html {
  return html`<td class="blame-commit" rowspan="${rows}">
    <a class="commit-title" href="${commitUrl(page.loaded, commit.oid)}">${commitTitle(commit.message)}</a>
    <div class="meta">
      ${commit.author.name} · ${timeOf(commit.author.date)} ·
      <a href="${commitUrl(page.loaded, commit.oid)}" aria-label="Commit ${commit.oid}"><code>${shortCommitId(commit.oid)}</code></a>
    </div>
  </td>`
}

/** GET /-/blame/<ref>/<path>: each run of lines beside the commit that last changed it. */
export async function showBlame(page: CodePage) {
  const { w, loaded } = page
  const opened = await openFile(page, 'blame')
  if ('redirect' in opened) return w.redirect(opened.redirect)
  const { ref, path, file, refs } = opened
  const kind = kindOf(file)
  let content: Html
  if (kind !== 'text' && kind !== 'empty') {
    content = html`<div class="body empty-state">
      <p>${kind === 'large' ? `This file is too large to blame (${sizeOf(file.size)}).` : 'A binary file has no blame.'}</p>
    </div>`
  } else {
    const ranges = await blameRangesOf(await openBlame(w.ctx, loaded, file, null))
    const { lines } = await highlightedLines(file.name, (file.content as Buffer).toString('utf8'), file.blobId)
    let number = 0
    const rows = ranges.flatMap((range) =>
      range.lines.map((_, index) => {
        number += 1
        return html`<tr id="L${number}" class="${index === 0 ? 'blame-start' : ''}">
          ${index === 0 ? blameCommitCell(page, range.commit, range.lines.length) : ''}
          <td class="line-number"><a href="#L${number}">${number}</a></td>
          <td class="line">${lines[number - 1] ?? range.lines[index]}</td>
        </tr>`
      }),
    )
    content = html`<div class="code blame-content" role="region" aria-label="Blame of ${file.name}" tabindex="0">
      <table>
        <tbody>
          ${rows}
        </tbody>
      </table>
    </div>`
  }
  const body = html`<h1 class="sr-only">Blame of ${path}</h1>
    ${repositoryHeader(page, refs, ref, path, 'blame', fileActions(page, opened, 'blame'))}
    <section class="box file-box" aria-label="${file.name}">${fileBoxHeader(page, opened)} ${content}</section>`
  return renderProjectPage(
    w,
    loaded,
    { title: `Blame · ${path} · ${ref}`, section: 'files', crumbs: codeCrumbs(loaded, { text: ref }) },
    body,
  )
}
