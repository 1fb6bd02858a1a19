import { authorizeAdmin, isAdmin } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { NotFound, ParamError } from '../../core/errors.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { findUserByIdOrUsername, presentUserBasic, type PresentOptions } from '../users/index.js'
import { createInputOf, updateInputOf } from './attributes.js'
import { projectPresentOptions } from './index.js'
import { listInputOf, sendProjectList, setListHeaders } from './list-params.js'
import { projectWithAccessJson } from './fragments.js'
import { presentBasicProject, presentProject, presentProjectDetails } from './present.js'
import {
  CreateProjectParams,
  CreateUserProjectParams,
  DeleteProjectParams,
  ListGroupProjectsParams,
  ListProjectsParams,
  ListUserProjectsParams,
  ProjectIdParams,
  ProjectListResponse,
  ProjectResponse,
  ProjectUsersParams,
  ProjectUsersResponse,
  ShowProjectParams,
  StarrersParams,
  StarrersResponse,
  TransferProjectParams,
  UPDATE_AT_LEAST_ONE_OF,
  UpdateProjectParams,
} from './schemas.js'
import { createProject } from './create.js'
import { deleteProject, setArchived, transferProject, updateProject } from './update.js'
import { listProjects, type ProjectListScope } from './list.js'
import { listProjectUsers } from './people.js'
import { listStarrers, starProject, unstarProject } from './stars.js'
import { viewOfLoaded } from './views.js'
import { unmodifiedSinceOf } from '../../http/params.js'
import { findGroup, findProject } from '../access/index.js'

const PROJECT = '/projects/:id'

function userOptions(ctx: Context): PresentOptions {
  return { viewer: ctx.caller, externalUrl: ctx.config.externalUrl, now: ctx.now() }
}

export function registerProjectRoutes(api: ApiRouter) {
  api.get(
    '/projects',
    { params: ListProjectsParams, authenticated: false, response: { 200: ProjectListResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      const list = await listProjects(ctx, { ...listInputOf(ctx, input, { kind: 'all' }, true), pairUpdatedAt: true })
      setListHeaders(request, reply, ctx, list)
      return sendProjectList(reply, ctx, list, input)
    },
  )

  api.get(
    '/users/:user_id/projects',
    { params: ListUserProjectsParams, authenticated: false, response: { 200: ProjectListResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      const user = await findUserByIdOrUsername(ctx.db, input.user_id)
      if (!user) throw new NotFound('User')
      const list = await listProjects(ctx, listInputOf(ctx, input, { kind: 'user', user }, true))
      setListHeaders(request, reply, ctx, list)
      return sendProjectList(reply, ctx, list, input)
    },
  )

  api.get(
    '/groups/:id/projects',
    { params: ListGroupProjectsParams, authenticated: false, response: { 200: ProjectListResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      const { group } = await findGroup(ctx, input.id)
      const scope: ProjectListScope = {
        kind: 'group',
        group,
        includeSubgroups: input.include_subgroups,
        includeAncestors: input.include_ancestor_groups,
      }
      const list = await listProjects(ctx, listInputOf(ctx, input, scope, false))
      setListHeaders(request, reply, ctx, list)
      const options = projectPresentOptions(ctx, { withCustomAttributes: input.with_custom_attributes && isAdmin(ctx.caller) })
      // GL groups.rb `present_projects`: the Project entity, or BasicProjectDetails for `simple`.
      return list.views.map((view) => (input.simple ? presentBasicProject(view, options) : presentProject(view, options)))
    },
  )

  api.post('/projects', { params: CreateProjectParams, response: { 201: ProjectResponse } }, async (request, reply) => {
    const { ctx, input } = request
    if (input.name === undefined && input.path === undefined) {
      throw new ParamError('name, path are missing, at least one parameter must be provided')
    }
    const exclusive = (['import_url', 'template_name', 'template_project_id'] as const).filter((k) => input[k] !== undefined)
    if (exclusive.length > 1) throw new ParamError(`${exclusive.join(', ')} are mutually exclusive`)
    const view = await createProject(ctx, createInputOf(input))
    return reply.code(201).send(presentProject(view, projectPresentOptions(ctx)))
  })

  api.post('/projects/user/:user_id', { params: CreateUserProjectParams, response: { 201: ProjectResponse } }, async (request, reply) => {
    const { ctx, input } = request
    const exclusive = (['import_url', 'template_name', 'template_project_id'] as const).filter((k) => input[k] !== undefined)
    if (exclusive.length > 1) throw new ParamError(`${exclusive.join(', ')} are mutually exclusive`)
    authorizeAdmin(ctx.caller)
    const user = await findUserByIdOrUsername(ctx.db, String(input.user_id))
    if (!user) throw new NotFound('User')
    const view = await createProject(ctx, createInputOf(input), user)
    return reply.code(201).send(presentProject(view, projectPresentOptions(ctx)))
  })

  api.get(PROJECT, { params: ShowProjectParams, authenticated: false, response: { 200: ProjectResponse } }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    const view = await viewOfLoaded(ctx, loaded)
    const options = projectPresentOptions(ctx, {
      statistics: input.statistics,
      withCustomAttributes: input.with_custom_attributes && isAdmin(ctx.caller),
    })
    // GL projects.rb: ProjectWithAccess for signed-in callers (roles over the whole group tree), ProjectDetails otherwise.
    if (!ctx.caller.user) return presentProjectDetails(view, options)
    const permissions = { projectLevel: loaded.access.projectLevel, groupLevel: loaded.access.groupLevel }
    return reply.type('application/json').send(projectWithAccessJson(view, options, permissions))
  })

  api.put(PROJECT, { params: UpdateProjectParams, response: { 200: ProjectResponse } }, async (request) => {
    const { ctx, input } = request
    if (!UPDATE_AT_LEAST_ONE_OF.some((name) => (input as Record<string, unknown>)[name] !== undefined)) {
      throw new ParamError(`${UPDATE_AT_LEAST_ONE_OF.join(', ')} are missing, at least one parameter must be provided`)
    }
    const loaded = await findProject(ctx, input.id)
    const view = await updateProject(ctx, loaded, updateInputOf(input))
    return presentProject(view, projectPresentOptions(ctx))
  })

  api.put(`${PROJECT}/transfer`, { params: TransferProjectParams, response: { 200: ProjectResponse } }, async (request) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    const view = await transferProject(ctx, loaded, input.namespace)
    return presentProject(view, projectPresentOptions(ctx))
  })

  api.delete(PROJECT, { params: DeleteProjectParams }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    await deleteProject(ctx, loaded, unmodifiedSinceOf(request.headers['if-unmodified-since']))
    return reply.code(202).type('application/json').send('{"message":"202 Accepted"}')
  })

  for (const [action, archived] of [
    ['archive', true],
    ['unarchive', false],
  ] as const) {
    api.post(`${PROJECT}/${action}`, { params: ProjectIdParams, response: { 201: ProjectResponse } }, async (request, reply) => {
      const { ctx, input } = request
      const view = await setArchived(ctx, await findProject(ctx, input.id), archived)
      return reply.code(201).send(presentProject(view, projectPresentOptions(ctx)))
    })
  }

  for (const [action, change] of [
    ['star', starProject],
    ['unstar', unstarProject],
  ] as const) {
    api.post(`${PROJECT}/${action}`, { params: ProjectIdParams, response: { 201: ProjectResponse } }, async (request, reply) => {
      const { ctx, input } = request
      const view = await change(ctx, await findProject(ctx, input.id))
      // Already in the asked state: 304 without a body (GL `not_modified!`).
      if (!view) return reply.code(304).send()
      return reply.code(201).send(presentProject(view, projectPresentOptions(ctx)))
    })
  }

  api.get(
    `${PROJECT}/starrers`,
    { params: StarrersParams, authenticated: false, response: { 200: StarrersResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const loaded = await findProject(ctx, input.id)
      const starrers = await listStarrers(ctx, loaded, { search: input.search, page, perPage })
      setOffsetHeaders(request, reply, ctx.config.externalUrl, starrers)
      const options = userOptions(ctx)
      return starrers.rows.map((s) => ({ starred_since: s.starredSince, user: presentUserBasic(s.user, options) }))
    },
  )

  api.get(
    `${PROJECT}/users`,
    { params: ProjectUsersParams, authenticated: false, response: { 200: ProjectUsersResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const loaded = await findProject(ctx, input.id)
      const users = await listProjectUsers(ctx, loaded, { search: input.search, skipUsers: input.skip_users, page, perPage })
      setOffsetHeaders(request, reply, ctx.config.externalUrl, users)
      const options = userOptions(ctx)
      return users.rows.map((user) => presentUserBasic(user, options))
    },
  )
}
