import { randomBytes } from 'node:crypto'
import type { Access } from '../../core/access.js'
import { isAdmin, type User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { BadRequest, NotFound, Unauthorized } from '../../core/errors.js'
import type { OffsetPage } from '../../db/pagination.js'
import type { TokenRow } from '../../db/schema.js'
import type { PageWindow } from '../../http/pagination.js'
import { canGroup, canProject, findGroup, findProject, type ProjectAccess } from '../access/index.js'
import { addBotMember, findBotMembers, removeDirectMembership, type SourceRef } from '../members/index.js'
import {
  botTokenProblem,
  findTokenOfUsers,
  issueBotToken,
  listTokensOfUsers,
  revokeToken,
  rotateToken,
  type NewToken,
} from '../tokens/index.js'
import { blockBotUser, createBotUser, findUserByIdOrUsername } from '../users/index.js'
import type { CreateResourceTokenParams } from './schemas.js'

export type ResourceKind = 'project' | 'group'

/** A project or group whose access tokens are asked for, with the caller's role there. */
export interface TokenResource {
  kind: ResourceKind
  ref: SourceRef
  name: string
  access: Access
}

/** A token with the role its bot holds in the resource. */
export interface ResourceToken {
  row: TokenRow
  accessLevel: number
}

/** The project or group as the caller may see it: 404 "Project Not Found" / "Group Not Found" otherwise. */
export async function findTokenResource(ctx: Context, kind: ResourceKind, id: string): Promise<TokenResource> {
  if (kind === 'project') {
    const { project, access } = await findProject(ctx, id)
    return { kind, ref: { kind, id: project.id }, name: project.name, access }
  }
  const { group, access } = await findGroup(ctx, id)
  return { kind, ref: { kind, id: group.id }, name: group.name, access }
}

/** GL `read/create/destroy/manage_resource_access_tokens`: Maintainers of a project, Owners of a group. */
function canManageTokens(resource: TokenResource): boolean {
  if (resource.kind === 'project') return canProject(resource.access as ProjectAccess, 'manage_resource_access_tokens')
  return canGroup(resource.access, 'manage_resource_access_tokens')
}

/** GL Gitlab::Access.level_encompasses?: a role may grant only roles it holds; Owners may grant Owner. */
function encompasses(currentLevel: number, levelToAssign: number): boolean {
  return currentLevel >= levelToAssign
}

function callerOf(ctx: Context): User {
  const user = ctx.caller.user
  if (!user) throw new Unauthorized()
  return user
}

async function findResourceToken(ctx: Context, resource: TokenResource, tokenId: string): Promise<ResourceToken | null> {
  const bots = await findBotMembers(ctx.db, resource.ref)
  const row = await findTokenOfUsers(ctx.db, [...bots.keys()], tokenId)
  return row ? { row, accessLevel: bots.get(row.user_id) ?? 0 } : null
}

/** GET /:kind/:id/access_tokens: every token of the resource's bots, revoked and expired ones too, oldest first. */
export async function listResourceTokens(
  ctx: Context,
  resource: TokenResource,
  state: 'active' | 'inactive' | undefined,
  window: PageWindow,
): Promise<OffsetPage<ResourceToken>> {
  callerOf(ctx)
  if (!canManageTokens(resource)) throw new Unauthorized()
  const bots = await findBotMembers(ctx.db, resource.ref)
  const page = await listTokensOfUsers(ctx, [...bots.keys()], state, window)
  return { ...page, rows: page.rows.map((row) => ({ row, accessLevel: bots.get(row.user_id) ?? 0 })) }
}

/** GET /:kind/:id/access_tokens/:token_id: 401 for those who may not manage them, before the token is looked for. */
export async function showResourceToken(ctx: Context, resource: TokenResource, tokenId: string): Promise<ResourceToken> {
  callerOf(ctx)
  if (!canManageTokens(resource)) throw new Unauthorized()
  const token = await findResourceToken(ctx, resource, tokenId)
  if (!token) throw new NotFound(`${resource.kind} Access Token`)
  return token
}

/**
 * POST /:kind/:id/access_tokens (GL ResourceAccessTokens::CreateService): a new bot user, a member of the resource
 * with the token's role, and its token, made together; every refusal is a 400 with GitLab's sentence.
 */
export async function createResourceToken(
  ctx: Context,
  resource: TokenResource,
  input: Omit<CreateResourceTokenParams, 'id'>,
): Promise<ResourceToken & NewToken> {
  const creator = callerOf(ctx)
  if (!canManageTokens(resource)) throw new BadRequest(`User does not have permission to create ${resource.kind} access token`)
  const accessLevel = input.access_level ?? 40
  if (creator.bot !== 1 && !encompasses(resource.access.level, accessLevel)) {
    throw new BadRequest('Access level of the token contains permissions not held by the creating user')
  }
  const now = ctx.now()
  const tokenInput = { name: input.name, scopes: input.scopes, description: input.description, expiresAt: input.expires_at }
  const problem = botTokenProblem(ctx.settings, now, tokenInput)
  if (problem) throw new BadRequest(problem)
  const at = now.toISOString()
  // GL Gitlab::Utils::UsernameAndEmailGenerator: a random suffix after the resource's prefix.
  const username = `${resource.kind}_${resource.ref.id}_bot_${randomBytes(16).toString('hex')}`
  const host = new URL(ctx.config.externalUrl).hostname
  return ctx.db.transaction().execute(async (trx) => {
    const bot = await createBotUser(
      trx,
      { username, name: input.name, email: `${username}@noreply.${host}`, external: creator.external === 1, createdById: creator.id },
      at,
    )
    await addBotMember(trx, resource.ref, bot.id, accessLevel, creator.id, at)
    const created = await issueBotToken(trx, ctx.settings, now, bot.id, tokenInput)
    return { ...created, accessLevel }
  })
}

/**
 * DELETE /:kind/:id/access_tokens/:token_id (GL ResourceAccessTokens::RevokeService): the token is revoked and its
 * bot leaves the resource and is blocked, so the token is no longer the resource's. A missing token is 404 for
 * anyone who can see the resource; a caller who may not manage tokens gets GitLab's 400 sentence.
 */
export async function revokeResourceToken(ctx: Context, resource: TokenResource, tokenId: string): Promise<void> {
  const caller = callerOf(ctx)
  const token = await findResourceToken(ctx, resource, tokenId)
  if (!token) throw new NotFound(`${resource.kind} Access Token`)
  if (!canManageTokens(resource)) {
    const bot = await findUserByIdOrUsername(ctx.db, String(token.row.user_id))
    throw new BadRequest(`${caller.name} cannot delete ${bot?.name ?? ''}`)
  }
  const at = ctx.now().toISOString()
  await ctx.db.transaction().execute(async (trx) => {
    await revokeToken(trx, token.row.id, at)
    if (!(await removeDirectMembership(trx, resource.ref, token.row.user_id))) throw new BadRequest('Failed to find bot user')
    await blockBotUser(trx, token.row.user_id, at)
  })
}

/**
 * POST /:kind/:id/access_tokens/:token_id/rotate (GL ProjectAccessTokens/GroupAccessTokens::RotateService): a new
 * token for the same bot, the old one revoked. Only admins learn that a token does not exist; others get 401.
 */
export async function rotateResourceToken(
  ctx: Context,
  resource: TokenResource,
  tokenId: string,
  expiresAt: string | undefined,
): Promise<ResourceToken & NewToken> {
  callerOf(ctx)
  const token = canManageTokens(resource) ? await findResourceToken(ctx, resource, tokenId) : null
  if (!token) {
    if (isAdmin(ctx.caller)) throw new NotFound()
    throw new Unauthorized()
  }
  if (token.row.revoked === 1) throw new BadRequest('Token already revoked')
  if (!isAdmin(ctx.caller) && !encompasses(resource.access.level, token.accessLevel)) {
    throw new BadRequest('Not eligible to rotate tokens with permissions not held by the user')
  }
  const rotated = await rotateToken(ctx, token.row, expiresAt)
  return { ...rotated, accessLevel: token.accessLevel }
}
