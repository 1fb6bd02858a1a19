import { DomainError } from '../../core/errors.js'
import type { TokenRow } from '../../db/schema.js'
import { activeTokensSection, dateOrNever, newTokenField, scopeCheckboxes, scopesText, tokensTableHead } from '../../web/access-tokens.js'
import { confirmedAction } from '../../web/confirm.js'
import { shortDateElement } from '../../web/dates.js'
import { describedBy, errorIdOf } from '../../web/described-by.js'
import { errorList, fieldError, refusalOf, type Refusal } from '../../web/form-errors.js'
import { fieldText, isCalendarDate, textsOf } from '../../web/form-values.js'
import { csrfField, html, type Html } from '../../web/html.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import {
  createOwnPersonalAccessToken,
  listOwnActiveTokens,
  personalTokenFormOptions,
  revokeOwnPersonalAccessToken,
  type PersonalTokenFormOptions,
} from '../tokens/index.js'
import { formOf, USER_SETTINGS_PATHS, userSettingsBreadcrumbs, userSettingsPage, userSettingsSidebar } from './shared.js'

// The signed-in user's personal access tokens (GL UserSettings::PersonalAccessTokensController): a form that makes one
// through the tokens feature's own rules, the new token shown once on the next page (kept in the session until then,
// as GitLab kept it in the flash), and the active tokens, each with Revoke.

const PATH = USER_SETTINGS_PATHS.access_tokens

/** The session's name for a new token's value until the next page shows it (GL `flash[:personal_access_token]`). */
const NEW_TOKEN = 'personal_access_token'

export const TOKEN_CREATED = 'Your new personal access token has been created.'

const ATTRIBUTE_NAMES: Record<string, string> = { name: 'Name', scopes: 'Scopes', expires_at: 'Expires at' }

interface TokenValues {
  name: string
  description: string
  expiresAt: string
  scopes: string[]
}

function tokenForm(token: string, options: PersonalTokenFormOptions, values: TokenValues, refusal: Refusal | null): Html {
  const errorId = (attribute: string, id: string) => errorIdOf(refusal, attribute, id)
  return html`<section class="box settings-section" id="new-personal-access-token" aria-labelledby="new-token-heading">
    <header><h2 id="new-token-heading">Add a personal access token</h2></header>
    <div class="body">
      ${refusal ? errorList(refusal.messages) : ''}
      <form method="post" action="${PATH}" class="new-access-token" accept-charset="UTF-8">
        ${csrfField(token)}
        <label for="personal_access_token_name">Token name</label>
        <input
          type="text"
          id="personal_access_token_name"
          name="personal_access_token[name]"
          value="${values.name}"
          required
          maxlength="255"
          ${describedBy('personal_access_token_name_help', errorId('name', 'personal_access_token_name'))}
        />
        <p class="help" id="personal_access_token_name_help">For example, the application using the token or the purpose of the token.</p>
        ${fieldError(refusal, 'name', 'personal_access_token_name')}
        <label for="personal_access_token_description">Token description (optional)</label>
        <textarea id="personal_access_token_description" name="personal_access_token[description]" rows="2" maxlength="255">
${values.description}</textarea
        >
        <label for="personal_access_token_expires_at">Expiration date${options.expiryRequired ? '' : ' (optional)'}</label>
        <input
          type="date"
          id="personal_access_token_expires_at"
          name="personal_access_token[expires_at]"
          value="${values.expiresAt}"
          min="${options.minExpiresAt}"
          ${options.maxExpiresAt ? html`max="${options.maxExpiresAt}"` : ''}
          ${describedBy('personal_access_token_expires_at_help', errorId('expires_at', 'personal_access_token_expires_at'))}
        />
        <p class="help" id="personal_access_token_expires_at_help">
          ${
            options.maxExpiresAt
              ? `The token expires at the start of that day (UTC); the latest date is ${options.maxExpiresAt}. Left empty, the token expires on ${options.maxExpiresAt}.`
              : 'The token expires at the start of that day (UTC). Left empty, the token never expires.'
          }
        </p>
        ${fieldError(refusal, 'expires_at', 'personal_access_token_expires_at')}
        <fieldset class="scopes" ${describedBy(errorId('scopes', 'personal_access_token_scopes'))}>
          <legend>Select scopes</legend>
          <p class="help">Scopes set the permission levels granted to the token.</p>
          ${scopeCheckboxes({ model: 'personal_access_token', scopes: options.scopes, checked: values.scopes, className: 'scope-choice' })}
        </fieldset>
        ${fieldError(refusal, 'scopes', 'personal_access_token_scopes')}
        <div class="button-row"><button type="submit" class="primary">Create personal access token</button></div>
      </form>
    </div>
  </section>`
}

function newTokenBox(value: string): Html {
  return html`<section class="box created-token" aria-labelledby="created-token-heading">
    <header><h2 id="created-token-heading">Your new personal access token</h2></header>
    <div class="body">${newTokenField('created-personal-access-token', value)}</div>
  </section>`
}

function activeTokens(rows: TokenRow[], token: string): Html {
  const table =
    rows.length === 0
      ? html`<p class="empty">This user has no active personal access tokens.</p>`
      : html`<div class="table-box access-tokens-box">
          <table class="access-tokens">
            ${tokensTableHead([], 'Action')}
            <tbody>
              ${rows.map(
                (row) => html`<tr id="personal_access_token_${row.id}">
                  <td class="token-name">
                    ${row.name}${row.description ? html`<div class="help">${row.description}</div>` : ''}
                  </td>
                  <td>${scopesText(row.scopes)}</td>
                  <td>${shortDateElement(row.created_at)}</td>
                  <td>${dateOrNever(row.last_used_at, shortDateElement)}</td>
                  <td>${dateOrNever(row.expires_at, shortDateElement)}</td>
                  <td>
                    ${confirmedAction({
                      label: 'Revoke',
                      question: `Are you sure you want to revoke the personal access token "${row.name}"? This action cannot be undone. Any tools that rely on this access token will stop working.`,
                      action: `${PATH}/${row.id}/revoke`,
                      method: 'put',
                      csrfToken: token,
                    })}
                  </td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`
  return activeTokensSection(`Active personal access tokens (${rows.length})`, table)
}

async function renderIndex(w: WebRequest, values: TokenValues | null, refusal: Refusal | null) {
  const token = await w.csrfToken()
  const options = personalTokenFormOptions(w.ctx)
  // Read before rendering, which forgets the flash: the value exists only on this one page.
  const created = w.flashed(NEW_TOKEN)
  const rows = await listOwnActiveTokens(w.ctx)
  const shown = values ?? { name: '', description: '', expiresAt: options.defaultExpiresAt, scopes: [] }
  const body = html`<h1>Personal access tokens</h1>
    <p class="help">
      You can generate a personal access token for each application you use that needs access to the svc API. You can also use personal
      access tokens to authenticate against Git over HTTP. They are the only accepted password when you have Two-Factor Authentication
      (2FA) enabled.
    </p>
    ${created ? newTokenBox(created) : ''} ${activeTokens(rows, token)} ${tokenForm(token, options, shown, refusal)}`
  return w.render(
    {
      title: 'Personal access tokens',
      sidebar: userSettingsSidebar('access_tokens'),
      breadcrumbs: userSettingsBreadcrumbs({ text: 'Personal access tokens' }),
    },
    body,
    refusal ? 422 : 200,
  )
}

/** POST: makes the token, then the list again, showing its value once. */
async function createToken(w: WebRequest) {
  const form = formOf(w, 'personal_access_token')
  const values: TokenValues = {
    name: fieldText(form, 'name'),
    description: fieldText(form, 'description'),
    expiresAt: fieldText(form, 'expires_at'),
    scopes: textsOf(form.scopes),
  }
  try {
    const created = await createOwnPersonalAccessToken(w.ctx, {
      name: values.name,
      scopes: values.scopes,
      description: values.description.trim() === '' ? undefined : values.description,
      // A blank or unreadable date takes the service's default.
      expiresAt: isCalendarDate(values.expiresAt.trim()) ? values.expiresAt.trim() : undefined,
    })
    await w.flash('notice', TOKEN_CREATED, { [NEW_TOKEN]: created.token })
  } catch (error) {
    if (error instanceof DomainError) return renderIndex(w, values, refusalOf(error, ATTRIBUTE_NAMES))
    throw error
  }
  return w.redirect(PATH)
}

/** PUT …/:id/revoke (GL `put :revoke`): only one's own active tokens; any other id is the 404 page. */
async function revokeToken(w: WebRequest) {
  const revoked = await revokeOwnPersonalAccessToken(w.ctx, String(w.params.id ?? ''))
  await w.flash('notice', `Revoked personal access token ${revoked.name}!`)
  return w.redirect(PATH)
}

export function registerAccessTokenPages(web: WebRouter) {
  web.get(
    PATH,
    userSettingsPage((w) => renderIndex(w, null, null)),
  )
  web.post(
    PATH,
    userSettingsPage((w) => createToken(w)),
  )
  web.put(
    `${PATH}/:id/revoke`,
    userSettingsPage((w) => revokeToken(w)),
  )
}
