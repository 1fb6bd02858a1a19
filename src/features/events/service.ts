import { AccessLevel } from '../../core/access.js'
import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { isoDate } from '../../core/time.js'
import { fetchKeysetPage, fetchOffsetPage, type KeysetPage, type KeysetPosition, type OffsetPage } from '../../db/pagination.js'
import type { EventRow, IssueRow, NamespaceRow, NoteRow, ProjectRow, PushEventPayloadRow } from '../../db/schema.js'
import {
  canReadEvent,
  canReadUserEvents,
  type EventTargetFacts,
  findNamespacesByIds,
  findProjectsByIds,
  type LoadedProject,
  type ProjectAccess,
  projectAccessFrom,
  projectsWithRoleCondition,
  visibleProjectsCondition,
} from '../access/index.js'
import { findUsersByIds } from '../users/index.js'
import { EventAction, TARGET_CLASS_NAMES, type EventActionName } from '../../core/event-actions.js'
import {
  findAssigneeIdsOfIssues,
  findIssuesByIds,
  findMembershipsOfUser,
  findMergeRequestsByIds,
  findMilestonesByIds,
  findNotesByIds,
  findPushEventPayloads,
  selectEvents,
  type EventFilters,
} from './store.js'

export interface EventListInput {
  action?: EventActionName
  /** A key of GL Event::TARGET_TYPES: issue, merge_request, note, … */
  targetType?: string
  /** `YYYY-MM-DD`: events of earlier days only. */
  before?: string
  /** `YYYY-MM-DD`: events of later days only. */
  after?: string
  sort: 'asc' | 'desc'
  pagination: { kind: 'offset'; page: number; perPage: number } | { kind: 'keyset'; perPage: number; after: KeysetPosition | null }
}

type EventPage = { kind: 'offset'; page: OffsetPage<EventRow> } | { kind: 'keyset'; page: KeysetPage<EventRow> }

/** Everything a page of events shows besides the rows, each kind loaded once for the page. */
export interface EventTargets {
  projects: Map<number, { project: ProjectRow; access: ProjectAccess }>
  users: Map<number, User>
  issues: Map<number, IssueRow>
  issueAssignees: Map<number, number[]>
  mergeRequests: Map<number, { id: number; project_id: number; iid: number; title: string }>
  milestones: Map<number, { id: number; project_id: number; iid: number; title: string }>
  notes: Map<number, NoteRow>
  /** Push events' payloads by event id. */
  pushPayloads: Map<number, PushEventPayloadRow>
}

/** A page of events: what the headers describe (every matching row) and the rows the caller may see. */
export interface EventList {
  page: EventPage
  visible: EventRow[]
  targets: EventTargets
}

/**
 * The filters of GL EventsFinder: `before` and `after` exclude the whole day they name (`beginning_of_day`,
 * `end_of_day`, in UTC, the server's zone).
 */
function filtersOf(input: EventListInput): EventFilters {
  return {
    action: input.action === undefined ? undefined : EventAction[input.action],
    targetType: input.targetType === undefined ? undefined : TARGET_CLASS_NAMES[input.targetType],
    createdBefore: input.before === undefined ? undefined : `${input.before}T00:00:00.000Z`,
    createdAfter: input.after === undefined ? undefined : `${input.after}T23:59:59.999Z`,
  }
}

/** GET /projects/:id/events: the project's events the caller may see. */
export async function listProjectEvents(ctx: Context, loaded: LoadedProject, input: EventListInput): Promise<EventList> {
  const query = selectEvents(ctx.db, { ...filtersOf(input), projectId: loaded.project.id })
  const known = new Map([[loaded.project.id, { project: loaded.project, access: loaded.access }]])
  return pageOf(ctx, query, input, known)
}

/** GET /users/:id/events: the user's events in projects the caller may see; none when their profile is private. */
export async function listUserEvents(ctx: Context, user: User, input: EventListInput): Promise<EventList> {
  if (!canReadUserEvents(ctx.caller, user)) return emptyList(input)
  const query = selectEvents(ctx.db, {
    ...filtersOf(input),
    authorId: user.id,
    projects: (eb) => visibleProjectsCondition(ctx, eb),
  })
  return pageOf(ctx, query, input, new Map())
}

/** GET /events: the caller's own events, or with `scope=all` every event of the projects they are a member of. */
export async function listOwnEvents(ctx: Context, scope: string | undefined, input: EventListInput): Promise<EventList> {
  const user = ctx.caller.user as User
  const filters: EventFilters =
    scope === 'all'
      ? {
          ...filtersOf(input),
          projects: (eb) => eb.and([projectsWithRoleCondition(ctx, eb, AccessLevel.GUEST), visibleProjectsCondition(ctx, eb)]),
        }
      : { ...filtersOf(input), authorId: user.id, projects: (eb) => visibleProjectsCondition(ctx, eb) }
  return pageOf(ctx, selectEvents(ctx.db, filters), input, new Map())
}

function emptyList(input: EventListInput): EventList {
  const targets = emptyTargets(new Map())
  if (input.pagination.kind === 'keyset')
    return { page: { kind: 'keyset', page: { rows: [], last: null, first: null } }, visible: [], targets }
  const { page, perPage } = input.pagination
  return { page: { kind: 'offset', page: { rows: [], page, perPage, total: 0, hasNext: false } }, visible: [], targets }
}

/** Pages by id, then hides the events the caller may not see (GL EventsFinder filters after paging, so a page can run short). */
async function pageOf(
  ctx: Context,
  query: ReturnType<typeof selectEvents>,
  input: EventListInput,
  knownProjects: EventTargets['projects'],
): Promise<EventList> {
  const { pagination } = input
  const page: EventPage =
    pagination.kind === 'keyset'
      ? {
          kind: 'keyset',
          page: await fetchKeysetPage(query, { column: 'id', direction: input.sort, after: pagination.after, perPage: pagination.perPage }),
        }
      : { kind: 'offset', page: await fetchOffsetPage(ctx.db, query.orderBy('id', input.sort), pagination.page, pagination.perPage) }
  const rows = page.page.rows
  const targets = await loadTargets(ctx, rows, knownProjects)
  const visible = rows.filter((row) => {
    const facts = factsOf(row, targets)
    return facts !== null && canReadEvent(row, facts)
  })
  return { page, visible, targets }
}

function emptyTargets(projects: EventTargets['projects']): EventTargets {
  return {
    projects,
    users: new Map(),
    issues: new Map(),
    issueAssignees: new Map(),
    mergeRequests: new Map(),
    milestones: new Map(),
    notes: new Map(),
    pushPayloads: new Map(),
  }
}

function idsOf(rows: readonly EventRow[], type: string): number[] {
  return [...new Set(rows.filter((row) => row.target_type === type && row.target_id !== null).map((row) => row.target_id as number))]
}

const byId = <T extends { id: number }>(rows: readonly T[]) => new Map(rows.map((row) => [row.id, row]))

/** Loads a page's projects, authors and targets in a fixed number of queries, whatever the page holds. */
async function loadTargets(ctx: Context, rows: readonly EventRow[], knownProjects: EventTargets['projects']): Promise<EventTargets> {
  const targets = emptyTargets(new Map(knownProjects))
  if (rows.length === 0) return targets
  const projectIds = [...new Set(rows.map((row) => row.project_id).filter((id): id is number => id !== null && !knownProjects.has(id)))]
  const [notes] = await Promise.all([findNotesByIds(ctx.db, idsOf(rows, 'Note')), loadProjects(ctx, projectIds, targets.projects)])
  targets.notes = byId(notes)
  const issueIds = new Set([...idsOf(rows, 'Issue'), ...notes.flatMap((note) => (note.issue_id === null ? [] : [note.issue_id]))])
  const mergeRequestIds = new Set([
    ...idsOf(rows, 'MergeRequest'),
    ...notes.flatMap((note) => (note.merge_request_id === null ? [] : [note.merge_request_id])),
  ])
  const userIds = new Set([...rows.map((row) => row.author_id), ...notes.map((note) => note.author_id)])
  const pushIds = rows.filter((row) => row.action === EventAction.pushed).map((row) => row.id)
  const [issues, mergeRequests, milestones, users, pushPayloads] = await Promise.all([
    findIssuesByIds(ctx.db, [...issueIds]),
    findMergeRequestsByIds(ctx.db, [...mergeRequestIds]),
    findMilestonesByIds(ctx.db, idsOf(rows, 'Milestone')),
    findUsersByIds(ctx.db, [...userIds]),
    findPushEventPayloads(ctx.db, pushIds),
  ])
  targets.pushPayloads = new Map(pushPayloads.map((payload) => [Number(payload.event_id), payload]))
  targets.issues = byId(issues)
  targets.mergeRequests = byId(mergeRequests)
  targets.milestones = byId(milestones)
  targets.users = byId(users)
  const confidential = issues.filter((issue) => issue.confidential === 1).map((issue) => issue.id)
  targets.issueAssignees = await findAssigneeIdsOfIssues(ctx.db, confidential)
  return targets
}

/** Projects with the caller's access to each, from their memberships read once for the page. */
async function loadProjects(ctx: Context, ids: number[], into: EventTargets['projects']): Promise<void> {
  if (ids.length === 0) return
  const projects = await findProjectsByIds(ctx.db, ids)
  const user = ctx.caller.user
  const [namespaces, memberships] = await Promise.all([
    findNamespacesByIds(ctx.db, [...new Set(projects.map((project) => project.namespace_id))]),
    user ? findMembershipsOfUser(ctx.db, user.id, ids, isoDate(ctx.now())) : Promise.resolve(null),
  ])
  const namespaceById = new Map<number, NamespaceRow>(namespaces.map((namespace) => [namespace.id, namespace]))
  const projectLevels = new Map(memberships?.projects.map((m) => [m.projectId, m.accessLevel]) ?? [])
  for (const project of projects) {
    const namespace = namespaceById.get(project.namespace_id)
    if (!namespace) continue
    let groupLevel: number | null = null
    for (const m of memberships?.groups ?? []) {
      if (namespace.traversal_ids.startsWith(m.traversal_ids)) groupLevel = Math.max(groupLevel ?? 0, m.access_level)
    }
    const access = projectAccessFrom(ctx, project, namespace, { projectLevel: projectLevels.get(project.id) ?? null, groupLevel })
    into.set(project.id, { project, access })
  }
}

function factsOf(row: EventRow, targets: EventTargets): EventTargetFacts | null {
  const scope = row.project_id === null ? undefined : targets.projects.get(row.project_id)
  if (!scope) return null
  const facts: EventTargetFacts = { project: scope.project, access: scope.access }
  const id = row.target_id
  if (id === null) return facts
  let issueId: number | null = null
  let mergeRequestId: number | null = null
  if (row.target_type === 'Issue') issueId = id
  else if (row.target_type === 'MergeRequest') mergeRequestId = id
  else if (row.target_type === 'Milestone') facts.milestone = targets.milestones.get(id)
  else if (row.target_type === 'Note') {
    facts.note = targets.notes.get(id)
    issueId = facts.note?.issue_id ?? null
    mergeRequestId = facts.note?.merge_request_id ?? null
  }
  if (issueId !== null) {
    facts.issue = targets.issues.get(issueId)
    facts.issueAssigneeIds = targets.issueAssignees.get(issueId)
  }
  if (mergeRequestId !== null) facts.mergeRequest = targets.mergeRequests.get(mergeRequestId)
  return facts
}
