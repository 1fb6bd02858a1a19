import { AccessLevel, canRead, meets, Visibility } from '../../../core/access.js'
import { isAdmin, type Caller } from '../../../core/caller.js'
import type { SnippetRow } from '../../../db/schema.js'
import type { LoadedProject } from '../loaders.js'
import { isFeatureAvailable } from './project.js'

function isAuthor(caller: Caller, snippet: SnippetRow): boolean {
  return caller.user !== null && caller.user.id === snippet.author_id
}

/** The snippet visibility levels a user sees without a role (GL Gitlab::VisibilityLevel.levels_for_user). */
function visibleWithoutRole(caller: Caller, snippet: SnippetRow): boolean {
  if (snippet.visibility_level >= Visibility.PUBLIC) return true
  return snippet.visibility_level >= Visibility.INTERNAL && caller.user !== null && caller.user.external === 0
}

/** GL ProjectPolicy `read_snippet` on the project: it is readable and its snippets feature is available to the caller. */
export function canReadProjectSnippets(loaded: LoadedProject): boolean {
  return canRead(loaded.access) && isFeatureAvailable(loaded.access, loaded.project, 'snippets')
}

/**
 * GL PersonalSnippetPolicy / ProjectSnippetPolicy `read_snippet`, as SnippetsFinder applies it: admins and authors
 * see a snippet, members of its project see all of the project's, others see it by its visibility.
 */
export function canReadSnippet(caller: Caller, snippet: SnippetRow, project: LoadedProject | null): boolean {
  if (project === null) return isAdmin(caller) || isAuthor(caller, snippet) || visibleWithoutRole(caller, snippet)
  if (!canReadProjectSnippets(project)) return false
  if (isAdmin(caller) || isAuthor(caller, snippet)) return true
  if (caller.user !== null && project.access.level >= AccessLevel.GUEST) return true
  return visibleWithoutRole(caller, snippet)
}

/** A Maintainer manages the project's snippets, except internal ones they did not write (GL ProjectSnippetPolicy). */
function maintainsSnippet(caller: Caller, snippet: SnippetRow, project: LoadedProject | null): boolean {
  if (project === null || snippet.visibility_level === Visibility.INTERNAL) return false
  return caller.user !== null && project.access.level >= AccessLevel.MAINTAINER
}

/** An archived project is read-only: its snippets are neither written nor deleted (GL ProjectPolicy `archived`). */
function isArchived(project: LoadedProject | null): boolean {
  return project !== null && project.project.archived === 1
}

/** GL `update_snippet`: its author, an admin, or a Maintainer of its project. */
export function canUpdateSnippet(caller: Caller, snippet: SnippetRow, project: LoadedProject | null): boolean {
  if (!canReadSnippet(caller, snippet, project) || isArchived(project)) return false
  return isAdmin(caller) || isAuthor(caller, snippet) || maintainsSnippet(caller, snippet, project)
}

/** GL `admin_snippet` (delete): as update, but the author of a project snippet must still be a Reporter there. */
export function canAdminSnippet(caller: Caller, snippet: SnippetRow, project: LoadedProject | null): boolean {
  if (!canReadSnippet(caller, snippet, project) || isArchived(project)) return false
  if (isAdmin(caller) || maintainsSnippet(caller, snippet, project)) return true
  if (!isAuthor(caller, snippet)) return false
  return project === null || project.access.level >= AccessLevel.REPORTER
}

/** GL GlobalPolicy `create_snippet`: any signed-in user who is not external. */
export function canCreatePersonalSnippet(caller: Caller): boolean {
  return caller.user !== null && caller.user.external === 0
}

/** GL ProjectPolicy `create_snippet`: Reporter and up, with the snippets feature available. */
export function canCreateProjectSnippet(project: LoadedProject): boolean {
  if (isArchived(project) || project.access.caller.user === null) return false
  return canReadProjectSnippets(project) && meets(project.access, { level: AccessLevel.REPORTER })
}
