import { DomainError, MissingParam } from '../../core/errors.js'
import { VISIBILITY_NAMES, type VisibilityName } from '../../core/access.js'
import { errorList, formErrorsOf } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import { createGroup } from '../groups/index.js'
import { createProject } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { createSnippet } from '../snippets/index.js'
import { groupsOf } from './lists.js'

// The new-item menu's pages (GL projects/new, groups/new, snippets/new): one form each, created through the API's own
// services, so a page refuses what the API refuses, in the same words, beside the form.

type Values = Record<string, string>

function visibilityOf(value: string): VisibilityName {
  return (VISIBILITY_NAMES as readonly string[]).includes(value) ? (value as VisibilityName) : 'private'
}

/** The visibility radios, `levels` of them (all three unless given), the chosen one checked. */
export function visibilityField(values: Values, levels: readonly VisibilityName[] = VISIBILITY_NAMES): Html {
  const chosen = visibilityOf(values.visibility ?? 'private')
  return html`<fieldset class="visibility">
    <legend>Visibility level</legend>
    ${levels.map(
      (level) =>
        html`<label class="inline-label"
          ><input type="radio" name="visibility" value="${level}" ${level === chosen ? html`checked` : ''} />
          ${level.charAt(0).toUpperCase() + level.slice(1)}</label
        >`,
    )}
  </fieldset>`
}

/** Runs `create`; on a refusal the form comes back with the service's messages and the values given. */
async function submit(w: WebRequest, create: () => Promise<string>, again: (errors: string[]) => Promise<unknown>) {
  try {
    return w.redirect(await create())
  } catch (error) {
    if (error instanceof DomainError) return again(formErrorsOf(error))
    throw error
  }
}

async function projectForm(w: WebRequest, values: Values, errors: string[] = []) {
  const user = w.ctx.caller.user!
  const groups = await groupsOf(w.ctx, { minAccessLevel: 30 })
  const token = await w.csrfToken()
  return w.render(
    { title: 'New project', narrow: true, breadcrumbs: [{ text: 'Projects', href: '/' }, { text: 'New project' }] },
    html`<h1>Create blank project</h1>
      ${errorList(errors)}
      <form method="post" action="/projects" class="new-project">
        ${csrfField(token)}
        <label for="project_name">Project name</label>
        <input type="text" id="project_name" name="project[name]" value="${values.name ?? ''}" required />
        <label for="project_namespace_id">Project URL</label>
        <select id="project_namespace_id" name="project[namespace_id]">
          <option value="">${w.ctx.config.externalUrl}/${user.username}/</option>
          ${groups.map(
            (group) =>
              html`<option value="${group.id}" ${values.namespace_id === String(group.id) ? html`selected` : ''}>
                ${w.ctx.config.externalUrl}/${group.full_path}/
              </option>`,
          )}
        </select>
        <label for="project_path">Project slug</label>
        <input type="text" id="project_path" name="project[path]" value="${values.path ?? ''}" />
        <p class="help">Left empty, the slug is made from the name.</p>
        ${visibilityField(values)}
        <label class="inline-label"
          ><input type="checkbox" name="project[initialize_with_readme]" value="1" ${values.initialize_with_readme === '0' ? '' : html`checked`} />
          Initialize repository with a README</label
        >
        <div class="button-row"><button type="submit" class="primary">Create project</button> <a class="button" href="/">Cancel</a></div>
      </form>`,
    errors.length > 0 ? 422 : 200,
  )
}

async function groupForm(w: WebRequest, values: Values, errors: string[] = []) {
  const token = await w.csrfToken()
  return w.render(
    { title: 'New group', narrow: true, breadcrumbs: [{ text: 'Groups', href: '/explore/groups' }, { text: 'New group' }] },
    html`<h1>Create group</h1>
      ${errorList(errors)}
      <form method="post" action="/groups" class="new-group">
        ${csrfField(token)}
        <label for="group_name">Group name</label>
        <input type="text" id="group_name" name="group[name]" value="${values.name ?? ''}" required />
        <label for="group_path">Group URL</label>
        <input type="text" id="group_path" name="group[path]" value="${values.path ?? ''}" required aria-describedby="group_path_help" />
        <p class="help" id="group_path_help">${w.ctx.config.externalUrl}/groups/&lt;group URL&gt;</p>
        ${visibilityField(values)}
        <div class="button-row"><button type="submit" class="primary">Create group</button> <a class="button" href="/">Cancel</a></div>
      </form>`,
    errors.length > 0 ? 422 : 200,
  )
}

async function snippetForm(w: WebRequest, values: Values, errors: string[] = []) {
  const token = await w.csrfToken()
  return w.render(
    { title: 'New snippet', narrow: true, breadcrumbs: [{ text: 'Snippets' }, { text: 'New snippet' }] },
    html`<h1>New snippet</h1>
      ${errorList(errors)}
      <form method="post" action="/-/snippets" class="new-snippet">
        ${csrfField(token)}
        <label for="snippet_title">Title</label>
        <input type="text" id="snippet_title" name="personal_snippet[title]" value="${values.title ?? ''}" required />
        <label for="snippet_description">Description (optional)</label>
        <textarea id="snippet_description" name="personal_snippet[description]" rows="3">${values.description ?? ''}</textarea>
        <label for="snippet_file_name">File name</label>
        <input type="text" id="snippet_file_name" name="personal_snippet[file_name]" value="${values.file_name ?? ''}" required />
        <label for="snippet_content">Content</label>
        <textarea id="snippet_content" name="personal_snippet[content]" rows="12" class="code-input" required>${values.content ?? ''}</textarea>
        ${visibilityField(values)}
        <div class="button-row"><button type="submit" class="primary">Create snippet</button> <a class="button" href="/">Cancel</a></div>
      </form>`,
    errors.length > 0 ? 422 : 200,
  )
}

/** The fields of a Rails-style form (`project[name]`) as text. */
function fieldsOf(w: WebRequest, model: string): Values {
  const form = w.params[model]
  if (!form || typeof form !== 'object' || Array.isArray(form)) return { visibility: textOf(w.params.visibility) }
  const values: Values = { visibility: textOf(w.params.visibility) }
  for (const [key, value] of Object.entries(form as Record<string, unknown>)) values[key] = textOf(value)
  return values
}

/** A page only people who have signed in may open. */
function signedIn(handler: (w: WebRequest) => Promise<unknown>) {
  return (w: WebRequest) => (w.ctx.caller.user ? handler(w) : w.redirectToSignIn())
}

export function registerNewItemPages(web: WebRouter) {
  web.get(
    '/projects/new',
    signedIn((w) => projectForm(w, {})),
  )
  web.post(
    '/projects',
    signedIn((w) => {
      const values = fieldsOf(w, 'project')
      return submit(
        w,
        async () => {
          const view = await createProject(w.ctx, {
            name: values.name || undefined,
            path: values.path || undefined,
            namespaceId: values.namespace_id ? Number(values.namespace_id) : undefined,
            visibility: visibilityOf(values.visibility),
            initializeWithReadme: values.initialize_with_readme === '1',
            settings: {},
          })
          return `/${view.project.full_path}`
        },
        (errors) => projectForm(w, values, errors),
      )
    }),
  )
  web.get(
    '/groups/new',
    signedIn((w) => groupForm(w, {})),
  )
  web.post(
    '/groups',
    signedIn((w) => {
      const values = fieldsOf(w, 'group')
      return submit(
        w,
        async () => {
          const group = await createGroup(w.ctx, undefined, {
            name: values.name,
            path: values.path,
            visibility: visibilityOf(values.visibility),
          })
          return `/groups/${group.full_path}`
        },
        (errors) => groupForm(w, values, errors),
      )
    }),
  )
  web.get(
    '/-/snippets/new',
    signedIn((w) => snippetForm(w, {})),
  )
  web.post(
    '/-/snippets',
    signedIn((w) => {
      const values = fieldsOf(w, 'personal_snippet')
      return submit(
        w,
        async () => {
          // The API's parameters require both (Grape `allow_blank: false`); the service takes them as given.
          if (!values.title?.trim()) throw new MissingParam('title')
          if (!values.file_name?.trim()) throw new MissingParam('file_name')
          const snippet = await createSnippet(w.ctx, null, {
            title: values.title ?? '',
            description: values.description || undefined,
            visibility: visibilityOf(values.visibility),
            files: [{ filePath: values.file_name ?? '', content: values.content ?? '' }],
          })
          return `/-/snippets/${snippet.id}`
        },
        (errors) => snippetForm(w, values, errors),
      )
    }),
  )
}
