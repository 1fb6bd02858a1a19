import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { BadRequest, Forbidden, NotFound, PreconditionFailed, RecordNotFound } from '../../core/errors.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { NoteRow } from '../../db/schema.js'
import { noticeChange } from '../change-notices/index.js'
import { recordEvent } from '../event-log/index.js'
import { checkSpam, type SpamRequest } from '../spam/index.js'
import { findUsersByIds } from '../users/index.js'
import type { NoteThread } from './discussions.js'
import { newDiscussionId } from './thread-ids.js'
import type { Noteable, TouchNoteable } from './index.js'
import { deleteNoteRow, findNoteOf, insertNote, selectNotesOf, updateNoteRow, type NoteOrder } from './store.js'
import {
  canAdminNote,
  canCreateNote,
  canReadNote,
  canSetNoteCreatedAt,
  findIssue,
  findMergeRequest,
  type LoadedProject,
  type NoteableFacts,
} from '../access/index.js'

/** Largest id or iid a row can have; larger ones are simply not found. */
const MAX_STORED_ID = 2147483647

/** GL Note validation: `note` at most this long (Gitlab::Database::MAX_TEXT_SIZE_LIMIT). */
const MAX_BODY_LENGTH = 1_000_000

/** An issue or merge request whose notes are asked for, with the project it belongs to. */
export interface LoadedNoteable extends NoteableFacts {
  noteable: Noteable
  iid: number
  loaded: LoadedProject
}

/** A note with its author, as presenters need it. */
export interface NoteView {
  row: NoteRow
  author: User
  noteable: LoadedNoteable
  /** Who resolved the note's thread, when it is resolved. */
  resolvedBy: User | null
}

/**
 * The issue or merge request of the path as the caller may see it: GL NotesHelpers#find_noteable answers
 * "404 Not found" when the finder does not find it (missing, or hidden from the caller).
 */
export async function findNoteable(ctx: Context, loaded: LoadedProject, type: Noteable['type'], iid: number): Promise<LoadedNoteable> {
  if (iid < 1 || iid > MAX_STORED_ID) throw new RecordNotFound()
  const row = type === 'Issue' ? await findIssue(ctx, loaded, iid) : await findMergeRequest(ctx, loaded, iid)
  return {
    noteable: { type, id: row.id, projectId: row.project_id },
    iid: row.iid,
    discussionLocked: row.discussion_locked === 1,
    loaded,
  }
}

export async function viewsOf(ctx: Context, target: LoadedNoteable, rows: NoteRow[]): Promise<NoteView[]> {
  const ids = rows.flatMap((row) => (row.resolved_by_id === null ? [row.author_id] : [row.author_id, row.resolved_by_id]))
  const users = new Map((await findUsersByIds(ctx.db, [...new Set(ids)])).map((u) => [u.id, u]))
  return rows.flatMap((row) => {
    const author = users.get(row.author_id)
    const resolvedBy = row.resolved_by_id === null ? null : (users.get(row.resolved_by_id) ?? null)
    return author ? [{ row, author, noteable: target, resolvedBy }] : []
  })
}

export interface NoteListInput extends NoteOrder {
  page: number
  perPage: number
}

export interface NotePage {
  page: OffsetPage<NoteRow>
  views: NoteView[]
}

/** GL notes.rb GET: one page of notes, then those the caller may not read dropped (so a page can come out short). */
export async function listNotes(ctx: Context, target: LoadedNoteable, input: NoteListInput): Promise<NotePage> {
  const query = selectNotesOf(ctx.db, target.noteable, input)
  const page = await fetchOffsetPage(ctx.db, query, input.page, input.perPage)
  const readable = page.rows.filter((row) => canReadNote(target.loaded.access, row))
  return { page, views: await viewsOf(ctx, target, readable) }
}

async function findNoteIn(ctx: Context, target: LoadedNoteable, noteId: number): Promise<NoteRow> {
  const note = noteId >= 1 && noteId <= MAX_STORED_ID ? await findNoteOf(ctx.db, target.noteable, noteId) : undefined
  if (!note) throw new RecordNotFound()
  return note
}

async function viewOf(ctx: Context, target: LoadedNoteable, row: NoteRow): Promise<NoteView> {
  const [view] = await viewsOf(ctx, target, [row])
  if (!view) throw new RecordNotFound()
  return view
}

/** GL NotesHelpers#get_note: a note the caller may not read is "404 Note Not Found". */
export async function showNote(ctx: Context, target: LoadedNoteable, noteId: number): Promise<NoteView> {
  const note = await findNoteIn(ctx, target, noteId)
  if (!canReadNote(target.loaded.access, note)) throw new NotFound('Note')
  return viewOf(ctx, target, note)
}

/** Ruby's Hash#inspect of a model's error messages, as GitLab writes them into "400 Bad request - Note …". */
function inspectErrors(errors: Record<string, string[]>): string {
  const entries = Object.entries(errors).map(([key, messages]) => `:${key}=>[${messages.map((m) => JSON.stringify(m)).join(', ')}]`)
  return `{${entries.join(', ')}}`
}

function validateBody(body: string) {
  const errors: string[] = []
  if (body.trim() === '') errors.push("can't be blank")
  else if (body.length > MAX_BODY_LENGTH) errors.push(`is too long (maximum is ${MAX_BODY_LENGTH} characters)`)
  if (errors.length > 0) throw new BadRequest(`Note ${inspectErrors({ note: errors })}`)
}

/** A `created_at` as Rails reads a time string; an unreadable one is ignored. */
function timeOf(text: string | undefined): Date | null {
  if (text === undefined || text.trim() === '') return null
  const at = new Date(text.trim())
  return Number.isNaN(at.getTime()) ? null : at
}

export interface CreateNoteInput {
  body: string
  internal: boolean
  createdAt: string | undefined
  spam: SpamRequest
  /** A note of a thread, on a diff line or not; a note alone without it. */
  thread?: NoteThread
}

/**
 * GL NotesHelpers#create_note and Notes::CreateService: `create_note` first, then the note's validation. Internal
 * is kept only for those who may mark notes internal; `created_at` only for Owners and administrators. The note
 * and its "commented" event are written together (GL EventCreateService#leave_note).
 */
export async function createNote(
  ctx: Context,
  target: LoadedNoteable,
  input: CreateNoteInput,
  touchNoteable: TouchNoteable,
): Promise<NoteView> {
  const { access, project } = target.loaded
  const user = ctx.caller.user
  if (!user || !canCreateNote(access, project, target)) throw new Forbidden()
  validateBody(input.body)
  await checkSpam(ctx, input.spam, { type: 'Note', title: null, description: input.body })
  const now = ctx.now()
  const createdAt = (canSetNoteCreatedAt(access) ? timeOf(input.createdAt) : null) ?? now
  const row = await ctx.db.transaction().execute(async (trx) => {
    const note = await insertNote(trx, {
      project_id: project.id,
      issue_id: target.noteable.type === 'Issue' ? target.noteable.id : null,
      merge_request_id: target.noteable.type === 'MergeRequest' ? target.noteable.id : null,
      author_id: user.id,
      body: input.body,
      system: 0,
      internal: input.internal && canReadInternalNotesOf(target) ? 1 : 0,
      type: input.thread?.type ?? null,
      discussion_id: input.thread?.discussionId ?? newDiscussionId(),
      position: input.thread?.position ?? null,
      line_code: input.thread?.lineCode ?? null,
      created_at: createdAt.toISOString(),
      updated_at: createdAt.toISOString(),
    })
    await touchNoteable(trx, target.noteable, now.toISOString())
    await recordEvent(trx, {
      projectId: project.id,
      authorId: user.id,
      action: 'commented',
      target: { type: 'Note', id: note.id },
      at: now,
    })
    await noticeChange(ctx, trx, { kind: 'note', action: 'create', projectId: project.id, noteId: note.id, actorId: user.id, at: now })
    return note
  })
  return { row, author: user, noteable: target, resolvedBy: null }
}

function canReadInternalNotesOf(target: LoadedNoteable): boolean {
  return canReadNote(target.loaded.access, { internal: 1 })
}

export interface UpdateNoteInput {
  body: string | undefined
  confidential: boolean | undefined
  spam: SpamRequest
}

/**
 * GL NotesHelpers#update_note and Notes::UpdateService: `admin_note`, then the model's validation; internal-ness
 * cannot change. Nothing to change answers the note as it is.
 */
export async function updateNote(
  ctx: Context,
  target: LoadedNoteable,
  noteId: number,
  input: UpdateNoteInput,
  touchNoteable: TouchNoteable,
): Promise<NoteView> {
  const { access, project } = target.loaded
  const note = await findNoteIn(ctx, target, noteId)
  const user = ctx.caller.user
  if (!user || !canAdminNote(access, project, target, note)) throw new Forbidden()
  const errors: Record<string, string[]> = {}
  if (input.body !== undefined) {
    if (input.body.trim() === '') errors.note = ["can't be blank"]
    else if (input.body.length > MAX_BODY_LENGTH) errors.note = [`is too long (maximum is ${MAX_BODY_LENGTH} characters)`]
  }
  if (input.confidential !== undefined && input.confidential !== (note.internal === 1)) {
    errors.confidential = ['can not be changed for existing notes']
  }
  if (Object.keys(errors).length > 0) throw new BadRequest(`Note ${inspectErrors(errors)}`)
  if (input.body === undefined || input.body === note.body) return viewOf(ctx, target, note)
  const body = input.body
  await checkSpam(ctx, input.spam, { type: 'Note', title: null, description: body })
  const now = ctx.now()
  const at = now.toISOString()
  const row = await ctx.db.transaction().execute(async (trx) => {
    const updated = await updateNoteRow(trx, note.id, { body, updated_by_id: user.id, updated_at: at })
    await touchNoteable(trx, target.noteable, at)
    await noticeChange(ctx, trx, { kind: 'note', action: 'update', projectId: project.id, noteId: note.id, actorId: user.id, at: now })
    return updated
  })
  return viewOf(ctx, target, row)
}

/** GL NotesHelpers#delete_note: `admin_note`; a client's If-Unmodified-Since older than the note's last change is 412. */
export async function deleteNote(ctx: Context, target: LoadedNoteable, noteId: number, unmodifiedSince: Date | null): Promise<void> {
  const { access, project } = target.loaded
  const note = await findNoteIn(ctx, target, noteId)
  if (!canAdminNote(access, project, target, note)) throw new Forbidden()
  if (unmodifiedSince && Date.parse(note.updated_at) > unmodifiedSince.getTime()) throw new PreconditionFailed()
  await deleteNoteRow(ctx.db, note.id)
}
