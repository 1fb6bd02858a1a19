import fuzzaldrin from 'fuzzaldrin-plus'
import { html, type Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import { renderProjectPage } from '../projects/index.js'
import { readGitOutput } from '../repositories/index.js'
import { codeCrumbs, refSwitcher, refUrl, resolveRefPath, wildcardOf, type CodePage } from './shared.js'
import { icon, ICONS } from './tree.js'

// GL Projects::FindFileController: every file of a ref, found by path. GitLab lists the paths (its `list` action) and
// filters them in the browser with fuzzaldrin-plus as one types; svc filters with the same library on the server, from
// a plain GET form, so the page works without JavaScript.

/**
 * Files the page lists at most. GitLab's finder draws the first 20 as one types; a page that needs a round trip for
 * each query shows more, and says how many it left out.
 */
export const FIND_FILE_RESULTS = 100

/** The files of a query, best first: those shown, and how many matched in all. */
export interface FoundFiles {
  paths: string[]
  total: number
}

interface Scored {
  path: string
  score: number
  /** Its place in git's listing: equal scores keep git's order, as fuzzaldrin-plus's stable sort does. */
  index: number
}

const byScore = (a: Scored, b: Scored) => b.score - a.score || a.index - b.index

/**
 * The blobs (files and symbolic links, not submodules) of a commit's whole tree, as GL Repository#ls_files lists them
 * (`git ls-tree -r`), handed to `take` one by one as git writes them.
 */
async function eachFilePath(directory: string, commitOid: string, take: (path: string) => void): Promise<void> {
  let carried: Buffer | null = null
  await readGitOutput(directory, ['ls-tree', '-r', '-z', '--full-tree', commitOid], (chunk) => {
    const data = carried === null ? chunk : Buffer.concat([carried, chunk])
    carried = null
    let start = 0
    for (let end = data.indexOf(0); end >= 0; end = data.indexOf(0, start)) {
      // `<mode> <type> <object id>\t<path>`
      const space = data.indexOf(0x20, start)
      if (data.toString('latin1', space + 1, space + 6) === 'blob ') take(data.toString('utf8', data.indexOf(0x09, space) + 1, end))
      start = end + 1
    }
    if (start < data.length) carried = Buffer.from(data.subarray(start))
  })
}

/**
 * The files of a commit whose path matches `query` by GitLab's rule (fuzzaldrin-plus's `filter` with its defaults:
 * the query's characters in order, scored as a path), best first; every file, in git's order, for an empty query. At
 * most FIND_FILE_RESULTS are kept, so memory stays bounded whatever the size of the tree.
 */
export async function findFiles(directory: string, commitOid: string, query: string): Promise<FoundFiles> {
  let total = 0
  if (query === '') {
    const paths: string[] = []
    await eachFilePath(directory, commitOid, (path) => {
      total += 1
      if (paths.length < FIND_FILE_RESULTS) paths.push(path)
    })
    return { paths, total }
  }
  const options = { preparedQuery: fuzzaldrin.prepareQuery(query) }
  let best: Scored[] = []
  let index = 0
  await eachFilePath(directory, commitOid, (path) => {
    index += 1
    const score = fuzzaldrin.score(path, query, options)
    if (score <= 0) return
    total += 1
    best.push({ path, score, index })
    if (best.length >= 4 * FIND_FILE_RESULTS) best = best.sort(byScore).slice(0, FIND_FILE_RESULTS)
  })
  return {
    paths: best
      .sort(byScore)
      .slice(0, FIND_FILE_RESULTS)
      .map((found) => found.path),
    total,
  }
}

/** A path with the characters the query matched in bold, runs of them in one element (GL project_find_file highlighter). */
function highlighted(path: string, query: string): Html {
  if (query === '') return html`${path}`
  const matched = new Set(fuzzaldrin.match(path, query))
  const parts: Html[] = []
  let start = 0
  while (start < path.length) {
    const bold = matched.has(start)
    let end = start + 1
    while (end < path.length && matched.has(end) === bold) end += 1
    const text = path.slice(start, end)
    parts.push(bold ? html`<b>${text}</b>` : html`${text}`)
    start = end
  }
  return html`${parts}`
}

function countText(count: number, one: string, many: string): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`
}

/** GET /-/find_file/<ref>?q=: the files of the ref whose path matches the query, each linked to its page. */
export async function showFindFile(page: CodePage) {
  const { w, loaded } = page
  // A path after the ref is ignored, as GitLab's finder does: it always lists the whole tree.
  const { ref, commit, refs } = await resolveRefPath(page, wildcardOf(w))
  const rawQuery = textOf(w.params.q)
  const query = rawQuery.trim() === '' ? '' : rawQuery
  const found = await findFiles(page.directory, commit.oid, query)
  const action = refUrl(loaded, 'find_file', ref)
  const summary =
    found.total > found.paths.length
      ? html`<p class="muted find-file-summary">
          Showing the first ${found.paths.length} of ${countText(found.total, 'file', 'files')}${query ? ' that match' : ''}. Type more of the
          path to narrow the list.
        </p>`
      : ''
  const results =
    found.paths.length === 0
      ? html`<div class="empty-state">
          <h2>${query ? 'There are no matching files' : 'There are no files at this ref'}</h2>
          ${query ? html`<p>Try using a different search term to find the file you are looking for.</p>` : ''}
        </div>`
      : html`<div class="table-box">
          <table class="tree-table find-file-table">
            <caption class="sr-only">
              ${query ? `Files of ${ref} matching ${query}` : `Files of ${ref}`}
            </caption>
            <tbody>
              ${found.paths.map(
                (path) =>
                  html`<tr>
                    <td class="tree-item">${icon('file')}<a href="${refUrl(loaded, 'blob', ref, path)}">${highlighted(path, query)}</a></td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`
  const body = html`${ICONS}
    <h1 class="sr-only">Find file</h1>
    <div class="repository-header find-file-header">
      ${refSwitcher(loaded, refs, ref, 'find_file', '')}
      <form class="find-file-form" method="get" action="${action}" role="search">
        <a class="find-file-project" href="${refUrl(loaded, 'tree', ref)}">${loaded.project.path}</a>
        <span class="muted" aria-hidden="true">/</span>
        <label class="sr-only" for="file_find">Find by path</label>
        <input type="search" id="file_find" name="q" value="${rawQuery}" placeholder="Find by path" autocomplete="off" />
        <button type="submit" class="button">Find</button>
      </form>
    </div>
    ${summary} ${results}`
  return renderProjectPage(
    w,
    loaded,
    {
      title: `Find file · ${ref}`,
      section: 'files',
      crumbs: codeCrumbs(loaded, { text: ref, href: refUrl(loaded, 'tree', ref) }, { text: 'Find file' }),
    },
    body,
  )
}
