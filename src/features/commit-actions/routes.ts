import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Context } from '../../core/context.js'
import { BadRequest, Forbidden, NotFound, ParamError } from '../../core/errors.js'
import type { ApiRouter } from '../../http/route.js'
import { canPushCode, canReadCode, findProject, isFeatureAvailable, type LoadedProject } from '../access/index.js'
import { CommitDetailJson, CommitJson, presentCommit, presentCommitDetail } from '../commits/index.js'
import { codeDirectory } from '../repositories/index.js'
import { decodeActions } from './actions.js'
import { CherryPickParams, CreateCommitParams, DryRunJson, RevertParams } from './schemas.js'
import {
  applyCommitChange,
  ChangeFailed,
  commitChanges,
  commitStats,
  findBranch,
  findCommit,
  mayPushToBranch,
  NOT_ALLOWED_TO_PUSH,
  type ChangeKind,
} from './service.js'

function commitOptions(ctx: Context, loaded: LoadedProject) {
  return { externalUrl: ctx.config.externalUrl, projectFullPath: loaded.project.full_path }
}

/** GL commits.rb `authorize_push_to_branch!`: 403 "You are not allowed to push into this branch". */
async function authorizePushToBranch(ctx: Context, loaded: LoadedProject, branch: string) {
  if (!(await mayPushToBranch(ctx, loaded, branch))) throw new Forbidden(NOT_ALLOWED_TO_PUSH)
}

/**
 * GL commits.rb `start_project`: the project the new branch starts from must be the one this project was forked from,
 * and its code readable (403 otherwise, this project itself included, as GitLab's `forked_from?` says).
 */
async function findStartProject(ctx: Context, loaded: LoadedProject, startProject: string | undefined): Promise<LoadedProject | undefined> {
  if (startProject === undefined) return undefined
  const start = await findProject(ctx, startProject)
  if (canReadCode(start.access, start.project) && loaded.project.forked_from_project_id === start.project.id) return start
  throw new Forbidden(`Project is not included in the fork network for ${start.project.full_name}`)
}

const projectsOfRequests = new WeakMap<FastifyRequest, LoadedProject>()

/**
 * GL commits.rb's `before` block, which runs before any parameter is checked: 404 for a project the caller cannot see,
 * 404 "Repository Not Found" when its repository feature is off for them (`require_repository_enabled!`), 403 without
 * `read_code`.
 */
async function openRepository(request: FastifyRequest, raw: Record<string, unknown>): Promise<LoadedProject> {
  const loaded = await findProject(request.ctx, String(raw.id))
  if (!isFeatureAvailable(loaded.access, loaded.project, 'repository')) throw new NotFound('Repository')
  codeDirectory(request.ctx, loaded)
  projectsOfRequests.set(request, loaded)
  return loaded
}

async function openRepositoryFirst(request: FastifyRequest, raw: Record<string, unknown>): Promise<void> {
  await openRepository(request, raw)
}

/** POST /repository/commits reads its body after `authorize_push_to_branch!`: who may push to no branch hears 403 first. */
async function authorizeCommitting(request: FastifyRequest, raw: Record<string, unknown>) {
  const loaded = await openRepository(request, raw)
  if (!request.ctx.caller.user || !canPushCode(loaded.access, loaded.project)) throw new Forbidden(NOT_ALLOWED_TO_PUSH)
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
      const startProject = await findStartProject(ctx, loaded, input.start_project)
      await authorizePushToBranch(ctx, loaded, input.branch)
      if (input.branch.trim() === '') throw new BadRequest('branch is required')
      if (input.commit_message.trim() === '') throw new BadRequest('commit_message is required')
      if (input.actions.length === 0) throw new BadRequest('actions is required')
      if (input.start_branch !== undefined && input.start_sha !== undefined)
        throw new BadRequest('start_branch, start_sha are mutually exclusive')
      const { changes, checks } = decodeActions(input.actions)
      const { commit, directory } = await commitChanges(ctx, loaded, {
        branch: input.branch,
        startBranch: input.start_branch,
        startSha: input.start_sha,
        message: input.commit_message,
        changes,
        checks,
        authorName: input.author_name,
        authorEmail: input.author_email,
        force: input.force,
        startProject,
      })
      const stats = input.stats ? await commitStats(directory, commit) : null
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
      await authorizePushToBranch(ctx, loaded, input.branch)
      const commit = await findCommit(ctx, loaded, input.sha)
      await findBranch(ctx, loaded, input.branch)
      try {
        const written = await applyCommitChange(ctx, loaded, commit, kind, {
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
