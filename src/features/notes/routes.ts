import type { Context } from '../../core/context.js'
import { ParamError } from '../../core/errors.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { spamRequestOf } from '../spam/index.js'
import type { PresentOptions } from '../users/index.js'
import type { Noteable, TouchNoteable } from './index.js'
import { presentNote } from './present.js'
import { createNoteWithCommands, type ReadNoteCommands } from './commands.js'
import { CreateNoteParams, ListNotesParams, NoteCommandsJson, NoteJson, NoteListResponse, NoteParams, UpdateNoteParams } from './schemas.js'
import { deleteNote, findNoteable, listNotes, showNote, updateNote } from './service.js'
import { unmodifiedSinceOf } from '../../http/params.js'
import { findProject } from '../access/index.js'

/** The same endpoints serve issues and merge requests (GL notes.rb `noteable_types.each`). */
const NOTEABLES: readonly [string, Noteable['type']][] = [
  ['issues', 'Issue'],
  ['merge_requests', 'MergeRequest'],
]

const ACTIVITY_KINDS = { all_notes: null, only_comments: 'user', only_activity: 'system' } as const

function presentOptions(ctx: Context): PresentOptions {
  return { viewer: ctx.caller, externalUrl: ctx.config.externalUrl, now: ctx.now() }
}

/**
 * `touchNoteable` is what a saved note does to its issue or merge request, and `readCommands` reads a comment's quick
 * actions, each from the feature that owns them.
 */
export function registerNoteRoutes(api: ApiRouter, touchNoteable: TouchNoteable, readCommands: Record<Noteable['type'], ReadNoteCommands>) {
  for (const [plural, type] of NOTEABLES) {
    const notes = `/projects/:id/${plural}/:noteable_id/notes`

    async function noteableOf(ctx: Context, input: { id: string; noteable_id: number }) {
      return findNoteable(ctx, await findProject(ctx, input.id), type, input.noteable_id)
    }

    api.get(notes, { params: ListNotesParams, response: { 200: NoteListResponse } }, async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const target = await noteableOf(ctx, input)
      const list = await listNotes(ctx, target, {
        column: input.order_by,
        direction: input.sort,
        kind: ACTIVITY_KINDS[input.activity_filter],
        page,
        perPage,
      })
      setOffsetHeaders(request, reply, ctx.config.externalUrl, list.page)
      const options = presentOptions(ctx)
      return list.views.map((view) => presentNote(view, options))
    })

    api.get(`${notes}/:note_id`, { params: NoteParams, response: { 200: NoteJson } }, async (request) => {
      const { ctx, input } = request
      const target = await noteableOf(ctx, input)
      return presentNote(await showNote(ctx, target, input.note_id), presentOptions(ctx))
    })

    // GL notes.rb POST and process_note_creation_result: 202 with what the commands did when the comment held only
    // quick actions, else the note with its `commands_changes`.
    api.post(notes, { params: CreateNoteParams, response: { 201: NoteJson, 202: NoteCommandsJson } }, async (request, reply) => {
      const { ctx, input } = request
      const target = await noteableOf(ctx, input)
      const created = await createNoteWithCommands(
        ctx,
        target,
        {
          body: input.body,
          internal: input.internal === true || input.confidential === true,
          createdAt: input.created_at,
          spam: spamRequestOf(request.headers, request.ip),
        },
        touchNoteable,
        readCommands[type],
        { mergeRequestDiffHeadSha: input.merge_request_diff_head_sha },
      )
      if (created.view === null) return reply.code(202).send({ commands_changes: created.changes, summary: created.summary })
      return reply.code(201).send({ ...presentNote(created.view, presentOptions(ctx)), commands_changes: created.changes })
    })

    api.put(`${notes}/:note_id`, { params: UpdateNoteParams, response: { 200: NoteJson } }, async (request) => {
      const { ctx, input } = request
      // Grape's `allow_blank: false` on body.
      if (input.body !== undefined && input.body.trim() === '') throw new ParamError('body is empty')
      const target = await noteableOf(ctx, input)
      const view = await updateNote(
        ctx,
        target,
        input.note_id,
        {
          body: input.body,
          confidential: input.confidential,
          spam: spamRequestOf(request.headers, request.ip),
        },
        touchNoteable,
      )
      return presentNote(view, presentOptions(ctx))
    })

    api.delete(`${notes}/:note_id`, { params: NoteParams }, async (request, reply) => {
      const { ctx, input } = request
      const target = await noteableOf(ctx, input)
      await deleteNote(ctx, target, input.note_id, unmodifiedSinceOf(request.headers['if-unmodified-since']))
      return reply.code(204).send()
    })
  }
}
