import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { MissingParam, ParamError } from '../../core/errors.js'
import type { ApiRouter } from '../../http/route.js'
import { findProject } from '../access/index.js'
import { contentOf } from '../commit-actions/index.js'
import { base64JsonStream, blobContentType, blobDisposition, destroyOnClose } from '../repositories/index.js'
import { blameRangesOf, openBlame } from './blame.js'
import { blameJsonOf, contentDisposition, fileHeaders, presentBlameRange, presentFile } from './present.js'
import {
  BlameListResponse,
  BlameParams,
  DeleteFileParams,
  FileCommitJson,
  FileJson,
  RawFileParams,
  ReadFileParams,
  WriteFileParams,
} from './schemas.js'
import { createRepositoryFile, deleteRepositoryFile, readRepositoryFile, updateRepositoryFile } from './service.js'

const INVALID_FILE_PATH = 'file_path should be a valid file path'

/** CGI.unescape: `+` is a space, `%XX` a byte; anything else is kept. */
function cgiUnescape(text: string): string {
  const bytes = Buffer.from(
    text.replace(/\+/g, ' ').replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  )
  return bytes.toString('utf8')
}

const TRAVERSAL = /(^\.{1,2}$|^\.\.[/\\]|[/\\]\.\.$|[/\\]\.\.[/\\]|\n)/

/**
 * GL API::Validations::Validators::FilePath: no path that decodes once more to something else (encoded twice), no `..`
 * segment (with either slash) or line break, and no absolute path: 400 `{"error":"file_path should be a valid file path"}`.
 */
function checkFilePath(filePath: string) {
  const decoded = cgiUnescape(filePath)
  if (decoded !== cgiUnescape(decoded) || TRAVERSAL.test(decoded) || decoded.startsWith('/')) throw new ParamError(INVALID_FILE_PATH)
}

/**
 * The file path as the client sent it. The app strips a `.json` format suffix from every path before routing, but a
 * file path takes the whole segment (GL's file_path requirement is greedy), so `package.json` is read from the URL.
 */
function filePathOf(request: FastifyRequest, parsed: string): string {
  const original = (request.originalUrl ?? request.url).split('?')[0]
  const match = /\/repository\/files\/([^/]+)$/.exec(original)
  if (!match || !match[1].endsWith('.json')) return parsed
  try {
    return decodeURIComponent(match[1])
  } catch {
    return parsed
  }
}

function requireNotBlank(fields: Record<string, string>) {
  const blank = Object.entries(fields)
    .filter(([, value]) => value.trim() === '')
    .map(([name]) => `${name} is empty`)
  if (blank.length > 0) throw new ParamError(blank.join(', '))
}

function sendHeaders(reply: FastifyReply, headers: Record<string, string>) {
  for (const [name, value] of Object.entries(headers)) reply.header(name, value)
}

// GL `no_cache_headers`.
const NO_CACHE_HEADERS = {
  'cache-control': 'max-age=0, private, must-revalidate, no-store, no-cache',
  pragma: 'no-cache',
  expires: 'Fri, 01 Jan 1990 00:00:00 GMT',
}

const read = { authenticated: false, scopes: ['read_repository'] } as const

export function registerRepositoryFileRoutes(api: ApiRouter) {
  // ----- GL lib/api/files.rb -----

  api.get(
    '/projects/:id/repository/files/:file_path/blame',
    { ...read, params: BlameParams, response: { 200: BlameListResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      checkFilePath(input.file_path)
      requireNotBlank({ ref: input.ref })
      let range: { start: number; end: number } | null = null
      if (input.range !== undefined) {
        if (input.range.start === undefined) throw new MissingParam('range[start]')
        if (input.range.end === undefined) throw new MissingParam('range[end]')
        range = { start: input.range.start, end: input.range.end }
      }
      const loaded = await findProject(ctx, input.id)
      const file = await readRepositoryFile(ctx, loaded, input.file_path, input.ref)
      sendHeaders(reply, fileHeaders(file))
      if (request.method === 'HEAD') return reply.send()
      const lines = await openBlame(ctx, loaded, file, range)
      if (file.content !== null) return (await blameRangesOf(lines)).map(presentBlameRange)
      // A large file's blame is written as git writes it (GitLab answers it whole, however large).
      const body = Readable.from(blameJsonOf(lines), { objectMode: false })
      destroyOnClose(body, reply.raw)
      return reply.type('application/json').send(body)
    },
  )

  api.get('/projects/:id/repository/files/:file_path/raw', { ...read, params: RawFileParams }, async (request, reply) => {
    const { ctx, input } = request
    checkFilePath(input.file_path)
    if (input.ref !== undefined) requireNotBlank({ ref: input.ref })
    const loaded = await findProject(ctx, input.id)
    const file = await readRepositoryFile(ctx, loaded, input.file_path, input.ref)
    const type = blobContentType(file.head)
    sendHeaders(reply, { ...NO_CACHE_HEADERS, ...fileHeaders(file) })
    reply.header('content-type', type).header('content-disposition', contentDisposition(blobDisposition(type), file.name))
    if (file.content !== null) return reply.send(file.content)
    const body = await file.open()
    destroyOnClose(body, reply.raw)
    return reply.header('content-length', String(file.size)).send(body)
  })

  api.get(
    '/projects/:id/repository/files/:file_path',
    { ...read, params: ReadFileParams, response: { 200: FileJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const filePath = filePathOf(request, input.file_path)
      checkFilePath(filePath)
      requireNotBlank({ ref: input.ref })
      const loaded = await findProject(ctx, input.id)
      const file = await readRepositoryFile(ctx, loaded, filePath, input.ref)
      sendHeaders(reply, fileHeaders(file))
      // HEAD answers the headers only (GL `head ":id/repository/files/:file_path"`).
      if (request.method === 'HEAD') return reply.send()
      if (file.content !== null) return presentFile({ ...file, content: file.content })
      // GitLab loads a large file whole into the same JSON; it is written here as git streams it.
      const json = presentFile({ ...file, content: Buffer.alloc(0) })
      const { body, length } = base64JsonStream(json, 'content', await file.open(), file.size)
      destroyOnClose(body, reply.raw)
      return reply.type('application/json').header('content-length', String(length)).send(body)
    },
  )

  const writeOf = (input: WriteFileParams | DeleteFileParams) => ({
    branch: input.branch,
    startBranch: input.start_branch,
    message: input.commit_message,
    lastCommitId: input.last_commit_id,
    authorName: input.author_name,
    authorEmail: input.author_email,
  })

  const contentWriteOf = (input: WriteFileParams) => ({
    ...writeOf(input),
    content: contentOf(input.content ?? '', input.encoding, 'content'),
    executable: input.execute_filemode,
  })

  api.post(
    '/projects/:id/repository/files/:file_path',
    { params: WriteFileParams, response: { 201: FileCommitJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const filePath = filePathOf(request, input.file_path)
      checkFilePath(filePath)
      requireNotBlank({ branch: input.branch, commit_message: input.commit_message })
      const loaded = await findProject(ctx, input.id)
      await createRepositoryFile(ctx, loaded, filePath, contentWriteOf(input))
      return reply.code(201).send({ file_path: filePath, branch: input.branch })
    },
  )

  api.put('/projects/:id/repository/files/:file_path', { params: WriteFileParams, response: { 200: FileCommitJson } }, async (request) => {
    const { ctx, input } = request
    const filePath = filePathOf(request, input.file_path)
    checkFilePath(filePath)
    requireNotBlank({ branch: input.branch, commit_message: input.commit_message })
    const loaded = await findProject(ctx, input.id)
    await updateRepositoryFile(ctx, loaded, filePath, contentWriteOf(input))
    return { file_path: filePath, branch: input.branch }
  })

  api.delete('/projects/:id/repository/files/:file_path', { params: DeleteFileParams }, async (request, reply) => {
    const { ctx, input } = request
    const filePath = filePathOf(request, input.file_path)
    checkFilePath(filePath)
    requireNotBlank({ branch: input.branch, commit_message: input.commit_message })
    const loaded = await findProject(ctx, input.id)
    await deleteRepositoryFile(ctx, loaded, filePath, writeOf(input))
    return reply.code(204).send()
  })
}
