import type { Kysely } from 'kysely'
import { flag, idType, timestampType, withId } from './portable.js'

// Web sessions, failed sign-in counting, and the OAuth 2.0 provider (Doorkeeper's tables: applications,
// access grants, access tokens), plus the keys that sign OpenID Connect ID tokens.

export async function up(db: Kysely<any>) {
  const id = idType(db)
  const timestamp = timestampType(db)

  await db.schema
    .alterTable('users')
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()

  await withId(db, db.schema.createTable('sessions'))
    .addColumn('session_digest', 'text', (c) => c.notNull().unique())
    // Null until someone signs in: a visitor's session still carries the CSRF secret and where to return.
    .addColumn('user_id', id, (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('csrf_secret', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .addColumn('expires_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute()
  await db.schema.createIndex('sessions_expires_at').on('sessions').column('expires_at').execute()

  await withId(db, db.schema.createTable('oauth_applications'))
    .addColumn('uid', 'text', (c) => c.notNull().unique())
    .addColumn('secret_digest', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // Registered redirect URIs, one per line.
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    // Space-separated, as on the wire.
    .addColumn('scopes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('confidential', 'integer', flag(1))
    .addColumn('trusted', 'integer', flag(0))
    // Null for instance-wide applications made by administrators through the API.
    .addColumn('owner_id', id, (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('oauth_applications_owner_id').on('oauth_applications').column('owner_id').execute()

  await withId(db, db.schema.createTable('oauth_access_grants'))
    .addColumn('application_id', id, (c) => c.notNull().references('oauth_applications.id').onDelete('cascade'))
    .addColumn('resource_owner_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_digest', 'text', (c) => c.notNull().unique())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text')
    .addColumn('code_challenge_method', 'text')
    // OpenID Connect: the `nonce` of the authorization request, repeated in the ID token.
    .addColumn('nonce', 'text')
    .addColumn('expires_in', 'integer', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    // Set when the code is exchanged: a code works once.
    .addColumn('revoked_at', timestamp)
    .execute()
  await db.schema.createIndex('oauth_access_grants_application_id').on('oauth_access_grants').column('application_id').execute()
  await db.schema.createIndex('oauth_access_grants_resource_owner_id').on('oauth_access_grants').column('resource_owner_id').execute()

  await withId(db, db.schema.createTable('oauth_access_tokens'))
    // Null for a password grant made without client credentials.
    .addColumn('application_id', id, (c) => c.references('oauth_applications.id').onDelete('cascade'))
    .addColumn('resource_owner_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('refresh_token_digest', 'text', (c) => c.unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('expires_in', 'integer')
    // The code this token, or the token it was refreshed from, was issued for: a reused code revokes them all.
    .addColumn('grant_id', id, (c) => c.references('oauth_access_grants.id').onDelete('set null'))
    .addColumn('previous_token_id', id)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('revoked_at', timestamp)
    .execute()
  await db.schema.createIndex('oauth_access_tokens_grant_id').on('oauth_access_tokens').column('grant_id').execute()
  await db.schema
    .createIndex('oauth_access_tokens_owner_application')
    .on('oauth_access_tokens')
    .columns(['resource_owner_id', 'application_id'])
    .execute()

  // Shared by every node, so an ID token signed by one verifies with keys served by another.
  await withId(db, db.schema.createTable('oauth_signing_keys'))
    .addColumn('kid', 'text', (c) => c.notNull().unique())
    // The private key as a JWK (JSON).
    .addColumn('private_jwk', 'text', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.dropTable('oauth_signing_keys').execute()
  await db.schema.dropTable('oauth_access_tokens').execute()
  await db.schema.dropTable('oauth_access_grants').execute()
  await db.schema.dropTable('oauth_applications').execute()
  await db.schema.dropTable('sessions').execute()
  await db.schema.alterTable('users').dropColumn('failed_attempts').execute()
}
