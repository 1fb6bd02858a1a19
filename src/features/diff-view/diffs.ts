import { createHash } from 'node:crypto'
import { html, type Html } from '../../web/html.js'
import { highlightLines, languageOf, markRange } from '../../web/highlight.js'
import type { DiffResult, FileDiff } from '../repositories/index.js'

// Changes as GitLab's diff view shows them on the merge request, commit and compare pages, drawn from the API's own
// diff data (git's unified patch of each file): inline or side by side, highlighted, changed words marked, large files
// collapsed, and a file tree linking to each file. No diff is computed here; the lines are git's.

export type DiffViewMode = 'inline' | 'parallel'

/** The view a page's `?view=` asks for (GL `diff_view`): side by side for `parallel`, otherwise inline. */
export function diffViewModeOf(value: unknown): DiffViewMode {
  return value === 'parallel' ? 'parallel' : 'inline'
}

type LineKind = 'context' | 'added' | 'removed' | 'hunk' | 'meta'

interface DiffLine {
  kind: LineKind
  oldLine: number | null
  newLine: number | null
  /** GitLab's line code: sha1 of the file's path, then the old and new positions (an added line's old one is the next). */
  lineCode: string | null
  /** The line's text without its +, - or space. */
  text: string
  html: Html
}

/** A line of a file's diff as GitLab's positions name it. */
export interface DiffLineRef {
  kind: 'added' | 'removed' | 'context'
  oldLine: number | null
  newLine: number | null
  /** GL Gitlab::Git.diff_line_code: `<sha1 of the path>_<old position>_<new position>`. */
  lineCode: string
}

/** GL DiffFile#file_hash: the anchor of a file in the page. */
export function fileHashOf(file: FileDiff): string {
  return createHash('sha1').update(file.newPath).digest('hex')
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/

/** The patch's lines with their numbers on each side and GitLab's line codes (GL Gitlab::Diff::Parser). */
function parseLines(patch: string, path: string): DiffLine[] {
  const lines: DiffLine[] = []
  const pathHash = createHash('sha1').update(path).digest('hex')
  let oldLine = 0
  let newLine = 0
  const text = patch.endsWith('\n') ? patch.slice(0, -1) : patch
  // Built before the counters move on: an added line's old position is the next old line, a removed one's new likewise.
  const line = (kind: 'added' | 'removed' | 'context', body: string): DiffLine => ({
    kind,
    oldLine: kind === 'added' ? null : oldLine,
    newLine: kind === 'removed' ? null : newLine,
    lineCode: `${pathHash}_${oldLine}_${newLine}`,
    text: body,
    html: html`${body}`,
  })
  for (const raw of text.split('\n')) {
    const hunk = HUNK.exec(raw)
    if (hunk) {
      oldLine = Number(hunk[1])
      newLine = Number(hunk[2])
      lines.push({ kind: 'hunk', oldLine: null, newLine: null, lineCode: null, text: raw, html: html`${raw}` })
      continue
    }
    const sign = raw.charAt(0)
    const body = raw.slice(1)
    if (sign === '+') {
      lines.push(line('added', body))
      newLine++
    } else if (sign === '-') {
      lines.push(line('removed', body))
      oldLine++
    } else if (sign === ' ' || raw === '') {
      lines.push(line('context', body))
      oldLine++
      newLine++
    }
    // "\ No newline at end of file", and anything else git writes between lines.
    else lines.push({ kind: 'meta', oldLine: null, newLine: null, lineCode: null, text: raw, html: html`${raw}` })
  }
  return lines
}

/** The lines of a file's diff that a comment can be on, with GitLab's line codes. */
export function diffLinesOf(file: FileDiff): DiffLineRef[] {
  if (file.diff === '' || file.binary || file.tooLarge) return []
  return parseLines(file.diff, file.newPath).flatMap((line) =>
    line.kind === 'added' || line.kind === 'removed' || line.kind === 'context'
      ? [{ kind: line.kind, oldLine: line.oldLine, newLine: line.newLine, lineCode: line.lineCode! }]
      : [],
  )
}

/** Highlights each hunk's old side and new side as blocks, so that a string or comment spanning lines keeps its colour. */
async function highlight(lines: DiffLine[], language: string | null) {
  if (language === null) return
  let start = 0
  while (start < lines.length) {
    let end = start + 1
    while (end < lines.length && lines[end].kind !== 'hunk') end++
    const hunk = lines.slice(start, end)
    for (const side of ['old', 'new'] as const) {
      const members = hunk.filter((line) => line.kind === 'context' || line.kind === (side === 'old' ? 'removed' : 'added'))
      if (members.length === 0) continue
      const highlighted = await highlightLines(members.map((line) => line.text).join('\n'), language)
      members.forEach((line, index) => {
        // A context line is highlighted on both sides; the new side's colours are shown.
        if (line.kind !== 'context' || side === 'new') line.html = highlighted[index]
      })
    }
    start = end
  }
}

/**
 * Marks the changed part of each removed line paired with an added line: the text between their common prefix and
 * suffix (GL Gitlab::Diff::InlineDiff); a line replaced whole is left unmarked.
 */
function markChangedWords(lines: DiffLine[]) {
  for (const [removed, added] of changedPairs(lines)) {
    if (removed?.kind !== 'removed' || added?.kind !== 'added') continue
    const a = removed.text
    const b = added.text
    let prefix = 0
    while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++
    let suffix = 0
    while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++
    if (prefix === 0 && suffix === 0) continue
    removed.html = markRange(removed.html, prefix, a.length - suffix, 'del')
    added.html = markRange(added.html, prefix, b.length - suffix, 'ins')
  }
}

/** Rows of a side-by-side view: runs of removed lines beside the added lines that follow them, context on both sides. */
function changedPairs(lines: DiffLine[]): [DiffLine | null, DiffLine | null][] {
  const pairs: [DiffLine | null, DiffLine | null][] = []
  let index = 0
  while (index < lines.length) {
    const line = lines[index]
    if (line.kind === 'removed' || line.kind === 'added') {
      const removed: DiffLine[] = []
      const added: DiffLine[] = []
      while (index < lines.length && lines[index].kind === 'removed') removed.push(lines[index++])
      while (index < lines.length && (lines[index].kind === 'added' || lines[index].kind === 'meta')) {
        if (lines[index].kind === 'added') added.push(lines[index])
        index++
      }
      for (let row = 0; row < Math.max(removed.length, added.length); row++) pairs.push([removed[row] ?? null, added[row] ?? null])
      continue
    }
    if (line.kind !== 'meta') pairs.push([line, line])
    index++
  }
  return pairs
}

const SIGNS: Record<LineKind, string> = { context: ' ', added: '+', removed: '-', hunk: '', meta: '' }

function lineId(hash: string, line: DiffLine): string {
  return `${hash}_${line.oldLine ?? ''}_${line.newLine ?? ''}`
}

function numberCell(hash: string, line: DiffLine | null, side: 'old' | 'new'): Html {
  const number = line === null ? null : side === 'old' ? line.oldLine : line.newLine
  if (line === null || number === null) return html`<td class="line-number ${side}"></td>`
  return html`<td class="line-number ${side}"><a href="#${lineId(hash, line)}" aria-label="${side === 'old' ? 'Old' : 'New'} line ${number}">${number}</a></td>`
}

/** What a page adds to one line of a diff: a way to comment on it, and what shows under it (its threads, a form). */
export interface LineExtras {
  commentHref: string | null
  below: Html | null
}

/**
 * A page's extras for each line; `copy` is 'phone' for the inline table that stands in for a side-by-side one on a
 * phone, whose ids must differ from the main copy's.
 */
export type LineExtrasOf = (file: FileDiff, line: DiffLineRef, copy: 'main' | 'phone') => LineExtras

type ExtrasOf = (line: DiffLine) => LineExtras | null

const NO_EXTRAS: ExtrasOf = () => null

function lineRefOf(line: DiffLine): DiffLineRef | null {
  if (line.lineCode === null || (line.kind !== 'added' && line.kind !== 'removed' && line.kind !== 'context')) return null
  return { kind: line.kind, oldLine: line.oldLine, newLine: line.newLine, lineCode: line.lineCode }
}

/** The small "+" that opens a comment form on the line, shown on hover and focus. */
function commentLink(extras: LineExtras | null, line: DiffLine): Html {
  if (!extras?.commentHref) return html``
  const which = line.kind === 'removed' ? `old line ${line.oldLine}` : `line ${line.newLine}`
  return html`<a class="add-diff-note" href="${extras.commentHref}" title="Add a comment to this line" aria-label="Add a comment to ${which}">+</a>`
}

function belowRow(below: Html | null, columns: number): Html {
  if (!below || below.text === '') return html``
  return html`<tr class="diff-notes-row"><td colspan="${columns}" class="diff-notes-cell">${below}</td></tr>`
}

/** The inline table; side by side, a second one (`phone-fallback`, no ids) stands in for it on a phone's narrow screen. */
function inlineTable(hash: string, lines: DiffLine[], fallback: 'phone-fallback' | '' = '', extrasOf: ExtrasOf = NO_EXTRAS): Html {
  const id = (line: DiffLine) => (fallback ? '' : html` id="${lineId(hash, line)}"`)
  return html`<table class="${fallback ? 'diff-table inline phone-fallback' : 'diff-table inline'}">
    <tbody>
      ${lines.map((line) => {
        if (line.kind === 'hunk' || line.kind === 'meta') {
          return html`<tr class="hunk"><td class="line-number old"></td><td class="line-number new"></td><td class="line">${line.html}</td></tr>`
        }
        const extras = extrasOf(line)
        return html`<tr class="${line.kind}"${id(line)}>
            ${numberCell(hash, line, 'old')}${numberCell(hash, line, 'new')}
            <td class="line">${commentLink(extras, line)}<span class="sign" aria-hidden="true">${SIGNS[line.kind]}</span>${line.html}</td>
          </tr>
          ${belowRow(extras?.below ?? null, 3)}`
      })}
    </tbody>
  </table>`
}

function sideCells(hash: string, line: DiffLine | null, side: 'old' | 'new', extras: LineExtras | null): Html {
  if (line === null) return html`<td class="line-number ${side} empty-cell"></td><td class="line ${side} empty-cell"></td>`
  const kind = line.kind === 'context' ? 'context' : line.kind
  return html`${numberCell(hash, line, side)}<td class="line ${side} ${kind}">${commentLink(extras, line)}<span class="sign" aria-hidden="true">${SIGNS[line.kind]}</span>${line.html}</td>`
}

function parallelTable(hash: string, lines: DiffLine[], extrasOf: ExtrasOf = NO_EXTRAS): Html {
  return html`<table class="diff-table parallel">
    <tbody>
      ${changedPairs(lines).map(([left, right]) => {
        if (left !== null && left === right && left.kind === 'hunk') {
          return html`<tr class="hunk"><td class="line-number old"></td><td class="line old">${left.html}</td><td class="line-number new"></td><td class="line new">${left.html}</td></tr>`
        }
        const id = left && left === right ? html` id="${lineId(hash, left)}"` : ''
        const leftExtras = left ? extrasOf(left) : null
        // A context line is one line on both sides: its comment link and threads show once, on the new side.
        const rightExtras = right === null ? null : right === left ? leftExtras : extrasOf(right)
        const below = right === left ? (rightExtras?.below ?? null) : html`${leftExtras?.below ?? ''}${rightExtras?.below ?? ''}`
        return html`<tr${id}>${sideCells(hash, left, 'old', left === right ? null : leftExtras)}${sideCells(hash, right, 'new', rightExtras)}</tr>
          ${belowRow(below, 4)}`
      })}
    </tbody>
  </table>`
}

/** How a file changed, in GitLab's words. */
function changeKind(file: FileDiff): { label: string; className: string } {
  if (file.newFile) return { label: 'Added', className: 'file-added' }
  if (file.deletedFile) return { label: 'Deleted', className: 'file-deleted' }
  if (file.renamedFile) return { label: 'Renamed', className: 'file-renamed' }
  return { label: 'Modified', className: 'file-modified' }
}

// GL Gitlab::Git::DiffCollection's safe limits: past 100 files or 5,000 lines the rest come collapsed, as does a single
// file whose patch passes a tenth of the largest patch shown (GL Gitlab::Git::Diff.collapse_limit).
const SAFE_MAX_FILES = 100
const SAFE_MAX_LINES = 5_000
const COLLAPSE_BYTES = (200 * 1024) / 10

/** Which files the page shows collapsed: those the API marks, and those past GitLab's safe limits. */
function collapsedFiles(files: readonly FileDiff[]): boolean[] {
  let lines = 0
  return files.map((file, index) => {
    const size = file.additions + file.deletions
    lines += size
    return (
      file.collapsed || file.tooLarge || index >= SAFE_MAX_FILES || lines > SAFE_MAX_LINES || Buffer.byteLength(file.diff) > COLLAPSE_BYTES
    )
  })
}

/**
 * A file's box: its path (old &rarr; new when renamed), what changed, its counts, a link to the file as changed, then
 * its lines or why there are none.
 */
async function fileDiffBox(
  file: FileDiff,
  options: { mode: DiffViewMode; collapsed: boolean; blobUrl: string | null; lineExtras?: LineExtrasOf },
): Promise<Html> {
  let hasBelow = false
  const hash = fileHashOf(file)
  const kind = changeKind(file)
  let content: Html
  if (file.tooLarge) {
    content = html`<p class="diff-notice too-large">Changes are too large to be shown.${
      options.blobUrl ? html` <a href="${options.blobUrl}">View file</a>` : ''
    }</p>`
  } else if (file.binary) {
    content = html`<p class="diff-notice binary">Binary file${file.newFile ? ' added' : file.deletedFile ? ' deleted' : ' changed'}; its contents are not shown.</p>`
  } else if (file.diff === '') {
    const modeChanged = file.aMode !== file.bMode && file.aMode !== '0' && file.bMode !== '0'
    content = html`<p class="diff-notice no-changes">${
      file.renamedFile
        ? 'File moved without changes.'
        : modeChanged
          ? `File mode changed from ${file.aMode} to ${file.bMode}.`
          : 'No changes.'
    }</p>`
  } else {
    const lines = parseLines(file.diff, file.newPath)
    await highlight(lines, await languageOf(file.newPath))
    markChangedWords(lines)
    const extrasFor = (copy: 'main' | 'phone'): ExtrasOf => {
      const { lineExtras } = options
      if (!lineExtras) return NO_EXTRAS
      const byLine = new Map<DiffLine, LineExtras>()
      return (line) => {
        const ref = lineRefOf(line)
        if (ref === null) return null
        let extras = byLine.get(line)
        if (!extras) {
          extras = lineExtras(file, ref, copy)
          byLine.set(line, extras)
          if (extras.below && extras.below.text !== '') hasBelow = true
        }
        return extras
      }
    }
    const main = extrasFor('main')
    content = html`<div class="code diff" tabindex="0" role="region" aria-label="Changes to ${file.newPath}">
      ${
        options.mode === 'parallel'
          ? html`${parallelTable(hash, lines, main)}${inlineTable(hash, lines, 'phone-fallback', extrasFor('phone'))}`
          : inlineTable(hash, lines, '', main)
      }
    </div>`
  }
  const path = file.renamedFile
    ? html`<span class="file-path old-path">${file.oldPath}</span> <span aria-label="renamed to">&rarr;</span> <span class="file-path">${file.newPath}</span>`
    : html`<span class="file-path">${file.newPath}</span>`
  // A file with threads or a form under a line stays open, however large.
  const collapsed = options.collapsed && !hasBelow
  return html`<details class="box diff-file ${kind.className}" id="${hash}" ${collapsed ? '' : html`open`}>
    <summary class="diff-file-header">
      <span class="file-title">${path}</span>
      <span class="badge change-kind">${kind.label}</span>
      ${file.aMode !== file.bMode && file.aMode !== '0' && file.bMode !== '0' ? html`<span class="badge">mode ${file.aMode} &rarr; ${file.bMode}</span>` : ''}
      <span class="diff-file-actions">
        <span class="diff-stats"><span class="additions">+${file.additions}</span> <span class="deletions">&minus;${file.deletions}</span></span>
        ${options.blobUrl ? html`<a class="button small view-file" href="${options.blobUrl}">View file</a>` : ''}
      </span>
      ${collapsed ? html`<span class="muted collapsed-hint">This diff is collapsed: open it to see the changes.</span>` : ''}
    </summary>
    ${content}
  </details>`
}

/** The file tree of the change: every file, linking to its box, with its change and counts. */
function fileTree(files: readonly FileDiff[]): Html {
  return html`<nav class="file-tree box" aria-label="Changed files">
    <header><h2>Files <span class="badge count">${files.length}</span></h2></header>
    <ol class="plain">
      ${files.map((file) => {
        const kind = changeKind(file)
        return html`<li class="${kind.className}">
          <a href="#${fileHashOf(file)}"><span class="visually-hidden">${kind.label}: </span><span class="change-dot" aria-hidden="true"></span>${file.newPath}</a>
          <span class="diff-stats"><span class="additions">+${file.additions}</span> <span class="deletions">&minus;${file.deletions}</span></span>
        </li>`
      })}
    </ol>
  </nav>`
}

export interface DiffSectionOptions {
  mode: DiffViewMode
  /** The page's address without a query: the inline and side-by-side links add `?view=` to it. */
  pageUrl: string
  /** Where a file's new version is shown (its blob page at the new commit), or null: deleted files pass null. */
  blobUrlOf: (file: FileDiff) => string | null
  /** Said after "Too many changes to show" when files were left out: where the whole diff can be had. */
  overflowHint?: Html
  /** Said when no file changed. */
  emptyText: string
  /** What the page adds to each line (comments on a merge request's diff); nothing when not given. */
  lineExtras?: LineExtrasOf
}

/**
 * The changes section of a merge request's, a commit's or a comparison's page: the counts and the inline/side-by-side
 * switch, a notice when files were left out, then the file tree beside each file's box.
 */
export async function diffSection(diff: DiffResult, options: DiffSectionOptions): Promise<Html> {
  const { mode, pageUrl } = options
  const collapsed = collapsedFiles(diff.files)
  const boxes = await Promise.all(
    diff.files.map((file, index) =>
      fileDiffBox(file, { mode, collapsed: collapsed[index], blobUrl: options.blobUrlOf(file), lineExtras: options.lineExtras }),
    ),
  )
  const additions = diff.files.reduce((sum, file) => sum + file.additions, 0)
  const deletions = diff.files.reduce((sum, file) => sum + file.deletions, 0)
  return html`<div class="diff-toolbar">
      <span class="diff-summary"
        >${diff.files.length} ${diff.files.length === 1 ? 'file' : 'files'} changed,
        <span class="additions">+${additions}</span> <span class="deletions">&minus;${deletions}</span></span
      >
      <nav class="view-switch" aria-label="Diff view">
        <a class="button small" href="${pageUrl}?view=inline" ${mode === 'inline' ? html`aria-current="page"` : ''}>Inline</a>
        <a class="button small" href="${pageUrl}?view=parallel" ${mode === 'parallel' ? html`aria-current="page"` : ''}>Side-by-side</a>
      </nav>
    </div>
    ${
      diff.overflow
        ? html`<div class="flash alert" role="alert">
            Too many changes to show: only the first ${diff.files.length} files are shown. ${options.overflowHint ?? ''}
          </div>`
        : ''
    }
    ${
      diff.files.length === 0
        ? html`<div class="empty-state no-changes"><p>${options.emptyText}</p></div>`
        : html`<div class="diffs-layout ${mode}">
            ${fileTree(diff.files)}
            <div class="diff-files">${boxes}</div>
          </div>`
    }`
}
