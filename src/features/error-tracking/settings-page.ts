import type { ErrorTrackingClientKeyRow, ErrorTrackingSettingsRow } from '../../db/schema.js'
import { errorList } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import { projectPage, projectPageRoutes } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { canAdminOperations } from './policy.js'
import {
  createClientKey,
  deleteClientKey,
  findProjectSettings,
  listClientKeys,
  setClientKeyActive,
  trackerDsn,
  updateSettings,
} from './settings.js'
import { type LoadedProject } from '../access/index.js'

// The "Error tracking" section of a project's monitor settings (GL Projects::Settings::OperationsController and its
// _error_tracking partial): switch error tracking on or off, choose the backend, copy the DSN, and manage the client
// keys whose DSNs SDKs send to. Every change goes through the services the API uses, so the page refuses what
// PUT /projects/:id/error_tracking/settings refuses, in the same words.

const SETTINGS_SUFFIX = '/-/settings/operations'
const CLIENT_KEYS_SUFFIX = '/-/settings/operations/client_keys'
const CLIENT_KEY_SUFFIX = '/-/settings/operations/client_keys/:key_id'
const SECTION_ID = 'js-error-tracking-settings'

/** At most this many keys are listed; GitLab's own page shows one DSN and leaves the rest to the API. */
const CLIENT_KEYS_SHOWN = 100

/** GitLab's form model and its nested attributes (`project[error_tracking_setting_attributes][enabled]`). */
const FORM_MODEL = 'project'
const FORM_ATTRIBUTES = 'error_tracking_setting_attributes'

/** A refused settings form: what was chosen, and why it was refused. */
export interface ErrorTrackingRefusal {
  enabled: boolean
  integrated: boolean
  messages: string[]
}

function settingsPath(loaded: LoadedProject): string {
  return `/${loaded.project.full_path}${SETTINGS_SUFFIX}`
}

function clientKeysPath(loaded: LoadedProject, keyId?: number): string {
  return `/${loaded.project.full_path}${CLIENT_KEYS_SUFFIX}${keyId === undefined ? '' : `/${keyId}`}`
}

function dsnOf(w: WebRequest, key: ErrorTrackingClientKeyRow): string {
  return trackerDsn(w.ctx.config.externalUrl, key.public_key, key.project_id)
}

/** A read-only field holding `value` (labelled by a label for `id`), with a button copying it. */
function copyField(id: string, value: string): Html {
  return html`<div class="copy-field">
    <input type="text" id="${id}" value="${value}" readonly />
    <button type="button" data-copy="${id}">Copy</button>
  </div>`
}

function settingsForm(loaded: LoadedProject, token: string, enabled: boolean, integrated: boolean): Html {
  const name = (attribute: string) => `${FORM_MODEL}[${FORM_ATTRIBUTES}][${attribute}]`
  return html`<form method="post" action="${settingsPath(loaded)}" class="error-tracking-settings">
    ${csrfField(token)}<input type="hidden" name="_method" value="patch" />
    <fieldset class="choices">
      <legend>Enable error tracking</legend>
      <input type="hidden" name="${name('enabled')}" value="false" />
      <div class="choice">
        <input type="checkbox" id="error-tracking-enabled" name="${name('enabled')}" value="true" ${enabled ? html`checked` : ''} />
        <label for="error-tracking-enabled" class="inline-label">Active</label>
      </div>
    </fieldset>
    <fieldset class="choices">
      <legend>Error tracking backend</legend>
      <div class="choice">
        <input
          type="radio"
          id="error-tracking-backend-gitlab"
          name="${name('integrated')}"
          value="true"
          aria-describedby="error-tracking-backend-gitlab_help"
          ${integrated ? html`checked` : ''}
        />
        <label for="error-tracking-backend-gitlab" class="inline-label">GitLab</label>
        <p class="help" id="error-tracking-backend-gitlab_help">
          Errors are sent to this project's DSN and kept here (integrated error tracking).
        </p>
      </div>
      <div class="choice">
        <input
          type="radio"
          id="error-tracking-backend-sentry"
          name="${name('integrated')}"
          value="false"
          aria-describedby="error-tracking-backend-sentry_help"
          disabled
          ${integrated ? '' : html`checked`}
        />
        <label for="error-tracking-backend-sentry" class="inline-label">Sentry</label>
        <p class="help" id="error-tracking-backend-sentry_help">Not available: this instance does not connect to a Sentry server.</p>
      </div>
    </fieldset>
    <div class="button-row"><button type="submit" class="primary">Save changes</button></div>
  </form>`
}

function keyStatus(key: ErrorTrackingClientKeyRow): string {
  return key.active === 1 ? 'Active' : 'Inactive'
}

function keyActions(loaded: LoadedProject, token: string, key: ErrorTrackingClientKeyRow): Html {
  const switchTo = key.active === 1 ? 'false' : 'true'
  return html`<div class="row-actions">
    <form method="post" action="${clientKeysPath(loaded, key.id)}">
      ${csrfField(token)}<input type="hidden" name="_method" value="put" />
      <input type="hidden" name="active" value="${switchTo}" />
      <button type="submit" class="small" aria-label="${key.active === 1 ? 'Deactivate' : 'Activate'} client key ${key.public_key}">
        ${key.active === 1 ? 'Deactivate' : 'Activate'}
      </button>
    </form>
    <details class="menu confirm-menu">
      <summary class="button small danger-outline" aria-label="Delete client key ${key.public_key}">Delete</summary>
      <div class="menu-items confirm-box" role="group" aria-label="Delete client key ${key.public_key}">
        <p>SDKs sending to this key's DSN will be refused. This cannot be undone.</p>
        <form method="post" action="${clientKeysPath(loaded, key.id)}">
          ${csrfField(token)}<input type="hidden" name="_method" value="delete" />
          <button type="submit" class="danger">Delete client key</button>
        </form>
      </div>
    </details>
  </div>`
}

function clientKeysList(w: WebRequest, loaded: LoadedProject, token: string, keys: ErrorTrackingClientKeyRow[], total: number): Html {
  const list =
    keys.length === 0
      ? html`<p class="muted no-client-keys">No client keys yet: create one, or save error tracking active with the GitLab backend.</p>`
      : html`<ul class="client-keys">
            ${keys.map(
              (key) => html`<li class="client-key" id="client_key_${key.id}">
                <div class="client-key-header">
                  <code class="client-key-public">${key.public_key}</code>
                  <span class="badge client-key-status${key.active === 1 ? ' status-opened' : ''}">${keyStatus(key)}</span>
                  ${keyActions(loaded, token, key)}
                </div>
                <label for="client_key_dsn_${key.id}" class="help">DSN</label>
                ${copyField(`client_key_dsn_${key.id}`, dsnOf(w, key))}
              </li>`,
            )}
          </ul>
          ${total > keys.length ? html`<p class="help">The first ${keys.length} of ${total} keys are shown.</p>` : ''}`
  return html`<h3>Client keys</h3>
    <p class="help">An SDK authenticates with the public key in its DSN. An inactive or deleted key's DSN is refused.</p>
    ${list}
    <form method="post" action="${clientKeysPath(loaded)}" class="create-client-key">
      ${csrfField(token)}
      <div class="button-row"><button type="submit">Create client key</button></div>
    </form>`
}

/**
 * The section for the monitor settings page; empty for those below Maintainer (GL `admin_operations`). A refusal
 * shows the choices that were refused with the service's reasons above them.
 */
export async function errorTrackingSection(
  w: WebRequest,
  loaded: LoadedProject,
  token: string,
  refusal: ErrorTrackingRefusal | null = null,
): Promise<Html> {
  if (!canAdminOperations(loaded.access)) return html``
  const settings: ErrorTrackingSettingsRow | null = await findProjectSettings(w.ctx, loaded)
  const keys = await listClientKeys(w.ctx, loaded, 1, CLIENT_KEYS_SHOWN)
  // Without settings the backend offered is GitLab's: svc has no other.
  const enabled = refusal?.enabled ?? settings?.enabled === 1
  const integrated = refusal?.integrated ?? (settings === null || settings.integrated === 1)
  // GL ProjectErrorTrackingSetting#gitlab_dsn: the first active key's, once the integrated backend is on.
  const dsnKey = settings?.enabled === 1 && settings.integrated === 1 ? keys.rows.find((key) => key.active === 1) : undefined
  const total = keys.total ?? keys.rows.length
  return html`<section class="box settings-section" id="${SECTION_ID}" aria-labelledby="${SECTION_ID}-heading">
    <header><h2 id="${SECTION_ID}-heading">Error tracking</h2></header>
    <div class="body">
      <p class="help">Link an SDK to this project to discover and view the errors your application generates.</p>
      ${refusal ? errorList(refusal.messages) : ''} ${settingsForm(loaded, token, enabled, integrated)}
      ${
        dsnKey
          ? html`<label for="error-tracking-dsn">Paste this Data Source Name (DSN) into your Sentry SDK.</label>
            ${copyField('error-tracking-dsn', dsnOf(w, dsnKey))}`
          : ''
      }
      ${clientKeysList(w, loaded, token, keys.rows, total)}
    </div>
  </section>`
}

/** A checkbox's value after its hidden "false": the last one sent wins, as Rails reads it. */
function lastOf(value: unknown): string {
  return textOf(Array.isArray(value) ? value[value.length - 1] : value)
}

const TRUE_VALUES = ['1', 'true', 'on']

/**
 * PATCH of the monitor settings with GitLab's nested error tracking attributes: saved through the API's update
 * (`Your changes have been saved` and back to the page), or the refusal to show beside the form. Null when the
 * form carried no error tracking attributes.
 */
export async function updateErrorTrackingFromForm(w: WebRequest, loaded: LoadedProject): Promise<ErrorTrackingRefusal | 'saved' | null> {
  const body = w.request.body
  const model = body && typeof body === 'object' ? (body as Record<string, unknown>)[FORM_MODEL] : undefined
  const attributes = model && typeof model === 'object' ? (model as Record<string, unknown>)[FORM_ATTRIBUTES] : undefined
  if (!attributes || typeof attributes !== 'object' || Array.isArray(attributes)) return null
  const given = attributes as Record<string, unknown>
  const enabled = TRUE_VALUES.includes(lastOf(given.enabled))
  const integratedText = lastOf(given.integrated)
  // Left out (the unavailable Sentry choice sends nothing), the backend stays as it is, as a PATCH without it does.
  const integrated = integratedText === '' ? undefined : TRUE_VALUES.includes(integratedText)
  const result = await updateSettings(w.ctx, loaded, { active: enabled, integrated, create: true })
  if ('failure' in result) {
    const current = await findProjectSettings(w.ctx, loaded)
    return { enabled, integrated: integrated ?? (current === null || current.integrated === 1), messages: [result.failure.message] }
  }
  await w.flash('notice', 'Your changes have been saved')
  return 'saved'
}

/** After a key changed: its notice on the settings page, at the section. */
async function keysDone(w: WebRequest, loaded: LoadedProject, notice: string) {
  await w.flash('notice', notice)
  return w.redirect(`${settingsPath(loaded)}#${SECTION_ID}`)
}

/** Creating, switching and deleting client keys from the settings page, for Maintainers (GL `admin_operations`). */
export function registerClientKeyPages(web: WebRouter) {
  const maintainers = (action: (w: WebRequest, loaded: LoadedProject) => Promise<unknown>) =>
    projectPage(async (w, loaded) => (canAdminOperations(loaded.access) ? action(w, loaded) : w.notFound()))
  for (const url of projectPageRoutes(CLIENT_KEYS_SUFFIX)) {
    web.post(
      url,
      maintainers(async (w, loaded) => {
        await createClientKey(w.ctx, loaded)
        return keysDone(w, loaded, 'The client key was created.')
      }),
    )
  }
  for (const url of projectPageRoutes(CLIENT_KEY_SUFFIX)) {
    web.put(
      url,
      maintainers(async (w, loaded) => {
        const active = textOf(w.params.active)
        if (active !== 'true' && active !== 'false') return w.notFound()
        await setClientKeyActive(w.ctx, loaded, textOf(w.params.key_id), active === 'true')
        return keysDone(w, loaded, active === 'true' ? 'The client key is active.' : 'The client key is inactive.')
      }),
    )
    web.delete(
      url,
      maintainers(async (w, loaded) => {
        await deleteClientKey(w.ctx, loaded, textOf(w.params.key_id))
        return keysDone(w, loaded, 'The client key was deleted.')
      }),
    )
  }
}
