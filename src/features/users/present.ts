import type { Caller, User } from '../../core/caller.js'
import { avatarUrlOf } from '../namespaces/index.js'
import { canReadProfile } from './policy.js'
import type { UserBasicJson, UserDetailsWithAdminJson, UserJson, UserPublicJson, UserWithAdminJson } from './schemas.js'
import { PRIVATE_COMMIT_EMAIL } from './validation.js'

/** Devise lockable `unlock_in`: a lock lifts by itself after this long. */
const UNLOCK_AFTER_MS = 10 * 60 * 1000

/** What presenters need besides the user: who looks, where the instance lives, and what time it is. */
export interface PresentOptions {
  viewer: Caller
  externalUrl: string
  now: Date
}

function htmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
}

/** UsersHelper#work_information: "<job title> at <organization>" (escaped, as the helper builds it as HTML), or either alone. */
export function workInformationOf(user: Pick<User, 'job_title' | 'organization'>): string | null {
  const jobTitle = user.job_title.trim() === '' ? null : user.job_title
  const organization = user.organization.trim() === '' ? null : user.organization
  if (jobTitle && organization) return `${htmlEscape(jobTitle)} at ${htmlEscape(organization)}`
  return jobTitle ?? organization
}

/** `commit_email_or_default`: the chosen commit e-mail, the private no-reply address, or the primary e-mail. */
export function commitEmailOf(user: User, externalUrl: string): string {
  if (user.commit_email === PRIVATE_COMMIT_EMAIL) return `${user.id}-${user.username}@users.noreply.${new URL(externalUrl).hostname}`
  return user.commit_email ?? user.email
}

export function isLocked(user: User, now: Date): boolean {
  return user.locked_at !== null && now.getTime() - Date.parse(user.locked_at) < UNLOCK_AFTER_MS
}

export function presentUserBasic(user: User, options: PresentOptions): UserBasicJson {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.state,
    locked: isLocked(user, options.now),
    avatar_url: avatarUrlOf(user.email),
    web_url: `${options.externalUrl}/${user.username}`,
  }
}

// Each entity extends its parent's object in place: one object per response, fields in GitLab's order.

export function presentUser(user: User, options: PresentOptions): UserJson {
  const readable = canReadProfile(options.viewer, user)
  const json = presentUserBasic(user, options) as UserJson
  if (readable) json.created_at = user.created_at
  json.bio = user.bio
  json.location = user.location
  json.public_email = user.public_email
  json.skype = user.skype
  json.linkedin = user.linkedin
  json.twitter = user.twitter
  json.discord = user.discord
  json.website_url = user.website_url
  json.organization = user.organization
  json.job_title = user.job_title
  json.pronouns = user.pronouns
  json.bot = user.bot === 1
  json.work_information = workInformationOf(user)
  // Following users is not offered, so every count is zero.
  if (readable) {
    json.followers = 0
    json.following = 0
  }
  if (readable && options.viewer.user) json.is_followed = false
  json.local_time = null
  return json
}

export function presentUserPublic(user: User, options: PresentOptions): UserPublicJson {
  const json = presentUser(user, options) as UserPublicJson
  json.last_sign_in_at = user.last_sign_in_at
  json.confirmed_at = user.confirmed_at
  json.last_activity_on = user.last_activity_on
  json.email = user.email
  json.theme_id = user.theme_id
  json.color_scheme_id = user.color_scheme_id
  json.projects_limit = user.projects_limit
  json.current_sign_in_at = user.current_sign_in_at
  json.identities = []
  json.can_create_group = user.can_create_group === 1
  // No personal projects exist yet, so the whole limit is left.
  json.can_create_project = user.projects_limit > 0
  json.two_factor_enabled = user.two_factor_enabled === 1
  json.external = user.external === 1
  json.private_profile = user.private_profile === 1
  json.commit_email = commitEmailOf(user, options.externalUrl)
  return json
}

/** `creators` holds the users named by `created_by_id`, so lists load them in one query. */
export function presentUserWithAdmin(user: User, options: PresentOptions, creators: ReadonlyMap<number, User>): UserWithAdminJson {
  const creator = user.created_by_id === null ? undefined : creators.get(user.created_by_id)
  const json = presentUserPublic(user, options) as UserWithAdminJson
  json.is_admin = user.admin === 1
  json.note = user.note
  // Personal namespaces do not exist yet.
  json.namespace_id = null
  json.created_by = creator ? presentUserBasic(creator, options) : null
  json.email_reset_offered_at = null
  return json
}

export function presentUserDetailsWithAdmin(
  user: User,
  options: PresentOptions,
  creators: ReadonlyMap<number, User>,
): UserDetailsWithAdminJson {
  const json = presentUserWithAdmin(user, options, creators) as UserDetailsWithAdminJson
  // No memberships exist yet: GitLab's NO_ACCESS.
  json.highest_role = 0
  json.current_sign_in_ip = user.current_sign_in_ip
  json.last_sign_in_ip = user.last_sign_in_ip
  json.sign_in_count = user.sign_in_count
  return json
}
