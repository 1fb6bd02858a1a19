import type { Context } from '../../core/context.js'
import { BadRequest, Forbidden, NotFound } from '../../core/errors.js'
import type { NoteRow } from '../../db/schema.js'
import { canReadNote, canResolveDiscussion } from '../access/index.js'
import { noticeChange } from '../change-notices/index.js'
import type { TouchNoteable } from './index.js'
import { createNote, viewsOf, type CreateNoteInput, type LoadedNoteable, type NoteView } from './service.js'
import { discussionIdOf, isResolvable } from './thread-ids.js'
import { hasUnresolvedThreadRows, selectNotesOf, selectThreadRows, updateNoteThread, updateThreadResolution } from './store.js'

// Threads (GL Discussion): notes sharing a discussion_id. A comment alone is a thread of one ("individual note"); a
// DiscussionNote starts a thread that can take replies; a DiffNote is one on a line of a merge request's diff. The
// threads of a merge request can be resolved.

/** What makes a new note part of a thread. */
export interface NoteThread {
  type: 'DiffNote' | 'DiscussionNote'
  discussionId: string
  /** A DiffNote's position, GitLab's JSON. */
  position: string | null
  lineCode: string | null
}

export interface DiscussionView {
  id: string
  /** GL `individual_note`: a comment alone, not a thread. */
  individualNote: boolean
  notes: NoteView[]
}

/** GL Discussion#resolved?: every resolvable note of the thread is resolved; false when none can be. */
export function isResolved(discussion: DiscussionView): boolean {
  const resolvable = discussion.notes.filter((view) => isResolvable(view.row))
  return resolvable.length > 0 && resolvable.every((view) => view.row.resolved_at !== null)
}

function group(views: NoteView[]): DiscussionView[] {
  const byId = new Map<string, DiscussionView>()
  for (const view of views) {
    const id = discussionIdOf(view.row)
    const found = byId.get(id)
    if (found) found.notes.push(view)
    else byId.set(id, { id, individualNote: view.row.type === null, notes: [view] })
  }
  return [...byId.values()]
}

/** GL `noteable.discussions`: the threads of an issue or merge request, oldest first, with the notes the caller may read. */
export async function listDiscussions(ctx: Context, target: LoadedNoteable): Promise<DiscussionView[]> {
  const rows = await selectNotesOf(ctx.db, target.noteable, { column: 'created_at', direction: 'asc', kind: null }).execute()
  const readable = rows.filter((row) => canReadNote(target.loaded.access, row))
  return group(await viewsOf(ctx, target, readable))
}

/** One thread; "404 Discussion Not Found" when it has no note the caller may read. */
export async function findDiscussion(ctx: Context, target: LoadedNoteable, discussionId: string): Promise<DiscussionView> {
  const rows = await threadRows(ctx, target, discussionId)
  const readable = rows.filter((row) => canReadNote(target.loaded.access, row))
  const [discussion] = group(await viewsOf(ctx, target, readable))
  if (!discussion) throw new NotFound('Discussion')
  return discussion
}

async function threadRows(ctx: Context, target: LoadedNoteable, discussionId: string): Promise<NoteRow[]> {
  if (!/^[0-9a-f]{40}$/.test(discussionId)) return []
  const stored = await selectThreadRows(ctx.db, target.noteable, discussionId)
  if (stored.length > 0) return stored
  // A note kept from before threads: its derived id names it alone.
  const all = await selectNotesOf(ctx.db, target.noteable, { column: 'created_at', direction: 'asc', kind: null }).execute()
  return all.filter((row) => row.discussion_id === null && discussionIdOf(row) === discussionId)
}

/**
 * POST …/discussions/:discussion_id/notes (GL Notes::CreateService with `in_reply_to_discussion_id`): the reply joins
 * the thread, with its position when it is on a diff line; a comment alone becomes a thread first.
 */
export async function replyToDiscussion(
  ctx: Context,
  target: LoadedNoteable,
  discussionId: string,
  input: Omit<CreateNoteInput, 'thread'>,
  touchNoteable: TouchNoteable,
): Promise<NoteView> {
  const discussion = await findDiscussion(ctx, target, discussionId)
  const first = discussion.notes[0].row
  if (first.system === 1) throw new BadRequest('Note {:discussion=>["can\'t be replied to"]}')
  const type = first.type === 'DiffNote' ? 'DiffNote' : 'DiscussionNote'
  const view = await createNote(
    ctx,
    target,
    { ...input, thread: { type, discussionId: discussion.id, position: first.position, lineCode: first.line_code } },
    touchNoteable,
  )
  // GL Discussion#convert_to_discussion!: the comment it answers becomes the thread's first note.
  if (first.type === null) await updateNoteThread(ctx.db, first.id, { type: 'DiscussionNote', discussion_id: discussion.id })
  return view
}

/**
 * PUT …/discussions/:discussion_id with `resolved` (GL Discussion#resolve!, #unresolve!): the merge request's author
 * or a Developer (GL Discussion#can_resolve?); a thread that cannot be resolved is refused the same way.
 */
export async function resolveDiscussion(
  ctx: Context,
  target: LoadedNoteable,
  discussionId: string,
  resolved: boolean,
  noteableAuthorId: number,
): Promise<DiscussionView> {
  const discussion = await findDiscussion(ctx, target, discussionId)
  const user = ctx.caller.user
  const resolvable = discussion.notes.filter((view) => isResolvable(view.row))
  if (!user || resolvable.length === 0 || !canResolveDiscussion(target.loaded.access, target.loaded.project, noteableAuthorId)) {
    throw new Forbidden()
  }
  const change = resolved ? { resolved_at: ctx.now().toISOString(), resolved_by_id: user.id } : { resolved_at: null, resolved_by_id: null }
  // Notes resolved before keep who resolved them and when.
  const ids = resolvable.filter((view) => (view.row.resolved_at === null) === resolved).map((view) => view.row.id)
  if (ids.length > 0) {
    await ctx.db.transaction().execute(async (trx) => {
      await updateThreadResolution(trx, ids, change)
      // GL MergeRequests::ResolvedDiscussionNotificationService: resolving the last thread updates the merge request.
      const { noteable } = target
      if (resolved && noteable.type === 'MergeRequest' && !(await hasUnresolvedThreadRows(trx, noteable.id))) {
        const told = { projectId: noteable.projectId, mergeRequestId: noteable.id, actorId: user.id, changes: {}, at: ctx.now() }
        await noticeChange(ctx, trx, { kind: 'merge_request', action: 'update', ...told })
      }
    })
  }
  return findDiscussion(ctx, target, discussion.id)
}
