import { VISIBILITY_NAMES, visibilityName, type VisibilityName } from '../../core/access.js'
import { DomainError, Forbidden, NotFound } from '../../core/errors.js'
import type { SnippetRow } from '../../db/schema.js'
import { describedBy, errorIdOf } from '../../web/described-by.js'
import { errorList, fieldError, refusalOf, type Refusal } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import { canAdminSnippet, canCreateProjectSnippet, canReadProjectSnippets, canUpdateSnippet, type LoadedProject } from '../access/index.js'
import { projectPage, projectPageRoutes, projectPath, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import {
  buildSnippetView,
  createSnippet,
  deleteSnippet,
  findProjectSnippet,
  findSnippet,
  readSnippetContent,
  readSnippetFile,
  updateSnippet,
  type LoadedSnippet,
  type SnippetFileAction,
} from '../snippets/index.js'
import { submitForm } from './form-submission.js'
import { modelFields, seeOther } from './forms.js'
import { iidOf } from './shared.js'

// A project's new snippet and every snippet's edit form and delete (GL Projects::SnippetsController, SnippetsController,
// the snippet editor): title, description, visibility and the files' names and contents, written through the snippets
// services, so the page refuses what the API refuses.

/** GitLab keeps at most ten files in a snippet. */
export const MAX_SNIPPET_FILES = 10

/** The page of a snippet: a personal one at /-/snippets/<id>, a project's under its project. */
export function snippetPath(snippet: Pick<SnippetRow, 'id'>, project: LoadedProject | null, suffix = ''): string {
  return project === null ? `/-/snippets/${snippet.id}${suffix}` : projectPath(project, `/-/snippets/${snippet.id}${suffix}`)
}

/** Where a deleted snippet's page sends the visitor: its project's snippets, or the visitor's own (GL snippet_header). */
export function snippetsListPath(project: LoadedProject | null): string {
  return project === null ? '/dashboard/snippets' : projectPath(project, '/-/snippets')
}

/** GL snippet_header's descriptions of each visibility. */
export function visibilityDescription(visibility: VisibilityName, inProject: boolean): string {
  if (visibility === 'private') return inProject ? 'The snippet is visible only to project members.' : 'The snippet is visible only to me.'
  if (visibility === 'internal') return 'The snippet is visible to any logged in user except external users.'
  return 'The snippet can be accessed without any authentication.'
}

interface FileValues {
  /** The file's path before this edit; empty for a new file. */
  previousPath: string
  filePath: string
  content: string
  remove: boolean
}

interface SnippetValues {
  title: string
  description: string
  visibility: VisibilityName
  files: FileValues[]
}

/** The `files[n][…]` fields as a list, in their order, at most one more than a snippet may keep. */
function filesOf(w: WebRequest): FileValues[] {
  const given = w.params.files
  const entries = Array.isArray(given) ? given : given && typeof given === 'object' ? Object.values(given as Record<string, unknown>) : []
  return entries.slice(0, MAX_SNIPPET_FILES + 1).map((entry) => {
    const fields = entry && typeof entry === 'object' ? (entry as Record<string, unknown>) : {}
    return {
      previousPath: textOf(fields.previous_path),
      filePath: textOf(fields.file_path),
      content: textOf(fields.content),
      remove: textOf(fields.delete) === '1',
    }
  })
}

function visibilityOf(value: string | undefined, fallback: VisibilityName): VisibilityName {
  return (VISIBILITY_NAMES as readonly string[]).includes(value ?? '') ? (value as VisibilityName) : fallback
}

function valuesOf(w: WebRequest, fallback: VisibilityName): SnippetValues {
  const fields = modelFields(w, 'snippet')
  return {
    title: fields.title ?? '',
    description: fields.description ?? '',
    visibility: visibilityOf(fields.visibility, fallback),
    files: filesOf(w),
  }
}

/** GL API::Validations::Validators::FilePath, as the API checks `file_path`: no traversal, no absolute path. */
function isValidFilePath(path: string): boolean {
  if (path.includes('\0') || path.startsWith('/')) return false
  return !path.split(/[\\/]/).some((segment) => segment === '..' || /^%2e%2e$/i.test(segment))
}

/** A file block left empty adds nothing. */
function isBlankNewFile(file: FileValues): boolean {
  return file.previousPath === '' && file.filePath.trim() === '' && file.content === ''
}

/** What the API's parameters refuse before any service runs (Grape: blank title, a bad path, blank content). */
function checkFields(values: SnippetValues): Refusal | null {
  const byField: Record<string, string[]> = {}
  const add = (field: string, message: string) => (byField[field] ??= []).push(message)
  if (values.title.trim() === '') add('title', "Title can't be blank")
  values.files.forEach((file, index) => {
    if (file.remove || isBlankNewFile(file)) return
    if (file.filePath !== '' && !isValidFilePath(file.filePath)) add(`files_${index}_file_path`, 'File name should be a valid file path')
    if (file.content.trim() === '') add(`files_${index}_content`, "Content can't be blank")
  })
  const kept = values.files.filter((file) => !file.remove && !isBlankNewFile(file))
  const messages = Object.values(byField).flat()
  if (kept.length === 0) messages.push('Snippet actions have invalid data')
  if (kept.length > MAX_SNIPPET_FILES) messages.push(`Snippets can have at most ${MAX_SNIPPET_FILES} files`)
  return messages.length > 0 ? { messages, byField } : null
}

/** The visibility radios, each with GitLab's description; a project snippet may not be more visible than its project. */
function visibilityField(chosen: VisibilityName, project: LoadedProject | null): Html {
  const levels = project
    ? VISIBILITY_NAMES.filter(
        (name) => VISIBILITY_NAMES.indexOf(name) <= VISIBILITY_NAMES.indexOf(visibilityName(project.project.visibility_level)),
      )
    : VISIBILITY_NAMES
  return html`<fieldset class="snippet-visibility">
    <legend>Visibility level</legend>
    ${levels.map(
      (level) => html`<div class="visibility-choice">
        <input type="radio" id="snippet_visibility_${level}" name="snippet[visibility]" value="${level}" ${level === chosen ? html`checked` : ''} />
        <label for="snippet_visibility_${level}">${level.charAt(0).toUpperCase() + level.slice(1)}</label>
        <p class="help">${visibilityDescription(level, project !== null)}</p>
      </div>`,
    )}
  </fieldset>`
}

function fileFields(file: FileValues, index: number, refusal: Refusal | null, removable: boolean): Html {
  const id = `files_${index}`
  const isNew = file.previousPath === ''
  const described = (field: string) => describedBy(errorIdOf(refusal, `${id}_${field}`, `${id}_${field}`))
  const extra = isNew && index > 0
  const fields = html`<fieldset class="snippet-file-fields">
    <legend>${extra ? 'New file' : `File ${index + 1}`}</legend>
    ${isNew ? '' : html`<input type="hidden" name="files[${index}][previous_path]" value="${file.previousPath}" />`}
    <label for="${id}_file_path">File name</label>
    <input
      type="text"
      id="${id}_file_path"
      name="files[${index}][file_path]"
      value="${file.filePath}"
      placeholder="Give your file a name to add code highlighting, e.g. example.rb for Ruby"
      ${described('file_path')}
    />
    ${fieldError(refusal, `${id}_file_path`, `${id}_file_path`)}
    <label for="${id}_content">Content</label>
    <textarea id="${id}_content" name="files[${index}][content]" rows="12" class="code-input" spellcheck="false" ${described('content')}>${file.content}</textarea>
    ${fieldError(refusal, `${id}_content`, `${id}_content`)}
    ${
      removable && !isNew
        ? html`<label class="inline-label"
            ><input type="checkbox" name="files[${index}][delete]" value="1" ${file.remove ? html`checked` : ''} /> Delete this file</label
          >`
        : ''
    }
  </fieldset>`
  // GitLab's "Add another file" button, without JavaScript: the new file's fields, folded until opened; left empty, it adds nothing.
  return extra
    ? html`<details class="add-file" ${file.filePath !== '' || file.content !== '' ? html`open` : ''}>
        <summary class="button">Add another file</summary>
        ${fields}
      </details>`
    : fields
}

/** The snippet form; `found` null for a new project snippet. A refused one comes back with its values and messages. */
async function snippetForm(
  w: WebRequest,
  project: LoadedProject | null,
  found: LoadedSnippet | null,
  values: SnippetValues,
  refusal: Refusal | null,
) {
  const token = await w.csrfToken()
  const action = found ? snippetPath(found.snippet, project) : projectPath(project!, '/-/snippets')
  const existing = values.files.filter((file) => file.previousPath !== '')
  // One empty block stands for GitLab's "Add another file" button.
  const files =
    values.files.some(isBlankNewFile) || values.files.length >= MAX_SNIPPET_FILES
      ? values.files
      : [...values.files, { previousPath: '', filePath: '', content: '', remove: false }]
  const heading = found ? 'Edit snippet' : 'New snippet'
  const body = html`<h1>${heading}</h1>
    ${errorList(refusal?.messages ?? [])}
    <form method="post" action="${action}" class="snippet-form">
      ${csrfField(token)} ${found ? html`<input type="hidden" name="_method" value="put" />` : ''}
      <label for="snippet_title">Title</label>
      <input
        type="text"
        id="snippet_title"
        name="snippet[title]"
        value="${values.title}"
        required
        ${describedBy(errorIdOf(refusal, 'title', 'snippet_title'))}
      />
      ${fieldError(refusal, 'title', 'snippet_title')}
      <label for="snippet_description">Description (optional)</label>
      <textarea id="snippet_description" name="snippet[description]" rows="3">${values.description}</textarea>
      ${files.map((file, index) => fileFields(file, index, refusal, existing.length > 1))}
      <p class="help">A snippet keeps up to ${MAX_SNIPPET_FILES} files.</p>
      ${visibilityField(values.visibility, project)}
      <div class="button-row">
        <button type="submit" class="primary">${found ? 'Save changes' : 'Create snippet'}</button>
        <a class="button" href="${found ? snippetPath(found.snippet, project) : projectPath(project!, '/-/snippets')}">Cancel</a>
      </div>
    </form>`
  const status = refusal ? 422 : 200
  if (project) {
    return renderProjectPage(
      w,
      project,
      {
        title: found ? `Edit ${found.snippet.title}` : 'New snippet',
        section: 'snippets',
        crumbs: [
          { text: 'Snippets', href: projectPath(project, '/-/snippets') },
          ...(found ? [{ text: `$${found.snippet.id}`, href: snippetPath(found.snippet, project) }, { text: 'Edit' }] : [{ text: 'New' }]),
        ],
        status,
      },
      body,
    )
  }
  return w.render(
    {
      title: `Edit ${found!.snippet.title}`,
      narrow: true,
      breadcrumbs: [
        { text: 'Snippets', href: '/dashboard/snippets' },
        { text: `$${found!.snippet.id}`, href: snippetPath(found!.snippet, null) },
        { text: 'Edit' },
      ],
    },
    body,
    status,
  )
}

/** The snippet's files as the form shows them: each file of its repository, or the row's one file without a repository. */
async function currentFiles(w: WebRequest, found: LoadedSnippet): Promise<FileValues[]> {
  const view = await buildSnippetView(w.ctx, found.snippet)
  if (view.repositoryExists && view.files.length > 0) {
    const shown = view.files.slice(0, MAX_SNIPPET_FILES)
    const contents = await Promise.all(shown.map((path) => readSnippetFile(w.ctx, found, view.rootRef, path)))
    return shown.map((path, index) => ({ previousPath: path, filePath: path, content: contents[index], remove: false }))
  }
  const { content, fileName } = await readSnippetContent(w.ctx, found)
  const name = fileName ?? found.snippet.file_name ?? ''
  return [{ previousPath: name, filePath: name, content, remove: false }]
}

/** The changes of the form's files over the snippet's, as the API's `files` actions; unchanged files send none. */
function actionsOf(values: SnippetValues, current: FileValues[]): SnippetFileAction[] {
  const before = new Map(current.map((file) => [file.previousPath, file.content]))
  const actions: SnippetFileAction[] = []
  for (const file of values.files) {
    if (isBlankNewFile(file)) continue
    if (file.previousPath === '' || !before.has(file.previousPath)) {
      actions.push({ action: 'create', file_path: file.filePath, content: file.content })
    } else if (file.remove) {
      actions.push({ action: 'delete', file_path: file.previousPath })
    } else if (file.filePath !== file.previousPath) {
      actions.push({ action: 'move', previous_path: file.previousPath, file_path: file.filePath, content: file.content })
    } else if (file.content !== before.get(file.previousPath)) {
      actions.push({ action: 'update', file_path: file.filePath, content: file.content })
    }
  }
  return actions
}

/** A service's refusal as the form shows it: its message above the form. */
function serviceRefusal(error: unknown): Refusal | null {
  if (!(error instanceof DomainError) || error instanceof NotFound || error instanceof Forbidden) return null
  return refusalOf(error)
}

/** The snippet the path names, as the visitor may read it, in this project or (null) among personal snippets. */
async function snippetOf(w: WebRequest, project: LoadedProject | null): Promise<LoadedSnippet> {
  const id = iidOf(w.params.snippet_id)
  if (id === null) throw new NotFound('Snippet')
  if (project) return findProjectSnippet(w.ctx, project, id)
  const found = await findSnippet(w.ctx, id)
  // A project's snippet lives under its project's path (GL SnippetsController finds personal snippets only).
  if (found.project !== null) throw new NotFound('Snippet')
  return found
}

async function editForm(w: WebRequest, project: LoadedProject | null) {
  if (!w.ctx.caller.user) return w.redirectToSignIn()
  const found = await snippetOf(w, project)
  if (!canUpdateSnippet(w.ctx.caller, found.snippet, found.project)) return w.notFound()
  const values: SnippetValues = {
    title: found.snippet.title,
    description: found.snippet.description ?? '',
    visibility: visibilityName(found.snippet.visibility_level),
    files: await currentFiles(w, found),
  }
  return snippetForm(w, project, found, values, null)
}

async function updateFromForm(w: WebRequest, project: LoadedProject | null) {
  if (!w.ctx.caller.user) return w.redirectToSignIn()
  const found = await snippetOf(w, project)
  if (!canUpdateSnippet(w.ctx.caller, found.snippet, found.project)) return w.notFound()
  const values = valuesOf(w, visibilityName(found.snippet.visibility_level))
  const refused = checkFields(values)
  if (refused) return snippetForm(w, project, found, values, refused)
  const actions = actionsOf(values, await currentFiles(w, found))
  return submitForm(
    w,
    () =>
      updateSnippet(w.ctx, found, {
        title: values.title,
        description: values.description,
        visibility: values.visibility,
        files: actions.length > 0 ? actions : undefined,
      }),
    {
      refusalOf: serviceRefusal,
      showRefused: (refusal) => snippetForm(w, project, found, values, refusal),
      saved: () => w.redirect(snippetPath(found.snippet, project)),
    },
  )
}

async function deleteFromForm(w: WebRequest, project: LoadedProject | null) {
  if (!w.ctx.caller.user) return w.redirectToSignIn()
  const found = await snippetOf(w, project)
  if (!canAdminSnippet(w.ctx.caller, found.snippet, found.project)) return w.notFound()
  await deleteSnippet(w.ctx, found)
  return seeOther(w, snippetsListPath(project))
}

/** Whether the visitor may open the project's new snippet form (GL `authorize_create_snippet!`). */
function mayCreateIn(w: WebRequest, project: LoadedProject): boolean {
  return w.ctx.caller.user !== null && canReadProjectSnippets(project) && canCreateProjectSnippet(project)
}

async function newProjectSnippet(w: WebRequest, project: LoadedProject) {
  if (!w.ctx.caller.user) return w.redirectToSignIn()
  if (!mayCreateIn(w, project)) return w.notFound()
  // GL ApplicationSetting default_snippet_visibility: private.
  return snippetForm(w, project, null, { title: '', description: '', visibility: 'private', files: [] }, null)
}

async function createProjectSnippet(w: WebRequest, project: LoadedProject) {
  if (!w.ctx.caller.user) return w.redirectToSignIn()
  if (!mayCreateIn(w, project)) return w.notFound()
  const values = valuesOf(w, 'private')
  values.files = values.files.map((file) => ({ ...file, previousPath: '', remove: false }))
  const refused = checkFields(values)
  if (refused) return snippetForm(w, project, null, values, refused)
  return submitForm(
    w,
    () =>
      createSnippet(w.ctx, project, {
        title: values.title,
        description: values.description === '' ? undefined : values.description,
        visibility: values.visibility,
        files: values.files.filter((file) => !isBlankNewFile(file)).map((file) => ({ filePath: file.filePath, content: file.content })),
      }),
    {
      refusalOf: serviceRefusal,
      showRefused: (refusal) => snippetForm(w, project, null, values, refusal),
      saved: (created) => w.redirect(snippetPath(created, project)),
    },
  )
}

export function registerSnippetForms(web: WebRouter) {
  for (const url of projectPageRoutes('/-/snippets/new')) web.get(url, projectPage(newProjectSnippet))
  for (const url of projectPageRoutes('/-/snippets')) web.post(url, projectPage(createProjectSnippet))
  web.get('/-/snippets/:snippet_id/edit', (w) => editForm(w, null))
  web.put('/-/snippets/:snippet_id', (w) => updateFromForm(w, null))
  web.route('PATCH', '/-/snippets/:snippet_id', (w) => updateFromForm(w, null))
  web.delete('/-/snippets/:snippet_id', (w) => deleteFromForm(w, null))
  for (const url of projectPageRoutes('/-/snippets/:snippet_id/edit'))
    web.get(
      url,
      projectPage((w, project) => editForm(w, project)),
    )
  for (const url of projectPageRoutes('/-/snippets/:snippet_id')) {
    web.put(
      url,
      projectPage((w, project) => updateFromForm(w, project)),
    )
    web.route(
      'PATCH',
      url,
      projectPage((w, project) => updateFromForm(w, project)),
    )
    web.delete(
      url,
      projectPage((w, project) => deleteFromForm(w, project)),
    )
  }
}
