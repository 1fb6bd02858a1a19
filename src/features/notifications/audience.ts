import { canRead } from '../../core/access.js'
import type { Caller, User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { isoDate } from '../../core/time.js'
import type { Db } from '../../db/index.js'
import type { IssueRow, MergeRequestRow, NamespaceRow, NoteRow, ProjectRow, SubscribableType } from '../../db/schema.js'
import {
  canReadIssue,
  canReadMergeRequests,
  canReadNote,
  findIssueAssigneeIds,
  findNamespacesByIds,
  findProjectById,
  projectAccessFrom,
} from '../access/index.js'
import { mentionedNames } from './mentions.js'
import type { MailThread } from './messages.js'
import { Level, pickRecipients, type Candidate, type CandidateFacts, type NotificationReason } from './recipients.js'
import {
  findIssueRow,
  findLabelSubscriberIds,
  findMentionedUserIds,
  findMergeRequestPeopleIds,
  findMergeRequestRow,
  findNotesOf,
  findRecipientFacts,
  findSubscriberIds,
  type RecipientFactsRow,
  type RecipientUser,
} from './store.js'

// Who hears of an issue or a merge request (GL NotificationRecipients::Builder::Default and NewNote): its
// participants, the people its event names, its subscribers, and those who watch its project (or chose the event at
// Custom), each kept or not by NotificationRecipient's rules.

/** A project with what decides its notifications: its namespace, the groups above it and whether e-mail is off. */
export interface ProjectScope {
  project: ProjectRow
  namespace: NamespaceRow
  /** The groups from the top down to the project's own; none for a personal project. */
  groupIds: number[]
  /** GL Project#emails_disabled?: the project or a namespace above it turned e-mail off. */
  emailsDisabled: boolean
}

/** An issue or merge request about to be told of, with what its e-mails and their recipients need. */
export interface Thread extends ProjectScope {
  type: SubscribableType
  issue: IssueRow | null
  mergeRequest: MergeRequestRow | null
  authorId: number
  title: string
  description: string | null
  assigneeIds: number[]
  reviewerIds: number[]
  mail: MailThread
}

export interface Recipient {
  user: RecipientUser
  reason: NotificationReason | null
}

function idsIn(traversalIds: string): number[] {
  return traversalIds
    .split('/')
    .filter((part) => part !== '')
    .map(Number)
}

export async function loadProjectScope(db: Db, projectId: number): Promise<ProjectScope | null> {
  const [project] = await findProjectById(db, projectId)
  if (!project || project.pending_delete) return null
  const namespaces = await findNamespacesByIds(db, [project.namespace_id])
  const namespace = namespaces[0]
  if (!namespace) return null
  const chainIds = idsIn(namespace.traversal_ids)
  const chain = await findNamespacesByIds(db, chainIds)
  return {
    project,
    namespace,
    groupIds: namespace.kind === 'group' ? chainIds : [],
    emailsDisabled: project.emails_enabled === 0 || chain.some((row) => row.emails_enabled === 0),
  }
}

/** The group and the groups above it, for a membership of a group. */
export async function loadGroupScope(
  db: Db,
  groupId: number,
): Promise<{ group: NamespaceRow; groupIds: number[]; emailsDisabled: boolean } | null> {
  const [group] = await findNamespacesByIds(db, [groupId])
  if (!group || group.kind !== 'group' || group.pending_delete) return null
  const groupIds = idsIn(group.traversal_ids)
  const chain = await findNamespacesByIds(db, groupIds)
  return { group, groupIds, emailsDisabled: chain.some((row) => row.emails_enabled === 0) }
}

export async function loadThread(ctx: Context, db: Db, type: SubscribableType, id: number): Promise<Thread | null> {
  const issue = type === 'Issue' ? ((await findIssueRow(db, id)) ?? null) : null
  const mergeRequest = type === 'MergeRequest' ? ((await findMergeRequestRow(db, id)) ?? null) : null
  const row = issue ?? mergeRequest
  if (!row) return null
  const scope = await loadProjectScope(db, row.project_id)
  if (!scope) return null
  const kind = issue ? 'issue' : 'merge_request'
  const { project } = scope
  return {
    ...scope,
    type,
    issue,
    mergeRequest,
    authorId: row.author_id,
    title: row.title,
    description: row.description,
    assigneeIds: issue ? await findIssueAssigneeIds(db, id) : await findMergeRequestPeopleIds(db, 'assignees', id),
    reviewerIds: mergeRequest ? await findMergeRequestPeopleIds(db, 'reviewers', id) : [],
    mail: {
      kind,
      id: row.id,
      iid: row.iid,
      title: row.title,
      confidential: issue?.confidential === 1,
      project: { id: project.id, name: project.name, fullPath: project.full_path },
      url: `${ctx.config.externalUrl}/${project.full_path}/-/${kind === 'issue' ? 'issues' : 'merge_requests'}/${row.iid}`,
    },
  }
}

/** GL `receive_notifications`, `read_project` and the read ability of the target (a confidential issue, an internal note). */
function canReceive(ctx: Context, scope: ProjectScope, row: RecipientFactsRow, thread: Thread | null, note: NoteRow | null): boolean {
  if (row.state !== 'active' || row.bot === 1) return false
  if (!thread && !note) return true
  // The access policies read a caller's id and its admin and external flags, which the row has.
  const caller: Caller = { user: row as RecipientUser as User, credential: null, sudoFrom: null }
  const access = projectAccessFrom({ ...ctx, caller }, scope.project, scope.namespace, {
    projectLevel: row.project_level,
    groupLevel: row.group_level,
  })
  if (!canRead(access)) return false
  if (thread?.issue && !canReadIssue(access, scope.project, thread.issue, thread.assigneeIds)) return false
  if (thread?.mergeRequest && !canReadMergeRequests(access, scope.project)) return false
  return note === null || canReadNote(access, note)
}

function eventsOf(text: string | null): Record<string, unknown> {
  if (!text) return {}
  try {
    const parsed: unknown = JSON.parse(text)
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** GL Participable#participants: author, assignees, reviewers, everyone who wrote a note, everyone mentioned by a comment or the text. */
async function participantIds(db: Db, thread: Thread): Promise<number[]> {
  const notes = await findNotesOf(db, thread.type, thread.mail.id)
  const names = mentionedNames([thread.title, thread.description, ...notes.filter((note) => note.system !== 1).map((note) => note.body)])
  return [
    thread.authorId,
    ...thread.assigneeIds,
    ...thread.reviewerIds,
    ...notes.map((note) => Number(note.author_id)),
    ...(await findMentionedUserIds(db, names)),
  ]
}

/** The users a text mentions, as mention candidates (GL Builder::Base#add_mentions). */
export async function mentionCandidates(db: Db, texts: readonly (string | null)[]): Promise<Candidate[]> {
  const ids = await findMentionedUserIds(db, mentionedNames(texts))
  return ids.map((userId) => ({ userId, type: 'mention' as const, reason: 'mentioned' as const }))
}

export function candidatesOf(ids: readonly number[], type: Candidate['type'], reason: NotificationReason | null): Candidate[] {
  return ids.map((userId) => ({ userId, type, reason }))
}

export async function labelSubscriberCandidates(db: Db, thread: Thread): Promise<Candidate[]> {
  return candidatesOf(await findLabelSubscriberIds(db, thread.type, thread.mail.id, thread.project.id), 'subscription', 'subscribed')
}

/**
 * The recipients of an event on an issue or merge request: participants, watchers and Custom users of the event, its
 * subscribers, and `named` (what the event adds: mentions, new assignees…), each as GitLab's rules keep them.
 */
export async function threadRecipients(
  ctx: Context,
  db: Db,
  thread: Thread,
  options: { customAction: string; actorId: number | null; named: readonly Candidate[]; note?: NoteRow },
): Promise<Recipient[]> {
  const candidates: Candidate[] = [
    ...candidatesOf(await participantIds(db, thread), 'participating', null),
    ...options.named,
    ...candidatesOf(await findSubscriberIds(db, thread.type, thread.mail.id), 'subscription', 'subscribed'),
  ]
  const rows = await findRecipientFacts(db, {
    projectId: thread.project.id,
    groupIds: thread.groupIds,
    userIds: candidates.map((candidate) => candidate.userId),
    withLevelled: true,
    subscribable: { type: thread.type, id: thread.mail.id },
    today: isoDate(ctx.now()),
  })
  const facts = new Map<number, CandidateFacts>()
  const users = new Map<number, RecipientUser>()
  for (const row of rows) {
    const level = row.setting_level ?? Level.participating
    // Watchers and Custom users of the project (GL add_project_watchers, add_custom_notifications).
    if (level === Level.watch) candidates.push({ userId: row.id, type: 'watch', reason: null })
    if (level === Level.custom) candidates.push({ userId: row.id, type: 'custom', reason: null })
    users.set(row.id, row)
    facts.set(row.id, {
      hasAccess: canReceive(ctx, thread, row, thread, options.note ?? null),
      level,
      events: eventsOf(row.setting_events),
      unsubscribed: row.unsubscribed === 1,
    })
  }
  const audience = { customAction: options.customAction, actorId: options.actorId, emailsDisabled: thread.emailsDisabled }
  return pickRecipients(candidates, facts, audience).map(({ userId, reason }) => ({ user: users.get(userId)!, reason }))
}

/**
 * One user told of something about a project or group rather than a thread (GL NotificationService#notifiable? with
 * `:mention`): they can receive e-mail, their level there is not Disabled, and e-mail is on.
 */
export async function isNotifiableOfMention(
  ctx: Context,
  db: Db,
  userId: number,
  scope: { projectId: number | null; groupIds: readonly number[]; emailsDisabled: boolean },
): Promise<RecipientUser | null> {
  const [row] = await findRecipientFacts(db, {
    projectId: scope.projectId,
    groupIds: scope.groupIds,
    userIds: [userId],
    withLevelled: false,
    subscribable: null,
    today: isoDate(ctx.now()),
  })
  if (!row) return null
  const facts: CandidateFacts = {
    hasAccess: row.state === 'active' && row.bot === 0,
    level: row.setting_level ?? Level.participating,
    events: {},
    unsubscribed: false,
  }
  const audience = { customAction: 'member_access_granted', actorId: null, emailsDisabled: scope.emailsDisabled }
  return pickRecipients([{ userId, type: 'mention', reason: null }], new Map([[userId, facts]]), audience).length > 0 ? row : null
}
