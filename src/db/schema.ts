import type { Generated, Insertable, Selectable, Updateable } from 'kysely'

/**
 * Columns with a database default are Generated<>: optional on insert.
 * Column conventions, the same on both engines:
 * - flags are integers 0/1 (SQLite has no boolean; one representation keeps SQL and code identical);
 * - timestamps are ISO 8601 UTC strings with milliseconds (pg's parser is set to produce them);
 * - dates are 'YYYY-MM-DD' strings; JSON values are text.
 */
export type Flag = number
export type Timestamp = string

export interface UsersTable {
  id: Generated<number>
  username: string
  email: string
  name: string
  password_digest: string | null
  state: Generated<string>
  admin: Generated<Flag>
  external: Generated<Flag>
  bot: Generated<Flag>
  can_create_group: Generated<Flag>
  projects_limit: Generated<number>
  private_profile: Generated<Flag>
  two_factor_enabled: Generated<Flag>
  bio: Generated<string>
  location: Generated<string>
  public_email: string | null
  commit_email: string | null
  website_url: Generated<string>
  organization: Generated<string>
  job_title: Generated<string>
  pronouns: string | null
  skype: Generated<string>
  linkedin: Generated<string>
  twitter: Generated<string>
  discord: Generated<string>
  note: string | null
  theme_id: Generated<number>
  color_scheme_id: Generated<number>
  created_by_id: number | null
  confirmed_at: Timestamp | null
  last_sign_in_at: Timestamp | null
  current_sign_in_at: Timestamp | null
  last_activity_on: string | null
  sign_in_count: Generated<number>
  current_sign_in_ip: string | null
  last_sign_in_ip: string | null
  /** Set while the account is locked after too many failed sign-ins. */
  locked_at: Timestamp | null
  /** A password set by an administrator expires at once: the user must choose a new one. */
  password_expires_at: Timestamp | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface PersonalAccessTokensTable {
  id: Generated<number>
  user_id: number
  name: string
  description: string | null
  token_digest: string
  /** JSON array of scope names. */
  scopes: string
  impersonation: Generated<Flag>
  revoked: Generated<Flag>
  expires_at: string | null
  last_used_at: Timestamp | null
  /** JSON array of the last client IPs that used the token, oldest first (at most 5). */
  last_used_ips: Generated<string>
  /** The token this one replaced by rotation; a family is revoked together when an old member is reused. */
  previous_token_id: number | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface ApplicationSettingsTable {
  name: string
  /** JSON value. */
  value: string
  updated_at: Timestamp
}

export interface Database {
  users: UsersTable
  personal_access_tokens: PersonalAccessTokensTable
  application_settings: ApplicationSettingsTable
}

export type UserRow = Selectable<UsersTable>
export type NewUserRow = Insertable<UsersTable>
export type UserUpdate = Updateable<UsersTable>
export type TokenRow = Selectable<PersonalAccessTokensTable>
export type NewTokenRow = Insertable<PersonalAccessTokensTable>
