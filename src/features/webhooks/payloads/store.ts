import type { Db } from '../../../db/index.js'

// What the system, member and alert hook bodies read, in the change's transaction.

/** The user columns hook bodies show. */
export function findHookUser(db: Db, id: number) {
  return db
    .selectFrom('users')
    .select(['id', 'name', 'username', 'email', 'public_email', 'state', 'created_at', 'updated_at'])
    .where('id', '=', id)
    .executeTakeFirst()
}

export type HookUser = NonNullable<Awaited<ReturnType<typeof findHookUser>>>

/** A user's direct membership of a project or a group. */
export function findMembership(db: Db, source: { type: 'project' | 'group'; id: number }, userId: number) {
  return db
    .selectFrom('members')
    .select(['access_level', 'expires_at', 'created_at', 'updated_at'])
    .where(source.type === 'project' ? 'project_id' : 'namespace_id', '=', source.id)
    .where('user_id', '=', userId)
    .executeTakeFirst()
}

/**
 * The users holding the Owner role directly: of a group in membership order, or of a project by user id. Expired
 * memberships count for nothing (GitLab removes them).
 */
export function findDirectOwners(db: Db, source: { type: 'project' | 'group'; id: number }, today: string) {
  return db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.name', 'u.public_email'])
    .where(source.type === 'project' ? 'm.project_id' : 'm.namespace_id', '=', source.id)
    .where('m.access_level', '=', 50)
    .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>', today)]))
    .orderBy(source.type === 'project' ? 'u.id' : 'm.id')
    .execute()
}

/** The alert columns the alert hook shows. */
export function findHookAlert(db: Db, id: number) {
  return db
    .selectFrom('alerts')
    .select(['id', 'project_id', 'iid', 'title', 'severity', 'status', 'events', 'started_at'])
    .where('id', '=', id)
    .executeTakeFirst()
}
