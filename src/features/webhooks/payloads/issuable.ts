import type { FieldChanges } from '../../../core/changes.js'
import type { Db } from '../../../db/index.js'
import { labelHookAttrs, userHookAttrs } from './common.js'
import { rubyUtc } from './formats.js'
import { findHookLabels, findHookUsers } from './issuable-store.js'

// What issue and merge request bodies share (GL Gitlab::DataBuilder::Issuable).

const TIMES = new Set(['closed_at', 'created_at', 'updated_at', 'last_edited_at', 'prepared_at'])
const PEOPLE = new Set(['assignees', 'reviewers'])

/** Labels by id as the body shows them, in the order given. */
export async function labelsHookAttrs(trx: Db, ids: readonly number[]) {
  const labels = new Map((await findHookLabels(trx, ids)).map((label) => [label.id, label]))
  return ids.flatMap((id) => {
    const label = labels.get(id)
    return label ? [labelHookAttrs(label)] : []
  })
}

/** People by id as the body shows them, in the order given. */
export async function peopleHookAttrs(trx: Db, ids: readonly number[]) {
  return (await findHookUsers(trx, ids)).map(userHookAttrs)
}

async function hookValue(trx: Db, key: string, value: unknown): Promise<unknown> {
  if (value === null || value === undefined) return value ?? null
  if (key === 'labels') return labelsHookAttrs(trx, value as number[])
  if (PEOPLE.has(key)) return peopleHookAttrs(trx, value as number[])
  if (TIMES.has(key)) return rubyUtc(value as string)
  return value
}

/**
 * GL DataBuilder::Issuable `changes`: the change's fields kept to the builder's safe keys, in their order
 * (`changes.slice(*safe_keys)`), each `{previous, current}` with times, labels and people as the body writes them.
 */
export async function hookChanges(trx: Db, changes: FieldChanges, safeKeys: readonly string[]) {
  const body: Record<string, { previous: unknown; current: unknown }> = {}
  for (const key of safeKeys) {
    const change = changes[key]
    if (!change) continue
    body[key] = { previous: await hookValue(trx, key, change.previous), current: await hookValue(trx, key, change.current) }
  }
  return body
}

/** GL Issuable#human_*: nothing tracked is null. */
export const NO_TIME_TRACKING = {
  total_time_spent: 0,
  time_change: 0,
  human_total_time_spent: null,
  human_time_change: null,
  human_time_estimate: null,
}
