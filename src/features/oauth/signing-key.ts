import { createHash } from 'node:crypto'
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose'
import type { Context } from '../../core/context.js'
import type { Db } from '../../db/index.js'
import { findFirstSigningKey, insertFirstSigningKey } from './store.js'

/** Doorkeeper::OpenidConnect signing_algorithm as GitLab configures it (the gem's default). */
export const SIGNING_ALGORITHM = 'RS256'

export interface SigningKey {
  kid: string
  privateKey: CryptoKey
  /** The public half as the JWKS serves it: kty, kid, e, n, use, alg (the gem's keys_response order). */
  publicJwk: JWK
  /** Stands in for GitLab's secret_key_base in `sub_legacy`: stable, secret, and the same on every node. */
  legacySubjectSecret: string
}

/** The RS256 key that signs ID tokens, made and stored on first need and shared by every node through the database. */
export function loadSigningKey(ctx: Context): Promise<SigningKey> {
  // Loaded once per running instance; the database keeps the truth every node reads.
  return ctx.memo.remember('oauth.signing-key', () => findOrCreateSigningKey(ctx.db, ctx.now()))
}

async function findOrCreateSigningKey(db: Db, now: Date): Promise<SigningKey> {
  const row = (await findFirstSigningKey(db)) ?? (await insertFirstSigningKey(db, await generateSigningKeyRow(now)))
  return importSigningKey(row.kid, JSON.parse(row.private_jwk) as JWK)
}

async function generateSigningKeyRow(now: Date) {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { modulusLength: 2048, extractable: true })
  const jwk = await exportJWK(privateKey)
  const kid = await calculateJwkThumbprint(jwk, 'sha256')
  return { kid, private_jwk: JSON.stringify({ ...jwk, kid }), created_at: now.toISOString() }
}

async function importSigningKey(kid: string, jwk: JWK): Promise<SigningKey> {
  const privateKey = (await importJWK(jwk, SIGNING_ALGORITHM)) as CryptoKey
  const publicJwk: JWK = { kty: jwk.kty, kid, e: jwk.e, n: jwk.n, use: 'sig', alg: SIGNING_ALGORITHM }
  const legacySubjectSecret = createHash('sha256').update(`sub_legacy:${jwk.d}`).digest('hex')
  return { kid, privateKey, publicJwk, legacySubjectSecret }
}
