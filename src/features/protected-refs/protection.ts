import type { Context } from '../../core/context.js'
import { Rejected } from '../../core/errors.js'
import type { Db } from '../../db/index.js'
import type {
  ProtectedBranchAccessLevelRow,
  ProtectedBranchRow,
  ProtectedTagCreateAccessLevelRow,
  ProtectedTagRow,
} from '../../db/schema.js'
import type { LoadedProject } from '../access/index.js'
import { branchProtectionOf, isDefaultBranchProtected, type NamespaceBranchProtection } from './default-branch.js'
import {
  refChangeRefusal,
  type Protection,
  type ProtectedBranch,
  type ProtectedTag,
  type RefAccessLevel,
  type RefChange,
  type RefSubject,
} from './rules.js'
import {
  findBranchAccessLevels,
  findProtectedBranchByName,
  findProtectedBranches,
  findProtectedTags,
  findTagCreateAccessLevels,
  insertBranchAccessLevels,
  insertProtectedBranch,
} from './store.js'

function accessLevelOf(row: ProtectedBranchAccessLevelRow | ProtectedTagCreateAccessLevelRow): RefAccessLevel {
  return { id: row.id, accessLevel: row.access_level, userId: row.user_id, groupId: row.group_id }
}

export function protectedBranchOf(row: ProtectedBranchRow, levels: readonly ProtectedBranchAccessLevelRow[]): ProtectedBranch {
  const mine = levels.filter((level) => level.protected_branch_id === row.id)
  return {
    id: row.id,
    name: row.name,
    allowForcePush: row.allow_force_push === 1,
    codeOwnerApprovalRequired: row.code_owner_approval_required === 1,
    push: mine.filter((level) => level.kind === 'push').map(accessLevelOf),
    merge: mine.filter((level) => level.kind === 'merge').map(accessLevelOf),
    unprotect: mine.filter((level) => level.kind === 'unprotect').map(accessLevelOf),
  }
}

export function protectedTagOf(row: ProtectedTagRow, levels: readonly ProtectedTagCreateAccessLevelRow[]): ProtectedTag {
  return { id: row.id, name: row.name, create: levels.filter((level) => level.protected_tag_id === row.id).map(accessLevelOf) }
}

export async function loadProtectedBranches(db: Db, projectId: number): Promise<ProtectedBranch[]> {
  const rows = await findProtectedBranches(db, projectId)
  const levels = await findBranchAccessLevels(
    db,
    rows.map((row) => row.id),
  )
  return rows.map((row) => protectedBranchOf(row, levels))
}

export async function loadProtectedTags(db: Db, projectId: number): Promise<ProtectedTag[]> {
  const rows = await findProtectedTags(db, projectId)
  const levels = await findTagCreateAccessLevels(
    db,
    rows.map((row) => row.id),
  )
  return rows.map((row) => protectedTagOf(row, levels))
}

/** Every protected branch and tag of a project, with their access levels. */
export async function loadProtection(db: Db, projectId: number): Promise<Protection> {
  const [branches, tags] = await Promise.all([loadProtectedBranches(db, projectId), loadProtectedTags(db, projectId)])
  return { branches, tags }
}

/**
 * The caller, the project and its protected branches and tags, for the questions rules.ts answers (canPushToBranch,
 * isBranchProtected, developersCan, isTagProtected…), read once per request.
 */
export async function loadRefSubject(ctx: Context, loaded: LoadedProject): Promise<RefSubject> {
  return {
    access: loaded.access,
    project: loaded.project,
    namespace: loaded.namespace,
    instanceBranchProtection: ctx.settings.default_branch_protection,
    protection: await loadProtection(ctx.db, loaded.project.id),
  }
}

/** A change of a ref refused by the project's protected branches or tags: 400 with GitLab's pre-receive message. */
export class RefChangeRefused extends Rejected {}

/**
 * Why the caller may not make `change` to `ref` through the API (GL's checks with protocol `web`), or null. `ref` is a
 * full ref name, `refs/heads/main` or `refs/tags/v1`.
 */
export async function refChangeRefusalFor(ctx: Context, loaded: LoadedProject, ref: string, change: RefChange): Promise<string | null> {
  return refChangeRefusal(await loadRefSubject(ctx, loaded), ref, change, 'web', ctx.config.externalUrl)
}

/**
 * Refuses, with GitLab's error, a change of `ref` (a full ref name, `refs/heads/main` or `refs/tags/v1`) that the
 * caller may not make under the project's protected branches and tags: RefChangeRefused, 400 `{"message":"<text>"}`
 * as GitLab answers a pre-receive refusal of an API write.
 */
export async function assertMayChangeRef(ctx: Context, loaded: LoadedProject, ref: string, change: RefChange): Promise<void> {
  const refusal = await refChangeRefusalFor(ctx, loaded, ref, change)
  if (refusal !== null) throw new RefChangeRefused(refusal)
}

/**
 * Protects a new project's default branch as its group's default branch protection says, or the instance's (GL
 * Projects::ProtectDefaultBranchService): nothing under PROTECTION_NONE, nothing when a rule of that name exists. Runs
 * in the creating transaction.
 */
export async function protectDefaultBranch(
  db: Db,
  project: { id: number; default_branch: string | null },
  namespace: NamespaceBranchProtection | null,
  instanceLevel: number,
  at: string,
): Promise<void> {
  const name = project.default_branch
  const { defaults } = branchProtectionOf(namespace, instanceLevel)
  if (!name || !isDefaultBranchProtected(defaults) || (await findProtectedBranchByName(db, project.id, name))) return
  const row = await insertProtectedBranch(db, {
    project_id: project.id,
    name,
    allow_force_push: defaults.allow_force_push ? 1 : 0,
    code_owner_approval_required: 0,
    created_at: at,
  })
  const levels = (entries: readonly { access_level: number }[]) =>
    entries.map((entry) => ({ accessLevel: entry.access_level, userId: null, groupId: null }))
  await insertBranchAccessLevels(db, row.id, 'push', levels(defaults.allowed_to_push), at)
  await insertBranchAccessLevels(db, row.id, 'merge', levels(defaults.allowed_to_merge), at)
}
