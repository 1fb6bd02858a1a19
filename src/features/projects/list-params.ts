import type { FastifyReply, FastifyRequest } from 'fastify'
import { isAdmin } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { offsetWindow, setColumnKeysetHeaders, setOffsetHeaders } from '../../http/pagination.js'
import { projectPresentOptions } from './index.js'
import { jsonArray } from '../../http/kept-json.js'
import { projectWithAccessJson } from './fragments.js'
import { presentBasicProject } from './present.js'
import type { ListProjectsParams } from './schemas.js'
import type { ListProjectsInput, ProjectListResult, ProjectListScope } from './list.js'

// The project list parameters (GL `collection_params`) as every project list endpoint reads them and answers them.

type FilterParams = Omit<
  ListProjectsParams,
  'order_by' | 'statistics' | 'pagination' | 'simple' | 'with_custom_attributes' | 'page' | 'per_page'
>

export function listInputOf(
  ctx: Context,
  input: FilterParams & { order_by: string; page: number; per_page: number; pagination?: string },
  scope: ProjectListScope,
  keysetAllowed: boolean,
): ListProjectsInput {
  const keyset = keysetAllowed && input.pagination === 'keyset'
  return {
    scope,
    archived: input.archived,
    visibility: input.visibility,
    search: input.search,
    searchNamespaces: input.search_namespaces,
    owned: input.owned,
    starred: input.starred,
    imported: input.imported,
    membership: input.membership,
    withIssuesEnabled: input.with_issues_enabled,
    withMergeRequestsEnabled: input.with_merge_requests_enabled,
    withProgrammingLanguage: input.with_programming_language,
    minAccessLevel: input.min_access_level,
    idAfter: input.id_after,
    idBefore: input.id_before,
    lastActivityAfter: input.last_activity_after,
    lastActivityBefore: input.last_activity_before,
    repositoryStorage: input.repository_storage,
    topics: input.topic,
    topicId: input.topic_id,
    updatedAfter: input.updated_after,
    updatedBefore: input.updated_before,
    orderBy: input.order_by as ListProjectsInput['orderBy'],
    sort: input.sort,
    // Project lists refuse offsets past the limit, as every keyset-capable type does (GL PaginationStrategies).
    pagination: keyset
      ? { kind: 'keyset', perPage: offsetWindow({ page: 1, per_page: input.per_page }, ctx.settings).perPage }
      : { kind: 'offset', ...offsetWindow(input, ctx.settings, keysetAllowed ? 'Project' : null) },
  }
}

export function setListHeaders(request: FastifyRequest, reply: FastifyReply, ctx: Context, list: ProjectListResult) {
  if (list.offset) setOffsetHeaders(request, reply, ctx.config.externalUrl, list.offset)
  else setColumnKeysetHeaders(request, reply, ctx.config.externalUrl, list.next ? { [list.next.param]: list.next.value } : null)
}

/**
 * GL `present_projects`: ProjectWithAccess, or BasicProjectDetails for `simple` and anonymous callers. The first are
 * sent as JSON bytes kept per project (fragments.ts).
 */
export function sendProjectList(
  reply: FastifyReply,
  ctx: Context,
  list: ProjectListResult,
  input: { simple: boolean; statistics: boolean; with_custom_attributes: boolean },
) {
  const options = projectPresentOptions(ctx, {
    statistics: input.statistics,
    withCustomAttributes: input.with_custom_attributes && isAdmin(ctx.caller),
  })
  if (input.simple || !ctx.caller.user) return reply.send(list.views.map((view) => presentBasicProject(view, options)))
  const entities = list.views.map((view) =>
    projectWithAccessJson(view, options, list.permissions.get(view.project.id) ?? { projectLevel: null, groupLevel: null }),
  )
  return reply.type('application/json').send(jsonArray(entities))
}
