import type { Db } from '../../db/index.js'
import type { MemberRow, NewMemberRow } from '../../db/schema.js'

export function insertMember(db: Db, row: NewMemberRow): Promise<MemberRow> {
  return db.insertInto('members').values(row).returningAll().executeTakeFirstOrThrow()
}
