import type { Context } from '../../core/context.js'
import { BadRequest, NotFound } from '../../core/errors.js'
import type { LoadedProject } from '../access/index.js'
import type { TreeEntry } from '../repositories/index.js'
import {
  findCommit,
  findTreeEntry,
  openRepository,
  pathSegments,
  readTreeEntries,
  refOrDefault,
  type BrowsedRepository,
} from './repository.js'

/** One entry of a listing, its path from the repository's root. */
export interface TreeItem {
  oid: string
  name: string
  type: TreeEntry['type']
  path: string
  mode: string
}

export interface TreeQuery {
  ref?: string
  path?: string
  recursive: boolean
}

const TYPE_ORDER: Record<TreeEntry['type'], number> = { tree: 0, blob: 1, commit: 2 }

function itemOf(entry: TreeEntry, prefix: string): TreeItem {
  return { oid: entry.oid, name: entry.name, type: entry.type, path: prefix + entry.name, mode: entry.mode }
}

/** Every entry under a tree, each tree before its contents, in git's order (`git ls-tree -r -t`). */
async function walkTree(repository: BrowsedRepository, oid: string, prefix: string): Promise<TreeItem[]> {
  const entries = await readTreeEntries(repository, oid)
  // The subtrees are asked for at once: the one cat-file answers them in turn without waiting for each round trip.
  const subtrees = entries.map((entry) => (entry.type === 'tree' ? walkTree(repository, entry.oid, `${prefix}${entry.name}/`) : null))
  const items: TreeItem[] = []
  for (const [index, entry] of entries.entries()) {
    items.push(itemOf(entry, prefix))
    const below = subtrees[index]
    if (below) for (const item of await below) items.push(item)
  }
  return items
}

/**
 * The entries of a tree at a ref and path, as GL Repositories::TreeFinder lists them: trees, then blobs, then
 * submodules, each in git's order (GL Tree#sorted_entries). A ref that names no commit is `404 Tree Not Found`; a
 * path that names no tree is Gitaly's `invalid revision or path` (or `path not treeish` for a file).
 */
export async function listTree(ctx: Context, loaded: LoadedProject, query: TreeQuery): Promise<TreeItem[]> {
  const repository = openRepository(ctx, loaded)
  const commit = await findCommit(repository, refOrDefault(repository, query.ref))
  if (!commit) throw new NotFound('Tree')
  const segments = pathSegments(query.path)
  if (!segments) throw new NotFound('invalid revision or path')
  const target = await findTreeEntry(repository, commit.tree, segments)
  if (!target) throw new NotFound('invalid revision or path')
  if (target.type !== 'tree') throw new NotFound('path not treeish')
  const prefix = segments.length === 0 ? '' : `${segments.join('/')}/`
  const items = query.recursive
    ? await walkTree(repository, target.oid, prefix)
    : (await readTreeEntries(repository, target.oid)).map((entry) => itemOf(entry, prefix))
  // Array#sort is stable: within a type, git's order stays.
  return items.sort((a, b) => TYPE_ORDER[a.type] - TYPE_ORDER[b.type])
}

/** Gitaly's page token: base64 of `{"file_name":"<path of the page's last entry>"}`. */
export function treePageToken(item: TreeItem): string {
  return Buffer.from(JSON.stringify({ file_name: item.path })).toString('base64')
}

/** Where a page token says to start: after the entry of that path, or (Gitaly's older tokens) of that object id. */
function startAfter(items: TreeItem[], token: string): number {
  let path: string | null = null
  try {
    const decoded = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as unknown
    if (decoded && typeof decoded === 'object' && typeof (decoded as { file_name?: unknown }).file_name === 'string') {
      path = (decoded as { file_name: string }).file_name
    }
  } catch {
    // not a path token: an object id
  }
  const index = path === null ? items.findIndex((item) => item.oid === token) : items.findIndex((item) => item.path === path)
  if (index < 0) throw new BadRequest('Invalid page token')
  return index + 1
}

export interface TreeKeysetPage {
  items: TreeItem[]
  /** The token of the next page; null on the last one. */
  nextToken: string | null
}

/** A keyset page of a listing (GL GitalyKeysetPager with Gitaly's GetTreeEntries pagination). */
export function treeKeysetPage(items: TreeItem[], pageToken: string | undefined, perPage: number): TreeKeysetPage {
  const start = pageToken === undefined || pageToken === '' ? 0 : startAfter(items, pageToken)
  const page = items.slice(start, start + perPage)
  const hasMore = start + perPage < items.length
  return { items: page, nextToken: hasMore && page.length > 0 ? treePageToken(page[page.length - 1]) : null }
}
