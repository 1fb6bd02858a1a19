import { NotFound, ProjectMoved } from '../../core/errors.js'
import type { WebHandler, WebRequest } from '../sessions/index.js'
import { findMovedProjectLocation } from './web-redirects.js'
import { findProject, type LoadedProject } from '../access/index.js'

/** GitLab's deepest group nesting (GL Namespace::NUMBER_OF_ANCESTORS_ALLOWED). */
const MAX_NAMESPACE_DEPTH = 20

/** The same project page at every namespace depth: `/:s1/…/:sN/:project<suffix>`. */
export function projectPageRoutes(suffix: string): string[] {
  return Array.from({ length: MAX_NAMESPACE_DEPTH }, (_, depth) => {
    const namespace = Array.from({ length: depth + 1 }, (_, n) => `/:s${n + 1}`).join('')
    return `${namespace}/:project${suffix}`
  })
}

/** The project's full path from the route's own segments (not from the query, which could carry an `s3`). */
function fullPathOf(w: WebRequest): string {
  const params = w.request.params as Record<string, string>
  const segments: string[] = []
  for (let n = 1; params[`s${n}`] !== undefined; n++) segments.push(params[`s${n}`])
  return [...segments, params.project].join('/')
}

/**
 * A page of a project for signed-in users: visitors go to sign in; a project they cannot see is the 404 page; a path
 * the project had before a move redirects to its current one. The handler decides what the caller's role opens.
 */
export function projectPage(handler: (w: WebRequest, loaded: LoadedProject) => Promise<unknown>): WebHandler {
  return async (w) => {
    if (!w.ctx.caller.user) return w.redirectToSignIn()
    let loaded: LoadedProject
    try {
      loaded = await findProject(w.ctx, fullPathOf(w))
    } catch (error) {
      if (error instanceof ProjectMoved) {
        const location = await findMovedProjectLocation(w.ctx, w.request.url)
        return location ? w.redirect(location) : w.notFound()
      }
      if (error instanceof NotFound) return w.notFound()
      throw error
    }
    return handler(w, loaded)
  }
}
