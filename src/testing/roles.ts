import type { User } from '../core/caller.js'
import type { Db } from '../db/index.js'
import type { NamespaceRow, ProjectRow } from '../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from './factories.js'

/** GitLab's member roles and their access levels (GL Gitlab::Access). */
export const ROLE_ACCESS_LEVELS = { guest: 10, planner: 15, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const
export type RoleName = keyof typeof ROLE_ACCESS_LEVELS

/** A user and the value of their `api` token, as a client calls with it. */
export interface Person {
  user: User
  token: string
}

/** A new user with an `api` token. */
export async function createPerson(db: Db, overrides: Parameters<typeof createTestUser>[1] = {}): Promise<Person> {
  const user = await createTestUser(db, overrides)
  return { user, token: (await createTestToken(db, user)).value }
}

export type ProjectTeam<R extends RoleName> = Record<R, Person> & { group: NamespaceRow; project: ProjectRow; outsider: Person }

/**
 * A project in a new group, both of `visibility`, with one direct project member per role in `roles` (created in
 * that order) and, last, an outsider who is no member.
 */
export async function createProjectTeam<R extends RoleName>(
  db: Db,
  options: { roles: readonly R[]; visibility?: 'public' | 'internal' | 'private' },
): Promise<ProjectTeam<R>> {
  const visibility = options.visibility ?? 'public'
  const group = await createTestGroup(db, { visibility })
  const project = await createTestProject(db, { namespace: group, visibility })
  const people = await addProjectMembersByRole(db, project, options.roles)
  return { ...people, group, project, outsider: await createPerson(db) }
}

/** One new person per role in `roles` (created in that order), each a direct member of `project` with that role. */
export async function addProjectMembersByRole<R extends RoleName>(
  db: Db,
  project: ProjectRow,
  roles: readonly R[],
): Promise<Record<R, Person>> {
  const people = {} as Record<R, Person>
  for (const role of roles) {
    people[role] = await createPerson(db)
    await addTestMember(db, { user: people[role].user, project, accessLevel: ROLE_ACCESS_LEVELS[role] })
  }
  return people
}
