import type { Db } from '../../db/index.js'
import { deleteRedirectsAtOrBelow, deleteRedirectsFrom, insertRedirect } from './store.js'

// Old paths of projects and namespaces that keep answering with where the thing moved (GL RedirectRoute).

/** The old path of a project or namespace now leads to it; call it inside the transaction of the move. */
export async function recordRedirect(
  trx: Db,
  path: string,
  target: { projectId: number } | { namespaceId: number },
  at: string,
): Promise<void> {
  await insertRedirect(trx, path, target, at)
}

/** Paths in use again belong to their new owner: redirects from them go (GL Route#delete_conflicting_redirects). */
export async function releaseRedirectsFrom(trx: Db, fullPaths: string[]): Promise<void> {
  await deleteRedirectsFrom(trx, fullPaths)
}

/** A full path in use again takes the paths below it too: redirects from it and from below it go. */
export async function releaseRedirectsAtOrBelow(trx: Db, fullPath: string): Promise<void> {
  await deleteRedirectsAtOrBelow(trx, fullPath)
}
