import { createHash, randomBytes } from 'node:crypto'
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { anonymous, type User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { addTestMember, createTestGroup, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { insertApplication } from '../applications/store.js'
import { createIdToken } from './id-token.js'
import { insertAccessToken } from './store.js'
import { callbackParameters, createTestApplication, createTestGrant, insecure, REDIRECT_URI } from './token-fixtures.js'
import { buildContext } from '../../build-context.js'

const silent = { info() {}, warn() {}, error() {}, debug() {} }

async function contextOf(server: TestServer): Promise<Context> {
  return buildContext(server.app.parts, anonymous, silent)
}

function digest(value: string) {
  return createHash('sha256').update(value).digest('hex')
}

/** An application and an OAuth access token of `user` for it, written as the token endpoint writes them. */
async function createOAuthToken(
  server: TestServer,
  user: Pick<User, 'id'>,
  options: { scopes?: string; expiresIn?: number | null; revokedAt?: string | null } = {},
) {
  const at = new Date().toISOString()
  const application = await insertApplication(server.database.db, {
    uid: randomBytes(16).toString('hex'),
    secret_digest: digest('secret'),
    name: 'Relying party',
    redirect_uri: 'https://rp.example.com/callback',
    scopes: 'openid profile email api',
    created_at: at,
    updated_at: at,
  })
  const value = randomBytes(32).toString('hex')
  const row = await insertAccessToken(server.database.db, {
    application_id: application.id,
    resource_owner_id: user.id,
    token_digest: digest(value),
    refresh_token_digest: digest(`refresh-${value}`),
    scopes: options.scopes ?? 'openid',
    expires_in: options.expiresIn === undefined ? 7200 : options.expiresIn,
    created_at: at,
    revoked_at: options.revokedAt ?? null,
  })
  return { value, row, application }
}

const ROLE_CLAIMS = ['owner', 'maintainer', 'developer'].map((role) => `https://svc.org/claims/groups/${role}`)

describe('OpenID Connect', () => {
  let server: TestServer
  let request: ReturnType<typeof client>

  beforeAll(async () => {
    server = await startTestServer()
    request = client(server.url)
  })
  afterAll(async () => {
    await server.close()
  })

  describe('discovery', () => {
    it('describes the provider with the fields and order of doorkeeper-openid_connect', async () => {
      const response = await request('GET', '/.well-known/openid-configuration')
      expect(response.status).toBe(200)
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
      const base = server.url
      const expected = {
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        revocation_endpoint: `${base}/oauth/revoke`,
        userinfo_endpoint: `${base}/oauth/userinfo`,
        jwks_uri: `${base}/oauth/discovery/keys`,
        scopes_supported: [
          'api',
          'read_api',
          'read_user',
          'create_runner',
          'manage_runner',
          'k8s_proxy',
          'self_rotate',
          'mcp',
          'mcp_orbit',
          'granular',
          'read_repository',
          'write_repository',
          'read_registry',
          'write_registry',
          'read_virtual_registry',
          'write_virtual_registry',
          'read_observability',
          'write_observability',
          'ai_features',
          'sudo',
          'admin_mode',
          'read_service_ping',
          'openid',
          'profile',
          'email',
        ],
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'password', 'refresh_token'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        claim_types_supported: ['normal'],
        claims_supported: [
          'iss',
          'sub',
          'aud',
          'exp',
          'iat',
          'sub_legacy',
          'name',
          'nickname',
          'preferred_username',
          'email',
          'email_verified',
          'website',
          'profile',
          'picture',
          'groups',
          'groups_direct',
          ...ROLE_CLAIMS,
        ],
        code_challenge_methods_supported: ['S256'],
      }
      expect(response.text).toBe(JSON.stringify(expected))
    })

    it('is what an OpenID Connect client discovers', async () => {
      const issuer = new URL(server.url)
      const response = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', [oauth.allowInsecureRequests]: true })
      const as = await oauth.processDiscoveryResponse(issuer, response)
      expect(as.issuer).toBe(server.url)
      expect(as.userinfo_endpoint).toBe(`${server.url}/oauth/userinfo`)
    })

    it('answers HEAD, and cross-origin reads and preflights for GET and HEAD only', async () => {
      const head = await request('HEAD', '/.well-known/openid-configuration')
      expect(head.status).toBe(200)
      const get = await request('GET', '/.well-known/openid-configuration', { headers: { origin: 'https://rp.example.com' } })
      expect(get.headers['access-control-allow-origin']).toBe('*')
      expect(get.headers['access-control-allow-methods']).toBe('GET, HEAD')
      const preflight = await request('OPTIONS', '/oauth/discovery/keys', {
        headers: { origin: 'https://rp.example.com', 'access-control-request-method': 'GET' },
      })
      expect(preflight.status).toBe(200)
      expect(preflight.headers['access-control-allow-methods']).toBe('GET, HEAD')
      const post = await request('OPTIONS', '/oauth/discovery/keys', {
        headers: { origin: 'https://rp.example.com', 'access-control-request-method': 'POST' },
      })
      expect(post.status).toBe(200)
      expect(post.headers['access-control-allow-origin']).toBeUndefined()
    })

    it('answers WebFinger with the issuer, and refuses a request without a resource', async () => {
      const response = await request('GET', '/.well-known/webfinger?resource=acct:root@example.com')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        subject: 'acct:root@example.com',
        links: [{ rel: 'http://openid.net/specs/connect/1.0/issuer', href: server.url }],
      })
      const missing = await request('GET', '/.well-known/webfinger')
      expect(missing.status).toBe(400)
      expect(missing.body).toEqual({ message: '400 (Bad request) "resource" not given' })
    })
  })

  describe('signing keys and ID tokens', () => {
    it('serves one public RS256 key in the order kty, kid, e, n, use, alg, with no private part', async () => {
      const response = await request('GET', '/oauth/discovery/keys')
      expect(response.status).toBe(200)
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(response.body.keys).toHaveLength(1)
      const [key] = response.body.keys
      expect(Object.keys(key)).toEqual(['kty', 'kid', 'e', 'n', 'use', 'alg'])
      expect(key).toMatchObject({ kty: 'RSA', kid: expect.any(String), e: 'AQAB', use: 'sig', alg: 'RS256' })
    })

    it('signs ID tokens that verify with the served keys: registered claims, nonce, auth_time and the ID-token claims', async () => {
      const user = await createTestUser(server.database.db, { public_email: null })
      const group = await createTestGroup(server.database.db)
      await addTestMember(server.database.db, { user, group, accessLevel: 30 })
      const ctx = await contextOf(server)
      const authTime = new Date(Date.now() - 60_000)
      const idToken = await createIdToken(ctx, { user, clientId: 'client-1', nonce: 'n-0S6_WzA2Mj', scopes: ['openid'], authTime })

      const keys = createRemoteJWKSet(new URL(`${server.url}/oauth/discovery/keys`))
      const { payload, protectedHeader } = await jwtVerify(idToken, keys, { issuer: server.url, audience: 'client-1' })
      const served = (await request('GET', '/oauth/discovery/keys')).body.keys[0]
      expect(protectedHeader).toEqual({ alg: 'RS256', typ: 'JWT', kid: served.kid })
      expect(Object.keys(payload)).toEqual(['iss', 'sub', 'aud', 'exp', 'iat', 'nonce', 'auth_time', 'sub_legacy', 'groups_direct'])
      expect(payload).toMatchObject({
        iss: server.url,
        sub: String(user.id),
        aud: 'client-1',
        nonce: 'n-0S6_WzA2Mj',
        auth_time: Math.floor(authTime.getTime() / 1000),
        groups_direct: [group.full_path],
      })
      // Without the `email` scope and without a public address: no e-mail; email_verified says nothing either way.
      expect(payload.email).toBeUndefined()
      expect(payload.exp! - payload.iat!).toBe(120)
      expect(payload.sub_legacy).toMatch(/^[0-9a-f]{64}$/)
    })

    it('puts the primary e-mail in the ID token with the email scope, and leaves out a missing nonce', async () => {
      const user = await createTestUser(server.database.db)
      const ctx = await contextOf(server)
      const idToken = await createIdToken(ctx, {
        user,
        clientId: 'client-2',
        nonce: null,
        scopes: ['openid', 'email'],
        authTime: new Date(),
      })
      const keys = createRemoteJWKSet(new URL(`${server.url}/oauth/discovery/keys`))
      const { payload } = await jwtVerify(idToken, keys, { issuer: server.url, audience: 'client-2' })
      expect(payload.nonce).toBeUndefined()
      expect(payload.email).toBe(user.email)
      expect(payload.email_verified).toBe(true)
      expect(payload.groups_direct).toEqual([])
    })

    it('is one key for every node of a deployment, even when both make it at once', async () => {
      const first = await startTestServer()
      const second = await startTestServer({}, { sharing: first })
      try {
        const [a, b] = await Promise.all([
          client(first.url)('GET', '/oauth/discovery/keys'),
          client(second.url)('GET', '/oauth/discovery/keys'),
        ])
        expect(a.status).toBe(200)
        expect(b.body).toEqual(a.body)
        const rows = await first.database.db.selectFrom('oauth_signing_keys').select('kid').execute()
        expect(rows.map((row) => row.kid)).toEqual([a.body.keys[0].kid])

        // A token signed by one node verifies against the keys served by the other.
        const user = await createTestUser(second.database.db)
        const idToken = await createIdToken(await contextOf(second), {
          user,
          clientId: 'client-3',
          nonce: null,
          scopes: ['openid'],
          authTime: new Date(),
        })
        const keys = createRemoteJWKSet(new URL(`${first.url}/oauth/discovery/keys`))
        await expect(jwtVerify(idToken, keys, { issuer: second.url, audience: 'client-3' })).resolves.toBeTruthy()
        expect(decodeProtectedHeader(idToken).kid).toBe(a.body.keys[0].kid)
      } finally {
        await second.close()
        await first.close()
      }
    })
  })

  describe('through a client', () => {
    it('discovers, exchanges a code for an ID token that verifies with the keys, and reads userinfo with the access token', async () => {
      const db = server.database.db
      const user = await createTestUser(db, { name: 'Relying Party User' })
      const group = await createTestGroup(db)
      await addTestMember(db, { user, group, accessLevel: 40 })
      const app = await createTestApplication(db)
      const nonce = oauth.generateRandomNonce()
      const grant = await createTestGrant(db, app, user, { scopes: 'openid profile email', nonce })

      const issuer = new URL(server.url)
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }))
      const rp: oauth.Client = { client_id: app.clientId }
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        rp,
        oauth.ClientSecretBasic(app.secret),
        callbackParameters(server, app.clientId, grant.code),
        REDIRECT_URI,
        oauth.nopkce,
        insecure,
      )
      const result = await oauth.processAuthorizationCodeResponse(as, rp, response, { expectedNonce: nonce })
      const claims = oauth.getValidatedIdTokenClaims(result)!
      expect(claims).toMatchObject({
        iss: server.url,
        sub: String(user.id),
        aud: app.clientId,
        nonce,
        email: user.email,
        email_verified: true,
      })
      expect(claims.groups_direct).toEqual([group.full_path])

      const keys = createRemoteJWKSet(new URL(as.jwks_uri!))
      const { payload } = await jwtVerify(result.id_token!, keys, { issuer: as.issuer, audience: app.clientId })
      expect(payload.sub).toBe(String(user.id))

      const info = await oauth.processUserInfoResponse(
        as,
        rp,
        claims.sub,
        await oauth.userInfoRequest(as, rp, result.access_token, insecure),
      )
      expect(info).toMatchObject({
        sub: String(user.id),
        name: 'Relying Party User',
        email: user.email,
        email_verified: true,
        groups: [group.full_path],
        [ROLE_CLAIMS[1]]: [group.full_path],
      })
      expect(info.sub_legacy).toBe(claims.sub_legacy)
    })
  })

  describe('userinfo', () => {
    it('gives sub and the userinfo claims in GitLab order, groups with their descendants, and role claims', async () => {
      const db = server.database.db
      const user = await createTestUser(db, { name: 'Jane Doe', website_url: 'jane.example.com', public_email: null })
      const parent = await createTestGroup(db)
      const child = await createTestGroup(db, { parent })
      const other = await createTestGroup(db)
      const guestOnly = await createTestGroup(db)
      const minimal = await createTestGroup(db)
      await addTestMember(db, { user, group: parent, accessLevel: 50 })
      await addTestMember(db, { user, group: other, accessLevel: 40 })
      await addTestMember(db, { user, group: guestOnly, accessLevel: 10 })
      await addTestMember(db, { user, group: minimal, accessLevel: 5 })
      const { value } = await createOAuthToken(server, user, { scopes: 'openid' })

      const response = await request('GET', '/oauth/userinfo', { headers: { authorization: `Bearer ${value}` } })
      expect(response.status).toBe(200)
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(Object.keys(response.body)).toEqual([
        'sub',
        'sub_legacy',
        'name',
        'nickname',
        'preferred_username',
        'website',
        'profile',
        'picture',
        'groups',
        ROLE_CLAIMS[0],
        ROLE_CLAIMS[1],
      ])
      expect(response.body).toEqual({
        sub: String(user.id),
        sub_legacy: expect.stringMatching(/^[0-9a-f]{64}$/),
        name: 'Jane Doe',
        nickname: user.username,
        preferred_username: user.username,
        website: 'http://jane.example.com',
        profile: `${server.url}/${user.username}`,
        picture: `https://www.gravatar.com/avatar/${createHash('md5').update(user.email).digest('hex')}?s=80&d=identicon`,
        groups: [parent.full_path, child.full_path, other.full_path, guestOnly.full_path],
        [ROLE_CLAIMS[0]]: [parent.full_path],
        [ROLE_CLAIMS[1]]: [other.full_path],
      })
    })

    it('gives the same sub_legacy as the ID token, different for each user', async () => {
      const db = server.database.db
      const [alice, bob] = [await createTestUser(db), await createTestUser(db)]
      const ctx = await contextOf(server)
      const keys = createRemoteJWKSet(new URL(`${server.url}/oauth/discovery/keys`))
      const legacy = async (user: User) => {
        const { value } = await createOAuthToken(server, user)
        const info = await request('GET', '/oauth/userinfo', { headers: { authorization: `Bearer ${value}` } })
        const idToken = await createIdToken(ctx, { user, clientId: 'c', nonce: null, scopes: ['openid'], authTime: new Date() })
        const { payload } = await jwtVerify(idToken, keys, { audience: 'c' })
        expect(payload.sub_legacy).toBe(info.body.sub_legacy)
        return info.body.sub_legacy
      }
      expect(await legacy(alice)).not.toBe(await legacy(bob))
    })

    it('shows the primary e-mail with the email scope, else the public one, else none', async () => {
      const db = server.database.db
      const unconfirmed = await createTestUser(db, { confirmed_at: null })
      const withEmail = await createOAuthToken(server, unconfirmed, { scopes: 'openid email' })
      const primary = await request('GET', '/oauth/userinfo', { headers: { authorization: `Bearer ${withEmail.value}` } })
      expect(primary.body).toMatchObject({ email: unconfirmed.email, email_verified: false })

      const publicUser = await createTestUser(db)
      await db.updateTable('users').set({ public_email: publicUser.email }).where('id', '=', publicUser.id).execute()
      const withoutEmail = await createOAuthToken(server, publicUser, { scopes: 'openid profile' })
      const shown = await request('GET', '/oauth/userinfo', { headers: { authorization: `Bearer ${withoutEmail.value}` } })
      expect(shown.body).toMatchObject({ email: publicUser.email, email_verified: true })

      const hidden = await createOAuthToken(server, unconfirmed, { scopes: 'openid' })
      const none = await request('GET', '/oauth/userinfo', { headers: { authorization: `Bearer ${hidden.value}` } })
      expect(none.body.email).toBeUndefined()
      expect(none.body.email_verified).toBeUndefined()
    })

    it('takes the token from access_token, bearer_token and POST bodies too, and answers an OpenID client', async () => {
      const user = await createTestUser(server.database.db)
      const { value, application } = await createOAuthToken(server, user)
      const byParam = await request('GET', `/oauth/userinfo?access_token=${value}`)
      expect(byParam.status).toBe(200)
      expect(byParam.body.sub).toBe(String(user.id))
      const byBearerParam = await request('POST', '/oauth/userinfo', { body: { bearer_token: value }, form: true })
      expect(byBearerParam.status).toBe(200)
      const byPost = await request('POST', '/oauth/userinfo', { headers: { authorization: `Bearer ${value}` } })
      expect(byPost.body).toEqual(byParam.body)

      const issuer = new URL(server.url)
      const as = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { algorithm: 'oidc', [oauth.allowInsecureRequests]: true }),
      )
      const rp: oauth.Client = { client_id: application.uid }
      const response = await oauth.userInfoRequest(as, rp, value, { [oauth.allowInsecureRequests]: true })
      const info = await oauth.processUserInfoResponse(as, rp, String(user.id), response)
      expect(info.preferred_username).toBe(user.username)
    })

    it('refuses a token without the openid scope with 403 invalid_scope and no WWW-Authenticate', async () => {
      const user = await createTestUser(server.database.db)
      const { value } = await createOAuthToken(server, user, { scopes: 'api read_user' })
      const response = await request('GET', '/oauth/userinfo', { headers: { authorization: `Bearer ${value}` } })
      expect(response.status).toBe(403)
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(response.headers['www-authenticate']).toBeUndefined()
      expect(response.body).toEqual({
        error: 'invalid_scope',
        error_description: 'Access to this resource requires scope "openid".',
        state: 'forbidden',
      })
    })

    it('refuses a missing, unknown, revoked or expired token with 401 invalid_token', async () => {
      const user = await createTestUser(server.database.db)
      const invalid = 'The access token is invalid'
      const expectInvalid = async (headers: Record<string, string>, description: string) => {
        const response = await request('GET', '/oauth/userinfo', { headers })
        expect(response.status).toBe(401)
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
        expect(response.headers['www-authenticate']).toBe(
          `Bearer realm="Doorkeeper", error="invalid_token", error_description="${description}"`,
        )
        expect(response.body).toEqual({ error: 'invalid_token', error_description: description, state: 'unauthorized' })
      }
      await expectInvalid({}, invalid)
      await expectInvalid({ authorization: 'Bearer nope' }, invalid)
      const revoked = await createOAuthToken(server, user, { revokedAt: new Date(Date.now() - 1000).toISOString() })
      await expectInvalid({ authorization: `Bearer ${revoked.value}` }, 'The access token was revoked')

      const expiring = await createOAuthToken(server, user, { expiresIn: 60 })
      const fresh = await request('GET', '/oauth/userinfo', { headers: { authorization: `Bearer ${expiring.value}` } })
      expect(fresh.status).toBe(200)
      server.travel(61_000)
      try {
        await expectInvalid({ authorization: `Bearer ${expiring.value}` }, 'The access token expired')
      } finally {
        server.travel(-61_000)
      }
    })

    it('refuses the token of a blocked user', async () => {
      const user = await createTestUser(server.database.db, { state: 'blocked' })
      const { value } = await createOAuthToken(server, user)
      const response = await request('GET', '/oauth/userinfo', { headers: { authorization: `Bearer ${value}` } })
      expect(response.status).toBe(401)
      expect(response.body.error).toBe('invalid_token')
    })

    it('answers cross-origin calls and preflights for GET, HEAD and POST with an Authorization header', async () => {
      const user = await createTestUser(server.database.db)
      const { value } = await createOAuthToken(server, user)
      const response = await request('GET', '/oauth/userinfo', {
        headers: { authorization: `Bearer ${value}`, origin: 'https://rp.example.com' },
      })
      expect(response.headers['access-control-allow-origin']).toBe('*')
      expect(response.headers['access-control-allow-methods']).toBe('GET, HEAD, POST')
      const refused = await request('GET', '/oauth/userinfo', { headers: { origin: 'https://rp.example.com' } })
      expect(refused.status).toBe(401)
      expect(refused.headers['access-control-allow-origin']).toBe('*')
      const preflight = await request('OPTIONS', '/oauth/userinfo', {
        headers: {
          origin: 'https://rp.example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization',
        },
      })
      expect(preflight.status).toBe(200)
      expect(preflight.headers['access-control-allow-headers']).toBe('authorization')
      expect(preflight.headers['access-control-allow-methods']).toBe('GET, HEAD, POST')
    })
  })
})
