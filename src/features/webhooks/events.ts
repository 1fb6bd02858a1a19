import { createHash } from 'node:crypto'
import type { Context } from '../../core/context.js'
import { RecordNotFound, Unprocessable } from '../../core/errors.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { WebHookLogRow, WebHookRow } from '../../db/schema.js'
import { isExecutable } from './auto-disabling.js'
import { eventOf, hookEventName } from './matching.js'
import { executeAndRecord, INTERNAL_ERROR, newRequestKeys, type HookOutcome } from './request.js'
import { findHook, type HookParent } from './service.js'
import { findHookLog, selectHookLogs, type StatusFilter } from './store.js'
import { interpolatedUrl } from './urls.js'

// A hook's recent requests (GL API::Hooks::Events with WebHooks::WebHookLogsFinder) and a request sent again
// (GL WebHooks::Events::ResendService).

/** GL WebHookLog::MAX_RECENT_DAYS: the events list looks this far back (from the start of that day). */
const RECENT_DAYS = 7

/** GL WebHookLogsFinder#string_filter_to_code. */
function statusFilterOf(statuses: string[] | undefined): StatusFilter | null {
  if (!statuses || statuses.length === 0) return null
  const filter: StatusFilter = { codes: [], ranges: [], internalError: false }
  for (const status of statuses) {
    if (status === 'successful') filter.ranges.push([200, 299])
    else if (status === 'client_failure') filter.ranges.push([400, 499])
    else if (status === 'server_failure') {
      filter.ranges.push([500, 599])
      filter.internalError = true
    } else filter.codes.push(status)
  }
  return filter
}

/** A hook's requests of the last days, newest first (GL API::Hooks::Events). */
export async function listHookEvents(
  ctx: Context,
  parent: HookParent,
  hookId: number,
  options: { status?: string[]; page: number; perPage: number },
): Promise<OffsetPage<WebHookLogRow>> {
  const hook = await findHook(ctx, parent, hookId)
  const since = new Date(ctx.now().getTime() - RECENT_DAYS * 24 * 60 * 60_000)
  since.setUTCHours(0, 0, 0, 0)
  const query = selectHookLogs(ctx.db, hook.id, since, statusFilterOf(options.status))
  return fetchOffsetPage(ctx.db, query, options.page, options.perPage)
}

/** One of a hook's logged requests, with the hook; 404 "Not found" when the hook has no such log. */
export async function findHookEvent(
  ctx: Context,
  parent: HookParent,
  hookId: number,
  logId: number,
): Promise<{ hook: WebHookRow; log: WebHookLogRow }> {
  const hook = await findHook(ctx, parent, hookId)
  const log = await findHookLog(ctx.db, hook.id, logId)
  if (!log) throw new RecordNotFound()
  return { hook, log }
}

/**
 * Sends a logged request again with its body and Idempotency-Key (GL WebHooks::Events::ResendService), if the hook
 * still points where it went and may send; answers what came back.
 */
export async function resendHookEvent(ctx: Context, parent: HookParent, hookId: number, logId: number): Promise<HookOutcome> {
  const { hook, log } = await findHookEvent(ctx, parent, hookId, logId)
  if (log.url_hash !== null && log.url_hash !== urlHashOf(hook)) {
    throw new Unprocessable('The hook URL has changed, and this log entry cannot be retried')
  }
  if (!isExecutable(hook, ctx.now())) throw new Unprocessable('Hook disabled')
  const headers = JSON.parse(log.request_headers) as Record<string, string>
  const sent = await executeAndRecord(ctx, hook, {
    data: JSON.parse(log.request_data) as Record<string, unknown>,
    hookName: log.trigger,
    event: eventOf(hook, hookEventName(log.trigger)),
    idempotencyKey: headers['Idempotency-Key'] ?? newRequestKeys().idempotencyKey,
    eventUuid: newRequestKeys().eventUuid,
  })
  return { status: sent.status, message: sent.message || INTERNAL_ERROR }
}

function urlHashOf(hook: WebHookRow): string | null {
  try {
    return createHash('sha256')
      .update(interpolatedUrl(hook.url, JSON.parse(hook.url_variables) as Record<string, string>))
      .digest('hex')
  } catch {
    return null
  }
}
