import { AccessLevel, canRead } from '../../../core/access.js'
import { isAdmin } from '../../../core/caller.js'
import type { NoteRow, ProjectRow } from '../../../db/schema.js'
import type { ProjectAccess } from '../roles.js'

/** What the rules need of the issue or merge request a note is on. */
export interface NoteableFacts {
  discussionLocked: boolean
}

/** GL IssuablePolicy `is_project_member`: any role in the project, Guest and up. */
function isProjectMember(access: ProjectAccess): boolean {
  return access.caller.user !== null && access.level >= AccessLevel.GUEST
}

/** GL NotePolicy `can_read_internal_note` / ProjectPolicy `read_internal_note`: Reporter and up, and administrators. */
export function canReadInternalNotes(access: ProjectAccess): boolean {
  if (!access.caller.user) return false
  return isAdmin(access.caller) || access.level >= AccessLevel.REPORTER
}

/** GL NotePolicy `read_note` on a note of a readable noteable: internal notes only for Reporter and up. */
export function canReadNote(access: ProjectAccess, note: Pick<NoteRow, 'internal'>): boolean {
  return note.internal !== 1 || canReadInternalNotes(access)
}

/**
 * GL `create_note` on a readable issue or merge request: a signed-in caller who can see the project (ProjectPolicy
 * `guest_access`), not on an archived project, and only members while the discussion is locked (IssuablePolicy).
 */
export function canCreateNote(access: ProjectAccess, project: ProjectRow, noteable: NoteableFacts): boolean {
  if (!access.caller.user || !canRead(access) || project.archived === 1) return false
  return !noteable.discussionLocked || isProjectMember(access)
}

/**
 * GL NotePolicy `admin_note` (edit and delete): the author or a Maintainer (and administrators); never a system
 * note, an internal note the caller may not read, a note of an archived project, or a locked discussion for non-members.
 */
export function canAdminNote(access: ProjectAccess, project: ProjectRow, noteable: NoteableFacts, note: NoteRow): boolean {
  const user = access.caller.user
  if (!user || note.system === 1 || !canReadNote(access, note) || project.archived === 1) return false
  if (noteable.discussionLocked && !isProjectMember(access)) return false
  return note.author_id === user.id || isAdmin(access.caller) || access.level >= AccessLevel.MAINTAINER
}

/** GL ProjectPolicy `set_note_created_at`: Owners of the project and administrators. */
export function canSetNoteCreatedAt(access: ProjectAccess): boolean {
  return isAdmin(access.caller) || (access.caller.user !== null && access.level >= AccessLevel.OWNER)
}

/** GL Discussion#can_resolve?: the merge request's author, or a Developer (ProjectPolicy `resolve_note`) and administrators. */
export function canResolveDiscussion(access: ProjectAccess, project: ProjectRow, noteableAuthorId: number): boolean {
  const user = access.caller.user
  if (!user || project.archived === 1) return false
  return user.id === noteableAuthorId || isAdmin(access.caller) || access.level >= AccessLevel.DEVELOPER
}
