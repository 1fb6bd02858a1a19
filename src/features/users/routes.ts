import type { FastifyReply } from 'fastify'
import { isAdmin } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { ParamError } from '../../core/errors.js'
import { keysetWindow, offsetWindow, setKeysetHeaders, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import {
  presentUserBasic,
  presentUserDetailsWithAdmin,
  presentUser,
  presentUserPublic,
  presentUserWithAdmin,
  type PresentOptions,
} from './present.js'
import {
  CreateUserParams,
  CurrentUserResponse,
  DeleteUserParams,
  ListUsersParams,
  UpdateUserParams,
  UserIdParams,
  UserListResponse,
  UserShowResponse,
  UserWithAdminResponse,
} from './schemas.js'
import {
  activateUser,
  blockUser,
  createUser,
  currentUser,
  deactivateUser,
  deleteUser,
  listUsers,
  showUser,
  unblockUser,
  updateUser,
  type ListPagination,
  type ListUsersInput,
  type UserAttributes,
} from './service.js'
import { unmodifiedSinceOf } from '../../http/params.js'

/** Ids are digits only, so `/users/abc` reaches no route and gets the catch-all 404 (GL users.rb `requirements`). */
const USER = '/users/:id(^\\d+$)'

/** GET endpoints of the users API also accept tokens with `read_user` (GL users.rb `allow_access_with_scope`). */
const READ_SCOPES = ['read_user']

function presentOptions(ctx: Context): PresentOptions {
  return { viewer: ctx.caller, externalUrl: ctx.config.externalUrl, now: ctx.now() }
}

/** A path id; one beyond any stored id is looked up as 0, which matches nobody (GitLab answers 404, not 400). */
function userIdOf(text: string): number {
  const id = Number(text)
  return Number.isSafeInteger(id) ? id : 0
}

function attributesOf(input: CreateUserParams | UpdateUserParams): UserAttributes {
  return {
    email: input.email,
    password: input.password,
    resetPassword: 'reset_password' in input ? input.reset_password : undefined,
    forceRandomPassword: 'force_random_password' in input ? input.force_random_password : undefined,
    skipConfirmation: 'skip_confirmation' in input ? input.skip_confirmation : undefined,
    name: input.name,
    username: input.username,
    skype: input.skype,
    linkedin: input.linkedin,
    twitter: input.twitter,
    discord: input.discord,
    websiteUrl: input.website_url,
    organization: input.organization,
    jobTitle: input.job_title,
    projectsLimit: input.projects_limit,
    bio: input.bio,
    location: input.location,
    pronouns: input.pronouns,
    publicEmail: input.public_email,
    commitEmail: input.commit_email,
    admin: input.admin,
    canCreateGroup: input.can_create_group,
    external: input.external,
    themeId: input.theme_id,
    colorSchemeId: input.color_scheme_id,
    privateProfile: input.private_profile,
    note: input.note,
    twoFactorEnabled: input.two_factor_enabled,
  }
}

function sendJson(reply: FastifyReply, status: number, value: unknown) {
  return reply.code(status).type('application/json').send(JSON.stringify(value))
}

export function registerUserRoutes(api: ApiRouter) {
  api.get('/user', { scopes: READ_SCOPES, response: { 200: CurrentUserResponse } }, async (request) => {
    const user = currentUser(request.ctx)
    const options = presentOptions(request.ctx)
    return isAdmin(request.ctx.caller) ? presentUserWithAdmin(user, options, new Map()) : presentUserPublic(user, options)
  })

  api.get(
    '/users',
    { params: ListUsersParams, authenticated: false, scopes: READ_SCOPES, response: { 200: UserListResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      const pagination: ListPagination =
        input.pagination === 'keyset'
          ? { kind: 'keyset', ...keysetWindow(input) }
          : { kind: 'offset', ...offsetWindow(input, ctx.settings, 'User') }
      const list = await listUsers(ctx, {
        username: input.username,
        externUid: input.extern_uid,
        provider: input.provider,
        search: input.search,
        active: input.active,
        external: input.external,
        excludeExternal: input.exclude_external,
        blocked: input.blocked,
        createdAfter: input.created_after,
        createdBefore: input.created_before,
        excludeInternal: input.exclude_internal,
        withoutProjectBots: input.without_project_bots,
        admins: input.admins,
        orderBy: input.order_by as ListUsersInput['orderBy'],
        sort: input.sort,
        pagination,
      })
      if (list.kind === 'offset') setOffsetHeaders(request, reply, ctx.config.externalUrl, list.page)
      else setKeysetHeaders(request, reply, ctx.config.externalUrl, list.page)
      const options = presentOptions(ctx)
      return isAdmin(ctx.caller)
        ? list.page.rows.map((user) => presentUserWithAdmin(user, options, list.creators))
        : list.page.rows.map((user) => presentUserBasic(user, options))
    },
  )

  api.get(
    USER,
    { params: UserIdParams, authenticated: false, scopes: READ_SCOPES, response: { 200: UserShowResponse } },
    async (request) => {
      const { result: user, creators } = await showUser(request.ctx, userIdOf(request.input.id))
      const options = presentOptions(request.ctx)
      return isAdmin(request.ctx.caller) ? presentUserDetailsWithAdmin(user, options, creators) : presentUser(user, options)
    },
  )

  api.post('/users', { params: CreateUserParams, response: { 201: UserWithAdminResponse } }, async (request, reply) => {
    const { input } = request
    if (input.password === undefined && input.reset_password === undefined && input.force_random_password === undefined) {
      throw new ParamError('password, reset_password, force_random_password are missing, at least one parameter must be provided')
    }
    const { result: user, creators } = await createUser(request.ctx, attributesOf(input))
    return reply.code(201).send(presentUserWithAdmin(user, presentOptions(request.ctx), creators))
  })

  api.put(USER, { params: UpdateUserParams, response: { 200: UserWithAdminResponse } }, async (request) => {
    const { result: user, creators } = await updateUser(request.ctx, userIdOf(request.input.id), attributesOf(request.input))
    return presentUserWithAdmin(user, presentOptions(request.ctx), creators)
  })

  api.delete(USER, { params: DeleteUserParams }, async (request, reply) => {
    await deleteUser(request.ctx, userIdOf(request.input.id), unmodifiedSinceOf(request.headers['if-unmodified-since']))
    return reply.code(204).send()
  })

  const stateChanges = [
    ['block', blockUser],
    ['unblock', unblockUser],
    ['deactivate', deactivateUser],
    ['activate', activateUser],
  ] as const
  for (const [action, change] of stateChanges) {
    api.post(`${USER}/${action}`, { params: UserIdParams }, async (request, reply) =>
      sendJson(reply, 201, await change(request.ctx, userIdOf(request.input.id))),
    )
  }
}
