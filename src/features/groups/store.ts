import { sql } from 'kysely'
import type { Db } from '../../db/index.js'

export function findGroupByIdOrFullPath(db: Db, idOrPath: string) {
  const query = db.selectFrom('namespaces').selectAll().where('kind', '=', 'group')
  if (/^\d+$/.test(idOrPath)) {
    const id = Number(idOrPath)
    return Number.isSafeInteger(id) ? query.where('id', '=', id).executeTakeFirst() : Promise.resolve(undefined)
  }
  return query.where(sql`lower(full_path)`, '=', idOrPath.toLowerCase()).executeTakeFirst()
}
