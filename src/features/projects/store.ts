import { sql } from 'kysely'
import type { Db } from '../../db/index.js'
import { preparedQuery } from '../../db/prepared.js'
import type { NewProjectRow, ProjectRow } from '../../db/schema.js'

export const findProjectById = preparedQuery((db: Db, id: number) => db.selectFrom('projects').selectAll().where('id', '=', id))

export function findProjectByFullPath(db: Db, fullPath: string) {
  return db
    .selectFrom('projects')
    .selectAll()
    .where(sql`lower(full_path)`, '=', fullPath.toLowerCase())
    .executeTakeFirst()
}

export function insertProject(db: Db, row: NewProjectRow): Promise<ProjectRow> {
  return db.insertInto('projects').values(row).returningAll().executeTakeFirstOrThrow()
}
