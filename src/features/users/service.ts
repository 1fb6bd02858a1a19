import { randomBytes } from 'node:crypto'
import { authorizeAdmin, type User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { BadRequest, Conflict, Forbidden, Invalid, NotFound, PreconditionFailed, Refused, Unauthorized } from '../../core/errors.js'
import { hashPassword } from '../../core/secrets.js'
import { isoDate } from '../../core/time.js'
import type { Db } from '../../db/index.js'
import { fetchKeysetPage, fetchOffsetPage, type KeysetPage, type KeysetPosition, type OffsetPage } from '../../db/pagination.js'
import type { NewUserRow, UserUpdate } from '../../db/schema.js'
import { noticeChange } from '../change-notices/index.js'
import { createPersonalNamespace, isUsernameUsedByNamespace, syncPersonalNamespace } from '../namespaces/index.js'
import { scheduleRepositoryRemoval } from '../repositories/index.js'
import { canListUsers, canReadAllUsers } from './policy.js'
import {
  currentMembershipsOfUser,
  deleteUserRow,
  repositoriesOfUser,
  findUserById,
  findUserByUsername,
  findUsersByIds,
  insertUser,
  isEmailTaken,
  isUsernameTaken as isUsernameTakenByUser,
  orderBySearchRelevance,
  selectUsers,
  updateUserRow,
  type UserFilters,
} from './store.js'
import { sanitizePlaceText, sanitizeProfileText, userValidationErrors, type UserCandidate, type ValidationErrors } from './validation.js'

/** GitLab's `deactivate_dormant_users_period` default: recently active users cannot be deactivated. */
export const DORMANT_AFTER_DAYS = 90

/** The attributes an administrator may set on create and update (GL users.rb params). */
export interface UserAttributes {
  email?: string
  password?: string
  resetPassword?: boolean
  forceRandomPassword?: boolean
  skipConfirmation?: boolean
  name?: string
  username?: string
  skype?: string
  linkedin?: string
  twitter?: string
  discord?: string
  websiteUrl?: string
  organization?: string
  jobTitle?: string
  projectsLimit?: number
  bio?: string
  location?: string
  pronouns?: string
  publicEmail?: string
  commitEmail?: string
  admin?: boolean
  canCreateGroup?: boolean
  external?: boolean
  themeId?: number
  colorSchemeId?: number
  privateProfile?: boolean
  note?: string
  twoFactorEnabled?: boolean
}

/** Users created or changed, with the users named as their creators. */
export interface UsersWithCreators<T> {
  result: T
  creators: Map<number, User>
}

async function creatorsOf(db: Db, users: readonly User[]): Promise<Map<number, User>> {
  const ids = users.map((u) => u.created_by_id).filter((id): id is number => id !== null)
  return new Map((await findUsersByIds(db, ids)).map((u) => [u.id, u]))
}

function flag(value: boolean): number {
  return value ? 1 : 0
}

/** A random password as GitLab's `User.random_password`: long enough for any minimum length. */
function randomPassword(): string {
  return randomBytes(96).toString('base64url').slice(0, 128)
}

// ---------------------------------------------------------------------------------------------
// Reading

/** GET /user: the caller themselves (after sudo). */
export function currentUser(ctx: Context): User {
  if (!ctx.caller.user) throw new NotFound('User')
  return ctx.caller.user
}

export type ListPagination =
  { kind: 'offset'; page: number; perPage: number } | { kind: 'keyset'; perPage: number; after: KeysetPosition | null }

export interface ListUsersInput {
  username?: string
  externUid?: string
  provider?: string
  search?: string
  active: boolean
  external: boolean
  excludeExternal: boolean
  blocked: boolean
  createdAfter?: string
  createdBefore?: string
  excludeInternal: boolean
  withoutProjectBots: boolean
  admins: boolean
  orderBy: 'id' | 'name' | 'username' | 'created_at' | 'updated_at'
  sort: 'asc' | 'desc'
  pagination: ListPagination
}

export type UserListPage =
  | { kind: 'offset'; page: OffsetPage<User>; creators: Map<number, User> }
  | { kind: 'keyset'; page: KeysetPage<User>; creators: Map<number, User> }

/**
 * GET /users (GL users.rb, UsersFinder). Non-administrators' `order_by`, `sort` and creation-date filters are
 * dropped, as GitLab drops them; anonymous callers must name a `username`.
 */
export async function listUsers(ctx: Context, input: ListUsersInput): Promise<UserListPage> {
  if (input.externUid !== undefined && input.provider !== undefined) authorizeAdmin(ctx.caller)
  // Contract (Pagination, keyset table): anonymous callers may page users, but GitLab lists them only with `username`.
  if (!canListUsers(ctx.caller, input.username)) throw new Forbidden('Not authorized to access /api/v4/users')
  const admin = canReadAllUsers(ctx.caller)
  const filters: UserFilters = {
    username: input.username,
    search: input.search,
    searchEmails: admin,
    active: input.active,
    blocked: input.blocked,
    external: input.external,
    excludeExternal: input.excludeExternal,
    admins: admin && input.admins,
    excludeBots: input.excludeInternal || input.withoutProjectBots,
    createdAfter: admin ? input.createdAfter : undefined,
    createdBefore: admin ? input.createdBefore : undefined,
    externIdentity: input.externUid !== undefined && input.provider !== undefined,
  }
  // GitLab orders by `created_at` through the id, which grows with it.
  const column = admin ? (input.orderBy === 'created_at' ? 'id' : input.orderBy) : 'id'
  const direction = admin ? input.sort : 'desc'
  const query = selectUsers(ctx.db, filters)
  const { pagination } = input
  if (pagination.kind === 'keyset') {
    const after = pagination.after
    if (after && column !== 'id' && typeof after.value !== 'string') throw new BadRequest('Invalid cursor parameter')
    const page = await fetchKeysetPage(query, { column, direction, after, perPage: pagination.perPage })
    return { kind: 'keyset', page, creators: admin ? await creatorsOf(ctx.db, page.rows) : new Map() }
  }
  const ordered =
    !admin && input.search !== undefined
      ? orderBySearchRelevance(query, input.search)
      : column === 'id'
        ? query.orderBy('id', direction)
        : query.orderBy(column, direction).orderBy('id', direction)
  const page = await fetchOffsetPage(ctx.db, ordered, pagination.page, pagination.perPage)
  return { kind: 'offset', page, creators: admin ? await creatorsOf(ctx.db, page.rows) : new Map() }
}

/**
 * GET /users/:id: any signed-in user may read any user; anonymous callers are refused, as in current GitLab
 * (older versions showed public profiles).
 */
export async function showUser(ctx: Context, id: number): Promise<UsersWithCreators<User>> {
  if (!ctx.caller.user) throw new Forbidden('Not authorized!')
  const user = await findUserById(ctx.db, id)
  if (!user) throw new NotFound('User')
  return { result: user, creators: canReadAllUsers(ctx.caller) ? await creatorsOf(ctx.db, [user]) : new Map() }
}

// ---------------------------------------------------------------------------------------------
// Writing

function candidateOf(user: Omit<NewUserRow, 'password_digest'> & { confirmed: boolean }, password: string | null): UserCandidate {
  return {
    email: user.email,
    name: user.name,
    username: user.username,
    password,
    projectsLimit: user.projects_limit ?? 0,
    bio: user.bio ?? '',
    location: user.location ?? '',
    publicEmail: user.public_email ?? null,
    commitEmail: user.commit_email ?? null,
    websiteUrl: user.website_url ?? '',
    organization: user.organization ?? '',
    jobTitle: user.job_title ?? '',
    pronouns: user.pronouns ?? null,
    skype: user.skype ?? '',
    linkedin: user.linkedin ?? '',
    twitter: user.twitter ?? '',
    discord: user.discord ?? '',
    themeId: user.theme_id ?? 0,
    colorSchemeId: user.color_scheme_id ?? 0,
    confirmed: user.confirmed,
  }
}

/** Profile columns from attributes, cleaned as GitLab's `before_validation` hooks clean them. */
function profileColumns(attributes: UserAttributes): UserUpdate {
  const columns: UserUpdate = {}
  if (attributes.email !== undefined) columns.email = attributes.email.trim().toLowerCase()
  if (attributes.name !== undefined) columns.name = attributes.name
  if (attributes.username !== undefined) columns.username = attributes.username
  if (attributes.skype !== undefined) columns.skype = sanitizeProfileText(attributes.skype)
  if (attributes.linkedin !== undefined) columns.linkedin = sanitizeProfileText(attributes.linkedin)
  if (attributes.twitter !== undefined) columns.twitter = sanitizeProfileText(attributes.twitter)
  if (attributes.discord !== undefined) columns.discord = sanitizeProfileText(attributes.discord)
  if (attributes.websiteUrl !== undefined) columns.website_url = sanitizeProfileText(attributes.websiteUrl)
  if (attributes.organization !== undefined) columns.organization = sanitizePlaceText(attributes.organization)
  if (attributes.location !== undefined) columns.location = sanitizePlaceText(attributes.location)
  if (attributes.jobTitle !== undefined) columns.job_title = attributes.jobTitle
  if (attributes.bio !== undefined) columns.bio = attributes.bio
  if (attributes.pronouns !== undefined) columns.pronouns = attributes.pronouns === '' ? null : attributes.pronouns
  if (attributes.publicEmail !== undefined)
    columns.public_email = attributes.publicEmail.trim() === '' ? null : attributes.publicEmail.trim()
  if (attributes.commitEmail !== undefined)
    columns.commit_email = attributes.commitEmail.trim() === '' ? null : attributes.commitEmail.trim()
  if (attributes.projectsLimit !== undefined) columns.projects_limit = attributes.projectsLimit
  if (attributes.admin !== undefined) columns.admin = flag(attributes.admin)
  if (attributes.canCreateGroup !== undefined) columns.can_create_group = flag(attributes.canCreateGroup)
  if (attributes.external !== undefined) columns.external = flag(attributes.external)
  if (attributes.themeId !== undefined) columns.theme_id = attributes.themeId
  if (attributes.colorSchemeId !== undefined) columns.color_scheme_id = attributes.colorSchemeId
  if (attributes.privateProfile !== undefined) columns.private_profile = flag(attributes.privateProfile)
  if (attributes.note !== undefined) columns.note = attributes.note
  if (attributes.twoFactorEnabled !== undefined) columns.two_factor_enabled = flag(attributes.twoFactorEnabled)
  return columns
}

function hasErrors(errors: ValidationErrors): boolean {
  return Object.keys(errors).length > 0
}

/** A username is taken by another user or by a group's path: users and groups share one path space. */
async function isUsernameTaken(db: Db, username: string, exceptId: number | null = null): Promise<boolean> {
  return (await isUsernameTakenByUser(db, username, exceptId)) || (await isUsernameUsedByNamespace(db, username, exceptId))
}

/** A lost race against another writer ends as the 409 GitLab would have answered. */
async function conflictAfterRace(
  db: Db,
  error: unknown,
  email: string | undefined,
  username: string | undefined,
  exceptId: number | null,
): Promise<never> {
  if (email !== undefined && (await isEmailTaken(db, email, exceptId))) throw new Conflict('Email has already been taken')
  if (username !== undefined && (await isUsernameTaken(db, username, exceptId))) throw new Conflict('Username has already been taken')
  throw error
}

/**
 * POST /users (GL users.rb, Users::CreateService). A user that fails to save gets 409 when its e-mail or
 * username is taken, checked in that order, and otherwise the validation errors.
 */
export async function createUser(ctx: Context, attributes: UserAttributes): Promise<UsersWithCreators<User>> {
  const admin = authorizeAdmin(ctx.caller)
  const at = ctx.now().toISOString()
  const randomlyChosen = attributes.resetPassword === true || attributes.forceRandomPassword === true
  const password = randomlyChosen ? randomPassword() : (attributes.password ?? '')
  const columns = profileColumns(attributes)
  const external = columns.external ?? flag(ctx.settings.user_default_external)
  const row: Omit<NewUserRow, 'password_digest'> = {
    ...columns,
    email: columns.email ?? '',
    name: columns.name ?? '',
    username: columns.username ?? '',
    external,
    // GitLab's `ensure_user_rights_and_limits`: external users may create neither groups nor projects.
    can_create_group: external === 1 ? 0 : (columns.can_create_group ?? flag(ctx.settings.can_create_group)),
    projects_limit: external === 1 ? 0 : (columns.projects_limit ?? ctx.settings.default_projects_limit),
    private_profile: columns.private_profile ?? flag(ctx.settings.user_defaults_to_private_profile),
    theme_id: columns.theme_id ?? 3,
    color_scheme_id: columns.color_scheme_id ?? 1,
    bio: columns.bio ?? '',
    confirmed_at: attributes.skipConfirmation === true ? at : null,
    created_by_id: admin.id,
    created_at: at,
    updated_at: at,
  }
  const changed = new Set(['email', 'name', 'username', ...Object.keys(columns)])
  changed.add('projects_limit')
  const errors = userValidationErrors(candidateOf({ ...row, confirmed: row.confirmed_at !== null }, password), changed, {
    minimumPasswordLength: ctx.settings.minimum_password_length,
  })
  if (await isEmailTaken(ctx.db, row.email)) throw new Conflict('Email has already been taken')
  if (await isUsernameTaken(ctx.db, row.username)) throw new Conflict('Username has already been taken')
  if (hasErrors(errors)) throw new Invalid(errors)
  const digest = await hashPassword(password, ctx.config.passwordHashCost)
  let user: User
  try {
    user = await ctx.db.transaction().execute(async (trx) => {
      const inserted = await insertUser(trx, { ...row, password_digest: digest })
      await createPersonalNamespace(trx, inserted)
      await noticeChange(ctx, trx, { kind: 'user', action: 'create', userId: inserted.id, at: ctx.now() })
      return inserted
    })
  } catch (error) {
    return conflictAfterRace(ctx.db, error, row.email, row.username, null)
  }
  return { result: user, creators: new Map([[admin.id, admin]]) }
}

/**
 * PUT /users/:id (GL users.rb, Users::UpdateService): taken e-mails and usernames are refused with 409 before
 * anything is validated; a password an administrator sets for someone else expires at once.
 */
export async function updateUser(ctx: Context, id: number, attributes: UserAttributes): Promise<UsersWithCreators<User>> {
  const admin = authorizeAdmin(ctx.caller)
  const user = await findUserById(ctx.db, id)
  if (!user) throw new NotFound('User')
  const updated = await saveUserChanges(ctx, user, attributes, admin)
  return { result: updated, creators: await creatorsOf(ctx.db, [updated]) }
}

/** The caller's own row, as it is now. */
async function signedInUser(ctx: Context): Promise<User> {
  const user = ctx.caller.user && (await findUserById(ctx.db, ctx.caller.user.id))
  if (!user) throw new Unauthorized()
  return user
}

/** What users may change on their own profile page (GL UserSettings::ProfilesController#user_params_attributes, as svc keeps them). */
export type OwnProfileAttributes = Pick<
  UserAttributes,
  | 'name'
  | 'pronouns'
  | 'publicEmail'
  | 'websiteUrl'
  | 'location'
  | 'jobTitle'
  | 'organization'
  | 'bio'
  | 'linkedin'
  | 'twitter'
  | 'discord'
  | 'privateProfile'
>

/** The signed-in user's own profile (GL Users::UpdateService from the profile page): the model's rules, in its messages. */
export async function updateOwnProfile(ctx: Context, attributes: OwnProfileAttributes): Promise<User> {
  const user = await signedInUser(ctx)
  const own: UserAttributes = {
    name: attributes.name,
    pronouns: attributes.pronouns,
    publicEmail: attributes.publicEmail,
    websiteUrl: attributes.websiteUrl,
    location: attributes.location,
    jobTitle: attributes.jobTitle,
    organization: attributes.organization,
    bio: attributes.bio,
    linkedin: attributes.linkedin,
    twitter: attributes.twitter,
    discord: attributes.discord,
    privateProfile: attributes.privateProfile,
  }
  return saveUserChanges(ctx, user, own, user)
}

/**
 * The signed-in user's new password (GL UserSettings::PasswordsController#update, after the current password was
 * checked): Devise's presence, confirmation and length rules, in that order.
 */
export async function updateOwnPassword(ctx: Context, input: { password: string; passwordConfirmation: string }): Promise<User> {
  const user = await signedInUser(ctx)
  const rules = { minimumPasswordLength: ctx.settings.minimum_password_length }
  const passwordErrors = userValidationErrors(
    candidateOf({ ...user, confirmed: user.confirmed_at !== null }, input.password),
    new Set(),
    rules,
  )
  const errors: ValidationErrors = {}
  if (input.password !== '' && input.passwordConfirmation !== input.password) errors.password_confirmation = ["doesn't match Password"]
  Object.assign(errors, passwordErrors)
  if (hasErrors(errors)) throw new Invalid(errors)
  return saveUserChanges(ctx, user, { password: input.password }, user)
}

/** Validates and saves `attributes` on `user`, as `actor` (an administrator, or the user themselves). */
async function saveUserChanges(ctx: Context, user: User, attributes: UserAttributes, actor: User): Promise<User> {
  if (attributes.email !== undefined && (await isEmailTaken(ctx.db, attributes.email.trim(), user.id))) {
    throw new Conflict('Email has already been taken')
  }
  if (attributes.username !== undefined && (await isUsernameTaken(ctx.db, attributes.username, user.id))) {
    throw new Conflict('Username has already been taken')
  }
  const at = ctx.now().toISOString()
  const columns = profileColumns(attributes)
  // Only what differs from the stored value counts as changed (ActiveRecord dirty tracking).
  for (const key of Object.keys(columns) as (keyof UserUpdate)[]) {
    if (columns[key] === user[key as keyof User]) delete columns[key]
  }
  if (columns.external !== undefined) {
    if (columns.external === 1) {
      columns.can_create_group = 0
      columns.projects_limit = 0
    } else {
      columns.can_create_group ??= flag(ctx.settings.can_create_group)
      columns.projects_limit ??= ctx.settings.default_projects_limit
    }
  }
  const password = attributes.password ?? null
  const merged = { ...user, ...columns }
  const changed = new Set(Object.keys(columns))
  const errors = userValidationErrors(candidateOf({ ...merged, confirmed: merged.confirmed_at !== null }, password), changed, {
    minimumPasswordLength: ctx.settings.minimum_password_length,
  })
  if (hasErrors(errors)) throw new Invalid(errors)
  // Saving without a change leaves the record (and its updated_at) as it was.
  if (Object.keys(columns).length === 0 && password === null) return user
  const changes: UserUpdate = { ...columns, updated_at: at }
  if (password !== null) {
    changes.password_digest = await hashPassword(password, ctx.config.passwordHashCost)
    // One's own new password is not expired (GL PasswordsController#update clears password_expires_at).
    changes.password_expires_at = actor.id !== user.id ? at : null
  }
  let updated: User | undefined
  try {
    updated = await ctx.db.transaction().execute(async (trx) => {
      const row = await updateUserRow(trx, user.id, changes)
      if (row) await syncPersonalNamespace(trx, row, at)
      // GL User#username_changed_hook.
      if (row && columns.username !== undefined) {
        await noticeChange(ctx, trx, { kind: 'user', action: 'rename', userId: user.id, oldUsername: user.username, at: ctx.now() })
      }
      return row
    })
  } catch (error) {
    return conflictAfterRace(ctx.db, error, columns.email, columns.username, user.id)
  }
  if (!updated) throw new NotFound('User')
  return updated
}

/**
 * DELETE /users/:id. GitLab refuses neither deleting oneself nor the last administrator through the API, and
 * neither does this; the user's tokens go with them. `unmodifiedSince` is the client's If-Unmodified-Since:
 * a user changed after it is kept (GitLab's `destroy_conditionally!`).
 */
export async function deleteUser(ctx: Context, id: number, unmodifiedSince: Date | null = null): Promise<void> {
  authorizeAdmin(ctx.caller)
  const user = await findUserById(ctx.db, id)
  if (!user) throw new NotFound('User')
  if (unmodifiedSince && Date.parse(user.updated_at) > unmodifiedSince.getTime()) throw new PreconditionFailed()
  // Their personal projects and snippets go with the rows; a job removes their repositories once that has committed.
  await ctx.db.transaction().execute(async (trx) => {
    const repositories = await repositoriesOfUser(trx, id)
    await noticeUserDeletion(ctx, trx, user, repositories)
    await scheduleRepositoryRemoval(trx, repositories, ctx.now())
    if (!(await deleteUserRow(trx, id))) throw new NotFound('User')
  })
}

/**
 * Tells of what a user's deletion removes, in GL Users::DestroyService's order and before the rows go: each membership,
 * each personal project, then the user.
 */
async function noticeUserDeletion(ctx: Context, trx: Db, user: User, repositories: { kind: string; id: number }[]) {
  const actorId = ctx.caller.user?.id ?? user.id
  const at = ctx.now()
  for (const row of await currentMembershipsOfUser(trx, user.id, isoDate(at))) {
    const source =
      row.project_id !== null
        ? { type: 'project' as const, id: row.project_id }
        : { type: 'group' as const, id: row.namespace_id as number }
    const { access_level: accessLevel, expires_at: expiresAt } = row
    await noticeChange(ctx, trx, { kind: 'member', action: 'remove', source, userId: user.id, actorId, accessLevel, expiresAt, at })
  }
  for (const repository of repositories) {
    if (repository.kind === 'project')
      await noticeChange(ctx, trx, { kind: 'project', action: 'destroy', projectId: repository.id, actorId, at })
  }
  await noticeChange(ctx, trx, { kind: 'user', action: 'destroy', userId: user.id, at })
}

// ---------------------------------------------------------------------------------------------
// State changes: each answers GitLab's body, `true`, `false` or `null`.

async function findTargetForStateChange(ctx: Context, id: number): Promise<{ admin: User; user: User }> {
  const admin = authorizeAdmin(ctx.caller)
  const user = await findUserById(ctx.db, id)
  if (!user) throw new NotFound('User')
  return { admin, user }
}

async function setState(ctx: Context, user: User, state: string) {
  await updateUserRow(ctx.db, user.id, { state, updated_at: ctx.now().toISOString() })
}

function isBlocked(user: User): boolean {
  return user.state === 'blocked' || user.state === 'ldap_blocked'
}

/** POST /users/:id/block: null when already blocked. */
export async function blockUser(ctx: Context, id: number): Promise<true | null> {
  const { admin, user } = await findTargetForStateChange(ctx, id)
  if (user.state === 'ldap_blocked') throw new Forbidden('LDAP blocked users cannot be modified by the API')
  if (user.id === admin.id) throw new Forbidden('The API initiating user cannot be blocked by the API')
  if (user.state === 'blocked') return null
  await setState(ctx, user, 'blocked')
  return true
}

/** POST /users/:id/unblock: false when there was nothing to unblock (the state machine refuses the transition). */
export async function unblockUser(ctx: Context, id: number): Promise<boolean> {
  const { user } = await findTargetForStateChange(ctx, id)
  if (user.state === 'ldap_blocked') throw new Forbidden('LDAP blocked users cannot be unblocked by the API')
  if (user.state === 'deactivated') throw new Forbidden('Deactivated users cannot be unblocked by the API')
  if (user.state !== 'blocked') return false
  await setState(ctx, user, 'active')
  return true
}

function lastActiveAt(user: User): number | null {
  const moments = [
    user.last_activity_on ? Date.parse(`${user.last_activity_on}T00:00:00.000Z`) : null,
    user.current_sign_in_at ? Date.parse(user.current_sign_in_at) : null,
  ]
  const known = moments.filter((m): m is number => m !== null)
  return known.length === 0 ? null : Math.max(...known)
}

/** POST /users/:id/deactivate (Users::DeactivateService): null when already deactivated. */
export async function deactivateUser(ctx: Context, id: number): Promise<true | null> {
  const { user } = await findTargetForStateChange(ctx, id)
  if (user.state === 'deactivated') return null
  if (isBlocked(user)) throw new Refused('Error occurred. A blocked user cannot be deactivated')
  const active = lastActiveAt(user)
  if (active !== null && active > ctx.now().getTime() - DORMANT_AFTER_DAYS * 86_400_000) {
    throw new Refused(
      `The user you are trying to deactivate has been active in the past ${DORMANT_AFTER_DAYS} days and cannot be deactivated`,
    )
  }
  await setState(ctx, user, 'deactivated')
  return true
}

/** POST /users/:id/activate: false when the user is already active. */
export async function activateUser(ctx: Context, id: number): Promise<boolean> {
  const { user } = await findTargetForStateChange(ctx, id)
  if (isBlocked(user)) throw new Forbidden('A blocked user must be unblocked to be activated')
  if (user.state === 'active') return false
  await setState(ctx, user, 'active')
  return true
}

/**
 * An internal bot account such as the alert bot (GL User.alert_bot), created on first use with its personal
 * namespace. Runs its own transaction, so call it before opening one; two nodes creating it at once both end with
 * the one that won.
 */
export async function ensureInternalUser(db: Db, attributes: { username: string; name: string; email: string }, now: Date): Promise<User> {
  const existing = await findUserByUsername(db, attributes.username)
  if (existing) return existing
  const at = now.toISOString()
  try {
    return await db.transaction().execute(async (trx) => {
      const user = await insertUser(trx, { ...attributes, bot: 1, password_digest: null, confirmed_at: at, created_at: at, updated_at: at })
      await createPersonalNamespace(trx, user)
      return user
    })
  } catch (error) {
    const winner = await findUserByUsername(db, attributes.username)
    if (winner) return winner
    throw error
  }
}

/**
 * The bot user behind a project or group access token (GL user_type project_bot): confirmed, without a password,
 * so it never signs in. Call it inside the transaction that gives the bot its membership and token.
 */
export async function createBotUser(
  trx: Db,
  attributes: { username: string; name: string; email: string; external: boolean; createdById: number },
  at: string,
): Promise<User> {
  const user = await insertUser(trx, {
    username: attributes.username,
    name: attributes.name,
    email: attributes.email,
    bot: 1,
    external: attributes.external ? 1 : 0,
    password_digest: null,
    created_by_id: attributes.createdById,
    confirmed_at: at,
    created_at: at,
    updated_at: at,
  })
  await createPersonalNamespace(trx, user)
  return user
}

/** Blocks the bot of a revoked access token, so that nothing signs in as it again. Call it inside a transaction. */
export async function blockBotUser(trx: Db, userId: number, at: string): Promise<void> {
  await updateUserRow(trx, userId, { state: 'blocked', updated_at: at })
}
