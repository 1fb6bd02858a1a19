import { authorizeAdmin, isAdmin, type User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { BadRequest, Invalid, NotFound, RecordNotFound, Unauthorized, Unprocessable } from '../../core/errors.js'
import { digestToken, generateToken } from '../../core/secrets.js'
import type { Settings } from '../../core/settings.js'
import { addDays, isoDate } from '../../core/time.js'
import { AVAILABLE_SCOPES } from '../../core/scopes.js'
import { isTokenExpired } from '../../core/token-validity.js'
import type { Db } from '../../db/index.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { TokenRow } from '../../db/schema.js'
import type { PageWindow } from '../../http/pagination.js'
import { canManageTokensOf, canRevokeToken } from './policy.js'
import type { ListPersonalAccessTokensInput } from './schemas.js'
import {
  findTokenById,
  findTokenDigestOwner,
  findUserRowById,
  findUserTokenById,
  insertToken,
  revokeTokenRow,
  selectTokens,
  type TokenFilters,
} from './store.js'

/** GL PersonalAccessToken::MAX_PERSONAL_ACCESS_TOKEN_LIFETIME_IN_DAYS. */
export const MAX_TOKEN_LIFETIME_DAYS = 365
/** GL PersonalAccessTokens::RotateService::EXPIRATION_PERIOD. */
export const ROTATION_LIFETIME_DAYS = 7

export interface NewToken {
  row: TokenRow
  /** The plaintext value; it exists only in this response. */
  token: string
}

interface TokenAttributes {
  name: string
  scopes: readonly string[]
  description: string | null
  expiresAt: string | null
  impersonation: boolean
  previousTokenId?: number | null
}

type Errors = Record<string, string[]>

const ATTRIBUTE_NAMES: Record<string, string> = { name: 'Name', scopes: 'Scopes', expires_at: 'Expires at' }

/** ActiveModel full_messages joined by Array#to_sentence, as GitLab's services report them. */
export function fullMessages(errors: Errors): string {
  const messages = Object.entries(errors).flatMap(([attribute, list]) => list.map((m) => `${ATTRIBUTE_NAMES[attribute] ?? attribute} ${m}`))
  if (messages.length <= 1) return messages.join('')
  if (messages.length === 2) return messages.join(' and ')
  return `${messages.slice(0, -1).join(', ')}, and ${messages[messages.length - 1]}`
}

/** The latest expiry a new token may have, or null when there is no limit. */
function maxExpiryDate(settings: Settings, now: Date): string | null {
  if (settings.max_personal_access_token_lifetime !== null) return isoDate(addDays(now, settings.max_personal_access_token_lifetime))
  return settings.require_personal_access_token_expiry ? isoDate(addDays(now, MAX_TOKEN_LIFETIME_DAYS)) : null
}

/** GL PersonalAccessTokens::CreateService#pat_expiration: the longest allowed lifetime when expiry is required. */
function defaultExpiry(settings: Settings, now: Date): string | null {
  if (!settings.require_personal_access_token_expiry) return null
  return isoDate(addDays(now, settings.max_personal_access_token_lifetime ?? MAX_TOKEN_LIFETIME_DAYS))
}

/** GL RotateService#expires_at: one week when expiry is required. */
function rotationExpiry(settings: Settings, now: Date): string | null {
  if (settings.require_personal_access_token_expiry) return isoDate(addDays(now, ROTATION_LIFETIME_DAYS))
  const max = settings.max_personal_access_token_lifetime
  return max === null ? null : isoDate(addDays(now, max))
}

/** The PersonalAccessToken model's validations on create, in GitLab's order. */
function validateToken(settings: Settings, now: Date, attributes: TokenAttributes): Errors | null {
  const errors: Errors = {}
  const add = (attribute: string, message: string) => (errors[attribute] ??= []).push(message)
  if (attributes.name.trim() === '') add('name', "can't be blank")
  if (attributes.scopes.length === 0) add('scopes', "can't be blank")
  if (attributes.expiresAt === null && settings.require_personal_access_token_expiry) add('expires_at', "can't be blank")
  if (!attributes.scopes.every((scope) => (AVAILABLE_SCOPES as readonly string[]).includes(scope))) {
    add('scopes', 'can only contain available scopes')
  }
  const max = maxExpiryDate(settings, now)
  if (attributes.expiresAt !== null && max !== null && attributes.expiresAt > max) add('expires_at', `must be before ${max}`)
  return Object.keys(errors).length > 0 ? errors : null
}

async function insertNewToken(db: Db, user: Pick<User, 'id'>, now: Date, attributes: TokenAttributes): Promise<NewToken> {
  const token = generateToken()
  const at = now.toISOString()
  const row = await insertToken(db, {
    user_id: user.id,
    name: attributes.name,
    description: attributes.description,
    token_digest: digestToken(token),
    scopes: JSON.stringify(attributes.scopes),
    impersonation: attributes.impersonation ? 1 : 0,
    expires_at: attributes.expiresAt,
    previous_token_id: attributes.previousTokenId ?? null,
    created_at: at,
    updated_at: at,
  })
  return { row, token }
}

async function findUserOrFail(db: Db, userId: number): Promise<User> {
  const user = await findUserRowById(db, userId)
  if (!user) throw new NotFound('User')
  return user
}

/** POST /users/:user_id/personal_access_tokens (GL PersonalAccessTokens::CreateService); failures are 422 sentences. */
export async function createPersonalAccessToken(
  ctx: Context,
  userId: number,
  input: { name: string; scopes: string[]; description?: string; expires_at?: string },
): Promise<NewToken> {
  authorizeAdmin(ctx.caller)
  const user = await findUserOrFail(ctx.db, userId)
  const now = ctx.now()
  const attributes: TokenAttributes = {
    name: input.name,
    scopes: input.scopes,
    description: input.description ?? null,
    expiresAt: input.expires_at ?? defaultExpiry(ctx.settings, now),
    impersonation: false,
  }
  const errors = validateToken(ctx.settings, now, attributes)
  if (errors) throw new Unprocessable(fullMessages(errors))
  return insertNewToken(ctx.db, user, now, attributes)
}

/**
 * A personal access token made outside the API (the `create-token` command): the model's validations apply,
 * failures come back as the attribute → messages map.
 */
export async function issuePersonalAccessToken(
  db: Db,
  settings: Settings,
  now: Date,
  user: Pick<User, 'id'>,
  input: { name: string; scopes: string[]; expiresAt?: string | null },
): Promise<NewToken> {
  const attributes: TokenAttributes = {
    name: input.name,
    scopes: input.scopes,
    description: null,
    expiresAt: input.expiresAt ?? defaultExpiry(settings, now),
    impersonation: false,
  }
  const errors = validateToken(settings, now, attributes)
  if (errors) throw new Invalid(errors)
  return insertNewToken(db, user, now, attributes)
}

/** Scopes of the token SVC_ROOT_TOKEN seeds. */
export const ROOT_TOKEN_SCOPES = ['api', 'read_user', 'read_repository', 'write_repository', 'sudo', 'admin_mode']

/**
 * Gives root the token SVC_ROOT_TOKEN names, unless a token with that value exists already (root's from an earlier
 * start, or anyone's): the value is taken as given, without expiry.
 */
export async function ensureRootToken(db: Db, root: Pick<User, 'id'>, value: string | null, now = new Date()): Promise<void> {
  if (!value) return
  const digest = digestToken(value)
  if ((await findTokenDigestOwner(db, digest)) !== undefined) return
  const at = now.toISOString()
  await insertToken(db, {
    user_id: root.id,
    name: 'SVC_ROOT_TOKEN',
    token_digest: digest,
    scopes: JSON.stringify(ROOT_TOKEN_SCOPES),
    created_at: at,
    updated_at: at,
  })
}

/** POST /users/:user_id/impersonation_tokens: model validations answer with the 400 attribute map. */
export async function createImpersonationToken(
  ctx: Context,
  userId: number,
  input: { name: string; description?: string; expires_at?: string; scopes?: string[] },
): Promise<NewToken> {
  authorizeAdmin(ctx.caller)
  const user = await findUserOrFail(ctx.db, userId)
  const now = ctx.now()
  // The maximum lifetime when no date is given (GitLab docs, user tokens API: create an impersonation token).
  const attributes: TokenAttributes = {
    name: input.name,
    scopes: input.scopes ?? [],
    description: input.description ?? null,
    expiresAt: input.expires_at ?? defaultExpiry(ctx.settings, now),
    impersonation: true,
  }
  const errors = validateToken(ctx.settings, now, attributes)
  if (errors) throw new Invalid(errors)
  return insertNewToken(ctx.db, user, now, attributes)
}

export async function listImpersonationTokens(
  ctx: Context,
  userId: number,
  state: 'all' | 'active' | 'inactive',
  window: PageWindow,
): Promise<OffsetPage<TokenRow>> {
  authorizeAdmin(ctx.caller)
  const user = await findUserOrFail(ctx.db, userId)
  const query = selectTokens(ctx.db, {
    userId: user.id,
    impersonation: true,
    state: state === 'all' ? undefined : state,
    today: isoDate(ctx.now()),
    order: { column: 'id', direction: 'asc' },
  })
  return fetchOffsetPage(ctx.db, query, window.page, window.perPage)
}

export async function findImpersonationToken(ctx: Context, userId: number, tokenId: number): Promise<TokenRow> {
  authorizeAdmin(ctx.caller)
  const user = await findUserOrFail(ctx.db, userId)
  const token = await findUserTokenById(ctx.db, user.id, tokenId, true)
  if (!token) throw new NotFound('Impersonation Token')
  return token
}

/** Revoking keeps the token, listed as inactive. */
export async function revokeImpersonationToken(ctx: Context, userId: number, tokenId: number): Promise<void> {
  const token = await findImpersonationToken(ctx, userId, tokenId)
  await revokeTokenRow(ctx.db, token.id, ctx.now().toISOString())
}

type SortColumn = TokenFilters['order']['column']

/** GL Sortable.simple_sorts and PersonalAccessToken.simple_sorts; anything else keeps the default order. */
const SORTS: Record<string, { column: SortColumn; direction: 'asc' | 'desc' }> = {
  created_asc: { column: 'created_at', direction: 'asc' },
  created_at_asc: { column: 'created_at', direction: 'asc' },
  created_date: { column: 'created_at', direction: 'desc' },
  created_desc: { column: 'created_at', direction: 'desc' },
  created_at_desc: { column: 'created_at', direction: 'desc' },
  id_asc: { column: 'id', direction: 'asc' },
  id_desc: { column: 'id', direction: 'desc' },
  name_asc: { column: 'name', direction: 'asc' },
  name_desc: { column: 'name', direction: 'desc' },
  updated_asc: { column: 'updated_at', direction: 'asc' },
  updated_at_asc: { column: 'updated_at', direction: 'asc' },
  updated_desc: { column: 'updated_at', direction: 'desc' },
  updated_at_desc: { column: 'updated_at', direction: 'desc' },
  expires_asc: { column: 'expires_at', direction: 'asc' },
  expires_at_asc_id_desc: { column: 'expires_at', direction: 'asc' },
  expires_desc: { column: 'expires_at', direction: 'desc' },
  last_used_asc: { column: 'last_used_at', direction: 'asc' },
  last_used_desc: { column: 'last_used_at', direction: 'desc' },
}

function escapeLike(text: string): string {
  return text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)
}

/** GL Gitlab::SQL::Pattern fuzzy search: every word of 3+ characters is a substring; else the whole query, exactly. */
function namePatterns(search: string): string[] {
  const query = search.trim().replace(/\s+/g, ' ')
  if (query === '') return []
  const words = query.split(' ').filter((word) => word.length >= 3)
  return words.length > 0 ? words.map((word) => `%${escapeLike(word)}%`) : [escapeLike(query)]
}

/**
 * GET /personal_access_tokens: an admin sees every token (or one user's, when `user_id` is given),
 * anyone else only their own personal (not impersonation) tokens.
 */
export async function listPersonalAccessTokens(
  ctx: Context,
  input: ListPersonalAccessTokensInput,
  userIdGivenBlank: boolean,
  window: PageWindow,
): Promise<OffsetPage<TokenRow>> {
  const caller = ctx.caller.user
  if (!caller) throw new Unauthorized()
  let userId: number | undefined
  let impersonation: boolean | undefined
  if (isAdmin(ctx.caller)) {
    if (userIdGivenBlank) throw new NotFound()
    if (input.user_id !== undefined) {
      const user = await findUserRowById(ctx.db, input.user_id)
      if (!user) throw new NotFound()
      userId = user.id
    }
  } else {
    if (input.user_id !== undefined && input.user_id !== caller.id) throw new Unauthorized()
    userId = caller.id
    impersonation = false
  }
  const query = selectTokens(ctx.db, {
    userId,
    impersonation,
    state: input.state,
    today: isoDate(ctx.now()),
    revoked: input.revoked,
    createdBefore: input.created_before,
    createdAfter: input.created_after,
    lastUsedBefore: input.last_used_before,
    lastUsedAfter: input.last_used_after,
    expiresBefore: input.expires_before,
    expiresAfter: input.expires_after,
    namePatterns: input.search === undefined ? undefined : namePatterns(input.search),
    order: (input.sort !== undefined && Object.hasOwn(SORTS, input.sort) ? SORTS[input.sort] : undefined) ?? {
      column: 'id',
      direction: 'asc',
    },
  })
  return fetchOffsetPage(ctx.db, query, window.page, window.perPage)
}

function tokenIdOf(text: string): number | null {
  return /^\d{1,15}$/.test(text) ? Number(text) : null
}

/** A token the caller may manage; others are 404 for admins and 401 for everyone else, who never learn it exists. */
async function findManageableToken(ctx: Context, idText: string): Promise<TokenRow> {
  const id = tokenIdOf(idText)
  const token = id === null ? undefined : await findTokenById(ctx.db, id)
  if (token && canManageTokensOf(ctx.caller, token.user_id)) return token
  if (isAdmin(ctx.caller)) throw new NotFound()
  throw new Unauthorized()
}

export function findPersonalAccessToken(ctx: Context, idText: string): Promise<TokenRow> {
  return findManageableToken(ctx, idText)
}

/** DELETE /personal_access_tokens/:id: a missing token is ActiveRecord's 404; a token the caller may not revoke, a bare 400. */
export async function revokePersonalAccessToken(ctx: Context, idText: string): Promise<void> {
  const id = tokenIdOf(idText)
  const token = id === null ? undefined : await findTokenById(ctx.db, id)
  if (!token) throw new RecordNotFound()
  if (!canRevokeToken(ctx.caller, token)) throw new BadRequest()
  await revokeTokenRow(ctx.db, token.id, ctx.now().toISOString())
}

/** The token that authenticated this request; other credentials are refused as GitLab's self endpoints do. */
export async function findCurrentToken(ctx: Context): Promise<TokenRow | null> {
  const credential = ctx.caller.credential
  if (!credential || (credential.kind !== 'personal_access_token' && credential.kind !== 'impersonation_token')) return null
  return (await findTokenById(ctx.db, credential.id)) ?? null
}

const REQUIRES_PERSONAL_ACCESS_TOKEN = 'This endpoint requires token type to be a personal access token'

export async function showOwnToken(ctx: Context): Promise<TokenRow> {
  const token = await findCurrentToken(ctx)
  if (!token) throw new BadRequest(REQUIRES_PERSONAL_ACCESS_TOKEN)
  return token
}

export async function revokeOwnToken(ctx: Context): Promise<void> {
  const token = await findCurrentToken(ctx)
  if (!token) throw new BadRequest(REQUIRES_PERSONAL_ACCESS_TOKEN)
  if (!canRevokeToken(ctx.caller, token)) throw new BadRequest()
  await revokeTokenRow(ctx.db, token.id, ctx.now().toISOString())
}

/**
 * GL PersonalAccessTokens::RotateService: the old token is revoked and a new one with the same name, description,
 * scopes and kind replaces it, linked to it so that reuse of the old one can revoke the family.
 */
export async function rotateToken(ctx: Context, token: TokenRow, expiresAt: string | undefined): Promise<NewToken> {
  if (token.revoked === 1) throw new BadRequest('Token already revoked')
  const now = ctx.now()
  const attributes: TokenAttributes = {
    name: token.name,
    scopes: JSON.parse(token.scopes) as string[],
    description: token.description,
    expiresAt: expiresAt ?? rotationExpiry(ctx.settings, now),
    impersonation: token.impersonation === 1,
    previousTokenId: token.id,
  }
  const errors = validateToken(ctx.settings, now, attributes)
  if (errors) throw new BadRequest(fullMessages(errors))
  return ctx.db.transaction().execute(async (trx) => {
    // Two rotations racing: only the one that revokes the old token creates a new one.
    if (!(await revokeTokenRow(trx, token.id, now.toISOString()))) throw new BadRequest('Token already revoked')
    return insertNewToken(trx, { id: token.user_id }, now, attributes)
  })
}

export async function rotatePersonalAccessToken(ctx: Context, idText: string, expiresAt: string | undefined): Promise<NewToken> {
  const token = await findManageableToken(ctx, idText)
  return rotateToken(ctx, token, expiresAt)
}

/** POST /personal_access_tokens/self/rotate; null when the caller did not use a personal access token. */
export async function rotateOwnToken(ctx: Context, expiresAt: string | undefined): Promise<NewToken | null> {
  const token = await findCurrentToken(ctx)
  if (!token) return null
  return rotateToken(ctx, token, expiresAt)
}

/** The token of a project or group bot: the defaults and validations of a personal access token. */
export interface BotTokenInput {
  name: string
  scopes: string[]
  description?: string
  expiresAt?: string
}

function botTokenAttributes(settings: Settings, now: Date, input: BotTokenInput): TokenAttributes {
  return {
    name: input.name,
    scopes: input.scopes,
    description: input.description ?? null,
    expiresAt: input.expiresAt ?? defaultExpiry(settings, now),
    impersonation: false,
  }
}

/** Why a bot token could not be made, as GitLab's create service words it, or null when it can. */
export function botTokenProblem(settings: Settings, now: Date, input: BotTokenInput): string | null {
  const errors = validateToken(settings, now, botTokenAttributes(settings, now, input))
  return errors ? fullMessages(errors) : null
}

/** Issues a bot's token, once botTokenProblem found nothing; call it inside the transaction that made the bot. */
export function issueBotToken(trx: Db, settings: Settings, now: Date, userId: number, input: BotTokenInput): Promise<NewToken> {
  return insertNewToken(trx, { id: userId }, now, botTokenAttributes(settings, now, input))
}

/** The (not impersonation) tokens of some users, oldest first, optionally only the active or inactive ones. */
export function listTokensOfUsers(
  ctx: Context,
  userIds: number[],
  state: 'active' | 'inactive' | undefined,
  window: PageWindow,
): Promise<OffsetPage<TokenRow>> {
  const query = selectTokens(ctx.db, {
    userIds,
    impersonation: false,
    state,
    today: isoDate(ctx.now()),
    order: { column: 'id', direction: 'asc' },
  })
  return fetchOffsetPage(ctx.db, query, window.page, window.perPage)
}

/** A (not impersonation) token of one of these users by the id as the path gives it. */
export async function findTokenOfUsers(db: Db, userIds: number[], idText: string): Promise<TokenRow | null> {
  const id = tokenIdOf(idText)
  if (id === null || userIds.length === 0) return null
  const token = await findTokenById(db, id)
  return token && token.impersonation === 0 && userIds.includes(token.user_id) ? token : null
}

/** Marks a token revoked; call it inside the transaction of the use case that revokes it. */
export async function revokeToken(trx: Db, tokenId: number, at: string): Promise<void> {
  await revokeTokenRow(trx, tokenId, at)
}

// The signed-in user's own tokens, on their access tokens page (GL UserSettings::PersonalAccessTokensController).

/** Scopes only administrators are offered (GL Gitlab::Auth::ADMIN_SCOPES). */
const ADMIN_SCOPES: readonly string[] = ['sudo', 'admin_mode', 'read_service_ping']

/** GL access tokens form: a new token's expiry date defaults to this many days from today (within the maximum). */
const DEFAULT_FORM_LIFETIME_DAYS = 30

/** What the form for a new token offers: the scopes the user may pick and the range of expiry dates. */
export interface PersonalTokenFormOptions {
  scopes: string[]
  /** The date the form starts with. */
  defaultExpiresAt: string
  /** The earliest date the form offers: tomorrow. */
  minExpiresAt: string
  /** The latest date a token may expire on, or null when there is no limit. */
  maxExpiresAt: string | null
  /** Whether a token must expire. */
  expiryRequired: boolean
}

/** GL Gitlab::Auth.available_scopes_for(user): administrators' scopes only for administrators. */
export function personalTokenFormOptions(ctx: Context): PersonalTokenFormOptions {
  const now = ctx.now()
  const max = maxExpiryDate(ctx.settings, now)
  const byDefault = isoDate(addDays(now, DEFAULT_FORM_LIFETIME_DAYS))
  return {
    scopes: AVAILABLE_SCOPES.filter((scope) => isAdmin(ctx.caller) || !ADMIN_SCOPES.includes(scope)),
    defaultExpiresAt: max !== null && max < byDefault ? max : byDefault,
    minExpiresAt: isoDate(addDays(now, 1)),
    maxExpiresAt: max,
    expiryRequired: ctx.settings.require_personal_access_token_expiry,
  }
}

/**
 * A token the signed-in user makes for themselves (GL PersonalAccessTokens::CreateService, current user as target):
 * the model's validations, refused by attribute; no date gives the longest lifetime allowed.
 */
export async function createOwnPersonalAccessToken(
  ctx: Context,
  input: { name: string; scopes: string[]; description?: string; expiresAt?: string },
): Promise<NewToken> {
  const user = ctx.caller.user
  if (!user) throw new Unauthorized()
  const now = ctx.now()
  const attributes: TokenAttributes = {
    name: input.name,
    scopes: input.scopes,
    description: input.description ?? null,
    expiresAt: input.expiresAt ?? defaultExpiry(ctx.settings, now),
    impersonation: false,
  }
  const errors = validateToken(ctx.settings, now, attributes)
  if (errors) throw new Invalid(errors)
  return insertNewToken(ctx.db, user, now, attributes)
}

/** The signed-in user's active personal access tokens, those expiring first first (GL `sort: 'expires_asc'`). */
export async function listOwnActiveTokens(ctx: Context): Promise<TokenRow[]> {
  const user = ctx.caller.user
  if (!user) throw new Unauthorized()
  return selectTokens(ctx.db, {
    userId: user.id,
    impersonation: false,
    state: 'active',
    today: isoDate(ctx.now()),
    order: { column: 'expires_at', direction: 'asc' },
  }).execute()
}

/** Revokes one of the signed-in user's own active tokens; any other id is not found. Answers the revoked token. */
export async function revokeOwnPersonalAccessToken(ctx: Context, idText: string): Promise<TokenRow> {
  const user = ctx.caller.user
  if (!user) throw new Unauthorized()
  const id = tokenIdOf(idText)
  const token = id === null ? undefined : await findUserTokenById(ctx.db, user.id, id, false)
  if (!token || token.revoked === 1 || isTokenExpired(token.expires_at, ctx.now())) throw new NotFound('Personal access token')
  await revokeTokenRow(ctx.db, token.id, ctx.now().toISOString())
  return token
}
