import { randomInt } from 'node:crypto'
import { AccessLevel } from '../../core/access.js'
import { isAdmin } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { isoDate } from '../../core/time.js'
import { NotFound, Unauthorized } from '../../core/errors.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import { groupAccess, groupsWithRoleCondition } from '../access/index.js'
import type { NamespaceCounts } from './present.js'
import { parseSearch } from './search.js'
import {
  countMembersWithDescendants,
  countProjectsWithDescendants,
  filterNamespaceIds,
  findNamespaceWithOwner,
  findSiblingPathsAndNames,
  selectNamespaces,
  type NamespaceWithOwner,
} from './store.js'

/** Sizes of the groups among `namespaces` that the caller administers (Owner, or an administrator). */
async function countsFor(ctx: Context, namespaces: readonly NamespaceWithOwner[]): Promise<Map<number, NamespaceCounts>> {
  const groups = namespaces.filter((n) => n.kind === 'group')
  const administered = isAdmin(ctx.caller)
    ? groups
    : await (async () => {
        const ids = await filterNamespaceIds(
          ctx.db,
          groups.map((g) => g.id),
          (eb) => groupsWithRoleCondition(ctx, eb, AccessLevel.OWNER),
        )
        return groups.filter((g) => ids.has(g.id))
      })()
  const [members, projects] = await Promise.all([
    countMembersWithDescendants(ctx.db, administered, isoDate(ctx.now())),
    countProjectsWithDescendants(ctx.db, administered),
  ])
  return new Map(administered.map((g) => [g.id, { members: members.get(g.id) ?? 0, projects: projects.get(g.id) ?? 0 }]))
}

export interface ListNamespacesInput {
  search?: string
  ownedOnly: boolean
  topLevelOnly: boolean
  fullPathSearch: boolean
  page: number
  perPage: number
}

/**
 * GET /namespaces (GL namespaces.rb): administrators list every namespace (owned_only aside, as GitLab does);
 * others their personal namespace and the groups they are direct members of (owned_only: Owner of).
 */
export async function listNamespaces(
  ctx: Context,
  input: ListNamespacesInput,
): Promise<{ page: OffsetPage<NamespaceWithOwner>; counts: Map<number, NamespaceCounts> }> {
  const user = ctx.caller.user
  if (!user) throw new Unauthorized()
  const terms = parseSearch(input.search)
  const query = selectNamespaces(ctx.db, {
    member: isAdmin(ctx.caller) ? null : { userId: user.id, ownedOnly: input.ownedOnly, today: isoDate(ctx.now()) },
    topLevelOnly: input.topLevelOnly,
    search: terms ? { terms, fullPath: input.fullPathSearch } : null,
  })
  const page = await fetchOffsetPage(ctx.db, query, input.page, input.perPage)
  return { page, counts: await countsFor(ctx, page.rows) }
}

/**
 * GET /namespaces/:id by id or full path (GL helpers.rb `find_namespace!`): a user namespace for its owner, a
 * group for its members (`read_namespace_via_membership`), anything for administrators; else 404.
 */
export async function showNamespace(ctx: Context, idOrPath: string): Promise<{ namespace: NamespaceWithOwner; counts?: NamespaceCounts }> {
  const user = ctx.caller.user
  if (!user) throw new Unauthorized()
  const namespace = await findNamespaceWithOwner(ctx.db, idOrPath)
  if (!namespace) throw new NotFound('Namespace')
  let allowed = isAdmin(ctx.caller)
  if (!allowed && namespace.kind === 'user') allowed = namespace.owner_id === user.id
  if (!allowed && namespace.kind === 'group') allowed = (await groupAccess(ctx, namespace)).level >= AccessLevel.GUEST
  if (!allowed) throw new NotFound('Namespace')
  return { namespace, counts: (await countsFor(ctx, [namespace])).get(namespace.id) }
}

/** GL Namespaces::RandomizedSuffixPath: the first few tries count up, later ones take a random number. */
const COUNTED_TRIES = 3

/**
 * GET /namespaces/:id/exists (GL namespaces.rb): whether a namespace directly under `parentId` (the top level
 * without one) has this path, and if so a free one to suggest, unused as a path or name there.
 */
export async function namespaceExists(
  ctx: Context,
  path: string,
  parentId: number | null,
): Promise<{ exists: boolean; suggests: string[] }> {
  if (!ctx.caller.user) throw new Unauthorized()
  const siblings = await findSiblingPathsAndNames(ctx.db, parentId)
  const lower = path.toLowerCase()
  const exists = siblings.some((s) => s.path.toLowerCase() === lower)
  if (!exists) return { exists, suggests: [] }
  const used = new Set(siblings.flatMap((s) => [s.path.toLowerCase(), s.name.toLowerCase()]))
  const base = path.replace(/[^a-zA-Z0-9_.-]+/g, '-')
  let suggestion = base
  for (let count = 1; used.has(suggestion.toLowerCase()); count++) {
    suggestion = `${base}${count <= COUNTED_TRIES ? count : randomInt(100, 1_000_000)}`
  }
  return { exists, suggests: [suggestion] }
}
