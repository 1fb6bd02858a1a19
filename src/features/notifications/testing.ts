import type { Change } from '../../core/changes.js'
import type { User } from '../../core/caller.js'
import type { IssueRow, MergeRequestRow, NewNoteRow, NoteRow } from '../../db/schema.js'
import { contextFor } from '../../testing/context.js'
import type { TestServer } from '../../testing/server.js'
import { noticeChange } from '../change-notices/index.js'
import { headersOf, partOf, type SmtpSink } from '../mail/testing.js'

// What the notifications' tests share: telling a change as a feature does, and reading the e-mails that reached the
// SMTP server.

export interface DeliveredMail {
  to: string
  headers: Record<string, string>
  subject: string
  text: string
  html: string
}

/** Hands a change to noticeChange in a transaction, as the feature making it does. */
export async function tell(server: TestServer, actor: User | null, change: Change): Promise<void> {
  const ctx = contextFor(server, actor, server.app.parts.clock())
  await ctx.db.transaction().execute((trx) => noticeChange(ctx, trx, change))
}

/** Tells of an issue's opening, closing, reopening or edit by `actor`, as the issues feature does. */
export function tellIssue(
  server: TestServer,
  actor: User,
  issue: IssueRow,
  action: 'open' | 'update' | 'close' | 'reopen',
  changes: Extract<Change, { kind: 'issue' }>['changes'] = {},
): Promise<void> {
  const at = server.app.parts.clock()
  return tell(server, actor, { kind: 'issue', action, projectId: issue.project_id, issueId: issue.id, actorId: actor.id, changes, at })
}

/** Tells of a merge request's opening, merge, closing, reopening or edit (`oldrev`: a push updated it) by `actor`. */
export function tellMergeRequest(
  server: TestServer,
  actor: User,
  mergeRequest: MergeRequestRow,
  action: Extract<Change, { kind: 'merge_request' }>['action'],
  edit: { changes?: Extract<Change, { kind: 'merge_request' }>['changes']; oldrev?: string } = {},
): Promise<void> {
  const at = server.app.parts.clock()
  const { changes = {}, oldrev } = edit
  const subject = { projectId: mergeRequest.project_id, mergeRequestId: mergeRequest.id, actorId: actor.id, changes, at }
  return tell(server, actor, { kind: 'merge_request', action, ...subject, ...(oldrev ? { oldrev } : {}) })
}

/** A comment by `author` on an issue or a merge request, stored as the notes feature stores it, then told of. */
export async function comment(
  server: TestServer,
  author: User,
  on: { issue: IssueRow } | { mergeRequest: MergeRequestRow },
  body: string,
  extra: Partial<NewNoteRow> = {},
): Promise<NoteRow> {
  const at = server.app.parts.clock()
  const noteable =
    'issue' in on
      ? { project_id: on.issue.project_id, issue_id: on.issue.id }
      : { project_id: on.mergeRequest.project_id, merge_request_id: on.mergeRequest.id }
  const note = await server.database.db
    .insertInto('notes')
    .values({ ...noteable, author_id: author.id, body, created_at: at.toISOString(), updated_at: at.toISOString(), ...extra })
    .returningAll()
    .executeTakeFirstOrThrow()
  await tell(server, author, { kind: 'note', action: 'create', projectId: note.project_id, noteId: note.id, actorId: author.id, at })
  return note
}

/** Runs the delivery jobs and answers the mails the SMTP server received since the last call, by recipient. */
export async function deliveredMails(server: TestServer, sink: SmtpSink): Promise<DeliveredMail[]> {
  await server.runJobs()
  const received = sink.received.splice(0, sink.received.length)
  return received
    .map((mail) => {
      const headers = Object.fromEntries(headersOf(mail.raw))
      return {
        to: mail.to.join(', '),
        headers,
        subject: headers.Subject,
        text: partOf(mail.raw, 'text/plain'),
        html: partOf(mail.raw, 'text/html'),
      }
    })
    .sort((a, b) => (a.to < b.to ? -1 : a.to > b.to ? 1 : 0))
}
