import { sql, type Expression, type SqlBool } from 'kysely'
import { AccessLevel, Visibility } from '../../../core/access.js'
import { isAdmin } from '../../../core/caller.js'
import type { Context } from '../../../core/context.js'
import { isoDate } from '../../../core/time.js'
import { selectAuthorizedGroupIds, selectGroupIdsAboveMemberships } from '../store.js'
import type { Eb } from './projects.js'

// The conditions every list of groups applies, so that it returns only what the caller may see (GL finders).

/** The groups a caller may see, as a condition on a query over `namespaces` (or the alias given). */
export function visibleGroupsCondition(ctx: Context, eb: Eb, alias = 'namespaces'): Expression<SqlBool> {
  const caller = ctx.caller
  if (isAdmin(caller)) return sql<SqlBool>`1 = 1`
  const visibility = sql.ref(`${alias}.visibility_level`)
  if (!caller.user) return eb(visibility, '>=', Visibility.PUBLIC)
  const minimum = caller.user.external ? Visibility.PUBLIC : Visibility.INTERNAL
  return eb.or([eb(visibility, '>=', minimum), memberGroupsCondition(ctx, eb, alias)])
}

/**
 * The groups the caller belongs to (directly or through a group above) and the groups above anything they
 * belong to, whatever their visibility: GitLab's `authorized_groups.self_and_ancestors` (GroupsFinder).
 */
export function memberGroupsCondition(ctx: Context, eb: Eb, alias = 'namespaces'): Expression<SqlBool> {
  const user = ctx.caller.user
  if (!user) return sql<SqlBool>`1 = 0`
  const id = sql.ref(`${alias}.id`)
  return eb.or([
    eb(id, 'in', selectAuthorizedGroupIds(ctx.db, user.id, AccessLevel.MINIMAL_ACCESS, isoDate(ctx.now()))),
    eb(id, 'in', selectGroupIdsAboveMemberships(ctx.db, user.id, isoDate(ctx.now()))),
  ])
}

export function groupsWithRoleCondition(ctx: Context, eb: Eb, minLevel: number, alias = 'namespaces'): Expression<SqlBool> {
  const user = ctx.caller.user
  if (!user) return sql<SqlBool>`1 = 0`
  return eb(sql.ref(`${alias}.id`), 'in', selectAuthorizedGroupIds(ctx.db, user.id, minLevel, isoDate(ctx.now())))
}
