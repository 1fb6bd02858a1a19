import type { Db } from '../../db/index.js'

export interface RepositoryState {
  emptyRepo: boolean
  /** The branch HEAD names. */
  defaultBranch: string
  readmePath: string | null
}

/** Records what the project entity shows of its repository. */
export async function updateRepositoryState(db: Db, projectId: number, state: RepositoryState): Promise<void> {
  await db
    .updateTable('projects')
    .set({ empty_repo: state.emptyRepo ? 1 : 0, default_branch: state.defaultBranch, readme_path: state.readmePath })
    .where('id', '=', projectId)
    .execute()
}
