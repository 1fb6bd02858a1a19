import { html, type Html } from '../../web/html.js'
import type { LoadedProject } from '../access/index.js'
import type { DiffResult, FileDiff } from '../repositories/index.js'
import { refUrl } from './shared.js'

// A diff as GitLab's commit and compare pages show it: a summary of the changed files, then each file's hunks with
// the old and new line numbers beside each line.

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/

/** The rows of one file's patch (from its first `@@`). */
function patchRows(patch: string, anchor: string): Html[] {
  const rows: Html[] = []
  let oldLine = 0
  let newLine = 0
  const lines = patch.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  for (const line of lines) {
    const hunk = HUNK.exec(line)
    if (hunk) {
      oldLine = Number(hunk[1])
      newLine = Number(hunk[2])
      rows.push(html`<tr class="hunk">
        <td class="line-number"></td>
        <td class="line-number"></td>
        <td class="line">${line}</td>
      </tr>`)
      continue
    }
    const sign = line[0]
    const text = line.slice(1)
    if (sign === '+') {
      rows.push(html`<tr class="added" id="${anchor}_${newLine}">
        <td class="line-number"></td>
        <td class="line-number"><a href="#${anchor}_${newLine}">${newLine}</a></td>
        <td class="line"><span class="sign" aria-label="added">+</span>${text}</td>
      </tr>`)
      newLine += 1
    } else if (sign === '-') {
      rows.push(html`<tr class="removed">
        <td class="line-number">${oldLine}</td>
        <td class="line-number"></td>
        <td class="line"><span class="sign" aria-label="removed">-</span>${text}</td>
      </tr>`)
      oldLine += 1
    } else if (sign === '\\') {
      rows.push(html`<tr class="hunk">
        <td class="line-number"></td>
        <td class="line-number"></td>
        <td class="line">${line}</td>
      </tr>`)
    } else {
      rows.push(html`<tr>
        <td class="line-number">${oldLine}</td>
        <td class="line-number">${newLine}</td>
        <td class="line"><span class="sign"> </span>${text}</td>
      </tr>`)
      oldLine += 1
      newLine += 1
    }
  }
  return rows
}

function fileTitle(file: FileDiff): Html {
  if (file.renamedFile && file.oldPath !== file.newPath) return html`${file.oldPath} &rarr; ${file.newPath}`
  return html`${file.newPath}`
}

function fileState(file: FileDiff): string {
  if (file.newFile) return 'added'
  if (file.deletedFile) return 'deleted'
  if (file.renamedFile) return 'renamed'
  return 'modified'
}

/** One file's changes in a box: its path, what happened to it, its counts, and its lines. */
function fileBox(loaded: LoadedProject, file: FileDiff, index: number, viewRef: string | null): Html {
  const anchor = `diff-${index}`
  let body: Html
  if (file.binary) body = html`<p class="body muted">Binary file changed.</p>`
  else if (file.tooLarge) body = html`<p class="body muted">The changes to this file are too large to be shown.</p>`
  else if (file.diff === '')
    body = html`<p class="body muted">No changes to the contents${file.aMode !== file.bMode ? ': the file mode changed' : ''}.</p>`
  else {
    body = html`<div class="code diff" role="region" aria-label="Changes to ${file.newPath}" tabindex="0">
      <table>
        <tbody>
          ${patchRows(file.diff, anchor)}
        </tbody>
      </table>
    </div>`
  }
  return html`<section class="box diff-file" id="${anchor}" aria-label="${file.newPath}">
    <header>
      <h3 class="file-title">${fileTitle(file)}</h3>
      <span class="badge diff-state">${fileState(file)}</span>
      <span class="diff-counts"><span class="additions">+${file.additions}</span> <span class="deletions">&minus;${file.deletions}</span></span>
      ${
        viewRef && !file.deletedFile
          ? html`<a class="button small view-file" href="${refUrl(loaded, 'blob', viewRef, file.newPath)}">View file</a>`
          : ''
      }
    </header>
    ${body}
  </section>`
}

/** A whole diff: how many files changed, a list linking to each, and each file's box. */
export function diffView(loaded: LoadedProject, diff: DiffResult, viewRef: string | null): Html {
  const additions = diff.files.reduce((sum, file) => sum + file.additions, 0)
  const deletions = diff.files.reduce((sum, file) => sum + file.deletions, 0)
  const count = diff.files.length
  return html`<section class="diff-view" aria-labelledby="changes-title">
    <h2 id="changes-title">Changes</h2>
    <p class="diff-summary">
      Showing <strong>${count} changed ${count === 1 ? 'file' : 'files'}</strong> with
      <span class="additions">${additions} ${additions === 1 ? 'addition' : 'additions'}</span> and
      <span class="deletions">${deletions} ${deletions === 1 ? 'deletion' : 'deletions'}</span>
    </p>
    ${diff.overflow ? html`<p class="flash">Too many changes to show: only the first ${count} files are shown.</p>` : ''}
    ${
      count > 1
        ? html`<ul class="list diff-files">
          ${diff.files.map(
            (file, index) =>
              html`<li>
                <a class="grow" href="#diff-${index}">${fileTitle(file)}</a>
                <span class="diff-counts"><span class="additions">+${file.additions}</span> <span class="deletions">&minus;${file.deletions}</span></span>
              </li>`,
          )}
        </ul>`
        : ''
    }
    ${diff.files.map((file, index) => fileBox(loaded, file, index, viewRef))}
  </section>`
}
