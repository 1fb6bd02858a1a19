import type { Db } from '../../db/index.js'
import { deleteMemberRow, findMemberRow, insertMember, selectBotMembers, type SourceRef } from './store.js'

export type { SourceRef } from './store.js'

/**
 * Makes a user Owner of a new or moved group or project, replacing any direct membership they had there; call it
 * inside the transaction that creates or moves it.
 */
export { addOwnerMember as addOwner } from './service.js'
export { noticeMembershipsEnding } from './service.js'

/** Makes the bot of a new access token a direct member with the token's role; call it inside the creating transaction. */
export function addBotMember(trx: Db, source: SourceRef, userId: number, accessLevel: number, createdById: number, at: string) {
  return insertMember(trx, {
    user_id: userId,
    project_id: source.kind === 'project' ? source.id : null,
    namespace_id: source.kind === 'group' ? source.id : null,
    access_level: accessLevel,
    created_by_id: createdById,
    created_at: at,
    updated_at: at,
  })
}

/** Removes a user's direct membership of a source; false when there was none. */
export async function removeDirectMembership(trx: Db, source: SourceRef, userId: number): Promise<boolean> {
  const member = await findMemberRow(trx, source, userId)
  if (!member) return false
  await deleteMemberRow(trx, member.id)
  return true
}

/** The bots that are direct members of a source and their roles, by user id. */
export async function findBotMembers(db: Db, source: SourceRef): Promise<Map<number, number>> {
  const rows = await selectBotMembers(db, source)
  return new Map(rows.map((row) => [row.user_id, row.access_level]))
}

export { listMembers, type MemberView } from './service.js'
export { canReadMembers, type MemberSource } from './policy.js'
// The members page acts through the same use cases and rules as the members API.
export { addMember, findMemberSource, listAllMembers, removeMember, updateMember, type AddMemberResult } from './service.js'
export { canManageMembers, canManageOwners, isPersonalNamespaceHolder } from './policy.js'
