import type { Db } from '../../db/index.js'
import type { ProjectUpdate } from '../../db/schema.js'

export interface RepositoryState {
  emptyRepo: boolean
  /** The branch HEAD names. */
  defaultBranch: string
  readmePath: string | null
}

/** The project columns that record what the project entity shows of its repository. */
export function repositoryStateColumns(state: RepositoryState): ProjectUpdate {
  return { empty_repo: state.emptyRepo ? 1 : 0, default_branch: state.defaultBranch, readme_path: state.readmePath }
}

/** Records what the project entity shows of its repository. */
export async function updateRepositoryState(db: Db, projectId: number, state: RepositoryState): Promise<void> {
  await db.updateTable('projects').set(repositoryStateColumns(state)).where('id', '=', projectId).execute()
}
