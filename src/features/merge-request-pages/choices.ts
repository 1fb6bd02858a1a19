import type { Context } from '../../core/context.js'
import { canReadCode, type LoadedProject } from '../access/index.js'
import { git, projectRepositoryDirectory, repositoryExists } from '../repositories/index.js'

// What the merge request forms offer besides the issue forms' choices: the project's branches.

const MAX_BRANCHES = 1000

/** The project's branch names in order, or none when the caller may not read its code. */
export async function branchNamesOf(ctx: Context, loaded: LoadedProject): Promise<string[]> {
  if (!canReadCode(loaded.access, loaded.project)) return []
  const directory = projectRepositoryDirectory(ctx.config, loaded.project)
  if (!(await repositoryExists(directory))) return []
  const out = await git(['for-each-ref', '--format=%(refname:lstrip=2)', `--count=${MAX_BRANCHES}`, 'refs/heads/'], { gitDir: directory })
  return out.split('\n').filter((name) => name !== '')
}
