import type { Db } from '../../db/index.js'
import type { NamespaceRow } from '../../db/schema.js'
import { capVisibilityOfProjectsBelowGroup, markProjectsBelowGroupPendingDelete } from './store.js'

// What a change to a group does to the projects of the group and of its subgroups.

/** A group being deleted hides its projects and its subgroups' from every finder at once; call it inside the deletion's transaction. */
export async function markProjectsBelowPendingDelete(trx: Db, group: NamespaceRow): Promise<void> {
  await markProjectsBelowGroupPendingDelete(trx, group)
}

/** A group moved under a less visible parent lowers its projects and its subgroups' to at most `level` (GL Groups::TransferService). */
export async function capVisibilityOfProjectsBelow(trx: Db, group: NamespaceRow, level: number): Promise<void> {
  await capVisibilityOfProjectsBelowGroup(trx, group, level)
}
