import { AccessLevel, canRead, type Access } from '../../core/access.js'
import type { Context } from '../../core/context.js'
import { BadRequest, Conflict, Invalid, NotFound, PreconditionFailed } from '../../core/errors.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { LabelRow, NamespaceRow, ProjectRow } from '../../db/schema.js'
import {
  canReadConfidentialIssues,
  canReadMergeRequests,
  canReadProjectIssues,
  groupAccess,
  type LoadedGroup,
  type LoadedProject,
  type ProjectAccess,
  projectsWithRoleCondition,
  visibleGroupsCondition,
  visibleProjectsCondition,
} from '../access/index.js'
import { isValidColor, normalizeColor } from './color.js'
import { ancestorGroupIds } from './index.js'
import { authorizeAdminLabels } from './policy.js'
import {
  countOwnConfidentialIssues,
  deleteLabelRows,
  deleteOtherLevelSubscriptions,
  deletePriority,
  deleteSubscription,
  findLabelCounts,
  findLabelIdsInScope,
  findLabelInScopeById,
  findLabelInScopeByTitle,
  findLabelsToMerge,
  findPriorities,
  findProjectsByIds,
  findSubscribedLabelIds,
  hasSiblingWithTitle,
  hasSubscription,
  insertLabel,
  insertSubscription,
  moveLabelLinks,
  movePriorities,
  moveSubscriptions,
  selectDescendantGroups,
  labelsInScope,
  selectLabelsByPriority,
  selectProjectsOfGroups,
  setPriority,
  updateLabelRow,
  type LabelScope,
} from './store.js'
import { sanitizeLabelText } from './text.js'

/** Where labels are read and written: a project (its labels and its groups') or a group. */
export type LabelParent = { kind: 'project'; loaded: LoadedProject } | { kind: 'group'; loaded: LoadedGroup }

export interface LabelCounts {
  openIssues: number
  closedIssues: number
  openMergeRequests: number
}

/** A label as one caller sees it from one parent. */
export interface LabelView {
  label: LabelRow
  subscribed: boolean
  /** The label's priority in the project parent; null for none or in a group. */
  priority: number | null
  /** Only when counts were asked for. */
  counts: LabelCounts | null
}

export interface LabelFinderOptions {
  includeAncestorGroups: boolean
  includeDescendantGroups?: boolean
  onlyGroupLabels?: boolean
}

/** GL Label::DESCRIPTION_LENGTH_MAX. */
const DESCRIPTION_MAX_BYTES = 512 * 1024
const TITLE_MAX_LENGTH = 255

function projectOf(parent: LabelParent): ProjectRow | null {
  return parent.kind === 'project' ? parent.loaded.project : null
}

function groupIdsAbove(group: NamespaceRow, includeAncestors: boolean): number[] {
  return includeAncestors ? ancestorGroupIds(group) : [group.id]
}

/** GL LabelsFinder for a project or a group, as `available_labels_for` calls it. */
async function scopeOf(ctx: Context, parent: LabelParent, options: LabelFinderOptions): Promise<LabelScope> {
  if (parent.kind === 'project') {
    const { project, namespace } = parent.loaded
    return { projectIds: [project.id], groupIds: namespace.kind === 'group' ? groupIdsAbove(namespace, options.includeAncestorGroups) : [] }
  }
  const { group } = parent.loaded
  const groupIds = groupIdsAbove(group, options.includeAncestorGroups)
  const ownGroupIds = [group.id]
  if (options.includeDescendantGroups) {
    const below = await selectDescendantGroups(ctx.db, group.traversal_ids)
      .where((eb) => visibleGroupsCondition(ctx, eb))
      .execute()
    for (const { id } of below) {
      groupIds.push(id)
      ownGroupIds.push(id)
    }
  }
  let projectIds: number[] = []
  if (options.onlyGroupLabels === false) {
    const projects = await selectProjectsOfGroups(ctx.db, ownGroupIds)
      .where((eb) => visibleProjectsCondition(ctx, eb))
      .execute()
    projectIds = projects.map((row) => row.id)
  }
  return { projectIds, groupIds }
}

/** GL Gitlab::SQL::Pattern `select_fuzzy_terms`: words, or "quoted phrases", each matched on its own. */
function searchWordsOf(search: string | undefined): string[] {
  if (!search) return []
  const words = [...search.matchAll(/"([^"]+)"|(\S+)/g)].map((match) => match[1] ?? match[2])
  return words.filter((word) => word.length > 0)
}

/**
 * GL LabelHelpers#find_label: among the labels in scope, the one whose id the identifier names (read as Ruby's
 * `to_i` does, so "5 bugs" is id 5), else the one with exactly that title; 404 "Label Not Found" otherwise.
 */
async function findLabel(ctx: Context, scope: LabelScope, idOrTitle: string): Promise<LabelRow> {
  const leading = /^\s*([+-]?\d+)/.exec(idOrTitle)
  const id = leading ? Number(leading[1]) : 0
  const byId = Number.isSafeInteger(id) && id > 0 ? await findLabelInScopeById(ctx.db, scope, id) : undefined
  const label = byId ?? (await findLabelInScopeByTitle(ctx.db, scope, idOrTitle))
  if (!label) throw new NotFound('Label')
  return label
}

/** The caller's access to the owner of a label met through `parent` (GL ProjectLabelPolicy, GroupLabelPolicy). */
async function ownerAccess(ctx: Context, parent: LabelParent, label: LabelRow): Promise<Access> {
  if (parent.kind === 'project') {
    if (label.project_id !== null) return parent.loaded.access
    return groupAccess(ctx, parent.loaded.namespace)
  }
  return parent.loaded.access
}

function parentAccess(parent: LabelParent): Access {
  return parent.loaded.access
}

// ----- counts -----

interface ProjectVisibility {
  issues: boolean
  confidentialIssues: boolean
  mergeRequests: boolean
}

function visibilityIn(access: ProjectAccess, project: ProjectRow): ProjectVisibility {
  const readable = canRead(access)
  return {
    issues: readable && canReadProjectIssues(access, project),
    confidentialIssues: readable && canReadConfidentialIssues(access),
    mergeRequests: readable && canReadMergeRequests(access, project),
  }
}

/** What the caller may see of each project, read in one query with their role in it. */
async function visibilityOfProjects(ctx: Context, projectIds: readonly number[]): Promise<Map<number, ProjectVisibility>> {
  const result = new Map<number, ProjectVisibility>()
  if (projectIds.length === 0) return result
  const user = ctx.caller.user
  const rows = await findProjectsByIds(ctx.db, projectIds)
    .where((eb) => visibleProjectsCondition(ctx, eb))
    .select((eb) =>
      [AccessLevel.GUEST, AccessLevel.PLANNER, AccessLevel.REPORTER].map((level) =>
        eb
          .case()
          .when(projectsWithRoleCondition(ctx, eb, level))
          .then(1)
          .else(0)
          .end()
          .as(`role_${level}`),
      ),
    )
    .execute()
  for (const row of rows) {
    const roles = row as unknown as Record<string, number>
    const level = Number(roles[`role_${AccessLevel.REPORTER}`])
      ? AccessLevel.REPORTER
      : Number(roles[`role_${AccessLevel.PLANNER}`])
        ? AccessLevel.PLANNER
        : Number(roles[`role_${AccessLevel.GUEST}`])
          ? AccessLevel.GUEST
          : AccessLevel.NONE
    const access: ProjectAccess = {
      caller: ctx.caller,
      tier: ctx.config.tier,
      visibilityLevel: row.visibility_level,
      level: user ? level : AccessLevel.NONE,
      projectLevel: null,
      groupLevel: level || null,
      descendantAccess: false,
    }
    result.set(row.id, visibilityIn(access, row))
  }
  return result
}

/**
 * Issue and merge request counts of labels as the caller may see them (GL Label#open_issues_count & co.): a
 * project label counts in its project, a group label across its group's projects; issues of projects whose
 * issues the caller cannot read do not count, nor confidential issues they may not see.
 */
async function countLabels(ctx: Context, labels: readonly LabelRow[], parent: LabelParent): Promise<Map<number, LabelCounts>> {
  const counts = new Map<number, LabelCounts>(labels.map((label) => [label.id, { openIssues: 0, closedIssues: 0, openMergeRequests: 0 }]))
  const rows = await findLabelCounts(
    ctx.db,
    labels.map((label) => label.id),
  )
  const known = new Map<number, ProjectVisibility>()
  const current = projectOf(parent)
  if (current && parent.kind === 'project') known.set(current.id, visibilityIn(parent.loaded.access, current))
  const others = [...new Set(rows.map((row) => row.project_id).filter((id) => !known.has(id)))]
  for (const [id, visibility] of await visibilityOfProjects(ctx, others)) known.set(id, visibility)

  const ownConfidential: { labelIds: Set<number>; projectIds: Set<number>; pairs: Set<string> } = {
    labelIds: new Set(),
    projectIds: new Set(),
    pairs: new Set(),
  }
  for (const row of rows) {
    const visibility = known.get(row.project_id)
    const total = counts.get(row.label_id)
    if (!visibility || !total) continue
    if (visibility.mergeRequests) total.openMergeRequests += row.open_merge_requests
    if (!visibility.issues) continue
    total.openIssues += row.open_issues
    total.closedIssues += row.closed_issues
    if (visibility.confidentialIssues) {
      total.openIssues += row.open_confidential_issues
      total.closedIssues += row.closed_confidential_issues
    } else if (row.open_confidential_issues + row.closed_confidential_issues > 0 && ctx.caller.user) {
      ownConfidential.labelIds.add(row.label_id)
      ownConfidential.projectIds.add(row.project_id)
      ownConfidential.pairs.add(`${row.label_id}:${row.project_id}`)
    }
  }
  if (ownConfidential.pairs.size > 0 && ctx.caller.user) {
    const own = await countOwnConfidentialIssues(ctx.db, ctx.caller.user.id, [...ownConfidential.labelIds], [...ownConfidential.projectIds])
    for (const row of own) {
      const total = counts.get(row.label_id)
      if (!total || !ownConfidential.pairs.has(`${row.label_id}:${row.project_id}`)) continue
      if (row.state === 'opened') total.openIssues += Number(row.count)
      else if (row.state === 'closed') total.closedIssues += Number(row.count)
    }
  }
  return counts
}

// ----- views -----

async function viewsOf(ctx: Context, parent: LabelParent, labels: readonly LabelRow[], withCounts: boolean): Promise<LabelView[]> {
  const ids = labels.map((label) => label.id)
  const project = projectOf(parent)
  const user = ctx.caller.user
  const [subscribed, priorities, counts] = await Promise.all([
    user ? findSubscribedLabelIds(ctx.db, user.id, ids, project?.id ?? null) : Promise.resolve(new Set<number>()),
    project ? findPriorities(ctx.db, project.id, ids) : Promise.resolve([]),
    withCounts ? countLabels(ctx, labels, parent) : Promise.resolve(null),
  ])
  const priorityOf = new Map(priorities.map((row) => [row.label_id, row.priority]))
  return labels.map((label) => ({
    label,
    subscribed: subscribed.has(label.id),
    priority: priorityOf.get(label.id) ?? null,
    counts: counts?.get(label.id) ?? null,
  }))
}

async function viewOf(ctx: Context, parent: LabelParent, label: LabelRow, withCounts = false): Promise<LabelView> {
  return (await viewsOf(ctx, parent, [label], withCounts))[0]
}

// ----- reads -----

export interface ListLabelsInput extends LabelFinderOptions {
  withCounts: boolean
  search?: string
  page: number
  perPage: number
}

export async function listLabels(
  ctx: Context,
  parent: LabelParent,
  input: ListLabelsInput,
): Promise<{ page: OffsetPage<LabelRow>; views: LabelView[] }> {
  const scope = await scopeOf(ctx, parent, input)
  const page = await fetchOffsetPage(ctx.db, labelsInScope(ctx.db, scope, searchWordsOf(input.search)), input.page, input.perPage)
  return { page, views: await viewsOf(ctx, parent, page.rows, input.withCounts) }
}

/** Labels of a project's labels page: those with a priority in it (by priority) or the others (by title). */
export interface ListLabelsByPriorityInput {
  prioritized: boolean
  search?: string
  page: number
  perPage: number
}

/** GL Projects::LabelsController#index: the project's labels and its groups', split by whether the project prioritised them. */
export async function listLabelsByPriority(
  ctx: Context,
  loaded: LoadedProject,
  input: ListLabelsByPriorityInput,
): Promise<{ page: OffsetPage<LabelRow>; views: LabelView[] }> {
  const parent: LabelParent = { kind: 'project', loaded }
  const scope = await scopeOf(ctx, parent, { includeAncestorGroups: true })
  const query = selectLabelsByPriority(ctx.db, scope, loaded.project.id, input.prioritized, searchWordsOf(input.search))
  const page = await fetchOffsetPage(ctx.db, query, input.page, input.perPage)
  return { page, views: await viewsOf(ctx, parent, page.rows, true) }
}

export async function showLabel(ctx: Context, parent: LabelParent, idOrTitle: string, options: LabelFinderOptions): Promise<LabelView> {
  const label = await findLabel(ctx, await scopeOf(ctx, parent, options), idOrTitle)
  return viewOf(ctx, parent, label)
}

// ----- writes -----

/** GL Labels::CreateService / UpdateService: colour names become hex (blank colours are left to fail validation). */
function colorOf(input: string): string {
  return input.trim() === '' ? input : normalizeColor(input)
}

function titleOf(input: string): string {
  return sanitizeLabelText(input).trim()
}

function checkPriority(priority: number | null | undefined) {
  // GL LabelPriority `validates :priority, numericality: { greater_than_or_equal_to: 0 }`, checked before any change.
  if (typeof priority === 'number' && priority < 0) throw new Invalid({ priority: ['must be greater than or equal to 0'] })
}

/** GL Label (and ProjectLabel) validations, in their order: colour, title, description, then the group-level title. */
async function validateLabel(
  ctx: Context,
  candidate: {
    id: number | null
    title: string
    color: string
    description: string | null
    projectId: number | null
    groupId: number | null
  },
  options: { descriptionChanged: boolean; previousDescription: string | null; projectGroup: NamespaceRow | null },
) {
  const errors: Record<string, string[]> = {}
  const add = (attribute: string, message: string) => (errors[attribute] ??= []).push(message)
  if (!isValidColor(candidate.color)) add('color', 'must be a valid color code')
  if (candidate.color.trim() === '') add('color', "can't be blank")
  const title = candidate.title
  if (title.trim() === '') add('title', "can't be blank")
  if (!/^[^,]+$/.test(title)) add('title', 'is invalid')
  if (await hasSiblingWithTitle(ctx.db, { projectId: candidate.projectId, groupId: candidate.groupId }, title, candidate.id)) {
    add('title', 'has already been taken')
  }
  if ([...title].length > TITLE_MAX_LENGTH) add('title', `is too long (maximum is ${TITLE_MAX_LENGTH} characters)`)
  const description = candidate.description
  if (options.descriptionChanged && description !== null && description.trim() !== '') {
    const bytes = Buffer.byteLength(description)
    const previous = options.previousDescription === null ? 0 : Buffer.byteLength(options.previousDescription)
    // Descriptions already over the limit may shrink (GL Label#validate_description_length?).
    const checked =
      options.previousDescription === null ||
      options.previousDescription.trim() === '' ||
      previous <= DESCRIPTION_MAX_BYTES ||
      bytes > previous
    if (checked && bytes > DESCRIPTION_MAX_BYTES) add('description', `is too long (maximum is ${DESCRIPTION_MAX_BYTES} characters)`)
  }
  const group = options.projectGroup
  if (
    candidate.projectId !== null &&
    group &&
    title !== '' &&
    (await hasSiblingWithTitle(ctx.db, { projectId: null, groupId: group.id }, title, null))
  ) {
    add('title', `already exists at group level for ${group.name}. Please choose another one.`)
  }
  if (Object.keys(errors).length > 0) throw new Invalid(errors)
}

function projectGroupOf(parent: LabelParent): NamespaceRow | null {
  return parent.kind === 'project' && parent.loaded.namespace.kind === 'group' ? parent.loaded.namespace : null
}

export interface CreateLabelInput {
  name: string
  color: string
  description?: string | null
  priority?: number | null
}

/**
 * GL LabelHelpers#create_label: 403, then 409 when a label with this exact title is available, then validation. The
 * labels page creates through GL Labels::CreateService alone (`refuseAvailableTitle: false`): a taken title is then a
 * validation message ("has already been taken", or "already exists at group level").
 */
export async function createLabel(
  ctx: Context,
  parent: LabelParent,
  input: CreateLabelInput,
  options: { refuseAvailableTitle: boolean } = { refuseAvailableTitle: true },
): Promise<LabelView> {
  authorizeAdminLabels(parentAccess(parent))
  const available = await scopeOf(ctx, parent, { includeAncestorGroups: true })
  if (options.refuseAvailableTitle && (await findLabelInScopeByTitle(ctx.db, available, input.name))) {
    throw new Conflict('Label already exists')
  }
  checkPriority(input.priority)
  const project = projectOf(parent)
  const title = titleOf(input.name)
  const color = colorOf(input.color)
  const description = input.description === undefined || input.description === null ? null : sanitizeLabelText(input.description)
  const owner = { projectId: project?.id ?? null, groupId: parent.kind === 'group' ? parent.loaded.group.id : null }
  await validateLabel(
    ctx,
    { id: null, title, color, description, ...owner },
    { descriptionChanged: true, previousDescription: null, projectGroup: projectGroupOf(parent) },
  )
  const at = ctx.now().toISOString()
  const label = await ctx.db.transaction().execute(async (trx) => {
    const created = await insertLabel(trx, {
      title,
      color,
      description,
      project_id: owner.projectId,
      group_id: owner.groupId,
      created_at: at,
      updated_at: at,
    })
    if (project && typeof input.priority === 'number') await setPriority(trx, project.id, created.id, input.priority)
    return created
  })
  return viewOf(ctx, parent, label)
}

export interface UpdateLabelInput {
  newName?: string
  color?: string
  description?: string | null
  /** undefined: unchanged; null: removed; a number: set (project parents only). */
  priority?: number | null
}

/** GL LabelHelpers#update_label: the parent's admin_label, the label among its own and its direct group's, then the label's owner's admin_label for changes beyond priority. */
export async function updateLabel(ctx: Context, parent: LabelParent, idOrTitle: string, input: UpdateLabelInput): Promise<LabelView> {
  authorizeAdminLabels(parentAccess(parent))
  const label = await findLabel(ctx, await scopeOf(ctx, parent, { includeAncestorGroups: false }), idOrTitle)
  const changesAttributes = input.newName !== undefined || input.color !== undefined || input.description !== undefined
  if (changesAttributes) authorizeAdminLabels(await ownerAccess(ctx, parent, label))
  checkPriority(input.priority)
  const changes: { title?: string; color?: string; description?: string | null } = {}
  if (input.newName !== undefined) changes.title = titleOf(input.newName)
  if (input.color !== undefined) changes.color = colorOf(input.color)
  if (input.description !== undefined) changes.description = input.description === null ? null : sanitizeLabelText(input.description)
  if (changesAttributes) {
    await validateLabel(
      ctx,
      {
        id: label.id,
        title: changes.title ?? label.title,
        color: changes.color ?? label.color,
        description: changes.description === undefined ? label.description : changes.description,
        projectId: label.project_id,
        groupId: label.group_id,
      },
      {
        descriptionChanged: changes.description !== undefined && changes.description !== label.description,
        previousDescription: label.description,
        projectGroup: label.project_id !== null ? projectGroupOf(parent) : null,
      },
    )
  }
  const project = projectOf(parent)
  const updated = await ctx.db.transaction().execute(async (trx) => {
    let row = label
    const changed =
      (changes.title !== undefined && changes.title !== label.title) ||
      (changes.color !== undefined && changes.color !== label.color) ||
      (changes.description !== undefined && changes.description !== label.description)
    if (changed) row = await updateLabelRow(trx, label.id, { ...changes, updated_at: ctx.now().toISOString() })
    if (project && input.priority !== undefined) {
      if (input.priority === null) await deletePriority(trx, project.id, label.id)
      else await setPriority(trx, project.id, label.id, input.priority)
    }
    return row
  })
  return viewOf(ctx, parent, updated)
}

/** GL LabelHelpers#delete_label: the label among the parent's own and its direct group's, then its owner's admin_label; 412 when changed since If-Unmodified-Since. */
export async function deleteLabel(ctx: Context, parent: LabelParent, idOrTitle: string, unmodifiedSince: Date | null) {
  const label = await findLabel(ctx, await scopeOf(ctx, parent, { includeAncestorGroups: false }), idOrTitle)
  authorizeAdminLabels(await ownerAccess(ctx, parent, label))
  if (unmodifiedSince && new Date(label.updated_at).getTime() > unmodifiedSince.getTime()) throw new PreconditionFailed()
  // Issue and merge request links go with the label (foreign keys cascade), as GL Labels::DestroyService removes them.
  await deleteLabelRows(ctx.db, [label.id])
}

/**
 * GL Projects::LabelsController#set_priorities: the labels named, in this order, get priorities 0, 1, 2… in the
 * project; ids of labels the project cannot use are skipped.
 */
export async function prioritizeLabels(ctx: Context, loaded: LoadedProject, labelIds: readonly number[]): Promise<void> {
  authorizeAdminLabels(loaded.access)
  const scope = await scopeOf(ctx, { kind: 'project', loaded }, { includeAncestorGroups: true })
  const wanted = [...new Set(labelIds)].filter((id) => Number.isSafeInteger(id) && id > 0)
  const available = await findLabelIdsInScope(ctx.db, scope, wanted)
  await ctx.db.transaction().execute(async (trx) => {
    let priority = 0
    for (const id of wanted) if (available.has(id)) await setPriority(trx, loaded.project.id, id, priority++)
  })
}

/** GL Projects::LabelsController#remove_priority: the label keeps no priority in the project; 404 for a label it cannot use. */
export async function unprioritizeLabel(ctx: Context, loaded: LoadedProject, labelId: number): Promise<void> {
  authorizeAdminLabels(loaded.access)
  const scope = await scopeOf(ctx, { kind: 'project', loaded }, { includeAncestorGroups: true })
  const label = await findLabelInScopeById(ctx.db, scope, labelId)
  if (!label) throw new NotFound('Label')
  await deletePriority(ctx.db, loaded.project.id, label.id)
}

/** The promoted label as a group label: its counts are group-wide (spec: Labels, the promote response). */
export interface PromotedLabelView {
  label: LabelRow
  subscribed: boolean
  counts: LabelCounts
}

/**
 * Promotes a project label to a label of the project's group (GL Labels::PromoteService), keeping its ID as the
 * contract requires (spec README, "Label promote"): the row itself becomes the group label, and every other label
 * of the group and of the group's own projects with the same title is merged into it: issue and merge request
 * links, priorities and subscriptions (one per user) move over, then those labels are deleted. An existing group
 * label with that title is merged the same way, so the promoted label survives and keeps its ID, colour and
 * description; GitLab likewise builds the group label from the promoted one and merges the older group label
 * into it.
 */
export async function promoteLabel(ctx: Context, loaded: LoadedProject, idOrTitle: string): Promise<PromotedLabelView> {
  const group = loaded.namespace.kind === 'group' ? loaded.namespace : null
  if (!group) throw new BadRequest('Failed to promote project label to group label')
  const access = await groupAccess(ctx, group)
  authorizeAdminLabels(access)
  const parent: LabelParent = { kind: 'project', loaded }
  const label = await findLabel(ctx, await scopeOf(ctx, parent, { includeAncestorGroups: false }), idOrTitle)
  if (label.project_id === null) throw new BadRequest('Failed to promote project label to group label')
  const at = ctx.now().toISOString()
  const promoted = await ctx.db.transaction().execute(async (trx) => {
    const merged = (await findLabelsToMerge(trx, group.id, label.title, label.id)).map((row) => row.id)
    if (merged.length > 0) {
      await moveLabelLinks(trx, merged, label.id)
      await movePriorities(trx, merged, label.id)
      await moveSubscriptions(trx, merged, label.id)
      await deleteLabelRows(trx, merged)
    }
    return updateLabelRow(trx, label.id, { project_id: null, group_id: group.id, updated_at: at })
  })
  const groupParent: LabelParent = { kind: 'group', loaded: { group, access } }
  const [view] = await viewsOf(ctx, groupParent, [promoted], true)
  return { label: promoted, subscribed: view.subscribed, counts: view.counts! }
}

/**
 * GL API::Subscriptions: subscribes the caller to the label at the parent's level (a project, or everywhere for a
 * group); null when they already were (the API answers 304).
 */
export async function subscribeToLabel(
  ctx: Context,
  parent: LabelParent,
  idOrTitle: string,
  subscribe: boolean,
): Promise<LabelView | null> {
  const user = ctx.caller.user!
  const label = await findLabel(ctx, await scopeOf(ctx, parent, { includeAncestorGroups: true }), idOrTitle)
  const projectId = projectOf(parent)?.id ?? null
  const subscribed = await hasSubscription(ctx.db, user.id, label.id, projectId)
  // Subscribing twice, or unsubscribing when not subscribed, changes nothing (spec: States and transitions).
  if (subscribed === subscribe) return null
  await ctx.db.transaction().execute(async (trx) => {
    await deleteOtherLevelSubscriptions(trx, user.id, label.id, projectId)
    if (subscribe) await insertSubscription(trx, user.id, label.id, projectId, ctx.now().toISOString())
    else await deleteSubscription(trx, user.id, label.id, projectId)
  })
  return viewOf(ctx, parent, label)
}
