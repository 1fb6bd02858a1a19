import { isTokenExpired } from '../../core/token-validity.js'
import type { TokenRow } from '../../db/schema.js'
import type {
  ImpersonationTokenJson,
  ImpersonationTokenWithTokenJson,
  PersonalAccessTokenJson,
  PersonalAccessTokenWithLastUsedIpsJson,
  PersonalAccessTokenWithTokenJson,
} from './schemas.js'

export function isTokenActive(row: Pick<TokenRow, 'expires_at' | 'revoked'>, now: Date): boolean {
  return row.revoked === 0 && !isTokenExpired(row.expires_at, now)
}

export function presentToken(row: TokenRow, now: Date): PersonalAccessTokenJson {
  return {
    id: row.id,
    name: row.name,
    revoked: row.revoked === 1,
    created_at: row.created_at,
    description: row.description,
    scopes: JSON.parse(row.scopes) as string[],
    user_id: row.user_id,
    last_used_at: row.last_used_at,
    active: isTokenActive(row, now),
    expires_at: row.expires_at,
  }
}

export function presentTokenWithToken(row: TokenRow, token: string, now: Date): PersonalAccessTokenWithTokenJson {
  return { ...presentToken(row, now), token }
}

export function presentTokenWithLastUsedIps(row: TokenRow, now: Date): PersonalAccessTokenWithLastUsedIpsJson {
  return { ...presentToken(row, now), last_used_ips: JSON.parse(row.last_used_ips) as string[] }
}

export function presentImpersonationToken(row: TokenRow, now: Date): ImpersonationTokenJson {
  return { ...presentToken(row, now), impersonation: row.impersonation === 1 }
}

export function presentImpersonationTokenWithToken(row: TokenRow, token: string, now: Date): ImpersonationTokenWithTokenJson {
  return { ...presentImpersonationToken(row, now), token }
}
