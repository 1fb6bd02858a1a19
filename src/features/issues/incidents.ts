import { FeatureAccess } from '../../core/access.js'
import type { Context } from '../../core/context.js'
import { Forbidden } from '../../core/errors.js'
import type { Db } from '../../db/index.js'
import { allocateInternalId } from '../../db/internal-ids.js'
import type { IssueRow, ProjectRow } from '../../db/schema.js'
import { noticeChange } from '../change-notices/index.js'
import { recordEvent } from '../event-log/index.js'
import { issueCreationChanges, issueWire, recordCreation, stateChanges } from '../issuables/index.js'
import { createSystemNote } from '../notes/index.js'
import { findIssuesByIds, insertIssue, updateIssueRow } from './store.js'

/** GL Issue::DEFAULT_INCIDENT_TITLE: an incident opened without a title of its own is "New: Incident <iid>". */
const DEFAULT_INCIDENT_TITLE = 'New: Incident'

/** Why an incident closes by itself, and the system note each reason leaves. */
const CLOSE_NOTES = {
  // GL SystemNoteService#auto_resolve_prometheus_alert, shown as the state event `close_auto_resolve_prometheus_alert`.
  alert_resolved: 'automatically closed this incident because the alert resolved',
} as const

export type IncidentCloseReason = keyof typeof CLOSE_NOTES

export interface OpenIncidentInput {
  /** The incident's title; null for "New: Incident <iid>". */
  title: string | null
  description: string
}

/**
 * Whether incidents can be opened in the project on a monitoring system's behalf (GL `alert_bot.can?(:create_issue,
 * project)`): its issues are not disabled and it is neither archived nor being deleted.
 */
export function canOpenIncidentIn(project: ProjectRow): boolean {
  return project.issues_access_level > FeatureAccess.DISABLED && !project.archived && !project.pending_delete
}

/** Runs `work` in the caller's transaction when `db` is one, else in a transaction of its own. */
function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work)
}

/**
 * Opens an incident in the project authored by the caller, with its creation event (GL
 * AlertManagement::CreateAlertIssueService through Issues::CreateService). Runs inside `ctx.db` when it is a
 * transaction, so that what the caller writes beside the incident commits with it.
 */
export async function openIncident(ctx: Context, project: ProjectRow, input: OpenIncidentInput): Promise<IssueRow> {
  const author = ctx.caller.user
  if (!author || !canOpenIncidentIn(project)) throw new Forbidden()
  const now = ctx.now()
  const at = now.toISOString()
  return inTransaction(ctx.db, async (trx) => {
    const iid = await allocateInternalId(trx, project.id, 'issues')
    const issue = await insertIssue(trx, {
      project_id: project.id,
      iid,
      author_id: author.id,
      title: input.title ?? `${DEFAULT_INCIDENT_TITLE} ${iid}`,
      description: input.description,
      state: 'opened',
      issue_type: 'incident',
      created_at: at,
      updated_at: at,
    })
    await recordCreation(trx, { type: 'Issue', id: issue.id, projectId: project.id }, author.id, now)
    const changes = issueCreationChanges(issue)
    await noticeChange(ctx, trx, {
      kind: 'issue',
      action: 'open',
      projectId: project.id,
      issueId: issue.id,
      actorId: author.id,
      changes,
      at: now,
    })
    return issue
  })
}

/** Whether the issue exists and is an incident still open. */
export async function isOpenIncident(ctx: Context, issueId: number): Promise<boolean> {
  const [issue] = await findIssuesByIds(ctx.db, [issueId])
  return issue !== undefined && isOpen(issue)
}

function isOpen(issue: IssueRow): boolean {
  return issue.issue_type === 'incident' && issue.state === 'opened'
}

/**
 * Closes an open incident as the caller for `reason` (GL IncidentManagement::CloseIncidentWorker): without the
 * plain "closed" note, with the reason's note and Issues::CloseService's close event. An issue that is gone,
 * is no longer an incident or is already closed is left as it is and answers null, so a second run changes
 * nothing. Runs inside `ctx.db` when it is a transaction.
 */
export async function closeIncident(ctx: Context, issueId: number, reason: IncidentCloseReason): Promise<IssueRow | null> {
  const closer = ctx.caller.user
  if (!closer) throw new Forbidden()
  const now = ctx.now()
  const at = now.toISOString()
  return inTransaction(ctx.db, async (trx) => {
    const [issue] = await findIssuesByIds(trx, [issueId])
    if (!issue || !isOpen(issue)) return null
    const closed = await updateIssueRow(trx, issue.id, { state: 'closed', closed_at: at, closed_by_id: closer.id, updated_at: at })
    const noteable = { type: 'Issue' as const, id: issue.id, projectId: issue.project_id }
    await createSystemNote(trx, noteable, closer.id, CLOSE_NOTES[reason], now)
    await recordEvent(trx, {
      projectId: issue.project_id,
      authorId: closer.id,
      action: 'closed',
      target: { type: 'Issue', id: issue.id },
      at: now,
    })
    const changes = stateChanges(issueWire(issue), issueWire(closed))
    await noticeChange(ctx, trx, {
      kind: 'issue',
      action: 'close',
      projectId: issue.project_id,
      issueId: issue.id,
      actorId: closer.id,
      changes,
      at: now,
    })
    return closed
  })
}
