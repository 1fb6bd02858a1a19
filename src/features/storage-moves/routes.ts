import type { FastifyRequest } from 'fastify'
import { tierIncludes } from '../../core/access.js'
import { RouteNotFound } from '../../core/errors.js'
import type { RepositoryStorageMoveRow } from '../../db/schema.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import { adminOnly, type ApiRouter } from '../../http/route.js'
import { findSnippet } from '../snippets/index.js'
import { presentGroupMove, presentProjectMove, presentSnippetMove } from './present.js'
import {
  AcceptedJson,
  BulkScheduleParams,
  GroupMoveJson,
  GroupMoveListJson,
  ListContainerMovesParams,
  ListMovesParams,
  ProjectMoveJson,
  ProjectMoveListJson,
  ScheduleContainerMoveParams,
  ShowContainerMoveParams,
  ShowMoveParams,
  SnippetMoveJson,
  SnippetMoveListJson,
} from './schemas.js'
import {
  containerIdOf,
  groupsOfMoves,
  listStorageMoves,
  projectsOfMoves,
  scheduleBulkStorageMoves,
  scheduleStorageMove,
  showStorageMove,
  snippetsOfMoves,
} from './service.js'
import { findGroup, findProject } from '../access/index.js'

/** GL ee group_repository_storage_moves.rb exists only on Premium and Ultimate; elsewhere its routes are unknown. */
function premiumAdminOnly(request: FastifyRequest) {
  if (!tierIncludes(request.ctx.config.tier, 'premium')) throw new RouteNotFound()
  adminOnly(request)
}

const admin = { before: adminOnly }
const premiumAdmin = { before: premiumAdminOnly, authenticated: false }
const accepted = { message: '202 Accepted' }

/** Repository storage moves of projects, snippets and groups (GL lib/api/*_repository_storage_moves.rb); administrators only. */
export function registerStorageMoveRoutes(api: ApiRouter): void {
  async function presentProjectMoves(request: FastifyRequest, moves: RepositoryStorageMoveRow[]) {
    const projects = await projectsOfMoves(request.ctx, moves)
    return moves.map((move) => presentProjectMove(move, projects.get(containerIdOf(move))!))
  }
  async function presentGroupMoves(request: FastifyRequest, moves: RepositoryStorageMoveRow[]) {
    const groups = await groupsOfMoves(request.ctx, moves)
    return moves.map((move) => presentGroupMove(move, groups.get(containerIdOf(move))!, request.ctx.config.externalUrl))
  }

  // Projects.
  api.get(
    '/project_repository_storage_moves',
    { ...admin, params: ListMovesParams, response: { 200: ProjectMoveListJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const page = await listStorageMoves(ctx, 'project', null, offsetWindow(input, ctx.settings))
      setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
      return presentProjectMoves(request, page.rows)
    },
  )
  api.get(
    '/project_repository_storage_moves/:repository_storage_move_id',
    { ...admin, params: ShowMoveParams, response: { 200: ProjectMoveJson } },
    async (request) => {
      const move = await showStorageMove(request.ctx, 'project', request.input.repository_storage_move_id, null)
      return (await presentProjectMoves(request, [move]))[0]
    },
  )
  api.post(
    '/project_repository_storage_moves',
    { ...admin, params: BulkScheduleParams, response: { 202: AcceptedJson } },
    async (request, reply) => {
      const { ctx, input } = request
      await scheduleBulkStorageMoves(ctx, 'project', input.source_storage_name, input.destination_storage_name)
      return reply.code(202).send(accepted)
    },
  )
  api.get(
    '/projects/:id/repository_storage_moves',
    { ...admin, params: ListContainerMovesParams, response: { 200: ProjectMoveListJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const { project } = await findProject(ctx, input.id)
      const page = await listStorageMoves(ctx, 'project', project.id, offsetWindow(input, ctx.settings))
      setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
      return page.rows.map((move) => presentProjectMove(move, project))
    },
  )
  api.get(
    '/projects/:id/repository_storage_moves/:repository_storage_move_id',
    { ...admin, params: ShowContainerMoveParams, response: { 200: ProjectMoveJson } },
    async (request) => {
      const { ctx, input } = request
      const { project } = await findProject(ctx, input.id)
      return presentProjectMove(await showStorageMove(ctx, 'project', input.repository_storage_move_id, project.id), project)
    },
  )
  api.post(
    '/projects/:id/repository_storage_moves',
    { ...admin, params: ScheduleContainerMoveParams, response: { 201: ProjectMoveJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const { project } = await findProject(ctx, input.id)
      const move = await scheduleStorageMove(ctx, 'project', project.id, input.destination_storage_name)
      return reply.code(201).send(presentProjectMove(move, project))
    },
  )

  // Snippets.
  async function presentSnippetMoves(request: FastifyRequest, moves: RepositoryStorageMoveRow[]) {
    const snippets = await snippetsOfMoves(request.ctx, moves)
    return moves.map((move) => presentSnippetMove(move, snippets.get(containerIdOf(move))!))
  }
  api.get(
    '/snippet_repository_storage_moves',
    { ...admin, params: ListMovesParams, response: { 200: SnippetMoveListJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const page = await listStorageMoves(ctx, 'snippet', null, offsetWindow(input, ctx.settings))
      setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
      return presentSnippetMoves(request, page.rows)
    },
  )
  api.get(
    '/snippet_repository_storage_moves/:repository_storage_move_id',
    { ...admin, params: ShowMoveParams, response: { 200: SnippetMoveJson } },
    async (request) => {
      const move = await showStorageMove(request.ctx, 'snippet', request.input.repository_storage_move_id, null)
      return (await presentSnippetMoves(request, [move]))[0]
    },
  )
  api.post(
    '/snippet_repository_storage_moves',
    { ...admin, params: BulkScheduleParams, response: { 202: AcceptedJson } },
    async (request, reply) => {
      const { ctx, input } = request
      await scheduleBulkStorageMoves(ctx, 'snippet', input.source_storage_name, input.destination_storage_name)
      return reply.code(202).send(accepted)
    },
  )
  // GL snippet_repository_storage_moves.rb `user_snippet`: any snippet by id, else 404 Snippet Not Found.
  api.get(
    '/snippets/:id/repository_storage_moves',
    { ...admin, params: ListContainerMovesParams, response: { 200: SnippetMoveListJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const { snippet } = await findSnippet(ctx, input.id)
      const page = await listStorageMoves(ctx, 'snippet', snippet.id, offsetWindow(input, ctx.settings))
      setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
      return presentSnippetMoves(request, page.rows)
    },
  )
  api.get(
    '/snippets/:id/repository_storage_moves/:repository_storage_move_id',
    { ...admin, params: ShowContainerMoveParams, response: { 200: SnippetMoveJson } },
    async (request) => {
      const { ctx, input } = request
      const { snippet } = await findSnippet(ctx, input.id)
      const move = await showStorageMove(ctx, 'snippet', input.repository_storage_move_id, snippet.id)
      return (await presentSnippetMoves(request, [move]))[0]
    },
  )
  api.post(
    '/snippets/:id/repository_storage_moves',
    { ...admin, params: ScheduleContainerMoveParams, response: { 201: SnippetMoveJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const { snippet } = await findSnippet(ctx, input.id)
      const move = await scheduleStorageMove(ctx, 'snippet', snippet.id, input.destination_storage_name)
      return reply.code(201).send((await presentSnippetMoves(request, [move]))[0])
    },
  )

  // Groups (their wiki repositories).
  api.get(
    '/group_repository_storage_moves',
    { ...premiumAdmin, params: ListMovesParams, response: { 200: GroupMoveListJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const page = await listStorageMoves(ctx, 'group', null, offsetWindow(input, ctx.settings))
      setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
      return presentGroupMoves(request, page.rows)
    },
  )
  api.get(
    '/group_repository_storage_moves/:repository_storage_move_id',
    { ...premiumAdmin, params: ShowMoveParams, response: { 200: GroupMoveJson } },
    async (request) => {
      const move = await showStorageMove(request.ctx, 'group', request.input.repository_storage_move_id, null)
      return (await presentGroupMoves(request, [move]))[0]
    },
  )
  api.post(
    '/group_repository_storage_moves',
    { ...premiumAdmin, params: BulkScheduleParams, response: { 202: AcceptedJson } },
    async (request, reply) => {
      const { ctx, input } = request
      await scheduleBulkStorageMoves(ctx, 'group', input.source_storage_name, input.destination_storage_name)
      return reply.code(202).send(accepted)
    },
  )
  api.get(
    '/groups/:id/repository_storage_moves',
    { ...premiumAdmin, params: ListContainerMovesParams, response: { 200: GroupMoveListJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const { group } = await findGroup(ctx, input.id)
      const page = await listStorageMoves(ctx, 'group', group.id, offsetWindow(input, ctx.settings))
      setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
      return page.rows.map((move) => presentGroupMove(move, group, ctx.config.externalUrl))
    },
  )
  api.get(
    '/groups/:id/repository_storage_moves/:repository_storage_move_id',
    { ...premiumAdmin, params: ShowContainerMoveParams, response: { 200: GroupMoveJson } },
    async (request) => {
      const { ctx, input } = request
      const { group } = await findGroup(ctx, input.id)
      const move = await showStorageMove(ctx, 'group', input.repository_storage_move_id, group.id)
      return presentGroupMove(move, group, ctx.config.externalUrl)
    },
  )
  api.post(
    '/groups/:id/repository_storage_moves',
    { ...premiumAdmin, params: ScheduleContainerMoveParams, response: { 201: GroupMoveJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const { group } = await findGroup(ctx, input.id)
      const move = await scheduleStorageMove(ctx, 'group', group.id, input.destination_storage_name)
      return reply.code(201).send(presentGroupMove(move, group, ctx.config.externalUrl))
    },
  )
}
