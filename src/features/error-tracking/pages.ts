import { NotFound } from '../../core/errors.js'
import type { ErrorTrackingErrorRow } from '../../db/schema.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { capitalized, listControls, listQueryOf, pager, textOf, timeOf, type ListView } from '../../web/list-page.js'
import { projectPage, projectPageRoutes, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { ERROR_STATUSES, listErrors, showError, updateError, type ErrorStatusName } from './errors.js'
import { canReadErrors, canUpdateErrors } from './policy.js'
import { errorPagePath, errorTitle } from './present.js'
import { registerClientKeyPages } from './settings-page.js'
import { culpritFrameIndex, stackTraceOf, type StackTraceEntry } from './stacktrace.js'
import { findLatestErrorEvent } from './store.js'
import { type LoadedProject } from '../access/index.js'

const LIST_SUFFIX = '/-/error_tracking'
const DETAILS_SUFFIX = '/-/error_tracking/:error_id/details'
const ERRORS_PER_PAGE = 20

// GitLab's error list tabs, unresolved first (GL ErrorTracking::ListIssuesService::DEFAULT_ISSUE_STATUS).
const STATUS_TABS: { status: ErrorStatusName; label: string }[] = [
  { status: 'unresolved', label: 'Unresolved' },
  { status: 'ignored', label: 'Ignored' },
  { status: 'resolved', label: 'Resolved' },
]

function statusName(error: ErrorTrackingErrorRow): string {
  return ERROR_STATUSES[error.status] ?? 'unresolved'
}

async function renderErrorList(w: WebRequest, loaded: LoadedProject) {
  const statusParam = textOf(w.params.status)
  const status = (ERROR_STATUSES as readonly string[]).includes(statusParam) ? (statusParam as ErrorStatusName) : 'unresolved'
  const { search, page } = listQueryOf(w.params)
  const result = await listErrors(w.ctx, loaded, { status, search: search || undefined, page, perPage: ERRORS_PER_PAGE })
  const total = result.total ?? (page - 1) * ERRORS_PER_PAGE + result.rows.length + (result.hasNext ? 1 : 0)
  const view: ListView<ErrorStatusName> = {
    base: `/${loaded.project.full_path}${LIST_SUFFIX}`,
    status,
    defaultStatus: 'unresolved',
    search,
    page,
  }
  const body = html`<h1>Errors</h1>
    ${listControls(view, STATUS_TABS, 'error')}
    ${
      result.rows.length === 0
        ? html`<p class="no-errors">No errors to display.</p>`
        : html`<table class="errors">
          <thead>
            <tr>
              <th>Error</th>
              <th>Events</th>
              <th>Last seen</th>
              <th>First seen</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            ${result.rows.map(
              (error) => html`<tr class="error-row" id="error_${error.id}">
                <td class="error-title">
                  <a href="${errorPagePath(loaded.project.full_path, error.id)}">${errorTitle(error)}</a>
                  <div class="error-culprit">${error.actor}</div>
                </td>
                <td class="error-events">${error.events_count}</td>
                <td class="error-last-seen">${timeOf(error.last_seen_at)}</td>
                <td class="error-first-seen">${timeOf(error.first_seen_at)}</td>
                <td class="error-status">${capitalized(statusName(error))}</td>
              </tr>`,
            )}
          </tbody>
        </table>`
    }
    ${pager(view, ERRORS_PER_PAGE, total, 'errors')}`
  return renderProjectPage(w, loaded, { title: 'Errors', section: 'errors', crumbs: [{ text: 'Error tracking' }] }, body)
}

function errorIdOf(w: WebRequest): number {
  const text = textOf((w.request.params as Record<string, string>).error_id)
  return /^\d{1,15}$/.test(text) ? Number(text) : NaN
}

/** Status buttons GitLab's error page offers beside its title: ignore or undo ignore, resolve or reopen. */
function statusForms(path: string, csrfToken: string, current: string): Html {
  const button = (status: ErrorStatusName, label: string, variant: string) =>
    html`<form method="post" action="${path}" class="error-status-form">
      ${csrfField(csrfToken)}<input type="hidden" name="status" value="${status}" />
      <button type="submit" class="error-status-${status} ${variant}">${label}</button>
    </form>`
  return html`<div class="actions">
    ${current === 'ignored' ? button('unresolved', 'Undo ignore', 'secondary') : button('ignored', 'Ignore', 'secondary')}
    ${current === 'resolved' ? button('unresolved', 'Unresolve', 'secondary') : button('resolved', 'Resolve', 'primary')}
  </div>`
}

/** One frame: where it is, and its source lines in a box that scrolls sideways rather than widening the page. */
function frameItem(frame: StackTraceEntry, isCulprit: boolean): Html {
  return html`<li class="frame${isCulprit ? ' culprit' : ''}">
    <div class="frame-location">
      ${isCulprit ? html`<span class="badge culprit-badge">Culprit</span> ` : ''}<span class="frame-file">${frame.file_name ?? frame.abs_path ?? '?'}</span>${
        frame.function ? html` in <span class="frame-function">${frame.function}</span>` : ''
      }${frame.line !== null ? html` at line <span class="frame-line">${frame.line}</span>` : ''}
    </div>
    ${
      frame.trace_context.length > 0
        ? html`<pre class="frame-context" tabindex="0">${frame.trace_context.map(
            (line) =>
              html`<span class="${line.line === frame.line ? 'context-line current' : 'context-line'}">${`${line.line}  ${line.context}\n`}</span>`,
          )}</pre>`
        : ''
    }
  </li>`
}

async function renderErrorDetails(w: WebRequest, loaded: LoadedProject, errorId: number) {
  const { error, firstReleaseVersion, lastReleaseVersion } = await showError(w.ctx, loaded, errorId)
  const latest = await findLatestErrorEvent(w.ctx.db, error.id)
  const frames = latest ? stackTraceOf(latest.payload) : []
  const culprit = latest ? culpritFrameIndex(latest.payload, error.actor) : null
  const path = errorPagePath(loaded.project.full_path, error.id)
  const status = statusName(error)
  const body = html`<div class="header-row error-header">
      <h1 class="error-title">${errorTitle(error)}</h1>
      ${canUpdateErrors(loaded.access, loaded.project) ? statusForms(path, await w.csrfToken(), status) : ''}
    </div>
    <dl class="fields error-details">
      <dt>Status</dt>
      <dd class="error-status">${capitalized(status)}</dd>
      <dt>Culprit</dt>
      <dd class="error-culprit">${error.actor}</dd>
      <dt>Events</dt>
      <dd class="error-events">${error.events_count}</dd>
      <dt>First seen</dt>
      <dd class="error-first-seen">${timeOf(error.first_seen_at)}${firstReleaseVersion ? html` (release ${firstReleaseVersion})` : ''}</dd>
      <dt>Last seen</dt>
      <dd class="error-last-seen">${timeOf(error.last_seen_at)}${lastReleaseVersion ? html` (release ${lastReleaseVersion})` : ''}</dd>
      ${error.platform ? html`<dt>Platform</dt><dd class="error-platform">${error.platform}</dd>` : ''}
    </dl>
    <h2>Stack trace</h2>
    ${
      latest
        ? html`<p class="event-info">
            Latest event ${timeOf(latest.occurred_at)}${latest.environment ? html`, environment ${latest.environment}` : ''}${
              latest.level ? html`, level ${latest.level}` : ''
            }
          </p>`
        : ''
    }
    ${
      frames.length === 0
        ? html`<p class="no-stack-trace">No stack trace for this error.</p>`
        : html`<ol class="stack-trace">
          ${frames.map((frame, index) => frameItem(frame, index === culprit))}
        </ol>`
    }`
  return renderProjectPage(
    w,
    loaded,
    {
      title: errorTitle(error),
      section: 'errors',
      crumbs: [{ text: 'Error tracking', href: `/${loaded.project.full_path}${LIST_SUFFIX}` }, { text: `#${error.id}` }],
    },
    body,
  )
}

/**
 * The project's error list and an error with its latest stack trace (GL Projects::ErrorTrackingController), and the
 * client keys of the monitor settings page.
 */
export function registerErrorTrackingPages(web: WebRouter) {
  registerClientKeyPages(web)
  for (const url of projectPageRoutes(LIST_SUFFIX)) {
    web.get(
      url,
      projectPage(async (w, loaded) => {
        if (!canReadErrors(loaded.access, loaded.project)) return w.notFound()
        return renderErrorList(w, loaded)
      }),
    )
  }
  for (const url of projectPageRoutes(DETAILS_SUFFIX)) {
    web.get(
      url,
      projectPage(async (w, loaded) => {
        if (!canReadErrors(loaded.access, loaded.project)) return w.notFound()
        try {
          return await renderErrorDetails(w, loaded, errorIdOf(w))
        } catch (error) {
          if (error instanceof NotFound) return w.notFound()
          throw error
        }
      }),
    )
    web.post(
      url,
      projectPage(async (w, loaded) => {
        const status = textOf(w.params.status)
        if (!canUpdateErrors(loaded.access, loaded.project) || !(ERROR_STATUSES as readonly string[]).includes(status)) return w.notFound()
        try {
          const { error } = await updateError(w.ctx, loaded, errorIdOf(w), status as ErrorStatusName)
          return w.redirect(errorPagePath(loaded.project.full_path, error.id))
        } catch (error) {
          if (error instanceof NotFound) return w.notFound()
          throw error
        }
      }),
    )
  }
}
