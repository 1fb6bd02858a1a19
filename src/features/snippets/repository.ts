import fs from 'node:fs/promises'
import path from 'node:path'
import type { Config } from '../../config/index.js'
import { git, GitError, repositoryDirectory } from '../repositories/index.js'

/** The branch a snippet's repository commits to (GL Gitlab::DefaultBranch). */
export const SNIPPET_DEFAULT_BRANCH = 'main'

/** Where a snippet's repository is: `@snippets/<hash>.git` on the snippet's storage. */
export function snippetRepositoryDirectory(config: Config, snippet: { id: number; repository_storage: string }): string {
  return repositoryDirectory(config, snippet.repository_storage, snippet.id, 'snippet')
}

/** The branch HEAD names, read from the HEAD file (no process for a list of snippets). */
export async function headBranch(directory: string): Promise<string> {
  const head = (await fs.readFile(path.join(directory, 'HEAD'), 'utf8')).trim()
  const match = /^ref: refs\/heads\/(.+)$/.exec(head)
  return match ? match[1] : (await git(['symbolic-ref', '--short', 'HEAD'], { gitDir: directory })).trim()
}

/** The paths of the files on a branch, in the repository's order; none when the branch does not exist (one process). */
export async function listBranchFiles(directory: string, branch: string): Promise<string[]> {
  try {
    const out = await git(['ls-tree', '-r', '-z', '--name-only', `refs/heads/${branch}`], { gitDir: directory })
    return out.split('\0').filter(Boolean)
  } catch (error) {
    if (error instanceof GitError) return []
    throw error
  }
}

/** The commit a ref (branch, tag or sha) names, or null. */
export async function resolveCommit(directory: string, ref: string): Promise<string | null> {
  if (ref === '' || ref.startsWith('-')) return null
  try {
    return (await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { gitDir: directory })).trim()
  } catch (error) {
    if (error instanceof GitError) return null
    throw error
  }
}

/** The paths of the files at a commit, in the repository's order; none when the ref does not resolve. */
export async function listFiles(directory: string, ref: string): Promise<string[]> {
  const commit = await resolveCommit(directory, ref)
  if (commit === null) return []
  const out = await git(['ls-tree', '-r', '-z', '--name-only', commit], { gitDir: directory })
  return out.split('\0').filter(Boolean)
}

/** A file's content at a commit, or null when the commit has no such file. */
export async function readFile(directory: string, commit: string, filePath: string): Promise<string | null> {
  const listed = await git(['ls-tree', '-z', commit, '--', filePath], { gitDir: directory, env: { GIT_LITERAL_PATHSPECS: '1' } })
  const entry = listed.split('\0')[0] ?? ''
  const tab = entry.indexOf('\t')
  const meta = entry.slice(0, tab)
  if (tab < 0 || entry.slice(tab + 1) !== filePath || !/ blob /.test(meta)) return null
  const blob = meta.split(' ')[2]
  return git(['cat-file', 'blob', blob], { gitDir: directory })
}
