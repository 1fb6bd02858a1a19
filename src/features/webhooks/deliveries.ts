import type { Change, ChangeKind } from '../../core/changes.js'
import type { Context } from '../../core/context.js'
import type { Db } from '../../db/index.js'
import type { WebHookRow } from '../../db/schema.js'
import { enqueueJob, wakeJobWorkers } from '../../jobs/index.js'
import { alertStatusOf, isExecutable } from './auto-disabling.js'
import { DeliverWebhook } from './jobs.js'
import { eventOf, hears, hookNameOf } from './matching.js'
import { hookPayloadsOf, type HookPayload, type HookTrigger } from './payloads/index.js'
import { hasGroupHooks } from './policy.js'
import { newRequestKeys, recordHookRequest, sendHookRequest } from './request.js'
import {
  deleteDelivery,
  deleteHookLogsBefore,
  findDeliveryById,
  findGroupTraversal,
  findHookRowById,
  findHooksAt,
  findProjectTraversal,
  insertDeliveries,
  setDeliveryAttempts,
} from './store.js'

// What a change sends to the hooks that hear it: one delivery per hook, written with the change, and the job that
// sends it; then the job's attempts, their retries, and the logs' retention.

/** Requests one delivery makes at most: the first and GitLab's WebHookWorker's 4 retries. */
export const DELIVERY_ATTEMPTS = 5
/** GitLab shows and keeps a hook's requests of the last two days. */
export const LOG_RETENTION_MS = 2 * 24 * 60 * 60_000
const PRUNE_BATCH_SIZE = 1000

/**
 * The triggers each kind of change can send (kept in step with payloads/): a change none of whose hooks has one of
 * them switched on costs one query and builds no payload. A kind not listed may send anything.
 */
const TRIGGERS_BY_KIND: Partial<Record<ChangeKind, readonly HookTrigger[]>> = {
  issue: ['issues_events', 'confidential_issues_events'],
  merge_request: ['merge_requests_events'],
  note: ['note_events', 'confidential_note_events'],
  push: ['push_events', 'tag_push_events', 'repository_update_events'],
  member: ['member_events', 'system'],
  alert: ['alert_events'],
  project: ['system'],
  group: ['system'],
  user: ['system'],
}

function mayHear(hook: WebHookRow, kind: ChangeKind): boolean {
  const triggers = TRIGGERS_BY_KIND[kind]
  if (!triggers) return true
  const switches = hook as unknown as Record<string, unknown>
  return triggers.some((trigger) => (trigger === 'system' ? hook.type === 'SystemHook' : switches[trigger] === 1))
}

function groupIdsOf(traversalIds: string): number[] {
  return traversalIds
    .split('/')
    .filter((id) => id !== '')
    .map(Number)
}

/** Where a change happens: its project, the groups above it (on Premium and up), and always the system hooks. */
async function placeOf(ctx: Context, trx: Db, change: Change) {
  const groups = hasGroupHooks(ctx.config.tier)
  const projectId =
    change.kind === 'member'
      ? change.source.type === 'project'
        ? change.source.id
        : null
      : 'projectId' in change
        ? change.projectId
        : null
  if (projectId !== null) {
    const namespace = await findProjectTraversal(trx, projectId)
    const groupIds = groups && namespace?.kind === 'group' ? groupIdsOf(namespace.traversalIds) : []
    return { projectId, groupIds, system: true }
  }
  const groupId = change.kind === 'member' ? change.source.id : change.kind === 'group' ? change.groupId : null
  if (groupId !== null && groups) {
    const traversal = await findGroupTraversal(trx, groupId)
    // A group's own creation or removal is heard by the groups above it, not by itself.
    const groupIds = traversal ? groupIdsOf(traversal).filter((id) => change.kind !== 'group' || id !== groupId) : []
    return { projectId: null, groupIds, system: true }
  }
  return { projectId: null, groupIds: [], system: true }
}

/**
 * The webhooks' part of `noticeChange`: finds the executable hooks that could hear the change (one indexed query),
 * and only then builds its payloads and records one delivery per hook that hears each, with its job, in `trx`.
 */
export async function tellWebhooks(ctx: Context, trx: Db, change: Change): Promise<void> {
  const now = ctx.now()
  const hooks = (await findHooksAt(trx, await placeOf(ctx, trx, change))).filter((hook) => isExecutable(hook, now))
  if (!hooks.some((hook) => mayHear(hook, change.kind))) return
  await recordDeliveries(ctx, trx, hooks, await hookPayloadsOf(ctx, trx, change))
}

/** Records, in `trx`, one delivery and its job for each of `hooks` that hears each payload; answers the deliveries' ids. */
export async function recordDeliveries(ctx: Context, trx: Db, hooks: WebHookRow[], payloads: HookPayload[]): Promise<number[]> {
  const now = ctx.now()
  const rows = []
  for (const payload of payloads) {
    const body = JSON.stringify(payload.body)
    for (const hook of hooks) {
      if (!hears(hook, payload)) continue
      const keys = newRequestKeys()
      rows.push({
        web_hook_id: hook.id,
        trigger: hookNameOf(hook, payload.trigger),
        event: eventOf(hook, payload.event),
        payload: body,
        idempotency_key: keys.idempotencyKey,
        event_uuid: keys.eventUuid,
        created_at: now.toISOString(),
      })
    }
  }
  const ids = await insertDeliveries(trx, rows)
  for (const deliveryId of ids) await enqueueJob(trx, DeliverWebhook, { deliveryId, attempt: 1 }, { now })
  // The worker looks again once the change's transaction has had its turn, rather than at its next poll.
  if (ids.length > 0) setImmediate(wakeJobWorkers)
  return ids
}

/** Sidekiq's retry spacing (GitLab's job retries): 15 s, 16 s, 31 s, 96 s after attempts 1 to 4, plus a little jitter. */
export function retryDelayMs(attempt: number): number {
  const count = attempt - 1
  return (count ** 4 + 15 + Math.floor(Math.random() * 10) * (count + 1)) * 1000
}

/**
 * Attempt `attempt` of a delivery: sends it unless that attempt was made already, the hook is gone, or it is disabled
 * for good; a hook disabled for a while is tried again when it may send. The request's log entry, the hook's failure
 * state and what follows (the delivery removed, or the next attempt queued) are written in one transaction.
 */
export async function deliverWebhook(ctx: Context, deliveryId: number, attempt: number): Promise<void> {
  const delivery = await findDeliveryById(ctx.db, deliveryId)
  if (!delivery || delivery.attempts >= attempt) return
  const hook = await findHookRowById(ctx.db, delivery.web_hook_id)
  const now = ctx.now()
  const status = hook ? alertStatusOf(hook, now) : 'disabled'
  if (!hook || status === 'disabled' || (hook.type === 'GroupHook' && !hasGroupHooks(ctx.config.tier))) {
    await deleteDelivery(ctx.db, delivery.id)
    return
  }
  if (status === 'temporarily_disabled') {
    const runAt = new Date(Date.parse(hook.disabled_until!) + 1)
    await enqueueJob(ctx.db, DeliverWebhook, { deliveryId, attempt }, { runAt, now })
    return
  }
  const sent = await sendHookRequest(ctx, hook, {
    data: JSON.parse(delivery.payload) as Record<string, unknown>,
    hookName: delivery.trigger,
    event: delivery.event,
    idempotencyKey: delivery.idempotency_key,
    eventUuid: delivery.event_uuid,
  })
  await ctx.db.transaction().execute(async (trx) => {
    await recordHookRequest(ctx, trx, hook, sent)
    if (sent.succeeded || attempt >= DELIVERY_ATTEMPTS) {
      await deleteDelivery(trx, delivery.id)
      return
    }
    await setDeliveryAttempts(trx, delivery.id, attempt)
    const runAt = new Date(ctx.now().getTime() + retryDelayMs(attempt))
    await enqueueJob(trx, DeliverWebhook, { deliveryId, attempt: attempt + 1 }, { runAt, now: ctx.now() })
  })
}

/** Removes log entries older than two days in bounded batches; answers how many went. */
export async function pruneWebhookLogs(ctx: Context): Promise<number> {
  const before = new Date(ctx.now().getTime() - LOG_RETENTION_MS)
  let removed = 0
  for (;;) {
    const batch = await deleteHookLogsBefore(ctx.db, before, PRUNE_BATCH_SIZE)
    removed += batch
    if (batch < PRUNE_BATCH_SIZE) return removed
  }
}
