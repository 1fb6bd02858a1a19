import type { Context } from '../../core/context.js'
import { isoDate } from '../../core/time.js'
import { ParamError } from '../../core/errors.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { presentMilestone, type MilestonePresentOptions } from './present.js'
import {
  CreateMilestoneParams,
  ListMilestonesParams,
  MilestoneJson,
  MilestoneListResponse,
  MilestoneParams,
  UpdateMilestoneParams,
} from './schemas.js'
import { createMilestone, deleteMilestone, listMilestones, showMilestone, updateMilestone } from './service.js'
import { findProject, type LoadedProject } from '../access/index.js'

function presentOptions(ctx: Context, loaded: LoadedProject): MilestonePresentOptions {
  return { externalUrl: ctx.config.externalUrl, projectFullPath: loaded.project.full_path, today: isoDate(ctx.now()) }
}

/** A blank filter filters nothing, as Ruby's `params[:x].present?` and fuzzy search of a blank query do. */
function presentOrNull(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value
}

export function registerMilestoneRoutes(api: ApiRouter) {
  const milestones = '/projects/:id/milestones'

  api.get(milestones, { params: ListMilestonesParams, response: { 200: MilestoneListResponse } }, async (request, reply) => {
    const { ctx, input } = request
    const { page, perPage } = offsetWindow(input, ctx.settings)
    const loaded = await findProject(ctx, input.id)
    const withAncestors = input.include_ancestors || input.include_parent_milestones
    const list = await listMilestones(ctx, loaded, {
      state: input.state === 'all' ? null : input.state,
      // iids name project milestones only, so GitLab ignores them once ancestors' milestones are included.
      iids: input.iids && input.iids.length > 0 && !withAncestors ? input.iids : null,
      title: input.title ?? null,
      search: presentOrNull(input.search),
      searchTitle: presentOrNull(input.search_title),
      updatedBefore: input.updated_before ?? null,
      updatedAfter: input.updated_after ?? null,
      page,
      perPage,
    })
    setOffsetHeaders(request, reply, ctx.config.externalUrl, list)
    const options = presentOptions(ctx, loaded)
    return list.rows.map((milestone) => presentMilestone(milestone, options))
  })

  api.get(`${milestones}/:milestone_id`, { params: MilestoneParams, response: { 200: MilestoneJson } }, async (request) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    return presentMilestone(await showMilestone(ctx, loaded, input.milestone_id), presentOptions(ctx, loaded))
  })

  api.post(milestones, { params: CreateMilestoneParams, response: { 201: MilestoneJson } }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    const milestone = await createMilestone(ctx, loaded, {
      title: input.title,
      description: input.description,
      dueDate: input.due_date,
      startDate: input.start_date,
    })
    return reply.code(201).send(presentMilestone(milestone, presentOptions(ctx, loaded)))
  })

  api.put(`${milestones}/:milestone_id`, { params: UpdateMilestoneParams, response: { 200: MilestoneJson } }, async (request) => {
    const { ctx, input } = request
    if (['title', 'description', 'start_date', 'due_date', 'state_event'].every((key) => input[key as keyof typeof input] === undefined)) {
      throw new ParamError('title, description, start_date, due_date, state_event are missing, at least one parameter must be provided')
    }
    const loaded = await findProject(ctx, input.id)
    const milestone = await updateMilestone(ctx, loaded, input.milestone_id, {
      title: input.title,
      description: input.description,
      dueDate: input.due_date,
      startDate: input.start_date,
      stateEvent: input.state_event,
    })
    return presentMilestone(milestone, presentOptions(ctx, loaded))
  })

  api.delete(`${milestones}/:milestone_id`, { params: MilestoneParams }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    await deleteMilestone(ctx, loaded, input.milestone_id)
    return reply.code(204).send()
  })
}
