import { createHash } from 'node:crypto'
import { AccessLevel } from '../../core/access.js'
import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { isoDate } from '../../core/time.js'
import { avatarUrlOf } from '../namespaces/index.js'
import { loadSigningKey } from './signing-key.js'
import { selectDirectGroupMemberships, selectMembershipGroupPaths } from './store.js'

/** Where a claim is given: the ID token, the userinfo answer, or both (doorkeeper-openid_connect `response:`). */
export type ClaimResponse = 'id_token' | 'user_info'

/** The claim naming the groups where the user has one role; svc's name for https://gitlab.org/claims/groups/<role>. */
const roleClaim = (role: string) => `https://svc.org/claims/groups/${role}`

/**
 * The claims GitLab declares, in its order, each with where it is given (GL config/initializers/
 * doorkeeper_openid_connect.rb; the gem's default response is userinfo only). All need the `openid` scope.
 */
const CLAIMS: { name: string; responses: readonly ClaimResponse[] }[] = [
  { name: 'sub_legacy', responses: ['id_token', 'user_info'] },
  { name: 'name', responses: ['user_info'] },
  { name: 'nickname', responses: ['user_info'] },
  { name: 'preferred_username', responses: ['user_info'] },
  { name: 'email', responses: ['id_token', 'user_info'] },
  { name: 'email_verified', responses: ['id_token', 'user_info'] },
  { name: 'website', responses: ['user_info'] },
  { name: 'profile', responses: ['user_info'] },
  { name: 'picture', responses: ['user_info'] },
  { name: 'groups', responses: ['user_info'] },
  { name: 'groups_direct', responses: ['id_token'] },
  { name: roleClaim('owner'), responses: ['user_info'] },
  { name: roleClaim('maintainer'), responses: ['user_info'] },
  { name: roleClaim('developer'), responses: ['user_info'] },
]

/** Every claim the provider may give, as discovery lists them (the registered ones first, as the gem adds them). */
export const SUPPORTED_CLAIMS: readonly string[] = ['iss', 'sub', 'aud', 'exp', 'iat', ...CLAIMS.map((claim) => claim.name)]

/** GitLab's User#full_website_url: a website without a scheme is taken as http. */
function fullWebsiteUrl(website: string): string {
  return /^https?:\/\//.test(website) ? website : `http://${website}`
}

/**
 * `email_verified`: with the `email` scope, whether the primary address is confirmed; else whether the public
 * address is verified (GitLab only lets a verified address be public), absent without a public address.
 */
function emailVerified(user: User, withEmailScope: boolean): boolean | null {
  if (withEmailScope) return user.confirmed_at !== null
  if (!user.public_email) return null
  return user.public_email !== user.email || user.confirmed_at !== null
}

/** A user's claims for one response, in GitLab's order, blank ones left out (the gem drops nil and ''). */
export async function userClaims(
  ctx: Context,
  user: User,
  scopes: readonly string[],
  response: ClaimResponse,
): Promise<Record<string, unknown>> {
  if (!scopes.includes('openid')) return {}
  const wanted = CLAIMS.filter((claim) => claim.responses.includes(response)).map((claim) => claim.name)
  const today = isoDate(ctx.now())
  const [key, direct, membership] = await Promise.all([
    loadSigningKey(ctx),
    selectDirectGroupMemberships(ctx.db, user.id, today),
    wanted.includes('groups') ? selectMembershipGroupPaths(ctx.db, user.id, today) : Promise.resolve([]),
  ])
  const withRole = (level: number) => {
    const paths = direct.filter((row) => row.access_level === level).map((row) => row.full_path)
    return paths.length > 0 ? paths : null
  }
  const withEmailScope = scopes.includes('email')
  const values: Record<string, unknown> = {
    // GL: sha256 of "<id>-<secret_key_base>", the subject before it became the plain id.
    sub_legacy: createHash('sha256').update(`${user.id}-${key.legacySubjectSecret}`).digest('hex'),
    name: user.name,
    nickname: user.username,
    preferred_username: user.username,
    email: withEmailScope ? user.email : user.public_email,
    email_verified: emailVerified(user, withEmailScope),
    website: user.website_url !== '' ? fullWebsiteUrl(user.website_url) : null,
    profile: `${ctx.config.externalUrl}/${user.username}`,
    picture: avatarUrlOf(user.email),
    groups: membership,
    groups_direct: direct.map((row) => row.full_path),
    [roleClaim('owner')]: withRole(AccessLevel.OWNER),
    [roleClaim('maintainer')]: withRole(AccessLevel.MAINTAINER),
    [roleClaim('developer')]: withRole(AccessLevel.DEVELOPER),
  }
  const claims: Record<string, unknown> = {}
  for (const name of wanted) {
    const value = values[name]
    if (value !== null && value !== undefined && value !== '') claims[name] = value
  }
  return claims
}
