import { Forbidden, NotFound } from '../../core/errors.js'
import { html, type Crumb, type Html } from '../../web/html.js'
import { timeOf } from '../../web/list-page.js'
import { canReadCode, type LoadedProject } from '../access/index.js'
import { commitTitle, shortCommitId } from '../commits/index.js'
import { projectPage, projectPath } from '../projects/index.js'
import { findCommit, git, projectRepositoryDirectory, repositoryExists, type ParsedCommit } from '../repositories/index.js'
import type { WebHandler, WebRequest } from '../sessions/index.js'

/** A page of a project's code: the project as the visitor sees it, and its repository directory. */
export interface CodePage {
  w: WebRequest
  loaded: LoadedProject
  directory: string
}

/**
 * A page of a project's repository: the 404 page (sign-in for a visitor) when the project is hidden from the visitor
 * or its code is (a Guest of a private project; GL `authorize_read_code!`), or when what the URL names is not there.
 */
export function codePage(handler: (page: CodePage) => Promise<unknown>): WebHandler {
  return projectPage(async (w, loaded) => {
    if (!canReadCode(loaded.access, loaded.project)) return w.notFound()
    try {
      return await handler({ w, loaded, directory: projectRepositoryDirectory(w.ctx.config, loaded.project) })
    } catch (error) {
      // A read the repository refuses is hidden as a missing one is (NotFound is the page router's).
      if (error instanceof Forbidden) return w.notFound()
      throw error
    }
  })
}

/** The route's wildcard: everything after `/-/tree/` and the like, as the URL decodes. */
export function wildcardOf(w: WebRequest): string {
  return String((w.request.params as Record<string, string>)['*'] ?? '')
}

/** A ref or path in a URL: each segment encoded, the slashes kept (`feature/x` stays readable). */
export function encodePath(text: string): string {
  return text.split('/').map(encodeURIComponent).join('/')
}

export type RefPage = 'tree' | 'blob' | 'raw' | 'blame' | 'commits' | 'find_file'

/** `/<project>/-/<page>/<ref>/<path>` */
export function refUrl(loaded: LoadedProject, page: RefPage, ref: string, path = ''): string {
  return projectPath(loaded, `/-/${page}/${encodePath(ref)}${path ? `/${encodePath(path)}` : ''}`)
}

export function commitUrl(loaded: LoadedProject, oid: string): string {
  return projectPath(loaded, `/-/commit/${oid}`)
}

/** The branches and tags of a repository, each sorted by name. */
export interface RefNames {
  branches: string[]
  tags: string[]
}

/** Every branch and tag name, in one `git for-each-ref`; none for a repository that does not exist (yet). */
export async function readRefNames(directory: string): Promise<RefNames> {
  const names: RefNames = { branches: [], tags: [] }
  if (!(await repositoryExists(directory))) return names
  const out = await git(['for-each-ref', '--format=%(refname)', 'refs/heads/', 'refs/tags/'], { gitDir: directory })
  for (const ref of out.split('\n')) {
    if (ref.startsWith('refs/heads/')) names.branches.push(ref.slice('refs/heads/'.length))
    else if (ref.startsWith('refs/tags/')) names.tags.push(ref.slice('refs/tags/'.length))
  }
  return names
}

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/

/**
 * GL ExtractsRef#extract_ref: `<ref>/<path>` split where the longest prefix names a branch or tag (`feature/x/lib/a.rb`
 * with a branch `feature/x`); a full object id first is the ref; otherwise the first segment is (a short id, `HEAD~1`).
 */
export function splitRefAndPath(text: string, refs: RefNames): { ref: string; path: string } {
  const trimmed = text.replace(/\/+$/, '')
  const first = trimmed.split('/')[0]
  if (OBJECT_ID.test(first)) return { ref: first, path: trimmed.slice(first.length + 1) }
  let best = ''
  for (const name of [...refs.branches, ...refs.tags]) {
    if (name.length > best.length && (trimmed === name || trimmed.startsWith(`${name}/`))) best = name
  }
  const ref = best || first
  return { ref, path: trimmed.slice(ref.length + 1) }
}

/** The ref and path a URL names, and the commit the ref names; NotFound when it names none. */
export async function resolveRefPath(
  page: CodePage,
  text: string,
): Promise<{ ref: string; path: string; commit: ParsedCommit; refs: RefNames }> {
  const refs = await readRefNames(page.directory)
  const { ref, path } = splitRefAndPath(text, refs)
  const commit = ref === '' ? null : await findCommit(page.directory, ref)
  if (!commit) throw new NotFound('Ref')
  return { ref, path, commit, refs }
}

/** How many refs of each kind the switcher lists; the branches and tags pages list them all. */
const SWITCHER_REFS = 100

/**
 * The branch and tag switcher (GL ref switcher): a select of branches and tags and a button, a plain GET form to
 * `/-/refs/switch` that answers with the same page at the chosen ref.
 */
export function refSwitcher(loaded: LoadedProject, refs: RefNames, current: string, destination: RefPage, path: string): Html {
  const branches = refs.branches.slice(0, SWITCHER_REFS)
  const tags = refs.tags.slice(0, SWITCHER_REFS)
  const known = branches.includes(current) || tags.includes(current)
  const option = (name: string) => html`<option value="${name}"${name === current ? html` selected` : ''}>${name}</option>`
  return html`<form class="ref-switcher" method="get" action="${projectPath(loaded, '/-/refs/switch')}">
    <input type="hidden" name="destination" value="${destination}" />
    ${path ? html`<input type="hidden" name="path" value="${path}" />` : ''}
    <select name="ref" aria-label="Switch branch or tag">
      ${known ? '' : html`<option value="${current}" selected>${OBJECT_ID.test(current) ? shortCommitId(current) : current}</option>`}
      ${branches.length > 0 ? html`<optgroup label="Branches">${branches.map(option)}</optgroup>` : ''}
      ${tags.length > 0 ? html`<optgroup label="Tags">${tags.map(option)}</optgroup>` : ''}
    </select>
    <button type="submit" class="button small">Switch</button>
  </form>`
}

/** The row of actions above a tree or file: the switcher, where it is, and what can be done from there. */
export function repositoryHeader(page: CodePage, refs: RefNames, ref: string, path: string, destination: RefPage, actions: Html): Html {
  return html`<div class="repository-header">
    ${refSwitcher(page.loaded, refs, ref, destination, path)} ${pathCrumbs(page.loaded, ref, path)}
    <div class="actions">${actions}</div>
  </div>`
}

const MARKDOWN_PATH = /\.(md|markdown|mdown|mkd|mkdn|mdwn)$/i

export function isMarkdownPath(path: string): boolean {
  return MARKDOWN_PATH.test(path)
}

/** The path under the switcher: the project's root, then each folder, linking to its tree; the last one is text. */
export function pathCrumbs(loaded: LoadedProject, ref: string, path: string): Html {
  const segments = path ? path.split('/') : []
  return html`<nav class="path-crumbs" aria-label="File path">
    <ol>
      <li><a href="${refUrl(loaded, 'tree', ref)}">${loaded.project.path}</a></li>
      ${segments.map((segment, index) =>
        index === segments.length - 1
          ? html`<li><strong>${segment}</strong></li>`
          : html`<li><a href="${refUrl(loaded, 'tree', ref, segments.slice(0, index + 1).join('/'))}">${segment}</a></li>`,
      )}
    </ol>
  </nav>`
}

/** The layout's breadcrumbs of a code page: the project, "Repository", then `trail`. */
export function codeCrumbs(loaded: LoadedProject, ...trail: Crumb[]): Crumb[] {
  return [{ text: 'Repository', href: refUrl(loaded, 'tree', loaded.project.default_branch ?? 'main') }, ...trail]
}

/** A commit as a list row: its title, author and date, its short id, and a link to its files. */
export function commitRow(loaded: LoadedProject, commit: ParsedCommit): Html {
  const description = commit.message.slice(commit.message.indexOf('\n') + 1).trim()
  return html`<li class="commit-row">
    <div class="grow">
      <a class="title commit-title" href="${commitUrl(loaded, commit.oid)}">${commitTitle(commit.message)}</a>
      <div class="meta">${commit.author.name} authored ${timeOf(commit.author.date)}</div>
      ${commit.message.includes('\n') && description ? html`<pre class="commit-description">${description}</pre>` : ''}
    </div>
    <div class="commit-actions">
      <a class="commit-sha" href="${commitUrl(loaded, commit.oid)}" aria-label="Commit ${commit.oid}"
        ><code>${shortCommitId(commit.oid)}</code></a
      >
      <a class="button small" href="${refUrl(loaded, 'tree', commit.oid)}">Browse files</a>
    </div>
  </li>`
}

/** The last commit of a tree or file, as a box above it. */
export function lastCommitBox(loaded: LoadedProject, commit: ParsedCommit): Html {
  return html`<div class="box last-commit">
    <header>
      <a class="title commit-title" href="${commitUrl(loaded, commit.oid)}">${commitTitle(commit.message)}</a>
      <span class="meta">${commit.author.name} authored ${timeOf(commit.author.date)}</span>
      <a class="commit-sha" href="${commitUrl(loaded, commit.oid)}"><code>${shortCommitId(commit.oid)}</code></a>
    </header>
  </div>`
}

/** A number of bytes as people read it: `512 B`, `1.5 KiB`, `3 MiB`. */
export function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KiB', 'MiB', 'GiB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit += 1
  }
  return `${value >= 10 ? Math.round(value) : Math.round(value * 10) / 10} ${units[unit]}`
}

/** A page number from the query: a small positive integer, else 1. */
export function pageNumberOf(params: Record<string, unknown>): number {
  const text = typeof params.page === 'string' ? params.page : ''
  return /^\d{1,6}$/.test(text) && Number(text) > 0 ? Number(text) : 1
}

/** Previous and next links of a paged list. */
export function pagerLinks(base: string, query: Record<string, string>, page: number, hasNext: boolean): Html {
  if (page === 1 && !hasNext) return html``
  const link = (to: number) => {
    const params = new URLSearchParams({ ...query, ...(to > 1 ? { page: String(to) } : {}) })
    const text = params.toString()
    return text ? `${base}?${text}` : base
  }
  return html`<nav class="pagination" aria-label="Pages">
    ${page > 1 ? html`<a class="button" rel="prev" href="${link(page - 1)}">Previous</a>` : ''}
    <span class="muted">Page ${page}</span>
    ${hasNext ? html`<a class="button" rel="next" href="${link(page + 1)}">Next</a>` : ''}
  </nav>`
}
