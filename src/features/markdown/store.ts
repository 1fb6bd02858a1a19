import { sql } from 'kysely'
import type { Db } from '../../db/index.js'

// The few columns references show, read here: the features that own these tables render Markdown themselves.

/** Labels by title or id among a project's own and those of the groups above it (`traversalIds` of its namespace). */
export function findLabelsForReferences(
  db: Db,
  projectId: number,
  traversalIds: string,
  lookup: { titles: readonly string[]; ids: readonly number[] },
) {
  const groupIds = traversalIds
    .split('/')
    .filter((id) => id !== '')
    .map(Number)
  return db
    .selectFrom('labels')
    .select(['id', 'title', 'color', 'description', 'project_id', 'group_id'])
    .where((eb) => {
      const owners = [eb('project_id', '=', projectId)]
      if (groupIds.length > 0) owners.push(eb('group_id', 'in', groupIds))
      const keys = []
      if (lookup.titles.length > 0) keys.push(eb('title', 'in', lookup.titles))
      if (lookup.ids.length > 0) keys.push(eb('id', 'in', lookup.ids))
      return eb.and([eb.or(owners), eb.or(keys)])
    })
    .orderBy('id')
    .execute()
}

/** A project's milestones by iid or title. */
export function findMilestonesForReferences(db: Db, projectId: number, lookup: { titles: readonly string[]; iids: readonly number[] }) {
  return db
    .selectFrom('milestones')
    .select(['id', 'iid', 'title', 'state'])
    .where('project_id', '=', projectId)
    .where((eb) => {
      const keys = []
      if (lookup.titles.length > 0) keys.push(eb('title', 'in', lookup.titles))
      if (lookup.iids.length > 0) keys.push(eb('iid', 'in', lookup.iids))
      return eb.or(keys)
    })
    .execute()
}

/** Namespaces by full path in any letter case, with the owner's name and username for personal ones. */
export function findNamespacesByLowerFullPaths(db: Db, paths: readonly string[]) {
  return db
    .selectFrom('namespaces as n')
    .leftJoin('users as u', (join) => join.onRef('u.id', '=', 'n.owner_id').on('n.kind', '=', 'user'))
    .select(['n.id', 'n.kind', 'n.full_path', 'n.full_name', 'n.owner_id', 'u.username', 'u.name as owner_name'])
    .where(sql`lower(n.full_path)`, 'in', paths)
    .where('n.pending_delete', '=', 0)
    .execute()
}
