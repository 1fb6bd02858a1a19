import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Context } from '../../core/context.js'
import { ParamError } from '../../core/errors.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import type { PresentOptions } from '../users/index.js'
import { presentMember } from './present.js'
import {
  CreateMemberParams,
  DeleteMemberParams,
  ListAllMembersParams,
  ListMembersParams,
  MemberJson,
  MemberListResponse,
  MemberParams,
  UpdateMemberParams,
} from './schemas.js'
import {
  addMember,
  findMemberSource,
  listAllMembers,
  listMembers,
  removeMember,
  showInheritedMember,
  showMember,
  updateMember,
  type ListMembersInput,
  type MemberPage,
} from './service.js'
import { unmodifiedSinceOf } from '../../http/params.js'

/** The same endpoints serve projects and groups (GL members.rb `%w[group project].each`). */
const SOURCES = [
  ['projects', 'project'],
  ['groups', 'group'],
] as const

function presentOptions(ctx: Context): PresentOptions {
  return { viewer: ctx.caller, externalUrl: ctx.config.externalUrl, now: ctx.now() }
}

/**
 * `expires_at` is a Grape DateTime: a date, or a date and time whose date counts; blank clears it.
 * Returns the date, null to clear, undefined when absent, or false when unreadable.
 */
function expiresAtOf(value: string | null | undefined): string | null | undefined | false {
  if (value === undefined || value === null) return value
  const text = value.trim()
  if (text === '') return null
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\S.*)?$/i.exec(text)
  if (!match) return false
  const date = `${match[1]}-${match[2]}-${match[3]}`
  const parsed = new Date(`${date}T00:00:00.000Z`)
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === date ? date : false
}

function listInputOf(ctx: Context, input: ListMembersParams & { state?: 'awaiting' | 'active' }): ListMembersInput {
  const { page, perPage } = offsetWindow(input, ctx.settings)
  return {
    query: input.query,
    userIds: input.user_ids,
    skipUsers: input.skip_users,
    showSeatInfo: input.show_seat_info === true,
    state: input.state,
    page,
    perPage,
  }
}

function sendList(request: FastifyRequest, reply: FastifyReply, ctx: Context, list: MemberPage) {
  setOffsetHeaders(request, reply, ctx.config.externalUrl, list.page)
  const options = presentOptions(ctx)
  return list.views.map((view) => presentMember(view, options))
}

export function registerMemberRoutes(api: ApiRouter) {
  for (const [plural, kind] of SOURCES) {
    const members = `/${plural}/:id/members`

    api.get(members, { params: ListMembersParams, response: { 200: MemberListResponse } }, async (request, reply) => {
      const { ctx, input } = request
      const listInput = listInputOf(ctx, input)
      const source = await findMemberSource(ctx, kind, input.id)
      return sendList(request, reply, ctx, await listMembers(ctx, source, listInput))
    })

    api.get(`${members}/all`, { params: ListAllMembersParams, response: { 200: MemberListResponse } }, async (request, reply) => {
      const { ctx, input } = request
      const listInput = listInputOf(ctx, input)
      const source = await findMemberSource(ctx, kind, input.id)
      return sendList(request, reply, ctx, await listAllMembers(ctx, source, listInput))
    })

    api.get(`${members}/:user_id`, { params: MemberParams, response: { 200: MemberJson } }, async (request) => {
      const { ctx, input } = request
      const source = await findMemberSource(ctx, kind, input.id)
      return presentMember(await showMember(ctx, source, input.user_id), presentOptions(ctx))
    })

    api.get(`${members}/all/:user_id`, { params: MemberParams, response: { 200: MemberJson } }, async (request) => {
      const { ctx, input } = request
      const source = await findMemberSource(ctx, kind, input.id)
      return presentMember(await showInheritedMember(ctx, source, input.user_id), presentOptions(ctx))
    })

    api.post(members, { params: CreateMemberParams, response: { 201: MemberJson } }, async (request, reply) => {
      const { ctx, input } = request
      const expiresAt = expiresAtOf(input.expires_at)
      // Grape's order: type failures, then mutually_exclusive, then at_least_one_of, joined in one message.
      const problems: string[] = []
      if (expiresAt === false) problems.push('expires_at is invalid')
      if (input.user_id !== undefined && input.username !== undefined) problems.push('user_id, username are mutually exclusive')
      if (input.user_id === undefined && input.username === undefined) {
        problems.push('user_id, username are missing, at least one parameter must be provided')
      }
      if (problems.length > 0) throw new ParamError(problems.join(', '))
      const source = await findMemberSource(ctx, kind, input.id)
      const added = await addMember(ctx, source, {
        userId: input.user_id,
        username: input.username,
        accessLevel: input.access_level,
        expiresAt: expiresAt || null,
      })
      if (added.kind === 'bulk') return reply.code(201).type('application/json').send(JSON.stringify(added.result))
      return reply.code(201).send(presentMember(added.view, presentOptions(ctx)))
    })

    api.put(`${members}/:user_id`, { params: UpdateMemberParams, response: { 200: MemberJson } }, async (request) => {
      const { ctx, input } = request
      const expiresAt = expiresAtOf(input.expires_at)
      if (expiresAt === false) throw new ParamError('expires_at is invalid')
      const source = await findMemberSource(ctx, kind, input.id)
      const view = await updateMember(ctx, source, input.user_id, { accessLevel: input.access_level, expiresAt })
      return presentMember(view, presentOptions(ctx))
    })

    api.delete(`${members}/:user_id`, { params: DeleteMemberParams }, async (request, reply) => {
      const { ctx, input } = request
      const source = await findMemberSource(ctx, kind, input.id)
      await removeMember(ctx, source, input.user_id, {
        skipSubresources: input.skip_subresources,
        unmodifiedSince: unmodifiedSinceOf(request.headers['if-unmodified-since']),
      })
      return reply.code(204).send()
    })
  }
}
