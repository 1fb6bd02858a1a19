import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import { AccessLevel, FeatureAccess, Visibility } from '../../../core/access.js'
import { isAdmin } from '../../../core/caller.js'
import type { Context } from '../../../core/context.js'
import { isoDate } from '../../../core/time.js'
import type { Database } from '../../../db/schema.js'
import { authorizedProjectsCondition } from '../store.js'

// The conditions every list of projects applies, so that it returns only what the caller may see (GL finders).

// Lists join projects and namespaces under aliases, so the builder's table set varies by query.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Eb = ExpressionBuilder<Database, any>

/**
 * The projects a caller may see, as a condition on a query over `projects` (or the alias given):
 * public ones, internal ones for signed-in users who are not external, and those they have a role in.
 */
export function visibleProjectsCondition(ctx: Context, eb: Eb, alias = 'projects'): Expression<SqlBool> {
  const caller = ctx.caller
  if (isAdmin(caller)) return sql<SqlBool>`1 = 1`
  const visibility = sql.ref(`${alias}.visibility_level`)
  if (!caller.user) return eb(visibility, '>=', Visibility.PUBLIC)
  const minimum = caller.user.external ? Visibility.PUBLIC : Visibility.INTERNAL
  return eb.or([
    eb(visibility, '>=', minimum),
    authorizedProjectsCondition(ctx.db, eb, alias, caller.user.id, AccessLevel.GUEST, isoDate(ctx.now())),
  ])
}

/** The condition for "the caller has at least `minLevel` here" (min_access_level filters). */
export function projectsWithRoleCondition(ctx: Context, eb: Eb, minLevel: number, alias = 'projects'): Expression<SqlBool> {
  const user = ctx.caller.user
  if (!user) return sql<SqlBool>`1 = 0`
  return authorizedProjectsCondition(ctx.db, eb, alias, user.id, minLevel, isoDate(ctx.now()))
}

/** GL `with_feature_available_for_user`: open features, and private ones for members with the feature's role. */
export function featureAvailableCondition(
  ctx: Context,
  eb: Eb,
  column: 'issues_access_level' | 'merge_requests_access_level',
  minLevel: number,
): Expression<SqlBool> {
  if (isAdmin(ctx.caller)) return eb(`projects.${column}`, '>', FeatureAccess.DISABLED)
  if (!ctx.caller.user) return eb(`projects.${column}`, '>=', FeatureAccess.ENABLED)
  return eb.or([
    eb(`projects.${column}`, '>=', FeatureAccess.ENABLED),
    eb.and([eb(`projects.${column}`, '=', FeatureAccess.PRIVATE), projectsWithRoleCondition(ctx, eb, minLevel)]),
  ])
}
