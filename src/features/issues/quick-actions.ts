import type { Context } from '../../core/context.js'
import { findIssueByIid, type LoadedProject } from '../access/index.js'
import type { ReadNoteCommands } from '../notes/index.js'
import { interpretDescription, mayHoldQuickActions, noteCommandsOf, withCommandUpdates, type IssueTarget } from '../quick-actions/index.js'
import { issueViewsOf, updateIssue, type IssueInput, type IssueView } from './service.js'

// Quick actions on issues: what a description's or a comment's commands change, merged into the same update the
// issue's form and PUT make (GL IssuableBaseService#merge_quick_actions_into_params!, QuickActionsService#apply_updates).

/** The issue as the commands see it before they run; null while it is being created. */
export function quickActionTargetOf(loaded: LoadedProject, view: IssueView | null): IssueTarget {
  if (!view) return { type: 'Issue', loaded, issue: null, labels: [], assignees: [], milestone: null }
  return { type: 'Issue', loaded, issue: view.issue, labels: view.labels, assignees: view.assignees, milestone: view.milestone }
}

/** A description's commands: the description without them and their changes merged into the input. */
export async function withDescriptionCommands(
  ctx: Context,
  target: IssueTarget,
  input: IssueInput,
  original: string | null,
): Promise<IssueInput> {
  const interpretation = await interpretDescription(ctx, target, input.description, original)
  if (!interpretation) return input
  return { ...withCommandUpdates(input, interpretation), description: interpretation.content }
}

/**
 * The quick actions of a comment on an issue, for the notes feature: the commands read against the issue as it is,
 * applied afterwards through the issue's own update (so each change leaves its usual system note).
 */
export const readIssueNoteCommands: ReadNoteCommands = async (ctx, target, body, spam) => {
  if (target.noteable.type !== 'Issue' || !mayHoldQuickActions(body)) return null
  const { loaded } = target
  const issue = await findIssueByIid(ctx.db, loaded.project.id, target.iid)
  if (!issue) return null
  const [view] = await issueViewsOf(ctx, [issue])
  return noteCommandsOf(ctx, quickActionTargetOf(loaded, view), body, {}, async (interpretation) => {
    await updateIssue(ctx, loaded, issue.iid, withCommandUpdates({}, interpretation), spam)
  })
}
