import type { Db } from '../../db/index.js'
import type { MemberRow } from '../../db/schema.js'
import { replaceWithOwnerMember, type SourceRef } from './store.js'

/**
 * Makes a user Owner of a new or moved group or project, replacing any direct membership they had there; call it
 * inside the transaction that creates or moves it.
 */
export function addOwner(trx: Db, source: SourceRef, userId: number, createdById: number | null, at: string): Promise<MemberRow> {
  return replaceWithOwnerMember(trx, source, userId, createdById, at)
}
