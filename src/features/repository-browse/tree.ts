import type { Context } from '../../core/context.js'
import { BadRequest, NotFound } from '../../core/errors.js'
import type { LoadedProject } from '../access/index.js'
import {
  findCommit,
  findTreeEntry,
  openGitOutput,
  readGitOutput,
  readLines,
  readTreeEntries,
  type TreeEntry,
} from '../repositories/index.js'
import { openRepository, pathSegments, refOrDefault, type BrowsedRepository } from './repository.js'

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

/** Git's `ls-tree -z` records of a tree, those `keep` keeps, as git lists them; git ends when the reading stops. */
async function* listedEntries(
  repository: BrowsedRepository,
  treeOid: string,
  prefix: string,
  options: string[],
  keep: (type: string) => boolean,
): AsyncGenerator<TreeItem> {
  const output = await openGitOutput(repository.directory, ['ls-tree', '-z', ...options, treeOid])
  for await (const record of readLines(output, 0)) {
    const tab = record.indexOf(0x09)
    const [mode, type, oid] = record.toString('latin1', 0, tab).split(' ')
    if (!keep(type)) continue
    const path = record.toString('utf8', tab + 1)
    const slash = path.lastIndexOf('/')
    yield { oid, name: path.slice(slash + 1), type: type as TreeEntry['type'], path: prefix + path, mode: mode.replace(/^0(?=\d{5})/, '') }
  }
}

/**
 * Every entry under a tree in GitLab's order (GL Tree#sorted_entries over a recursive listing): its trees, then its
 * blobs, then its submodules, each in git's order (`git ls-tree -r -t`, each tree before its contents). Read as git
 * lists them, so a reader that stops early reads no more of the tree.
 */
async function* recursiveItems(repository: BrowsedRepository, treeOid: string, prefix: string): AsyncGenerator<TreeItem> {
  yield* listedEntries(repository, treeOid, prefix, ['-r', '-d'], (type) => type === 'tree')
  yield* listedEntries(repository, treeOid, prefix, ['-r'], (type) => type === 'blob')
  yield* listedEntries(repository, treeOid, prefix, ['-r'], (type) => type === 'commit')
}

/** The entries of a listing, read as they are asked for, and how many there are. */
export interface TreeListing {
  items(): AsyncIterable<TreeItem>
  count(): Promise<number>
}

/**
 * The entries of a tree at a ref and path, as GL Repositories::TreeFinder lists them: trees, then blobs, then
 * submodules, each in git's order (GL Tree#sorted_entries). A ref that names no commit is `404 Tree Not Found`; a
 * path that names no tree is Gitaly's `invalid revision or path` (or `path not treeish` for a file).
 */
export async function openTree(ctx: Context, loaded: LoadedProject, query: TreeQuery): Promise<TreeListing> {
  const repository = openRepository(ctx, loaded)
  const commit = await findCommit(repository.directory, refOrDefault(repository, query.ref))
  if (!commit) throw new NotFound('Tree')
  const segments = pathSegments(query.path)
  if (!segments) throw new NotFound('invalid revision or path')
  const target = await findTreeEntry(repository.directory, commit.tree, segments)
  if (!target) throw new NotFound('invalid revision or path')
  if (target.type !== 'tree') throw new NotFound('path not treeish')
  const prefix = segments.length === 0 ? '' : `${segments.join('/')}/`
  if (query.recursive) {
    return {
      items: () => recursiveItems(repository, target.oid, prefix),
      count: async () => {
        let count = 0
        await readGitOutput(repository.directory, ['ls-tree', '-r', '-t', '-z', '--name-only', target.oid], (chunk) => {
          for (let at = chunk.indexOf(0); at >= 0; at = chunk.indexOf(0, at + 1)) count += 1
        })
        return count
      },
    }
  }
  // Array#sort is stable: within a type, git's order stays.
  const items = (await readTreeEntries(repository.directory, target.oid))
    .map((entry) => itemOf(entry, prefix))
    .sort((a, b) => TYPE_ORDER[a.type] - TYPE_ORDER[b.type])
  return {
    items: async function* () {
      yield* items
    },
    count: async () => items.length,
  }
}

/** Every entry of a listing (`pagination=none`). */
export async function listTree(ctx: Context, loaded: LoadedProject, query: TreeQuery): Promise<TreeItem[]> {
  const items: TreeItem[] = []
  for await (const item of (await openTree(ctx, loaded, query)).items()) items.push(item)
  return items
}

/** Gitaly's page token: base64 of `{"file_name":"<path of the page's last entry>"}`. */
export function treePageToken(item: TreeItem): string {
  return Buffer.from(JSON.stringify({ file_name: item.path })).toString('base64')
}

/** The path a page token names, or null for Gitaly's older tokens: an object id. */
function tokenPath(token: string): string | null {
  try {
    const decoded = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as unknown
    if (decoded && typeof decoded === 'object' && typeof (decoded as { file_name?: unknown }).file_name === 'string') {
      return (decoded as { file_name: string }).file_name
    }
  } catch {
    // not a path token: an object id
  }
  return null
}

export interface TreeKeysetPage {
  items: TreeItem[]
  /** The token of the next page; null on the last one. */
  nextToken: string | null
}

/**
 * A keyset page of a listing (GL GitalyKeysetPager with Gitaly's GetTreeEntries pagination): the entries after the
 * one the token names (by path, or by object id), read up to one past the page.
 */
export async function treeKeysetPage(listing: TreeListing, pageToken: string | undefined, perPage: number): Promise<TreeKeysetPage> {
  const token = pageToken === undefined || pageToken === '' ? null : pageToken
  const path = token === null ? null : tokenPath(token)
  let started = token === null
  const page: TreeItem[] = []
  let hasMore = false
  for await (const item of listing.items()) {
    if (!started) {
      started = path === null ? item.oid === token : item.path === path
      continue
    }
    if (page.length === perPage) {
      hasMore = true
      break
    }
    page.push(item)
  }
  if (!started) throw new BadRequest('Invalid page token')
  return { items: page, nextToken: hasMore && page.length > 0 ? treePageToken(page[page.length - 1]) : null }
}

export interface TreeOffsetPage {
  rows: TreeItem[]
  hasNext: boolean
  total: number
}

/**
 * An offset page of a listing: the entries read up to one past the page; the total counted without keeping the
 * entries when more follow (GitLab pages the whole listing, X-Total included).
 */
export async function treeOffsetPage(listing: TreeListing, page: number, perPage: number): Promise<TreeOffsetPage> {
  const start = (page - 1) * perPage
  const rows: TreeItem[] = []
  let seen = 0
  let hasNext = false
  for await (const item of listing.items()) {
    if (seen >= start + perPage) {
      hasNext = true
      break
    }
    if (seen >= start) rows.push(item)
    seen += 1
  }
  return { rows, hasNext, total: hasNext ? await listing.count() : seen }
}
