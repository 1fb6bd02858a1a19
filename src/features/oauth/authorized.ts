import type { Db } from '../../db/index.js'
import { revokeTokenOfOwner, revokeTokensAndGrantsOfOwner } from './store.js'

// What a user takes back from the applications they authorized (GL Oauth::AuthorizedApplicationsController#destroy).

/** Revokes every token and unused code the user gave an application; call it inside a transaction. */
export async function revokeAuthorization(trx: Db, userId: number, applicationId: number, at: string): Promise<void> {
  await revokeTokensAndGrantsOfOwner(trx, userId, applicationId, at)
}

/** Revokes one of the user's tokens unless it is revoked already. */
export async function revokeOwnToken(db: Db, userId: number, tokenId: number, at: string): Promise<void> {
  await revokeTokenOfOwner(db, userId, tokenId, at)
}
