import { isAdmin, type Caller, type User } from '../../core/caller.js'
import { visibilityName } from '../../core/access.js'
import type { SnippetRow } from '../../db/schema.js'
import { presentUserBasic } from '../users/index.js'
import type { BasicSnippetJson, SnippetJson } from './schemas.js'

/** A snippet with what its entity shows besides the row. */
export interface SnippetView {
  snippet: SnippetRow
  author: User
  /** The full path of its project; null for a personal snippet. */
  projectFullPath: string | null
  repositoryExists: boolean
  /** The branch HEAD names in its repository. */
  rootRef: string
  /** The paths of its files on that branch, in the repository's order; empty without a repository. */
  files: string[]
}

export interface SnippetPresentOptions {
  viewer: Caller
  externalUrl: string
  now: Date
}

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/')
}

/** GL Gitlab::UrlBuilder for snippets: /-/snippets/:id, or under the project's path. */
export function snippetWebUrl(view: Pick<SnippetView, 'snippet' | 'projectFullPath'>, externalUrl: string): string {
  const base = view.projectFullPath === null ? externalUrl : `${externalUrl}/${view.projectFullPath}`
  return `${base}/-/snippets/${view.snippet.id}`
}

/** GL Entities::BasicSnippet. */
export function presentBasicSnippet(view: SnippetView, options: SnippetPresentOptions): BasicSnippetJson {
  const { snippet } = view
  const webUrl = snippetWebUrl(view, options.externalUrl)
  const json: BasicSnippetJson = {
    id: snippet.id,
    title: snippet.title,
    description: snippet.description,
    visibility: visibilityName(snippet.visibility_level),
    author: presentUserBasic(view.author, options),
    created_at: snippet.created_at,
    updated_at: snippet.updated_at,
    project_id: snippet.project_id,
    web_url: webUrl,
    raw_url: `${webUrl}/raw`,
  }
  if (view.repositoryExists) {
    const repositoryPath = view.projectFullPath === null ? `snippets/${snippet.id}` : `${view.projectFullPath}/snippets/${snippet.id}`
    json.ssh_url_to_repo = `git@${new URL(options.externalUrl).hostname}:${repositoryPath}.git`
    json.http_url_to_repo = `${options.externalUrl}/${repositoryPath}.git`
  }
  return json
}

/** GL Entities::Snippet (and PersonalSnippet, ProjectSnippet): the basic fields, then its files. */
export function presentSnippet(view: SnippetView, options: SnippetPresentOptions): SnippetJson {
  const json: SnippetJson = presentBasicSnippet(view, options) as SnippetJson
  const webUrl = json.web_url
  json.file_name = view.files[0] ?? view.snippet.file_name
  json.files = view.files.map((path) => ({ path, raw_url: `${webUrl}/raw/${encodePath(view.rootRef)}/${encodePath(path)}` }))
  json.imported = false
  json.imported_from = 'none'
  if (isAdmin(options.viewer)) json.repository_storage = view.snippet.repository_storage
  return json
}
