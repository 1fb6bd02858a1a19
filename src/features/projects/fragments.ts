import type { Access } from '../../core/access.js'
import type { User } from '../../core/caller.js'
import { keptJson } from '../../http/kept-json.js'
import { serializerFor } from '../../http/route.js'
import { isLocked } from '../users/index.js'
import { presentProjectWithAccess, type Permissions, type ProjectPresentOptions, type ProjectView } from './present.js'
import { ProjectResponse } from './schemas.js'

// A project's entity is about 4 KB of JSON; presenting and serializing twenty of them was most of a list's cost. So
// the entity is kept with the project's row (http/kept-json.ts); a changed project, namespace or user is a new
// object. Everything else the entity shows is in the entry's key.

const numbers = new WeakMap<object, number>()
let lastNumber = 0

/** A number for the object itself, not its contents: a changed row is another object, with another number. */
function identity(value: object | null): number {
  if (value === null) return 0
  let number = numbers.get(value)
  if (number === undefined) numbers.set(value, (number = ++lastNumber))
  return number
}

function accessKey(access: Access & { projectLevel: number | null; groupLevel: number | null }): string {
  const { caller, tier, visibilityLevel, level, descendantAccess, projectLevel, groupLevel } = access
  return `${identity(caller.user)} ${tier} ${visibilityLevel} ${level} ${descendantAccess} ${projectLevel} ${groupLevel}`
}

function ownerKey(owner: User | null, now: Date): string {
  return owner ? `${identity(owner)} ${isLocked(owner, now)}` : '-'
}

function viewKey(view: ProjectView, now: Date): string {
  // A description without references renders the same for the same row; one with references shows what its reader may see.
  const description = view.description.dependsOnReader ? view.description.html : ''
  return `${identity(view.project)} ${identity(view.namespace)} ${ownerKey(view.owner, now)} ${view.forksCount} ${accessKey(view.access)} ${description}`
}

/** Everything presentProjectWithAccess reads besides the row: keep this in step with it. */
function keyOf(view: ProjectView, options: ProjectPresentOptions, permissions: Permissions): string {
  const { viewer, externalUrl, now, statistics, withCustomAttributes } = options
  return [
    viewKey(view, now),
    view.forkedFrom ? viewKey(view.forkedFrom, now) : '-',
    `${identity(viewer.user)} ${externalUrl} ${statistics} ${withCustomAttributes}`,
    `${permissions.projectLevel} ${permissions.groupLevel}`,
  ].join('|')
}

/** GL Entities::ProjectWithAccess as JSON: kept for rows of the read cache, made afresh otherwise. */
export function projectWithAccessJson(view: ProjectView, options: ProjectPresentOptions, permissions: Permissions): Buffer {
  const serialize = serializerFor(ProjectResponse)
  const key = Object.isFrozen(view.project) ? keyOf(view, options, permissions) : ''
  return keptJson(view.project, key, () => serialize(presentProjectWithAccess(view, options, permissions)))
}
