import { DomainError, NotFound } from '../../core/errors.js'
import type { AlertIntegrationRow } from '../../db/schema.js'
import { formErrorsOf } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { capitalized, listControls, listQueryOf, pager, textOf, timeOf, type ListView } from '../../web/list-page.js'
import { projectPage, projectPageRoutes, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import {
  allIntegrations,
  canAdminOperations,
  canSendTestAlert,
  createIntegration,
  customMappingAvailable,
  deleteIntegration,
  updateIntegration,
  integrationUrl,
  resetIntegrationToken,
  testableIntegrations,
  INTEGRATION_TYPES,
  type IntegrationType,
} from './integrations/index.js'
import { readWebhookBody, receiveAlerts, webhookStatusOf, type AlertIntake, type AlertIntakeOutcome } from './ingest/index.js'
import { canReadAlerts, canUpdateAlerts } from './policy.js'
import { parsePayload, payloadEntries, SEVERITY_NAMES, STATUS_NAMES, type AlertStatusName, type AlertView } from './present.js'
import { listAlertActivity, listAlerts, showAlert, updateAlertStatus, type AlertActivityItem } from './service.js'
import { type LoadedProject } from '../access/index.js'
import { errorTrackingSection, updateErrorTrackingFromForm, type ErrorTrackingRefusal } from '../error-tracking/index.js'

const SETTINGS_SUFFIX = '/-/settings/operations'
const ALERTS_SUFFIX = '/-/alert_management'
const ALERTS_PER_PAGE = 20

/** What a new integration's test form holds until someone writes their own payload. */
const SAMPLE_PAYLOAD = JSON.stringify({ title: 'Test alert', description: 'Sent from the alert settings page', severity: 'low' }, null, 2)

const TYPE_LABELS: Record<string, string> = { http: 'HTTP Endpoint', prometheus: 'Prometheus', opsgenie: 'Opsgenie' }

/** How the integration form labels the fields a refusal names. */
const ATTRIBUTES = { api_url: 'API URL' }

// The alert settings page (GL Projects::Settings::OperationsController, its "Alerts" section).

interface IntegrationFormValues {
  name: string
  type: string
  active: boolean
  apiUrl: string
}

const EMPTY_FORM: IntegrationFormValues = { name: '', type: 'http', active: true, apiUrl: '' }

/** A refused test alert: the payload comes back in its form, the reason at the top of the page. */
interface RefusedTest {
  integrationId: number
  payload: string
}

interface SettingsState {
  flash?: { kind: 'alert' | 'notice'; text: string } | null
  form?: { values: IntegrationFormValues; errors: string[] }
  test?: RefusedTest
  errorTracking?: ErrorTrackingRefusal
}

function settingsPath(loaded: LoadedProject): string {
  return `/${loaded.project.full_path}${SETTINGS_SUFFIX}`
}

function statusLabel(integration: AlertIntegrationRow): string {
  return integration.active === 1 ? 'Active' : 'Inactive'
}

/** A one-button form acting on one integration. */
function actionForm(
  loaded: LoadedProject,
  csrfToken: string,
  integration: AlertIntegrationRow,
  operation: string,
  label: string,
  className: string,
): Html {
  return html`<form class="inline ${className}" method="post" action="${settingsPath(loaded)}">
    ${csrfField(csrfToken)}<input type="hidden" name="operation" value="${operation}" />
    <input type="hidden" name="integration_id" value="${integration.id}" />
    <button type="submit">${label}</button>
  </form>`
}

function integrationsTable(w: WebRequest, loaded: LoadedProject, integrations: AlertIntegrationRow[], csrfToken: string): Html {
  const manager = canAdminOperations(loaded.access)
  if (integrations.length === 0) return html`<p class="no-integrations">No integrations have been added yet.</p>`
  return html`<div class="table-box"><table class="integrations">
    <thead>
      <tr>
        <th>Integration Name</th>
        <th>Type</th>
        <th>Status</th>
        ${manager ? html`<th>Webhook URL</th><th>Authorization key</th><th></th>` : ''}
      </tr>
    </thead>
    <tbody>
      ${integrations.map((integration) => {
        const tracker = integration.type === 'opsgenie'
        const managed = manager
          ? html`<td>
                ${
                  tracker
                    ? html`<span class="integration-target">${integration.api_url ?? ''}</span>`
                    : html`<code class="integration-url">${integrationUrl(w.ctx.config.externalUrl, loaded.project.full_path, integration)}</code>`
                }
              </td>
              <td>${tracker ? '' : html`<code class="integration-token">${integration.token}</code>`}</td>
              <td class="integration-actions">
                ${tracker ? '' : actionForm(loaded, csrfToken, integration, 'reset_token', 'Reset Key', 'reset-key')}
                ${
                  integration.active === 1
                    ? actionForm(loaded, csrfToken, integration, 'deactivate', 'Deactivate', 'deactivate')
                    : actionForm(loaded, csrfToken, integration, 'activate', 'Activate', 'activate')
                }
                ${actionForm(loaded, csrfToken, integration, 'delete', 'Delete', 'delete')}
              </td>`
          : ''
        return html`<tr class="integration" id="integration_${integration.id}" data-type="${integration.type}">
          <td class="integration-name">${integration.name}</td>
          <td>${TYPE_LABELS[integration.type] ?? integration.type}</td>
          <td class="integration-status">${statusLabel(integration)}</td>
          ${managed}
        </tr>`
      })}
    </tbody>
  </table></div>`
}

function newIntegrationForm(w: WebRequest, loaded: LoadedProject, csrfToken: string, form: SettingsState['form']): Html {
  const values = form?.values ?? EMPTY_FORM
  const types = INTEGRATION_TYPES.filter((type) => type !== 'opsgenie' || customMappingAvailable(w.ctx))
  const errors = form?.errors ?? []
  return html`<section id="new-integration">
    <h2>Add new integration</h2>
    ${
      errors.length > 0
        ? html`<div class="flash alert" role="alert" id="error_explanation">
          <ul>
            ${errors.map((message) => html`<li>${message}</li>`)}
          </ul>
        </div>`
        : ''
    }
    <form method="post" action="${settingsPath(loaded)}" class="integration-form">
      ${csrfField(csrfToken)}<input type="hidden" name="operation" value="create" />
      <label for="integration_type">Integration type</label>
      <select id="integration_type" name="type">
        ${types.map((type) => html`<option value="${type}"${values.type === type ? html` selected` : ''}>${TYPE_LABELS[type]}</option>`)}
      </select>
      <label for="integration_name">Integration name</label>
      <input type="text" id="integration_name" name="name" value="${values.name}" maxlength="255" />
      <p>Prometheus integrations are always named Prometheus.</p>
      <label class="scope">
        <input type="hidden" name="active" value="0" />
        <input type="checkbox" id="integration_active" name="active" value="1"${values.active ? html` checked` : ''} />
        Active
      </label>
      <label for="integration_api_url">API URL (Prometheus base URL, or the Opsgenie URL)</label>
      <input type="text" id="integration_api_url" name="api_url" value="${values.apiUrl}" />
      <p><button type="submit">Save integration</button></p>
    </form>
  </section>`
}

function testForms(loaded: LoadedProject, integrations: AlertIntegrationRow[], csrfToken: string, test: SettingsState['test']): Html {
  const testable = integrations.filter((integration) => integration.type !== 'opsgenie')
  return html`<section id="test-alerts">
    <h2>Send test alert</h2>
    ${
      testable.length === 0
        ? html`<p>Add an integration to send a test alert through it.</p>`
        : testable.map((integration) => {
            const mine = test?.integrationId === integration.id ? test : undefined
            return html`<form method="post" action="${settingsPath(loaded)}" class="test-alert" id="test_alert_${integration.id}">
            ${csrfField(csrfToken)}<input type="hidden" name="operation" value="test_alert" />
            <input type="hidden" name="integration_id" value="${integration.id}" />
            <label for="test_payload_${integration.id}">Sample payload for ${integration.name} (JSON)</label>
            <textarea id="test_payload_${integration.id}" name="payload" rows="6">${mine?.payload ?? SAMPLE_PAYLOAD}</textarea>
            <p><button type="submit">Send test alert</button></p>
          </form>`
          })
    }
  </section>`
}

async function renderSettings(w: WebRequest, loaded: LoadedProject, state: SettingsState = {}, status = 200) {
  const csrfToken = await w.csrfToken()
  const manager = canAdminOperations(loaded.access)
  const integrations = manager ? await allIntegrations(w.ctx, loaded) : await testableIntegrations(w.ctx, loaded)
  const body = html`<h1>Monitor Settings</h1>
    <p>
      Alert integrations of <a href="/${loaded.project.full_path}">${loaded.project.full_name}</a>:
      monitoring tools post alerts to an integration's webhook URL with its authorization key.
    </p>
    <section id="integrations">
      <h2>Current integrations</h2>
      ${integrationsTable(w, loaded, integrations, csrfToken)}
    </section>
    ${manager ? newIntegrationForm(w, loaded, csrfToken, state.form) : ''} ${testForms(loaded, integrations, csrfToken, state.test)}
    ${await errorTrackingSection(w, loaded, csrfToken, state.errorTracking ?? null)}`
  return renderProjectPage(
    w,
    loaded,
    { title: 'Monitor Settings', section: 'settings', crumbs: [{ text: 'Monitor Settings' }], flash: state.flash ?? null, status },
    body,
  )
}

function formValuesOf(params: Record<string, unknown>): IntegrationFormValues {
  // A checkbox follows a hidden "0" of the same name, so the last value wins.
  const actives = Array.isArray(params.active) ? params.active : [params.active]
  const active = actives[actives.length - 1]
  return {
    name: textOf(params.name),
    type: textOf(params.type) || 'http',
    active: active === undefined ? true : ['1', 'true', 'on'].includes(textOf(active)),
    apiUrl: textOf(params.api_url),
  }
}

async function createFromForm(w: WebRequest, loaded: LoadedProject) {
  const values = formValuesOf(w.params)
  if (!(INTEGRATION_TYPES as readonly string[]).includes(values.type)) {
    return renderSettings(w, loaded, { form: { values: EMPTY_FORM, errors: ['Type is not included in the list'] } }, 422)
  }
  try {
    await createIntegration(w.ctx, loaded, values.type as IntegrationType, {
      // Left blank, the other types take their own names.
      name: values.name.trim() === '' && values.type !== 'http' ? undefined : values.name,
      active: values.active,
      apiUrl: values.apiUrl,
    })
  } catch (error) {
    if (error instanceof DomainError && !(error instanceof NotFound)) {
      return renderSettings(w, loaded, { form: { values, errors: formErrorsOf(error, ATTRIBUTES) } }, 422)
    }
    throw error
  }
  return settingsDone(w, loaded, 'Integration successfully saved.')
}

/** After a change: the notice is kept for the settings page, which the browser is sent back to (post/redirect/get). */
async function settingsDone(w: WebRequest, loaded: LoadedProject, notice: string) {
  await w.flash('notice', notice)
  return w.redirect(settingsPath(loaded))
}

function integrationIdOf(w: WebRequest): number {
  const text = textOf(w.params.integration_id)
  if (!/^\d{1,10}$/.test(text)) throw new NotFound('Integration')
  return Number(text)
}

/** The outcome of a test alert in words: the alerts it made, or why the webhook would refuse it, with its status. */
function testResultOf(result: AlertIntakeOutcome): { ok: boolean; text: string } {
  if (result.outcome === 'accepted') {
    return {
      ok: true,
      text: ['Test alert sent successfully.', ...result.alerts.map((alert) => `Alert #${alert.iid}: ${alert.title}`)].join(' '),
    }
  }
  const reasons: Record<Exclude<AlertIntakeOutcome['outcome'], 'accepted'>, string> = {
    'not-accepted': 'the payload was not accepted',
    'key-refused': 'the authorization key was refused',
    'integration-inactive': 'the integration is not active',
    'project-not-found': 'the endpoint was not found',
  }
  return { ok: false, text: `Test alert failed (HTTP ${webhookStatusOf(result)}): ${reasons[result.outcome]}.` }
}

/** Hands the payload to the alert intake as the integration's webhook would receive it, with its key (which never reaches the browser). */
async function sendTestAlert(w: WebRequest, loaded: LoadedProject, intake: AlertIntake) {
  const id = integrationIdOf(w)
  const integration = (await testableIntegrations(w.ctx, loaded)).find((candidate) => candidate.id === id)
  if (!integration) return w.notFound()
  const payload = textOf(w.params.payload)
  // A blank payload, which the webhook would read as `{}`, is no JSON to test with.
  const body = payload.trim() === '' ? null : readWebhookBody(Buffer.from(payload, 'utf8'))
  if (!body) {
    const flash = { kind: 'alert' as const, text: 'Test alert failed: the payload must be valid JSON.' }
    return renderSettings(w, loaded, { flash, test: { integrationId: id, payload } }, 422)
  }
  const outcome = await receiveAlerts(w.ctx, intake, {
    ...body,
    fullPath: loaded.project.full_path,
    endpointIdentifier: integration.endpoint_identifier,
    key: integration.token,
  })
  const result = testResultOf(outcome)
  if (result.ok) return settingsDone(w, loaded, result.text)
  return renderSettings(w, loaded, { flash: { kind: 'alert', text: result.text }, test: { integrationId: id, payload } }, 422)
}

/** Switches an integration on or off, or removes it; what the rules refuse is shown above the list. */
async function changeFromForm(w: WebRequest, loaded: LoadedProject, operation: 'activate' | 'deactivate' | 'delete') {
  const id = integrationIdOf(w)
  try {
    if (operation === 'delete') await deleteIntegration(w.ctx, loaded, id)
    else await updateIntegration(w.ctx, loaded, id, { active: operation === 'activate' })
  } catch (error) {
    if (error instanceof DomainError && !(error instanceof NotFound)) {
      return renderSettings(w, loaded, { flash: { kind: 'alert', text: formErrorsOf(error, ATTRIBUTES).join(' ') } }, 422)
    }
    throw error
  }
  const notices = {
    activate: 'The integration is active.',
    deactivate: 'The integration is inactive.',
    delete: 'The integration was deleted.',
  }
  return settingsDone(w, loaded, notices[operation])
}

async function resetKeyFromForm(w: WebRequest, loaded: LoadedProject) {
  await resetIntegrationToken(w.ctx, loaded, integrationIdOf(w))
  return settingsDone(w, loaded, 'The authorization key was reset.')
}

// The alert list (GL Projects::AlertManagementController#index).

const STATUS_TABS: { label: string; status: AlertStatusName | null }[] = [
  { label: 'All alerts', status: null },
  { label: 'Triggered', status: 'triggered' },
  { label: 'Acknowledged', status: 'acknowledged' },
  { label: 'Resolved', status: 'resolved' },
  { label: 'Ignored', status: 'ignored' },
]

async function renderAlertList(w: WebRequest, loaded: LoadedProject) {
  const statusParam = textOf(w.params.status)
  const status = (STATUS_NAMES as readonly string[]).includes(statusParam) ? (statusParam as AlertStatusName) : null
  const { search, page } = listQueryOf(w.params)
  const { alerts, total } = await listAlerts(w.ctx, loaded, {
    status: status ?? undefined,
    search: search || undefined,
    page,
    perPage: ALERTS_PER_PAGE,
  })
  const view: ListView<AlertStatusName> = {
    base: `/${loaded.project.full_path}${ALERTS_SUFFIX}`,
    status,
    defaultStatus: null,
    search,
    page,
  }
  const body = html`<h1>Alerts</h1>
    ${listControls(view, STATUS_TABS, 'alert')}
    ${
      alerts.length === 0
        ? html`<p class="no-alerts">No alerts to display.</p>`
        : html`<div class="table-box"><table class="alerts">
          <thead>
            <tr>
              <th>Severity</th>
              <th>Start time</th>
              <th>Alert</th>
              <th>Events</th>
              <th>Issue</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            ${alerts.map(
              (alert) => html`<tr class="alert-row" id="alert_${alert.iid}">
                <td class="alert-severity">${capitalized(SEVERITY_NAMES[alert.severity] ?? 'critical')}</td>
                <td class="alert-started">${timeOf(alert.started_at)}</td>
                <td class="alert-title"><a href="${detailsPath(loaded, alert.iid)}">#${alert.iid} ${alert.title}</a></td>
                <td class="alert-events">${alert.events}</td>
                <td class="alert-issue">${alert.issue_iid === null ? 'None' : `#${alert.issue_iid}`}</td>
                <td class="alert-status">${capitalized(STATUS_NAMES[alert.status] ?? 'triggered')}</td>
              </tr>`,
            )}
          </tbody>
        </table></div>`
    }
    ${pager(view, ALERTS_PER_PAGE, total, 'alerts')}`
  return renderProjectPage(w, loaded, { title: 'Alerts', section: 'alerts', crumbs: [{ text: 'Alerts' }] }, body)
}

// The alert details page (GL Projects::AlertManagementController#details).

const DETAILS_SUFFIX = '/-/alert_management/:alert_iid/details'

function detailsPath(loaded: LoadedProject, iid: number): string {
  return `/${loaded.project.full_path}${ALERTS_SUFFIX}/${iid}/details`
}

/** The status changes the page offers, as GL's status dropdown names them. */
const STATUS_ACTIONS: { status: AlertStatusName; label: string; className: string }[] = [
  { status: 'acknowledged', label: 'Acknowledge', className: 'primary' },
  { status: 'resolved', label: 'Resolve', className: 'secondary' },
  { status: 'ignored', label: 'Ignore', className: 'secondary' },
  { status: 'triggered', label: 'Reopen', className: 'secondary' },
]

/** A payload value as text: strings as they are, anything else as JSON. */
function valueText(value: unknown): string {
  if (typeof value === 'string') return value
  return JSON.stringify(value, null, 2) ?? 'null'
}

/** A system note's Markdown as GL writes them: plain text with `**bold**` spans. */
function noteBody(body: string): Html {
  return html`${body.split(/\*\*([^*]+)\*\*/).map((part, index) => (index % 2 === 1 ? html`<strong>${part}</strong>` : part))}`
}

function statusBadge(status: number): Html {
  const name = STATUS_NAMES[status] ?? 'triggered'
  return html`<span class="badge status-${name}">${capitalized(name)}</span>`
}

function field(label: string, value: Html | string, className: string): Html {
  return html`<dt>${label}</dt>
    <dd class="${className}">${value === '' ? html`<span class="none">None</span>` : value}</dd>`
}

function summaryOf(loaded: LoadedProject, alert: AlertView): Html {
  const hosts = JSON.parse(alert.hosts) as unknown
  const hostList = Array.isArray(hosts) ? hosts.map((host) => String(host)) : []
  return html`<dl class="fields alert-fields">
    ${field('Severity', capitalized(SEVERITY_NAMES[alert.severity] ?? 'critical'), 'alert-severity')}
    ${field('Start time', timeOf(alert.started_at), 'alert-started')}
    ${field('End time', alert.ended_at === null ? '' : timeOf(alert.ended_at), 'alert-ended')}
    ${field('Events', String(alert.events), 'alert-events')}
    ${field('Environment', alert.environment_name ?? '', 'alert-environment')}
    ${field('Monitoring tool', alert.monitoring_tool ?? '', 'alert-monitoring-tool')}
    ${field('Service', alert.service ?? '', 'alert-service')}
    ${field('Hosts', hostList.length === 0 ? '' : html`<ul class="plain">${hostList.map((host) => html`<li><code>${host}</code></li>`)}</ul>`, 'alert-hosts')}
    ${field(
      'Incident',
      alert.issue_iid === null ? '' : html`<a href="/${loaded.project.full_path}/-/issues/${alert.issue_iid}">#${alert.issue_iid}</a>`,
      'alert-incident',
    )}
    ${alert.runbook ? field('Runbook', alert.runbook, 'alert-runbook') : ''}
    ${alert.description ? field('Description', alert.description, 'alert-description') : ''}
  </dl>`
}

function payloadTable(alert: AlertView): Html {
  const entries = payloadEntries(parsePayload(alert))
  if (entries.length === 0) return html`<p class="empty">The alert was sent with an empty payload.</p>`
  return html`<div class="table-box">
    <table class="key-values alert-payload">
      <thead>
        <tr>
          <th>Key</th>
          <th>Value</th>
        </tr>
      </thead>
      <tbody>
        ${entries.map(
          ([key, value]) => html`<tr>
            <th scope="row">${key}</th>
            <td>${typeof value === 'object' && value !== null ? html`<pre>${valueText(value)}</pre>` : html`<span class="value">${valueText(value)}</span>`}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`
}

function activityList(activity: AlertActivityItem[]): Html {
  if (activity.length === 0) return html`<p class="empty">No activity yet: status changes appear here.</p>`
  return html`<ol class="activity">
    ${activity.map(
      (item) => html`<li class="note${item.system ? ' system-note' : ''}" id="note_${item.id}">
        <span class="note-author">${item.author.name}</span> <span class="note-username">@${item.author.username}</span>
        <span class="note-body">${noteBody(item.body)}</span> · ${timeOf(item.createdAt)}
      </li>`,
    )}
  </ol>`
}

function statusForms(loaded: LoadedProject, alert: AlertView, csrfToken: string): Html {
  const current = STATUS_NAMES[alert.status] ?? 'triggered'
  return html`<div class="button-row status-actions">
    ${STATUS_ACTIONS.filter((action) => action.status !== current).map(
      (action) => html`<form method="post" action="${detailsPath(loaded, alert.iid)}" class="status-change" id="status_${action.status}">
        ${csrfField(csrfToken)}<input type="hidden" name="status" value="${action.status}" />
        <button type="submit" class="${action.className}">${action.label}</button>
      </form>`,
    )}
  </div>`
}

async function renderAlertDetails(w: WebRequest, loaded: LoadedProject, alert: AlertView, error: string | null = null) {
  const activity = await listAlertActivity(w.ctx, loaded, alert)
  const editable = canUpdateAlerts(loaded.access)
  const csrfToken = editable ? await w.csrfToken() : ''
  const body = html`<div class="alert-header">
      ${statusBadge(alert.status)}
      <span class="alert-reported"
        >Alert #${alert.iid} reported ${timeOf(alert.created_at)}${alert.monitoring_tool ? html` by ${alert.monitoring_tool}` : ''}</span
      >
    </div>
    <h1 class="alert-title">${alert.title}</h1>
    ${editable ? statusForms(loaded, alert, csrfToken) : ''}
    <section id="alert-summary">${summaryOf(loaded, alert)}</section>
    <section id="alert-details">
      <h2>Alert details</h2>
      ${payloadTable(alert)}
    </section>
    <section id="alert-activity">
      <h2>Activity feed</h2>
      ${activityList(activity)}
    </section>`
  const flash = error ? { kind: 'alert' as const, text: error } : null
  return renderProjectPage(
    w,
    loaded,
    {
      title: `${alert.title} · Alerts`,
      section: 'alerts',
      crumbs: [{ text: 'Alerts', href: `/${loaded.project.full_path}${ALERTS_SUFFIX}` }, { text: `#${alert.iid}` }],
      flash,
      status: error ? 422 : 200,
    },
    body,
  )
}

/** The alert of the path's iid; NotFound when it is not a number or the project has none by it. */
async function findAlertOfPage(w: WebRequest, loaded: LoadedProject): Promise<AlertView> {
  const text = textOf(w.params.alert_iid)
  if (!/^\d{1,10}$/.test(text)) throw new NotFound('Alert')
  return showAlert(w.ctx, loaded, Number(text))
}

/** Changes the alert's status as the API does (system note, incident closing) and shows the page again. */
async function changeStatusFromForm(w: WebRequest, loaded: LoadedProject, alert: AlertView) {
  const status = textOf(w.params.status)
  if (!(STATUS_NAMES as readonly string[]).includes(status)) {
    return renderAlertDetails(w, loaded, alert, 'Status is not included in the list')
  }
  try {
    await updateAlertStatus(w.ctx, loaded, alert.iid, status as AlertStatusName)
  } catch (error) {
    if (error instanceof DomainError && !(error instanceof NotFound)) {
      return renderAlertDetails(w, loaded, alert, formErrorsOf(error, ATTRIBUTES).join(' '))
    }
    throw error
  }
  return w.redirect(detailsPath(loaded, alert.iid))
}

/** The project's alert settings page (integrations, test alert) and its alert list. */
export function registerAlertPages(web: WebRouter, intake: AlertIntake) {
  for (const url of projectPageRoutes(SETTINGS_SUFFIX)) {
    web.get(
      url,
      projectPage(async (w, loaded) => {
        if (!canSendTestAlert(loaded.access)) return w.notFound()
        return renderSettings(w, loaded)
      }),
    )
    web.post(
      url,
      projectPage(async (w, loaded) => {
        const operation = textOf(w.params.operation)
        const allowed = operation === 'test_alert' ? canSendTestAlert(loaded.access) : canAdminOperations(loaded.access)
        if (!allowed) return w.notFound()
        try {
          if (operation === 'create') return await createFromForm(w, loaded)
          if (operation === 'reset_token') return await resetKeyFromForm(w, loaded)
          if (operation === 'activate' || operation === 'deactivate' || operation === 'delete')
            return await changeFromForm(w, loaded, operation)
          if (operation === 'test_alert') return await sendTestAlert(w, loaded, intake)
        } catch (error) {
          if (error instanceof NotFound) return w.notFound()
          throw error
        }
        return w.notFound()
      }),
    )
    // GL OperationsController#update: the settings' nested attributes; here, error tracking's.
    web.route(
      'PATCH',
      url,
      projectPage(async (w, loaded) => {
        if (!canAdminOperations(loaded.access)) return w.notFound()
        const outcome = await updateErrorTrackingFromForm(w, loaded)
        if (outcome === null) return w.notFound()
        if (outcome === 'saved') return w.redirect(settingsPath(loaded))
        return renderSettings(w, loaded, { errorTracking: outcome }, 422)
      }),
    )
  }
  for (const url of projectPageRoutes(ALERTS_SUFFIX)) {
    web.get(
      url,
      projectPage(async (w, loaded) => {
        if (!canReadAlerts(loaded.access)) return w.notFound()
        return renderAlertList(w, loaded)
      }),
    )
  }
  for (const url of projectPageRoutes(DETAILS_SUFFIX)) {
    web.get(
      url,
      projectPage(async (w, loaded) => {
        if (!canReadAlerts(loaded.access)) return w.notFound()
        return renderAlertDetails(w, loaded, await findAlertOfPage(w, loaded))
      }),
    )
    web.post(
      url,
      projectPage(async (w, loaded) => {
        if (!canReadAlerts(loaded.access) || !canUpdateAlerts(loaded.access)) return w.notFound()
        return changeStatusFromForm(w, loaded, await findAlertOfPage(w, loaded))
      }),
    )
  }
}
