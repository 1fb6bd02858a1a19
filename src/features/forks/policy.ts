import { AccessLevel, canRead, meets, Visibility } from '../../core/access.js'
import { isAdmin } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import type { ProjectAccess } from '../access/index.js'
import { isFeatureAvailable } from '../access/index.js'

/**
 * GL ProjectPolicy `fork_project`: a signed-in user who may read a public or internal project, or a Reporter (or an
 * administrator) of any, while forking is available to them and the repository is not disabled.
 */
export function canForkProject(access: ProjectAccess, project: ProjectRow): boolean {
  const { caller } = access
  if (!caller.user || !canRead(access)) return false
  if (!isFeatureAvailable(access, project, 'forking') || !isFeatureAvailable(access, project, 'repository')) return false
  if (isAdmin(caller) || access.level >= AccessLevel.REPORTER) return true
  return project.visibility_level >= Visibility.INTERNAL && caller.user.external === 0
}

/** GL `link_forked_project` and `remove_fork_project`: the project's Owner, or an administrator. */
export function canManageForkRelation(access: ProjectAccess): boolean {
  return meets(access, { level: AccessLevel.OWNER })
}
