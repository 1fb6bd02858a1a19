import type { Context } from '../../core/context.js'
import { NotFound, Rejected } from '../../core/errors.js'
import type { LoadedProject } from '../access/index.js'
import { findCommit, git, GitError, readCommit, type ParsedCommit } from '../repositories/index.js'
import { openRepository } from './repository.js'

/**
 * The best common ancestor of two or more refs (GL Gitlab::Git::MergeBase, Gitaly's FindMergeBase, which runs
 * `git merge-base`). Fewer than two refs, or refs naming no commit, are 400s worded as GitLab words them; refs with
 * no common ancestor are `404 Merge Base Not Found`.
 */
export async function findMergeBase(ctx: Context, loaded: LoadedProject, refs: string[]): Promise<ParsedCommit> {
  const repository = openRepository(ctx, loaded)
  if (refs.length < 2) throw new Rejected('Provide at least 2 refs')
  const commits = await Promise.all(refs.map((ref) => findCommit(repository.directory, ref)))
  const unknown = refs.filter((_, index) => commits[index] === null)
  if (unknown.length > 0) throw new Rejected(`Could not find ${unknown.length === 1 ? 'ref' : 'refs'}: ${unknown.join(', ')}`)
  let base: string
  try {
    base = (await git(['merge-base', ...commits.map((commit) => commit!.oid)], { gitDir: repository.directory })).trim()
  } catch (error) {
    // merge-base exits 1, saying nothing, when the commits share no history.
    if (error instanceof GitError && error.code === 1 && error.stderr.trim() === '') throw new NotFound('Merge Base')
    throw error
  }
  const commit = base === '' ? null : await readCommit(repository.directory, base)
  if (!commit) throw new NotFound('Merge Base')
  return commit
}
