import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Context } from '../../core/context.js'
import { ParamError } from '../../core/errors.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import { mergedParams, type ApiRouter } from '../../http/route.js'
import { groupLabelsJson, presentGroupLabel, presentProjectLabel, presentPromotedLabel, projectLabelsJson } from './present.js'
import {
  CreateGroupLabelParams,
  CreateProjectLabelParams,
  DeleteProjectLabelByParamParams,
  GroupLabelJson,
  GroupLabelListResponse,
  LabelByNameParams,
  LabelParams,
  ListGroupLabelsParams,
  ListProjectLabelsParams,
  ProjectLabelJson,
  ProjectLabelListResponse,
  PromotedLabelJson,
  ShowGroupLabelParams,
  ShowProjectLabelParams,
  SubscriptionParams,
  UpdateGroupLabelByParamParams,
  UpdateGroupLabelParams,
  UpdateProjectLabelByParamParams,
  UpdateProjectLabelParams,
} from './schemas.js'
import {
  createLabel,
  deleteLabel,
  listLabels,
  promoteLabel,
  showLabel,
  subscribeToLabel,
  updateLabel,
  type LabelParent,
  type LabelView,
  type UpdateLabelInput,
} from './service.js'
import { unmodifiedSinceOf } from '../../http/params.js'
import { findGroup, findProject } from '../access/index.js'

async function projectParent(ctx: Context, id: string): Promise<LabelParent> {
  return { kind: 'project', loaded: await findProject(ctx, id) }
}

async function groupParent(ctx: Context, id: string): Promise<LabelParent> {
  return { kind: 'group', loaded: await findGroup(ctx, id) }
}

/**
 * Grape's `at_least_one_of` over the update fields, which counts a param as given when its key is present, even
 * blank. The contract's edit table asks for new_name or color; GitLab (and python-gitlab, which saves a changed
 * description alone) also accepts description or priority alone, so svc reads it as GitLab's rule (spec: Labels).
 */
function updateProblem(raw: Record<string, unknown>, fields: readonly string[]): string | null {
  return fields.some((field) => field in raw) ? null : `${fields.join(', ')} are missing, at least one parameter must be provided`
}

/** Grape's `exactly_one_of :label_id, :name`. */
function identifierProblem(raw: Record<string, unknown>): string | null {
  const given = ['label_id', 'name'].filter((field) => field in raw)
  if (given.length === 0) return 'label_id, name are missing, exactly one parameter must be provided'
  if (given.length > 1) return 'label_id, name are mutually exclusive'
  return null
}

function refuse(problems: (string | null)[]) {
  const found = problems.filter((problem): problem is string => problem !== null)
  if (found.length > 0) throw new ParamError(found.join(', '))
}

/** The update fields given; a present but blank `priority` removes the priority (Grape's `allow_blank` Integer is nil). */
function updateInputOf(
  raw: Record<string, unknown>,
  input: { new_name?: string; color?: string; description?: string | null; priority?: number | null },
): UpdateLabelInput {
  return {
    newName: input.new_name,
    color: input.color,
    description: input.description,
    priority: 'priority' in raw ? (input.priority ?? null) : undefined,
  }
}

function sendList(request: FastifyRequest, reply: FastifyReply, ctx: Context, page: Parameters<typeof setOffsetHeaders>[3]) {
  setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
}

const PROJECT_UPDATE_FIELDS = ['new_name', 'color', 'description', 'priority'] as const
const GROUP_UPDATE_FIELDS = ['new_name', 'color', 'description'] as const

export function registerLabelRoutes(api: ApiRouter) {
  // ----- project labels (GL lib/api/labels.rb) -----

  api.get(
    '/projects/:id/labels',
    { params: ListProjectLabelsParams, response: { 200: ProjectLabelListResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const parent = await projectParent(ctx, input.id)
      const list = await listLabels(ctx, parent, {
        withCounts: input.with_counts,
        includeAncestorGroups: input.include_ancestor_groups,
        search: input.search,
        page,
        perPage,
      })
      sendList(request, reply, ctx, list.page)
      return reply.type('application/json').send(projectLabelsJson(list.views))
    },
  )

  api.get('/projects/:id/labels/:label_id', { params: ShowProjectLabelParams, response: { 200: ProjectLabelJson } }, async (request) => {
    const { ctx, input } = request
    const parent = await projectParent(ctx, input.id)
    return presentProjectLabel(await showLabel(ctx, parent, input.label_id, { includeAncestorGroups: input.include_ancestor_groups }))
  })

  api.post('/projects/:id/labels', { params: CreateProjectLabelParams, response: { 201: ProjectLabelJson } }, async (request, reply) => {
    const { ctx, input } = request
    const parent = await projectParent(ctx, input.id)
    const view = await createLabel(ctx, parent, {
      name: input.name,
      color: input.color,
      description: input.description,
      priority: input.priority,
    })
    return reply.code(201).send(presentProjectLabel(view))
  })

  api.put('/projects/:id/labels/:label_id', { params: UpdateProjectLabelParams, response: { 200: ProjectLabelJson } }, async (request) => {
    const { ctx, input } = request
    const raw = mergedParams(request)
    refuse([updateProblem(raw, PROJECT_UPDATE_FIELDS)])
    const parent = await projectParent(ctx, input.id)
    return presentProjectLabel(await updateLabel(ctx, parent, input.label_id, updateInputOf(raw, input)))
  })

  // Deprecated: the label named by `label_id` or `name` in the params (spec: Labels, deprecated older forms).
  api.put('/projects/:id/labels', { params: UpdateProjectLabelByParamParams, response: { 200: ProjectLabelJson } }, async (request) => {
    const { ctx, input } = request
    const raw = mergedParams(request)
    refuse([updateProblem(raw, PROJECT_UPDATE_FIELDS), identifierProblem(raw)])
    const parent = await projectParent(ctx, input.id)
    const idOrTitle = input.label_id !== undefined ? String(input.label_id) : (input.name ?? '')
    return presentProjectLabel(await updateLabel(ctx, parent, idOrTitle, updateInputOf(raw, input)))
  })

  api.delete('/projects/:id/labels/:label_id', { params: LabelParams }, async (request, reply) => {
    const { ctx, input } = request
    const parent = await projectParent(ctx, input.id)
    await deleteLabel(ctx, parent, input.label_id, unmodifiedSinceOf(request.headers['if-unmodified-since']))
    return reply.code(204).send()
  })

  api.delete('/projects/:id/labels', { params: DeleteProjectLabelByParamParams }, async (request, reply) => {
    const { ctx, input } = request
    refuse([identifierProblem(mergedParams(request))])
    const parent = await projectParent(ctx, input.id)
    const idOrTitle = input.label_id !== undefined ? String(input.label_id) : (input.name ?? '')
    await deleteLabel(ctx, parent, idOrTitle, unmodifiedSinceOf(request.headers['if-unmodified-since']))
    return reply.code(204).send()
  })

  api.put('/projects/:id/labels/:label_id/promote', { params: LabelParams, response: { 200: PromotedLabelJson } }, async (request) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    return presentPromotedLabel(await promoteLabel(ctx, loaded, input.label_id))
  })

  api.put('/projects/:id/labels/promote', { params: LabelByNameParams, response: { 200: PromotedLabelJson } }, async (request) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    return presentPromotedLabel(await promoteLabel(ctx, loaded, input.name))
  })

  // ----- group labels (GL lib/api/group_labels.rb) -----

  api.get('/groups/:id/labels', { params: ListGroupLabelsParams, response: { 200: GroupLabelListResponse } }, async (request, reply) => {
    const { ctx, input } = request
    const { page, perPage } = offsetWindow(input, ctx.settings)
    const parent = await groupParent(ctx, input.id)
    const list = await listLabels(ctx, parent, {
      withCounts: input.with_counts,
      includeAncestorGroups: input.include_ancestor_groups,
      includeDescendantGroups: input.include_descendant_groups,
      onlyGroupLabels: input.only_group_labels,
      search: input.search,
      page,
      perPage,
    })
    sendList(request, reply, ctx, list.page)
    return reply.type('application/json').send(groupLabelsJson(list.views))
  })

  api.get('/groups/:id/labels/:label_id', { params: ShowGroupLabelParams, response: { 200: GroupLabelJson } }, async (request) => {
    const { ctx, input } = request
    const parent = await groupParent(ctx, input.id)
    const view = await showLabel(ctx, parent, input.label_id, {
      includeAncestorGroups: input.include_ancestor_groups,
      includeDescendantGroups: input.include_descendant_groups,
      onlyGroupLabels: input.only_group_labels,
    })
    return presentGroupLabel(view)
  })

  api.post('/groups/:id/labels', { params: CreateGroupLabelParams, response: { 201: GroupLabelJson } }, async (request, reply) => {
    const { ctx, input } = request
    const parent = await groupParent(ctx, input.id)
    const view = await createLabel(ctx, parent, { name: input.name, color: input.color, description: input.description })
    return reply.code(201).send(presentGroupLabel(view))
  })

  api.put('/groups/:id/labels/:label_id', { params: UpdateGroupLabelParams, response: { 200: GroupLabelJson } }, async (request) => {
    const { ctx, input } = request
    const raw = mergedParams(request)
    refuse([updateProblem(raw, GROUP_UPDATE_FIELDS)])
    const parent = await groupParent(ctx, input.id)
    return presentGroupLabel(await updateLabel(ctx, parent, input.label_id, { ...updateInputOf(raw, input), priority: undefined }))
  })

  api.put('/groups/:id/labels', { params: UpdateGroupLabelByParamParams, response: { 200: GroupLabelJson } }, async (request) => {
    const { ctx, input } = request
    const raw = mergedParams(request)
    refuse([updateProblem(raw, GROUP_UPDATE_FIELDS), identifierProblem(raw)])
    const parent = await groupParent(ctx, input.id)
    const idOrTitle = input.label_id !== undefined ? String(input.label_id) : (input.name ?? '')
    return presentGroupLabel(await updateLabel(ctx, parent, idOrTitle, { ...updateInputOf(raw, input), priority: undefined }))
  })

  api.delete('/groups/:id/labels/:label_id', { params: LabelParams }, async (request, reply) => {
    const { ctx, input } = request
    const parent = await groupParent(ctx, input.id)
    await deleteLabel(ctx, parent, input.label_id, unmodifiedSinceOf(request.headers['if-unmodified-since']))
    return reply.code(204).send()
  })

  api.delete('/groups/:id/labels', { params: LabelByNameParams }, async (request, reply) => {
    const { ctx, input } = request
    const parent = await groupParent(ctx, input.id)
    await deleteLabel(ctx, parent, input.name, unmodifiedSinceOf(request.headers['if-unmodified-since']))
    return reply.code(204).send()
  })

  // ----- subscriptions (GL lib/api/subscriptions.rb) -----

  // GitLab answers with Entities::Label whose `subscribed` ignores per-project subscriptions; svc answers with the
  // label object of the contract (spec: Labels, "the label object (… subscribe)"), its `subscribed` as in GET.
  for (const [plural, present] of [
    ['projects', presentProjectLabel],
    ['groups', presentGroupLabel],
  ] as const) {
    const response = { 201: plural === 'projects' ? ProjectLabelJson : GroupLabelJson }
    for (const action of ['subscribe', 'unsubscribe'] as const) {
      api.post(`/${plural}/:id/labels/:label_id/${action}`, { params: SubscriptionParams, response }, async (request, reply) => {
        const { ctx, input } = request
        const parent = plural === 'projects' ? await projectParent(ctx, input.id) : await groupParent(ctx, input.id)
        const view: LabelView | null = await subscribeToLabel(ctx, parent, input.label_id, action === 'subscribe')
        // Nothing changed: 304 with no body (spec: Errors).
        if (!view) return reply.code(304).send()
        return reply.code(201).send(present(view))
      })
    }
  }
}
