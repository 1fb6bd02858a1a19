import type { Db } from '../../db/index.js'
import type { NewSnippetRow, SnippetRow } from '../../db/schema.js'

export function findSnippetById(db: Db, id: number): Promise<SnippetRow | undefined> {
  return db.selectFrom('snippets').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function findSnippetsByIds(db: Db, ids: readonly number[]): Promise<SnippetRow[]> {
  if (ids.length === 0) return []
  return db
    .selectFrom('snippets')
    .selectAll()
    .where('id', 'in', [...new Set(ids)])
    .execute()
}

export function insertSnippet(db: Db, row: NewSnippetRow): Promise<SnippetRow> {
  return db.insertInto('snippets').values(row).returningAll().executeTakeFirstOrThrow()
}

export function updateSnippetRow(
  db: Db,
  id: number,
  changes: Partial<Pick<SnippetRow, 'title' | 'description' | 'file_name' | 'content' | 'visibility_level' | 'updated_at'>>,
): Promise<SnippetRow> {
  return db.updateTable('snippets').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

export async function deleteSnippetRow(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('snippets').where('id', '=', id).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}
