import type { FastifyReply } from 'fastify'
import { VISIBILITY_NAMES, visibilityName, type VisibilityName } from '../../core/access.js'
import { DomainError, NotFound } from '../../core/errors.js'
import { errorList, formErrorsOf } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { listControls, listQueryOf, pager, textOf, type ListView } from '../../web/list-page.js'
import { canReadCode, type LoadedProject } from '../access/index.js'
import { canForkProject, forkProject, listForks, listForkTargets } from '../forks/index.js'
import {
  projectBreadcrumbs,
  projectPage,
  projectPageRoutes,
  projectPath,
  projectSidebar,
  renderProjectPage,
  type ListProjectsInput,
} from '../projects/index.js'
import { redirectBody, type WebRequest, type WebRouter } from '../sessions/index.js'
import { groupsOf } from './lists.js'
import { visibilityField } from './new.js'
import { projectList } from './parts.js'

// Forks on a project's pages (GL Projects::ForksController): the overview's Fork button, the list of forks the
// reader may see, and the form that forks through the API's own service, so the page refuses what the API refuses.

const FORKS_PER_PAGE = 20

type ForkOrder = 'created_desc' | 'created_asc' | 'updated_desc' | 'updated_asc'

/** The forks page's orders, newest first unless chosen (GL forks/index). */
const SORT_TABS: { label: string; status: ForkOrder }[] = [
  { label: 'Recently created', status: 'created_desc' },
  { label: 'Oldest created', status: 'created_asc' },
  { label: 'Recently updated', status: 'updated_desc' },
  { label: 'Oldest updated', status: 'updated_asc' },
]

function forksPath(loaded: LoadedProject, suffix = ''): string {
  return projectPath(loaded, `/-/forks${suffix}`)
}

function plural(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`
}

/**
 * The overview's Fork button and count: the button for those who may fork, the count linking to the forks for those who
 * may read the code, and plain text for the others (the forks page would be a 404 for them).
 */
export function forkButton(loaded: LoadedProject, forksCount: number): Html {
  const { project, access } = loaded
  if (!canReadCode(access, project)) return html`<span class="badge forks" title="Forks">${plural(forksCount, 'fork')}</span>`
  if (!canForkProject(access, project)) {
    return html`<a class="button forks" href="${forksPath(loaded)}" title="Forks">${plural(forksCount, 'fork')}</a>`
  }
  return html`<span class="count-button forks">
    <a class="button" href="${forksPath(loaded, '/new')}" title="Fork project">Fork</a>
    <a class="count" href="${forksPath(loaded)}" title="Forks" aria-label="${plural(forksCount, 'fork')}">${forksCount}</a>
  </span>`
}

/** GL `require_non_empty_project`: 303, so that a form's POST is not repeated. */
function seeOther(w: WebRequest, location: string): FastifyReply {
  return w.reply.code(303).header('location', location).type('text/html; charset=utf-8').send(redirectBody(location))
}

/**
 * GL Projects::ForksController's before actions in their order: an empty repository goes back to the project, code the
 * reader may not read is a 404, and forking needs a signed-in user who may fork. Null when the page may go on.
 */
async function refusalOf(w: WebRequest, loaded: LoadedProject, forking: boolean): Promise<FastifyReply | null> {
  const { project, access } = loaded
  if (project.empty_repo === 1) return seeOther(w, projectPath(loaded))
  if (!canReadCode(access, project)) return w.notFound()
  if (!forking) return null
  if (!w.ctx.caller.user) return w.redirectToSignIn()
  if (!canForkProject(access, project)) return w.notFound()
  return null
}

function forkListInput(loaded: LoadedProject, search: string, order: ForkOrder, page: number): ListProjectsInput {
  const [column, direction] = order.split('_') as ['created' | 'updated', 'asc' | 'desc']
  return {
    scope: { kind: 'forks', projectId: loaded.project.id },
    search: search || undefined,
    owned: false,
    starred: false,
    imported: false,
    membership: false,
    withIssuesEnabled: false,
    withMergeRequestsEnabled: false,
    orderBy: column === 'created' ? 'created_at' : 'updated_at',
    sort: direction,
    pagination: { kind: 'offset', page, perPage: FORKS_PER_PAGE },
  }
}

/** GET /<namespace>/<project>/-/forks: the forks the reader may see (GL ForkProjectsFinder), searchable and sorted. */
async function showForks(w: WebRequest, loaded: LoadedProject) {
  const refused = await refusalOf(w, loaded, false)
  if (refused) return refused
  const { search, page } = listQueryOf(w.params)
  const sortText = textOf(w.params.sort)
  const order = SORT_TABS.find((tab) => tab.status === sortText)?.status ?? 'created_desc'
  const list = await listForks(w.ctx, loaded, forkListInput(loaded, search, order, page))
  const view: ListView<ForkOrder> = {
    base: forksPath(loaded),
    status: order,
    defaultStatus: 'created_desc',
    search,
    page,
    statusParam: 'sort',
  }
  const offset = list.offset
  // Past a very large count the total is not known exactly; the pager still offers the next page.
  const total = offset?.total ?? page * FORKS_PER_PAGE + (offset?.hasNext ? 1 : 0)
  const canFork = w.ctx.caller.user !== null && canForkProject(loaded.access, loaded.project)
  const body = html`<div class="header-row">
      <h1>Forks</h1>
      ${canFork ? html`<div class="actions"><a class="button primary" href="${forksPath(loaded, '/new')}">Fork</a></div>` : ''}
    </div>
    ${listControls(view, SORT_TABS, 'fork')}
    ${projectList(list.views, search ? html`<p>No forks matched your search.</p>` : html`<p>This project has no forks yet.</p>`)}
    ${list.views.length > 0 || page > 1 ? pager(view, FORKS_PER_PAGE, total, 'forks') : ''}`
  return renderProjectPage(w, loaded, { title: 'Forks', section: null, crumbs: [{ text: 'Forks' }] }, body)
}

interface ForkValues {
  namespace_key: string
  name: string
  path: string
  description: string
  visibility: string
}

/** The visibility levels a fork may have: none above its source's (GL ForkService caps them too). */
function visibilitiesFor(loaded: LoadedProject): VisibilityName[] {
  return VISIBILITY_NAMES.filter(
    (name) => VISIBILITY_NAMES.indexOf(name) <= VISIBILITY_NAMES.indexOf(visibilityName(loaded.project.visibility_level)),
  )
}

/** GET /<namespace>/<project>/-/forks/new: the fork form; with `errors`, what the service refused. */
async function forkForm(w: WebRequest, loaded: LoadedProject, values: ForkValues | null, errors: string[] = []) {
  const { project } = loaded
  const targets = await listForkTargets(w.ctx, await groupsOf(w.ctx, { minAccessLevel: 30 }))
  const shown: ForkValues = values ?? {
    namespace_key: '',
    name: project.name,
    path: project.path,
    description: project.description ?? '',
    visibility: visibilityName(project.visibility_level),
  }
  const token = await w.csrfToken()
  const form =
    targets.length === 0
      ? html`<div class="empty-state">
          <p><strong>No available namespaces to fork the project.</strong></p>
          <p>You must have permission to create a project in a namespace before forking.</p>
        </div>`
      : html`<form method="post" action="${forksPath(loaded)}" class="fork-project">
          ${csrfField(token)}
          <label for="fork_name">Project name</label>
          <input type="text" id="fork_name" name="name" value="${shown.name}" required />
          <label for="fork_namespace_key">Project URL</label>
          <select id="fork_namespace_key" name="namespace_key">
            ${targets.map(
              (namespace) =>
                html`<option value="${namespace.id}" ${shown.namespace_key === String(namespace.id) ? html`selected` : ''}>
                  ${w.ctx.config.externalUrl}/${namespace.full_path}/
                </option>`,
            )}
          </select>
          <label for="fork_path">Project slug</label>
          <input type="text" id="fork_path" name="path" value="${shown.path}" required />
          <label for="fork_description">Project description (optional)</label>
          <textarea id="fork_description" name="description" rows="3">${shown.description}</textarea>
          ${visibilityField({ visibility: shown.visibility }, visibilitiesFor(loaded))}
          <div class="button-row">
            <button type="submit" class="primary">Fork project</button> <a class="button" href="${projectPath(loaded)}">Cancel</a>
          </div>
        </form>`
  return w.render(
    {
      title: `Fork project · ${project.full_name}`,
      narrow: true,
      sidebar: projectSidebar(loaded, null),
      breadcrumbs: projectBreadcrumbs(loaded, { text: 'Forks', href: forksPath(loaded) }, { text: 'Fork project' }),
    },
    html`<h1>Fork project</h1>
      <p class="help">A fork is a copy of a project. Forking a repository allows you to make changes without affecting the original project.</p>
      ${errorList(errors)} ${form}`,
    errors.length > 0 ? 422 : 200,
  )
}

/** A field the form sent, or undefined when it sent none (the fork then keeps its source's, as GitLab's does). */
function givenText(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

/** POST /<namespace>/<project>/-/forks: forks into the chosen namespace and opens the fork. */
async function createFork(w: WebRequest, loaded: LoadedProject) {
  const refused = await refusalOf(w, loaded, true)
  if (refused) return refused
  const values: ForkValues = {
    namespace_key: textOf(w.params.namespace_key),
    name: textOf(w.params.name),
    path: textOf(w.params.path),
    description: textOf(w.params.description),
    visibility: textOf(w.params.visibility),
  }
  // GL `authorize_fork_namespace!`: no namespace, or one that is no target, is a 404.
  const namespaceId = /^\d{1,15}$/.test(values.namespace_key) ? Number(values.namespace_key) : null
  if (namespaceId === null) return w.notFound()
  try {
    const fork = await forkProject(w.ctx, loaded, {
      namespaceId,
      name: givenText(w.params.name),
      path: givenText(w.params.path),
      description: givenText(w.params.description),
      visibility: (VISIBILITY_NAMES as readonly string[]).includes(values.visibility) ? (values.visibility as VisibilityName) : undefined,
    })
    await w.flash('notice', `The project '${fork.project.name}' was successfully forked.`)
    return w.redirect(`/${fork.project.full_path}`)
  } catch (error) {
    if (error instanceof DomainError && !(error instanceof NotFound)) return forkForm(w, loaded, values, formErrorsOf(error))
    throw error
  }
}

export function registerForkPages(web: WebRouter) {
  for (const route of projectPageRoutes('/-/forks')) {
    web.get(route, projectPage(showForks))
    web.post(route, projectPage(createFork))
  }
  for (const route of projectPageRoutes('/-/forks/new')) {
    web.get(
      route,
      projectPage(async (w, loaded) => (await refusalOf(w, loaded, true)) ?? forkForm(w, loaded, null)),
    )
  }
}
