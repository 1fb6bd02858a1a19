import type { User } from '../../core/caller.js'
import { Forbidden, Invalid, NotFound } from '../../core/errors.js'
import type { OAuthApplicationRow } from '../../db/schema.js'
import { describeScope } from '../../core/scope-descriptions.js'
import { confirmedAction } from '../../web/confirm.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { userSettingsBreadcrumbs, userSettingsSidebar } from '../../web/user-settings-sidebar.js'
import { OAUTH_SCOPES, parseScopes } from '../../core/scopes.js'
import type { WebHandler, WebRequest, WebRouter } from '../sessions/index.js'
import { canRegisterApplications } from './policy.js'
import {
  createOwnApplication,
  deleteOwnApplication,
  findOwnApplication,
  listAuthorizedApplications,
  listOwnApplications,
  renewOwnApplicationSecret,
  revokeAuthorizedApplication,
  revokeAuthorizedToken,
  type AuthorizationRevoker,
  updateOwnApplication,
  type ApplicationInput,
} from './service.js'
import { splitRedirectUris } from './validation.js'

const LIST_PATH = '/-/user_settings/applications'

function applicationPath(id: number): string {
  return `${LIST_PATH}/${id}`
}

/** The notices shown after a redirect (DK/GL doorkeeper.en.yml flash). */
const NOTICES = {
  updated: 'The application was updated successfully.',
  deleted: 'The application was deleted successfully.',
  revoked: 'The application was revoked access.',
} as const
type NoticeCode = keyof typeof NOTICES
const CREATED_NOTICE = 'The application was created successfully.'
const RENEWED_NOTICE = 'Application secret was successfully updated.'

/** Rails' human attribute names for full error messages (DK en.yml activerecord.attributes). */
const ATTRIBUTE_NAMES: Record<string, string> = { name: 'Name', redirect_uri: 'Redirect URI', scopes: 'Scopes' }

type Flash = { kind: 'alert' | 'notice'; text: string } | null

async function redirectWithNotice(w: WebRequest, location: string, code: NoticeCode) {
  await w.flash('notice', NOTICES[code])
  return w.redirect(location)
}

/** Signed-in users only; another user's application is a 404 page; a refused change returns to the list (GL redirects away). */
function signedIn(handler: (w: WebRequest, user: User) => Promise<unknown>): WebHandler {
  return async (w) => {
    const user = w.ctx.caller.user
    if (!user) return w.redirectToSignIn()
    try {
      return await handler(w, user)
    } catch (error) {
      if (error instanceof NotFound) return w.notFound()
      if (error instanceof Forbidden) return w.redirect(LIST_PATH)
      throw error
    }
  }
}

/** A path id: digits within the column's range, else nothing is found. */
function idParam(value: unknown): number {
  if (typeof value !== 'string' || !/^\d{1,10}$/.test(value) || Number(value) > 2147483647) throw new NotFound('Application')
  return Number(value)
}

// The form's fields; GitLab's nested `doorkeeper_application[…]` names are read too.

interface FormValues {
  name: string
  redirectUri: string
  scopes: string[]
  confidential: boolean
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

function formValues(params: Record<string, unknown>): FormValues {
  const nested = params.doorkeeper_application
  const fields = typeof nested === 'object' && nested !== null && !Array.isArray(nested) ? (nested as Record<string, unknown>) : params
  const scopes = fields.scopes
  const scopeList = Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : parseScopes(textOf(scopes))
  // A checkbox follows a hidden "0" of the same name, so the last value wins; a form without the field keeps the default (true).
  const confidentialValues = Array.isArray(fields.confidential) ? fields.confidential : [fields.confidential]
  const confidential = confidentialValues[confidentialValues.length - 1]
  return {
    name: textOf(fields.name),
    redirectUri: textOf(fields.redirect_uri),
    scopes: scopeList,
    confidential: confidential === undefined ? true : ['1', 'true', 'on'].includes(textOf(confidential)),
  }
}

function inputOf(values: FormValues): ApplicationInput {
  return { name: values.name, redirectUri: values.redirectUri, scopes: values.scopes, confidential: values.confidential }
}

function valuesOf(application: OAuthApplicationRow): FormValues {
  return {
    name: application.name,
    redirectUri: application.redirect_uri,
    scopes: parseScopes(application.scopes),
    confidential: application.confidential === 1,
  }
}

const EMPTY_FORM: FormValues = { name: '', redirectUri: '', scopes: [], confidential: true }

function errorList(errors: Record<string, string[]> | null): Html | string {
  if (!errors) return ''
  const messages = Object.entries(errors).flatMap(([attribute, list]) => list.map((m) => `${ATTRIBUTE_NAMES[attribute] ?? attribute} ${m}`))
  return html`<div class="flash alert" role="alert" id="error_explanation">
    <p>The form contains the following errors:</p>
    <ul>
      ${messages.map((message) => html`<li>${message}</li>`)}
    </ul>
  </div>`
}

function applicationForm(options: {
  action: string
  method: 'post' | 'put'
  csrfToken: string
  values: FormValues
  errors: Record<string, string[]> | null
  submit: string
}): Html {
  const { values } = options
  return html`<form method="post" action="${options.action}" class="application-form">
    ${csrfField(options.csrfToken)} ${options.method === 'put' ? html`<input type="hidden" name="_method" value="put" />` : ''}
    ${errorList(options.errors)}
    <label for="application_name">Name</label>
    <input type="text" id="application_name" name="name" value="${values.name}" required maxlength="255" />
    <label for="application_redirect_uri">Redirect URI</label>
    <textarea id="application_redirect_uri" name="redirect_uri" rows="3" required>${values.redirectUri}</textarea>
    <p class="help">Use one line per URI</p>
    <label class="scope">
      <input type="hidden" name="confidential" value="0" />
      <input type="checkbox" id="application_confidential" name="confidential" value="1"${values.confidential ? html` checked` : ''} />
      Confidential
    </label>
    <p class="help">
      Enable only for confidential applications exclusively used by a trusted backend server that can securely store the client
      secret. Do not enable for native-mobile, single-page, or other JavaScript applications because they cannot keep the client
      secret confidential.
    </p>
    <fieldset class="scopes">
      <legend>Scopes</legend>
      ${OAUTH_SCOPES.map(
        (scope) =>
          html`<div class="scope-choice">
            <input type="checkbox" name="scopes[]" value="${scope}" id="application_scopes_${scope}"${values.scopes.includes(scope) ? html` checked` : ''} aria-describedby="application_scopes_${scope}_help" />
            <label class="inline-label" for="application_scopes_${scope}"><code>${scope}</code></label>
            <p class="help" id="application_scopes_${scope}_help">${describeScope(scope).description}</p>
          </div>`,
      )}
    </fieldset>
    <div class="button-row"><button type="submit" class="primary">${options.submit}</button></div>
  </form>`
}

/** A DELETE that asks first (GitLab's `data: { confirm: 'Are you sure?' }`), without script. */
function deleteForm(action: string, csrfToken: string, label: string): Html {
  return confirmedAction({ label, question: 'Are you sure?', action, method: 'delete', csrfToken })
}

function uriList(redirectUri: string): Html[] {
  return splitRedirectUris(redirectUri).map((uri) => html`<div><code>${uri}</code></div>`)
}

function scopeList(scopes: string): Html | string {
  const names = parseScopes(scopes)
  return names.length === 0 ? 'None' : html`<ul class="scopes-list">${names.map((scope) => html`<li>${scope}</li>`)}</ul>`
}

/** '2026-01-02 03:04:05 UTC' */
function timeOf(iso: string): Html {
  const text = new Date(iso).toISOString().replace('T', ' ').slice(0, 19) + ' UTC'
  return html`<time datetime="${iso}">${text}</time>`
}

async function renderIndex(
  w: WebRequest,
  options: { form?: { values: FormValues; errors: Record<string, string[]> | null }; flash?: Flash },
) {
  const csrfToken = await w.csrfToken()
  const mayRegister = canRegisterApplications(w.ctx.caller, w.ctx.settings)
  const authorized = await listAuthorizedApplications(w.ctx)
  let own: Html | string = ''
  if (mayRegister) {
    const applications = await listOwnApplications(w.ctx)
    const form = options.form ?? { values: EMPTY_FORM, errors: null }
    own = html`<section id="new-application">
        <h2>Add new application</h2>
        ${applicationForm({ action: LIST_PATH, method: 'post', csrfToken, ...form, submit: 'Save application' })}
      </section>
      <section class="oauth-applications">
        <h2>Your applications (${applications.length})</h2>
        ${
          applications.length === 0
            ? html`<p>You don't have any applications</p>`
            : html`<table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Callback URL</th>
                  <th>Scopes</th>
                  <th>Clients</th>
                  <th></th>
                </tr>
              </thead>
              <tbody>
                ${applications.map(
                  ({ application, tokenCount }) =>
                    html`<tr id="application_${application.id}">
                      <td><a href="${applicationPath(application.id)}">${application.name}</a></td>
                      <td>${uriList(application.redirect_uri)}</td>
                      <td>${scopeList(application.scopes)}</td>
                      <td>${tokenCount}</td>
                      <td>
                        <a href="${applicationPath(application.id)}/edit">Edit</a>
                        ${deleteForm(applicationPath(application.id), csrfToken, 'Destroy')}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`
        }
      </section>`
  }
  const body = html`<h1>Applications</h1>
    <p>
      ${
        mayRegister
          ? "Manage applications that can use svc as an OAuth provider, and applications that you've authorized to use your account."
          : "Manage applications that you've authorized to use your account."
      }
    </p>
    ${own}
    <section class="oauth-authorized-applications">
      <h2>Authorized applications (${authorized.length})</h2>
      ${
        authorized.length === 0
          ? html`<p>You don't have any authorized applications</p>`
          : html`<table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Authorized At</th>
                <th>Scope</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              ${authorized.map((entry) =>
                entry.applicationId === null
                  ? html`<tr id="token_${entry.tokenId}">
                      <td>Anonymous<br /><em>Authorization was granted by entering your username and password in the application.</em></td>
                      <td>${timeOf(entry.authorizedAt)}</td>
                      <td>${entry.scopes.join(' ')}</td>
                      <td>${deleteForm(`/oauth/authorized_applications/0?token_id=${entry.tokenId}`, csrfToken, 'Revoke')}</td>
                    </tr>`
                  : html`<tr id="authorized_application_${entry.applicationId}">
                      <td>${entry.applicationName}</td>
                      <td>${timeOf(entry.authorizedAt)}</td>
                      <td>${entry.scopes.join(' ')}</td>
                      <td>${deleteForm(`/oauth/authorized_applications/${entry.applicationId}`, csrfToken, 'Revoke')}</td>
                    </tr>`,
              )}
            </tbody>
          </table>`
      }
    </section>`
  return w.render(
    {
      title: 'Applications',
      flash: options.flash,
      sidebar: userSettingsSidebar('applications'),
      breadcrumbs: userSettingsBreadcrumbs({ text: 'Applications' }),
    },
    body,
  )
}

/** The application's page; `secret` only right after it was made or renewed, since only its digest is kept. */
async function renderShow(w: WebRequest, application: OAuthApplicationRow, secret: string | null, flash: Flash) {
  const csrfToken = await w.csrfToken()
  const path = applicationPath(application.id)
  const secretCell = secret
    ? html`<code id="secret">${secret}</code>
        <p>This is the only time the secret is accessible. Copy the secret and store it securely.</p>`
    : html`<code id="secret">*****</code>
        <p>The secret is only available when you create the application or renew the secret.</p>`
  const body = html`<h1>Application: ${application.name}</h1>
    <table class="oauth-application-show">
      <tr>
        <th>Application ID</th>
        <td><code id="application_id">${application.uid}</code></td>
      </tr>
      <tr>
        <th>Secret</th>
        <td>
          ${secretCell}
          <form class="inline" method="post" action="${path}/renew">
            <input type="hidden" name="_method" value="put" />${csrfField(csrfToken)}
            <button type="submit">Renew secret</button>
          </form>
        </td>
      </tr>
      <tr>
        <th>Callback URL</th>
        <td>${uriList(application.redirect_uri)}</td>
      </tr>
      <tr>
        <th>Scopes</th>
        <td>${scopeList(application.scopes)}</td>
      </tr>
      <tr>
        <th>Confidential</th>
        <td>${application.confidential === 1 ? 'Yes' : 'No'}</td>
      </tr>
    </table>
    <p>
      <a class="button" href="${path}/edit">Edit</a>
      ${deleteForm(path, csrfToken, 'Destroy')}
      <a href="${LIST_PATH}">Back to applications</a>
    </p>`
  return w.render(
    {
      title: `${application.name} · Applications`,
      flash,
      sidebar: userSettingsSidebar('applications'),
      breadcrumbs: userSettingsBreadcrumbs({ text: 'Applications', href: LIST_PATH }, { text: application.name }),
    },
    body,
  )
}

async function renderEdit(w: WebRequest, application: OAuthApplicationRow, values: FormValues, errors: Record<string, string[]> | null) {
  const csrfToken = await w.csrfToken()
  const path = applicationPath(application.id)
  const body = html`<h1>Edit application</h1>
    ${applicationForm({ action: path, method: 'put', csrfToken, values, errors, submit: 'Save application' })}
    <p><a href="${path}">Cancel</a></p>`
  return w.render(
    {
      title: `Edit · ${application.name} · Applications`,
      sidebar: userSettingsSidebar('applications'),
      breadcrumbs: userSettingsBreadcrumbs(
        { text: 'Applications', href: LIST_PATH },
        { text: application.name, href: path },
        { text: 'Edit' },
      ),
    },
    body,
  )
}

function wantsJson(w: WebRequest): boolean {
  const accept = w.request.headers.accept ?? ''
  return accept.includes('application/json') && !accept.includes('text/html')
}

/** The user settings pages of OAuth applications and of authorized applications (GL Oauth::ApplicationsController, Oauth::AuthorizedApplicationsController). */
/** `revoker` revokes what users take back from the applications they authorized. */
export function registerApplicationPages(web: WebRouter, revoker: AuthorizationRevoker) {
  web.get(
    LIST_PATH,
    signedIn((w) => renderIndex(w, {})),
  )

  // GitLab renders the new application's page in the create response: the only moment its secret exists in plain text.
  web.post(
    LIST_PATH,
    signedIn(async (w) => {
      const values = formValues(w.params)
      try {
        const created = await createOwnApplication(w.ctx, inputOf(values))
        return await renderShow(w, created.application, created.secret, { kind: 'notice', text: CREATED_NOTICE })
      } catch (error) {
        if (error instanceof Invalid) return renderIndex(w, { form: { values, errors: error.errors }, flash: null })
        throw error
      }
    }),
  )

  web.get(
    `${LIST_PATH}/:id`,
    signedIn(async (w) => renderShow(w, await findOwnApplication(w.ctx, idParam(w.params.id)), null, null)),
  )

  web.get(
    `${LIST_PATH}/:id/edit`,
    signedIn(async (w) => {
      const application = await findOwnApplication(w.ctx, idParam(w.params.id))
      return renderEdit(w, application, valuesOf(application), null)
    }),
  )

  web.put(
    `${LIST_PATH}/:id`,
    signedIn(async (w) => {
      const id = idParam(w.params.id)
      const values = formValues(w.params)
      try {
        await updateOwnApplication(w.ctx, id, inputOf(values))
      } catch (error) {
        if (error instanceof Invalid) return renderEdit(w, await findOwnApplication(w.ctx, id), values, error.errors)
        throw error
      }
      return redirectWithNotice(w, applicationPath(id), 'updated')
    }),
  )

  web.delete(
    `${LIST_PATH}/:id`,
    signedIn(async (w) => {
      await deleteOwnApplication(w.ctx, idParam(w.params.id))
      return redirectWithNotice(w, LIST_PATH, 'deleted')
    }),
  )

  // GL `put :renew, on: :member`; GitLab's page asks for JSON, a plain form gets the page with the new secret.
  web.put(
    `${LIST_PATH}/:id/renew`,
    signedIn(async (w) => {
      const renewed = await renewOwnApplicationSecret(w.ctx, idParam(w.params.id))
      if (wantsJson(w))
        return w.reply.type('application/json; charset=utf-8').header('cache-control', 'no-store').send({ secret: renewed.secret })
      return renderShow(w, renewed.application, renewed.secret, { kind: 'notice', text: RENEWED_NOTICE })
    }),
  )

  // GL Oauth::AuthorizedApplicationsController#destroy: `token_id` names one token given without an application.
  web.delete(
    '/oauth/authorized_applications/:id',
    signedIn(async (w) => {
      const tokenId = w.params.token_id
      if (typeof tokenId === 'string' && tokenId !== '') await revokeAuthorizedToken(w.ctx, idParam(tokenId), revoker)
      else await revokeAuthorizedApplication(w.ctx, idParam(w.params.id), revoker)
      return redirectWithNotice(w, LIST_PATH, 'revoked')
    }),
  )
}
