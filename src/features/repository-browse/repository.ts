import type { Context } from '../../core/context.js'
import type { LoadedProject } from '../access/index.js'
import { codeDirectory } from '../repositories/index.js'

/** A project's repository as the browse endpoints read it. */
export interface BrowsedRepository {
  loaded: LoadedProject
  directory: string
}

/** GL `authorize_read_code!`: a project the caller sees but whose code it may not read answers 403. */
export function openRepository(ctx: Context, loaded: LoadedProject): BrowsedRepository {
  return { loaded, directory: codeDirectory(ctx, loaded) }
}

/** The ref a request names, or the project's default branch (GL `params[:ref] || user_project.default_branch`). */
export function refOrDefault(repository: BrowsedRepository, ref: string | undefined): string {
  return ref ?? repository.loaded.project.default_branch ?? 'HEAD'
}

/**
 * The segments of a path inside the repository, or null when it cannot name anything there: absolute, with `.`
 * or `..` or empty segments, or a NUL. `''`, `.` and `/`-less root forms name the root (no segments).
 */
export function pathSegments(path: string | undefined): string[] | null {
  if (path === undefined || path === '' || path === '.') return []
  if (path.includes('\0') || path.startsWith('/')) return null
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path
  const segments = trimmed.split('/')
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return null
  return segments
}
