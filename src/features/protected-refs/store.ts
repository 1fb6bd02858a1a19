import type { Db } from '../../db/index.js'
import type {
  ProtectedBranchAccessLevelRow,
  ProtectedBranchRow,
  ProtectedTagCreateAccessLevelRow,
  ProtectedTagRow,
} from '../../db/schema.js'

// Owns protected branches and tags and their access levels.

export type AccessKind = ProtectedBranchAccessLevelRow['kind']

/** One access level to write: a role, or (kept as given) a user or group. */
export interface AccessLevelInput {
  accessLevel: number
  userId: number | null
  groupId: number | null
}

export function findProtectedBranches(db: Db, projectId: number): Promise<ProtectedBranchRow[]> {
  return db.selectFrom('protected_branches').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
}

export function findProtectedBranchByName(db: Db, projectId: number, name: string): Promise<ProtectedBranchRow | undefined> {
  return db.selectFrom('protected_branches').selectAll().where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst()
}

export function findBranchAccessLevels(db: Db, branchIds: readonly number[]): Promise<ProtectedBranchAccessLevelRow[]> {
  if (branchIds.length === 0) return Promise.resolve([])
  return db
    .selectFrom('protected_branch_access_levels')
    .selectAll()
    .where('protected_branch_id', 'in', [...branchIds])
    .orderBy('id')
    .execute()
}

export function insertProtectedBranch(
  db: Db,
  row: { project_id: number; name: string; allow_force_push: number; code_owner_approval_required: number; created_at: string },
): Promise<ProtectedBranchRow> {
  return db
    .insertInto('protected_branches')
    .values({ ...row, updated_at: row.created_at })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function updateProtectedBranchRow(
  db: Db,
  id: number,
  changes: { allow_force_push?: number; code_owner_approval_required?: number; updated_at: string },
): Promise<void> {
  await db.updateTable('protected_branches').set(changes).where('id', '=', id).execute()
}

export async function deleteProtectedBranchRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('protected_branches').where('id', '=', id).execute()
}

export async function insertBranchAccessLevels(
  db: Db,
  branchId: number,
  kind: AccessKind,
  levels: readonly AccessLevelInput[],
  at: string,
): Promise<void> {
  if (levels.length === 0) return
  await db
    .insertInto('protected_branch_access_levels')
    .values(
      levels.map((level) => ({
        protected_branch_id: branchId,
        kind,
        access_level: level.accessLevel,
        user_id: level.userId,
        group_id: level.groupId,
        created_at: at,
        updated_at: at,
      })),
    )
    .execute()
}

export async function deleteBranchAccessLevels(db: Db, branchId: number, kind: AccessKind, ids: readonly number[] | null): Promise<void> {
  let query = db.deleteFrom('protected_branch_access_levels').where('protected_branch_id', '=', branchId).where('kind', '=', kind)
  if (ids !== null) {
    if (ids.length === 0) return
    query = query.where('id', 'in', [...ids])
  }
  await query.execute()
}

export function findProtectedTags(db: Db, projectId: number): Promise<ProtectedTagRow[]> {
  return db.selectFrom('protected_tags').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
}

export function findProtectedTagByName(db: Db, projectId: number, name: string): Promise<ProtectedTagRow | undefined> {
  return db.selectFrom('protected_tags').selectAll().where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst()
}

export function findTagCreateAccessLevels(db: Db, tagIds: readonly number[]): Promise<ProtectedTagCreateAccessLevelRow[]> {
  if (tagIds.length === 0) return Promise.resolve([])
  return db
    .selectFrom('protected_tag_create_access_levels')
    .selectAll()
    .where('protected_tag_id', 'in', [...tagIds])
    .orderBy('id')
    .execute()
}

export function insertProtectedTag(db: Db, row: { project_id: number; name: string; created_at: string }): Promise<ProtectedTagRow> {
  return db
    .insertInto('protected_tags')
    .values({ ...row, updated_at: row.created_at })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function insertTagCreateAccessLevels(db: Db, tagId: number, levels: readonly AccessLevelInput[], at: string): Promise<void> {
  if (levels.length === 0) return
  await db
    .insertInto('protected_tag_create_access_levels')
    .values(
      levels.map((level) => ({
        protected_tag_id: tagId,
        access_level: level.accessLevel,
        user_id: level.userId,
        group_id: level.groupId,
        created_at: at,
        updated_at: at,
      })),
    )
    .execute()
}

export async function deleteProtectedTagRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('protected_tags').where('id', '=', id).execute()
}

export async function updateBranchAccessLevelRow(db: Db, id: number, branchId: number, accessLevel: number, at: string): Promise<void> {
  await db
    .updateTable('protected_branch_access_levels')
    .set({ access_level: accessLevel, updated_at: at })
    .where('id', '=', id)
    .where('protected_branch_id', '=', branchId)
    .execute()
}
