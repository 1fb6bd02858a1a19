import { Type } from '@sinclair/typebox'
import type { Context } from '../../core/context.js'
import { MissingParam } from '../../core/errors.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { findMergeRequestByIid, findProject, type LoadedProject } from '../access/index.js'
import { pageOfArray } from '../commits/index.js'
import { touchIssuable } from '../issuables/index.js'
import {
  createNote,
  DiscussionJson,
  findDiscussion,
  findNoteable,
  listDiscussions,
  newDiscussionId,
  NoteJson,
  presentNote,
  replyToDiscussion,
  resolveDiscussion,
  type DiscussionView,
} from '../notes/index.js'
import { spamRequestOf } from '../spam/index.js'
import type { PresentOptions } from '../users/index.js'
import { diffNoteThread, type DiffPositionInput } from './discussions.js'
import {
  CreateDiscussionParams,
  DiscussionParams,
  ListDiscussionsParams,
  ReplyToDiscussionParams,
  ResolveDiscussionParams,
} from './schemas.js'

function presentOptions(ctx: Context): PresentOptions {
  return { viewer: ctx.caller, externalUrl: ctx.config.externalUrl, now: ctx.now() }
}

function presentDiscussion(discussion: DiscussionView, options: PresentOptions): DiscussionJson {
  return {
    id: discussion.id,
    individual_note: discussion.individualNote,
    notes: discussion.notes.map((view) => presentNote(view, options)),
  }
}

async function targetOf(ctx: Context, input: { id: string; noteable_id: number }) {
  const loaded = await findProject(ctx, input.id)
  return { loaded, target: await findNoteable(ctx, loaded, 'MergeRequest', input.noteable_id) }
}

/** GL discussions.rb `position`: a Hash whose four required fields are reported as any missing param is. */
function positionOf(position: Record<string, unknown>): DiffPositionInput {
  for (const name of ['base_sha', 'start_sha', 'head_sha', 'position_type']) {
    if (typeof position[name] !== 'string' || position[name] === '') throw new MissingParam(`position[${name}]`)
  }
  return {
    baseSha: position.base_sha as string,
    startSha: position.start_sha as string,
    headSha: position.head_sha as string,
    positionType: position.position_type as string,
    oldPath: position.old_path as string | undefined,
    newPath: position.new_path as string | undefined,
    oldLine: (position.old_line as number | undefined) ?? null,
    newLine: (position.new_line as number | undefined) ?? null,
  }
}

async function mergeRequestRowOf(ctx: Context, loaded: LoadedProject, iid: number) {
  // findNoteable has found it as the caller may see it.
  return (await findMergeRequestByIid(ctx.db, loaded.project.id, iid))!
}

/** A merge request's threads: list, show, start one (on a diff line with `position`), reply, resolve (GL discussions.rb). */
export function registerMergeRequestDiscussionRoutes(api: ApiRouter) {
  const discussions = '/projects/:id/merge_requests/:noteable_id/discussions'

  api.get(discussions, { params: ListDiscussionsParams, response: { 200: Type.Array(DiscussionJson) } }, async (request, reply) => {
    const { ctx, input } = request
    const { page, perPage } = offsetWindow(input, ctx.settings)
    const { target } = await targetOf(ctx, input)
    const shown = pageOfArray(await listDiscussions(ctx, target), page, perPage)
    setOffsetHeaders(request, reply, ctx.config.externalUrl, shown)
    const options = presentOptions(ctx)
    return shown.rows.map((discussion) => presentDiscussion(discussion, options))
  })

  api.get(`${discussions}/:discussion_id`, { params: DiscussionParams, response: { 200: DiscussionJson } }, async (request) => {
    const { ctx, input } = request
    const { target } = await targetOf(ctx, input)
    return presentDiscussion(await findDiscussion(ctx, target, input.discussion_id), presentOptions(ctx))
  })

  api.post(discussions, { params: CreateDiscussionParams, response: { 201: DiscussionJson } }, async (request, reply) => {
    const { ctx, input } = request
    const { loaded, target } = await targetOf(ctx, input)
    const thread = input.position
      ? await diffNoteThread(ctx, loaded, await mergeRequestRowOf(ctx, loaded, input.noteable_id), positionOf(input.position))
      : undefined
    const view = await createNote(
      ctx,
      target,
      {
        body: input.body,
        internal: false,
        createdAt: input.created_at,
        spam: spamRequestOf(request.headers, request.ip),
        thread: thread ?? { type: 'DiscussionNote', discussionId: newDiscussionId(), position: null, lineCode: null },
      },
      touchIssuable,
    )
    const discussion = await findDiscussion(ctx, target, view.row.discussion_id!)
    return reply.code(201).send(presentDiscussion(discussion, presentOptions(ctx)))
  })

  api.post(
    `${discussions}/:discussion_id/notes`,
    { params: ReplyToDiscussionParams, response: { 201: NoteJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const { target } = await targetOf(ctx, input)
      const view = await replyToDiscussion(
        ctx,
        target,
        input.discussion_id,
        { body: input.body, internal: false, createdAt: input.created_at, spam: spamRequestOf(request.headers, request.ip) },
        touchIssuable,
      )
      return reply.code(201).send(presentNote(view, presentOptions(ctx)))
    },
  )

  api.put(`${discussions}/:discussion_id`, { params: ResolveDiscussionParams, response: { 200: DiscussionJson } }, async (request) => {
    const { ctx, input } = request
    const { loaded, target } = await targetOf(ctx, input)
    const row = await mergeRequestRowOf(ctx, loaded, input.noteable_id)
    const discussion = await resolveDiscussion(ctx, target, input.discussion_id, input.resolved, row.author_id)
    return presentDiscussion(discussion, presentOptions(ctx))
  })
}
