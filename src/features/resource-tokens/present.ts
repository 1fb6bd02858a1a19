import type { TokenRow } from '../../db/schema.js'
import { presentToken } from '../tokens/index.js'
import type { ResourceAccessTokenJson, ResourceAccessTokenWithTokenJson } from './schemas.js'

export function presentResourceToken(row: TokenRow, accessLevel: number, now: Date): ResourceAccessTokenJson {
  return { ...presentToken(row, now), access_level: accessLevel }
}

export function presentResourceTokenWithToken(
  row: TokenRow,
  accessLevel: number,
  token: string,
  now: Date,
): ResourceAccessTokenWithTokenJson {
  return { ...presentResourceToken(row, accessLevel, now), token }
}
