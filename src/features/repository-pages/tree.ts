import { NotFound } from '../../core/errors.js'
import { html, type Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import { timeAgo } from '../../web/time-ago.js'
import { renderMarkdown } from '../markdown/index.js'
import { projectPath, renderProjectPage } from '../projects/index.js'
import { listTree, type TreeItem } from '../repository-browse/index.js'
import { findTreeEntry, readCommit, readmeOf, readObjectOrLargeBlob } from '../repositories/index.js'
import { findLastCommits, type EntryCommit } from './last-commits.js'
import {
  codeCrumbs,
  commitUrl,
  lastCommitBox,
  isMarkdownPath,
  readRefNames,
  repositoryHeader,
  refUrl,
  resolveRefPath,
  wildcardOf,
  encodePath,
  type CodePage,
  type RefPage,
} from './shared.js'

// GL Projects::TreeController#show and Projects::RefsController#switch.

/** The archive formats the download menu offers (GL `archive_formats`), as `/-/archive/` names them. */
const DOWNLOAD_FORMATS = ['zip', 'tar.gz', 'tar.bz2', 'tar'] as const

/** Icons drawn once per page and used by each entry. */
export const ICONS = html`<svg class="icon-sprite" aria-hidden="true" focusable="false">
  <symbol id="icon-folder" viewBox="0 0 16 16"><path d="M1 3.5A1.5 1.5 0 0 1 2.5 2h3.6l1.5 1.5h5.9A1.5 1.5 0 0 1 15 5v7.5a1.5 1.5 0 0 1-1.5 1.5h-11A1.5 1.5 0 0 1 1 12.5z" /></symbol>
  <symbol id="icon-file" viewBox="0 0 16 16"><path d="M3 1.5A1.5 1.5 0 0 1 4.5 0h5L14 4.5v10a1.5 1.5 0 0 1-1.5 1.5h-8A1.5 1.5 0 0 1 3 14.5zm6 0V5h3.5" fill="none" stroke="currentColor" /></symbol>
  <symbol id="icon-submodule" viewBox="0 0 16 16"><path d="M1 3.5A1.5 1.5 0 0 1 2.5 2h3.6l1.5 1.5h5.9A1.5 1.5 0 0 1 15 5v7.5a1.5 1.5 0 0 1-1.5 1.5h-11A1.5 1.5 0 0 1 1 12.5z" fill="none" stroke="currentColor" /></symbol>
</svg>`

export function icon(name: 'folder' | 'file' | 'submodule'): Html {
  return html`<svg class="icon icon-${name}" aria-hidden="true" focusable="false" width="16" height="16"><use href="#icon-${name}" /></svg>`
}

const NO_COMMIT_CELLS = html`<td class="tree-commit"></td><td class="tree-time"></td>`

/**
 * The cells of an entry's last commit (GL tree table's "Last commit" and "Last update"): its title linked to it, and
 * when it was committed. Many entries share a commit: each commit's cells are written once per page.
 */
function lastCommitCells(page: CodePage, now: Date): (commit: EntryCommit | undefined) => Html {
  const written = new Map<string, Html>()
  return (commit) => {
    if (!commit) return NO_COMMIT_CELLS
    let cells = written.get(commit.oid)
    if (!cells) {
      const link = html`<a href="${commitUrl(page.loaded, commit.oid)}" title="${commit.title}">${commit.title}</a>`
      cells = html`<td class="tree-commit">${link}</td><td class="tree-time">${timeAgo(commit.committedAt, now)}</td>`
      written.set(commit.oid, cells)
    }
    return cells
  }
}

function entryRow(page: CodePage, ref: string, item: TreeItem, cells: Html): Html {
  const { loaded } = page
  if (item.type === 'tree') {
    return html`<tr>
      <td class="tree-item">${icon('folder')}<a href="${refUrl(loaded, 'tree', ref, item.path)}">${item.name}</a></td>
      ${cells}
    </tr>`
  }
  if (item.type === 'commit') {
    return html`<tr>
      <td class="tree-item">${icon('submodule')}<span>${item.name}</span> <span class="muted">@ <code>${item.oid.slice(0, 8)}</code></span></td>
      ${cells}
    </tr>`
  }
  return html`<tr>
    <td class="tree-item">${icon('file')}<a href="${refUrl(loaded, 'blob', ref, item.path)}">${item.name}</a></td>
    ${cells}
  </tr>`
}

function downloadMenu(page: CodePage, ref: string, path: string): Html {
  const name = `${page.loaded.project.path}-${ref.replaceAll('/', '-')}`
  const query = path ? `?path=${encodeURIComponent(path)}` : ''
  return html`<details class="menu download-menu">
    <summary class="button">Download</summary>
    <ul class="menu-items">
      ${DOWNLOAD_FORMATS.map(
        (format) =>
          html`<li><a href="${projectPath(page.loaded, `/-/archive/${encodePath(ref)}/${encodeURIComponent(name)}.${format}${query}`)}">${format}</a></li>`,
      )}
    </ul>
  </details>`
}

/** The README of a folder, rendered below its entries as GitLab shows it (Markdown rendered, other text as it is). */
async function readmeBox(page: CodePage, ref: string, items: TreeItem[]): Promise<Html> {
  const name = readmeOf(items.filter((item) => item.type === 'blob').map((item) => item.name))
  const item = name ? items.find((candidate) => candidate.name === name && candidate.type === 'blob') : undefined
  if (!item) return html``
  const blob = await readObjectOrLargeBlob(page.directory, item.oid)
  if (!blob || 'large' in blob || blob.type !== 'blob') return html``
  const text = blob.content.toString('utf8')
  const body = isMarkdownPath(item.path)
    ? html`<div class="body markdown">
        ${await renderMarkdown(page.w.ctx, text, { project: page.loaded, base: { ref, path: item.path } })}
      </div>`
    : html`<pre class="readme-text">${text}</pre>`
  return html`<section class="box readme" aria-labelledby="readme-title">
    <header><h2 id="readme-title" class="box-title"><a href="${refUrl(page.loaded, 'blob', ref, item.path)}">${item.name}</a></h2></header>
    ${body}
  </section>`
}

/** The tree page of an empty repository: what to do next. */
function emptyRepository(page: CodePage) {
  return renderProjectPage(
    page.w,
    page.loaded,
    { title: 'Files', section: 'files', crumbs: codeCrumbs(page.loaded) },
    html`<div class="empty-state">
      <h1>The repository for this project is empty</h1>
      <p>Push an existing folder or Git repository to it:</p>
      <pre class="clone-command"><code>git remote add origin ${page.w.ctx.config.externalUrl}/${page.loaded.project.full_path}.git
git push -u origin --all</code></pre>
    </div>`,
  )
}

/** GET /-/tree/<ref>/<path>: a folder's entries, folders first, each with its last commit; the folder's last commit; its README. */
export async function showTree(page: CodePage) {
  const { w, loaded } = page
  const wildcard = wildcardOf(w)
  const defaultBranch = loaded.project.default_branch ?? 'main'
  if (wildcard === '' || wildcard.replace(/\/+$/, '') === defaultBranch) {
    // A repository without branches has nothing to list: its tree page says how to push to it.
    const refs = await readRefNames(page.directory)
    if (refs.branches.length === 0) return emptyRepository(page)
    if (wildcard === '') return w.redirect(refUrl(loaded, 'tree', refs.branches.includes(defaultBranch) ? defaultBranch : refs.branches[0]))
  }
  const { ref, path, commit, refs } = await resolveRefPath(page, wildcard)
  let items: TreeItem[]
  try {
    items = await listTree(w.ctx, loaded, { ref: commit.oid, path, recursive: false })
  } catch (error) {
    // A file's path under /-/tree/ shows the file (GL TreeController redirects to the blob).
    if (!(error instanceof NotFound)) throw error
    const entry = path ? await findTreeEntry(page.directory, commit.tree, path.split('/')) : null
    if (entry?.type === 'blob') return w.redirect(refUrl(loaded, 'blob', ref, path))
    throw error
  }
  const names = items.map((item) => item.name)
  const [lastCommits, readme] = await Promise.all([findLastCommits(page.directory, commit.oid, path, names), readmeBox(page, ref, items)])
  const folderOid = path ? lastCommits.folder : commit.oid
  const last = folderOid === commit.oid ? commit : folderOid ? await readCommit(page.directory, folderOid) : null
  const cellsOf = lastCommitCells(page, w.ctx.now())
  const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : ''
  const actions = html`<a class="button" href="${refUrl(loaded, 'find_file', ref)}">Find file</a>
    <a class="button" href="${refUrl(loaded, 'commits', ref, path)}">History</a>
    ${downloadMenu(page, ref, path)}`
  const body = html`${ICONS}
    <h1 class="sr-only">${path || loaded.project.name}</h1>
    ${repositoryHeader(page, refs, ref, path, 'tree', actions)} ${last ? lastCommitBox(loaded, last) : ''}
    <div class="table-box">
      <table class="tree-table">
        <caption class="sr-only">
          Files of ${path || loaded.project.name} at ${ref}
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col" class="tree-commit">Last commit</th>
            <th scope="col" class="tree-time">Last update</th>
          </tr>
        </thead>
        <tbody>
          ${
            path
              ? html`<tr>
                <td class="tree-item">${icon('folder')}<a href="${refUrl(loaded, 'tree', ref, parent)}" aria-label="Parent folder">..</a></td>
                <td class="tree-commit"></td>
                <td class="tree-time"></td>
              </tr>`
              : ''
          }
          ${items.map((item) => entryRow(page, ref, item, cellsOf(lastCommits.entries.get(item.name))))}
        </tbody>
      </table>
    </div>
    ${items.length === 0 ? html`<p class="empty-state">This folder is empty.</p>` : ''} ${readme}`
  return renderProjectPage(
    w,
    loaded,
    { title: path ? `${path} · ${ref}` : `Files · ${ref}`, section: 'files', crumbs: codeCrumbs(loaded, { text: ref }) },
    body,
  )
}

const SWITCH_DESTINATIONS: readonly RefPage[] = ['tree', 'blob', 'blame', 'commits', 'find_file']

/** GET /-/refs/switch?ref=&destination=&path=: the chosen page at the chosen ref (GL RefsController#switch). */
export async function switchRef(page: CodePage) {
  const { w, loaded } = page
  const ref = textOf(w.params.ref)
  if (ref === '') throw new NotFound('Ref')
  const asked = textOf(w.params.destination) as RefPage
  const destination = SWITCH_DESTINATIONS.includes(asked) ? asked : 'tree'
  const path = textOf(w.params.path).replace(/^\/+|\/+$/g, '')
  if (destination === 'find_file') return w.redirect(refUrl(loaded, 'find_file', ref))
  return w.redirect(refUrl(loaded, destination === 'blob' && !path ? 'tree' : destination, ref, path))
}
