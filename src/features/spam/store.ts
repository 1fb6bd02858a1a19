import type { Db } from '../../db/index.js'
import type { NewSpamLogRow } from '../../db/schema.js'

export function insertSpamLog(db: Db, values: NewSpamLogRow) {
  return db.insertInto('spam_logs').values(values).returning('id').executeTakeFirstOrThrow()
}

export function findUserSpamLog(db: Db, id: number, userId: number) {
  return db.selectFrom('spam_logs').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst()
}

export function markSpamLogVerified(db: Db, id: number) {
  return db.updateTable('spam_logs').set({ recaptcha_verified: 1 }).where('id', '=', id).execute()
}
