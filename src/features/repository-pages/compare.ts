import { html, type Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import { compareRefs } from '../commits/index.js'
import { diffSection, diffViewModeOf } from '../diff-view/index.js'
import { projectPath, renderProjectPage } from '../projects/index.js'
import { commitsByDay } from './commits.js'
import { codeCrumbs, encodePath, readRefNames, refUrl, wildcardOf, type CodePage, type RefNames } from './shared.js'

// GL Projects::CompareController#index, #create and #show.

function compareUrl(page: CodePage, from: string, to: string, straight = false): string {
  return projectPath(page.loaded, `/-/compare/${encodePath(from)}${straight ? '..' : '...'}${encodePath(to)}`)
}

/** The form that picks two revisions: a plain GET form, its fields suggesting the branches and tags. */
function compareForm(page: CodePage, refs: RefNames, from: string, to: string): Html {
  const names = [...refs.branches, ...refs.tags].slice(0, 200)
  return html`<form class="compare-form" method="get" action="${projectPath(page.loaded, '/-/compare')}">
    <datalist id="compare-refs">${names.map((name) => html`<option value="${name}"></option>`)}</datalist>
    <div class="compare-fields">
      <div>
        <label for="compare_from">Target (from)</label>
        <input type="text" id="compare_from" name="from" list="compare-refs" value="${from}" required autocomplete="off" />
        <p class="help">The branch, tag or commit to compare against.</p>
      </div>
      <div>
        <label for="compare_to">Source (to)</label>
        <input type="text" id="compare_to" name="to" list="compare-refs" value="${to}" required autocomplete="off" />
        <p class="help">The branch, tag or commit whose changes are shown.</p>
      </div>
    </div>
    <div class="button-row">
      <button type="submit" class="primary">Compare</button>
      ${from && to ? html`<a class="button" href="${compareUrl(page, to, from)}">Swap revisions</a>` : ''}
    </div>
  </form>`
}

/** GET /-/compare: the form; with `from` and `to` it answers with their comparison's page. */
export async function showCompareForm(page: CodePage) {
  const { w, loaded } = page
  const from = textOf(w.params.from).trim()
  const to = textOf(w.params.to).trim()
  if (from && to) return w.redirect(compareUrl(page, from, to, w.params.straight === 'true'))
  const refs = await readRefNames(page.directory)
  const body = html`<h1>Compare revisions</h1>
    <p class="muted">Changes are shown as if the source revision was being merged into the target revision.</p>
    ${compareForm(page, refs, from || (loaded.project.default_branch ?? ''), to)}`
  return renderProjectPage(
    w,
    loaded,
    { title: 'Compare revisions', section: 'compare', crumbs: codeCrumbs(loaded, { text: 'Compare' }) },
    body,
  )
}

/** GET /-/compare/<from>...<to> (from their merge base) or `<from>..<to>` (straight): the commits and the diff. */
export async function showComparison(page: CodePage) {
  const { w, loaded } = page
  const range = wildcardOf(w)
  const three = range.indexOf('...')
  const two = range.indexOf('..')
  if (two < 0) return showCompareForm(page)
  const straight = three < 0
  const from = range.slice(0, straight ? two : three)
  const to = range.slice(straight ? two + 2 : three + 3)
  const refs = await readRefNames(page.directory)
  const comparison = await compareRefs(w.ctx, loaded, { from, to, idParam: String(loaded.project.id), straight })
  // GitLab lists the newest first on the page.
  const commits = [...comparison.commits].reverse()
  const changes = await diffSection(comparison.diff, {
    mode: diffViewModeOf(textOf(w.params.view)),
    pageUrl: compareUrl(page, from, to, straight),
    blobUrlOf: (file) => (file.deletedFile ? null : refUrl(loaded, 'blob', comparison.headSha, file.newPath)),
    emptyText: 'No file differs between these revisions.',
  })
  const body = html`<h1>Compare revisions</h1>
    ${compareForm(page, refs, from, to)}
    ${
      comparison.same
        ? html`<div class="empty-state"><p>These revisions are the same: there is nothing to compare.</p></div>`
        : html`<section aria-labelledby="compare-commits-title">
            <h2 id="compare-commits-title">Commits <span class="badge">${comparison.commits.length}</span></h2>
            ${
              commits.length === 0
                ? html`<p class="empty-state">No commits: the source has nothing the target lacks.</p>`
                : commitsByDay(page, commits, 3)
            }
          </section>
          <section class="changes" aria-labelledby="changes-title">
            <h2 id="changes-title">Changes</h2>
            ${changes}
          </section>`
    }`
  return renderProjectPage(
    w,
    loaded,
    {
      title: `${from}${straight ? '..' : '...'}${to} · Compare`,
      section: 'compare',
      crumbs: codeCrumbs(loaded, { text: 'Compare', href: projectPath(loaded, '/-/compare') }),
    },
    body,
  )
}
