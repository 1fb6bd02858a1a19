import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import type { MemberRow, NamespaceRow, ProjectRow } from '../../db/schema.js'
import { createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { expectedBasic, USER_BASIC_KEYS } from '../users/testing.js'

/** The Member entity's fields in GitLab's order, without the optional ones; read by the tests of this feature. */
export const MEMBER_KEYS = [...USER_BASIC_KEYS, 'access_level', 'created_at', 'expires_at', 'membership_state']

/** A membership as the API shows it, computed independently of the presenter. */
export function expectedMember(
  user: User,
  row: Pick<MemberRow, 'access_level' | 'created_at' | 'expires_at'>,
  baseUrl: string,
  extra: { accessLevel?: number; createdBy?: User; email?: boolean; usingSeat?: boolean } = {},
) {
  return {
    ...expectedBasic(user, baseUrl),
    access_level: extra.accessLevel ?? row.access_level,
    created_at: row.created_at,
    ...(extra.createdBy ? { created_by: expectedBasic(extra.createdBy, baseUrl) } : {}),
    expires_at: row.expires_at,
    ...(extra.email ? { email: user.email } : {}),
    ...(extra.usingSeat !== undefined ? { is_using_seat: extra.usingSeat } : {}),
    membership_state: 'active',
  }
}

/** A user with an `api` token. */
export async function createCaller(db: Db, overrides: Parameters<typeof createTestUser>[1] = {}): Promise<{ user: User; token: string }> {
  const user = await createTestUser(db, overrides)
  return { user, token: (await createTestToken(db, user)).value }
}

/** Three nested groups with a project in the lowest: top / middle / bottom / project. */
export async function createHierarchy(
  db: Db,
  visibility: 'public' | 'internal' | 'private' = 'public',
): Promise<{ top: NamespaceRow; middle: NamespaceRow; bottom: NamespaceRow; project: ProjectRow }> {
  const top = await createTestGroup(db, { visibility })
  const middle = await createTestGroup(db, { parent: top, visibility })
  const bottom = await createTestGroup(db, { parent: middle, visibility })
  const project = await createTestProject(db, { namespace: bottom, visibility })
  return { top, middle, bottom, project }
}

/** Every membership row of a user, for asserting what a refused request left behind. */
export function membershipsOf(db: Db, userId: number) {
  return db.selectFrom('members').selectAll().where('user_id', '=', userId).orderBy('id').execute()
}

/** The stored row of a membership. */
export function memberRowOf(db: Db, where: { userId: number; group?: NamespaceRow; project?: ProjectRow }) {
  let query = db.selectFrom('members').selectAll().where('user_id', '=', where.userId)
  if (where.group) query = query.where('namespace_id', '=', where.group.id)
  if (where.project) query = query.where('project_id', '=', where.project.id)
  return query.executeTakeFirst()
}
