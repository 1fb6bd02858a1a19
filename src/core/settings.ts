/**
 * Instance settings, with GitLab's names and defaults where GitLab has them
 * (lib/api/settings.rb, ApplicationSettingImplementation defaults).
 */
export interface Settings {
  /** GitLab keeps this in gitlab.yml; here it is a setting so every node sees one value. */
  impersonation_enabled: boolean
  throttle_authenticated_api_enabled: boolean
  throttle_authenticated_api_requests_per_period: number
  throttle_authenticated_api_period_in_seconds: number
  throttle_unauthenticated_api_enabled: boolean
  throttle_unauthenticated_api_requests_per_period: number
  throttle_unauthenticated_api_period_in_seconds: number
  /** GitLab's plan limit of the same name: the largest page × per_page of offset pagination; 0 disables it. */
  offset_pagination_limit: number
  require_personal_access_token_expiry: boolean
  /** Days; null means GitLab's default of 365. */
  max_personal_access_token_lifetime: number | null
  default_projects_limit: number
  can_create_group: boolean
  user_default_external: boolean
  user_defaults_to_private_profile: boolean
  minimum_password_length: number
}

export const defaultSettings: Readonly<Settings> = Object.freeze({
  impersonation_enabled: true,
  throttle_authenticated_api_enabled: false,
  throttle_authenticated_api_requests_per_period: 7200,
  throttle_authenticated_api_period_in_seconds: 3600,
  throttle_unauthenticated_api_enabled: false,
  throttle_unauthenticated_api_requests_per_period: 3600,
  throttle_unauthenticated_api_period_in_seconds: 3600,
  offset_pagination_limit: 50000,
  require_personal_access_token_expiry: true,
  max_personal_access_token_lifetime: null,
  default_projects_limit: 100000,
  can_create_group: true,
  user_default_external: false,
  user_defaults_to_private_profile: false,
  minimum_password_length: 8,
})
