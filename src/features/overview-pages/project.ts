import type { Context } from '../../core/context.js'
import { html, type Html } from '../../web/html.js'
import { timeOf } from '../../web/list-page.js'
import { canReadCode, type LoadedProject } from '../access/index.js'
import { recentEvents } from '../events/index.js'
import { renderMarkdown } from '../markdown/index.js'
import { projectPage, projectPageRoutes, projectPath, renderProjectPage, viewOfLoaded } from '../projects/index.js'
import { codeDirectory, findCommit, findTreeEntry, readObject, type ParsedCommit } from '../repositories/index.js'
import { listLanguages } from '../repository-browse/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { forkButton } from './forks.js'
import { activityList, avatar, visibilityBadge } from './parts.js'
import { starButton } from './stars.js'

/** A README larger than this is linked, not shown (GitLab stops rendering blobs past a size too). */
const README_SHOWN_BYTES = 512 * 1024
const ACTIVITY_SHOWN = 10
// Colours of the language bar, in order of share; the rest share the last.
const LANGUAGE_COLOURS = ['#1f75cb', '#e9be74', '#6fb57f', '#c17d10', '#a06bd1', '#dd2b0e', '#4f9ea8', '#89888d']

interface RepositoryOverview {
  commit: ParsedCommit
  readme: { path: string; html: Html } | null
  languages: [string, number][]
}

async function repositoryOverview(ctx: Context, loaded: LoadedProject): Promise<RepositoryOverview | null> {
  const { project, access } = loaded
  if (!canReadCode(access, project) || !project.default_branch) return null
  const directory = codeDirectory(ctx, loaded)
  const commit = await findCommit(directory, `refs/heads/${project.default_branch}`)
  if (!commit) return null
  let readme: RepositoryOverview['readme'] = null
  if (project.readme_path) {
    const entry = await findTreeEntry(directory, commit.tree, project.readme_path.split('/'))
    const blob = entry?.type === 'blob' ? await readObject(directory, entry.oid) : null
    if (blob && blob.size <= README_SHOWN_BYTES) {
      const text = blob.content.toString('utf8')
      const body = /\.(md|markdown|mdown|mkd)$/i.test(project.readme_path)
        ? await renderMarkdown(ctx, text, { project: loaded, base: { ref: project.default_branch, path: project.readme_path } })
        : html`<pre>${text}</pre>`
      readme = { path: project.readme_path, html: body }
    }
  }
  const languages = Object.entries(await listLanguages(ctx, loaded)).sort((a, b) => b[1] - a[1])
  return { commit, readme, languages }
}

/** The share of each language as one bar (SVG, whose sizes are attributes: the page allows no inline style) and a legend. */
function languageBar(languages: [string, number][]): Html {
  if (languages.length === 0) return html``
  const colour = (index: number) => LANGUAGE_COLOURS[Math.min(index, LANGUAGE_COLOURS.length - 1)]
  let x = 0
  const bars = languages.map(([name, share], index) => {
    const bar = html`<rect x="${x}" width="${share}" height="8" fill="${colour(index)}"><title>${name} ${share}%</title></rect>`
    x += share
    return bar
  })
  return html`<section class="languages" aria-label="Languages">
    <svg class="lang-bar" viewBox="0 0 100 8" preserveAspectRatio="none" role="img" aria-label="${languages.map(([name, share]) => `${name} ${share}%`).join(', ')}">${bars}</svg>
    <ul class="legend">
      ${languages.map(
        ([name, share], index) =>
          html`<li><svg width="10" height="10" aria-hidden="true"><circle cx="5" cy="5" r="5" fill="${colour(index)}" /></svg> ${name} <span class="muted">${share}%</span></li>`,
      )}
    </ul>
  </section>`
}

/** GET /<namespace>/<project>: what a visitor sees first (GL projects/show). */
async function showProject(w: WebRequest, loaded: LoadedProject) {
  const { ctx } = w
  const { project } = loaded
  const [view, repository, events, starControl] = await Promise.all([
    viewOfLoaded(ctx, loaded),
    repositoryOverview(ctx, loaded),
    recentEvents(ctx, { project: loaded }, ACTIVITY_SHOWN),
    starButton(w, loaded),
  ])
  const cloneUrl = `${ctx.config.externalUrl}/${project.full_path}.git`
  const base = projectPath(loaded)
  const description = project.description ? await renderMarkdown(ctx, project.description, { project: loaded }) : null
  const body = html`<div class="header-row project-header">
      ${avatar(project.name, 'large')}
      <div>
        <h1>${project.name} ${visibilityBadge(project.visibility_level)}</h1>
        <div class="muted">Project ID: ${project.id}</div>
      </div>
      <div class="actions">
        ${starControl} ${forkButton(loaded, view.forksCount)}
      </div>
    </div>
    ${description ? html`<div class="markdown project-description">${description}</div>` : ''}
    ${repository ? languageBar(repository.languages) : ''}
    <section class="box clone" aria-labelledby="clone-heading">
      <header><h2 id="clone-heading">Clone with HTTPS</h2></header>
      <div class="body copy-field">
        <input type="text" id="http_project_clone" value="${cloneUrl}" readonly aria-label="Repository URL" />
        <button type="button" data-copy="http_project_clone">Copy URL</button>
      </div>
    </section>
    ${
      repository
        ? html`<section class="box last-commit" aria-label="Last commit">
            <header>
              <a href="${base}/-/commit/${repository.commit.oid}">${repository.commit.message.split('\n')[0]}</a>
              <span class="muted">${repository.commit.author.name} authored ${timeOf(repository.commit.author.date)}</span>
              <code>${repository.commit.oid.slice(0, 8)}</code>
            </header>
            <div class="body button-row">
              <a class="button" href="${base}/-/tree/${project.default_branch}">Files</a>
              <a class="button" href="${base}/-/commits/${project.default_branch}">Commits</a>
              <a class="button" href="${base}/-/branches">Branches</a>
              <a class="button" href="${base}/-/tags">Tags</a>
            </div>
          </section>
          ${
            repository.readme
              ? html`<section class="box readme" aria-labelledby="readme-heading">
                <header><h2 id="readme-heading"><a href="${base}/-/blob/${project.default_branch}/${repository.readme.path}">${repository.readme.path}</a></h2></header>
                <div class="body markdown">${repository.readme.html}</div>
              </section>`
              : ''
          }`
        : canReadCode(loaded.access, project)
          ? html`<section class="empty-state empty-repository">
            <h2>The repository for this project is empty</h2>
            <p>Push an existing folder:</p>
            <pre>git remote add origin ${cloneUrl}\ngit push -u origin --all</pre>
          </section>`
          : ''
    }
    <section aria-labelledby="activity-heading">
      <h2 id="activity-heading">Activity</h2>
      ${activityList(events, new Map([[project.id, project.full_path]]), 'No activity yet.')}
    </section>`
  return renderProjectPage(w, loaded, { title: project.name, section: 'overview' }, body)
}

export function registerProjectOverviewPage(web: WebRouter) {
  for (const route of projectPageRoutes('')) web.get(route, projectPage(showProject))
}
