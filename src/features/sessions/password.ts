import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { hashPassword, verifyPassword } from '../../core/secrets.js'
import { noticeChange } from '../change-notices/index.js'
import {
  findUserByLogin,
  findUserForAuthentication,
  lockUser,
  recordFailedSignIn,
  recordSignIn,
  resetFailedSignIns,
} from '../users/index.js'
import { sendUnlockInstructions, unlockAccount } from './recovery.js'

// Devise's failure texts as GitLab shows them (GL config/locales/devise.en.yml; spec/features/users/login_spec.rb,
// spec/controllers/sessions_controller_spec.rb), with the brand written as svc.
export const INVALID_LOGIN_MESSAGE = 'Invalid login or password.'
export const BLOCKED_MESSAGE = 'Your account has been blocked. Please contact your svc administrator if you think this is an error.'
export const PENDING_APPROVAL_MESSAGE =
  'Your account is pending approval from your svc administrator and hence blocked. Please contact your svc administrator if you think this is an error.'
export const FORBIDDEN_MESSAGE =
  'Your account does not have the required permission to login. Please contact your svc administrator if you think this is an error.'
/** GL SessionsController#create: a deactivated user who signs in on the web is active again. */
export const REACTIVATED_MESSAGE = 'Welcome back! Your account had been deactivated due to inactivity but is now reactivated.'

/** GL config/initializers/devise.rb: `max_login_attempts || 10`, `failed_login_attempts_unlock_period_in_minutes || 10`. */
const DEFAULT_MAX_LOGIN_ATTEMPTS = 10
const DEFAULT_UNLOCK_IN_MINUTES = 10

const BLOCKED_STATES = new Set(['blocked', 'ldap_blocked', 'banned'])

/** The outcome of checking a login and password, before anything about the account's state is decided. */
type PasswordCheck = { kind: 'valid'; user: User } | { kind: 'invalid' }

export type WebSignIn = { kind: 'signed_in'; user: User; reactivated: boolean } | { kind: 'refused'; message: string }

const unknownUserDigests = new Map<number, Promise<string>>()

/** A digest to check against when nobody has the login, so an unknown login costs as much as a wrong password. */
function digestForUnknownUser(ctx: Context): Promise<string> {
  const cost = ctx.config.passwordHashCost
  let digest = unknownUserDigests.get(cost)
  if (!digest) unknownUserDigests.set(cost, (digest = hashPassword('svc unknown user', cost)))
  return digest
}

function maxLoginAttempts(ctx: Context): number {
  return ctx.settings.max_login_attempts ?? DEFAULT_MAX_LOGIN_ATTEMPTS
}

function unlockInMs(ctx: Context): number {
  return (ctx.settings.failed_login_attempts_unlock_period_in_minutes ?? DEFAULT_UNLOCK_IN_MINUTES) * 60_000
}

/**
 * Devise's lockable `valid_for_authentication?`: a lock older than the unlock period is lifted first (counters
 * reset); a wrong password, or any password while locked, counts one failed attempt, and reaching the limit
 * locks the account. Locked or not, the caller learns only that the check failed (GitLab runs Devise in
 * paranoid mode, so the locked message is never shown).
 */
async function checkPassword(ctx: Context, login: unknown, password: unknown): Promise<PasswordCheck> {
  if (typeof login !== 'string' || login.trim() === '' || typeof password !== 'string') return { kind: 'invalid' }
  const found = await findUserByLogin(ctx.db, login)
  if (!found) {
    await verifyPassword(password, await digestForUnknownUser(ctx))
    return { kind: 'invalid' }
  }
  let user: User = found
  const now = ctx.now()
  const at = now.toISOString()
  if (user.locked_at !== null && Date.parse(user.locked_at) + unlockInMs(ctx) <= now.getTime()) {
    user = await unlockAccount(ctx, user)
  }
  const matches = user.password_digest !== null && (await verifyPassword(password, user.password_digest))
  if (matches && user.locked_at === null) return { kind: 'valid', user }
  await countFailedAttempt(ctx, user, at)
  return { kind: 'invalid' }
}

/**
 * Counts a failed password for the user and locks the account once the attempts reach the limit; the lock and the
 * mail with its unlock link commit together (Devise's lock_access!, `unlock_strategy :both`).
 */
async function countFailedAttempt(ctx: Context, user: User, at: string) {
  const attempts = await recordFailedSignIn(ctx.db, user.id, at)
  if (attempts < maxLoginAttempts(ctx) || user.locked_at !== null) return
  await ctx.db.transaction().execute(async (trx) => {
    if (await lockUser(trx, user.id, at)) await sendUnlockInstructions(ctx, trx, user)
  })
}

/**
 * Whether `password` is the signed-in user's own, asked before a change to their account (GL
 * UserSettings::PasswordsController#update): a wrong one counts as a failed attempt, and reaching the limit locks
 * the account (GL User#increment_failed_attempts!).
 */
export async function isCurrentPassword(ctx: Context, password: unknown): Promise<boolean> {
  const caller = ctx.caller.user
  if (!caller) return false
  const [user] = await findUserForAuthentication(ctx.db, caller.id)
  if (!user) return false
  const matches = typeof password === 'string' && user.password_digest !== null && (await verifyPassword(password, user.password_digest))
  if (!matches) await countFailedAttempt(ctx, user, ctx.now().toISOString())
  return matches
}

/** Devise's `inactive_message` as GitLab defines it (GL app/models/user.rb); null when the user may sign in. */
function inactiveMessage(user: User): string | null {
  if (user.state === 'blocked_pending_approval') return PENDING_APPROVAL_MESSAGE
  if (BLOCKED_STATES.has(user.state)) return BLOCKED_MESSAGE
  if (user.bot === 1) return FORBIDDEN_MESSAGE
  return null
}

/**
 * Web sign-in with a login (username or e-mail) and password. On success the failed attempts are reset and the
 * sign-in recorded as Devise's trackable records it; a deactivated user is reactivated. Users with two-factor
 * authentication on sign in with their password alone: there is no second factor to ask for yet.
 */
export async function signInWithPassword(ctx: Context, login: unknown, password: unknown, ip: string): Promise<WebSignIn> {
  const check = await checkPassword(ctx, login, password)
  if (check.kind === 'invalid') return { kind: 'refused', message: INVALID_LOGIN_MESSAGE }
  const { user } = check
  const inactive = inactiveMessage(user)
  if (inactive === BLOCKED_MESSAGE) {
    // GL Gitlab::Auth::BlockedUserTracker: a blocked user who knew the password is told of as user_failed_login.
    const change = { kind: 'user', action: 'failed_login', userId: user.id, at: ctx.now() } as const
    await ctx.db.transaction().execute((trx) => noticeChange(ctx, trx, change))
  }
  if (inactive) return { kind: 'refused', message: inactive }
  const reactivated = user.state === 'deactivated'
  const updated = await recordSignIn(ctx.db, user, ip, ctx.now())
  return { kind: 'signed_in', user: updated ?? user, reactivated }
}

/**
 * The password check for credentials sent to the API side (the OAuth password grant): the same lockout as the
 * web form (failed attempts counted, locks respected and lifted after the unlock period, a success resets the
 * count), but only active users pass, nothing is recorded as a web sign-in, and it answers null whenever
 * `password_authentication_enabled_for_git` is off (GL Gitlab::Auth.find_with_user_password). Two-factor
 * users are the caller's to refuse before calling this.
 */
export async function authenticateWithPassword(ctx: Context, login: string, password: string): Promise<User | null> {
  if (!ctx.settings.password_authentication_enabled_for_git) return null
  const check = await checkPassword(ctx, login, password)
  if (check.kind === 'invalid' || check.user.state !== 'active' || check.user.bot === 1) return null
  const { user } = check
  if (user.failed_attempts === 0) return user
  return (await resetFailedSignIns(ctx.db, user.id, ctx.now().toISOString())) ?? user
}
