import type { FastifyInstance } from 'fastify'
import { MissingParam } from '../../core/errors.js'
import { mergedParams, type PlainRouteDeps } from '../../http/route.js'
import { SUPPORTED_CLAIMS } from './claims.js'
import { OAUTH_USERINFO_CORS, OPENID_DISCOVERY_CORS, registerCrossOriginRoute } from './cors.js'
import { presentedAccessToken, stringParam } from './params.js'
import { OAUTH_SCOPES } from '../../core/scopes.js'
import { loadSigningKey, SIGNING_ALGORITHM } from './signing-key.js'
import { MissingScope, userInfo } from './userinfo.js'

// doorkeeper-openid_connect DiscoveryController::WEBFINGER_RELATION.
const WEBFINGER_RELATION = 'http://openid.net/specs/connect/1.0/issuer'

/**
 * The provider metadata, in the fields and order of doorkeeper-openid_connect's DiscoveryController
 * (blank ones dropped: no introspection, end-session or registration endpoint here).
 */
function discoveryDocument(base: string) {
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    userinfo_endpoint: `${base}/oauth/userinfo`,
    jwks_uri: `${base}/oauth/discovery/keys`,
    scopes_supported: OAUTH_SCOPES,
    response_types_supported: ['code'],
    // The authorization endpoint answers by redirecting with query parameters only (spec: OAuth 2.0 provider).
    response_modes_supported: ['query'],
    // GL grant_flows minus the client-credentials and device flows svc does not offer, then refresh_token.
    grant_types_supported: ['authorization_code', 'password', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [SIGNING_ALGORITHM],
    claim_types_supported: ['normal'],
    claims_supported: SUPPORTED_CLAIMS,
    // Only S256 (spec: OAuth 2.0 provider, code_challenge_method).
    code_challenge_methods_supported: ['S256'],
  }
}

/** OpenID Connect: discovery, signing keys and userinfo, open to cross-origin callers as GitLab's rack-cors rules say. */
export function registerOpenIdRoutes(app: FastifyInstance, deps: PlainRouteDeps) {
  registerCrossOriginRoute(app, OPENID_DISCOVERY_CORS, {
    method: 'GET',
    url: '/.well-known/openid-configuration',
    handler: async (request, reply) => {
      const ctx = await deps.context(request)
      return reply.send(discoveryDocument(ctx.config.externalUrl))
    },
  })

  registerCrossOriginRoute(app, OPENID_DISCOVERY_CORS, {
    method: 'GET',
    url: '/.well-known/webfinger',
    handler: async (request, reply) => {
      const ctx = await deps.context(request)
      const resource = stringParam(mergedParams(request), 'resource')
      if (resource === null) throw new MissingParam('resource')
      return reply.send({ subject: resource, links: [{ rel: WEBFINGER_RELATION, href: ctx.config.externalUrl }] })
    },
  })

  registerCrossOriginRoute(app, OPENID_DISCOVERY_CORS, {
    method: 'GET',
    url: '/oauth/discovery/keys',
    handler: async (request, reply) => {
      const ctx = await deps.context(request)
      const key = await loadSigningKey(ctx)
      return reply.send({ keys: [key.publicJwk] })
    },
  })

  registerCrossOriginRoute(app, OAUTH_USERINFO_CORS, {
    method: ['GET', 'POST'],
    url: '/oauth/userinfo',
    handler: async (request, reply) => {
      const ctx = await deps.context(request)
      try {
        return reply.send(await userInfo(ctx, presentedAccessToken(request)))
      } catch (error) {
        if (!(error instanceof MissingScope)) throw error
        // DK ForbiddenTokenResponse: invalid_scope, 403, and no WWW-Authenticate header.
        return reply
          .code(403)
          .header('cache-control', 'no-store, no-cache')
          .type('application/json; charset=utf-8')
          .send({ error: 'invalid_scope', error_description: error.message, state: 'forbidden' })
      }
    },
  })
}
