import { createHash, randomInt } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import zlib from 'node:zlib'
import type { Config } from '../../config/index.js'
import type { Context } from '../../core/context.js'
import { Forbidden, NotFound } from '../../core/errors.js'
import type { Settings } from '../../core/settings.js'
import type { Db } from '../../db/index.js'
import { canReadCode, type LoadedProject } from '../access/index.js'
import { repositoryExists } from './files.js'
import { git } from './git.js'
import {
  markContainerReadOnly,
  setContainerWritable,
  switchContainerStorage,
  updateRepositoryState,
  type RepositoryContainerType,
  type RepositoryState,
} from './store.js'

export { countNewCommits, git, gitEnvironment, GitError, identityOf, identityText, isAncestor, type GitIdentity } from './git.js'
export {
  commitFiles,
  commitFirstFile,
  DIRECTORY_EXISTS,
  DIRECTORY_TRAVERSAL,
  EMPTY_PATH,
  FILE_EXISTS,
  FILE_MISSING,
  FileChangeError,
  filePathProblem,
  InvalidTreeError,
  mergeTrees,
  moveRefIfUnchanged,
  writeChangedTree,
  writeCommitObject,
  type FileChange,
  type FilesCommit,
  type NewCommitObject,
  type TreeChange,
} from './commit.js'
export { findCommit, findTreeEntry, readTreeEntries, unlessRepositoryMissing } from './kept-objects.js'
export { readmeContent, type ReadmeValues } from './readme.js'
export { isReadableRefName, isValidRefName, isWellFormedRef } from './ref-names.js'
export { readBranchHead } from './branch-head.js'
export { pushCommitTitle } from './push-title.js'
export { blobContentType, blobDisposition } from './content-type.js'
export { diffBetween, diffStats, patchIdBetween, rawPatchBetween, unifiedDiffOf, type DiffResult, type FileDiff } from './diffs.js'
export { base64JsonStream, destroyOnClose, openGitOutput, readGitOutput, readLines } from './stream.js'
export {
  closeObjectReader,
  isClientRevision,
  LARGE_BLOB_BYTES,
  openBlob,
  parseCommit,
  parseSignature,
  parseTag,
  parseTree,
  readCommit,
  readObject,
  readObjectHeader,
  readObjectOrLargeBlob,
  type GitObject,
  type LargeBlob,
  type ObjectHeader,
  type ObjectType,
  type ParsedCommit,
  type ParsedTag,
  type Signature,
  type TreeEntry,
} from './objects.js'
export type { RepositoryContainerType, RepositoryState } from './store.js'

/** What a repository belongs to: a project, a project's wiki, a snippet, or a group's wiki. */
export type RepositoryKind = 'project' | 'project-wiki' | 'snippet' | 'group-wiki'

// GL Storage::Hashed, Snippet#disk_path and GroupWiki#disk_path.
const HASHED_ROOTS: Record<RepositoryKind, { root: string; suffix: string }> = {
  project: { root: '@hashed', suffix: '.git' },
  'project-wiki': { root: '@hashed', suffix: '.wiki.git' },
  snippet: { root: '@snippets', suffix: '.git' },
  'group-wiki': { root: '@groups', suffix: '.wiki.git' },
}

/** GitLab's hashed storage path of a repository: `@hashed/<h[0:2]>/<h[2:4]>/<h>.git`, h = sha256 of the owner's id. */
export function hashedRepositoryPath(id: number, kind: RepositoryKind = 'project'): string {
  const hash = createHash('sha256').update(String(id)).digest('hex')
  const { root, suffix } = HASHED_ROOTS[kind]
  return `${root}/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}${suffix}`
}

/** The names of the configured storages, in configured order. */
export function storageNames(config: Config): string[] {
  return Object.keys(config.storages)
}

/** Where a repository lives on disk. */
export function repositoryDirectory(config: Config, storage: string, id: number, kind: RepositoryKind = 'project'): string {
  const root = config.storages[storage]
  if (root === undefined) throw new Error(`repository storage ${JSON.stringify(storage)} is not configured`)
  return path.join(root, hashedRepositoryPath(id, kind))
}

/** Where a project row says its repository is. */
export function projectRepositoryDirectory(config: Config, project: { id: number; repository_storage: string }): string {
  return repositoryDirectory(config, project.repository_storage, project.id)
}

/** GL `authorize_read_code!`: the project's repository directory once the caller may read its code, 403 otherwise. */
export function codeDirectory(ctx: Context, loaded: LoadedProject): string {
  if (!canReadCode(loaded.access, loaded.project)) throw new Forbidden()
  return projectRepositoryDirectory(ctx.config, loaded.project)
}

/** GL `authorize_read_code!` then `not_found! unless user_project.repo_exists?` (API::Tags' before block). */
export async function existingCodeDirectory(ctx: Context, loaded: LoadedProject): Promise<string> {
  const directory = codeDirectory(ctx, loaded)
  if (!(await repositoryExists(directory))) throw new NotFound()
  return directory
}

/**
 * The storage of a new project: a weighted random pick among configured storages with a positive weight
 * (GL ApplicationSetting#pick_repository_storage); `default` when none has weight.
 */
export function pickRepositoryStorage(config: Config, settings: Settings): string {
  const weights = settings.repository_storages_weighted
  const candidates = storageNames(config).filter((name) => (weights[name] ?? 0) > 0)
  const total = candidates.reduce((sum, name) => sum + weights[name], 0)
  if (total === 0) return 'default'
  let ticket = randomInt(total)
  for (const name of candidates) {
    ticket -= weights[name]
    if (ticket < 0) return name
  }
  return candidates[candidates.length - 1]
}

export interface NewRepository {
  storage: string
  /** The owner's id: a project's, a snippet's or a group's. */
  projectId: number
  kind?: RepositoryKind
  /** The branch HEAD names. */
  defaultBranch: string
  objectFormat: 'sha1' | 'sha256'
}

/** Creates an empty bare repository with HEAD on the default branch; fails if the directory exists already. */
export async function createRepository(config: Config, repository: NewRepository): Promise<string> {
  const directory = repositoryDirectory(config, repository.storage, repository.projectId, repository.kind)
  // Ids of committed projects are never reused (AUTOINCREMENT, sequences), so a directory already here is the leftover
  // of a creation that never committed (a crash mid-transaction) and belongs to no project.
  await fs.rm(directory, { recursive: true, force: true })
  await fs.mkdir(directory, { recursive: true })
  await git([
    'init',
    '--bare',
    '--quiet',
    `--initial-branch=${repository.defaultBranch}`,
    `--object-format=${repository.objectFormat}`,
    directory,
  ])
  return directory
}

/** Removes a repository directory; a missing one is fine. */
export async function removeRepository(config: Config, storage: string, id: number, kind: RepositoryKind = 'project'): Promise<void> {
  await fs.rm(repositoryDirectory(config, storage, id, kind), { recursive: true, force: true })
}

// GL Gitlab::FileDetector `readme` and Tree#readme: a root file named README*, markup preferred over plain text.
const README_NAME = /^readme[^/]*$/i
const MARKUP_README = /\.(md|markdown|mdown|mkd|mkdn|mdwn|rmd|rdoc|adoc|ad|asciidoc|textile|rst|org|creole|wiki|mediawiki|pod)$/i
const PLAIN_README = /^readme(\.txt)?$/i

/** The README GitLab would link among a tree's root entries, or null. */
export function readmeOf(names: readonly string[]): string | null {
  const readmes = names.filter((name) => README_NAME.test(name)).sort()
  return readmes.find((name) => MARKUP_README.test(name)) ?? readmes.find((name) => PLAIN_README.test(name)) ?? null
}

const inflate = promisify(zlib.inflate)

/** A loose object's type and content; null when the object is not loose (packed, or in an alternate). */
async function readLooseObject(directory: string, oid: string): Promise<{ type: string; content: Buffer } | null> {
  let stored: Buffer
  try {
    stored = await fs.readFile(path.join(directory, 'objects', oid.slice(0, 2), oid.slice(2)))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
  const data = await inflate(stored)
  const space = data.indexOf(0x20)
  const nul = data.indexOf(0)
  if (space < 0 || nul < space || Number(data.toString('latin1', space + 1, nul)) !== data.length - nul - 1) throw new Error('bad object')
  return { type: data.toString('latin1', 0, space), content: data.subarray(nul + 1) }
}

/**
 * The names of the blobs (files and symbolic links, as `git ls-tree` types them) at the root of a commit, when the
 * commit and its tree are loose objects, read without a process; null otherwise (git reads them then).
 */
async function looseRootBlobs(directory: string, commitOid: string): Promise<string[] | null> {
  const commit = await readLooseObject(directory, commitOid)
  if (commit?.type !== 'commit') return null
  const treeLine = /^tree ([0-9a-f]+)\n/.exec(commit.content.toString('latin1', 0, 80))
  if (!treeLine || treeLine[1].length !== commitOid.length) return null
  const tree = await readLooseObject(directory, treeLine[1])
  if (tree?.type !== 'tree') return null
  const idLength = commitOid.length / 2
  const names: string[] = []
  for (let at = 0; at < tree.content.length;) {
    const space = tree.content.indexOf(0x20, at)
    const nul = tree.content.indexOf(0, space)
    if (space < 0 || nul < 0 || nul + 1 + idLength > tree.content.length) return null
    const mode = tree.content.toString('latin1', at, space)
    // Directories (40000) and submodules (160000) are no blobs.
    if (mode !== '40000' && mode !== '160000') names.push(tree.content.toString('utf8', space + 1, nul))
    at = nul + 1 + idLength
  }
  return names
}

/**
 * What the project entity shows of a repository, read from the repository itself. With `branches` (every ref under
 * refs/heads/ and its object id, as a push has just read them) no git runs unless HEAD is detached or the README of
 * its commit is not known yet.
 */
export async function readRepositoryState(directory: string, branches?: ReadonlyMap<string, string>): Promise<RepositoryState> {
  const symbolic = branches
    ? /^ref: refs\/heads\/(.+)\n?$/.exec(await fs.readFile(path.join(directory, 'HEAD'), 'utf8').catch(() => ''))
    : null
  if (!branches || !symbolic) return readRepositoryStateWithGit(directory)
  const head = symbolic[1]
  const branchNames = [...branches.keys()].filter((name) => name.startsWith('refs/heads/'))
  if (branchNames.length === 0) return { emptyRepo: true, defaultBranch: head, readmePath: null }
  const commit = branches.get(`refs/heads/${head}`)
  if (commit === undefined) return { emptyRepo: false, defaultBranch: head, readmePath: null }
  return { emptyRepo: false, defaultBranch: head, readmePath: await readmeAt(directory, commit) }
}

async function readRepositoryStateWithGit(directory: string): Promise<RepositoryState> {
  const head = (await git(['symbolic-ref', '--short', 'HEAD'], { gitDir: directory })).trim()
  const anyBranch = (await git(['for-each-ref', '--count=1', '--format=%(refname)', 'refs/heads/'], { gitDir: directory })).trim()
  if (anyBranch === '') return { emptyRepo: true, defaultBranch: head, readmePath: null }
  const headExists = (await git(['for-each-ref', '--format=%(refname)', `refs/heads/${head}`], { gitDir: directory })).trim() !== ''
  if (!headExists) return { emptyRepo: false, defaultBranch: head, readmePath: null }
  return { emptyRepo: false, defaultBranch: head, readmePath: await readmeAt(directory, `refs/heads/${head}`) }
}

/** READMEs of commits already read, by object id (a commit's tree never changes); bounded, the oldest go first. */
const READMES_KEPT = 1_000
const readmesByCommit = new Map<string, string | null>()

/** The README GitLab would link in the root tree of a commit (a ref, or an object id): at most one git process. */
export async function readmeAt(directory: string, commit: string): Promise<string | null> {
  const isObjectId = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(commit)
  if (isObjectId && readmesByCommit.has(commit)) return readmesByCommit.get(commit) ?? null
  const loose = isObjectId ? await looseRootBlobs(directory, commit).catch(() => null) : null
  let readme: string | null
  if (loose) readme = readmeOf(loose)
  else {
    // Blobs only: a directory named README is no README.
    const entries = (await git(['ls-tree', '-z', commit], { gitDir: directory })).split('\0').filter(Boolean)
    const blobs = entries.filter((entry) => / blob /.test(entry.split('\t')[0])).map((entry) => entry.slice(entry.indexOf('\t') + 1))
    readme = readmeOf(blobs)
  }
  if (isObjectId) {
    if (readmesByCommit.size >= READMES_KEPT) readmesByCommit.delete(readmesByCommit.keys().next().value as string)
    readmesByCommit.set(commit, readme)
  }
  return readme
}

/**
 * Reads the repository and records on the project what its entity shows (empty_repo, default_branch, readme_url);
 * call after the repository changes. With `recorded` (what the project showed before) an unchanged state writes
 * nothing; `branches` spares running git (see readRepositoryState).
 */
export async function refreshRepositoryState(
  db: Db,
  config: Config,
  project: { id: number; repository_storage: string },
  options: { branches?: ReadonlyMap<string, string>; recorded?: RepositoryState } = {},
): Promise<RepositoryState> {
  const state = await readRepositoryState(projectRepositoryDirectory(config, project), options.branches)
  const { recorded } = options
  const unchanged =
    recorded &&
    recorded.emptyRepo === state.emptyRepo &&
    recorded.defaultBranch === state.defaultBranch &&
    recorded.readmePath === state.readmePath
  if (!unchanged) await updateRepositoryState(db, project.id, state)
  return state
}

export { jobHandlers, scheduleRepositoryRemoval, type RepositoryLocation } from './removal.js'
export { repositoryExists, syncPath } from './files.js'

/** Records on the project what its entity shows of its repository, read already; call it inside the transaction of the change. */
export async function recordRepositoryState(trx: Db, projectId: number, state: RepositoryState): Promise<void> {
  await updateRepositoryState(trx, projectId, state)
}

/** Makes the container's repositories read-only for a storage move unless they are already; false when they were. */
export function markRepositoriesReadOnly(trx: Db, containerType: RepositoryContainerType, id: number): Promise<boolean> {
  return markContainerReadOnly(trx, containerType, id)
}

/** Makes the container's repositories writable again (a storage move failed or was cleaned up). */
export function markRepositoriesWritable(trx: Db, containerType: RepositoryContainerType, id: number): Promise<void> {
  return setContainerWritable(trx, containerType, id)
}

/**
 * Points the container at its repositories' new storage and makes them writable. A group's wiki storage is only
 * recorded when it has a wiki repository (GL GroupWiki#track_wiki_repository).
 */
export function switchRepositoryStorage(
  trx: Db,
  containerType: RepositoryContainerType,
  id: number,
  storage: string,
  options: { recordStorage: boolean; at: string },
): Promise<void> {
  return switchContainerStorage(trx, containerType, id, storage, options)
}
