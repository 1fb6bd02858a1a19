import { html, type Html } from '../../web/html.js'
import { textOf, timeOf } from '../../web/list-page.js'
import { commitDiffOf, commitRefsOf, commitTitle, findProjectCommit, listCommits, shortCommitId } from '../commits/index.js'
import { diffSection, diffViewModeOf } from '../diff-view/index.js'
import { renderProjectPage } from '../projects/index.js'
import { openGitOutput, type ParsedCommit } from '../repositories/index.js'
import {
  codeCrumbs,
  commitRow,
  commitUrl,
  pageNumberOf,
  pagerLinks,
  pathCrumbs,
  refSwitcher,
  refUrl,
  resolveRefPath,
  wildcardOf,
  type CodePage,
} from './shared.js'

// GL Projects::CommitsController#show (the history of a ref, or of a path at a ref) and Projects::CommitController#show.

/** GL CommitsController's default limit. */
const COMMITS_PER_PAGE = 40

/** Commits grouped by the day they were authored, as GitLab lists them. */
export function commitsByDay(page: CodePage, commits: ParsedCommit[], level: 2 | 3 = 2): Html {
  const days: { day: string; commits: ParsedCommit[] }[] = []
  for (const commit of commits) {
    const day = new Date(commit.author.date).toISOString().slice(0, 10)
    const last = days[days.length - 1]
    if (last && last.day === day) last.commits.push(commit)
    else days.push({ day, commits: [commit] })
  }
  const heading = (day: string) => {
    const time = html`<time datetime="${day}">${day}</time>`
    return level === 2 ? html`<h2 class="commits-day">${time}</h2>` : html`<h3 class="commits-day">${time}</h3>`
  }
  return html`${days.map(
    ({ day, commits: ofDay }) => html`${heading(day)}
      <ul class="list commit-list">
        ${ofDay.map((commit) => commitRow(page.loaded, commit))}
      </ul>`,
  )}`
}

/** GET /-/commits/<ref>/<path>: the ref's history, or the path's (a file's or folder's history), newest first. */
export async function showCommits(page: CodePage) {
  const { w, loaded } = page
  const { ref, path, commit, refs } = await resolveRefPath(page, wildcardOf(w))
  const number = pageNumberOf(w.params)
  const { commits } = await listCommits(w.ctx, loaded, {
    refName: commit.oid,
    path: path || undefined,
    order: 'default',
    offset: (number - 1) * COMMITS_PER_PAGE,
    limit: COMMITS_PER_PAGE + 1,
  })
  const hasNext = commits.length > COMMITS_PER_PAGE
  const shown = commits.slice(0, COMMITS_PER_PAGE)
  const body = html`<div class="header-row">
      <h1>${path ? html`History of <code>${path}</code>` : 'Commits'}</h1>
    </div>
    <div class="repository-header">
      ${refSwitcher(loaded, refs, ref, 'commits', path)} ${path ? pathCrumbs(loaded, ref, path) : ''}
      <div class="actions">
        <a class="button" href="${refUrl(loaded, path ? 'blob' : 'tree', ref, path)}">${path ? 'View file' : 'Browse files'}</a>
      </div>
    </div>
    ${
      shown.length === 0
        ? html`<div class="empty-state"><p>No commits${path ? ' changed this path' : ''} here.</p></div>`
        : commitsByDay(page, shown)
    }
    ${pagerLinks(refUrl(loaded, 'commits', ref, path), {}, number, hasNext)}`
  return renderProjectPage(
    w,
    loaded,
    {
      title: path ? `History of ${path} · ${ref}` : `Commits · ${ref}`,
      section: 'commits',
      crumbs: codeCrumbs(loaded, { text: 'Commits' }),
    },
    body,
  )
}

/** GET /-/commit/<sha>: the commit's message, author, parents, the branches and tags holding it, and its diff. */
// GitLab's plain views of a commit: `<sha>.patch` as `git format-patch` writes it, `<sha>.diff` as the diff alone.
const PLAIN_VIEWS: Record<string, (oid: string) => string[]> = {
  '.patch': (oid) => ['format-patch', '-1', '--stdout', '--full-index', '--no-color', '--no-ext-diff', '--no-signature', oid],
  '.diff': (oid) => ['diff-tree', '-p', '--root', '--no-commit-id', '--full-index', '--no-color', '--no-ext-diff', oid],
}

export async function showCommit(page: CodePage) {
  const { w, loaded } = page
  const named = String((w.request.params as Record<string, string>).sha ?? '')
  const plain = Object.keys(PLAIN_VIEWS).find((suffix) => named.endsWith(suffix))
  const sha = plain ? named.slice(0, -plain.length) : named
  const { directory, commit } = await findProjectCommit(w.ctx, loaded, sha)
  if (plain) {
    const output = await openGitOutput(directory, PLAIN_VIEWS[plain](commit.oid))
    return w.reply.type('text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send(output)
  }
  const [diff, refs] = await Promise.all([commitDiffOf(directory, commit), commitRefsOf(directory, commit, 'all')])
  const description = commit.message.includes('\n') ? commit.message.slice(commit.message.indexOf('\n') + 1).trim() : ''
  const branches = refs.filter((ref) => ref.type === 'branch')
  const tags = refs.filter((ref) => ref.type === 'tag')
  const committedBySomeoneElse = commit.committer.name !== commit.author.name || commit.committer.email !== commit.author.email
  const changes = await diffSection(diff, {
    mode: diffViewModeOf(textOf(w.params.view)),
    pageUrl: commitUrl(loaded, commit.oid),
    blobUrlOf: (file) => (file.deletedFile ? null : refUrl(loaded, 'blob', commit.oid, file.newPath)),
    emptyText: 'This commit changes no file.',
  })
  const body = html`<div class="commit-header">
      <div class="header-row">
        <p class="commit-meta">
          Commit <code class="commit-sha">${shortCommitId(commit.oid)}</code> authored ${timeOf(commit.author.date)} by
          <strong>${commit.author.name}</strong>
          ${committedBySomeoneElse ? html`, committed by <strong>${commit.committer.name}</strong>` : ''}
        </p>
        <div class="actions">
          <a class="button" href="${refUrl(loaded, 'tree', commit.oid)}">Browse files</a>
          <a class="button" href="${commitUrl(loaded, commit.oid)}.patch">Email patch</a>
          <a class="button" href="${commitUrl(loaded, commit.oid)}.diff">Plain diff</a>
        </div>
      </div>
      <h1 class="commit-title">${commitTitle(commit.message)}</h1>
      ${description ? html`<pre class="commit-description">${description}</pre>` : ''}
      <dl class="fields commit-fields">
        <dt>Commit</dt>
        <dd><code>${commit.oid}</code></dd>
        <dt>${commit.parents.length === 1 ? 'Parent' : 'Parents'}</dt>
        <dd>
          ${
            commit.parents.length === 0
              ? html`<span class="muted">None (a root commit)</span>`
              : commit.parents.map((parent) => html`<a href="${commitUrl(loaded, parent)}"><code>${shortCommitId(parent)}</code></a> `)
          }
        </dd>
        ${
          branches.length > 0
            ? html`<dt>Branches</dt>
              <dd>${branches.map((ref) => html`<a class="badge" href="${refUrl(loaded, 'tree', ref.name)}">${ref.name}</a> `)}</dd>`
            : ''
        }
        ${
          tags.length > 0
            ? html`<dt>Tags</dt>
              <dd>${tags.map((ref) => html`<a class="badge" href="${refUrl(loaded, 'tree', ref.name)}">${ref.name}</a> `)}</dd>`
            : ''
        }
      </dl>
    </div>
    <section class="changes" aria-labelledby="changes-title">
      <h2 id="changes-title">Changes</h2>
      ${changes}
    </section>`
  return renderProjectPage(
    w,
    loaded,
    {
      title: `${commitTitle(commit.message)} (${shortCommitId(commit.oid)})`,
      section: 'commits',
      crumbs: codeCrumbs(
        loaded,
        { text: 'Commits', href: refUrl(loaded, 'commits', loaded.project.default_branch ?? 'main') },
        { text: shortCommitId(commit.oid) },
      ),
    },
    body,
  )
}
