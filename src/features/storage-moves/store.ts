import type { Db } from '../../db/index.js'
import type { RepositoryStorageMoveRow } from '../../db/schema.js'

export type ContainerType = RepositoryStorageMoveRow['container_type']

/** The column of `repository_storage_moves` naming the container of each type. */
const CONTAINER_COLUMN = { project: 'project_id', snippet: 'snippet_id', group: 'group_id' } as const

export interface NewMove {
  containerType: ContainerType
  containerId: number
  state: number
  sourceStorageName: string
  destinationStorageName: string
  at: string
}

export function insertMove(db: Db, move: NewMove): Promise<RepositoryStorageMoveRow> {
  return db
    .insertInto('repository_storage_moves')
    .values({
      container_type: move.containerType,
      project_id: move.containerType === 'project' ? move.containerId : null,
      snippet_id: move.containerType === 'snippet' ? move.containerId : null,
      group_id: move.containerType === 'group' ? move.containerId : null,
      state: move.state,
      source_storage_name: move.sourceStorageName,
      destination_storage_name: move.destinationStorageName,
      error_message: null,
      created_at: move.at,
      updated_at: move.at,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export function findMoveById(db: Db, id: number): Promise<RepositoryStorageMoveRow | undefined> {
  return db.selectFrom('repository_storage_moves').selectAll().where('id', '=', id).executeTakeFirst()
}

/** The moves of one type, or of one container of that type, newest first (GL `order_created_at_desc`). */
export function selectMoves(db: Db, containerType: ContainerType, containerId: number | null) {
  let query = db.selectFrom('repository_storage_moves').selectAll().where('container_type', '=', containerType)
  if (containerId !== null) query = query.where(CONTAINER_COLUMN[containerType], '=', containerId)
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc')
}

/** Moves the record from one of `from` to `to`; false when it was in none of them (another run got there first). */
export async function updateMoveState(
  db: Db,
  id: number,
  from: readonly number[],
  to: number,
  at: string,
  errorMessage?: string,
): Promise<boolean> {
  const result = await db
    .updateTable('repository_storage_moves')
    .set({ state: to, updated_at: at, ...(errorMessage !== undefined ? { error_message: errorMessage } : {}) })
    .where('id', '=', id)
    .where('state', 'in', [...from])
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Where a container's repositories are and whether they take writes. */
export interface ContainerStorage {
  id: number
  /** null for a group without a wiki repository. */
  storage: string | null
  readOnly: boolean
}

export async function findContainerStorage(db: Db, containerType: ContainerType, id: number): Promise<ContainerStorage | undefined> {
  if (containerType === 'project') {
    const row = await db
      .selectFrom('projects')
      .select(['id', 'repository_storage', 'repository_read_only'])
      .where('id', '=', id)
      .executeTakeFirst()
    return row && { id: row.id, storage: row.repository_storage, readOnly: row.repository_read_only === 1 }
  }
  if (containerType === 'snippet') {
    const row = await db
      .selectFrom('snippets')
      .select(['id', 'repository_storage', 'repository_read_only'])
      .where('id', '=', id)
      .executeTakeFirst()
    return row && { id: row.id, storage: row.repository_storage, readOnly: row.repository_read_only === 1 }
  }
  const row = await db
    .selectFrom('namespaces')
    .select(['id', 'wiki_repository_storage', 'wiki_repository_read_only'])
    .where('id', '=', id)
    .where('kind', '=', 'group')
    .executeTakeFirst()
  return row && { id: row.id, storage: row.wiki_repository_storage, readOnly: row.wiki_repository_read_only === 1 }
}

/** The ids of the containers of one type whose repositories are on `storage`, in id order; containers being deleted are left out. */
export async function findContainerIdsOnStorage(db: Db, containerType: ContainerType, storage: string): Promise<number[]> {
  let rows: { id: number }[]
  if (containerType === 'project') {
    rows = await db
      .selectFrom('projects')
      .select('id')
      .where('repository_storage', '=', storage)
      .where('pending_delete', '=', 0)
      .orderBy('id')
      .execute()
  } else if (containerType === 'snippet') {
    rows = await db.selectFrom('snippets').select('id').where('repository_storage', '=', storage).orderBy('id').execute()
  } else {
    rows = await db
      .selectFrom('namespaces')
      .select('id')
      .where('kind', '=', 'group')
      .where('wiki_repository_storage', '=', storage)
      .where('pending_delete', '=', 0)
      .orderBy('id')
      .execute()
  }
  return rows.map((row) => row.id)
}
