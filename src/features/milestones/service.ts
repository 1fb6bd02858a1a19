import type { Context } from '../../core/context.js'
import { Forbidden, RecordNotFound, Rejected } from '../../core/errors.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import { allocateInternalId } from '../../db/internal-ids.js'
import type { MilestoneRow } from '../../db/schema.js'
import { detachEventsFromTarget, recordEvent } from '../event-log/index.js'
import { detachMilestoneFromIssuables } from '../issuables/index.js'
import {
  deleteMilestoneRow,
  findMilestoneInProject,
  insertMilestone,
  isMilestoneTitleTaken,
  selectIssueCountsByMilestone,
  selectMergeRequestCountsByMilestone,
  selectMilestones,
  updateMilestoneRow,
  type MilestoneFilters,
  type MilestoneOrder,
} from './store.js'
import {
  canAdminMilestones,
  canReadMilestones,
  readableIssuesCondition,
  readableMergeRequestsCondition,
  type LoadedProject,
} from '../access/index.js'

/** Largest id a row can have; larger ones are simply not found. */
const MAX_STORED_ID = 2147483647

const LATEST_DATE = '9999-12-31'

/** Dates as sortable text, years of five digits included. */
function dateKey(date: string): string {
  return date.padStart(11, '0')
}

/** GL `authorize! :read_milestone, user_project`: 403 for a project the caller sees without its milestones. */
export function authorizeReadMilestones(loaded: LoadedProject) {
  if (!canReadMilestones(loaded.access, loaded.project)) throw new Forbidden()
}

function authorizeAdmin(loaded: LoadedProject) {
  if (!canAdminMilestones(loaded.access, loaded.project)) throw new Forbidden()
}

export interface MilestoneListInput extends MilestoneFilters {
  page: number
  perPage: number
  /** Newest first unless told. */
  order?: MilestoneOrder
}

export async function listMilestones(ctx: Context, loaded: LoadedProject, input: MilestoneListInput): Promise<OffsetPage<MilestoneRow>> {
  authorizeReadMilestones(loaded)
  const query = selectMilestones(ctx.db, loaded.project.id, input, input.order)
  return fetchOffsetPage(ctx.db, query, input.page, input.perPage)
}

/** A milestone's issues and merge requests as one caller sees them (GL Milestone#total_issues_count & co.). */
export interface MilestoneProgress {
  issues: number
  closedIssues: number
  mergeRequests: number
  /** GL Milestone#percent_complete: closed issues of all, rounded down; 0 without issues. */
  percentComplete: number
}

/** The progress of each milestone, counted in two grouped queries over what the caller may read (GL IssuesFinder, MergeRequestsFinder). */
export async function milestoneProgress(
  ctx: Context,
  loaded: LoadedProject,
  milestoneIds: readonly number[],
): Promise<Map<number, MilestoneProgress>> {
  authorizeReadMilestones(loaded)
  const progress = new Map<number, MilestoneProgress>(
    milestoneIds.map((id) => [id, { issues: 0, closedIssues: 0, mergeRequests: 0, percentComplete: 0 }]),
  )
  if (milestoneIds.length === 0) return progress
  const [issues, mergeRequests] = await Promise.all([
    selectIssueCountsByMilestone(ctx.db, milestoneIds)
      .where((eb) => readableIssuesCondition(ctx, eb))
      .execute(),
    selectMergeRequestCountsByMilestone(ctx.db, milestoneIds)
      .where((eb) => readableMergeRequestsCondition(ctx, eb))
      .execute(),
  ])
  for (const row of issues) {
    const entry = progress.get(Number(row.milestone_id))
    if (!entry) continue
    entry.issues += Number(row.count)
    if (row.state === 'closed') entry.closedIssues += Number(row.count)
  }
  for (const row of mergeRequests) {
    const entry = progress.get(Number(row.milestone_id))
    if (entry) entry.mergeRequests += Number(row.count)
  }
  for (const entry of progress.values()) {
    entry.percentComplete = entry.issues === 0 ? 0 : Math.floor((entry.closedIssues * 100) / entry.issues)
  }
  return progress
}

/** A project's milestone by its global id (GL `parent.milestones.find`): "404 Not found" otherwise. */
export async function findMilestone(ctx: Context, loaded: LoadedProject, milestoneId: number): Promise<MilestoneRow> {
  const milestone =
    milestoneId >= 1 && milestoneId <= MAX_STORED_ID ? await findMilestoneInProject(ctx.db, loaded.project.id, milestoneId) : undefined
  if (!milestone) throw new RecordNotFound()
  return milestone
}

export async function showMilestone(ctx: Context, loaded: LoadedProject, milestoneId: number): Promise<MilestoneRow> {
  authorizeReadMilestones(loaded)
  return findMilestone(ctx, loaded, milestoneId)
}

/**
 * A milestone the model refused: the API answers its message (GitLab's "Failed to … milestone {…}"), a page shows
 * each attribute's messages beside its field.
 */
export class InvalidMilestone extends Rejected {
  constructor(
    message: string,
    readonly errors: Record<string, string[]>,
  ) {
    super(message)
  }
}

/** Ruby's Hash#inspect of a model's error messages, as GitLab writes them into "Failed to … milestone {…}". */
function inspectErrors(errors: Record<string, string[]>): string {
  const entries = Object.entries(errors).map(([key, messages]) => `:${key}=>[${messages.map((m) => JSON.stringify(m)).join(', ')}]`)
  return `{${entries.join(', ')}}`
}

/** GL Timebox#sanitize_title: markup removed, entities read back as text. */
function sanitizeTitle(value: string): string {
  const stripped = value.replace(/<!--[\s\S]*?-->/g, '').replace(/<\/?[a-zA-Z][^>]*>/g, '')
  return stripped
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
}

/**
 * A date as the model's date column reads a string: 'YYYY-MM-DD' (or the date part of a time), a blank or
 * unreadable one is nil, as Rails casts it.
 */
export function dateOf(value: string): string | null {
  const match = /^\s*(\d{4,5})-(\d{1,2})-(\d{1,2})(?:[T\s].*)?$/.exec(value)
  if (!match) return null
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const check = new Date(Date.UTC(2000, month - 1, day))
  check.setUTCFullYear(year)
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`
}

interface MilestoneAttributes {
  title: string | null
  startDate: string | null
  dueDate: string | null
}

/** GL Milestone and Timebox validations, in their order: title, then the dates. */
async function validate(ctx: Context, projectId: number, attributes: MilestoneAttributes, titleChangedFrom: number | null | false) {
  const errors: Record<string, string[]> = {}
  const add = (key: string, message: string) => (errors[key] ??= []).push(message)
  const { title, startDate, dueDate } = attributes
  if (title === null || title.trim() === '') add('title', "can't be blank")
  else if (titleChangedFrom !== false && (await isMilestoneTitleTaken(ctx.db, projectId, title, titleChangedFrom))) {
    add('title', 'already being used for another group or project milestone.')
  }
  if (startDate !== null && dueDate !== null && dateKey(dueDate) <= dateKey(startDate)) add('due_date', 'must be greater than start date')
  if (startDate !== null && dateKey(startDate) > dateKey(LATEST_DATE)) add('start_date', 'date must not be after 9999-12-31')
  if (dueDate !== null && dateKey(dueDate) > dateKey(LATEST_DATE)) add('due_date', 'date must not be after 9999-12-31')
  return errors
}

export interface CreateMilestoneInput {
  title: string
  description: string | undefined
  dueDate: string | undefined
  startDate: string | undefined
}

/** GL Milestones::CreateService: the milestone, its next iid and its "created" event in one write. */
export async function createMilestone(ctx: Context, loaded: LoadedProject, input: CreateMilestoneInput): Promise<MilestoneRow> {
  authorizeAdmin(loaded)
  const user = ctx.caller.user!
  const project = loaded.project
  // Timebox#title= writes only a present value.
  const title = input.title.trim() === '' ? null : sanitizeTitle(input.title)
  const attributes = {
    title,
    startDate: input.startDate === undefined ? null : dateOf(input.startDate),
    dueDate: input.dueDate === undefined ? null : dateOf(input.dueDate),
  }
  const errors = await validate(ctx, project.id, attributes, null)
  if (Object.keys(errors).length > 0) throw new InvalidMilestone(`Failed to create milestone ${inspectErrors(errors)}`, errors)
  const now = ctx.now()
  return ctx.db.transaction().execute(async (trx) => {
    const milestone = await insertMilestone(trx, {
      project_id: project.id,
      iid: await allocateInternalId(trx, project.id, 'milestones'),
      title: attributes.title!,
      description: input.description ?? null,
      state: 'active',
      start_date: attributes.startDate,
      due_date: attributes.dueDate,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    })
    await recordEvent(trx, {
      projectId: project.id,
      authorId: user.id,
      action: 'created',
      target: { type: 'Milestone', id: milestone.id },
      at: now,
    })
    return milestone
  })
}

export interface UpdateMilestoneInput {
  title: string | undefined
  description: string | undefined
  dueDate: string | undefined
  startDate: string | undefined
  stateEvent: 'close' | 'activate' | undefined
}

/**
 * GL Milestones::UpdateService: close or activate (each recording its event when the state changes), then the
 * attributes. Unlike GitLab, a refused update changes nothing: the state moves only when the attributes are valid.
 */
export async function updateMilestone(
  ctx: Context,
  loaded: LoadedProject,
  milestoneId: number,
  input: UpdateMilestoneInput,
): Promise<MilestoneRow> {
  authorizeAdmin(loaded)
  const user = ctx.caller.user!
  const milestone = await findMilestone(ctx, loaded, milestoneId)
  const title = input.title === undefined || input.title.trim() === '' ? milestone.title : sanitizeTitle(input.title)
  const attributes = {
    title,
    startDate: input.startDate === undefined ? milestone.start_date : dateOf(input.startDate),
    dueDate: input.dueDate === undefined ? milestone.due_date : dateOf(input.dueDate),
  }
  const errors = await validate(ctx, milestone.project_id, attributes, title !== milestone.title ? milestone.id : false)
  if (Object.keys(errors).length > 0) throw new InvalidMilestone(`Failed to update milestone ${inspectErrors(errors)}`, errors)
  const changes: Parameters<typeof updateMilestoneRow>[2] = {}
  if (title !== milestone.title) changes.title = title
  if (input.description !== undefined && input.description !== milestone.description) changes.description = input.description
  if (attributes.startDate !== milestone.start_date) changes.start_date = attributes.startDate
  if (attributes.dueDate !== milestone.due_date) changes.due_date = attributes.dueDate
  const transition =
    input.stateEvent === 'close' && milestone.state === 'active'
      ? ('closed' as const)
      : input.stateEvent === 'activate' && milestone.state === 'closed'
        ? ('reopened' as const)
        : null
  if (transition) changes.state = transition === 'closed' ? 'closed' : 'active'
  if (Object.keys(changes).length === 0) return milestone
  const now = ctx.now()
  changes.updated_at = now.toISOString()
  return ctx.db.transaction().execute(async (trx) => {
    const updated = await updateMilestoneRow(trx, milestone.id, changes)
    if (transition) {
      await recordEvent(trx, {
        projectId: milestone.project_id,
        authorId: user.id,
        action: transition,
        target: { type: 'Milestone', id: milestone.id },
        at: now,
      })
    }
    return updated
  })
}

/** GL Milestones::DestroyService: off its issues and merge requests, removed, a "destroyed" event; its events lose their target. */
export async function deleteMilestone(ctx: Context, loaded: LoadedProject, milestoneId: number): Promise<void> {
  authorizeAdmin(loaded)
  const user = ctx.caller.user!
  const milestone = await findMilestone(ctx, loaded, milestoneId)
  const now = ctx.now()
  await ctx.db.transaction().execute(async (trx) => {
    await detachMilestoneFromIssuables(trx, milestone.id, now)
    await deleteMilestoneRow(trx, milestone.id)
    await recordEvent(trx, {
      projectId: milestone.project_id,
      authorId: user.id,
      action: 'destroyed',
      target: { type: 'Milestone', id: milestone.id },
      at: now,
    })
    await detachEventsFromTarget(trx, { type: 'Milestone', id: milestone.id })
  })
}
