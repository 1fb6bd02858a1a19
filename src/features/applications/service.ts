import { randomBytes } from 'node:crypto'
import { authorizeAdmin } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { Forbidden, Invalid, NotFound, Unauthorized } from '../../core/errors.js'
import { digestToken } from '../../core/secrets.js'
import type { Db } from '../../db/index.js'
import type { OAuthApplicationRow } from '../../db/schema.js'
import { formatScopes, parseScopes } from '../../core/scopes.js'
import { canRegisterApplications } from './policy.js'
import {
  countTokensOfApplications,
  deleteApplication,
  findActiveTokenOfOwner,
  findApplicationById,
  findApplicationOfOwner,
  insertApplication,
  listActiveTokensOfOwner,
  listApplicationRowsOfOwner,
  listInstanceApplicationRows,
  updateApplication,
} from './store.js'
import { isBlank, MESSAGES, normalizeScopes, redirectUriErrors, scopeErrors, splitRedirectUris } from './validation.js'

type Application = OAuthApplicationRow

/** Client secrets start with this (GitLab: `gloas-`, Gitlab::DoorkeeperSecretStoring::Token::UniqueApplicationToken). */
export const APPLICATION_SECRET_PREFIX = 'svcoas-'

export interface ApplicationInput {
  name: string
  /** One or more URIs separated by whitespace (one per line in the form). */
  redirectUri: string
  /** Space-separated, or one name per item (the form's checkboxes). */
  scopes: string | readonly string[]
  confidential: boolean
}

/** An application with its client secret in plain text: only just after it was made or renewed. */
export interface ApplicationWithSecret {
  application: Application
  secret: string
}

export interface OwnApplication {
  application: Application
  /** Tokens issued to it, revoked or not (GitLab's "Clients" column). */
  tokenCount: number
}

/** An application the user let act for them, as its newest token that is still in force shows it. */
export interface AuthorizedApplication {
  /** Null for a token issued without an application (password grant without client credentials). */
  applicationId: number | null
  applicationName: string | null
  tokenId: number
  scopes: string[]
  authorizedAt: string
}

/** Doorkeeper's UniqueToken: 64 lower-case hex characters. */
function generateUid(): string {
  return randomBytes(32).toString('hex')
}

function generateSecret(): string {
  return APPLICATION_SECRET_PREFIX + randomBytes(32).toString('hex')
}

/** Checks the fields in Doorkeeper's validation order and returns them as stored, or throws Invalid. */
function checkApplication(input: ApplicationInput): { name: string; redirect_uri: string; scopes: string; confidential: 0 | 1 } {
  const errors: Record<string, string[]> = {}
  if (isBlank(input.name)) errors.name = [MESSAGES.blank]
  const uriErrors = redirectUriErrors(input.redirectUri)
  if (uriErrors.length > 0) errors.redirect_uri = uriErrors
  const scopes = normalizeScopes(input.scopes)
  const badScopes = scopeErrors(scopes)
  if (badScopes.length > 0) errors.scopes = badScopes
  if (Object.keys(errors).length > 0) throw new Invalid(errors)
  return {
    name: input.name,
    redirect_uri: splitRedirectUris(input.redirectUri).join('\n'),
    scopes: formatScopes(scopes),
    confidential: input.confidential ? 1 : 0,
  }
}

async function insertNewApplication(ctx: Context, input: ApplicationInput, ownerId: number | null): Promise<ApplicationWithSecret> {
  const fields = checkApplication(input)
  const secret = generateSecret()
  const at = ctx.now().toISOString()
  const application = await insertApplication(ctx.db, {
    ...fields,
    uid: generateUid(),
    secret_digest: digestToken(secret),
    owner_id: ownerId,
    created_at: at,
    updated_at: at,
  })
  return { application, secret }
}

async function replaceSecret(ctx: Context, application: Application): Promise<ApplicationWithSecret> {
  const secret = generateSecret()
  const updated = await updateApplication(ctx.db, application.id, {
    secret_digest: digestToken(secret),
    updated_at: ctx.now().toISOString(),
  })
  return { application: updated, secret }
}

// Instance-wide applications: the administrators' API (GL lib/api/applications.rb).

export async function createInstanceApplication(ctx: Context, input: ApplicationInput): Promise<ApplicationWithSecret> {
  authorizeAdmin(ctx.caller)
  return insertNewApplication(ctx, input, null)
}

export async function listInstanceApplications(ctx: Context): Promise<Application[]> {
  authorizeAdmin(ctx.caller)
  return listInstanceApplicationRows(ctx.db)
}

/** Any application by its numeric id, users' ones too (GL ApplicationsFinder#by_id). */
async function findAnyApplication(ctx: Context, id: number): Promise<Application> {
  authorizeAdmin(ctx.caller)
  const application = await findApplicationById(ctx.db, id)
  if (!application) throw new NotFound('Application')
  return application
}

export async function deleteAnyApplication(ctx: Context, id: number): Promise<void> {
  const application = await findAnyApplication(ctx, id)
  await deleteApplication(ctx.db, application.id)
}

export async function renewAnyApplicationSecret(ctx: Context, id: number): Promise<ApplicationWithSecret> {
  return replaceSecret(ctx, await findAnyApplication(ctx, id))
}

// The signed-in user's own applications: the user settings pages (GL Oauth::ApplicationsController).

function requireUser(ctx: Context) {
  if (!ctx.caller.user) throw new Unauthorized()
  return ctx.caller.user
}

/** The user settings pages refuse every change while users may not register applications (GL verify_user_oauth_applications_enabled). */
function requireRegistration(ctx: Context) {
  const user = requireUser(ctx)
  if (!canRegisterApplications(ctx.caller, ctx.settings)) throw new Forbidden()
  return user
}

export async function listOwnApplications(ctx: Context): Promise<OwnApplication[]> {
  const user = requireUser(ctx)
  const applications = await listApplicationRowsOfOwner(ctx.db, user.id)
  const counts = await countTokensOfApplications(
    ctx.db,
    applications.map((application) => application.id),
  )
  return applications.map((application) => ({ application, tokenCount: counts.get(application.id) ?? 0 }))
}

/** One of the user's applications; others' are not found, as if they did not exist. */
export async function findOwnApplication(ctx: Context, id: number): Promise<Application> {
  const user = requireRegistration(ctx)
  const application = await findApplicationOfOwner(ctx.db, user.id, id)
  if (!application) throw new NotFound('Application')
  return application
}

export async function createOwnApplication(ctx: Context, input: ApplicationInput): Promise<ApplicationWithSecret> {
  const user = requireRegistration(ctx)
  return insertNewApplication(ctx, input, user.id)
}

export async function updateOwnApplication(ctx: Context, id: number, input: ApplicationInput): Promise<Application> {
  const application = await findOwnApplication(ctx, id)
  const fields = checkApplication(input)
  return updateApplication(ctx.db, application.id, { ...fields, updated_at: ctx.now().toISOString() })
}

export async function renewOwnApplicationSecret(ctx: Context, id: number): Promise<ApplicationWithSecret> {
  return replaceSecret(ctx, await findOwnApplication(ctx, id))
}

export async function deleteOwnApplication(ctx: Context, id: number): Promise<void> {
  const application = await findOwnApplication(ctx, id)
  await deleteApplication(ctx.db, application.id)
}

// Applications the user authorized (GL Oauth::AuthorizedApplicationsController).

/** One entry per application (its newest token in force), and one per token given without an application. */
export async function listAuthorizedApplications(ctx: Context): Promise<AuthorizedApplication[]> {
  const user = requireUser(ctx)
  const tokens = await listActiveTokensOfOwner(ctx.db, user.id)
  const seen = new Set<number>()
  const authorized: AuthorizedApplication[] = []
  for (const token of tokens) {
    if (token.application_id !== null) {
      if (seen.has(token.application_id)) continue
      seen.add(token.application_id)
    }
    authorized.push({
      applicationId: token.application_id,
      applicationName: token.application_name ?? null,
      tokenId: token.id,
      scopes: parseScopes(token.scopes),
      authorizedAt: token.created_at,
    })
  }
  return authorized
}

/**
 * How tokens and codes a user gave applications are revoked, from the feature that owns them (oauth, which sits
 * above applications); the app passes it to the authorized applications pages. `at` is an ISO 8601 time.
 */
export interface AuthorizationRevoker {
  /** Every token and unused code the user gave an application; runs inside a transaction. */
  revokeAuthorization(trx: Db, userId: number, applicationId: number, at: string): Promise<void>
  /** One token of the user's. */
  revokeOwnToken(db: Db, userId: number, tokenId: number, at: string): Promise<void>
}

/** Takes back what the user gave an application: every token and unused code; nothing to revoke is not an error. */
export async function revokeAuthorizedApplication(ctx: Context, applicationId: number, revoker: AuthorizationRevoker): Promise<void> {
  const user = requireUser(ctx)
  await ctx.db.transaction().execute((trx) => revoker.revokeAuthorization(trx, user.id, applicationId, ctx.now().toISOString()))
}

/** Revokes one of the user's tokens in force; any other token is not found. */
export async function revokeAuthorizedToken(ctx: Context, tokenId: number, revoker: AuthorizationRevoker): Promise<void> {
  const user = requireUser(ctx)
  const token = await findActiveTokenOfOwner(ctx.db, user.id, tokenId)
  if (!token) throw new NotFound('Token')
  await revoker.revokeOwnToken(ctx.db, user.id, token.id, ctx.now().toISOString())
}
