import { randomBytes } from 'node:crypto'
import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { Invalid } from '../../core/errors.js'
import { digestToken } from '../../core/secrets.js'
import type { Db } from '../../db/index.js'
import type { AccountTokenPurpose } from '../../db/schema.js'
import { mailButton, mailLayout, queueMails, type OutgoingMail } from '../mail/index.js'
import { findUserByEmail, findUserForAuthentication, unlockUser, updateOwnPassword } from '../users/index.js'
import { html } from '../../web/html.js'
import { endUserSessions } from './service.js'
import { deleteAccountToken, findAccountToken, findAccountTokenByDigest, replaceAccountToken } from './store.js'

// Devise's recoverable and lockable as GitLab configures them (GL config/initializers/devise.rb, paranoid mode): a
// link by e-mail resets a forgotten password or unlocks a locked account. Only the links' digests are kept.

/** GL devise.rb `reset_password_within = 2.days`. */
export const RESET_PASSWORD_WITHIN_MS = 2 * 24 * 60 * 60_000
/** GL User#recently_sent_password_reset?: a new reset link at most once a minute per account. */
export const RESET_PASSWORD_RESEND_AFTER_MS = 60_000
/** GL devise.rb `unlock_in` (`failed_login_attempts_unlock_period_in_minutes || 10`). */
const DEFAULT_UNLOCK_IN_MINUTES = 10

export const RESET_PASSWORD_PATH = '/users/password'
export const NEW_PASSWORD_PATH = '/users/password/new'
export const EDIT_PASSWORD_PATH = '/users/password/edit'
export const UNLOCK_PATH = '/users/unlock'
export const NEW_UNLOCK_PATH = '/users/unlock/new'

/** Devise's friendly_token: 20 URL-safe characters. */
function newLinkToken(): string {
  return randomBytes(15).toString('base64url')
}

function unlockInMinutes(ctx: Context): number {
  return ctx.settings.failed_login_attempts_unlock_period_in_minutes ?? DEFAULT_UNLOCK_IN_MINUTES
}

/** Rails' distance_of_time_in_words for a whole number of minutes, as the unlock mail words the unlock period. */
export function minutesInWords(minutes: number): string {
  const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`
  if (minutes < 45) return plural(Math.max(minutes, 1), 'minute')
  if (minutes < 90) return 'about 1 hour'
  if (minutes < 1440) return `about ${plural(Math.round(minutes / 60), 'hour')}`
  if (minutes < 2520) return '1 day'
  if (minutes < 43_200) return plural(Math.round(minutes / 1440), 'day')
  if (minutes < 86_400) return `about ${plural(Math.round(minutes / 43_200), 'month')}`
  if (minutes < 525_600) return plural(Math.round(minutes / 43_200), 'month')
  const years = Math.floor(minutes / 525_600)
  const rest = minutes % 525_600
  if (rest < 131_400) return `about ${plural(years, 'year')}`
  if (rest < 394_200) return `over ${plural(years, 'year')}`
  return `almost ${plural(years + 1, 'year')}`
}

/** Keeps the digest of a new link for `purpose` (replacing the previous one) and answers the link's token. */
async function issueLinkToken(ctx: Context, db: Db, user: User, purpose: AccountTokenPurpose): Promise<string> {
  const token = newLinkToken()
  await replaceAccountToken(db, { user_id: user.id, purpose, token_digest: digestToken(token), created_at: ctx.now().toISOString() })
  return token
}

/** GL app/views/devise/mailer/reset_password_instructions.{text,html}, sent by DeviseMailer. */
function resetPasswordMail(ctx: Context, user: User, token: string): OutgoingMail {
  const base = ctx.config.externalUrl
  const link = `${base}${EDIT_PASSWORD_PATH}?reset_password_token=${token}`
  const subject = 'Reset password instructions'
  return {
    to: user.email,
    toUserId: user.id,
    subject,
    text: [
      `Hello, ${user.name}!`,
      '',
      `Someone, hopefully you, has requested to reset the password for your svc account on ${base}.`,
      '',
      'If you did not perform this request, you can safely ignore this email.',
      '',
      'Otherwise, click the link below to complete the process:',
      '',
      link,
      '',
    ].join('\n'),
    html: mailLayout(
      ctx,
      subject,
      html`<h1 style="margin:0 0 16px;font-size:20px;">Hello, ${user.name}!</h1>
        <p>Someone, hopefully you, has requested to reset the password for your svc account on <a href="${base}" style="color:#1f75cb;">${base}</a>.</p>
        <p>If you did not perform this request, you can safely ignore this email.</p>
        <p>Otherwise, click the link below to complete the process.</p>
        <p style="margin:24px 0;">${mailButton(link, 'Reset password')}</p>`,
    ),
    // GL DeviseMailer#reset_password_instructions: delivered even to an address Mailgun would suppress.
    headers: { 'X-Mailgun-Suppressions-Bypass': 'true' },
  }
}

/** GL app/views/devise/mailer/unlock_instructions.{text,html}. */
function unlockMail(ctx: Context, user: User, token: string): OutgoingMail {
  const link = `${ctx.config.externalUrl}${UNLOCK_PATH}?unlock_token=${token}`
  const duration = minutesInWords(unlockInMinutes(ctx))
  const locked =
    'Your svc account has been locked due to an excessive number of unsuccessful sign in attempts. ' +
    `You can wait for your account to automatically unlock in ${duration} or you can click the link below to unlock now.`
  const advice =
    'If you did not initiate these sign-in attempts, please reach out to your administrator or enable two-factor authentication (2FA) on your account.'
  const subject = 'Unlock Instructions'
  return {
    to: user.email,
    toUserId: user.id,
    subject,
    text: [`Hello, ${user.name}!`, '', locked, '', link, '', advice, ''].join('\n'),
    html: mailLayout(
      ctx,
      subject,
      html`<h1 style="margin:0 0 16px;font-size:20px;">Hello, ${user.name}!</h1>
        <p>${locked}</p>
        <p style="margin:24px 0;">${mailButton(link, 'Unlock account')}</p>
        <p>${advice}</p>`,
    ),
    headers: {},
  }
}

/**
 * POST /users/password (GL PasswordsController#create, Devise paranoid): mails a reset link to the account with this
 * primary e-mail, unless one went less than a minute ago. Whether an account has the address is never told.
 */
export async function requestPasswordReset(ctx: Context, email: unknown): Promise<void> {
  if (typeof email !== 'string' || email.trim() === '') return
  const user = await findUserByEmail(ctx.db, email.trim())
  if (!user) return
  await ctx.db.transaction().execute(async (trx) => {
    const previous = await findAccountToken(trx, user.id, 'reset_password')
    if (previous && Date.parse(previous.created_at) + RESET_PASSWORD_RESEND_AFTER_MS > ctx.now().getTime()) return
    const token = await issueLinkToken(ctx, trx, user, 'reset_password')
    await queueMails(ctx, trx, [resetPasswordMail(ctx, user, token)])
  })
}

export type ResetLink = { kind: 'valid'; user: User } | { kind: 'expired'; email: string | null }

/**
 * What a reset link names (GL PasswordsController#edit): the user while the link is younger than
 * RESET_PASSWORD_WITHIN_MS; an unknown link counts as expired, as GitLab's `first_or_initialize` makes it.
 */
export async function findResetLink(ctx: Context, token: string): Promise<ResetLink> {
  const row = await findAccountTokenByDigest(ctx.db, 'reset_password', digestToken(token))
  const [user] = row ? await findUserForAuthentication(ctx.db, row.user_id) : []
  if (!row || !user) return { kind: 'expired', email: null }
  if (Date.parse(row.created_at) + RESET_PASSWORD_WITHIN_MS <= ctx.now().getTime()) return { kind: 'expired', email: user.email }
  return { kind: 'valid', user }
}

/** The service Context acting as `user`, for the rules a user's own password change follows. */
function actingAs(ctx: Context, user: User): Context {
  return { ...ctx, caller: { user, credential: null, sudoFrom: null } }
}

/**
 * Sets the password of the account a reset link names (Devise's reset_password_by_token): the link must be known
 * and young enough, the password pass the model's rules (presence, confirmation, length). The link is then used up,
 * the account unlocked (GitLab's unlock strategy includes e-mail) and every session of the user ended (Devise's
 * session salt changes with the password). Refusals name `reset_password_token`, `password` or `password_confirmation`.
 */
export async function resetPasswordByToken(
  ctx: Context,
  token: unknown,
  input: { password: string; passwordConfirmation: string },
): Promise<User> {
  if (typeof token !== 'string' || token === '') throw new Invalid({ reset_password_token: ["can't be blank"] })
  const digest = digestToken(token)
  const row = await findAccountTokenByDigest(ctx.db, 'reset_password', digest)
  const [user] = row ? await findUserForAuthentication(ctx.db, row.user_id) : []
  if (!row || !user) throw new Invalid({ reset_password_token: ['is invalid'] })
  if (Date.parse(row.created_at) + RESET_PASSWORD_WITHIN_MS <= ctx.now().getTime()) {
    throw new Invalid({ reset_password_token: ['has expired, please request a new one'] })
  }
  const updated = await updateOwnPassword(actingAs(ctx, user), input)
  // Used once: a second request with the same link finds nothing.
  if (!(await deleteAccountToken(ctx.db, user.id, 'reset_password', digest))) throw new Invalid({ reset_password_token: ['is invalid'] })
  await unlockAccount(ctx, updated)
  await endUserSessions(ctx.db, user.id)
  return (await findUserForAuthentication(ctx.db, user.id))[0] ?? updated
}

/**
 * Locks happen in sessions' password check; this mails the link that lifts one (Devise's send_unlock_instructions,
 * `unlock_strategy :both`), in `db`, the transaction that locked the account.
 */
export async function sendUnlockInstructions(ctx: Context, db: Db, user: User): Promise<void> {
  const token = await issueLinkToken(ctx, db, user, 'unlock')
  await queueMails(ctx, db, [unlockMail(ctx, user, token)])
}

/** GET /users/unlock?unlock_token= (Devise's unlock_access_by_token): the user it unlocked, or null for an unknown link. */
export async function unlockByToken(ctx: Context, token: unknown): Promise<User | null> {
  if (typeof token !== 'string' || token === '') return null
  const row = await findAccountTokenByDigest(ctx.db, 'unlock', digestToken(token))
  if (!row) return null
  const [user] = await findUserForAuthentication(ctx.db, row.user_id)
  if (!user) return null
  return unlockAccount(ctx, user)
}

/** Lifts a lock and forgets the failed attempts and the unlock link (Devise's unlock_access!). */
export async function unlockAccount(ctx: Context, user: User): Promise<User> {
  const unlocked = await unlockUser(ctx.db, user.id, ctx.now().toISOString())
  await deleteAccountToken(ctx.db, user.id, 'unlock')
  return unlocked ?? user
}

/**
 * POST /users/unlock (Devise's UnlocksController#create, paranoid): a locked account with this e-mail gets a new
 * unlock link; nobody learns whether one has it.
 */
export async function resendUnlockInstructions(ctx: Context, email: unknown): Promise<void> {
  if (typeof email !== 'string' || email.trim() === '') return
  const user = await findUserByEmail(ctx.db, email.trim())
  if (!user || user.locked_at === null) return
  if (Date.parse(user.locked_at) + unlockInMinutes(ctx) * 60_000 <= ctx.now().getTime()) return
  await ctx.db.transaction().execute((trx) => sendUnlockInstructions(ctx, trx, user))
}

/**
 * A new password set by an administrator from the command line (GL gitlab:password:reset): the user's own rules
 * apply and every session of the user ends, as after any change of password.
 */
export async function setPasswordFromCommandLine(
  ctx: Context,
  user: User,
  input: { password: string; passwordConfirmation: string },
): Promise<User> {
  const updated = await updateOwnPassword(actingAs(ctx, user), input)
  await endUserSessions(ctx.db, user.id)
  return updated
}
