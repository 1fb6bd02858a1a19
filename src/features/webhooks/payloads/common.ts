import type { Db } from '../../../db/index.js'
import type { LabelRow, NamespaceRow, ProjectRow, UserRow } from '../../../db/schema.js'
import { findNamespaceById, findProjectById } from '../../access/index.js'
import { avatarUrlOf } from '../../namespaces/index.js'
import { git, readCommit, type ParsedCommit } from '../../repositories/index.js'
import { rubyUtc, webhookEmail } from './formats.js'

// The pieces every push, issue, merge request and comment body shares: the project (GL Project#hook_attrs), the
// person (User#hook_attrs), labels (Label#hook_attrs) and commits (Commit#hook_attrs).

/** A project with its namespace, as the bodies name it. */
export interface HookProject {
  project: ProjectRow
  namespace: NamespaceRow
}

export async function findHookProject(trx: Db, projectId: number): Promise<HookProject | null> {
  const [project] = await findProjectById(trx, projectId)
  const namespace = project && (await findNamespaceById(trx, project.namespace_id))[0]
  return project && namespace ? { project, namespace } : null
}

/** `git@host:path.git`, as Gitlab::Shell#url_to_repo writes a project's SSH URL. */
function sshUrlOf(project: ProjectRow, externalUrl: string): string {
  return `git@${new URL(externalUrl).hostname}:${project.full_path}.git`
}

/** GL Project#hook_attrs, with the deprecated homepage, url, ssh_url and http_url. */
export function projectHookAttrs({ project, namespace }: HookProject, externalUrl: string) {
  const webUrl = `${externalUrl}/${project.full_path}`
  const sshUrl = sshUrlOf(project, externalUrl)
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    web_url: webUrl,
    avatar_url: null,
    git_ssh_url: sshUrl,
    git_http_url: `${webUrl}.git`,
    namespace: namespace.name,
    visibility_level: project.visibility_level,
    path_with_namespace: project.full_path,
    default_branch: project.default_branch,
    ci_config_path: project.ci_config_path,
    homepage: webUrl,
    url: sshUrl,
    ssh_url: sshUrl,
    http_url: `${webUrl}.git`,
  }
}

type ProjectHookAttrs = ReturnType<typeof projectHookAttrs>

/** The deprecated `repository` of issue, merge request and comment bodies: `hook_attrs.slice(:name, :url, :description, :homepage)`. */
export function repositoryHookAttrs(project: ProjectHookAttrs) {
  return { name: project.name, url: project.url, description: project.description, homepage: project.homepage }
}

/** GL User#hook_attrs: a private e-mail address is never shown. */
export function userHookAttrs(user: Pick<UserRow, 'id' | 'name' | 'username' | 'email' | 'public_email'>) {
  return { id: user.id, name: user.name, username: user.username, avatar_url: avatarUrlOf(user.email), email: webhookEmail(user) }
}

/** GL Label#hook_attrs: the label's columns, times as the body writes them. */
export function labelHookAttrs(label: LabelRow) {
  return {
    id: label.id,
    title: label.title,
    color: label.color,
    project_id: label.project_id,
    created_at: rubyUtc(label.created_at),
    updated_at: rubyUtc(label.updated_at),
    template: false,
    description: label.description,
    type: label.group_id === null ? 'ProjectLabel' : 'GroupLabel',
    group_id: label.group_id,
  }
}

/** GL Commit#title: the first line, cut at a word to 81 characters with "..." once it reaches 100. */
export function commitTitleOf(message: string): string {
  const full = message.trim() === '' ? 'No commit message' : message.split(/[\r\n]/, 1)[0]
  const characters = [...full]
  if (characters.length < 100) return full
  // Rails' truncate(81, separator: ' ', omission: '...'): 78 characters, back to the last space among them.
  const cut = characters.slice(0, 78).join('')
  const space = cut.lastIndexOf(' ')
  return `${space >= 0 ? cut.slice(0, space) : cut}...`
}

/** `Time#xmlschema` in the committer's own offset: '2026-11-20T10:00:00+01:00'. */
function commitTimestamp(commit: ParsedCommit): string {
  return commit.committer.date.replace(/\.\d+(?=[+-]|Z)/, '')
}

/** GL Commit#hook_attrs (without the changed files). */
export function commitHookAttrs(commit: ParsedCommit, projectWebUrl: string) {
  return {
    id: commit.oid,
    message: commit.message,
    title: commitTitleOf(commit.message),
    timestamp: commitTimestamp(commit),
    url: `${projectWebUrl}/-/commit/${commit.oid}`,
    author: { name: commit.author.name, email: commit.author.email },
  }
}

/**
 * GL Commit#repo_changes: the paths a commit added (a rename's new path too), modified and removed, against its
 * first parent, renames found as Gitaly's diffs find them.
 */
export async function commitFileChanges(directory: string, commit: ParsedCommit) {
  const base = commit.parents[0] ? [commit.parents[0], commit.oid] : ['--root', commit.oid]
  const out = await git(['diff-tree', '-r', '-z', '--no-commit-id', '--name-status', '-M', ...base], { gitDir: directory })
  const fields = out.split('\0')
  const changes = { added: [] as string[], modified: [] as string[], removed: [] as string[] }
  for (let at = 0; at < fields.length && fields[at] !== '';) {
    const status = fields[at]
    if (status.startsWith('R') || status.startsWith('C')) {
      changes.added.push(fields[at + 2])
      at += 3
      continue
    }
    const path = fields[at + 1]
    if (status === 'D') changes.removed.push(path)
    else if (status === 'A') changes.added.push(path)
    else changes.modified.push(path)
    at += 2
  }
  return changes
}

/** The commit a revision names, or null. */
export function commitAt(directory: string, revision: string): Promise<ParsedCommit | null> {
  return readCommit(directory, revision).catch(() => null)
}

const UPLOADS = /^\/?uploads/

/**
 * GL Gitlab::HookData::BaseBuilder#absolute_image_urls: images written with a relative URL (outside code blocks)
 * get the instance's URL, uploads the project's path before them.
 */
export function absoluteImageUrls(text: string | null, projectFullPath: string, externalUrl: string): string | null {
  if (!text) return text
  const image = /!\[([^\n]*?)\]\(((?:https?:\/\/|\/\/)?[^\n]+?)\)/g
  const rewrite = (part: string) =>
    part.replace(image, (whole, title: string, url: string) => {
      if (/^(?:https?:\/\/|\/\/)/.test(url)) return whole
      let path = UPLOADS.test(url) ? `${projectFullPath}/${url.replace(/^\//, '')}` : url
      if (!path.startsWith('/')) path = `/${path}`
      return `![${title}](${externalUrl}${path})`
    })
  // Fenced code blocks are left as written.
  return text
    .split(/(^```[\s\S]*?^```[^\n]*$)/m)
    .map((part, index) => (index % 2 === 1 ? part : rewrite(part)))
    .join('')
}
