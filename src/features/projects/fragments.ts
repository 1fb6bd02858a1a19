import type { Access } from '../../core/access.js'
import type { User } from '../../core/caller.js'
import { serializerFor } from '../../http/route.js'
import { isLocked } from '../users/index.js'
import { presentProjectWithAccess, type Permissions, type ProjectPresentOptions, type ProjectView } from './present.js'
import { ProjectResponse } from './schemas.js'

// A project's entity is about 4 KB of JSON; presenting and serializing twenty of them was most of a list's cost. So
// the entity is kept with the project's row, as UTF-8 bytes ready to send, for rows of SQLite's read cache (db/read-cache.ts): those are
// frozen, shared by requests until a write to their table replaces them, so a changed project, namespace or user is
// a new object. Everything else the entity shows is in the entry's key. Rows read afresh (PostgreSQL) are not kept.

/** Entries kept per row: the same project seen by a few callers, or with and without statistics. */
const MAX_ENTRIES_PER_ROW = 4

const kept = new WeakMap<object, Map<string, Buffer>>()
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
  return `${identity(view.project)} ${identity(view.namespace)} ${ownerKey(view.owner, now)} ${view.forksCount} ${accessKey(view.access)}`
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
  if (!Object.isFrozen(view.project)) return Buffer.from(serialize(presentProjectWithAccess(view, options, permissions)))
  const key = keyOf(view, options, permissions)
  let entries = kept.get(view.project)
  const found = entries?.get(key)
  if (found !== undefined) return found
  const json = Buffer.from(serialize(presentProjectWithAccess(view, options, permissions)))
  if (!entries) kept.set(view.project, (entries = new Map()))
  if (entries.size >= MAX_ENTRIES_PER_ROW) entries.delete(entries.keys().next().value as string)
  entries.set(key, json)
  return json
}

const OPEN = Buffer.from('[')
const COMMA = Buffer.from(',')
const CLOSE = Buffer.from(']')
const EMPTY = Buffer.from('[]')

/** Arrays joined of late, by their first entity, and the bytes they hold in all: a page asked again is not copied again. */
const joined = new Map<Buffer, { entities: readonly Buffer[]; json: Buffer }>()
let joinedBytes = 0
const MAX_JOINED_BYTES = 4 * 1024 * 1024

/**
 * A JSON array of entities given as JSON. Kept entities are the same objects until their rows change, so the same
 * entities in the same order make the same bytes: the last array made of them is answered again (a page of twenty
 * projects is some 80 KB to copy).
 */
export function jsonArray(entities: readonly Buffer[]): Buffer {
  if (entities.length === 0) return EMPTY
  const last = joined.get(entities[0])
  if (last && last.entities.length === entities.length && last.entities.every((entity, index) => entity === entities[index]))
    return last.json
  const parts: Buffer[] = [OPEN]
  entities.forEach((entity, index) => (index === 0 ? parts.push(entity) : parts.push(COMMA, entity)))
  parts.push(CLOSE)
  const json = Buffer.concat(parts)
  if (last) {
    joined.delete(entities[0])
    joinedBytes -= last.json.length
  }
  if (json.length > MAX_JOINED_BYTES) return json
  for (const [first, { json: old }] of joined) {
    if (joinedBytes + json.length <= MAX_JOINED_BYTES) break
    joined.delete(first)
    joinedBytes -= old.length
  }
  joined.set(entities[0], { entities: entities.slice(), json })
  joinedBytes += json.length
  return json
}
