import { visibilityName } from '../../core/access.js'
import { NotFound } from '../../core/errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { capitalized, timeOf } from '../../web/list-page.js'
import {
  canAdminSnippet,
  canCreatePersonalSnippet,
  canCreateProjectSnippet,
  canUpdateSnippet,
  type LoadedProject,
} from '../access/index.js'
import { renderMarkdown } from '../markdown/index.js'
import { projectPage, projectPageRoutes, projectPath, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import {
  buildSnippetView,
  findProjectSnippet,
  findSnippet,
  readSnippetContent,
  readSnippetFile,
  sendSnippetContent,
  sendSnippetFile,
  type LoadedSnippet,
} from '../snippets/index.js'
import { highlightLines, languageOf } from '../../web/highlight.js'
import { registerSnippetForms, snippetPath, visibilityDescription } from './snippet-forms.js'
import { registerSnippetLists } from './snippet-lists.js'
import { iidOf, userLink } from './shared.js'

// A snippet's page (GL SnippetsController#show, Projects::SnippetsController#show): its title, description and files,
// highlighted. The snippet is found as the API finds it, so a visitor who may not read it gets the 404 page.

/** GitLab keeps at most ten files in a snippet; a page shows no more. */
const MAX_FILES = 10
/** Files above this many characters are not shown inline; their raw link is. */
const MAX_SHOWN_CHARS = 1024 * 1024

/** A file as a box: its name and raw link above its highlighted lines, numbered. */
async function fileBox(name: string, content: string, rawUrl: string, index: number): Promise<Html> {
  const anchor = `file-${index + 1}`
  const header = html`<header>
    <h2 class="file-name" id="${anchor}-name">${name}</h2>
    <a class="button small" href="${rawUrl}">Open raw</a>
  </header>`
  if (content.length > MAX_SHOWN_CHARS) {
    return html`<section class="box snippet-file" aria-labelledby="${anchor}-name">
      ${header}
      <p class="body muted">This file is too large to show here; open it raw.</p>
    </section>`
  }
  const lines = await highlightLines(content.replace(/\n$/, ''), await languageOf(name))
  return html`<section class="box snippet-file" aria-labelledby="${anchor}-name">
    ${header}
    <div class="code" tabindex="0" role="region" aria-label="${name}">
      <table>
        <tbody>
          ${lines.map(
            (line, number) => html`<tr id="${anchor}-L${number + 1}">
              <td class="line-number"><a href="#${anchor}-L${number + 1}">${number + 1}</a></td>
              <td class="line">${line}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </section>`
}

async function snippetBody(w: WebRequest, found: LoadedSnippet): Promise<Html> {
  const { ctx } = w
  const { snippet, project } = found
  const view = await buildSnippetView(ctx, snippet)
  const base = snippetPath(snippet, project)
  let files: Html[]
  if (view.repositoryExists && view.files.length > 0) {
    const shown = view.files.slice(0, MAX_FILES)
    const contents = await Promise.all(shown.map((path) => readSnippetFile(ctx, found, view.rootRef, path)))
    files = await Promise.all(
      shown.map((path, index) =>
        fileBox(
          path,
          contents[index],
          `${base}/raw/${encodeURIComponent(view.rootRef)}/${path.split('/').map(encodeURIComponent).join('/')}`,
          index,
        ),
      ),
    )
  } else {
    const { content, fileName } = await readSnippetContent(ctx, found)
    files = [await fileBox(fileName ?? snippet.file_name ?? 'snippet', content, `${base}/raw`, 0)]
  }
  const description =
    snippet.description && snippet.description.trim() !== ''
      ? html`<div class="markdown description">
          ${await renderMarkdown(ctx, snippet.description, project ? { project } : {})}
        </div>`
      : ''
  const visibility = visibilityName(snippet.visibility_level)
  return html`<div class="issuable-header">
      <span class="badge visibility-badge" title="${visibilityDescription(visibility, project !== null)}">${capitalized(visibility)}</span>
      <span class="meta">Snippet $${snippet.id} created ${timeOf(snippet.created_at)} by ${userLink(view.author)}</span>
      ${await snippetActions(w, found)}
    </div>
    <h1 class="issuable-title">${snippet.title}</h1>
    ${description} ${files}
    ${view.files.length > MAX_FILES ? html`<p class="muted">Only the first ${MAX_FILES} files are shown.</p>` : ''}`
}

/** GL snippet_header's actions: Edit, Delete (after a confirmation) and New snippet, each for those who may. */
async function snippetActions(w: WebRequest, found: LoadedSnippet): Promise<Html> {
  const { caller } = w.ctx
  const { snippet, project } = found
  const mayEdit = canUpdateSnippet(caller, snippet, project)
  const mayDelete = canAdminSnippet(caller, snippet, project)
  const newPath = project
    ? caller.user && canCreateProjectSnippet(project)
      ? projectPath(project, '/-/snippets/new')
      : null
    : canCreatePersonalSnippet(caller)
      ? '/-/snippets/new'
      : null
  if (!mayEdit && !mayDelete && !newPath) return html``
  const token = mayDelete ? await w.csrfToken() : ''
  return html`<div class="row-actions snippet-actions">
    ${mayEdit ? html`<a class="button" href="${snippetPath(snippet, project, '/edit')}">Edit</a>` : ''}
    ${
      mayDelete
        ? html`<details class="menu confirm-menu">
            <summary class="button danger-outline">Delete</summary>
            <div class="menu-items confirm-box" role="group" aria-label="Delete snippet?">
              <p>Are you sure you want to delete <strong>${snippet.title}</strong>?</p>
              <form method="post" action="${snippetPath(snippet, project)}">
                ${csrfField(token)}
                <input type="hidden" name="_method" value="delete" />
                <button type="submit" class="danger">Delete snippet</button>
              </form>
            </div>
          </details>`
        : ''
    }
    ${newPath ? html`<a class="button" href="${newPath}">New snippet</a>` : ''}
  </div>`
}

async function renderProjectSnippet(w: WebRequest, loaded: LoadedProject) {
  const found = await projectSnippet(w, loaded)
  const body = await snippetBody(w, found)
  return renderProjectPage(
    w,
    loaded,
    {
      title: found.snippet.title,
      section: 'snippets',
      crumbs: [{ text: 'Snippets', href: projectPath(loaded, '/-/snippets') }, { text: `$${found.snippet.id}` }],
    },
    body,
  )
}

async function renderPersonalSnippet(w: WebRequest) {
  // A project's snippet lives under its project's path (GL SnippetsController finds personal snippets only).
  const found = await personalSnippet(w)
  const body = await snippetBody(w, found)
  return w.render({ title: found.snippet.title, breadcrumbs: [{ text: 'Snippets' }, { text: `$${found.snippet.id}` }] }, body)
}

/** A snippet's raw content (`…/raw`) or one of its files (`…/raw/<ref>/<path>`), as the API sends them. */
async function sendRaw(w: WebRequest, found: LoadedSnippet) {
  const params = w.request.params as Record<string, string>
  const path = params['*']
  if (path === undefined) return sendSnippetContent(w.ctx, w.reply, found)
  if (path === '' || path.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) return w.notFound()
  return sendSnippetFile(w.reply, path.split('/').pop() ?? path, await readSnippetFile(w.ctx, found, params.ref, path))
}

/** The personal snippet a page names, as the visitor may read it; a project's snippet is not one (NotFound). */
async function personalSnippet(w: WebRequest): Promise<LoadedSnippet> {
  const id = iidOf(w.params.snippet_id)
  const found = id === null ? null : await findSnippet(w.ctx, id)
  if (!found || found.project !== null) throw new NotFound('Snippet')
  return found
}

async function projectSnippet(w: WebRequest, loaded: LoadedProject): Promise<LoadedSnippet> {
  const id = iidOf(w.params.snippet_id)
  if (id === null) throw new NotFound('Snippet')
  return findProjectSnippet(w.ctx, loaded, id)
}

export function registerSnippetPages(web: WebRouter) {
  registerSnippetLists(web)
  registerSnippetForms(web)
  web.get('/-/snippets/:snippet_id', renderPersonalSnippet)
  for (const url of projectPageRoutes('/-/snippets/:snippet_id')) web.get(url, projectPage(renderProjectSnippet))
  for (const suffix of ['/raw', '/raw/:ref/*']) {
    web.get(`/-/snippets/:snippet_id${suffix}`, async (w) => {
      return sendRaw(w, await personalSnippet(w))
    })
    for (const url of projectPageRoutes(`/-/snippets/:snippet_id${suffix}`)) {
      web.get(
        url,
        projectPage(async (w, loaded) => {
          return sendRaw(w, await projectSnippet(w, loaded))
        }),
      )
    }
  }
}
