import { createHash } from 'node:crypto'
import type { User } from '../../core/caller.js'

/** The field order of each user entity, as GitLab's Grape entities declare it; read by the tests of this feature. */
export const USER_BASIC_KEYS = ['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url']

export const USER_KEYS = [
  ...USER_BASIC_KEYS,
  'created_at',
  'bio',
  'location',
  'public_email',
  'skype',
  'linkedin',
  'twitter',
  'discord',
  'website_url',
  'organization',
  'job_title',
  'pronouns',
  'bot',
  'work_information',
  'followers',
  'following',
  'is_followed',
  'local_time',
]

export const USER_PUBLIC_KEYS = [
  ...USER_KEYS,
  'last_sign_in_at',
  'confirmed_at',
  'last_activity_on',
  'email',
  'theme_id',
  'color_scheme_id',
  'projects_limit',
  'current_sign_in_at',
  'identities',
  'can_create_group',
  'can_create_project',
  'two_factor_enabled',
  'external',
  'private_profile',
  'commit_email',
]

export const USER_WITH_ADMIN_KEYS = [...USER_PUBLIC_KEYS, 'is_admin', 'note', 'namespace_id', 'created_by', 'email_reset_offered_at']

export const USER_DETAILS_WITH_ADMIN_KEYS = [
  ...USER_WITH_ADMIN_KEYS,
  'highest_role',
  'current_sign_in_ip',
  'last_sign_in_ip',
  'sign_in_count',
]

/** Gravatar identicon URL for an e-mail, computed independently of the presenter. */
export function gravatarOf(email: string): string {
  return `https://www.gravatar.com/avatar/${createHash('md5').update(email.toLowerCase()).digest('hex')}?s=80&d=identicon`
}

/** A stored user as GitLab's UserBasic entity shows it. */
export function expectedBasic(user: User, baseUrl: string) {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.state,
    locked: false,
    avatar_url: gravatarOf(user.email),
    web_url: `${baseUrl}/${user.username}`,
  }
}

/** A stored user as GitLab's UserPublic entity shows it to the user themselves. */
export function expectedPublic(user: User, baseUrl: string) {
  return {
    ...expectedBasic(user, baseUrl),
    created_at: user.created_at,
    bio: user.bio,
    location: user.location,
    public_email: user.public_email,
    skype: user.skype,
    linkedin: user.linkedin,
    twitter: user.twitter,
    discord: user.discord,
    website_url: user.website_url,
    organization: user.organization,
    job_title: user.job_title,
    pronouns: user.pronouns,
    bot: false,
    work_information: null,
    followers: 0,
    following: 0,
    is_followed: false,
    local_time: null,
    last_sign_in_at: null,
    confirmed_at: user.confirmed_at,
    last_activity_on: null,
    email: user.email,
    theme_id: user.theme_id,
    color_scheme_id: user.color_scheme_id,
    projects_limit: user.projects_limit,
    current_sign_in_at: null,
    identities: [],
    can_create_group: user.can_create_group === 1,
    can_create_project: user.projects_limit > 0,
    two_factor_enabled: false,
    external: user.external === 1,
    private_profile: user.private_profile === 1,
    commit_email: user.email,
  }
}
