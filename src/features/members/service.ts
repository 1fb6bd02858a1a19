import { AccessLevel, MEMBER_ACCESS_LEVELS, roleName, tierIncludes } from '../../core/access.js'
import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { isoDate } from '../../core/time.js'
import { toSentence } from '../../core/sentence.js'
import { Conflict, DomainError, Forbidden, Invalid, NotFound, PreconditionFailed, RecordNotFound } from '../../core/errors.js'
import type { Db } from '../../db/index.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { MemberRow, NamespaceRow } from '../../db/schema.js'
import { noticeChange } from '../change-notices/index.js'
import { recordEvent, recordProjectsLeftBelow } from '../event-log/index.js'
import { findUsersByIds } from '../users/index.js'
import {
  allowsMinimalAccess,
  canManageMembers,
  canManageOwners,
  canReadMembers,
  isPersonalNamespaceHolder,
  type MemberSource,
} from './policy.js'
import {
  deleteMemberRow,
  deleteMemberRows,
  findHighestGroupMembership,
  findCurrentMemberRows,
  findHighestRoles,
  findMemberRow,
  findMembershipsBelow,
  findUsersByEmails,
  findUsersByUsernames,
  hasOtherOwner,
  insertMember,
  replaceWithOwnerMember,
  selectAllMembers,
  selectDirectMembers,
  updateMemberRow,
  type InheritanceScope,
  type MemberFilters,
  type SourceRef,
} from './store.js'
import { findGroup, findProject } from '../access/index.js'

export type { MemberSource } from './policy.js'

/** How many users one request may add (GL Members::CreateService DEFAULT_INVITE_LIMIT). */
export const INVITE_LIMIT = 100

/** One membership as the API shows it: the row, the level reported, the user, who added them, and the seat when asked. */
export interface MemberView {
  row: MemberRow
  accessLevel: number
  user: User
  createdBy: User | null
  usingSeat: boolean | null
}

/** The project or group an API path names, loaded as the caller may see it: 404 "<Project|Group> Not Found" otherwise. */
export async function findMemberSource(ctx: Context, kind: 'project' | 'group', id: string): Promise<MemberSource> {
  if (kind === 'project') {
    const { project, namespace, access } = await findProject(ctx, id)
    return { kind, project, namespace, access }
  }
  const { group, access } = await findGroup(ctx, id)
  return { kind, group, access }
}

function isExpired(row: MemberRow, day: string): boolean {
  return row.expires_at !== null && row.expires_at <= day
}

function refOf(source: MemberSource): SourceRef {
  return source.kind === 'project' ? { kind: 'project', id: source.project.id } : { kind: 'group', id: source.group.id }
}

function traversalIdsOf(namespace: NamespaceRow): number[] {
  return namespace.traversal_ids
    .split('/')
    .filter((part) => part !== '')
    .map(Number)
}

/** The groups whose members a source inherits: a project's group and the groups above it, or a group's ancestors. */
function ancestorGroupIds(source: MemberSource): number[] {
  if (source.kind === 'project') return source.namespace.kind === 'group' ? traversalIdsOf(source.namespace) : []
  return traversalIdsOf(source.group).slice(0, -1)
}

/**
 * Tells the outside of a membership added, changed or removed, inside the transaction that writes it. A removal is
 * told before its row goes, so whoever tells of it can still read the membership as it was.
 */
function noticeMembership(
  ctx: Context,
  trx: Db,
  source: SourceRef,
  row: MemberRow,
  action: 'add' | 'update' | 'remove',
  actorId = ctx.caller.user?.id ?? row.created_by_id ?? row.user_id,
) {
  return noticeChange(ctx, trx, {
    kind: 'member',
    action,
    source: { type: source.kind, id: source.id },
    userId: row.user_id,
    actorId,
    accessLevel: row.access_level,
    expiresAt: row.expires_at,
    at: ctx.now(),
  })
}

/**
 * Makes a user Owner of a new or moved group or project, replacing any direct membership they had there (GL
 * `add_owner`: a membership they had is changed, else one is added).
 */
export async function addOwnerMember(ctx: Context, trx: Db, source: SourceRef, userId: number, createdById: number | null, at: string) {
  const had = await findMemberRow(trx, source, userId)
  const row = await replaceWithOwnerMember(trx, source, userId, createdById, at)
  await noticeMembership(ctx, trx, source, row, had && !isExpired(had, isoDate(ctx.now())) ? 'update' : 'add')
  return row
}

/**
 * Tells of the removal of every current direct membership of a group that is about to be deleted, as GitLab's
 * `dependent: :destroy` removes them one by one; call it in the deleting transaction, before the rows go.
 */
export async function noticeMembershipsEnding(ctx: Context, trx: Db, source: SourceRef, actorId: number) {
  for (const row of await findCurrentMemberRows(trx, source, isoDate(ctx.now()))) {
    await noticeMembership(ctx, trx, source, row, 'remove', actorId)
  }
}

function authorizeRead(source: MemberSource) {
  if (!canReadMembers(source)) throw new Forbidden()
}

/**
 * A user's current direct membership of the source as the members API finds it: expired ones count for nothing,
 * and Minimal Access rows exist only where the role is allowed (EE `source_members`).
 */
async function findCurrentMember(ctx: Context, db: Db, source: MemberSource, userId: number): Promise<MemberRow | undefined> {
  const row = await findMemberRow(db, refOf(source), userId)
  if (!row || isExpired(row, isoDate(ctx.now()))) return undefined
  if (row.access_level === AccessLevel.MINIMAL_ACCESS && !allowsMinimalAccess(source)) return undefined
  return row
}

function usesSeat(ctx: Context, user: User, highestRole: number): boolean {
  // EE User#using_license_seat?: no seats without a license; Ultimate does not bill guests.
  const tier = ctx.config.tier
  if (tier === 'free' || user.state !== 'active' || user.bot === 1) return false
  return tier === 'ultimate' ? highestRole > AccessLevel.GUEST : true
}

async function viewsOf(ctx: Context, entries: { row: MemberRow; accessLevel: number }[], showSeatInfo: boolean): Promise<MemberView[]> {
  const ids = entries.flatMap(({ row }) => (row.created_by_id === null ? [row.user_id] : [row.user_id, row.created_by_id]))
  const users = new Map((await findUsersByIds(ctx.db, ids)).map((u) => [u.id, u]))
  const roles = showSeatInfo ? await findHighestRoles(ctx.db, [...users.keys()], isoDate(ctx.now())) : null
  return entries.flatMap(({ row, accessLevel }) => {
    const user = users.get(row.user_id)
    if (!user) return []
    const createdBy = row.created_by_id === null ? null : (users.get(row.created_by_id) ?? null)
    const usingSeat = roles ? usesSeat(ctx, user, roles.get(user.id) ?? 0) : null
    return [{ row, accessLevel, user, createdBy, usingSeat }]
  })
}

async function viewOf(ctx: Context, row: MemberRow, accessLevel = row.access_level): Promise<MemberView> {
  const [view] = await viewsOf(ctx, [{ row, accessLevel }], false)
  if (!view) throw new RecordNotFound()
  return view
}

// ---------------------------------------------------------------------------------------------
// Reading (GL members.rb GET endpoints: `read_<source>_member`, then the finders)

export interface ListMembersInput {
  query?: string
  userIds?: number[]
  skipUsers?: number[]
  showSeatInfo: boolean
  /** Members API `state` filter (EE): every membership here is active, none awaits approval. */
  state?: 'awaiting' | 'active'
  page: number
  perPage: number
}

export interface MemberPage {
  page: OffsetPage<unknown>
  views: MemberView[]
}

function filtersOf(source: MemberSource, input: ListMembersInput): MemberFilters {
  const query = input.query === undefined || input.query.trim() === '' ? undefined : input.query.replace(/^@/, '')
  return {
    query,
    // No membership awaits approval, so asking for those matches nobody.
    userIds: input.state === 'awaiting' ? [] : input.userIds?.length ? input.userIds : undefined,
    skipUsers: input.skipUsers,
    includeMinimalAccess: allowsMinimalAccess(source),
  }
}

/** GET /:source/:id/members: direct members (GL `source_members`). */
export async function listMembers(ctx: Context, source: MemberSource, input: ListMembersInput): Promise<MemberPage> {
  authorizeRead(source)
  const query = selectDirectMembers(ctx.db, refOf(source), isoDate(ctx.now()), filtersOf(source, input))
  const page = await fetchOffsetPage(ctx.db, query, input.page, input.perPage)
  const views = await viewsOf(
    ctx,
    page.rows.map((row) => ({ row, accessLevel: row.access_level })),
    input.showSeatInfo,
  )
  return { page, views }
}

function inheritanceScopeOf(source: MemberSource): InheritanceScope {
  if (source.kind === 'project') {
    const groupIds = ancestorGroupIds(source)
    return {
      projectId: source.project.id,
      nearestGroupId: groupIds.length ? groupIds[groupIds.length - 1] : null,
      groupIds,
      minimalAccessGroupId: null,
    }
  }
  return {
    projectId: null,
    nearestGroupId: source.group.id,
    groupIds: traversalIdsOf(source.group),
    minimalAccessGroupId: allowsMinimalAccess(source) ? source.group.id : null,
  }
}

/** A project reports each user's highest level there (its authorizations); the namespace holder owns it. */
function reportedLevel(source: MemberSource, row: MemberRow & { effective_level: number }): number {
  if (source.kind === 'group') return row.access_level
  return isPersonalNamespaceHolder(source, row.user_id) ? AccessLevel.OWNER : Number(row.effective_level)
}

/** GET /:source/:id/members/all: direct and inherited members, one row per user (GL MembersFinder, GroupMembersFinder). */
export async function listAllMembers(ctx: Context, source: MemberSource, input: ListMembersInput): Promise<MemberPage> {
  authorizeRead(source)
  const query = selectAllMembers(ctx.db, inheritanceScopeOf(source), isoDate(ctx.now()), filtersOf(source, input))
  const page = await fetchOffsetPage(ctx.db, query, input.page, input.perPage)
  const views = await viewsOf(
    ctx,
    page.rows.map((row) => ({ row, accessLevel: reportedLevel(source, row) })),
    input.showSeatInfo,
  )
  return { page, views }
}

/** GET /:source/:id/members/:user_id: a direct membership, else 404 "Not found" (`find_by!`). */
export async function showMember(ctx: Context, source: MemberSource, userId: number): Promise<MemberView> {
  authorizeRead(source)
  const row = await findCurrentMember(ctx, ctx.db, source, userId)
  if (!row) throw new RecordNotFound()
  return viewOf(ctx, row)
}

/** GET /:source/:id/members/all/:user_id: the user's row among direct and inherited memberships. */
export async function showInheritedMember(ctx: Context, source: MemberSource, userId: number): Promise<MemberView> {
  authorizeRead(source)
  const filters: MemberFilters = { userIds: [userId], includeMinimalAccess: allowsMinimalAccess(source) }
  const row = await selectAllMembers(ctx.db, inheritanceScopeOf(source), isoDate(ctx.now()), filters).executeTakeFirst()
  if (!row) throw new RecordNotFound()
  return viewOf(ctx, row, reportedLevel(source, row))
}

// ---------------------------------------------------------------------------------------------
// Validation (GL Member, GroupMember and ProjectMember validations, in the order they run)

type ValidationErrors = Record<string, string[]>

const ATTRIBUTE_NAMES: Record<string, string> = { expires_at: 'Expires at', access_level: 'Access level' }

/** The levels a membership of this source may have (`access_level_inclusion`). */
function allowedLevels(source: MemberSource): readonly number[] {
  const levels = MEMBER_ACCESS_LEVELS.filter((level) => level !== AccessLevel.MINIMAL_ACCESS)
  return allowsMinimalAccess(source) ? [AccessLevel.MINIMAL_ACCESS, ...levels] : levels
}

async function validationErrors(
  ctx: Context,
  db: Db,
  source: MemberSource,
  userId: number,
  accessLevel: number | null,
  expiresAt: string | null,
): Promise<ValidationErrors> {
  const errors: ValidationErrors = {}
  const add = (attribute: string, message: string) => (errors[attribute] ??= []).push(message)
  // FutureDateValidator: today is allowed.
  if (expiresAt !== null && expiresAt < isoDate(ctx.now())) add('expires_at', 'cannot be a date in the past')
  if (accessLevel !== null) {
    const inherited = await findHighestGroupMembership(db, ancestorGroupIds(source), userId, isoDate(ctx.now()))
    if (inherited && inherited.access_level > accessLevel) {
      const role = roleName(inherited.access_level)
      add('access_level', `should be greater than or equal to ${role} inherited membership from group ${inherited.name}`)
    }
  }
  if (accessLevel === null || !allowedLevels(source).includes(accessLevel)) {
    add('access_level', 'is not included in the list')
    // EE GroupMember#access_level_inclusion says why Minimal Access is refused.
    if (source.kind === 'group' && accessLevel === AccessLevel.MINIMAL_ACCESS) {
      if (source.group.parent_id !== null) add('access_level', 'supported on top level groups only')
      if (!tierIncludes(ctx.config.tier, 'premium')) add('access_level', 'not supported by license')
    }
  }
  return errors
}

function hasErrors(errors: ValidationErrors): boolean {
  return Object.keys(errors).length > 0
}

/** ActiveModel `full_messages`: attribute errors prefixed with the attribute's human name, base errors alone. */
function fullMessages(errors: ValidationErrors): string[] {
  return Object.entries(errors).flatMap(([attribute, messages]) =>
    messages.map((message) => (attribute === 'base' ? message : `${ATTRIBUTE_NAMES[attribute] ?? attribute} ${message}`)),
  )
}

// ---------------------------------------------------------------------------------------------
// Rules on existing memberships (GL GroupMemberPolicy, ProjectMemberPolicy)

/** A group's last Owner: no other Owner in the group, or for a subgroup in it and the groups above (`last_owner_of_the_group?`). */
async function isLastOwner(ctx: Context, db: Db, source: MemberSource, row: MemberRow): Promise<boolean> {
  if (source.kind !== 'group' || row.access_level !== AccessLevel.OWNER) return false
  const groupIds = source.group.parent_id === null ? [source.group.id] : traversalIdsOf(source.group)
  return !(await hasOtherOwner(db, groupIds, { groupId: source.group.id, userId: row.user_id }, isoDate(ctx.now())))
}

/** `update_<source>_member`: managers may, except on a namespace holder's or a group's last Owner's membership. */
async function canUpdateMember(ctx: Context, db: Db, source: MemberSource, row: MemberRow): Promise<boolean> {
  if (isPersonalNamespaceHolder(source, row.user_id) || (await isLastOwner(ctx, db, source, row))) return false
  return canManageMembers(source)
}

/** `destroy_<source>_member`: managers, or the member leaving, under the same exceptions. */
async function canDestroyMember(ctx: Context, db: Db, source: MemberSource, row: MemberRow): Promise<boolean> {
  if (isPersonalNamespaceHolder(source, row.user_id) || (await isLastOwner(ctx, db, source, row))) return false
  return canManageMembers(source) || ctx.caller.user?.id === row.user_id
}

/** Only project Owners give, change or take the Owner role in a project (Members::BaseService). */
function touchesProjectOwner(source: MemberSource, levels: number[]): boolean {
  return source.kind === 'project' && levels.includes(AccessLevel.OWNER) && !canManageOwners(source)
}

// ---------------------------------------------------------------------------------------------
// Adding (GL members.rb POST, MembersHelpers#add_single_member, Members::CreateService and CreatorService)

export interface AddMemberInput {
  /** An id, or ids separated by commas. */
  userId?: string
  /** A username, or usernames separated by commas. */
  username?: string
  accessLevel: number
  expiresAt: string | null
}

/** The create service's answer to a request naming several users, rendered as it is (GL BaseService success/error). */
export interface BulkResult {
  message?: string
  status: 'success' | 'error'
  reason?: string
  http_status?: string
}

export type AddMemberResult = { kind: 'member'; view: MemberView } | { kind: 'bulk'; result: BulkResult }

function isBulk(input: AddMemberInput): boolean {
  return (input.userId ?? '').includes(',') || (input.username ?? '').includes(',')
}

/** POST /:source/:id/members: one user answers the member (201), several the service's result. */
export async function addMember(ctx: Context, source: MemberSource, input: AddMemberInput): Promise<AddMemberResult> {
  if (isBulk(input)) return { kind: 'bulk', result: await addMembers(ctx, source, input) }
  return { kind: 'member', view: await addOneMember(ctx, source, input) }
}

async function findInvitee(ctx: Context, input: AddMemberInput): Promise<User | undefined> {
  if (input.userId !== undefined) {
    const id = input.userId.trim()
    if (!/^\d+$/.test(id) || !Number.isSafeInteger(Number(id))) return undefined
    return (await findUsersByIds(ctx.db, [Number(id)]))[0]
  }
  return (await findUsersByUsernames(ctx.db, [input.username ?? '']))[0]
}

async function addOneMember(ctx: Context, source: MemberSource, input: AddMemberInput): Promise<MemberView> {
  // The user and an existing membership are checked before any permission (MembersHelpers#check_existing_membership).
  const user = await findInvitee(ctx, input)
  if (!user) throw new NotFound('User')
  const row = await ctx.db
    .transaction()
    .execute(async (trx) => {
      const existing = await findMemberRow(trx, refOf(source), user.id)
      const current = existing !== undefined && !isExpired(existing, isoDate(ctx.now()))
      // A Minimal Access row is not among the group's `members`, so adding its user raises it instead.
      if (current && !(source.kind === 'group' && existing.access_level === AccessLevel.MINIMAL_ACCESS)) {
        throw new Conflict('Member already exists')
      }
      if (input.accessLevel === AccessLevel.OWNER && !canManageOwners(source)) throw new Forbidden()
      if (!canManageMembers(source)) throw new Forbidden()
      const errors = await validationErrors(ctx, trx, source, user.id, input.accessLevel, input.expiresAt)
      if (hasErrors(errors)) throw new Invalid(errors)
      return writeMembership(ctx, trx, source, user, current ? existing : undefined, existing, input)
    })
    .catch(async (error: unknown) => {
      // Two requests adding the same user at once: the loser of the race hits the unique index.
      const raced = !(error instanceof DomainError) && (await findCurrentMember(ctx, ctx.db, source, user.id)) !== undefined
      throw raced ? new Conflict('Member already exists') : error
    })
  return viewOf(ctx, row)
}

/** Creates the membership, or changes the current one; an expired row makes way for a new membership. */
async function writeMembership(
  ctx: Context,
  db: Db,
  source: MemberSource,
  user: User,
  current: MemberRow | undefined,
  stored: MemberRow | undefined,
  input: AddMemberInput,
): Promise<MemberRow> {
  const at = ctx.now().toISOString()
  const caller = ctx.caller.user?.id ?? null
  if (current) {
    const updated = await updateMemberRow(db, current.id, {
      access_level: input.accessLevel,
      expires_at: input.expiresAt,
      created_by_id: current.created_by_id ?? caller,
      updated_at: at,
    })
    await noticeMembership(ctx, db, refOf(source), updated, 'update')
    return updated
  }
  if (stored) await deleteMemberRow(db, stored.id)
  const ref = refOf(source)
  // GL ProjectMember#post_create_hook: a new project member "joined", unless they hold the project's personal namespace.
  if (source.kind === 'project' && !isPersonalNamespaceHolder(source, user.id)) {
    await recordEvent(db, { projectId: source.project.id, authorId: user.id, action: 'joined', target: null, at: ctx.now() })
  }
  const inserted = await insertMember(db, {
    user_id: user.id,
    namespace_id: ref.kind === 'group' ? ref.id : null,
    project_id: ref.kind === 'project' ? ref.id : null,
    access_level: input.accessLevel,
    expires_at: input.expiresAt,
    created_by_id: caller,
    created_at: at,
    updated_at: at,
  })
  await noticeMembership(ctx, db, ref, inserted, 'add')
  return inserted
}

/** Ruby's `String#split(',')`: trailing empty fields are dropped, the others kept. */
function splitList(text: string): string[] {
  const parts = text.split(',')
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop()
  return [...new Set(parts)]
}

const EMAIL = /^[^@\s]+@[^@\s]+$/

/** The users a list names, in GitLab's order: those found by e-mail, then those by id or username. */
async function inviteesOf(ctx: Context, input: AddMemberInput): Promise<{ count: number; users: User[] }> {
  if (input.username !== undefined) {
    const users = await findUsersByUsernames(ctx.db, splitList(input.username))
    return { count: users.length, users }
  }
  const items = splitList(input.userId ?? '')
  const ids = items.filter((item) => /^\d+$/.test(item) && Number.isSafeInteger(Number(item))).map(Number)
  const emails = items.filter((item) => !/^\d+$/.test(item) && EMAIL.test(item))
  const byId = (await findUsersByIds(ctx.db, ids)).sort((a, b) => a.id - b.id)
  // Addresses of unknown users would be invitations, which are not offered; they are skipped like unknown ids.
  const byEmail = (await findUsersByEmails(ctx.db, emails)).filter((u) => !byId.some((other) => other.id === u.id))
  return { count: items.length, users: [...byEmail, ...byId] }
}

/** Adds or changes each user's membership in one transaction, collecting "<username>: <messages>" for those refused. */
async function writeMemberships(
  ctx: Context,
  source: MemberSource,
  users: User[],
  input: AddMemberInput,
): Promise<{ messages: string[]; unauthorized: boolean }> {
  return ctx.db.transaction().execute(async (trx) => {
    const messages: string[] = []
    let unauthorized = false
    for (const user of users) {
      const stored = await findMemberRow(trx, refOf(source), user.id)
      const current = stored !== undefined && !isExpired(stored, isoDate(ctx.now())) ? stored : undefined
      if (current && touchesProjectOwner(source, [current.access_level])) throw new Forbidden()
      const allowed = current ? await canUpdateMember(ctx, trx, source, current) : canManageMembers(source)
      let errors: ValidationErrors
      if (!allowed) {
        unauthorized = true
        // A refused new member is never given its attributes, so its missing level fails validation too.
        errors = { base: [current ? 'not authorized to update member' : 'not authorized to create member'] }
        if (!current) Object.assign(errors, await validationErrors(ctx, trx, source, user.id, null, null))
      } else {
        errors = await validationErrors(ctx, trx, source, user.id, input.accessLevel, input.expiresAt)
        if (!hasErrors(errors)) {
          const unchanged = current && current.access_level === input.accessLevel && current.expires_at === input.expiresAt
          if (!unchanged) await writeMembership(ctx, trx, source, user, current, stored, input)
          continue
        }
      }
      messages.push(`${user.username}: ${toSentence(fullMessages(errors))}`)
    }
    return { messages, unauthorized }
  })
}

/**
 * Several users at once (Members::CreateService): each is added, or changed when already a member; refusals and
 * validation failures are collected per user as "<username>: <messages>" and the others still saved.
 */
async function addMembers(ctx: Context, source: MemberSource, input: AddMemberInput): Promise<BulkResult> {
  if (input.accessLevel === AccessLevel.OWNER && !canManageOwners(source)) throw new Forbidden()
  const { count, users } = await inviteesOf(ctx, input)
  if (count === 0) return { message: 'No users specified.', status: 'error', reason: 'blank_invites_error' }
  if (count > INVITE_LIMIT) {
    return { message: `Too many users specified (limit is ${INVITE_LIMIT})`, status: 'error', reason: 'too_many_invites_error' }
  }
  // A request racing this one may add one of the users first; a second run then finds and changes that membership.
  const { messages, unauthorized } = await writeMemberships(ctx, source, users, input).catch((error: unknown) => {
    if (error instanceof DomainError) throw error
    return writeMemberships(ctx, source, users, input)
  })
  if (messages.length === 0) return { status: 'success' }
  const result: BulkResult = { message: toSentence(messages), status: 'error' }
  if (unauthorized) result.http_status = 'unauthorized'
  return result
}

// ---------------------------------------------------------------------------------------------
// Changing and removing (GL members.rb PUT and DELETE, Members::UpdateService, Members::DestroyService)

export interface UpdateMemberInput {
  accessLevel: number
  /** Absent: unchanged; null: never expires. */
  expiresAt?: string | null
}

/** PUT /:source/:id/members/:user_id. Nothing changed is not an error, and is not validated either. */
export async function updateMember(ctx: Context, source: MemberSource, userId: number, input: UpdateMemberInput): Promise<MemberView> {
  const row = await ctx.db.transaction().execute(async (trx) => {
    const member = await findCurrentMember(ctx, trx, source, userId)
    if (!member) throw new RecordNotFound()
    if (!(await canUpdateMember(ctx, trx, source, member))) throw new Forbidden()
    if (touchesProjectOwner(source, [input.accessLevel, member.access_level])) throw new Forbidden()
    const expiresAt = input.expiresAt === undefined ? member.expires_at : input.expiresAt
    if (member.access_level === input.accessLevel && member.expires_at === expiresAt) return member
    const errors = await validationErrors(ctx, trx, source, userId, input.accessLevel, expiresAt)
    if (hasErrors(errors)) throw new Invalid(errors)
    const updated = await updateMemberRow(trx, member.id, {
      access_level: input.accessLevel,
      expires_at: expiresAt,
      updated_at: ctx.now().toISOString(),
    })
    await noticeMembership(ctx, trx, refOf(source), updated, 'update')
    return updated
  })
  return viewOf(ctx, row)
}

export interface RemoveMemberInput {
  /** Keep the user's memberships of subgroups and projects below a group. */
  skipSubresources: boolean
  /** The client's If-Unmodified-Since: a membership changed after it is kept (`destroy_conditionally!`). */
  unmodifiedSince: Date | null
}

/** DELETE /:source/:id/members/:user_id: removing a group membership also removes the user's memberships below it. */
export async function removeMember(ctx: Context, source: MemberSource, userId: number, input: RemoveMemberInput): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const member = await findCurrentMember(ctx, trx, source, userId)
    if (!member) throw new RecordNotFound()
    if (input.unmodifiedSince && Date.parse(member.updated_at) > input.unmodifiedSince.getTime()) throw new PreconditionFailed()
    if (!(await canDestroyMember(ctx, trx, source, member))) throw new Forbidden()
    if (touchesProjectOwner(source, [member.access_level])) throw new Forbidden()
    await noticeMembership(ctx, trx, refOf(source), member, 'remove')
    await deleteMemberRow(trx, member.id)
    // GL ProjectMember#post_destroy_hook: the user "left" each project membership that goes.
    if (source.kind === 'project')
      await recordEvent(trx, { projectId: source.project.id, authorId: userId, action: 'left', target: null, at: ctx.now() })
    if (source.kind === 'group' && !input.skipSubresources) {
      // GL Members::DestroyService#delete_subresources: each membership below goes as its own removal.
      const below = await findMembershipsBelow(trx, source.group, userId)
      for (const row of below) {
        const ref: SourceRef =
          row.project_id !== null ? { kind: 'project', id: row.project_id } : { kind: 'group', id: row.namespace_id as number }
        await noticeMembership(ctx, trx, ref, row, 'remove')
      }
      await recordProjectsLeftBelow(trx, source.group, userId, ctx.now())
      const ids = below.map((row) => row.id)
      await deleteMemberRows(trx, ids)
    }
  })
}
