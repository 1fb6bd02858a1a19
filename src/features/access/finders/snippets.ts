import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import { AccessLevel, FeatureAccess, Visibility } from '../../../core/access.js'
import { isAdmin, type Caller } from '../../../core/caller.js'
import type { Context } from '../../../core/context.js'
import type { Database } from '../../../db/schema.js'
import type { ProjectAccess } from '../roles.js'
import { projectsWithRoleCondition, visibleProjectsCondition } from './projects.js'

// The conditions every list of snippets applies, so that it returns only what the caller may see (GL finders).

type Eb = ExpressionBuilder<Database, 'snippets'>

/** The lowest snippet visibility a caller sees without a role (GL Gitlab::VisibilityLevel.levels_for_user). */
function lowestVisibleLevel(caller: Caller): number {
  return caller.user && caller.user.external === 0 ? Visibility.INTERNAL : Visibility.PUBLIC
}

/** Projects whose snippets the caller may read: readable, with the snippets feature available to them. */
function projectsWithReadableSnippets(ctx: Context) {
  return ctx.db
    .selectFrom('projects')
    .select('projects.id')
    .where('projects.pending_delete', '=', 0)
    .where((eb) => visibleProjectsCondition(ctx, eb))
    .where((eb) => {
      const memberOrAdmin = isAdmin(ctx.caller) ? sql<SqlBool>`1 = 1` : projectsWithRoleCondition(ctx, eb, AccessLevel.GUEST)
      return eb.or([
        eb('projects.snippets_access_level', '>=', FeatureAccess.ENABLED),
        eb.and([eb('projects.snippets_access_level', '=', FeatureAccess.PRIVATE), memberOrAdmin]),
      ])
    })
}

/** The personal snippets the caller sees: all for admins, else public, internal for those not external, and their own. */
export function visiblePersonalSnippets(ctx: Context, eb: Eb): Expression<SqlBool> {
  const personal = eb('snippets.project_id', 'is', null)
  if (isAdmin(ctx.caller)) return personal
  const seen = [eb('snippets.visibility_level', '>=', lowestVisibleLevel(ctx.caller))]
  if (ctx.caller.user) seen.push(eb('snippets.author_id', '=', ctx.caller.user.id))
  return eb.and([personal, eb.or(seen)])
}

/**
 * GL SnippetsFinder `explore` (Snippet.public_to_user, personal snippets only): every one for admins, else public
 * ones, and internal ones too for those signed in and not external; never another's private snippet.
 */
export function explorableSnippetsCondition(ctx: Context, eb: Eb): Expression<SqlBool> {
  const personal = eb('snippets.project_id', 'is', null)
  if (isAdmin(ctx.caller)) return personal
  return eb.and([personal, eb('snippets.visibility_level', '>=', lowestVisibleLevel(ctx.caller))])
}

/** The project snippets the caller sees: in projects whose snippets they may read, all for members, else by visibility. */
export function visibleProjectSnippets(ctx: Context, eb: Eb): Expression<SqlBool> {
  const inReadableProject = eb('snippets.project_id', 'in', projectsWithReadableSnippets(ctx))
  if (isAdmin(ctx.caller)) return inReadableProject
  const seen = [eb('snippets.visibility_level', '>=', lowestVisibleLevel(ctx.caller))]
  if (ctx.caller.user) {
    seen.push(eb('snippets.author_id', '=', ctx.caller.user.id))
    seen.push(
      eb(
        'snippets.project_id',
        'in',
        ctx.db
          .selectFrom('projects')
          .select('projects.id')
          .where((inner) => projectsWithRoleCondition(ctx, inner, AccessLevel.GUEST)),
      ),
    )
  }
  return eb.and([inReadableProject, eb.or(seen)])
}

/** A project's snippets the caller sees (GL SnippetsFinder with a project): all for admins and members, else by visibility. */
export function visibleSnippetsInProjectCondition(ctx: Context, eb: Eb, access: ProjectAccess): Expression<SqlBool> {
  const user = ctx.caller.user
  if (isAdmin(ctx.caller) || (user !== null && access.level >= AccessLevel.GUEST)) return sql<SqlBool>`1 = 1`
  const seen = [eb('snippets.visibility_level', '>=', lowestVisibleLevel(ctx.caller))]
  if (user) seen.push(eb('snippets.author_id', '=', user.id))
  return eb.or(seen)
}
