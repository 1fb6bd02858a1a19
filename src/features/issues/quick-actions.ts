import type { Context } from '../../core/context.js'
import { findIssueByIid, type LoadedProject } from '../access/index.js'
import type { ReadNoteCommands } from '../notes/index.js'
import {
  interpretQuickActions,
  mayHoldQuickActions,
  presentCommandsChanges,
  type Interpretation,
  type QuickActionTarget,
  type QuickActionUpdates,
} from '../quick-actions/index.js'
import { issueViewsOf, updateIssue, type IssueInput, type IssueView } from './service.js'

// Quick actions on issues: what a description's or a comment's commands change, merged into the same update the
// issue's form and PUT make (GL IssuableBaseService#merge_quick_actions_into_params!, QuickActionsService#apply_updates).

/** The issue as the commands see it before they run; null while it is being created. */
export function quickActionTargetOf(loaded: LoadedProject, view: IssueView | null): QuickActionTarget {
  if (!view) return { loaded, issue: null, labels: [], assignees: [], milestone: null }
  return { loaded, issue: view.issue, labels: view.labels, assignees: view.assignees, milestone: view.milestone }
}

function titlesOf(interpretation: Interpretation, ids: readonly number[] | undefined): string[] | undefined {
  return ids?.map((id) => interpretation.labelsById.get(id)!.title)
}

/**
 * The input with the commands' changes over it (GL `params.merge!(command_params)`); labels combine as GitLab's
 * process_label_ids does: the replacement (or the current ones), plus those added, less those removed.
 */
export function mergeQuickActions(input: IssueInput, interpretation: Interpretation): IssueInput {
  const updates: QuickActionUpdates = interpretation.updates
  const merged: IssueInput = { ...input }
  const replaced = titlesOf(interpretation, updates.labelIds) ?? input.labels
  const added = [...(input.addLabels ?? []), ...(titlesOf(interpretation, updates.addLabelIds) ?? [])]
  const removed = [...(input.removeLabels ?? []), ...(titlesOf(interpretation, updates.removeLabelIds) ?? [])]
  if (replaced !== undefined) {
    merged.labels = [...new Set([...replaced, ...added])].filter((title) => !removed.includes(title))
    merged.addLabels = undefined
    merged.removeLabels = undefined
  } else {
    if (added.length > 0) merged.addLabels = added
    if (removed.length > 0) merged.removeLabels = removed
  }
  if ('assigneeIds' in updates) merged.assigneeIds = updates.assigneeIds
  if ('milestoneId' in updates) merged.milestoneId = updates.milestoneId
  if ('stateEvent' in updates) merged.stateEvent = updates.stateEvent
  if ('dueDate' in updates) merged.dueDate = updates.dueDate
  if ('title' in updates) merged.title = updates.title
  if ('confidential' in updates) merged.confidential = updates.confidential
  if ('discussionLocked' in updates) merged.discussionLocked = updates.discussionLocked
  return merged
}

/**
 * A description's commands (GL `execute_with_original_text`): the description without them and their changes merged
 * in; on an edit, a command the description already held before is not run again.
 */
export async function withDescriptionCommands(
  ctx: Context,
  target: QuickActionTarget,
  input: IssueInput,
  original: string | null,
): Promise<IssueInput> {
  if (!mayHoldQuickActions(input.description)) return input
  const interpretation = await interpretQuickActions(ctx, target, input.description!)
  if (interpretation.commandCount === 0) return input
  if (mayHoldQuickActions(original)) {
    const before = await interpretQuickActions(ctx, target, original!)
    const seen = new Set(Object.entries(before.updates).map(([key, value]) => `${key}=${JSON.stringify(value)}`))
    interpretation.updates = Object.fromEntries(
      Object.entries(interpretation.updates).filter(([key, value]) => !seen.has(`${key}=${JSON.stringify(value)}`)),
    ) as QuickActionUpdates
  }
  return { ...mergeQuickActions(input, interpretation), description: interpretation.content }
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
  const interpretation = await interpretQuickActions(ctx, quickActionTargetOf(loaded, view), body)
  return {
    content: interpretation.content,
    commandCount: interpretation.commandCount,
    message: interpretation.message,
    changes: presentCommandsChanges(interpretation.updates),
    apply: async () => {
      await updateIssue(ctx, loaded, issue.iid, mergeQuickActions({}, interpretation), spam)
    },
  }
}
