import { repositoryExists } from './files.js'
import { readObjectHeader } from './objects.js'
import { isReadableRefName } from './ref-names.js'

/**
 * The commit a branch points at, read through the long-lived object reader; null when there is no such branch, no
 * repository, or no name that reads as one branch.
 */
export async function readBranchHead(directory: string, branch: string): Promise<string | null> {
  if (!isReadableRefName(branch) || !(await repositoryExists(directory))) return null
  const header = await readObjectHeader(directory, `refs/heads/${branch}`)
  return header?.type === 'commit' ? header.oid : null
}
