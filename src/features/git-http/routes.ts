import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { PassThrough, type Readable } from 'node:stream'
import type { PlainRouteDeps } from '../../http/route.js'
import { AdvertisementCache, type Advertisement } from './advertisements.js'
import { findMovedProjectLocation } from '../projects/index.js'
import { redirectBody } from '../sessions/index.js'
import { beginRepositoryPush, isProjectRepositoryReadOnly } from '../storage-moves/index.js'
import {
  authorizeGit,
  READ_ONLY_REFUSAL,
  collectGarbageWhenDue,
  guardPush,
  recordPushes,
  repositoryOf,
  RequestAbandoned,
  runHttpBackend,
  RunningBackends,
  type GitRefusal,
  type PushStart,
} from './service.js'

/** GitLab's deepest group nesting (GL Namespace::NUMBER_OF_ANCESTORS_ALLOWED): the namespace part has at most 20 segments. */
const MAX_NAMESPACE_DEPTH = 20

type GitParams = Record<string, string>

/** The project's full path from the route's segments (`s1`…`sN` and `project`, the name before `.git`). */
function fullPathOf(params: GitParams): string {
  const segments: string[] = []
  for (let n = 1; params[`s${n}`] !== undefined; n++) segments.push(params[`s${n}`])
  return [...segments, params.project].join('/')
}

/** GL GitHttpClientController: UnauthorizedError 403, NotFoundError 404, no credentials 401. */
const REFUSAL_STATUS: Record<GitRefusal['reason'], 401 | 403 | 404> = {
  unauthenticated: 401,
  'not-found': 404,
  'not-allowed': 403,
  'read-only': 403,
}

function sendAdvertisement(reply: FastifyReply, advertisement: Advertisement) {
  reply.code(advertisement.status)
  for (const [name, value] of advertisement.headers) reply.header(name, value)
  return reply.send(advertisement.body)
}

function refuse(reply: FastifyReply, refusal: GitRefusal) {
  // GL GitHttpClientController#send_challenges: git prompts for credentials on this challenge.
  if (refusal.reason === 'unauthenticated') reply.header('www-authenticate', 'Basic realm="GitLab"')
  return reply.code(REFUSAL_STATUS[refusal.reason]).type('text/plain; charset=utf-8').send(refusal.message)
}

/**
 * Git's smart HTTP protocol at `/<namespace>/<project>.git/…` (GL Repositories::GitHttpController), served by
 * git's own services (as `git http-backend` runs them) once the caller may run the service on the project.
 */
export function registerGitHttpRoutes(app: FastifyInstance, deps: PlainRouteDeps) {
  void app.register(async (scope) => {
    // The pack data streams to the backend untouched; it is neither buffered nor limited in size here.
    scope.addContentTypeParser(
      ['application/x-git-upload-pack-request', 'application/x-git-receive-pack-request'],
      (_request, payload, done) => done(null, payload),
    )
    // No backend outlives the server: closing it ends those still running.
    const backends = new RunningBackends()
    scope.addHook('preClose', async () => backends.close())
    const advertisements = new AdvertisementCache()

    async function serve(request: FastifyRequest, reply: FastifyReply, service: string | undefined, pathInfo: string) {
      const ctx = await deps.context(request)
      const fullPath = fullPathOf(request.params as GitParams)
      // A clone URL under a former path answers 301 to the current one, as the project's web URLs do (spec rule 6);
      // git follows the redirect of its first request. The web URL form (no `.git`) is looked up as its `.git` form.
      if (request.method === 'GET') {
        const url = request.raw.url ?? request.url
        const dotGit = url.startsWith(`/${fullPath}.git/`) || !url.startsWith(`/${fullPath}/`)
        const asked = dotGit ? url : `/${fullPath}.git${url.slice(fullPath.length + 1)}`
        const moved = await findMovedProjectLocation(ctx, asked)
        const location = moved && !dotGit ? moved.replace(/\.git\/info\/refs(\?|$)/, '/info/refs$1') : moved
        if (location) return reply.code(301).header('location', location).type('text/html; charset=utf-8').send(redirectBody(location))
      }
      const access = await authorizeGit(ctx, fullPath, service, request.headers.authorization, request.ip)
      if ('reason' in access) return refuse(reply, access)
      const { project } = access.loaded
      const directory = repositoryOf(ctx, project)
      const pushing = pathInfo === '/git-receive-pack'
      // What a clone, fetch or push reads first: the refs and capabilities, the same until the refs change.
      const advertising = pathInfo === '/info/refs' && (service === 'git-upload-pack' || service === 'git-receive-pack')
      // A push marks itself running, then asks again whether the repository is writable: a storage move made it
      // read-only before, and this push stops here, or after, and the move waits for the marked push to end.
      const endPush = pushing ? await beginRepositoryPush(directory) : null
      // Protected branches and tags are enforced by receive-pack's pre-receive hook, from checks written for this push.
      const guard = pushing ? await guardPush(ctx, access.loaded, directory) : null
      let start: PushStart | null = null
      let backend: Awaited<ReturnType<typeof runHttpBackend>>
      try {
        if (endPush && (await isProjectRepositoryReadOnly(ctx, project.id))) {
          await endPush()
          return refuse(reply, READ_ONLY_REFUSAL)
        }
        const run = async () =>
          runHttpBackend(
            {
              directory,
              service: pushing || service === 'git-receive-pack' ? 'git-receive-pack' : 'git-upload-pack',
              advertise: advertising,
              headers: request.headers,
              remoteUser: access.user?.username ?? null,
              remoteAddr: request.ip,
              body: request.method === 'POST' ? ((request.body as Readable | undefined) ?? request.raw) : null,
              env: guard?.env,
              // What the push starts from is read before receive-pack changes anything.
              beforeCommands: guard
                ? async (section) => {
                    start = await guard.begin(section)
                  }
                : undefined,
            },
            backends,
          )
        if (advertising) {
          const queryAt = (request.raw.url ?? '').indexOf('?')
          const query = queryAt < 0 ? '' : (request.raw.url ?? '').slice(queryAt + 1)
          const key = `${query}\u0000${String(request.headers['git-protocol'] ?? '')}`
          return sendAdvertisement(reply, await advertisements.answer(directory, key, run))
        }
        backend = await run()
      } catch (error) {
        await guard?.end()
        await endPush?.()
        // Nobody reads this answer; it says whose fault the request's end was, for the log.
        if (error instanceof RequestAbandoned) return reply.code(400).type('text/plain; charset=utf-8').send(error.message)
        throw error
      }
      // Once the push is over its marker goes, and the repository's objects are tidied if they are due.
      if (endPush)
        void backend.exited.finally(async () => Promise.all([guard?.end(), endPush()]).then(async () => collectGarbageWhenDue(directory)))
      reply.code(backend.status)
      for (const [name, value] of backend.headers) reply.header(name, value)
      // A caller that goes away mid-answer leaves the backend to finish (a push still lands and is recorded); its output is dropped.
      reply.raw.on('close', () => {
        if (reply.raw.writableFinished) return
        backend.body.unpipe()
        backend.body.resume()
      })
      if (!pushing || !access.user) return reply.send(backend.body)
      // The push's events are recorded before the answer ends, so that git returns only once they are visible.
      const user = access.user
      const out = new PassThrough()
      backend.body.pipe(out, { end: false })
      backend.body.on('end', () => {
        void backend.exited
          .then(async () => {
            // A push whose commands never arrived changed nothing.
            if (start) await recordPushes(ctx, project, user, directory, start)
          })
          .catch((error: unknown) => request.log.error({ err: error }, 'recording a push failed'))
          .finally(() => out.end())
      })
      return reply.send(out)
    }

    // GitLab serves the same endpoints at the project's web URL, without `.git` (GL config/routes/git_http.rb), so
    // `git clone http://host/<namespace>/<project>` works; the page at that URL itself is another route.
    for (let depth = 1; depth <= MAX_NAMESPACE_DEPTH; depth++) {
      const namespace = Array.from({ length: depth }, (_, n) => `/:s${n + 1}`).join('')
      for (const prefix of [`${namespace}/:project.git`, `${namespace}/:project`]) {
        scope.get(`${prefix}/info/refs`, async (request, reply) => {
          const { service } = request.query as { service?: string }
          return serve(request, reply, typeof service === 'string' ? service : undefined, '/info/refs')
        })
        scope.post(`${prefix}/git-upload-pack`, async (request, reply) => serve(request, reply, 'git-upload-pack', '/git-upload-pack'))
        scope.post(`${prefix}/git-receive-pack`, async (request, reply) => serve(request, reply, 'git-receive-pack', '/git-receive-pack'))
      }
    }
  })
}
