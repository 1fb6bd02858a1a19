import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { commitEnvironment, git, GitError } from './git.js'

/** A file written (added or replaced) or removed by a commit. */
export type TreeChange = { path: string; content: string } | { path: string; remove: true }

export interface FilesCommit {
  directory: string
  branch: string
  /** Applied in order on top of the branch's tree, or of an empty tree when the branch does not exist yet. */
  changes: readonly TreeChange[]
  message: string
  author: { name: string; email: string }
  at: Date
}

/** A commit whose files would not make a valid tree: a bad path, or a path that is both a file and a directory. */
export class InvalidTreeError extends Error {}

function treeProblem(paths: ReadonlySet<string>): string | null {
  for (const filePath of paths) {
    const segments = filePath.split('/')
    if (segments.some((segment) => segment === '' || segment === '.' || segment === '..' || segment.toLowerCase() === '.git')) {
      return `invalid path ${JSON.stringify(filePath)}`
    }
    for (let i = 1; i < segments.length; i += 1) {
      const directory = segments.slice(0, i).join('/')
      if (paths.has(directory)) return `${JSON.stringify(directory)} is both a file and a directory`
    }
  }
  return null
}

/** The commit a branch points at, or null when there is no such branch. */
export async function branchCommit(directory: string, branch: string): Promise<string | null> {
  try {
    return (await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], { gitDir: directory })).trim()
  } catch (error) {
    if (error instanceof GitError && error.code === 1) return null
    throw error
  }
}

/**
 * Commits several file changes as one commit with plumbing and a temporary index (no working tree), authored and
 * committed by `author` at `at`. The branch moves only if it still points where it did, so a concurrent commit fails
 * this one instead of being lost. Returns the new commit.
 */
export async function commitFiles(commit: FilesCommit): Promise<string> {
  const gitDir = commit.directory
  const parent = await branchCommit(gitDir, commit.branch)
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-index-'))
  const env = { GIT_INDEX_FILE: path.join(scratch, 'index') }
  try {
    if (parent) await git(['read-tree', parent], { gitDir, env })
    else await git(['read-tree', '--empty'], { gitDir, env })
    const paths = new Set(parent ? (await git(['ls-tree', '-r', '-z', '--name-only', parent], { gitDir })).split('\0').filter(Boolean) : [])
    for (const change of commit.changes) {
      if ('remove' in change) paths.delete(change.path)
      else paths.add(change.path)
    }
    const problem = treeProblem(paths)
    if (problem) throw new InvalidTreeError(problem)
    // One `--index-info` batch, read in order; mode 0 removes a path.

    const zero = '0'.repeat((await git(['rev-parse', '--show-object-format'], { gitDir })).trim() === 'sha256' ? 64 : 40)
    const lines: string[] = []
    for (const change of commit.changes) {
      if ('remove' in change) {
        lines.push(`0 ${zero}\t${change.path}\0`)
      } else {
        const blob = (await git(['hash-object', '-w', '--stdin'], { gitDir, input: change.content })).trim()
        lines.push(`100644 ${blob}\t${change.path}\0`)
      }
    }
    await git(['update-index', '-z', '--index-info'], { gitDir, env, input: lines.join('') })
    const tree = (await git(['write-tree'], { gitDir, env })).trim()
    const identity = commitEnvironment(commit.author, commit.author, commit.at)
    const parents = parent ? ['-p', parent] : []
    const sha = (await git(['commit-tree', tree, ...parents, '-m', commit.message], { gitDir, env: identity })).trim()
    await git(['update-ref', `refs/heads/${commit.branch}`, sha, parent ?? ''], { gitDir })
    return sha
  } finally {
    await fs.rm(scratch, { recursive: true, force: true })
  }
}
