import type { Context } from '../../core/context.js'
import type { IssueRow } from '../../db/schema.js'
import { canUpdateIssue, findIssueAssigneeIds, type LoadedProject } from '../access/index.js'
import { noticeChange } from '../change-notices/index.js'
import { recordEvent } from '../event-log/index.js'
import { issueWire, stateChanges } from '../issuables/index.js'
import { createSystemNote } from '../notes/index.js'
import { updateIssueRow } from './store.js'

/**
 * GL Issues::CloseService#execute(issue, commit: merge_request) after a merge: an open issue the merging user may
 * update (`update_issue`) is closed by them, with the system note "closed via merge request !N" (`reference` is the
 * merge request as the issue's project names it) and a "closed" event. False when it was left as it was.
 */
export async function closeIssueViaMergeRequest(ctx: Context, loaded: LoadedProject, issue: IssueRow, reference: string): Promise<boolean> {
  const user = ctx.caller.user
  if (!user || issue.state !== 'opened') return false
  if (!canUpdateIssue(loaded.access, loaded.project, issue, await findIssueAssigneeIds(ctx.db, issue.id))) return false
  const now = ctx.now()
  const at = now.toISOString()
  await ctx.db.transaction().execute(async (trx) => {
    const closed = await updateIssueRow(trx, issue.id, {
      state: 'closed',
      closed_at: at,
      closed_by_id: user.id,
      updated_at: at,
      updated_by_id: user.id,
    })
    const noteable = { type: 'Issue' as const, id: issue.id, projectId: issue.project_id }
    await createSystemNote(trx, noteable, user.id, `closed via merge request ${reference}`, now)
    await recordEvent(trx, {
      projectId: issue.project_id,
      authorId: user.id,
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
      actorId: user.id,
      changes,
      at: now,
    })
  })
  return true
}
