import { sql } from 'kysely'
import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import type { NamespaceRow, NewNamespaceRow } from '../../db/schema.js'
import { findPersonalNamespace, insertNamespace, relocateNamespace } from './store.js'

export { findNamespaceByFullPath, findPersonalNamespace, isFullPathTaken } from './store.js'
export { recordRedirect, releaseRedirectsAtOrBelow, releaseRedirectsFrom } from './redirects.js'

/** Creates a namespace below `parent` (none for a top-level one), its ancestry recorded; call it inside a transaction. */
export function createNamespace(trx: Db, row: NewNamespaceRow, parent: NamespaceRow | null): Promise<NamespaceRow> {
  return insertNamespace(trx, row, parent)
}

/**
 * Moves a namespace and everything below it to a new path, name or parent: the namespaces and projects below get
 * the new prefix and every old path redirects (GL Namespaces::...::TransferService); call it inside a transaction.
 */
export function moveNamespace(
  trx: Db,
  namespace: NamespaceRow,
  target: { name: string; path: string; fullPath: string; fullName: string; parent: NamespaceRow | null | undefined },
  at: string,
): Promise<NamespaceRow> {
  return relocateNamespace(trx, namespace, target, at)
}

/** A user's personal namespace, created with the user: path = username, name = the user's name, public. */
export function createPersonalNamespace(db: Db, user: User): Promise<NamespaceRow> {
  return insertNamespace(
    db,
    {
      kind: 'user',
      name: user.name,
      path: user.username,
      full_path: user.username,
      full_name: user.name,
      owner_id: user.id,
      visibility_level: 20,
      created_at: user.created_at,
      updated_at: user.created_at,
    },
    null,
  )
}

/** Follows a user's new username or name: the namespace and its projects move, old paths redirect. */
export async function syncPersonalNamespace(db: Db, user: User, at: string): Promise<void> {
  const namespace = await findPersonalNamespace(db, user.id)
  if (!namespace) return
  if (namespace.path === user.username && namespace.name === user.name) return
  await relocateNamespace(
    db,
    namespace,
    { name: user.name, path: user.username, fullPath: user.username, fullName: user.name, parent: undefined },
    at,
  )
}

/** Whether a namespace other than the user's own personal one has this path at the top level. */
export async function isUsernameUsedByNamespace(db: Db, username: string, userId: number | null): Promise<boolean> {
  let query = db
    .selectFrom('namespaces')
    .select('id')
    .where(sql`lower(full_path)`, '=', username.toLowerCase())
  if (userId !== null) query = query.where((eb) => eb.or([eb('owner_id', 'is', null), eb('owner_id', '<>', userId)]))
  return (await query.executeTakeFirst()) !== undefined
}

export { avatarUrlOf } from './present.js'
export {
  hasNamespacePathFormat,
  isTopLevelRoute,
  MAX_NAME_LENGTH,
  MAX_PATH_LENGTH,
  NAMESPACE_FORMAT_MESSAGE,
  nameErrors,
  namespacePathErrors,
  projectPathErrors,
} from './paths.js'
export { containsPattern, parseSearch, trigramSimilarity, type SearchTerms } from './search.js'
