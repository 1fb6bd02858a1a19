import { AccessLevel } from '../../core/access.js'
import { isAdmin } from '../../core/caller.js'
import { BadRequest, DomainError } from '../../core/errors.js'
import { RESOURCE_BOT_SCOPES } from '../../core/scopes.js'
import { addDays, isoDate } from '../../core/time.js'
import { activeTokensSection, dateOrNever, newTokenField, scopeCheckboxes, scopesText, tokensTableHead } from '../../web/access-tokens.js'
import { dayElement } from '../../web/dates.js'
import { describedBy, errorIdOf } from '../../web/described-by.js'
import { errorList, fieldError, refusalOf, type Refusal } from '../../web/form-errors.js'
import { isCalendarDate, textsOf } from '../../web/form-values.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { timeAgo } from '../../web/time-ago.js'
import { canProject, type LoadedProject } from '../access/index.js'
import { projectPageRoutes } from '../projects/index.js'
import {
  createResourceToken,
  listResourceTokens,
  revokeResourceToken,
  showResourceToken,
  type ResourceToken,
  type TokenResource,
} from '../resource-tokens/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import {
  formOf,
  givenText,
  integerOf,
  isFormRefusal,
  PROJECT_ROLES,
  renderSettingsPage,
  ROLE_NAMES,
  rowActionForm,
  settingsPage,
  settingsPath,
  settingsSection,
} from './shared.js'

// Settings > Access tokens (GL Projects::Settings::AccessTokensController): project access tokens made, listed and
// revoked through the resource tokens feature, so the page refuses what POST /projects/:id/access_tokens refuses, in
// its words. A new token's value is kept in the session only until the next page shows it, once (GitLab keeps it in
// Redis for the same single read).

/** The flash values naming a new token and the project it belongs to. */
const NEW_TOKEN = 'project_access_token'
const NEW_TOKEN_PROJECT = 'project_access_token_project'

/** GL's access tokens form: a new token expires in 30 days unless another date is chosen. */
const DEFAULT_LIFETIME_DAYS = 30

/** How many active tokens the page lists. */
const TOKENS_LISTED = 100

/** How the service's sentence names each field, to place its part beside that field. */
const FIELD_PREFIXES: [string, string][] = [
  ['Name ', 'name'],
  ['Scopes ', 'scopes'],
  ['Expires at ', 'expires_at'],
  ['Access level ', 'access_level'],
]

/** What POST /projects/:id/access_tokens takes, the page's values once checked as Grape checks them. */
type TokenInput = Parameters<typeof createResourceToken>[2]

interface TokenValues {
  name: string
  expiresAt: string
  accessLevel: string
  scopes: string[]
}

function resourceOf(loaded: LoadedProject): TokenResource {
  return { kind: 'project', ref: { kind: 'project', id: loaded.project.id }, name: loaded.project.name, access: loaded.access }
}

/** GL `manage_resource_access_tokens`: Maintainers of the project. */
function accessTokensPage(handler: (w: WebRequest, loaded: LoadedProject) => Promise<unknown>) {
  return settingsPage((w, loaded) => (canProject(loaded.access, 'manage_resource_access_tokens') ? handler(w, loaded) : w.notFound()))
}

/** The roles a token may be given: none above the creator's own (GL `permissible_access_level_roles`). */
function rolesFor(loaded: LoadedProject): number[] {
  if (isAdmin(loaded.access.caller)) return [...PROJECT_ROLES]
  return PROJECT_ROLES.filter((level) => level <= loaded.access.level)
}

/**
 * The service's refusal as a form shows it: its sentence ("Name can't be blank and Scopes can't be blank") cut into
 * the messages it joined, each beside its field.
 */
function refusalOfToken(error: DomainError): Refusal {
  if (!(error instanceof BadRequest) || !error.reason) return refusalOf(error)
  const starts = FIELD_PREFIXES.map(([prefix]) => prefix.trim()).join('|')
  const messages = error.reason.split(new RegExp(`(?:, and |, | and )(?=(?:${starts}) )`))
  const byField: Record<string, string[]> = {}
  for (const message of messages) {
    const field = FIELD_PREFIXES.find(([prefix]) => message.startsWith(prefix))?.[1]
    if (field) (byField[field] ??= []).push(message)
  }
  return { messages, byField }
}

function tokenForm(w: WebRequest, loaded: LoadedProject, token: string, values: TokenValues, refusal: Refusal | null): Html {
  const errorId = (field: string, id: string) => errorIdOf(refusal, field, id)
  const tomorrow = isoDate(addDays(w.ctx.now(), 1))
  return settingsSection(
    'new-project-access-token',
    'Add a project access token',
    'Generate project access tokens scoped to this project for your applications that need access to the API. You can also use project access tokens with Git to authenticate over HTTP(S).',
    html`${refusal ? errorList(refusal.messages) : ''}
      <form method="post" action="${settingsPath(loaded, 'accessTokens')}" class="new-access-token">
        ${csrfField(token)}
        <label for="resource_access_token_name">Token name</label>
        <input
          type="text"
          id="resource_access_token_name"
          name="resource_access_token[name]"
          value="${values.name}"
          required
          maxlength="255"
          ${describedBy(errorId('name', 'resource_access_token_name'), 'resource_access_token_name_help')}
        />
        ${fieldError(refusal, 'name', 'resource_access_token_name')}
        <p class="help" id="resource_access_token_name_help">
          For example, the application using the token or the purpose of the token. Do not give sensitive information for the
          name of the token, as it will be visible to all project members.
        </p>
        <label for="resource_access_token_expires_at">Expiration date</label>
        <input
          type="date"
          id="resource_access_token_expires_at"
          name="resource_access_token[expires_at]"
          value="${values.expiresAt}"
          min="${tomorrow}"
          ${describedBy(errorId('expires_at', 'resource_access_token_expires_at'), 'resource_access_token_expires_at_help')}
        />
        ${fieldError(refusal, 'expires_at', 'resource_access_token_expires_at')}
        <p class="help" id="resource_access_token_expires_at_help">The token expires at the start of that day (UTC).</p>
        <label for="resource_access_token_access_level">Select a role</label>
        <select
          id="resource_access_token_access_level"
          name="resource_access_token[access_level]"
          ${describedBy(errorId('access_level', 'resource_access_token_access_level'))}
        >
          ${rolesFor(loaded).map(
            (level) =>
              html`<option value="${level}" ${String(level) === values.accessLevel ? html`selected` : ''}>${ROLE_NAMES[level]}</option>`,
          )}
        </select>
        ${fieldError(refusal, 'access_level', 'resource_access_token_access_level')}
        <fieldset class="choices" ${describedBy(errorId('scopes', 'resource_access_token_scopes'), 'resource_access_token_scopes_help')}>
          <legend>Select scopes</legend>
          <p class="help" id="resource_access_token_scopes_help">Scopes set the permission levels granted to the token.</p>
          ${scopeCheckboxes({ model: 'resource_access_token', scopes: RESOURCE_BOT_SCOPES, checked: values.scopes, className: 'choice' })}
        </fieldset>
        ${fieldError(refusal, 'scopes', 'resource_access_token_scopes')}
        <div class="button-row"><button type="submit" class="primary">Create project access token</button></div>
      </form>`,
  )
}

/** The new token, shown once: the page that reads it from the session is the only one that ever has it. */
function newTokenBox(value: string): Html {
  return html`<section class="new-token" aria-labelledby="created-token-heading">
    <h2 id="created-token-heading">Your new project access token</h2>
    ${newTokenField('created-project-access-token', value)}
  </section>`
}

function activeTokens(w: WebRequest, loaded: LoadedProject, token: string, tokens: ResourceToken[]): Html {
  const now = w.ctx.now()
  const table =
    tokens.length === 0
      ? html`<div class="empty-state"><p>This project has no active access tokens.</p></div>`
      : html`<div class="table-box">
          <table class="settings-table project-access-tokens">
            ${tokensTableHead(['Role'], 'Actions')}
            <tbody>
              ${tokens.map(
                ({ row, accessLevel }) =>
                  html`<tr id="project_access_token_${row.id}">
                    <td class="token-name">${row.name}</td>
                    <td>${scopesText(row.scopes)}</td>
                    <td>${dayElement(row.created_at)}</td>
                    <td>${dateOrNever(row.last_used_at, (iso) => timeAgo(iso, now))}</td>
                    <td>${dateOrNever(row.expires_at, dayElement)}</td>
                    <td>${ROLE_NAMES[accessLevel] ?? accessLevel}</td>
                    <td class="actions">
                      ${rowActionForm({
                        action: `${settingsPath(loaded, 'accessTokens')}/${row.id}/revoke`,
                        className: 'revoke-token',
                        method: 'put',
                        token,
                        label: 'Revoke',
                        ariaLabel: `Revoke ${row.name}`,
                      })}
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`
  return activeTokensSection(`Active project access tokens (${tokens.length})`, table)
}

/** GET /-/settings/access_tokens; with `typed`, a refused form with what was typed. */
async function tokensPage(w: WebRequest, loaded: LoadedProject, typed: TokenValues | null = null, refusal: Refusal | null = null) {
  // Read before rendering, which forgets the flash: the value exists on this one page only.
  const created = w.flashed(NEW_TOKEN_PROJECT) === String(loaded.project.id) ? w.flashed(NEW_TOKEN) : null
  const token = await w.csrfToken()
  const values = typed ?? {
    name: '',
    expiresAt: isoDate(addDays(w.ctx.now(), DEFAULT_LIFETIME_DAYS)),
    accessLevel: String(Math.min(AccessLevel.MAINTAINER, Math.max(...rolesFor(loaded)))),
    scopes: [],
  }
  const active = await listResourceTokens(w.ctx, resourceOf(loaded), 'active', { page: 1, perPage: TOKENS_LISTED })
  const body = html`<h1>Project access tokens</h1>
    ${created ? newTokenBox(created) : ''} ${tokenForm(w, loaded, token, values, refusal)}
    ${activeTokens(w, loaded, token, [...active.rows])}`
  return renderSettingsPage(
    w,
    loaded,
    { title: 'Project access tokens', section: 'settings_access_tokens', crumb: 'Access tokens', refused: refusal !== null },
    body,
  )
}

/** POST /-/settings/access_tokens (GL AccessTokensController#create). */
async function createToken(w: WebRequest, loaded: LoadedProject) {
  const form = formOf(w, 'resource_access_token')
  const values: TokenValues = {
    name: givenText(form, 'name') ?? '',
    expiresAt: givenText(form, 'expires_at') ?? '',
    accessLevel: givenText(form, 'access_level') ?? '',
    scopes: textsOf(form.scopes),
  }
  const refuse = (refusal: Refusal) => tokensPage(w, loaded, values, refusal)
  const level = integerOf(values.accessLevel) ?? AccessLevel.MAINTAINER
  // Grape's checks of the API's parameters, in its words: a role and scopes it knows, a real date.
  if (!PROJECT_ROLES.includes(level)) return refuse({ messages: ['access_level does not have a valid value'], byField: {} })
  const scopes = values.scopes.filter((scope) => (RESOURCE_BOT_SCOPES as readonly string[]).includes(scope))
  if (scopes.length < values.scopes.length) return refuse({ messages: ['scopes does not have a valid value'], byField: {} })
  if (values.expiresAt !== '' && !isCalendarDate(values.expiresAt)) return refuse({ messages: ['expires_at is invalid'], byField: {} })
  try {
    const created = await createResourceToken(w.ctx, resourceOf(loaded), {
      name: values.name,
      scopes: scopes as TokenInput['scopes'],
      expires_at: values.expiresAt || undefined,
      access_level: level as TokenInput['access_level'],
    })
    await w.flash('notice', 'Your new project access token has been created.', {
      [NEW_TOKEN]: created.token,
      [NEW_TOKEN_PROJECT]: String(loaded.project.id),
    })
    return w.redirect(settingsPath(loaded, 'accessTokens'))
  } catch (error) {
    if (isFormRefusal(error)) return refuse(refusalOfToken(error))
    throw error
  }
}

/** PUT /-/settings/access_tokens/:id/revoke (GL AccessTokensController#revoke). */
async function revokeToken(w: WebRequest, loaded: LoadedProject) {
  const id = String(w.params.id ?? '')
  const resource = resourceOf(loaded)
  const found = await showResourceToken(w.ctx, resource, id)
  try {
    await revokeResourceToken(w.ctx, resource, id)
    await w.flash('notice', `Revoked project access token ${found.row.name}!`)
  } catch (error) {
    if (!(error instanceof BadRequest)) throw error
    await w.flash('alert', `Could not revoke project access token ${found.row.name}.`)
  }
  return w.redirect(settingsPath(loaded, 'accessTokens'))
}

export function registerAccessTokenSettingsPages(web: WebRouter) {
  for (const route of projectPageRoutes('/-/settings/access_tokens')) {
    web.get(
      route,
      accessTokensPage((w, loaded) => tokensPage(w, loaded)),
    )
    web.post(route, accessTokensPage(createToken))
  }
  for (const route of projectPageRoutes('/-/settings/access_tokens/:id/revoke')) web.put(route, accessTokensPage(revokeToken))
}
