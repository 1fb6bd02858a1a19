import { sql, type Expression, type SqlBool } from 'kysely'
import { AccessLevel, FeatureAccess, Visibility } from '../../../core/access.js'
import { isAdmin } from '../../../core/caller.js'
import type { Context } from '../../../core/context.js'
import { projectsWithRoleCondition, visibleProjectsCondition, type Eb } from './projects.js'

// The conditions every list of issues and merge requests applies, so that it returns only what the caller may see (GL finders).

/**
 * Projects whose issues (or merge requests) the caller may read, as a condition on the `projects` alias:
 * the project is visible and its feature is available (GL ProjectFeature#feature_available?).
 */
function readableFeatureCondition(ctx: Context, eb: Eb, feature: 'issues' | 'merge_requests'): Expression<SqlBool> {
  const level = sql.ref(`projects.${feature}_access_level`)
  const visible = visibleProjectsCondition(ctx, eb, 'projects')
  const repository = sql.ref('projects.repository_access_level')
  if (isAdmin(ctx.caller)) {
    const enabled = eb(level, '>', FeatureAccess.DISABLED)
    return feature === 'merge_requests' ? eb.and([enabled, eb(repository, '>', FeatureAccess.DISABLED)]) : enabled
  }
  if (!ctx.caller.user) {
    const open = [visible, eb(level, '>=', FeatureAccess.ENABLED)]
    if (feature === 'merge_requests') open.push(eb(repository, '>=', FeatureAccess.ENABLED))
    return eb.and(open)
  }
  const memberLevel = feature === 'merge_requests' ? AccessLevel.REPORTER : AccessLevel.GUEST
  const conditions = [
    visible,
    eb.or([
      eb(level, '>=', FeatureAccess.ENABLED),
      eb.and([eb(level, '=', FeatureAccess.PRIVATE), projectsWithRoleCondition(ctx, eb, memberLevel, 'projects')]),
    ]),
  ]
  if (feature === 'merge_requests') conditions.push(readableCodeCondition(ctx, eb))
  return eb.and(conditions)
}

/** The caller may read the code (GL `read_code`, as projects/policy.ts canReadCode): merge requests need it too. */
function readableCodeCondition(ctx: Context, eb: Eb): Expression<SqlBool> {
  const repository = sql.ref('projects.repository_access_level')
  const notPrivate = eb('projects.visibility_level', '>', Visibility.PRIVATE)
  return eb.and([
    eb(repository, '>', FeatureAccess.DISABLED),
    eb.or([
      eb.and([
        notPrivate,
        eb.or([eb(repository, '>=', FeatureAccess.ENABLED), projectsWithRoleCondition(ctx, eb, AccessLevel.GUEST, 'projects')]),
      ]),
      projectsWithRoleCondition(ctx, eb, AccessLevel.REPORTER, 'projects'),
    ]),
  ])
}

/**
 * GL IssuesFinder: issues of projects whose issues the caller may read, as a condition on `issues` joined with
 * `projects`; confidential ones only for their author, assignees, Planners, Reporters and up, and administrators
 * (`with_confidentiality_access_check`).
 */
export function readableIssuesCondition(ctx: Context, eb: Eb): Expression<SqlBool> {
  const readable = readableFeatureCondition(ctx, eb, 'issues')
  if (isAdmin(ctx.caller)) return readable
  const user = ctx.caller.user
  const confidentialityCheck = user
    ? eb.or([
        eb('issues.confidential', '=', 0),
        eb('issues.author_id', '=', user.id),
        sql<SqlBool>`exists (select 1 from issue_assignees a where a.issue_id = issues.id and a.user_id = ${user.id})`,
        projectsWithRoleCondition(ctx, eb, AccessLevel.PLANNER, 'projects'),
      ])
    : eb('issues.confidential', '=', 0)
  return eb.and([readable, confidentialityCheck])
}

/** GL MergeRequestsFinder: merge requests of projects whose merge requests and code the caller may read. */
export function readableMergeRequestsCondition(ctx: Context, eb: Eb): Expression<SqlBool> {
  return readableFeatureCondition(ctx, eb, 'merge_requests')
}
