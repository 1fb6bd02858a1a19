import { NotFound, Unprocessable } from '../../core/errors.js'
import type { WebHookLogRow, WebHookRow } from '../../db/schema.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { listQueryOf, pager } from '../../web/list-page.js'
import { timeAgo } from '../../web/time-ago.js'
import type { WebRequest } from '../sessions/index.js'
import { findHook, findHookEvent, listHookEvents, resendHookEvent, type HookOutcome, type HookParent } from '../webhooks/index.js'

// A webhook's recent requests on its edit page, each request's details, and a request sent again
// (GL shared/hook_logs, Projects::HookLogsController).

/** GL's recent deliveries table: 20 a page. */
const EVENTS_PER_PAGE = 20

/** GL WebHookService::RESPONSE_BODY_SIZE_LIMIT: how much of a failed answer the notice repeats. */
const NOTICE_BODY_BYTES = 8 * 1024

/**
 * Where a hooks page is: whose hooks (a project's, a group's or the system's), the path of its list
 * (`/<project>/-/hooks`, `/groups/<group>/-/hooks`, `/admin/hooks`), the ids its URL names, and the layout it renders in.
 */
export interface HookPlace {
  parent: HookParent
  base: string
  /** The list's heading: "Webhooks", or "System hooks". */
  title: string
  /** What the list page says of them. */
  intro: string
  hookId: unknown
  logId: unknown
  render(w: WebRequest, options: { title: string; refused: boolean }, body: Html): Promise<unknown>
}

/** A hook's page path: `<base>/<id>` followed by `suffix`. */
export function hookPath(place: HookPlace, hook: Pick<WebHookRow, 'id'>, suffix = ''): string {
  return `${place.base}/${hook.id}${suffix}`
}

/** A record a page's id names, or null for the 404 page: a malformed id, or one GitLab's `find` would not find. */
async function foundOrNull<T>(id: unknown, find: (id: number) => Promise<T>): Promise<T | null> {
  const text = String(id ?? '')
  if (!/^\d{1,15}$/.test(text)) return null
  try {
    return await find(Number(text))
  } catch (error) {
    if (error instanceof NotFound) return null
    throw error
  }
}

/** The hook the page's URL names, or null. */
export function hookOf(w: WebRequest, place: HookPlace): Promise<WebHookRow | null> {
  return foundOrNull(place.hookId, (id) => findHook(w.ctx, place.parent, id))
}

/** The hook and the logged request a page's `:id` and `:log_id` name, or null. */
async function hookEventOf(w: WebRequest, place: HookPlace) {
  const hook = await hookOf(w, place)
  if (!hook) return null
  return foundOrNull(place.logId, (logId) => findHookEvent(w.ctx, place.parent, hook.id, logId))
}

/**
 * Runs a test or a resend and leaves what came back at the top of the next page (GL HookExecutionNotice); a refusal
 * ("Ensure the project has at least one commit.") is a failed execution.
 */
export async function executionNotice(w: WebRequest, send: () => Promise<HookOutcome>): Promise<void> {
  let outcome: HookOutcome
  try {
    outcome = await send()
  } catch (error) {
    if (!(error instanceof Unprocessable)) throw error
    outcome = { status: null, message: error.message }
  }
  const message = Buffer.from(outcome.message).subarray(0, NOTICE_BODY_BYTES).toString()
  const { status } = outcome
  if (status !== null && status >= 200 && status < 400) return w.flash('notice', `Hook executed successfully: HTTP ${status}`)
  if (status !== null) return w.flash('alert', `Hook executed successfully but returned HTTP ${status} ${message}`)
  return w.flash('alert', `Hook execution failed: ${message}`)
}

/** GL _status_label: the status in green for a 2xx, else in red. */
function statusLabel(log: WebHookLogRow): Html {
  const ok = /^2\d\d$/.test(log.response_status)
  return html`<span class="badge ${ok ? 'success' : 'danger'}">${log.response_status}</span>`
}

/** GL `trigger.singularize.titleize`: push_hooks is "Push Hook". */
function triggerName(trigger: string): string {
  return trigger
    .replace(/s$/, '')
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ')
}

/** GL `number_with_precision(…, precision: 2)` of the seconds a request took. */
function elapsed(log: WebHookLogRow): string {
  return `${log.execution_duration.toFixed(2)} sec`
}

/** The Recent events section of a hook's edit page, `?page=` choosing the page. */
export async function recentEvents(w: WebRequest, place: HookPlace, hook: WebHookRow): Promise<Html> {
  const { page } = listQueryOf(w.params)
  const events = await listHookEvents(w.ctx, place.parent, hook.id, { page, perPage: EVENTS_PER_PAGE })
  const now = w.ctx.now()
  const view = { base: hookPath(place, hook, '/edit'), status: null, defaultStatus: null, search: '', page }
  const table =
    events.rows.length === 0 && page === 1
      ? html`<div class="empty-state">
          <h3>No webhook events</h3>
          <p>Webhook events will be displayed here.</p>
          <p>Use the <strong>Test</strong> option above to create an event.</p>
        </div>`
      : html`<div class="table-box">
            <table class="settings-table hook-events">
              <thead>
                <tr>
                  <th scope="col">Status</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Elapsed time</th>
                  <th scope="col">Request time</th>
                  <th scope="col"><span class="sr-only">Details</span></th>
                </tr>
              </thead>
              <tbody>
                ${events.rows.map(
                  (log) =>
                    html`<tr id="hook_log_${log.id}">
                      <td>${statusLabel(log)}</td>
                      <td><span class="badge">${triggerName(log.trigger)}</span></td>
                      <td>${elapsed(log)}</td>
                      <td>${timeAgo(log.created_at, now)}</td>
                      <td><a href="${hookPath(place, hook)}/hook_logs/${log.id}">View details</a></td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>
          ${events.total !== null ? pager(view, EVENTS_PER_PAGE, events.total, 'events') : ''}`
  return html`<section class="box settings-section" id="recent-events" aria-labelledby="recent-events-heading">
    <header><h2 id="recent-events-heading">Recent events</h2></header>
    <div class="body">
      <p class="help">Events in this project trigger webhooks. Use the request details of a webhook to help troubleshoot problems.</p>
      ${table}
    </div>
  </section>`
}

function headerLines(json: string): Html {
  const headers = Object.entries(JSON.parse(json) as Record<string, string>)
  return html`<pre class="hook-headers">${headers.map(([name, value]) => html`<strong>${name}:</strong> ${value}\n`)}</pre>`
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

/** GET <base>/:id/hook_logs/:log_id: one request as it went and what came back, with a button to send it again. */
export async function hookEventPage(w: WebRequest, place: HookPlace) {
  const found = await hookEventOf(w, place)
  if (!found) return w.notFound()
  const { hook, log } = found
  const token = await w.csrfToken()
  const body = html`<div class="header-row">
      <h1>Request details</h1>
      <form method="post" action="${hookPath(place, hook)}/hook_logs/${log.id}/retry" class="actions">
        ${csrfField(token)}<button type="submit">Resend Request</button>
      </form>
    </div>
    <dl class="hook-event">
      <dt>Request URL</dt>
      <dd><code>POST ${log.url}</code> ${statusLabel(log)}</dd>
      <dt>Trigger</dt>
      <dd><span class="badge">${triggerName(log.trigger)}</span></dd>
      <dt>Elapsed time</dt>
      <dd>${elapsed(log)}</dd>
      <dt>Request time</dt>
      <dd>${timeAgo(log.created_at, w.ctx.now())}</dd>
    </dl>
    ${log.internal_error_message ? html`<div class="flash alert" role="alert">${log.internal_error_message}</div>` : ''}
    <h2>Request headers</h2>
    ${headerLines(log.request_headers)}
    <h2>Request body</h2>
    <pre class="hook-body">${prettyJson(log.request_data)}</pre>
    <h2>Response headers</h2>
    ${headerLines(log.response_headers)}
    <h2>Response body</h2>
    <pre class="hook-body">${log.response_body}</pre>`
  return place.render(w, { title: 'Request details', refused: false }, body)
}

/** POST <base>/:id/hook_logs/:log_id/retry (GL HookLogsController#retry): sent again, then back to the hook. */
export async function retryHookEvent(w: WebRequest, place: HookPlace) {
  const found = await hookEventOf(w, place)
  if (!found) return w.notFound()
  const { hook, log } = found
  await executionNotice(w, () => resendHookEvent(w.ctx, place.parent, hook.id, log.id))
  return w.redirect(hookPath(place, hook, '/edit'))
}
