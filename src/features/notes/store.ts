import type { Db } from '../../db/index.js'
import type { NewNoteRow, NoteRow } from '../../db/schema.js'

export function insertNote(db: Db, row: NewNoteRow): Promise<NoteRow> {
  return db.insertInto('notes').values(row).returningAll().executeTakeFirstOrThrow()
}
