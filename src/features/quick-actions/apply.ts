import type { Context } from '../../core/context.js'
import type { MetadataInput } from '../issuables/index.js'
import type { NoteCommands } from '../notes/index.js'
import {
  interpretQuickActions,
  mayHoldQuickActions,
  presentCommandsChanges,
  type Interpretation,
  type QuickActionOptions,
  type QuickActionTarget,
  type QuickActionUpdates,
} from './interpret.js'

// How the features that own issues and merge requests take the commands' changes into their own updates (GL
// IssuableBaseService#merge_quick_actions_into_params!, Notes::QuickActionsService#apply_updates), so that a command
// changes what the same form or API call would, each change with its usual system note.

/** The fields of an issue's or merge request's update that commands set. */
export interface CommandInput extends MetadataInput {
  stateEvent?: 'close' | 'reopen'
  title?: string
  discussionLocked?: boolean
  dueDate?: string | null
  confidential?: boolean
  reviewerIds?: number[]
  /** GL `wip_event`: true for `draft`, false for `ready`. */
  draft?: boolean
}

function titlesOf(interpretation: Interpretation, ids: readonly number[] | undefined): string[] | undefined {
  return ids?.map((id) => interpretation.labelsById.get(id)!.title)
}

/**
 * The input with the commands' changes over it (GL `params.merge!(command_params)`); labels combine as GitLab's
 * process_label_ids does: the replacement (or the current ones), plus those added, less those removed.
 */
export function withCommandUpdates<T extends CommandInput>(input: T, interpretation: Interpretation): T {
  const updates: QuickActionUpdates = interpretation.updates
  const changes: CommandInput = {}
  const replaced = titlesOf(interpretation, updates.labelIds) ?? input.labels
  const added = [...(input.addLabels ?? []), ...(titlesOf(interpretation, updates.addLabelIds) ?? [])]
  const removed = [...(input.removeLabels ?? []), ...(titlesOf(interpretation, updates.removeLabelIds) ?? [])]
  if (replaced !== undefined) {
    changes.labels = [...new Set([...replaced, ...added])].filter((title) => !removed.includes(title))
    changes.addLabels = undefined
    changes.removeLabels = undefined
  } else {
    if (added.length > 0) changes.addLabels = added
    if (removed.length > 0) changes.removeLabels = removed
  }
  if ('assigneeIds' in updates) changes.assigneeIds = updates.assigneeIds
  if ('milestoneId' in updates) changes.milestoneId = updates.milestoneId
  if ('stateEvent' in updates) changes.stateEvent = updates.stateEvent
  if ('dueDate' in updates) changes.dueDate = updates.dueDate
  if ('title' in updates) changes.title = updates.title
  if ('confidential' in updates) changes.confidential = updates.confidential
  if ('discussionLocked' in updates) changes.discussionLocked = updates.discussionLocked
  if ('reviewerIds' in updates) changes.reviewerIds = updates.reviewerIds
  if (updates.wipEvent !== undefined) changes.draft = updates.wipEvent === 'draft'
  return { ...input, ...changes }
}

/**
 * A description's commands (GL `execute_with_original_text`): null without any; on an edit, a command the description
 * already held before is not run again.
 */
export async function interpretDescription(
  ctx: Context,
  target: QuickActionTarget,
  description: string | null | undefined,
  original: string | null,
): Promise<Interpretation | null> {
  if (!mayHoldQuickActions(description)) return null
  const interpretation = await interpretQuickActions(ctx, target, description!)
  if (interpretation.commandCount === 0) return null
  if (mayHoldQuickActions(original)) {
    const before = await interpretQuickActions(ctx, target, original!)
    const seen = new Set(Object.entries(before.updates).map(([key, value]) => `${key}=${JSON.stringify(value)}`))
    interpretation.updates = Object.fromEntries(
      Object.entries(interpretation.updates).filter(([key, value]) => !seen.has(`${key}=${JSON.stringify(value)}`)),
    ) as QuickActionUpdates
    if (before.approval === interpretation.approval) interpretation.approval = undefined
  }
  return interpretation
}

/**
 * A comment's commands for the notes feature: read against the issue or merge request as it is; `apply` takes their
 * changes through the owner's own update once the comment is saved, and is not called when they changed nothing.
 */
export async function noteCommandsOf(
  ctx: Context,
  target: QuickActionTarget,
  body: string,
  options: QuickActionOptions,
  apply: (interpretation: Interpretation) => Promise<void>,
): Promise<NoteCommands> {
  const interpretation = await interpretQuickActions(ctx, target, body, options)
  return {
    content: interpretation.content,
    commandCount: interpretation.commandCount,
    message: interpretation.message,
    changes: presentCommandsChanges(interpretation.updates),
    apply: async () => {
      if (Object.keys(interpretation.updates).length > 0 || interpretation.approval !== undefined) await apply(interpretation)
    },
  }
}
