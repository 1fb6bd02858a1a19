import { randomBytes } from 'node:crypto'
import { AccessLevel } from '../../core/access.js'
import { anonymous } from '../../core/caller.js'
import { NotFound, Unauthorized } from '../../core/errors.js'
import type { Change, FieldChanges } from '../../core/changes.js'
import type { Context } from '../../core/context.js'
import { isoTimestamp } from '../../core/time.js'
import type { Db } from '../../db/index.js'
import type { MergeRequestRow, NewSentNotificationRow, NoteRow, SubscribableType, UserRow } from '../../db/schema.js'
import { mailIdentity, queueMails, type OutgoingMail } from '../mail/index.js'
import { renderMarkdownField } from '../markdown/index.js'
import { git, projectRepositoryDirectory } from '../repositories/index.js'
import { findIssue, findMergeRequest, findProject, findProjectById } from '../access/index.js'
import { html, Html } from '../../web/html.js'
import {
  candidatesOf,
  isNotifiableOfMention,
  labelSubscriberCandidates,
  loadGroupScope,
  loadProjectScope,
  loadThread,
  mentionCandidates,
  threadRecipients,
  type Recipient,
  type Thread,
} from './audience.js'
import {
  joinBodies,
  link,
  markdownBody,
  messageIdOf,
  paragraph,
  projectHeaders,
  referenceOf,
  renderMail,
  sanitizeName,
  senderAddress,
  sentenceOf,
  subjectOf,
  threadSubject,
  type Body,
  type MailPerson,
} from './messages.js'
import type { Candidate } from './recipients.js'
import {
  findAlertRow,
  findEarlierNoteIds,
  findMaintainerIds,
  findNoteRow,
  findSentNotification,
  findUserRow,
  findUserRows,
  insertSentNotifications,
  findSubscription,
  saveSubscription,
} from './store.js'

// The e-mail notifications of a change (GL NotificationService): who is told, and what each e-mail says, queued in the
// change's transaction.

/** GL NotificationService::NEW_COMMIT_EMAIL_DISPLAY_LIMIT. */
const NEW_COMMITS_SHOWN = 20

/** One address, as the outbox takes it: anything else is left unsent rather than failing the change. */
const SINGLE_ADDRESS = /^[^\s@<>",;:]+@[^\s@<>",;:]+$/

/** User#notification_email_for: the chosen notification address, else the primary one. */
function notificationEmailOf(user: Pick<UserRow, 'email' | 'notification_email'>): string | null {
  const address = user.notification_email && user.notification_email.trim() !== '' ? user.notification_email : user.email
  return SINGLE_ADDRESS.test(address) ? address : null
}

/** `Minimal Access`, `Developer`…: an access level's name (Gitlab::Access human_access). */
function roleNameOf(level: number): string {
  const [name] = Object.entries(AccessLevel).find(([, value]) => value === level) ?? [String(level)]
  return name
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ')
}

/** The ids a change's `previous` or `current` list of users holds: GitLab's user hashes, or bare ids. */
function userIdsIn(value: unknown): number[] {
  if (!Array.isArray(value)) return []
  return value
    .map((entry) => (typeof entry === 'number' ? entry : (entry as { id?: unknown } | null)?.id))
    .filter((id): id is number => typeof id === 'number' && Number.isSafeInteger(id))
}

function changed(changes: FieldChanges, field: string): { previous: unknown; current: unknown } | null {
  return Object.hasOwn(changes, field) ? changes[field] : null
}

function personOf(user: UserRow | undefined): MailPerson {
  return user ? { name: user.name, username: user.username } : { name: 'Ghost User', username: 'ghost' }
}

/** Markdown as a mail's HTML shows it: rendered as anyone may see it, so no reference reveals what a reader may not. */
async function renderedMarkdown(ctx: Context, db: Db, text: string | null) {
  if (!text || text.trim() === '') return null
  const reader: Context = { ...ctx, db, caller: anonymous }
  const rendered = (await renderMarkdownField(reader, text)).html
  // Mail clients read no stylesheet: code blocks wrap by their own style rather than widen the message.
  return markdownBody(text, new Html(rendered.replace(/<pre(?=[\s>])/g, '<pre style="white-space:pre-wrap;overflow-wrap:anywhere;"')))
}

/** What one event says in a thread: the same words to everyone; who and why vary per recipient. */
interface ThreadEvent {
  thread: Thread
  recipients: Recipient[]
  actor: UserRow | undefined
  /** The first message of the thread (a new issue or merge request), or an answer to it. */
  threading: { kind: 'new' } | { kind: 'answer' } | { kind: 'note'; note: NoteRow; references: string[] }
  body: Body
  targetUrl: string
}

/** Notify#mail_new_thread, #mail_answer_thread and #mail_answer_note_thread, with the sent notification each records. */
async function threadMails(ctx: Context, db: Db, event: ThreadEvent): Promise<OutgoingMail[]> {
  const { thread, threading } = event
  const identity = mailIdentity(ctx)
  const modelHeader = thread.mail.kind === 'issue' ? 'Issue' : 'MergeRequest'
  const threadId = messageIdOf(thread.mail.kind, thread.mail.id, identity.host)
  const subject = threadSubject(thread.mail)
  const common: Record<string, string> = {
    From: senderAddress(personOf(event.actor), ctx.config.emailFrom),
    ...projectHeaders(thread.mail.project, identity.host),
    [`X-GitLab-${modelHeader}-ID`]: String(thread.mail.id),
    [`X-GitLab-${modelHeader}-IID`]: String(thread.mail.iid),
  }
  if (thread.issue) common['X-GitLab-ConfidentialIssue'] = String(thread.mail.confidential)
  if (threading.kind === 'note') {
    common['Message-ID'] = messageIdOf('note', threading.note.id, identity.host)
    common['In-Reply-To'] = threading.references[threading.references.length - 1]
    common['References'] = threading.references.join(' ')
    if (threading.note.discussion_id) common['X-GitLab-Discussion-ID'] = threading.note.discussion_id
  } else if (threading.kind === 'answer') {
    common['In-Reply-To'] = threadId
    common['References'] = threadId
  } else {
    common['Message-ID'] = threadId
  }
  const recipients = event.recipients.filter((recipient) => notificationEmailOf(recipient.user) !== null)
  const keys = randomBytes(16 * recipients.length).toString('hex')
  const at = isoTimestamp(ctx.now())
  const sent: NewSentNotificationRow[] = []
  const mails = recipients.map((recipient, index): OutgoingMail => {
    const replyKey = keys.slice(index * 32, index * 32 + 32)
    const unsubscribeUrl = `${ctx.config.externalUrl}/-/sent_notifications/${replyKey}/unsubscribe`
    sent.push({
      reply_key: replyKey,
      recipient_id: recipient.user.id,
      project_id: thread.project.id,
      noteable_type: thread.type,
      noteable_id: thread.mail.id,
      in_reply_to_discussion_id: threading.kind === 'note' ? threading.note.discussion_id : null,
      created_at: at,
    })
    const headers: Record<string, string> = {
      ...common,
      'X-GitLab-Reply-Key': replyKey,
      'List-Unsubscribe': `<${unsubscribeUrl}?force=true>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    }
    if (recipient.reason) headers['X-GitLab-NotificationReason'] = recipient.reason
    const fullSubject = threading.kind === 'new' ? subject : `Re: ${subject}`
    const { text, html: page } = renderMail(ctx, fullSubject, event.body, {
      host: identity.host,
      reason: recipient.reason,
      targetUrl: event.targetUrl,
      unsubscribeUrl,
    })
    return { to: notificationEmailOf(recipient.user)!, toUserId: recipient.user.id, subject: fullSubject, text, html: page, headers }
  })
  await insertSentNotifications(db, sent)
  return mails
}

function namesOf(users: ReadonlyMap<number, UserRow>, ids: readonly number[]): string[] {
  return ids.map((id) => sanitizeName(users.get(id)?.name ?? 'Ghost User'))
}

/** `Assignee: A` or `Assignees: A and B` (MergeRequestsHelper#assignees_label), empty without any. */
function peopleLine(label: string, names: readonly string[]): string | null {
  if (names.length === 0) return null
  return `${label}${names.length > 1 ? 's' : ''}: ${sentenceOf(names)}`
}

/** MergeRequestsHelper#merge_path_description: the branches, with the projects when they differ. */
async function branchesLine(db: Db, mergeRequest: MergeRequestRow, targetPath: string): Promise<string> {
  const sourceId = mergeRequest.source_project_id
  if (sourceId === null || sourceId === mergeRequest.project_id)
    return `Branches: ${mergeRequest.source_branch} to ${mergeRequest.target_branch}`
  const [source] = await findProjectById(db, sourceId)
  const sourcePath = source?.full_path ?? '(removed)'
  return `Project:Branches: ${sourcePath}:${mergeRequest.source_branch} to ${targetPath}:${mergeRequest.target_branch}`
}

/** The lines under a merge request's e-mails: branches, author, assignees, reviewers. */
async function mergeRequestFacts(db: Db, thread: Thread, users: ReadonlyMap<number, UserRow>): Promise<Body> {
  const lines = [
    await branchesLine(db, thread.mergeRequest!, thread.project.full_path),
    `Author: ${namesOf(users, [thread.authorId])[0]}`,
    peopleLine('Assignee', namesOf(users, thread.assigneeIds)),
    peopleLine('Reviewer', namesOf(users, thread.reviewerIds)),
  ].filter((line): line is string => line !== null)
  return { text: lines.join('\n'), html: html`<p>${lines.map((line, index) => html`${index > 0 ? html`<br>` : ''}${line}`)}</p>` }
}

async function usersOf(db: Db, ids: readonly number[]): Promise<Map<number, UserRow>> {
  return new Map((await findUserRows(db, ids)).map((user) => [Number(user.id), user]))
}

/** The standard recipients of an event and its mails (Builder::Default with GitLab's action). */
async function tellThread(
  ctx: Context,
  db: Db,
  thread: Thread,
  options: {
    action: string
    actorId: number
    named?: Candidate[]
    threading: ThreadEvent['threading']
    body: Body
    only?: ReadonlySet<number>
  },
): Promise<OutgoingMail[]> {
  const customAction = `${options.action}_${thread.mail.kind}`
  let recipients = await threadRecipients(ctx, db, thread, { customAction, actorId: options.actorId, named: options.named ?? [] })
  if (options.only) recipients = recipients.filter((recipient) => options.only!.has(recipient.user.id))
  if (recipients.length === 0) return []
  const actor = await findUserRow(db, options.actorId)
  return threadMails(ctx, db, { thread, recipients, actor, threading: options.threading, body: options.body, targetUrl: thread.mail.url })
}

/** new_issue_email and new_merge_request_email, to the thread's first message. */
async function newThreadMails(ctx: Context, db: Db, thread: Thread): Promise<OutgoingMail[]> {
  const users = await usersOf(db, [thread.authorId, ...thread.assigneeIds, ...thread.reviewerIds])
  const author = sanitizeName(users.get(thread.authorId)?.name ?? 'Ghost User')
  const description = await renderedMarkdown(ctx, db, thread.description)
  const kindName = thread.mail.kind === 'issue' ? 'an issue' : 'a merge request'
  const intro = paragraph(
    `${author} created ${kindName}: ${thread.mail.url}`,
    html`${author} created ${kindName}: ${link(thread.mail.url)}`,
  )
  const facts =
    thread.mail.kind === 'issue'
      ? (() => {
          const line = peopleLine('Assignee', namesOf(users, thread.assigneeIds))
          return line ? paragraph(line) : null
        })()
      : await mergeRequestFacts(db, thread, users)
  const named = [
    ...(await mentionCandidates(db, [thread.title, thread.description])),
    ...candidatesOf(thread.assigneeIds, 'participating', 'assigned'),
    ...(await labelSubscriberCandidates(db, thread)),
  ]
  return tellThread(ctx, db, thread, {
    action: 'new',
    actorId: thread.authorId,
    named,
    threading: { kind: 'new' },
    body: joinBodies([intro, facts, description]),
  })
}

/** new_mention_in_issue_email and new_mention_in_merge_request_email: to those an edit newly mentions. */
async function newMentionMails(ctx: Context, db: Db, thread: Thread, actorId: number, changes: FieldChanges): Promise<OutgoingMail[]> {
  const previousText = (field: string, current: string | null) => {
    const change = changed(changes, field)
    return change ? (typeof change.previous === 'string' ? change.previous : null) : current
  }
  const before = await mentionCandidates(db, [previousText('title', thread.title), previousText('description', thread.description)])
  const previous = new Set(before.map((candidate) => candidate.userId))
  const mentioned = (await mentionCandidates(db, [thread.title, thread.description])).filter((candidate) => !previous.has(candidate.userId))
  if (mentioned.length === 0) return []
  const kindName = thread.mail.kind === 'issue' ? 'an issue' : 'a merge request'
  const description = await renderedMarkdown(ctx, db, thread.description)
  return tellThread(ctx, db, thread, {
    action: 'new',
    actorId,
    named: [...mentioned, ...candidatesOf(thread.assigneeIds, 'participating', 'assigned')],
    threading: { kind: 'answer' },
    body: joinBodies([
      paragraph(`You have been mentioned in ${kindName}.`),
      paragraph(thread.mail.url, link(thread.mail.url)),
      description,
    ]),
    only: new Set(mentioned.map((candidate) => candidate.userId)),
  })
}

/** reassigned_issue_email and reassigned_merge_request_email (_reassigned_issuable_email). */
async function reassignedMails(ctx: Context, db: Db, thread: Thread, actorId: number, previousIds: number[]): Promise<OutgoingMail[]> {
  const users = await usersOf(db, [...previousIds, ...thread.assigneeIds])
  const previousNames = namesOf(users, previousIds)
  const currentNames = namesOf(users, thread.assigneeIds)
  const added = currentNames.filter((name) => !previousNames.includes(name))
  const removed = previousNames.filter((name) => !currentNames.includes(name))
  const lines: Body[] = []
  if (added.length > 0)
    lines.push(paragraph(`${sentenceOf(added)} ${added.length > 1 ? 'were added as assignees' : 'was added as an assignee'}.`))
  if (removed.length > 0 && currentNames.length > 0)
    lines.push(paragraph(`${sentenceOf(removed)} ${removed.length > 1 ? 'were removed as assignees' : 'was removed as an assignee'}.`))
  if (removed.length > 0 && currentNames.length === 0) lines.push(paragraph('All assignees were removed.'))
  return tellThread(ctx, db, thread, {
    action: 'reassign',
    actorId,
    named: [...candidatesOf(previousIds, 'mention', null), ...candidatesOf(thread.assigneeIds, 'mention', 'assigned')],
    threading: { kind: 'answer' },
    body: joinBodies(lines),
  })
}

/** changed_reviewer_of_merge_request_email (EmailsHelper#change_reviewer_notification_text). */
async function reviewerMails(ctx: Context, db: Db, thread: Thread, actorId: number, previousIds: number[]): Promise<OutgoingMail[]> {
  const users = await usersOf(db, [...previousIds, ...thread.reviewerIds])
  const now = thread.reviewerIds.length > 0 ? sentenceOf(namesOf(users, thread.reviewerIds)) : 'Unassigned'
  const before = previousIds.length > 0 ? sentenceOf(namesOf(users, previousIds)) : null
  const text = before ? `Reviewer changed from ${before} to ${now}` : `Reviewer changed to ${now}`
  const markup = before
    ? html`Reviewer changed from <strong>${before}</strong> to <strong>${now}</strong>`
    : html`Reviewer changed to <strong>${now}</strong>`
  return tellThread(ctx, db, thread, {
    action: 'change_reviewer',
    actorId,
    named: [...candidatesOf(previousIds, 'mention', null), ...candidatesOf(thread.reviewerIds, 'mention', 'review_requested')],
    threading: { kind: 'answer' },
    body: paragraph(text, markup),
  })
}

/** closed_issue_email, issue_status_changed_email, closed_/merged_merge_request_email and merge_request_status_email. */
async function stateMails(
  ctx: Context,
  db: Db,
  thread: Thread,
  actorId: number,
  action: 'close' | 'reopen' | 'merge',
): Promise<OutgoingMail[]> {
  const users = await usersOf(db, [actorId, thread.authorId, ...thread.assigneeIds, ...thread.reviewerIds])
  const by = sanitizeName(users.get(actorId)?.name ?? 'Ghost User')
  const done = action === 'close' ? 'closed' : action === 'reopen' ? 'reopened' : 'merged'
  let body: Body
  if (thread.mail.kind === 'issue') {
    body = joinBodies([
      paragraph(`Issue was ${done} by ${by}`),
      paragraph(`Issue ${referenceOf(thread.mail)}: ${thread.mail.url}`, html`Issue ${referenceOf(thread.mail)}: ${link(thread.mail.url)}`),
    ])
  } else {
    const headline = `Merge request ${referenceOf(thread.mail)} was ${done}${action === 'merge' ? '' : ` by ${by}`}`
    body = joinBodies([
      paragraph(headline),
      paragraph(`Merge request URL: ${thread.mail.url}`, html`Merge request URL: ${link(thread.mail.url)}`),
      await mergeRequestFacts(db, thread, users),
    ])
  }
  return tellThread(ctx, db, thread, { action, actorId, threading: { kind: 'answer' }, body })
}

/** The commits a push added to the source branch, oldest first: at most 20 shown (short id and title), and how many. */
async function pushedCommits(ctx: Context, db: Db, mergeRequest: MergeRequestRow, oldrev: string) {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(oldrev) || /^0+$/.test(oldrev)) return { shown: [], total: 0 }
  const [source] = await findProjectById(db, mergeRequest.source_project_id ?? mergeRequest.project_id)
  if (!source) return { shown: [], total: 0 }
  try {
    const out = await git(['log', '--reverse', '--format=%H%x09%s', `${oldrev}..refs/heads/${mergeRequest.source_branch}`, '--'], {
      gitDir: projectRepositoryDirectory(ctx.config, source),
    })
    const commits = out
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const tab = line.indexOf('\t')
        return { shortId: line.slice(0, 8), title: line.slice(tab + 1) }
      })
    return { shown: commits.slice(0, NEW_COMMITS_SHOWN), total: commits.length }
  } catch {
    // The old head is gone (a force push) or the branch is: the e-mail says so without the list.
    return { shown: [], total: 0 }
  }
}

/** push_to_merge_request_email: participants and Custom users of the event (Watch leaves it out). */
async function pushMails(ctx: Context, db: Db, thread: Thread, actorId: number, oldrev: string): Promise<OutgoingMail[]> {
  const actor = await findUserRow(db, actorId)
  const { shown, total } = await pushedCommits(ctx, db, thread.mergeRequest!, oldrev)
  const who = sanitizeName(actor?.name ?? 'Ghost User')
  const reference = referenceOf(thread.mail)
  const list = shown.map((commit) => `* ${commit.shortId} - ${commit.title}`)
  if (total > shown.length) list.push(`* ... and ${total - shown.length} more`)
  const commits: Body | null =
    list.length > 0
      ? {
          text: list.join('\n'),
          html: html`<ul>${shown.map((commit) => html`<li><code>${commit.shortId}</code> - ${commit.title}</li>`)}${
            total > shown.length ? html`<li>... and ${total - shown.length} more</li>` : ''
          }</ul>`,
        }
      : null
  return tellThread(ctx, db, thread, {
    action: 'push_to',
    actorId,
    threading: { kind: 'answer' },
    body: joinBodies([
      paragraph(
        `${who} pushed new commits to merge request ${reference}`,
        html`${who} pushed new commits to merge request ${link(thread.mail.url, reference)}`,
      ),
      paragraph(thread.mail.url, link(thread.mail.url)),
      commits,
    ]),
  })
}

/** note_issue_email and note_merge_request_email (Builder::NewNote, _note_email). */
async function noteMails(ctx: Context, db: Db, noteId: number): Promise<OutgoingMail[]> {
  const note = await findNoteRow(db, noteId)
  // System notes are the record of changes already told of (GL Note#skip_notification? and cross references).
  if (!note || note.system === 1) return []
  const type = note.issue_id !== null ? 'Issue' : note.merge_request_id !== null ? 'MergeRequest' : null
  if (type === null) return []
  const thread = await loadThread(ctx, db, type, (note.issue_id ?? note.merge_request_id)!)
  if (!thread) return []
  const recipients = await threadRecipients(ctx, db, thread, {
    customAction: 'new_note',
    actorId: note.author_id,
    named: await mentionCandidates(db, [note.body]),
    note,
  })
  if (recipients.length === 0) return []
  const host = mailIdentity(ctx).host
  const inDiscussion = note.type === 'DiscussionNote' || note.type === 'DiffNote'
  const earlier = inDiscussion && note.discussion_id ? await findEarlierNoteIds(db, note.discussion_id, note.id) : []
  const references = [messageIdOf(thread.mail.kind, thread.mail.id, host), ...earlier.map((id) => messageIdOf('note', id, host))]
  const actor = await findUserRow(db, note.author_id)
  let heading: Body | null = null
  if (inDiscussion) {
    const path = note.type === 'DiffNote' ? diffNotePath(note.position) : null
    const what = earlier.length === 0 ? 'started a new discussion' : 'commented on a discussion'
    heading = paragraph(`${sanitizeName(actor?.name ?? 'Ghost User')} ${what}${path ? ` on ${path}` : ''}:`)
  }
  const body = joinBodies([heading, await renderedMarkdown(ctx, db, note.body)])
  return threadMails(ctx, db, {
    thread,
    recipients,
    actor,
    threading: { kind: 'note', note, references },
    body,
    targetUrl: `${thread.mail.url}#note_${note.id}`,
  })
}

/** A diff note's file, from its position (GL DiffNote#file_path: the new path, else the old one). */
function diffNotePath(position: string | null): string | null {
  if (!position) return null
  try {
    const parsed = JSON.parse(position) as { new_path?: unknown; old_path?: unknown }
    const path = parsed.new_path ?? parsed.old_path
    return typeof path === 'string' ? path : null
  } catch {
    return null
  }
}

/** A mail about a project or group rather than a thread: no target, no unsubscribe link (the layout's footer alone). */
function renderPlainMail(ctx: Context, subject: string, body: Body) {
  return renderMail(ctx, subject, body, {
    host: mailIdentity(ctx).host,
    reason: null,
    targetUrl: null,
    unsubscribeUrl: null,
  })
}

/** member_access_granted_email: to the new member, unless their notifications are Disabled there. */
async function accessGrantedMails(ctx: Context, db: Db, change: Extract<Change, { kind: 'member' }>): Promise<OutgoingMail[]> {
  // Adding oneself (creating a project or group) is not news.
  if (change.action !== 'add' || change.userId === change.actorId) return []
  let source: { type: 'project' | 'group'; name: string; url: string }
  let user: Pick<UserRow, 'id' | 'email' | 'notification_email'> | null
  if (change.source.type === 'project') {
    const scope = await loadProjectScope(db, change.source.id)
    if (!scope) return []
    user = await isNotifiableOfMention(ctx, db, change.userId, {
      projectId: scope.project.id,
      groupIds: scope.groupIds,
      emailsDisabled: scope.emailsDisabled,
    })
    source = { type: 'project', name: scope.project.full_name, url: `${ctx.config.externalUrl}/${scope.project.full_path}` }
  } else {
    const scope = await loadGroupScope(db, change.source.id)
    if (!scope) return []
    user = await isNotifiableOfMention(ctx, db, change.userId, {
      projectId: null,
      groupIds: scope.groupIds,
      emailsDisabled: scope.emailsDisabled,
    })
    source = { type: 'group', name: scope.group.full_name, url: `${ctx.config.externalUrl}/groups/${scope.group.full_path}` }
  }
  const to = user && notificationEmailOf(user)
  if (!user || !to) return []
  const role = roleNameOf(change.accessLevel)
  const body = joinBodies([
    paragraph(`You have been granted access to the ${source.name} ${source.type} with the following role: ${role}.`),
    paragraph(source.url, link(source.url)),
  ])
  const subject = subjectOf(null, `Access to the ${source.name} ${source.type} was granted`)
  const { text, html: page } = renderPlainMail(ctx, subject, body)
  return [{ to, toUserId: user.id, subject, text, html: page, headers: {} }]
}

/** prometheus_alert_fired_email: to the project's Maintainers and Owners, else its group's (NotificationService#prometheus_alerts_fired). */
async function alertMails(ctx: Context, db: Db, change: Extract<Change, { kind: 'alert' }>): Promise<OutgoingMail[]> {
  if (change.action !== 'create') return []
  const alert = await findAlertRow(db, change.alertId)
  // Only a new alert that fires is mailed; one resolved on arrival is not.
  if (!alert || alert.status !== 0) return []
  const scope = await loadProjectScope(db, change.projectId)
  if (!scope || scope.emailsDisabled) return []
  let ids = await findMaintainerIds(db, { projectId: scope.project.id })
  if (ids.length === 0 && scope.namespace.kind === 'group') ids = await findMaintainerIds(db, { groupId: scope.namespace.id })
  const users = (await findUserRows(db, ids)).filter((user) => user.bot === 0)
  if (users.length === 0) return []
  const identity = mailIdentity(ctx)
  const { project } = scope
  const detailsUrl = `${ctx.config.externalUrl}/${project.full_path}/-/alert_management/${alert.iid}/details`
  const body = joinBodies([
    paragraph(`An alert has been triggered in ${project.full_path}.`),
    paragraph(`View alert details at ${detailsUrl}`, html`View alert details at ${link(detailsUrl)}`),
    alert.description ? paragraph(`Description: ${alert.description}`) : null,
  ])
  const subject = subjectOf(project.name, `Alert: ${alert.title}`)
  const { text, html: page } = renderPlainMail(ctx, subject, body)
  const headers: Record<string, string> = {
    ...projectHeaders({ id: project.id, name: project.name, fullPath: project.full_path }, identity.host),
    'X-GitLab-Alert-ID': String(alert.id),
    'X-GitLab-Alert-IID': String(alert.iid),
    'X-GitLab-NotificationReason': 'alert_triggered',
  }
  return users.flatMap((user) => {
    const to = notificationEmailOf(user)
    return to ? [{ to, toUserId: user.id, subject, text, html: page, headers }] : []
  })
}

/** An edit's e-mails (GL Issues::UpdateService and MergeRequests::UpdateService): reassignment, new reviewers, new mentions. */
async function editMails(ctx: Context, db: Db, thread: Thread, actorId: number, changes: FieldChanges): Promise<OutgoingMail[]> {
  const mails: OutgoingMail[] = []
  const assignees = changed(changes, 'assignees')
  if (assignees) mails.push(...(await reassignedMails(ctx, db, thread, actorId, userIdsIn(assignees.previous))))
  const reviewers = changed(changes, 'reviewers')
  if (reviewers) mails.push(...(await reviewerMails(ctx, db, thread, actorId, userIdsIn(reviewers.previous))))
  if (changed(changes, 'description') || changed(changes, 'title'))
    mails.push(...(await newMentionMails(ctx, db, thread, actorId, changes)))
  return mails
}

async function issueMails(ctx: Context, db: Db, change: Extract<Change, { kind: 'issue' }>): Promise<OutgoingMail[]> {
  const thread = await loadThread(ctx, db, 'Issue', change.issueId)
  if (!thread) return []
  if (change.action === 'open') return newThreadMails(ctx, db, thread)
  if (change.action === 'close' || change.action === 'reopen') return stateMails(ctx, db, thread, change.actorId, change.action)
  return editMails(ctx, db, thread, change.actorId, change.changes)
}

async function mergeRequestMails(ctx: Context, db: Db, change: Extract<Change, { kind: 'merge_request' }>): Promise<OutgoingMail[]> {
  const thread = await loadThread(ctx, db, 'MergeRequest', change.mergeRequestId)
  if (!thread) return []
  switch (change.action) {
    case 'open':
      return newThreadMails(ctx, db, thread)
    case 'close':
    case 'reopen':
    case 'merge':
      return stateMails(ctx, db, thread, change.actorId, change.action)
    case 'update': {
      // A push that updated the merge request is told first, as GL MergeRequests::RefreshService does.
      const pushed = change.oldrev ? await pushMails(ctx, db, thread, change.actorId, change.oldrev) : []
      return [...pushed, ...(await editMails(ctx, db, thread, change.actorId, change.changes))]
    }
    default:
      return []
  }
}

/** The e-mails a change causes, written in its transaction `db`. */
export async function notificationMailsOf(ctx: Context, db: Db, change: Change): Promise<OutgoingMail[]> {
  switch (change.kind) {
    case 'issue':
      return issueMails(ctx, db, change)
    case 'merge_request':
      return mergeRequestMails(ctx, db, change)
    case 'note':
      return change.action === 'create' ? noteMails(ctx, db, change.noteId) : []
    case 'member':
      return accessGrantedMails(ctx, db, change)
    case 'alert':
      return alertMails(ctx, db, change)
    default:
      return []
  }
}

/** The teller of change-notices: queues the change's notification e-mails in its transaction. */
export async function tellNotifications(ctx: Context, db: Db, change: Change): Promise<void> {
  const mails = await notificationMailsOf(ctx, db, change)
  await queueMails(ctx, db, mails)
}

/** The issue or merge request a sent notification is about, as its unsubscribe page shows it. */
export interface UnsubscribeTarget {
  kind: 'issue' | 'merge_request'
  title: string
  reference: string
  url: string
  projectFullName: string
  /** The caller may read the issue or merge request: its title and link are shown, and they go back to it. */
  isReadable: boolean
}

interface FoundTarget {
  target: UnsubscribeTarget
  recipientId: number
  thread: Thread
}

/** GL SentNotification.for and SentNotificationsController#unsubscribe_prerequisites_met?: null when there is nothing to leave. */
async function findTarget(ctx: Context, replyKey: string): Promise<FoundTarget | null> {
  if (!/^[0-9a-f]{32}$/.test(replyKey)) return null
  const sent = await findSentNotification(ctx.db, replyKey)
  if (!sent) return null
  const thread = await loadThread(ctx, ctx.db, sent.noteable_type, sent.noteable_id)
  if (!thread) return null
  let isReadable = true
  try {
    const loaded = await findProject(ctx, thread.project.id)
    if (thread.mail.kind === 'issue') await findIssue(ctx, loaded, thread.mail.iid)
    else await findMergeRequest(ctx, loaded, thread.mail.iid)
  } catch (error) {
    if (!(error instanceof NotFound)) throw error
    isReadable = false
  }
  const target: UnsubscribeTarget = {
    kind: thread.mail.kind,
    title: thread.title,
    reference: referenceOf(thread.mail),
    url: thread.mail.url,
    projectFullName: thread.project.full_name,
    isReadable,
  }
  return { target, recipientId: sent.recipient_id, thread }
}

/** What an unsubscribe link leaves, or null when the link is unknown or its issue or merge request is gone. */
export async function findUnsubscribeTarget(ctx: Context, replyKey: string): Promise<UnsubscribeTarget | null> {
  return (await findTarget(ctx, replyKey))?.target ?? null
}

/**
 * Unsubscribes the e-mail's recipient (whoever follows the link: the key is the secret) from its issue or merge
 * request, as GL Subscribable#unsubscribe does; null when there is nothing to leave.
 */
/**
 * The caller's explicit subscription to an issue or merge request (GL Subscribable#subscribed?, before it falls back to
 * participation): true or false when they subscribed or unsubscribed, null when they did neither or are anonymous.
 */
export function explicitSubscription(ctx: Context, type: SubscribableType, id: number): Promise<boolean | null> {
  const user = ctx.caller.user
  return user ? findSubscription(ctx.db, type, id, user.id) : Promise.resolve(null)
}

/** Subscribes or unsubscribes the caller from an issue or merge request of the project (GL Subscribable#subscribe). */
export async function setSubscription(
  ctx: Context,
  target: { type: SubscribableType; id: number; projectId: number },
  subscribed: boolean,
): Promise<void> {
  const user = ctx.caller.user
  if (!user) throw new Unauthorized()
  await saveSubscription(ctx.db, { userId: user.id, ...target, subscribed, at: isoTimestamp(ctx.now()) })
}

export async function unsubscribeByReplyKey(ctx: Context, replyKey: string): Promise<UnsubscribeTarget | null> {
  const found = await findTarget(ctx, replyKey)
  if (!found) return null
  await saveSubscription(ctx.db, {
    userId: found.recipientId,
    type: found.thread.type,
    id: found.thread.mail.id,
    projectId: found.thread.project.id,
    subscribed: false,
    at: isoTimestamp(ctx.now()),
  })
  return found.target
}
