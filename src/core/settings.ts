import { VISIBILITY_NAMES, type VisibilityName } from './access.js'

/**
 * Instance settings, with GitLab's names and defaults where GitLab has them
 * (lib/api/settings.rb, ApplicationSettingImplementation defaults). This file is the one list:
 * GET/PUT /application/settings expose, accept and validate exactly what is declared here.
 */

export interface Settings {
  /** Administrators must enable Admin Mode (token scope `admin_mode`) to act as admins. */
  admin_mode: boolean
  /** System hooks may send to loopback and local-network addresses (GitLab's default: they may). */
  allow_local_requests_from_system_hooks: boolean
  /** Project and group webhooks may send to loopback and local-network addresses. */
  allow_local_requests_from_web_hooks_and_services: boolean
  can_create_group: boolean
  /**
   * How a new project's default branch is protected when its group says nothing (GL Gitlab::Access protection levels:
   * 0 none, 1 Developers push, 2 full, 3 Developers merge, 4 Developers make the first push).
   */
  default_branch_protection: number
  default_group_visibility: VisibilityName
  default_project_visibility: VisibilityName
  default_projects_limit: number
  default_snippet_visibility: VisibilityName
  /** Outbound requests connect to the address that was checked, so a name cannot be re-pointed at a local one in between. */
  dns_rebinding_protection_enabled: boolean
  /** Minutes an account stays locked after too many failed sign-ins; null means Devise's 10. */
  failed_login_attempts_unlock_period_in_minutes: number | null
  /** GitLab keeps this in gitlab.yml; here it is a setting so every node sees one value. */
  impersonation_enabled: boolean
  /** Failed sign-ins (web or OAuth password grant) that lock an account; null means Devise's 10. */
  max_login_attempts: number | null
  /** Days; null means GitLab's default of 365. */
  max_personal_access_token_lifetime: number | null
  minimum_password_length: number
  /** GitLab's plan limit of the same name: the largest page × per_page of offset pagination; 0 disables it. */
  offset_pagination_limit: number
  /**
   * Where outbound requests may go although local requests are off: IPs, CIDR ranges, host names, each with an optional
   * `:port` (`[::1]:80` for IPv6). GitLab's name, kept for its API.
   */
  outbound_local_requests_whitelist: string[]
  password_authentication_enabled_for_git: boolean
  password_authentication_enabled_for_web: boolean
  /** Body of a throttled (429) response; null means `Retry later`. A newline is always appended. */
  rate_limiting_response_text: string | null
  /**
   * Storage name → weight (0..100): new projects go to a storage picked at random by these weights. Shown with every
   * configured storage (0 when not stored); names of storages no longer configured are kept but not shown.
   */
  repository_storages_weighted: Record<string, number>
  /** Writes flagged as spam may go through once the author solves a reCAPTCHA (v2) instead of being discarded. */
  recaptcha_enabled: boolean
  /** The reCAPTCHA secret, sent to the verifier with each answer. */
  recaptcha_private_key: string | null
  /** The reCAPTCHA site key, handed to clients in the needs-CAPTCHA answer. */
  recaptcha_site_key: string | null
  require_personal_access_token_expiry: boolean
  /** The OAuth password grant works without client credentials. */
  ropc_without_client_credentials: boolean
  /** Minutes a web session lives without being used. */
  session_expire_delay: number
  signup_enabled: boolean
  /**
   * svc's rule-based spam check: one case-insensitive regular expression per line, matched against the title
   * and description of issues and notes written by non-administrators; null or blank lines only turn it off.
   */
  spam_check_patterns: string | null
  throttle_authenticated_api_enabled: boolean
  throttle_authenticated_api_period_in_seconds: number
  throttle_authenticated_api_requests_per_period: number
  /** POSTs to sign-in, the OAuth token endpoint and GitLab's other protected paths, per IP (or per user when signed in). */
  throttle_protected_paths_enabled: boolean
  throttle_protected_paths_period_in_seconds: number
  throttle_protected_paths_requests_per_period: number
  throttle_unauthenticated_api_enabled: boolean
  throttle_unauthenticated_api_period_in_seconds: number
  throttle_unauthenticated_api_requests_per_period: number
  user_default_external: boolean
  user_defaults_to_private_profile: boolean
  /** Users may register OAuth applications. */
  user_oauth_applications: boolean
  /** GET /users/:id requests per 10 minutes for non-admins; 0 disables the limit. */
  users_get_by_id_limit: number
}

export const defaultSettings: Readonly<Settings> = Object.freeze({
  admin_mode: false,
  allow_local_requests_from_system_hooks: true,
  allow_local_requests_from_web_hooks_and_services: false,
  can_create_group: true,
  default_branch_protection: 2,
  default_group_visibility: 'private',
  default_project_visibility: 'private',
  default_projects_limit: 100000,
  default_snippet_visibility: 'private',
  dns_rebinding_protection_enabled: true,
  failed_login_attempts_unlock_period_in_minutes: null,
  impersonation_enabled: true,
  max_login_attempts: null,
  max_personal_access_token_lifetime: null,
  minimum_password_length: 8,
  offset_pagination_limit: 50000,
  outbound_local_requests_whitelist: [],
  password_authentication_enabled_for_git: true,
  password_authentication_enabled_for_web: true,
  rate_limiting_response_text: null,
  // GL ApplicationSettingImplementation defaults: everything on the default storage.
  repository_storages_weighted: { default: 100 },
  recaptcha_enabled: false,
  recaptcha_private_key: null,
  recaptcha_site_key: null,
  require_personal_access_token_expiry: true,
  ropc_without_client_credentials: true,
  session_expire_delay: 10080,
  signup_enabled: true,
  spam_check_patterns: null,
  throttle_authenticated_api_enabled: false,
  throttle_authenticated_api_period_in_seconds: 3600,
  throttle_authenticated_api_requests_per_period: 7200,
  throttle_protected_paths_enabled: true,
  throttle_protected_paths_period_in_seconds: 60,
  throttle_protected_paths_requests_per_period: 10,
  throttle_unauthenticated_api_enabled: false,
  throttle_unauthenticated_api_period_in_seconds: 3600,
  throttle_unauthenticated_api_requests_per_period: 3600,
  user_default_external: false,
  user_defaults_to_private_profile: false,
  user_oauth_applications: true,
  users_get_by_id_limit: 300,
} satisfies Settings)

/** The bounds of an integer setting, named after the ActiveRecord numericality options GitLab validates with. */
export interface IntegerRule {
  type: 'integer'
  greaterThan?: number
  greaterThanOrEqualTo?: number
  lessThanOrEqualTo?: number
}

export interface StringRule {
  type: 'string'
  /** Grape `values:`; anything else is `does not have a valid value`. */
  values?: readonly string[]
  maxLength?: number
  /** A model validation of the value: the error message, or null when it is valid. */
  check?: (value: string) => string | null
}

/** A Grape `Hash` whose values are coerced to integers (GL Validations::Types::HashOfIntegerValues). */
export interface WeightsRule {
  type: 'weights'
}

/** A Grape `Array[String]` that also takes one comma-separated string (GL Validations::Types::CommaSeparatedToArray). */
export interface StringListRule {
  type: 'strings'
  /** The model validations of the list: their error messages, none when it is valid. */
  check: (entries: string[] | null) => string[]
}

export type SettingRule = { type: 'boolean' } | WeightsRule | StringListRule | ((IntegerRule | StringRule) & { nullable?: boolean })

type RuleFor<T> = [T] extends [boolean]
  ? { type: 'boolean' }
  : [T] extends [string[]]
    ? StringListRule
    : [T] extends [Record<string, number>]
      ? WeightsRule
      : [T] extends [number]
        ? IntegerRule & { nullable?: false }
        : [T] extends [number | null]
          ? IntegerRule & { nullable: true }
          : [T] extends [string]
            ? StringRule & { nullable?: false }
            : StringRule & { nullable: true }

/** Flags of the spam-check patterns: case-insensitive, with Unicode case folding. */
export const SPAM_CHECK_PATTERN_FLAGS = 'iu'

/** The patterns of `spam_check_patterns`, one a line; blank lines are skipped. */
export function spamCheckPatternLines(text: string | null): string[] {
  return (text ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
}

function spamCheckPatternsError(text: string): string | null {
  for (const line of spamCheckPatternLines(text)) {
    try {
      new RegExp(line, SPAM_CHECK_PATTERN_FLAGS)
    } catch {
      return `has an invalid regular expression: ${line}`
    }
  }
  return null
}

/**
 * A list param as GitLab's CommaSeparatedToArray reads it: a string is split at commas, each item of an array too, and
 * the pieces are stripped (Ruby's `split` drops trailing empty pieces); null stays null and anything else is no entries.
 */
export function stringListOf(value: unknown): string[] | null {
  if (value === null) return null
  const pieces = (text: string) => {
    const parts = text.split(',')
    while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop()
    return parts.map((part) => part.trim())
  }
  if (typeof value === 'string') return pieces(value)
  if (Array.isArray(value)) return value.flatMap((item) => pieces(String(item)))
  return []
}

/** GitLab's limits on `outbound_local_requests_whitelist` (ApplicationSetting validations, a varchar(255)[] column). */
export const OUTBOUND_ALLOWLIST_MAX_ENTRIES = 1000
export const OUTBOUND_ALLOWLIST_MAX_ENTRY_LENGTH = 255

/** ApplicationSetting's `length` and QualifiedDomainArrayValidator checks, in GitLab's order and words. */
function outboundAllowlistErrors(entries: string[] | null): string[] {
  if (entries === null) return ['entries cannot be nil']
  const errors: string[] = []
  if (entries.length > OUTBOUND_ALLOWLIST_MAX_ENTRIES) errors.push(`is too long (maximum is ${OUTBOUND_ALLOWLIST_MAX_ENTRIES} entries)`)
  if (entries.some((entry) => [...entry].length > OUTBOUND_ALLOWLIST_MAX_ENTRY_LENGTH)) {
    errors.push(`entries cannot be larger than ${OUTBOUND_ALLOWLIST_MAX_ENTRY_LENGTH} characters`)
  }
  // eslint-disable-next-line no-control-regex
  if (!entries.every((entry) => /^[\x00-\x7f]*$/.test(entry))) errors.push('unicode domains should use IDNA encoding')
  // What Rails' full sanitizer would change: a tag, a comment or a character reference.
  if (entries.some((entry) => /<[a-zA-Z!/?]|&(#\d+|#x[\da-fA-F]+|[a-zA-Z][a-zA-Z\d]*);/.test(entry))) {
    errors.push('entries cannot contain HTML tags')
  }
  return errors
}

/** Validations that join several settings, as ApplicationSetting's conditional ones do: the error messages by setting. */
export function settingsRecordErrors(settings: Settings): Record<string, string[]> {
  const errors: Record<string, string[]> = {}
  // validates :recaptcha_site_key / :recaptcha_private_key, presence: true, if: :recaptcha_enabled (app/models/application_setting.rb)
  if (settings.recaptcha_enabled) {
    if (!settings.recaptcha_site_key?.trim()) errors.recaptcha_site_key = ["can't be blank"]
    if (!settings.recaptcha_private_key?.trim()) errors.recaptcha_private_key = ["can't be blank"]
  }
  return errors
}

const greaterThanZero = { type: 'integer', greaterThan: 0 } as const
const notNegative = { type: 'integer', greaterThanOrEqualTo: 0 } as const
const visibility = { type: 'string', values: VISIBILITY_NAMES } as const
const flag = { type: 'boolean' } as const

/** How each setting is typed and validated on PUT (GitLab's model validations and messages). */
export const settingRules: { readonly [K in keyof Settings]: RuleFor<Settings[K]> } = {
  admin_mode: flag,
  allow_local_requests_from_system_hooks: flag,
  allow_local_requests_from_web_hooks_and_services: flag,
  can_create_group: flag,
  default_branch_protection: { type: 'integer', greaterThanOrEqualTo: 0, lessThanOrEqualTo: 4 },
  default_group_visibility: visibility,
  default_project_visibility: visibility,
  default_projects_limit: notNegative,
  default_snippet_visibility: visibility,
  dns_rebinding_protection_enabled: flag,
  failed_login_attempts_unlock_period_in_minutes: { type: 'integer', nullable: true, greaterThan: 0 },
  impersonation_enabled: flag,
  max_login_attempts: { type: 'integer', nullable: true, greaterThan: 0 },
  max_personal_access_token_lifetime: { type: 'integer', nullable: true, greaterThan: 0, lessThanOrEqualTo: 365 },
  minimum_password_length: { type: 'integer', greaterThanOrEqualTo: 8, lessThanOrEqualTo: 128 },
  offset_pagination_limit: notNegative,
  outbound_local_requests_whitelist: { type: 'strings', check: outboundAllowlistErrors },
  password_authentication_enabled_for_git: flag,
  password_authentication_enabled_for_web: flag,
  rate_limiting_response_text: { type: 'string', nullable: true, maxLength: 255 },
  repository_storages_weighted: { type: 'weights' },
  recaptcha_enabled: flag,
  recaptcha_private_key: { type: 'string', nullable: true, maxLength: 255 },
  recaptcha_site_key: { type: 'string', nullable: true, maxLength: 255 },
  require_personal_access_token_expiry: flag,
  ropc_without_client_credentials: flag,
  session_expire_delay: notNegative,
  signup_enabled: flag,
  spam_check_patterns: { type: 'string', nullable: true, maxLength: 10000, check: spamCheckPatternsError },
  throttle_authenticated_api_enabled: flag,
  throttle_authenticated_api_period_in_seconds: greaterThanZero,
  throttle_authenticated_api_requests_per_period: greaterThanZero,
  throttle_protected_paths_enabled: flag,
  throttle_protected_paths_period_in_seconds: greaterThanZero,
  throttle_protected_paths_requests_per_period: greaterThanZero,
  throttle_unauthenticated_api_enabled: flag,
  throttle_unauthenticated_api_period_in_seconds: greaterThanZero,
  throttle_unauthenticated_api_requests_per_period: greaterThanZero,
  user_default_external: flag,
  user_defaults_to_private_profile: flag,
  user_oauth_applications: flag,
  users_get_by_id_limit: notNegative,
}

export type SettingName = keyof Settings

/** Every setting name, in the order the API lists them. */
export const SETTING_NAMES = Object.keys(defaultSettings) as SettingName[]

/** Ruby's `to_i` of a Grape hash value: integers and floats truncate, strings read their leading digits, else null. */
function rubyToInteger(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : null
  if (typeof value === 'string') {
    const match = /^\s*([+-]?\d+(?:_\d+)*)/.exec(value)
    return match ? Number(match[1].replace(/_/g, '')) : 0
  }
  if (value === null) return 0
  return null
}

/**
 * `repository_storages_weighted` as sent, coerced value by value (GL HashOfIntegerValues), with GitLab's model errors
 * (ApplicationSetting#check_repository_storages_weighted): unknown storages, values that are not integers or out of 0..100.
 */
export function storageWeightsOf(
  input: Record<string, unknown>,
  storages: readonly string[],
): { weights: Record<string, number>; errors: string[] } {
  const weights: Record<string, number> = {}
  const errors: string[] = []
  const invalid = Object.keys(input).filter((name) => !storages.includes(name))
  if (invalid.length > 0) errors.push(`can't include: ${invalid.join(', ')}`)
  for (const [name, raw] of Object.entries(input)) {
    const value = rubyToInteger(raw)
    if (value === null || !Number.isSafeInteger(value)) {
      errors.push(`value for '${name}' must be an integer`)
      continue
    }
    if (value < 0 || value > 100) errors.push(`value for '${name}' must be between 0 and 100`)
    weights[name] = value
  }
  return { weights, errors }
}

/** The weights as GitLab shows them: every configured storage, in configured order, 0 when none is stored (GL `repository_storages_with_default_weight`). */
export function weightsOfEveryStorage(weights: Record<string, number>, storages: readonly string[]): Record<string, number> {
  return Object.fromEntries(storages.map((name) => [name, Object.hasOwn(weights, name) ? weights[name] : 0]))
}
