import type { Context } from '../../core/context.js'
import { Conflict, Forbidden, ParamError, RecordNotFound, Unprocessable } from '../../core/errors.js'
import { canAdminProject, type LoadedProject } from '../access/index.js'
import { loadProtectedBranches, loadProtectedTags } from './protection.js'
import { PROTECTED_ACCESS_LEVELS, type ProtectedBranch, type ProtectedTag } from './rules.js'
import type { AccessEntryParams, CreateProtectedBranchParams, CreateProtectedTagParams, UpdateProtectedBranchParams } from './schemas.js'
import {
  deleteBranchAccessLevels,
  deleteProtectedBranchRow,
  deleteProtectedTagRow,
  findProtectedBranchByName,
  findProtectedTagByName,
  insertBranchAccessLevels,
  insertProtectedBranch,
  insertProtectedTag,
  insertTagCreateAccessLevels,
  updateBranchAccessLevelRow,
  updateProtectedBranchRow,
  type AccessKind,
  type AccessLevelInput,
} from './store.js'

/** GL `authorize_admin_project`: Maintainers manage protected branches and tags. */
function authorizeAdmin(loaded: LoadedProject) {
  if (!canAdminProject(loaded.access)) throw new Forbidden()
}

/** Grape's `values:` check of the single access level params. */
function checkLevelParams(input: Record<string, unknown>, names: readonly string[]) {
  const bad = names.filter((name) => typeof input[name] === 'number' && !PROTECTED_ACCESS_LEVELS.includes(input[name] as number))
  if (bad.length > 0) throw new ParamError(bad.map((name) => `${name} does not have a valid value`).join(', '))
}

const KIND_LABEL: Record<AccessKind | 'create', string> = {
  push: 'Push access levels',
  merge: 'Merge access levels',
  unprotect: 'Unprotect access levels',
  create: 'Create access levels',
}

/**
 * GL ProtectedRefs::AccessLevelParams: the `allowed_to_<kind>` role entries, then `<kind>_access_level`; Maintainers when
 * neither is given and `withDefault`. Entries naming users, groups or deploy keys (Premium) are not kept.
 */
function accessLevelsOf(
  kind: AccessKind | 'create',
  single: number | undefined,
  entries: readonly AccessEntryParams[] | undefined,
  withDefault: boolean,
): AccessLevelInput[] {
  const levels: AccessLevelInput[] = []
  for (const entry of entries ?? []) {
    if (entry.access_level === undefined || entry.id !== undefined || entry._destroy) continue
    levels.push({ accessLevel: entry.access_level, userId: null, groupId: null })
  }
  if (single !== undefined) levels.push({ accessLevel: single, userId: null, groupId: null })
  if (levels.length === 0 && withDefault && (entries ?? []).length === 0) levels.push({ accessLevel: 40, userId: null, groupId: null })
  checkAccessLevels(
    kind,
    levels.map((level) => level.accessLevel),
  )
  return levels
}

/** GL ProtectedRefAccess validations: a known level, once per ref. */
function checkAccessLevels(kind: AccessKind | 'create', levels: readonly number[]) {
  const errors: string[] = []
  if (levels.some((level) => !PROTECTED_ACCESS_LEVELS.includes(level)))
    errors.push(`${KIND_LABEL[kind]} access level is not included in the list`)
  if (new Set(levels).size < levels.length) errors.push(`${KIND_LABEL[kind]} access level has already been taken`)
  if (errors.length > 0) throw new Unprocessable(errors)
}

function searchFilter<T extends { name: string }>(rows: T[], search: string | undefined): T[] {
  if (!search) return rows
  const term = search.toLowerCase()
  return rows.filter((row) => row.name.toLowerCase().includes(term))
}

// ----- Protected branches (GL lib/api/protected_branches.rb) -----

export async function listProtectedBranches(ctx: Context, loaded: LoadedProject, search: string | undefined): Promise<ProtectedBranch[]> {
  authorizeAdmin(loaded)
  return searchFilter(await loadProtectedBranches(ctx.db, loaded.project.id), search)
}

/** One protected branch by its exact name or wildcard; 404 "Not found" as GitLab's `find_by!`. */
export async function showProtectedBranch(ctx: Context, loaded: LoadedProject, name: string): Promise<ProtectedBranch> {
  authorizeAdmin(loaded)
  const found = (await loadProtectedBranches(ctx.db, loaded.project.id)).find((branch) => branch.name === name)
  if (!found) throw new RecordNotFound()
  return found
}

export async function protectBranch(ctx: Context, loaded: LoadedProject, input: CreateProtectedBranchParams): Promise<ProtectedBranch> {
  authorizeAdmin(loaded)
  checkLevelParams(input, ['push_access_level', 'merge_access_level', 'unprotect_access_level'])
  const projectId = loaded.project.id
  if (await findProtectedBranchByName(ctx.db, projectId, input.name)) throw new Conflict(`Protected branch '${input.name}' already exists`)
  if (input.name.trim() === '') throw new Unprocessable(["Name can't be blank"])
  const push = accessLevelsOf('push', input.push_access_level, input.allowed_to_push, true)
  const merge = accessLevelsOf('merge', input.merge_access_level, input.allowed_to_merge, true)
  const unprotect = accessLevelsOf('unprotect', input.unprotect_access_level, input.allowed_to_unprotect, false)
  const at = ctx.now().toISOString()
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const row = await insertProtectedBranch(trx, {
        project_id: projectId,
        name: input.name,
        allow_force_push: input.allow_force_push ? 1 : 0,
        code_owner_approval_required: input.code_owner_approval_required ? 1 : 0,
        created_at: at,
      })
      await insertBranchAccessLevels(trx, row.id, 'push', push, at)
      await insertBranchAccessLevels(trx, row.id, 'merge', merge, at)
      await insertBranchAccessLevels(trx, row.id, 'unprotect', unprotect, at)
    })
  } catch (error) {
    // A concurrent request protected the same name first.
    if (await findProtectedBranchByName(ctx.db, projectId, input.name))
      throw new Conflict(`Protected branch '${input.name}' already exists`)
    throw error
  }
  return showProtectedBranch(ctx, loaded, input.name)
}

/**
 * PATCH: `allow_force_push`, `code_owner_approval_required`, and `allowed_to_*` entries that add a role
 * (`{access_level}`), change one (`{id, access_level}`) or remove one (`{id, _destroy: true}`).
 */
export async function updateProtectedBranch(
  ctx: Context,
  loaded: LoadedProject,
  input: UpdateProtectedBranchParams,
): Promise<ProtectedBranch> {
  const current = await showProtectedBranch(ctx, loaded, input.name)
  const at = ctx.now().toISOString()
  const changes: { kind: AccessKind; entries: AccessEntryParams[] }[] = [
    { kind: 'push', entries: input.allowed_to_push ?? [] },
    { kind: 'merge', entries: input.allowed_to_merge ?? [] },
    { kind: 'unprotect', entries: input.allowed_to_unprotect ?? [] },
  ]
  for (const { kind, entries } of changes) {
    const levels = new Map(current[kind].map((level) => [level.id, level.accessLevel]))
    for (const entry of entries) {
      if (entry.id !== undefined && !levels.has(entry.id)) continue
      if (entry.id !== undefined && entry._destroy) levels.delete(entry.id)
      else if (entry.id !== undefined && entry.access_level !== undefined) levels.set(entry.id, entry.access_level)
    }
    const added = accessLevelsOf(kind, undefined, entries, false)
    checkAccessLevels(kind, [...levels.values(), ...added.map((level) => level.accessLevel)])
  }
  await ctx.db.transaction().execute(async (trx) => {
    const flags: { allow_force_push?: number; code_owner_approval_required?: number; updated_at: string } = { updated_at: at }
    if (input.allow_force_push !== undefined) flags.allow_force_push = input.allow_force_push ? 1 : 0
    if (input.code_owner_approval_required !== undefined) flags.code_owner_approval_required = input.code_owner_approval_required ? 1 : 0
    await updateProtectedBranchRow(trx, current.id, flags)
    for (const { kind, entries } of changes) {
      const known = new Set(current[kind].map((level) => level.id))
      const removed = entries
        .filter((entry) => entry.id !== undefined && known.has(entry.id) && entry._destroy)
        .map((entry) => entry.id as number)
      await deleteBranchAccessLevels(trx, current.id, kind, removed)
      for (const entry of entries) {
        if (entry.id !== undefined && known.has(entry.id) && !entry._destroy && entry.access_level !== undefined) {
          await updateBranchAccessLevelRow(trx, entry.id, current.id, entry.access_level, at)
        }
      }
      await insertBranchAccessLevels(trx, current.id, kind, accessLevelsOf(kind, undefined, entries, false), at)
    }
  })
  return showProtectedBranch(ctx, loaded, input.name)
}

export async function unprotectBranch(ctx: Context, loaded: LoadedProject, name: string): Promise<void> {
  const current = await showProtectedBranch(ctx, loaded, name)
  await deleteProtectedBranchRow(ctx.db, current.id)
}

// ----- Protected tags (GL lib/api/protected_tags.rb) -----

export async function listProtectedTags(ctx: Context, loaded: LoadedProject): Promise<ProtectedTag[]> {
  authorizeAdmin(loaded)
  return loadProtectedTags(ctx.db, loaded.project.id)
}

export async function showProtectedTag(ctx: Context, loaded: LoadedProject, name: string): Promise<ProtectedTag> {
  authorizeAdmin(loaded)
  const found = (await loadProtectedTags(ctx.db, loaded.project.id)).find((tag) => tag.name === name)
  if (!found) throw new RecordNotFound()
  return found
}

/** GL ProtectedTags::CreateService: a name taken already is the model's 422. */
export async function protectTag(ctx: Context, loaded: LoadedProject, input: CreateProtectedTagParams): Promise<ProtectedTag> {
  authorizeAdmin(loaded)
  checkLevelParams(input, ['create_access_level'])
  const projectId = loaded.project.id
  const errors: string[] = []
  if (input.name.trim() === '') errors.push("Name can't be blank")
  else if (await findProtectedTagByName(ctx.db, projectId, input.name)) errors.push('Name has already been taken')
  if (errors.length > 0) throw new Unprocessable(errors)
  const create = accessLevelsOf('create', input.create_access_level, input.allowed_to_create, true)
  const at = ctx.now().toISOString()
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const row = await insertProtectedTag(trx, { project_id: projectId, name: input.name, created_at: at })
      await insertTagCreateAccessLevels(trx, row.id, create, at)
    })
  } catch (error) {
    if (await findProtectedTagByName(ctx.db, projectId, input.name)) throw new Unprocessable(['Name has already been taken'])
    throw error
  }
  return showProtectedTag(ctx, loaded, input.name)
}

export async function unprotectTag(ctx: Context, loaded: LoadedProject, name: string): Promise<void> {
  const current = await showProtectedTag(ctx, loaded, name)
  await deleteProtectedTagRow(ctx.db, current.id)
}

// ----- The branches API's own protect and unprotect (GL ProtectedBranches::LegacyApiCreateService, LegacyApiUpdateService) -----

/**
 * Protects a branch by its exact name, Developers allowed to push or merge as asked (Maintainers otherwise); an
 * existing rule of that name keeps the levels not asked about.
 */
export async function protectBranchByLegacyApi(
  ctx: Context,
  loaded: LoadedProject,
  name: string,
  developersCan: { push?: boolean; merge?: boolean },
): Promise<void> {
  authorizeAdmin(loaded)
  const at = ctx.now().toISOString()
  const levelOf = (developers: boolean | undefined) => [{ accessLevel: developers ? 30 : 40, userId: null, groupId: null }]
  const existing = await findProtectedBranchByName(ctx.db, loaded.project.id, name)
  await ctx.db.transaction().execute(async (trx) => {
    if (!existing) {
      const row = await insertProtectedBranch(trx, {
        project_id: loaded.project.id,
        name,
        allow_force_push: 0,
        code_owner_approval_required: 0,
        created_at: at,
      })
      await insertBranchAccessLevels(trx, row.id, 'push', levelOf(developersCan.push), at)
      await insertBranchAccessLevels(trx, row.id, 'merge', levelOf(developersCan.merge), at)
      return
    }
    for (const kind of ['push', 'merge'] as const) {
      const wanted = developersCan[kind]
      if (wanted === undefined) continue
      await deleteBranchAccessLevels(trx, existing.id, kind, null)
      await insertBranchAccessLevels(trx, existing.id, kind, levelOf(wanted), at)
    }
    await updateProtectedBranchRow(trx, existing.id, { updated_at: at })
  })
}

/** Removes the rule of exactly this name, if there is one. */
export async function unprotectBranchByLegacyApi(ctx: Context, loaded: LoadedProject, name: string): Promise<void> {
  authorizeAdmin(loaded)
  const existing = await findProtectedBranchByName(ctx.db, loaded.project.id, name)
  if (existing) await deleteProtectedBranchRow(ctx.db, existing.id)
}
