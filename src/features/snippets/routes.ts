import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Context } from '../../core/context.js'
import { MissingParam, ParamError } from '../../core/errors.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import { adminOnly, mergedParams, type ApiRouter } from '../../http/route.js'
import { spamRequestOf } from '../spam/index.js'
import { presentSnippet } from './present.js'
import { sendSnippetContent, sendSnippetFile } from './raw.js'
import {
  CreateProjectSnippetParams,
  CreateSnippetParams,
  ListAllSnippetsParams,
  ListSnippetsParams,
  ProjectSnippetFileParams,
  ProjectSnippetIdParams,
  ProjectSnippetListParams,
  SnippetFileParams,
  SnippetIdParams,
  SnippetJson,
  SnippetListJson,
  UpdateProjectSnippetParams,
  UpdateSnippetParams,
  type SnippetFileAction,
} from './schemas.js'
import {
  authorizeProjectSnippets,
  buildSnippetView,
  buildSnippetViews,
  createSnippet,
  deleteSnippet,
  findAuthoredSnippet,
  findProjectSnippet,
  findSnippet,
  findSnippetUserAgentDetail,
  listProjectSnippets,
  listSnippets,
  readSnippetFile,
  snippetPresentOptions,
  updateSnippet,
  type CreateSnippetInput,
  type LoadedSnippet,
  type UpdateSnippetInput,
} from './service.js'
import type { SnippetRow } from '../../db/schema.js'
import type { OffsetPage } from '../../db/pagination.js'
import { findProject } from '../access/index.js'

/** Ruby's `blank?` for strings: empty or whitespace only. */
function isBlank(value: string | undefined): boolean {
  return value !== undefined && value.trim() === ''
}

/** GL API::Validations::Validators::FilePath: no traversal, no absolute path. */
function isValidFilePath(path: string): boolean {
  if (path.includes('\0') || path.startsWith('/')) return false
  return !path.split(/[\\/]/).some((segment) => segment === '..' || /^%2e%2e$/i.test(segment))
}

function refuse(problems: string[]) {
  if (problems.length > 0) throw new ParamError([...new Set(problems)].join(', '))
}

/** Grape's validations of POST /snippets and /projects/:id/snippets (GL SnippetsHelpers `create_file_params`). */
function createInputOf(
  raw: Record<string, unknown>,
  input: {
    title: string
    description?: string
    visibility: CreateSnippetInput['visibility']
    files?: { file_path?: string; content?: string }[]
    content?: string
    file_name?: string
  },
): CreateSnippetInput {
  const hasFiles = raw.files !== undefined && raw.files !== null
  const hasContent = raw.content !== undefined && raw.content !== null
  if (hasContent && input.file_name === undefined) throw new MissingParam('file_name')
  const files = input.files ?? []
  files.forEach((file, index) => {
    if (file.file_path === undefined) throw new MissingParam(`files[${index}][file_path]`)
    if (file.content === undefined) throw new MissingParam(`files[${index}][content]`)
  })
  const problems: string[] = []
  if (isBlank(input.title)) problems.push('title is empty')
  files.forEach((file, index) => {
    if (isBlank(file.file_path)) problems.push(`files[${index}][file_path] is empty`)
    else if (!isValidFilePath(file.file_path ?? '')) problems.push(`files[${index}][file_path] should be a valid file path`)
    if (isBlank(file.content)) problems.push(`files[${index}][content] is empty`)
  })
  if (isBlank(input.content)) problems.push('content is empty')
  if (hasFiles && hasContent) problems.push('files, content are mutually exclusive')
  if (!hasFiles && !hasContent) problems.push('files, content are missing, exactly one parameter must be provided')
  if (hasFiles && files.length === 0) problems.push('files is empty')
  refuse(problems)
  return {
    title: input.title,
    description: input.description,
    visibility: input.visibility,
    files: hasFiles
      ? files.map((file) => ({ filePath: file.file_path ?? '', content: file.content ?? '' }))
      : [{ filePath: input.file_name ?? '', content: input.content ?? '' }],
  }
}

const UPDATE_FIELDS = ['content', 'description', 'files', 'file_name', 'title', 'visibility'] as const

/** Grape's validations of PUT /snippets/:id and /projects/:id/snippets/:snippet_id (`update_file_params`, `minimum_update_params`). */
function updateInputOf(
  raw: Record<string, unknown>,
  input: {
    title?: string
    description?: string
    visibility?: UpdateSnippetInput['visibility']
    files?: Partial<SnippetFileAction>[]
    content?: string
    file_name?: string
  },
): UpdateSnippetInput {
  const files = input.files
  files?.forEach((file, index) => {
    if (file.action === undefined) throw new MissingParam(`files[${index}][action]`)
  })
  const problems: string[] = []
  if (isBlank(input.content)) problems.push('content is empty')
  if (isBlank(input.title)) problems.push('title is empty')
  files?.forEach((file, index) => {
    if (file.file_path !== undefined && file.file_path !== '' && !isValidFilePath(file.file_path)) {
      problems.push(`files[${index}][file_path] should be a valid file path`)
    }
    if (file.previous_path !== undefined && file.previous_path !== '' && !isValidFilePath(file.previous_path)) {
      problems.push(`files[${index}][previous_path] should be a valid file path`)
    }
  })
  const given = (key: string) => raw[key] !== undefined && raw[key] !== null
  if (given('files') && given('content')) problems.push('files, content are mutually exclusive')
  if (given('files') && given('file_name')) problems.push('files, file_name are mutually exclusive')
  if (!UPDATE_FIELDS.some((field) => field in raw)) {
    problems.push(`${UPDATE_FIELDS.join(', ')} are missing, at least one parameter must be provided`)
  }
  refuse(problems)
  return {
    title: input.title,
    description: input.description,
    visibility: input.visibility,
    files: files as SnippetFileAction[] | undefined,
    content: input.content,
    fileName: input.file_name,
  }
}

async function presentOne(ctx: Context, snippet: SnippetRow) {
  return presentSnippet(await buildSnippetView(ctx, snippet), snippetPresentOptions(ctx))
}

async function presentPage(request: FastifyRequest, reply: FastifyReply, ctx: Context, page: OffsetPage<SnippetRow>) {
  setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
  const options = snippetPresentOptions(ctx)
  return (await buildSnippetViews(ctx, page.rows)).map((view) => presentSnippet(view, options))
}

/** The file path of a raw file request, refused as Grape's FilePath validator does. */
function filePathOf(path: string): string {
  if (!isValidFilePath(path)) throw new ParamError('file_path should be a valid file path')
  return path
}

/**
 * GL project_snippets.rb `before { authenticate! }` and `before { check_snippets_enabled }`: the project is found (404)
 * and its snippets must be available to the caller (403) before any param is judged.
 */
async function projectSnippetsEnabled(request: FastifyRequest, raw: Record<string, unknown>) {
  authorizeProjectSnippets(await findProject(request.ctx, String(raw.id)))
}

export function registerSnippetRoutes(api: ApiRouter): void {
  // ----- personal snippets (GL lib/api/snippets.rb) -----

  api.get('/snippets', { params: ListSnippetsParams, response: { 200: SnippetListJson } }, async (request, reply) => {
    const { ctx, input } = request
    const window = offsetWindow(input, ctx.settings)
    const page = await listSnippets(ctx, 'authored', { createdAfter: input.created_after, createdBefore: input.created_before }, window)
    return presentPage(request, reply, ctx, page)
  })

  api.get('/snippets/public', { params: ListSnippetsParams, response: { 200: SnippetListJson } }, async (request, reply) => {
    const { ctx, input } = request
    const window = offsetWindow(input, ctx.settings)
    const page = await listSnippets(ctx, 'public', { createdAfter: input.created_after, createdBefore: input.created_before }, window)
    return presentPage(request, reply, ctx, page)
  })

  api.get('/snippets/all', { params: ListAllSnippetsParams, response: { 200: SnippetListJson } }, async (request, reply) => {
    const { ctx, input } = request
    const window = offsetWindow(input, ctx.settings)
    const filters = { createdAfter: input.created_after, createdBefore: input.created_before, repositoryStorage: input.repository_storage }
    return presentPage(request, reply, ctx, await listSnippets(ctx, 'all', filters, window))
  })

  api.get('/snippets/:id', { params: SnippetIdParams, authenticated: false, response: { 200: SnippetJson } }, async (request) => {
    const { ctx, input } = request
    const loaded = await findSnippet(ctx, input.id)
    return presentOne(ctx, loaded.snippet)
  })

  api.get('/snippets/:id/raw', { params: SnippetIdParams, authenticated: false }, async (request, reply) => {
    const { ctx, input } = request
    return sendSnippetContent(ctx, reply, await findSnippet(ctx, input.id))
  })

  api.get('/snippets/:id/files/:ref/:file_path/raw', { params: SnippetFileParams, authenticated: false }, async (request, reply) => {
    const { ctx, input } = request
    const filePath = filePathOf(input.file_path)
    const loaded = await findSnippet(ctx, input.id)
    return sendSnippetFile(reply, filePath.split('/').pop() ?? filePath, await readSnippetFile(ctx, loaded, input.ref, filePath))
  })

  api.get('/snippets/:id/user_agent_detail', { params: SnippetIdParams, before: adminOnly }, async (request) => {
    const { ctx, input } = request
    return findSnippetUserAgentDetail(ctx, input.id)
  })

  api.post('/snippets', { params: CreateSnippetParams, response: { 201: SnippetJson } }, async (request, reply) => {
    const { ctx, input } = request
    const snippetInput = createInputOf(mergedParams(request), input)
    const snippet = await createSnippet(ctx, null, snippetInput, spamRequestOf(request.headers, request.ip))
    return reply.code(201).send(await presentOne(ctx, snippet))
  })

  api.put('/snippets/:id', { params: UpdateSnippetParams, response: { 200: SnippetJson } }, async (request) => {
    const { ctx, input } = request
    const snippetInput = updateInputOf(mergedParams(request), input)
    const loaded = await findAuthoredSnippet(ctx, input.id)
    return presentOne(ctx, await updateSnippet(ctx, loaded, snippetInput, spamRequestOf(request.headers, request.ip)))
  })

  api.delete('/snippets/:id', { params: SnippetIdParams }, async (request, reply) => {
    const { ctx, input } = request
    await deleteSnippet(ctx, await findAuthoredSnippet(ctx, input.id))
    return reply.code(204).send()
  })

  // ----- project snippets (GL lib/api/project_snippets.rb) -----

  api.get(
    '/projects/:id/snippets',
    { params: ProjectSnippetListParams, before: projectSnippetsEnabled, response: { 200: SnippetListJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const window = offsetWindow(input, ctx.settings)
      const project = await findProject(ctx, input.id)
      return presentPage(request, reply, ctx, await listProjectSnippets(ctx, project, window))
    },
  )

  api.get(
    '/projects/:id/snippets/:snippet_id',
    { params: ProjectSnippetIdParams, before: projectSnippetsEnabled, response: { 200: SnippetJson } },
    async (request) => {
      const { ctx, input } = request
      const loaded = await findProjectSnippetFor(ctx, input.id, input.snippet_id)
      return presentOne(ctx, loaded.snippet)
    },
  )

  api.get(
    '/projects/:id/snippets/:snippet_id/raw',
    { params: ProjectSnippetIdParams, before: projectSnippetsEnabled },
    async (request, reply) => {
      const { ctx, input } = request
      return sendSnippetContent(ctx, reply, await findProjectSnippetFor(ctx, input.id, input.snippet_id))
    },
  )

  api.get(
    '/projects/:id/snippets/:snippet_id/files/:ref/:file_path/raw',
    { params: ProjectSnippetFileParams, before: projectSnippetsEnabled },
    async (request, reply) => {
      const { ctx, input } = request
      const filePath = filePathOf(input.file_path)
      const loaded = await findProjectSnippetFor(ctx, input.id, input.snippet_id)
      return sendSnippetFile(reply, filePath.split('/').pop() ?? filePath, await readSnippetFile(ctx, loaded, input.ref, filePath))
    },
  )

  api.get(
    '/projects/:id/snippets/:snippet_id/user_agent_detail',
    { params: ProjectSnippetIdParams, before: adminOnly },
    async (request) => {
      const { ctx, input } = request
      const project = await findProject(ctx, input.id)
      return findSnippetUserAgentDetail(ctx, input.snippet_id, project.project.id)
    },
  )

  api.post(
    '/projects/:id/snippets',
    { params: CreateProjectSnippetParams, before: projectSnippetsEnabled, response: { 201: SnippetJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const snippetInput = createInputOf(mergedParams(request), input)
      const project = await findProject(ctx, input.id)
      authorizeProjectSnippets(project)
      const snippet = await createSnippet(ctx, project, snippetInput, spamRequestOf(request.headers, request.ip))
      return reply.code(201).send(await presentOne(ctx, snippet))
    },
  )

  api.put(
    '/projects/:id/snippets/:snippet_id',
    { params: UpdateProjectSnippetParams, before: projectSnippetsEnabled, response: { 200: SnippetJson } },
    async (request) => {
      const { ctx, input } = request
      const snippetInput = updateInputOf(mergedParams(request), input)
      const loaded = await findProjectSnippetFor(ctx, input.id, input.snippet_id)
      return presentOne(ctx, await updateSnippet(ctx, loaded, snippetInput, spamRequestOf(request.headers, request.ip)))
    },
  )

  api.delete(
    '/projects/:id/snippets/:snippet_id',
    { params: ProjectSnippetIdParams, before: projectSnippetsEnabled },
    async (request, reply) => {
      const { ctx, input } = request
      await deleteSnippet(ctx, await findProjectSnippetFor(ctx, input.id, input.snippet_id))
      return reply.code(204).send()
    },
  )
}

async function findProjectSnippetFor(ctx: Context, projectId: string, snippetId: number): Promise<LoadedSnippet> {
  const project = await findProject(ctx, projectId)
  authorizeProjectSnippets(project)
  return findProjectSnippet(ctx, project, snippetId)
}
