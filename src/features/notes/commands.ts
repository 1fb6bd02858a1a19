import type { Context } from '../../core/context.js'
import { BadRequest } from '../../core/errors.js'
import { canCreateNote } from '../access/index.js'
import type { SpamRequest } from '../spam/index.js'
import type { TouchNoteable } from './index.js'
import { createNote, type CreateNoteInput, type LoadedNoteable, type NoteView } from './service.js'

/**
 * The quick actions of a comment (GL Notes::CreateService#execute_quick_actions), read by the feature that owns the
 * issue: the comment's text without its command lines, what the commands said, and the changes they ask for, applied
 * once the comment is saved.
 */
export interface NoteCommands {
  content: string
  /** How many commands the comment held, available or not (GL `commands_executed_count`). */
  commandCount: number
  /** What the commands did, one sentence each; empty when none could. */
  message: string
  /** The changes as the note's `commands_changes` shows them. */
  changes: Record<string, unknown>
  /** Applies what the commands ask for; nothing when they ask for nothing. */
  apply(): Promise<void>
}

/** What a comment's request says besides its text. */
export interface NoteCommandOptions {
  /** GL `merge_request_diff_head_sha`: the source branch's head the comment was written against, for /merge. */
  mergeRequestDiffHeadSha?: string
}

/**
 * Reads a comment's quick actions; null for a noteable that runs none. The app passes, for each kind of noteable, the
 * feature that owns it.
 */
export type ReadNoteCommands = (
  ctx: Context,
  target: LoadedNoteable,
  body: string,
  spam: SpamRequest,
  options?: NoteCommandOptions,
) => Promise<NoteCommands | null>

/** A comment with its quick actions: the note (null when the comment held only commands) and what the commands did. */
export interface NoteCreation {
  view: NoteView | null
  /** GL `commands_changes`. */
  changes: Record<string, unknown>
  /** GL quick_actions_status `messages`. */
  summary: string[]
}

/**
 * GL Notes::CreateService with quick actions: the command lines leave the comment; a comment of commands alone
 * creates no note; the changes are applied after the note is saved, each with its usual system note. Commands
 * alone that did nothing are refused with GitLab's "Failed to apply commands.".
 */
export async function createNoteWithCommands(
  ctx: Context,
  target: LoadedNoteable,
  input: CreateNoteInput,
  touchNoteable: TouchNoteable,
  readCommands: ReadNoteCommands,
  options: NoteCommandOptions = {},
): Promise<NoteCreation> {
  const { access, project } = target.loaded
  // The note's own checks (permission, a blank body) come first, as GitLab validates the note before its commands.
  const mayCreate = ctx.caller.user !== null && canCreateNote(access, project, target) && input.body.trim() !== ''
  const commands = mayCreate ? await readCommands(ctx, target, input.body, input.spam, options) : null
  if (!commands || commands.commandCount === 0) {
    return { view: await createNote(ctx, target, input, touchNoteable), changes: {}, summary: [] }
  }
  const commandsOnly = commands.content === ''
  const view = commandsOnly ? null : await createNote(ctx, target, { ...input, body: commands.content }, touchNoteable)
  await commands.apply()
  if (commandsOnly && commands.message === '') throw new BadRequest('Failed to apply commands.')
  return { view, changes: commands.changes, summary: commands.message === '' ? [] : [commands.message] }
}
