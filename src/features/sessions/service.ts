import { randomBytes } from 'node:crypto'
import Tokens from '@fastify/csrf'
import { parseCookie } from 'cookie'
import type { User } from '../../core/caller.js'
import { digestToken } from '../../core/secrets.js'
import type { Settings } from '../../core/settings.js'
import type { Db } from '../../db/index.js'
import type { SessionRow } from '../../db/schema.js'
import { findUserForAuthentication } from '../users/index.js'
import { deleteSession, deleteUserSessions, findSessionByDigest, insertSession, updateSession } from './store.js'

/** The session cookie (spec: Authentication). */
export const SESSION_COOKIE = '_svc_session'
/** A visitor's session (nobody signed in) lives this long: long enough to fill in a form. */
const VISITOR_SESSION_MS = 2 * 60 * 60 * 1000
/** A session's expiry moves forward at most this often, so a busy session does not write on every request. */
const TOUCH_INTERVAL_MS = 60 * 1000

export type Session = SessionRow

const csrf = Tokens()

function sessionLifetimeMs(userId: number | null, settings: Settings): number {
  return userId === null ? VISITOR_SESSION_MS : settings.session_expire_delay * 60 * 1000
}

/** The live session a cookie value names, its expiry moved forward; null when there is none. */
export async function findSession(db: Db, cookieValue: string | undefined, settings: Settings, now: Date): Promise<Session | null> {
  if (!cookieValue) return null
  const [found] = await findSessionByDigest(db, digestToken(cookieValue))
  if (!found || Date.parse(found.expires_at) <= now.getTime()) return null
  // The request's own copy: what it changes (expiry, return_to) is written back as it goes; read rows are shared.
  const session = { ...found }
  if (now.getTime() - Date.parse(session.updated_at) >= TOUCH_INTERVAL_MS) {
    const expiresAt = new Date(now.getTime() + sessionLifetimeMs(session.user_id, settings)).toISOString()
    await updateSession(db, session.id, { updated_at: now.toISOString(), expires_at: expiresAt })
    session.updated_at = now.toISOString()
    session.expires_at = expiresAt
  }
  return session
}

/**
 * The session a request's Cookie header names, and its user, who counts only while active: blocked and
 * deactivated users' sessions end with their access (Devise's active_for_authentication?).
 */
export async function findRequestSession(
  db: Db,
  cookieHeader: string | undefined,
  settings: Settings,
  now: Date,
): Promise<{ session: Session | null; user: User | null }> {
  const session = await findSession(db, parseCookie(cookieHeader ?? '')[SESSION_COOKIE], settings, now)
  if (!session?.user_id) return { session, user: null }
  const [user] = await findUserForAuthentication(db, session.user_id)
  return { session, user: user?.state === 'active' ? user : null }
}

export interface NewSession {
  session: Session
  /** The cookie's value; only its digest is stored. */
  cookieValue: string
}

/** A new session, for a visitor (`userId` null) or for someone who just signed in. */
export async function startSession(
  db: Db,
  input: { userId: number | null; impersonatorId?: number | null; returnTo?: string | null; ip: string; userAgent: string | null },
  settings: Settings,
  now: Date,
): Promise<NewSession> {
  const cookieValue = randomBytes(32).toString('base64url')
  const at = now.toISOString()
  const session = await insertSession(db, {
    session_digest: digestToken(cookieValue),
    user_id: input.userId,
    impersonator_id: input.impersonatorId ?? null,
    csrf_secret: csrf.secretSync(),
    return_to: input.returnTo ?? null,
    ip: input.ip,
    user_agent: input.userAgent,
    created_at: at,
    updated_at: at,
    expires_at: new Date(now.getTime() + sessionLifetimeMs(input.userId, settings)).toISOString(),
  })
  return { session, cookieValue }
}

export async function endSession(db: Db, session: Session) {
  await deleteSession(db, session.id)
}

/** Ends every session of the user, wherever they signed in. */
export async function endUserSessions(db: Db, userId: number) {
  await deleteUserSessions(db, userId)
}

export async function setReturnTo(db: Db, session: Session, returnTo: string | null) {
  await updateSession(db, session.id, { return_to: returnTo })
  session.return_to = returnTo
}

/** A notice or an alert for a page to show (Rails' flash). */
export interface Flash {
  kind: 'notice' | 'alert'
  text: string
  /** Values the next page shows once beside the message (Rails' `flash[:key]`), such as a token made just now. */
  values?: Record<string, string>
}

/** Keeps `flash` for the next page the session sees, or forgets it (null). */
export async function setFlash(db: Db, session: Session, flash: Flash | null) {
  const value = flash === null ? null : JSON.stringify(flash)
  await updateSession(db, session.id, { flash: value })
  session.flash = value
}

/** The flash the session keeps, if any. */
export function keptFlash(session: Session | null): Flash | null {
  return session?.flash ? (JSON.parse(session.flash) as Flash) : null
}

/** A fresh CSRF token for the session's forms; each is different, and every one verifies (BREACH-safe, like Rails' masked tokens). */
export function csrfTokenOf(session: Session): string {
  return csrf.create(session.csrf_secret)
}

export function isValidCsrfToken(session: Session, token: unknown): boolean {
  return typeof token === 'string' && token !== '' && csrf.verify(session.csrf_secret, token)
}
