import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Context } from '../../core/context.js'
import { ParamError } from '../../core/errors.js'
import type { ApiRouter } from '../../http/route.js'
import { findProject, type LoadedProject } from '../access/index.js'
import { CommitDetailJson, CommitJson, presentCommit, presentCommitDetail } from '../commits/index.js'
import { CherryPickParams, CreateCommitParams, DryRunJson, RevertParams } from './schemas.js'
import { assertMayCommit, assertMayReadRepository, ChangeFailed, changeCommit, createCommit, type ChangeKind } from './service.js'

function commitOptions(ctx: Context, loaded: LoadedProject) {
  return { externalUrl: ctx.config.externalUrl, projectFullPath: loaded.project.full_path }
}

const projectsOfRequests = new WeakMap<FastifyRequest, LoadedProject>()

/** GL commits.rb's `before` block, ahead of any parameter check: 404 for a project the caller cannot see, then the service's. */
async function openRepository(request: FastifyRequest, raw: Record<string, unknown>): Promise<LoadedProject> {
  const loaded = await findProject(request.ctx, String(raw.id))
  assertMayReadRepository(request.ctx, loaded)
  projectsOfRequests.set(request, loaded)
  return loaded
}

async function openRepositoryFirst(request: FastifyRequest, raw: Record<string, unknown>): Promise<void> {
  await openRepository(request, raw)
}

async function authorizeCommitting(request: FastifyRequest, raw: Record<string, unknown>) {
  assertMayCommit(request.ctx, await openRepository(request, raw))
}

function projectOf(request: FastifyRequest): LoadedProject {
  const loaded = projectsOfRequests.get(request)
  if (!loaded) throw new Error('the project was not loaded')
  return loaded
}

/** GL commits.rb's answer to a failed cherry-pick or revert: the message, GitLab's error code, and `dry_run: error`. */
function sendChangeFailure(reply: FastifyReply, error: ChangeFailed, dryRun: boolean) {
  const body: Record<string, string> = { message: error.message }
  if (error.errorCode) body.error_code = error.errorCode
  if (dryRun) body.dry_run = 'error'
  return reply.code(400).type('application/json').send(JSON.stringify(body))
}

export function registerCommitActionRoutes(api: ApiRouter) {
  // ----- GL lib/api/commits.rb: writes -----

  api.post(
    '/projects/:id/repository/commits',
    { params: CreateCommitParams, response: { 201: CommitDetailJson }, before: authorizeCommitting },
    async (request, reply) => {
      const { ctx, input } = request
      const loaded = projectOf(request)
      const { commit, stats } = await createCommit(ctx, loaded, {
        branch: input.branch,
        startBranch: input.start_branch,
        startSha: input.start_sha,
        startProject: input.start_project,
        message: input.commit_message,
        actions: input.actions,
        authorName: input.author_name,
        authorEmail: input.author_email,
        force: input.force,
        stats: input.stats,
      })
      reply.code(201)
      return presentCommitDetail(commit, { ...commitOptions(ctx, loaded), projectId: loaded.project.id, stats })
    },
  )

  const change =
    (kind: ChangeKind) =>
    async (request: FastifyRequest, reply: FastifyReply, input: { sha: string; branch: string; dry_run: boolean; message?: string }) => {
      const { ctx } = request
      // Grape's `allow_blank: false`, checked with the params.
      if (input.branch.trim() === '') throw new ParamError('branch is empty')
      const loaded = projectOf(request)
      try {
        const written = await changeCommit(ctx, loaded, input.sha, kind, {
          branch: input.branch,
          dryRun: input.dry_run,
          message: input.message,
        })
        if (written === null) return reply.code(200).send({ dry_run: 'success' })
        return reply.code(201).send(presentCommit(written, commitOptions(ctx, loaded)))
      } catch (error) {
        if (error instanceof ChangeFailed) return sendChangeFailure(reply, error, input.dry_run)
        throw error
      }
    }

  const cherryPick = change('cherry_pick')
  api.post(
    '/projects/:id/repository/commits/:sha/cherry_pick',
    { params: CherryPickParams, response: { 200: DryRunJson, 201: CommitJson }, before: openRepositoryFirst },
    async (request, reply) => cherryPick(request, reply, request.input),
  )

  const revert = change('revert')
  api.post(
    '/projects/:id/repository/commits/:sha/revert',
    { params: RevertParams, response: { 200: DryRunJson, 201: CommitJson }, before: openRepositoryFirst },
    async (request, reply) => revert(request, reply, request.input),
  )
}
