// What other features may use of clusters.
import type { Db } from '../../db/index.js'
import type { ClusterRow } from '../../db/schema.js'
import { findClusterRowById } from './store.js'

export { canAdminClusters, canReadClusters } from './policy.js'

/** A cluster by its global id, whatever project it belongs to. */
export function findClusterById(db: Db, id: number): Promise<ClusterRow | undefined> {
  return findClusterRowById(db, id)
}
