import type { Db } from '../../db/index.js'
import { preparedQuery } from '../../db/prepared.js'
import type { NewOAuthApplicationRow, OAuthApplicationRow } from '../../db/schema.js'

/** The application a client_id names, looked up by every OAuth request. */
export const findApplicationByUid = preparedQuery((db: Db, uid: string) =>
  db.selectFrom('oauth_applications').selectAll().where('uid', '=', uid),
)

export function findApplicationById(db: Db, id: number) {
  return db.selectFrom('oauth_applications').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function insertApplication(db: Db, row: NewOAuthApplicationRow): Promise<OAuthApplicationRow> {
  return db.insertInto('oauth_applications').values(row).returningAll().executeTakeFirstOrThrow()
}
