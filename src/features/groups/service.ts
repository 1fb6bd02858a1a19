import { visibilityLevel, visibilityName, type Access, type VisibilityName } from '../../core/access.js'
import type { Context } from '../../core/context.js'
import { isoDate } from '../../core/time.js'
import { BadRequest, Forbidden, Invalid, NotAllowed, ParamError, Rejected } from '../../core/errors.js'
import {
  COUNT_LIMIT,
  fetchKeysetPage,
  fetchOffsetPage,
  type KeysetPage,
  type KeysetPosition,
  type OffsetPage,
} from '../../db/pagination.js'
import type { NamespaceRow, NamespaceUpdate, NewNamespaceRow } from '../../db/schema.js'
import {
  authorizeGroup,
  canCreateSubgroup,
  canCreateTopLevelGroup,
  canGroup,
  canReadAllGroups,
  findGroup,
  groupAccess,
  groupsWithRoleCondition,
  type LoadedGroup,
  memberGroupsCondition,
  visibleGroupsCondition,
} from '../access/index.js'
import { noticeChange } from '../change-notices/index.js'
import { addOwner } from '../members/index.js'
import {
  BranchProtectionLevel,
  branchProtectionOfLevel,
  levelOfBranchProtection,
  type BranchProtectionDefaults,
} from '../protected-refs/index.js'
import { capVisibilityOfProjectsBelow, listProjectsOfGroupForDetail } from '../projects/index.js'
import {
  createNamespace,
  isFullPathTaken,
  moveNamespace,
  parseSearch,
  releaseRedirectsAtOrBelow,
  trigramSimilarity,
} from '../namespaces/index.js'
import { scheduleGroupDeletion } from './deletion.js'
import {
  PROJECT_CREATION_LEVELS,
  SUBGROUP_CREATION_LEVELS,
  type GroupOrderColumn,
  type ProjectCreationLevelName,
  type SubgroupCreationLevelName,
} from './schemas.js'
import {
  capVisibilityOfGroupsAtOrBelow,
  countOwnerMembers,
  fetchSimilarityCandidates,
  findGroupsByIds,
  hasProjectsAbove,
  hasSubgroupsAbove,
  isNameTakenInParent,
  lockSharingBelow,
  ownedGroupIds,
  selectGroups,
  updateGroupRow,
  type GroupCondition,
  type GroupFilters,
  type ParentFilter,
} from './store.js'
import { GroupErrors, NUMBER_OF_ANCESTORS_ALLOWED, groupPathErrors, splitNameErrors } from './validation.js'

function flag(value: boolean): number {
  return value ? 1 : 0
}

/** How many groups sit above a group (or above a new child of it, counting the group itself). */
function depthOf(group: NamespaceRow): number {
  return group.traversal_ids.split('/').filter((id) => id !== '').length
}

function isWithin(group: NamespaceRow, ancestor: NamespaceRow): boolean {
  return group.traversal_ids.startsWith(ancestor.traversal_ids)
}

// ---------------------------------------------------------------------------------------------
// Lists

export type GroupListPagination =
  { kind: 'offset'; page: number; perPage: number } | { kind: 'keyset'; perPage: number; after: KeysetPosition | null }

/** The filters of GET /groups, /subgroups and /descendant_groups (GL groups.rb `group_list_params`, GroupsFinder). */
export interface ListGroupsInput {
  statistics: boolean
  archived?: boolean
  skipGroups?: number[]
  allAvailable?: boolean
  visibility?: VisibilityName
  search?: string
  owned: boolean
  orderBy: GroupOrderColumn
  sort: 'asc' | 'desc'
  minAccessLevel?: number
  topLevelOnly?: boolean
  active?: boolean
  withCustomAttributes: boolean
  pagination: GroupListPagination
}

export type GroupListPage = ({ kind: 'offset'; page: OffsetPage<NamespaceRow> } | { kind: 'keyset'; page: KeysetPage<NamespaceRow> }) & {
  statistics: boolean
  customAttributes: boolean
}

/** Which groups a list may hold for the caller (GL GroupsFinder#all_groups). */
function scopeOf(ctx: Context, input: ListGroupsInput): GroupCondition | null {
  const user = ctx.caller.user
  if (input.owned) {
    if (!user) return null
    const owned = ownedGroupIds(ctx.db, user.id, isoDate(ctx.now()))
    return (eb) => eb('namespaces.id', 'in', owned)
  }
  const minLevel = input.minAccessLevel
  if (user && minLevel !== undefined) return (eb) => groupsWithRoleCondition(ctx, eb, minLevel)
  // GL groups.rb `find_groups`: all_available defaults to whether the caller may read everything.
  const allAvailable = input.allAvailable ?? canReadAllGroups(ctx.caller)
  if (user && !allAvailable) return (eb) => memberGroupsCondition(ctx, eb)
  return (eb) => visibleGroupsCondition(ctx, eb)
}

function parentFilterOf(input: ListGroupsInput, parent: { group: NamespaceRow; descendants: boolean } | null): ParentFilter | null {
  // GL groups.rb `find_groups`: top_level_only replaces the parent, even on a group's subgroups endpoint.
  if (input.topLevelOnly) return { kind: 'top' }
  if (!parent) return null
  return parent.descendants ? { kind: 'descendants', group: parent.group } : { kind: 'children', id: parent.group.id }
}

/**
 * GET /groups, and a group's subgroups or descendants when `parent` is given. Keyset pages are ordered by name
 * only (spec: Pagination, keyset table); the route offers them to anonymous callers alone, as GitLab does.
 */
export async function listGroups(
  ctx: Context,
  input: ListGroupsInput,
  parent: { group: NamespaceRow; descendants: boolean } | null = null,
): Promise<GroupListPage> {
  const admin = canReadAllGroups(ctx.caller)
  const options = { statistics: input.statistics && admin, customAttributes: input.withCustomAttributes && admin }
  const terms = parseSearch(input.search)
  const parentFilter = parentFilterOf(input, parent)
  // Archiving and delayed deletion are not offered: no group is archived or marked for deletion.
  const none = input.archived === true || input.active === false
  const filters: GroupFilters = {
    scope: none ? null : scopeOf(ctx, input),
    parent: parentFilter,
    excludeIds: input.skipGroups ?? [],
    visibilityLevel: input.visibility === undefined ? null : visibilityLevel(input.visibility),
    // GL GroupsFinder#by_search: full paths count only when no parent was given.
    search: terms ? { terms, fullPath: parentFilter === null } : null,
  }
  const query = selectGroups(ctx.db, filters)
  const { pagination } = input
  if (pagination.kind === 'keyset') {
    if (input.orderBy !== 'name' || input.sort !== 'asc')
      throw new NotAllowed('Keyset pagination is not yet available for this type of request')
    const after = pagination.after
    if (after && typeof after.value !== 'string') throw new BadRequest('Invalid cursor parameter')
    const page = await fetchKeysetPage(query, { column: 'name', direction: 'asc', after, perPage: pagination.perPage })
    return { kind: 'keyset', page, ...options }
  }
  if (input.orderBy === 'similarity' && terms && input.search !== undefined) {
    return { kind: 'offset', page: await fetchSimilarityPage(ctx, query, input.search, pagination), ...options }
  }
  // GL groups.rb `order_groups`: similarity without a search orders by name; ties go by ascending id.
  const column = input.orderBy === 'similarity' ? 'name' : input.orderBy
  const ordered = column === 'id' ? query.orderBy('id', input.sort) : query.orderBy(column, input.sort).orderBy('id', 'asc')
  return { kind: 'offset', page: await fetchOffsetPage(ctx.db, ordered, pagination.page, pagination.perPage), ...options }
}

/**
 * Orders matches as GitLab's `sorted_by_similarity_and_parent_id_desc`: trigram similarity of path (×1) and
 * name (×0.7) to the search, then parent id descending (top level last), then id descending. Scores are
 * computed here for the first COUNT_LIMIT matches, so both engines order alike.
 */
async function fetchSimilarityPage(
  ctx: Context,
  query: ReturnType<typeof selectGroups>,
  search: string,
  pagination: { page: number; perPage: number },
): Promise<OffsetPage<NamespaceRow>> {
  const candidates = await fetchSimilarityCandidates(query, COUNT_LIMIT + 1)
  const text = search.trim()
  const scored = candidates.map((c) => ({ ...c, score: trigramSimilarity(c.path, text) + trigramSimilarity(c.name, text) * 0.7 }))
  scored.sort((a, b) => b.score - a.score || (b.parent_id ?? -1) - (a.parent_id ?? -1) || b.id - a.id)
  const start = (pagination.page - 1) * pagination.perPage
  const ids = scored.slice(start, start + pagination.perPage).map((c) => c.id)
  const rows = await findGroupsByIds(ctx.db, ids)
  return {
    rows: ids.map((id) => rows.find((row) => row.id === id)).filter((row): row is NamespaceRow => row !== undefined),
    page: pagination.page,
    perPage: pagination.perPage,
    total: candidates.length > COUNT_LIMIT ? null : candidates.length,
    hasNext: candidates.length > start + pagination.perPage,
  }
}

/** A group the caller may see, for its subgroups or descendants lists. */
export async function listChildGroups(ctx: Context, idOrPath: string, input: ListGroupsInput, descendants: boolean) {
  const { group } = await findGroup(ctx, idOrPath)
  return listGroups(ctx, input, { group, descendants })
}

/** The project lists of a GroupDetail (GL entities/group_detail.rb `projects`, `shared_projects`). */
export async function groupDetailProjects(ctx: Context, group: NamespaceRow): Promise<{ projects: unknown[]; sharedProjects: unknown[] }> {
  // Sharing projects with groups is not offered, so no project is shared with a group.
  return { projects: await listProjectsOfGroupForDetail(ctx, group), sharedProjects: [] }
}

/** GET /groups/:id: the group with what its detail shows this caller. */
export async function showGroup(ctx: Context, idOrPath: string, options: { withProjects: boolean; withCustomAttributes: boolean }) {
  const { group, access } = await findGroup(ctx, idOrPath)
  return {
    group,
    customAttributes: options.withCustomAttributes && canReadAllGroups(ctx.caller),
    runnersToken: canGroup(access, 'admin_group'),
    projects: options.withProjects ? await groupDetailProjects(ctx, group) : null,
  }
}

// ---------------------------------------------------------------------------------------------
// Writes

/** The settings POST and PUT take (GL groups_helpers.rb `optional_params`). */
export interface GroupAttributes {
  name?: string
  path?: string
  description?: string
  visibility?: VisibilityName
  shareWithGroupLock?: boolean
  requireTwoFactorAuthentication?: boolean
  twoFactorGracePeriod?: number
  projectCreationLevel?: ProjectCreationLevelName
  subgroupCreationLevel?: SubgroupCreationLevelName
  emailsEnabled?: boolean
  mentionsDisabled?: boolean
  lfsEnabled?: boolean
  requestAccessEnabled?: boolean
  defaultBranch?: string
  /** A Gitlab::Access protection level, 0–4. */
  defaultBranchProtection?: number
  /** Settings given one by one; those not given come from the level given, else full protection. */
  defaultBranchProtectionDefaults?: Partial<BranchProtectionDefaults>
}

/** ProtectedBranch::PushAccessLevel and MergeAccessLevel `allowed_access_levels`. */
const BRANCH_PROTECTION_ACCESS_LEVELS = [0, 30, 40, 60]

/** GL groups.rb `default_branch_protection_defaults` params: each `access_level` among the allowed ones. */
function checkBranchProtectionDefaults(defaults: Partial<BranchProtectionDefaults>) {
  const problems: string[] = []
  for (const key of ['allowed_to_push', 'allowed_to_merge'] as const) {
    ;(defaults[key] ?? []).forEach((entry, n) => {
      if (!BRANCH_PROTECTION_ACCESS_LEVELS.includes(entry.access_level)) {
        problems.push(`default_branch_protection_defaults[${key}][${n}][access_level] does not have a valid value`)
      }
    })
  }
  if (problems.length > 0) throw new ParamError(problems.join(', '))
}

/** The columns of a group's default branch protection (GL Groups::BaseService#handle_default_branch_protection). */
function branchProtectionColumns(attributes: GroupAttributes): NamespaceUpdate {
  const { defaultBranchProtection: level, defaultBranchProtectionDefaults: given } = attributes
  if (level === undefined && given === undefined) return {}
  if (given) checkBranchProtectionDefaults(given)
  const preset = branchProtectionOfLevel(level ?? BranchProtectionLevel.FULL)
  const defaults: BranchProtectionDefaults = {
    allowed_to_push: given?.allowed_to_push ?? preset.allowed_to_push,
    allow_force_push: given?.allow_force_push ?? preset.allow_force_push,
    allowed_to_merge: given?.allowed_to_merge ?? preset.allowed_to_merge,
    developer_can_initial_push: given?.developer_can_initial_push ?? preset.developer_can_initial_push,
  }
  return {
    default_branch_protection: given ? (levelOfBranchProtection(defaults) ?? level ?? null) : (level ?? null),
    default_branch_protection_defaults: JSON.stringify(defaults),
  }
}

/** The columns the settings set, for the attributes given. */
function settingsColumns(attributes: GroupAttributes): NamespaceUpdate {
  const columns: NamespaceUpdate = {}
  if (attributes.description !== undefined) columns.description = attributes.description
  if (attributes.visibility !== undefined) columns.visibility_level = visibilityLevel(attributes.visibility)
  if (attributes.shareWithGroupLock !== undefined) columns.share_with_group_lock = flag(attributes.shareWithGroupLock)
  if (attributes.requireTwoFactorAuthentication !== undefined) {
    columns.require_two_factor_authentication = flag(attributes.requireTwoFactorAuthentication)
  }
  if (attributes.twoFactorGracePeriod !== undefined) columns.two_factor_grace_period = attributes.twoFactorGracePeriod
  if (attributes.projectCreationLevel !== undefined)
    columns.project_creation_level = PROJECT_CREATION_LEVELS[attributes.projectCreationLevel]
  if (attributes.subgroupCreationLevel !== undefined) {
    columns.subgroup_creation_level = SUBGROUP_CREATION_LEVELS[attributes.subgroupCreationLevel]
  }
  if (attributes.emailsEnabled !== undefined) columns.emails_enabled = flag(attributes.emailsEnabled)
  if (attributes.mentionsDisabled !== undefined) columns.mentions_disabled = flag(attributes.mentionsDisabled)
  if (attributes.lfsEnabled !== undefined) columns.lfs_enabled = flag(attributes.lfsEnabled)
  if (attributes.requestAccessEnabled !== undefined) columns.request_access_enabled = flag(attributes.requestAccessEnabled)
  if (attributes.defaultBranch !== undefined) columns.default_branch = attributes.defaultBranch
  return { ...columns, ...branchProtectionColumns(attributes) }
}

/** A group as it would be saved, with what changed: the model validations run on these. */
interface Candidate {
  current: NamespaceRow | null
  parent: NamespaceRow | null
  name: string
  path: string
  visibilityLevel: number
  twoFactorGracePeriod: number
  defaultBranch: string | null
  changed: { name: boolean; path: boolean; visibility: boolean }
}

function fullPathOf(parent: NamespaceRow | null, path: string): string {
  return parent ? `${parent.full_path}/${path}` : path
}

function fullNameOf(parent: NamespaceRow | null, name: string): string {
  return parent ? `${parent.full_name} / ${name}` : name
}

/** GitLab's Namespace and Group validations, in the order the model adds their errors. */
async function validationErrors(ctx: Context, candidate: Candidate): Promise<GroupErrors> {
  const { current, parent, changed } = candidate
  const errors = new GroupErrors()
  const name = splitNameErrors(candidate.name)
  if (changed.name) {
    errors.add('name', name.presence)
    if (parent && (await isNameTakenInParent(ctx.db, parent.id, candidate.name, current?.id ?? null))) {
      errors.add('name', 'has already been taken')
    }
  }
  if (changed.path) {
    errors.add('path', groupPathErrors(candidate.path, { topLevel: parent === null }))
    const fullPath = fullPathOf(parent, candidate.path)
    if (candidate.path !== '' && (await isFullPathTaken(ctx.db, fullPath, current ? { namespaceId: current.id } : {}))) {
      errors.add('path', 'has already been taken')
    }
  }
  if (!current && parent && depthOf(parent) > NUMBER_OF_ANCESTORS_ALLOWED) errors.add('parent_id', 'has too deep level of nesting')
  if (changed.visibility) {
    const level = visibilityName(candidate.visibilityLevel)
    if (current && (await hasProjectsAbove(ctx.db, current.id, candidate.visibilityLevel))) {
      errors.add('visibility_level', `${level} is not allowed since this group contains projects with higher visibility.`)
    }
    if (current && (await hasSubgroupsAbove(ctx.db, current.id, candidate.visibilityLevel))) {
      errors.add('visibility_level', `${level} is not allowed since there are sub-groups with higher visibility.`)
    }
    if (parent && candidate.visibilityLevel > parent.visibility_level) {
      errors.add(
        'visibility_level',
        `${level} is not allowed since the parent group has a ${visibilityName(parent.visibility_level)} visibility.`,
      )
    }
  }
  if (candidate.twoFactorGracePeriod < 0) errors.add('two_factor_grace_period', 'must be greater than or equal to 0')
  if (changed.name) errors.add('name', name.format)
  if (candidate.defaultBranch !== null && candidate.defaultBranch.trim() === '') {
    errors.add('namespace_settings.default_branch_name', 'can not be an empty string')
  }
  return errors
}

/** A unique index refused a path another writer took first: the answer is the one validation would have given. */
async function pathTakenAfterRace(ctx: Context, error: unknown, fullPath: string, exceptId: number | null): Promise<never> {
  if (await isFullPathTaken(ctx.db, fullPath, exceptId === null ? {} : { namespaceId: exceptId })) {
    throw new Invalid({ path: ['has already been taken'] })
  }
  throw error
}

/**
 * POST /groups (GL groups.rb, Groups::CreateService). A subgroup needs `create_subgroup` on a parent the caller
 * can see (else 404), a top-level group the caller's `can_create_group`. The creator becomes its Owner.
 * Validation failures answer the contract's 400 shape (spec: Errors), where GitLab words them as one string.
 */
export async function createGroup(ctx: Context, parentId: number | undefined, attributes: GroupAttributes): Promise<NamespaceRow> {
  const user = ctx.caller.user
  if (!user) throw new Forbidden()
  let parent: NamespaceRow | null = null
  if (parentId !== undefined) {
    const loaded = await findGroup(ctx, parentId)
    if (!canCreateSubgroup(loaded.access, loaded.group)) throw new Forbidden()
    parent = loaded.group
  } else if (!canCreateTopLevelGroup(ctx.caller)) {
    throw new Forbidden()
  }
  const name = attributes.name ?? ''
  const path = attributes.path ?? ''
  const columns = settingsColumns(attributes)
  const level = columns.visibility_level ?? visibilityLevel(ctx.settings.default_group_visibility)
  const errors = await validationErrors(ctx, {
    current: null,
    parent,
    name,
    path,
    visibilityLevel: level,
    twoFactorGracePeriod: columns.two_factor_grace_period ?? 48,
    defaultBranch: columns.default_branch ?? null,
    changed: { name: true, path: true, visibility: true },
  })
  if (errors.any) throw new Invalid(errors.errors)
  const at = ctx.now().toISOString()
  const fullPath = fullPathOf(parent, path)
  const row: NewNamespaceRow = {
    ...columns,
    kind: 'group',
    name,
    path,
    full_path: fullPath,
    full_name: fullNameOf(parent, name),
    owner_id: null,
    parent_id: parent?.id ?? null,
    visibility_level: level,
    // A locked parent locks its new subgroups (GL Namespace `sync_share_with_group_lock_with_parent`).
    share_with_group_lock: parent?.share_with_group_lock === 1 ? 1 : (columns.share_with_group_lock ?? 0),
    created_at: at,
    updated_at: at,
  }
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      await releaseRedirectsAtOrBelow(trx, fullPath)
      const group = await createNamespace(trx, row, parent)
      // GL Group#post_create_hook tells of the group before its creator becomes its Owner.
      await noticeChange(ctx, trx, { kind: 'group', action: 'create', groupId: group.id, actorId: user.id, at: ctx.now() })
      await addOwner(ctx, trx, { kind: 'group', id: group.id }, user.id, null, at)
      return group
    })
  } catch (error) {
    return pathTakenAfterRace(ctx, error, fullPath, null)
  }
}

/** GroupPolicy `change_share_with_group_lock`: Owners, unless the parent is locked and the caller may not change its lock. */
async function canChangeShareLock(ctx: Context, group: NamespaceRow, access: Access): Promise<boolean> {
  if (!canGroup(access, 'admin_group')) return false
  if (group.parent_id === null) return true
  const parent = (await findGroupsByIds(ctx.db, [group.parent_id]))[0]
  if (!parent || parent.share_with_group_lock !== 1) return true
  return canChangeShareLock(ctx, parent, await groupAccess(ctx, parent))
}

/**
 * PUT /groups/:id (GL groups.rb, Groups::UpdateService): Owners only. A new name or path moves every group and
 * project below, and their old paths redirect.
 */
export async function updateGroup(ctx: Context, loaded: LoadedGroup, attributes: GroupAttributes): Promise<NamespaceRow> {
  authorizeGroup(loaded.access, 'admin_group')
  const { group } = loaded
  const columns = settingsColumns(attributes)
  const name = attributes.name ?? group.name
  const path = attributes.path ?? group.path
  const changed = {
    name: name !== group.name,
    path: path !== group.path,
    visibility: columns.visibility_level !== undefined && columns.visibility_level !== group.visibility_level,
  }
  const parent = group.parent_id === null ? null : ((await findGroupsByIds(ctx.db, [group.parent_id]))[0] ?? null)
  const lockChanging = columns.share_with_group_lock !== undefined && columns.share_with_group_lock !== group.share_with_group_lock
  if (lockChanging && !(await canChangeShareLock(ctx, group, loaded.access))) {
    throw new Invalid({
      share_with_group_lock: [
        'cannot be disabled when the parent group "Share with group lock" is enabled, except by the owner of the parent group',
      ],
    })
  }
  const errors = await validationErrors(ctx, {
    current: group,
    parent: parent,
    name,
    path,
    visibilityLevel: columns.visibility_level ?? group.visibility_level,
    twoFactorGracePeriod: columns.two_factor_grace_period ?? group.two_factor_grace_period,
    defaultBranch: columns.default_branch ?? null,
    changed,
  })
  if (errors.any) throw new Invalid(errors.errors)
  const at = ctx.now().toISOString()
  const fullPath = fullPathOf(parent, path)
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      if (changed.name || changed.path) {
        await moveNamespace(trx, group, { name, path, fullPath, fullName: fullNameOf(parent, name), parent: undefined }, at)
      }
      const updated = await updateGroupRow(trx, group.id, { ...columns, updated_at: at })
      if (lockChanging && updated.share_with_group_lock === 1) await lockSharingBelow(trx, updated)
      // GL Group#path_changed_hook: only a new path is told (a new name alone is not).
      if (changed.path) {
        const actorId = ctx.caller.user?.id ?? 0
        await noticeChange(ctx, trx, {
          kind: 'group',
          action: 'rename',
          groupId: group.id,
          actorId,
          oldFullPath: group.full_path,
          at: ctx.now(),
        })
      }
      return updated
    })
  } catch (error) {
    return pathTakenAfterRace(ctx, error, fullPath, group.id)
  }
}

function transferFailed(reason: string): Rejected {
  return new Rejected(`Transfer failed: ${reason}`)
}

/**
 * POST /groups/:id/transfer (GL Groups::TransferService): to a new parent, or to the top level without one.
 * Refusals answer 400 "Transfer failed: …" and change nothing. A group moving under a less visible parent
 * becomes as visible as the parent, with everything below it.
 */
export async function transferGroup(ctx: Context, loaded: LoadedGroup, newParentId: number | undefined): Promise<NamespaceRow> {
  authorizeGroup(loaded.access, 'admin_group')
  const user = ctx.caller.user
  if (!user) throw new Forbidden()
  const target = newParentId === undefined ? null : await findGroup(ctx, newParentId)
  const { group } = loaded
  const newParent = target?.group ?? null
  if (!newParent && group.parent_id === null) throw transferFailed('Group is already a root group.')
  if (newParent && newParent.id === group.parent_id) throw transferFailed('Group is already associated to the parent group.')
  const allowed = target ? canCreateSubgroup(target.access, target.group) : canCreateTopLevelGroup(ctx.caller)
  if (!allowed) throw transferFailed("You don't have enough permissions.")
  const fullPath = fullPathOf(newParent, group.path)
  if (await isFullPathTaken(ctx.db, fullPath, { namespaceId: group.id })) {
    throw transferFailed('The parent group already has a subgroup or a project with the same path.')
  }
  if (newParent && isWithin(newParent, group)) throw transferFailed('Cannot transfer group to one of its subgroup.')
  const invalid: string[] = []
  if (newParent && (await isNameTakenInParent(ctx.db, newParent.id, group.name, group.id))) invalid.push('Name has already been taken')
  if (newParent && depthOf(newParent) > NUMBER_OF_ANCESTORS_ALLOWED) invalid.push('Parent has too deep level of nesting')
  if (invalid.length > 0) throw transferFailed(`Validation failed: ${invalid.join(', ')}`)
  const at = ctx.now().toISOString()
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      if (newParent && newParent.visibility_level < group.visibility_level) {
        await capVisibilityOfGroupsAtOrBelow(trx, group, newParent.visibility_level)
        await capVisibilityOfProjectsBelow(trx, group, newParent.visibility_level)
      }
      if (newParent?.share_with_group_lock === 1 && group.share_with_group_lock === 0) {
        await updateGroupRow(trx, group.id, { share_with_group_lock: 1 })
        await lockSharingBelow(trx, group)
      }
      const moved = await moveNamespace(
        trx,
        group,
        { name: group.name, path: group.path, fullPath, fullName: fullNameOf(newParent, group.name), parent: newParent },
        at,
      )
      // A group promoted to the top level keeps an Owner (GL TransferService#ensure_ownership).
      if (!newParent && (await countOwnerMembers(trx, group.id)) === 0) {
        await addOwner(ctx, trx, { kind: 'group', id: group.id }, user.id, null, at)
      }
      return moved
    })
  } catch (error) {
    if (await isFullPathTaken(ctx.db, fullPath, { namespaceId: group.id })) {
      throw transferFailed('The parent group already has a subgroup or a project with the same path.')
    }
    throw error
  }
}

/** DELETE /groups/:id: Owners only; marks the group and everything below it for deletion and schedules its removal. */
export async function deleteGroup(ctx: Context, loaded: LoadedGroup): Promise<void> {
  authorizeGroup(loaded.access, 'remove_group')
  await ctx.db.transaction().execute((trx) => scheduleGroupDeletion(trx, loaded.group, ctx.now(), ctx.caller.user?.id))
}
