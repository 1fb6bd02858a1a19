import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import type { EventRow, IssueRow, MergeRequestRow, NoteRow, ProjectRow } from '../../db/schema.js'
import { EventAction, type EventActionName, type EventTargetType } from '../../core/event-actions.js'

/** A comment on an issue or a merge request, for tests of note events. */
export function createTestNote(
  db: Db,
  options: {
    issue?: IssueRow
    mergeRequest?: MergeRequestRow
    author: Pick<User, 'id'>
    body?: string
    internal?: boolean
    createdAt?: Date
  },
): Promise<NoteRow> {
  const at = (options.createdAt ?? new Date()).toISOString()
  const noteable = options.issue ?? options.mergeRequest
  if (!noteable) throw new Error('createTestNote needs an issue or a merge request')
  return db
    .insertInto('notes')
    .values({
      project_id: noteable.project_id,
      issue_id: options.issue?.id ?? null,
      merge_request_id: options.mergeRequest?.id ?? null,
      author_id: options.author.id,
      body: options.body ?? 'A comment',
      internal: options.internal ? 1 : 0,
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** An event as the features that act record it. */
export function createTestEvent(
  db: Db,
  options: {
    project: Pick<ProjectRow, 'id'> | null
    author: Pick<User, 'id'>
    action: EventActionName
    target?: { type: EventTargetType; id: number } | null
    createdAt?: Date
  },
): Promise<EventRow> {
  return db
    .insertInto('events')
    .values({
      project_id: options.project?.id ?? null,
      author_id: options.author.id,
      action: EventAction[options.action],
      target_type: options.target?.type ?? null,
      target_id: options.target?.id ?? null,
      created_at: (options.createdAt ?? new Date()).toISOString(),
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** Many project-creation-like events at once, oldest first, for tests of large lists and retention. */
export async function createManyTestEvents(
  db: Db,
  options: { project: Pick<ProjectRow, 'id'>; author: Pick<User, 'id'>; count: number; createdAt?: Date },
): Promise<void> {
  const at = (options.createdAt ?? new Date()).toISOString()
  for (let start = 0; start < options.count; start += 500) {
    const rows = Array.from({ length: Math.min(500, options.count - start) }, () => ({
      project_id: options.project.id,
      author_id: options.author.id,
      action: EventAction.joined,
      target_type: null,
      target_id: null,
      created_at: at,
    }))
    await db.insertInto('events').values(rows).execute()
  }
}

export function findEventRows(db: Db, projectId: number): Promise<EventRow[]> {
  return db.selectFrom('events').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
}

/** Sets a project feature's access level (0 disabled, 10 private, 20 enabled). */
export async function setFeatureLevel(db: Db, project: ProjectRow, feature: 'issues' | 'merge_requests' | 'repository', level: number) {
  await db
    .updateTable('projects')
    .set({ [`${feature}_access_level`]: level })
    .where('id', '=', project.id)
    .execute()
}

export async function setPrivateProfile(db: Db, user: Pick<User, 'id'>) {
  await db.updateTable('users').set({ private_profile: 1 }).where('id', '=', user.id).execute()
}

/** The events recorded in a project, oldest first. */
export function eventsOfProject(db: Db, projectId: number) {
  return db
    .selectFrom('events')
    .select(['project_id', 'author_id', 'action', 'target_type', 'target_id', 'created_at'])
    .where('project_id', '=', projectId)
    .orderBy('id')
    .execute()
}
