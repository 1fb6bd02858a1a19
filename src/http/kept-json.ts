/**
 * Entities kept as the JSON bytes they are sent as, with the row they show. Only for rows of SQLite's read cache
 * (db/read-cache.ts): those are frozen and shared by requests until a write to their table replaces them, so a
 * changed row is a new object and its old JSON is never found again. What else an entity shows goes in its key.
 */

/** Entries kept per row: the same row seen by a few callers, or with and without extras. */
const MAX_ENTRIES_PER_ROW = 4

const kept = new WeakMap<object, Map<string, Buffer>>()

/** The JSON `make` answers for `row` and `key`: kept while the row is a frozen row of the read cache, made afresh otherwise. */
export function keptJson(row: object, key: string, make: () => string): Buffer {
  if (!Object.isFrozen(row)) return Buffer.from(make())
  let entries = kept.get(row)
  const found = entries?.get(key)
  if (found !== undefined) return found
  const json = Buffer.from(make())
  if (!entries) kept.set(row, (entries = new Map()))
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
