import type { Change, ChangeKind } from '../../core/changes.js'
import type { Context } from '../../core/context.js'
import type { Db } from '../../db/index.js'
import type { WebHookDeliveryRow, WebHookRow } from '../../db/schema.js'
import { enqueueJob, wakeJobWorkers } from '../../jobs/index.js'
import { alertStatusOf, isExecutable } from './auto-disabling.js'
import { SendWebhooks } from './jobs.js'
import { eventOf, hears, hookNameOf } from './matching.js'
import { hookPayloadsOf, type HookPayload, type HookTrigger } from './payloads/index.js'
import { hasGroupHooks } from './policy.js'
import { newRequestKeys, recordHookRequests, sendHookRequest, WEBHOOK_TIMEOUT_MS, type SentRequest } from './request.js'
import {
  claimDueDeliveries,
  deleteHookLogsBefore,
  findGroupTraversal,
  findHooksAt,
  findHooksByIds,
  findNextDeliveryAt,
  findProjectTraversal,
  insertDeliveries,
  joinSendingRound,
  settleDeliveries,
  startSendingRound,
} from './store.js'

// What a change sends to the hooks that hear it: one delivery per hook, written with the change with a job that sends
// it; then the sending, in batches, the retries, and the logs' retention.

/** Requests one delivery makes at most: the first and GitLab's WebHookWorker's 4 retries. */
export const DELIVERY_ATTEMPTS = 5
/** GitLab shows and keeps a hook's requests of the last two days. */
export const LOG_RETENTION_MS = 2 * 24 * 60 * 60_000
const PRUNE_BATCH_SIZE = 1000
/** Deliveries a worker takes at once and sends side by side; each is answered or times out within WEBHOOK_TIMEOUT_MS. */
const BATCH_SIZE = 32
/** How long a worker holds the deliveries it took: past the request timeout, so nobody sends them twice meanwhile. */
const HOLD_MS = WEBHOOK_TIMEOUT_MS + 5_000
/** A sending job stops taking batches after this long and leaves the rest to the next one. */
const RUN_BUDGET_MS = 20_000

/**
 * The triggers each kind of change can send (kept in step with payloads/): a change none of whose hooks has one of
 * them switched on costs its lookups and builds no payload. A kind not listed may send anything.
 */
const TRIGGERS_BY_KIND: Partial<Record<ChangeKind, readonly HookTrigger[]>> = {
  issue: ['issues_events', 'confidential_issues_events'],
  merge_request: ['merge_requests_events'],
  note: ['note_events', 'confidential_note_events'],
  push: ['push_events', 'tag_push_events', 'repository_update_events'],
  member: ['member_events', 'system'],
  alert: ['alert_events'],
  project: ['project_events', 'system'],
  group: ['subgroup_events', 'system'],
  user: ['system'],
}

function mayHear(hook: WebHookRow, kind: ChangeKind): boolean {
  const triggers = TRIGGERS_BY_KIND[kind]
  if (!triggers) return true
  const switches = hook as unknown as Record<string, unknown>
  return triggers.some((trigger) => (trigger === 'system' ? hook.type === 'SystemHook' : switches[trigger] === 1))
}

/** A namespace's ancestors and itself, from the root down. */
function chainOf(traversalIds: string | undefined): number[] {
  return (traversalIds ?? '')
    .split('/')
    .filter((id) => id !== '')
    .map(Number)
}

/** The groups from the root down to `groupId`, if `chain` holds it. */
function chainTo(chain: number[], groupId: number): number[] | null {
  const at = chain.indexOf(groupId)
  return at === -1 ? null : chain.slice(0, at + 1)
}

/**
 * Where a change happens: its project and the groups above it, or (a membership or a group) that group and those
 * above it. Group hooks exist on Premium and up only.
 */
async function placeOf(ctx: Context, trx: Db, change: Change) {
  const groups = hasGroupHooks(ctx.config.tier)
  let projectId: number | null = null
  let groupId: number | null = null
  if (change.kind === 'member') {
    if (change.source.type === 'project') projectId = change.source.id
    else groupId = change.source.id
  } else if (change.kind === 'group') groupId = change.groupId
  else if ('projectId' in change) projectId = change.projectId
  const namespace = projectId === null ? undefined : await findProjectTraversal(trx, projectId)
  const projectGroups = groups && namespace?.kind === 'group' ? chainOf(namespace.traversalIds) : []
  const changeGroups = groups && groupId !== null ? chainOf(await findGroupTraversal(trx, groupId)) : []
  return { projectId, projectGroups, changeGroups }
}

/**
 * The webhooks' part of `noticeChange`: finds the executable hooks that could hear the change (one indexed query after
 * the namespace's), and only then builds its payloads and records, in `trx`, one delivery per hook that hears each: a
 * payload for a group (`groupId`) reaches that group's hooks and those above it, any other the project's hooks and
 * those of the groups above the project; the system hooks hear what their switches ask for.
 */
export async function tellWebhooks(ctx: Context, trx: Db, change: Change): Promise<void> {
  const now = ctx.now()
  const place = await placeOf(ctx, trx, change)
  const groupIds = [...new Set([...place.projectGroups, ...place.changeGroups])]
  const hooks = (await findHooksAt(trx, { projectId: place.projectId, groupIds, system: true })).filter((hook) => isExecutable(hook, now))
  if (!hooks.some((hook) => mayHear(hook, change.kind))) return
  const payloads = await hookPayloadsOf(ctx, trx, change)
  const audienceOf = async (payload: HookPayload): Promise<WebHookRow[]> => {
    if (payload.scope === 'system') return hooks.filter((hook) => hook.type === 'SystemHook')
    if (payload.groupId === undefined) {
      return hooks.filter(
        (hook) => hook.type === 'SystemHook' || hook.project_id === place.projectId || place.projectGroups.includes(hook.group_id ?? 0),
      )
    }
    let chain = chainTo(place.changeGroups, payload.groupId) ?? chainTo(place.projectGroups, payload.groupId)
    let groupHooks = hooks
    if (!chain && hasGroupHooks(ctx.config.tier)) {
      chain = chainOf(await findGroupTraversal(trx, payload.groupId))
      groupHooks = (await findHooksAt(trx, { projectId: null, groupIds: chain, system: false })).filter((hook) => isExecutable(hook, now))
    }
    const inChain = groupHooks.filter((hook) => hook.type === 'GroupHook' && (chain ?? []).includes(hook.group_id ?? 0))
    return [...hooks.filter((hook) => hook.type === 'SystemHook'), ...inChain]
  }
  const deliveries: { hook: WebHookRow; payload: HookPayload }[] = []
  for (const payload of payloads) {
    for (const hook of await audienceOf(payload)) deliveries.push({ hook, payload })
  }
  await recordDeliveries(ctx, trx, deliveries)
}

/**
 * Asks, in `db`'s transaction, for the sending job of the current round: every change of one round shares one job,
 * which starts the next round when it begins, after those changes committed (joinSendingRound).
 */
async function enqueueSending(db: Db, now: Date): Promise<void> {
  const round = await joinSendingRound(db)
  await enqueueJob(db, SendWebhooks, {}, { uniqueKey: `${SendWebhooks.kind}#${round}`, now })
}

/** A sending job due at `runAt` (a retry, a hook disabled for a while), woken in this process then. */
async function enqueueSendingAt(db: Db, runAt: Date, now: Date): Promise<void> {
  await enqueueJob(db, SendWebhooks, {}, { runAt, now })
  setTimeout(wakeJobWorkers, Math.max(0, runAt.getTime() - now.getTime()) + 1).unref()
}

/**
 * Records, in `trx`, each delivery whose hook hears its payload, and the job that sends it; answers how many were
 * recorded.
 */
export async function recordDeliveries(ctx: Context, trx: Db, deliveries: { hook: WebHookRow; payload: HookPayload }[]): Promise<number> {
  const now = ctx.now()
  const rows = deliveries
    .filter(({ hook, payload }) => hears(hook, payload))
    .map(({ hook, payload }) => {
      const keys = newRequestKeys()
      return {
        web_hook_id: hook.id,
        trigger: hookNameOf(hook, payload.trigger),
        event: eventOf(hook, payload.event),
        payload: JSON.stringify(payload.body),
        idempotency_key: keys.idempotencyKey,
        event_uuid: keys.eventUuid,
        created_at: now.toISOString(),
        run_at: now.toISOString(),
      }
    })
  const count = await insertDeliveries(trx, rows)
  if (count === 0) return 0
  await enqueueSending(trx, now)
  // The worker looks again once the change's transaction has had its turn, rather than at its next poll.
  setImmediate(wakeJobWorkers)
  return count
}

/** Sidekiq's retry spacing (GitLab's job retries): 15 s, 16 s, 31 s, 96 s after attempts 1 to 4, plus a little jitter. */
export function retryDelayMs(attempt: number): number {
  const count = attempt - 1
  return (count ** 4 + 15 + Math.floor(Math.random() * 10) * (count + 1)) * 1000
}

/** Runs `work` over `items`, at most `limit` at a time; answers the results in order. */
async function mapConcurrently<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const lane = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await work(items[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane))
  return results
}

type Plan =
  | { delivery: WebHookDeliveryRow; hook: WebHookRow }
  | { delivery: WebHookDeliveryRow; drop: true }
  | { delivery: WebHookDeliveryRow; waitUntil: string }

/** What to do with a delivery now: drop it (its hook is gone or disabled for good), wait for its hook, or send it. */
function planOf(ctx: Context, delivery: WebHookDeliveryRow, hook: WebHookRow | undefined, now: Date): Plan {
  if (!hook || (hook.type === 'GroupHook' && !hasGroupHooks(ctx.config.tier))) return { delivery, drop: true }
  const status = alertStatusOf(hook, now)
  if (status === 'disabled') return { delivery, drop: true }
  if (status === 'temporarily_disabled') return { delivery, waitUntil: new Date(Date.parse(hook.disabled_until!) + 1).toISOString() }
  return { delivery, hook }
}

/** Sends one batch of deliveries side by side, then writes their logs, the hooks' failure states and what follows. */
async function sendBatch(ctx: Context, batch: WebHookDeliveryRow[]): Promise<void> {
  const now = ctx.now()
  const hooks = new Map(
    (await findHooksByIds(ctx.db, [...new Set(batch.map((delivery) => delivery.web_hook_id))])).map((hook) => [hook.id, hook]),
  )
  const plans = batch.map((delivery) => planOf(ctx, delivery, hooks.get(delivery.web_hook_id), now))
  const sent = await mapConcurrently(plans, BATCH_SIZE, async (plan): Promise<SentRequest | null> => {
    if (!('hook' in plan)) return null
    const { delivery, hook } = plan
    return sendHookRequest(ctx, hook, {
      data: JSON.parse(delivery.payload) as Record<string, unknown>,
      hookName: delivery.trigger,
      event: delivery.event,
      idempotencyKey: delivery.idempotency_key,
      eventUuid: delivery.event_uuid,
    })
  })
  await ctx.db.transaction().execute(async (trx) => {
    const removed: number[] = []
    const later: { id: number; attempts: number; runAt: string }[] = []
    const requests: { hook: WebHookRow; sent: SentRequest }[] = []
    for (const [index, plan] of plans.entries()) {
      const { delivery } = plan
      if ('drop' in plan) removed.push(delivery.id)
      else if ('waitUntil' in plan) later.push({ id: delivery.id, attempts: delivery.attempts, runAt: plan.waitUntil })
      else {
        const result = sent[index]!
        requests.push({ hook: plan.hook, sent: result })
        const attempts = delivery.attempts + 1
        if (result.succeeded || attempts >= DELIVERY_ATTEMPTS) removed.push(delivery.id)
        else later.push({ id: delivery.id, attempts, runAt: new Date(ctx.now().getTime() + retryDelayMs(attempts)).toISOString() })
      }
    }
    await recordHookRequests(ctx, trx, requests)
    await settleDeliveries(trx, { removed, later })
  })
}

/**
 * The sending job: takes the deliveries due in batches and sends each batch side by side, until none is due or its
 * time is up, then makes sure a job comes for the next delivery due (a retry, one waiting for its hook, or one held
 * by a worker that died). A delivery sent whose outcome was not written yet is sent again with its Idempotency-Key.
 */
export async function sendDueWebhooks(ctx: Context): Promise<void> {
  const started = Date.now()
  await startSendingRound(ctx.db)
  for (;;) {
    const now = ctx.now()
    const batch = await claimDueDeliveries(ctx.db, now, new Date(now.getTime() + HOLD_MS), BATCH_SIZE)
    if (batch.length === 0) break
    await sendBatch(ctx, batch)
    if (Date.now() - started > RUN_BUDGET_MS) {
      await ctx.db.transaction().execute((trx) => enqueueSending(trx, ctx.now()))
      return
    }
  }
  const now = ctx.now()
  const next = await findNextDeliveryAt(ctx.db, now)
  if (next) await enqueueSendingAt(ctx.db, next, now)
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
