import type { Db } from '../../db/index.js'
import type { ProjectUpdate } from '../../db/schema.js'

// Owns the columns of a container row that say where its repository is and what it holds: the repository state of
// `projects` (empty_repo, default_branch, readme_path), and the storage switch (repository_storage,
// repository_read_only) of `projects` and `snippets` and of group wikis on `namespaces` (wiki_repository_*) once the
// row exists. The features owning those tables create the rows; storage moves switch them through here.

/** What has repositories: a project (with its wiki), a snippet, or a group (its wiki). */
export type RepositoryContainerType = 'project' | 'snippet' | 'group'

export interface RepositoryState {
  emptyRepo: boolean
  /** The branch HEAD names. */
  defaultBranch: string
  readmePath: string | null
}

/** The project columns that record what the project entity shows of its repository. */
function repositoryStateColumns(state: RepositoryState): ProjectUpdate {
  return { empty_repo: state.emptyRepo ? 1 : 0, default_branch: state.defaultBranch, readme_path: state.readmePath }
}

/** Records what the project entity shows of its repository. */
export async function updateRepositoryState(db: Db, projectId: number, state: RepositoryState): Promise<void> {
  await db.updateTable('projects').set(repositoryStateColumns(state)).where('id', '=', projectId).execute()
}

/** Marks the container's repositories read-only unless they are already; false when they were. */
export async function markContainerReadOnly(db: Db, containerType: RepositoryContainerType, id: number): Promise<boolean> {
  const result =
    containerType === 'project'
      ? await db
          .updateTable('projects')
          .set({ repository_read_only: 1 })
          .where('id', '=', id)
          .where('repository_read_only', '=', 0)
          .executeTakeFirst()
      : containerType === 'snippet'
        ? await db
            .updateTable('snippets')
            .set({ repository_read_only: 1 })
            .where('id', '=', id)
            .where('repository_read_only', '=', 0)
            .executeTakeFirst()
        : await db
            .updateTable('namespaces')
            .set({ wiki_repository_read_only: 1 })
            .where('id', '=', id)
            .where('wiki_repository_read_only', '=', 0)
            .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Marks the container's repositories writable again. */
export async function setContainerWritable(db: Db, containerType: RepositoryContainerType, id: number): Promise<void> {
  const flag = 0
  if (containerType === 'project') await db.updateTable('projects').set({ repository_read_only: flag }).where('id', '=', id).execute()
  else if (containerType === 'snippet') await db.updateTable('snippets').set({ repository_read_only: flag }).where('id', '=', id).execute()
  else await db.updateTable('namespaces').set({ wiki_repository_read_only: flag }).where('id', '=', id).execute()
}

/**
 * Points the container at its repositories' new storage and makes them writable. A group's wiki storage is only
 * recorded when it has a wiki repository (GL GroupWiki#track_wiki_repository).
 */
export async function switchContainerStorage(
  db: Db,
  containerType: RepositoryContainerType,
  id: number,
  storage: string,
  options: { recordStorage: boolean; at: string },
): Promise<void> {
  const { at } = options
  if (containerType === 'project') {
    await db
      .updateTable('projects')
      .set({ repository_storage: storage, repository_read_only: 0, updated_at: at })
      .where('id', '=', id)
      .execute()
  } else if (containerType === 'snippet') {
    await db
      .updateTable('snippets')
      .set({ repository_storage: storage, repository_read_only: 0, updated_at: at })
      .where('id', '=', id)
      .execute()
  } else {
    await db
      .updateTable('namespaces')
      .set({ ...(options.recordStorage ? { wiki_repository_storage: storage } : {}), wiki_repository_read_only: 0, updated_at: at })
      .where('id', '=', id)
      .execute()
  }
}
