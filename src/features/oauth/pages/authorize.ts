import type { User } from '../../../core/caller.js'
import { csrfField, html, type Html } from '../../../web/html.js'
import type { WebRequest, WebRouter } from '../../sessions/index.js'
import {
  canSkipConsent,
  codeRedirect,
  denial,
  errorRedirect,
  issueAuthorizationCode,
  OOB_REDIRECT_URI,
  preAuthorize,
  refuseUnconfirmedUser,
  type AuthorizationError,
  type PreAuthorization,
} from '../authorization.js'
import { formatScopes } from '../../../core/scopes.js'
import { describeScope } from '../../../core/scope-descriptions.js'

const AUTHORIZE_PATH = '/oauth/authorize'

/**
 * An error the client must not hear about (unknown client, unregistered redirect URI) is shown to the user
 * (GL doorkeeper/authorizations/error.html.haml). The status is Doorkeeper's current one (DK
 * AuthorizationsController#render_error: ErrorResponse#status, 401 for invalid_client, else 400); GitLab's
 * own `new` renders the same page with 200, which would tell a script nothing went wrong.
 */
function renderError(w: WebRequest, error: AuthorizationError) {
  return w.render(
    { title: 'An error has occurred' },
    html`<h1>An error has occurred</h1>
      <p><code class="oauth-error">${error.code}</code></p>
      <pre class="oauth-error-description">${error.description}</pre>`,
    error.status,
  )
}

/** Back to the client when it may hear the error, else the error page. */
function answerError(w: WebRequest, error: AuthorizationError) {
  const location = errorRedirect(error)
  return location === null ? renderError(w, error) : w.redirect(location)
}

/** DK `authorizations/show`: an out-of-band client has nowhere to be redirected to, so the user copies the code. */
function renderCode(w: WebRequest, code: string) {
  return w.render(
    { title: 'Authorization code' },
    html`<h1>Authorization code</h1>
      <p>Copy this code and paste it into the application.</p>
      <p><code id="authorization_code">${code}</code></p>`,
  )
}

async function grantCode(w: WebRequest, user: User, preAuthorization: PreAuthorization) {
  const code = await issueAuthorizationCode(w.ctx, user, preAuthorization)
  if (preAuthorization.redirectUri === OOB_REDIRECT_URI) return renderCode(w, code)
  return w.redirect(codeRedirect(preAuthorization, code))
}

/** The request's parameters again, so that approving or denying re-submits them (GL authorizations/new.html.haml). */
function requestFields(preAuthorization: PreAuthorization): Html {
  const fields: [string, string | null][] = [
    ['client_id', preAuthorization.application.uid],
    ['redirect_uri', preAuthorization.redirectUri],
    ['state', preAuthorization.state],
    ['response_type', preAuthorization.responseType],
    ['scope', formatScopes(preAuthorization.scopes)],
    ['nonce', preAuthorization.nonce],
    ['code_challenge', preAuthorization.codeChallenge],
    ['code_challenge_method', preAuthorization.codeChallengeMethod],
  ]
  return html`${fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value ?? ''}" />`)}`
}

/** The host the user will land on, named on the page unless it is a local or non-web URI (GL authorizations/new.html.haml). */
function redirectDomain(redirectUri: string): string | null {
  if (!/^https?:\/\//i.test(redirectUri)) return null
  try {
    const domain = new URL(redirectUri).hostname.replace(/^www\./, '')
    return domain === 'localhost' ? null : domain
  } catch {
    return null
  }
}

async function renderConsent(w: WebRequest, user: User, preAuthorization: PreAuthorization) {
  const { application } = preAuthorization
  const token = await w.csrfToken()
  const domain = redirectDomain(preAuthorization.redirectUri)
  const scopes = preAuthorization.scopes.map((scope) => {
    const { title, description } = describeScope(scope)
    return html`<li class="scope" data-scope="${scope}">
      <strong>${title}</strong> <code>${scope}</code>
      <div>${description}</div>
    </li>`
  })
  return w.render(
    { title: 'Authorize application' },
    html`<h1><strong>${application.name}</strong> is requesting access to your account on svc.</h1>
      <p class="signed-in-as">Signed in as <strong>${user.name}</strong> · @${user.username}</p>
      ${
        user.admin === 1
          ? html`<div class="flash" role="alert">
            You are an administrator, which means authorizing access to <strong>${application.name}</strong> will allow it to
            interact with svc as an administrator as well.
          </div>`
          : ''
      }
      <p>This application will be able to:</p>
      <ul class="scopes">
        ${scopes}
      </ul>
      <p>Make sure you trust <strong>${application.name}</strong> before authorizing.</p>
      ${domain ? html`<p>You will be redirected to <strong>${domain}</strong> after authorizing.</p>` : ''}
      <form class="inline" method="post" action="${AUTHORIZE_PATH}" id="authorize">
        ${csrfField(token)} ${requestFields(preAuthorization)}
        <button type="submit">Authorize ${application.name}</button>
      </form>
      <form class="inline" method="post" action="${AUTHORIZE_PATH}" id="deny">
        <input type="hidden" name="_method" value="delete" />
        ${csrfField(token)} ${requestFields(preAuthorization)}
        <button type="submit">Deny</button>
      </form>`,
  )
}

/**
 * The signed-in user who may authorize, or null once the answer is sent: a visitor goes to sign in and,
 * for the GET, comes back to this very request (GL doorkeeper.rb `resource_owner_authenticator`).
 */
async function authorizingUser(w: WebRequest): Promise<User | null> {
  const user = w.ctx.caller.user
  if (!user) {
    await w.redirectToSignIn()
    return null
  }
  const unconfirmed = refuseUnconfirmedUser(user)
  if (unconfirmed) {
    await renderError(w, unconfirmed)
    return null
  }
  return user
}

/** GET /oauth/authorize and the consent page's answers (DK AuthorizationsController new, create, destroy). */
export function registerAuthorizePages(web: WebRouter) {
  web.get(AUTHORIZE_PATH, async (w) => {
    const user = await authorizingUser(w)
    if (!user) return w.reply
    const result = await preAuthorize(w.ctx, w.params)
    if (!result.ok) return answerError(w, result.error)
    if (await canSkipConsent(w.ctx, user, result.preAuthorization)) return grantCode(w, user, result.preAuthorization)
    return renderConsent(w, user, result.preAuthorization)
  })

  // Approve: every field is checked again, as the form's hidden fields are the browser's to change.
  web.post(AUTHORIZE_PATH, async (w) => {
    const user = await authorizingUser(w)
    if (!user) return w.reply
    const result = await preAuthorize(w.ctx, w.params)
    if (!result.ok) return answerError(w, result.error)
    return grantCode(w, user, result.preAuthorization)
  })

  // Deny: the request is checked too, so a denial is never sent to a redirect URI the application did not register.
  web.delete(AUTHORIZE_PATH, async (w) => {
    const user = await authorizingUser(w)
    if (!user) return w.reply
    const result = await preAuthorize(w.ctx, w.params)
    if (!result.ok) return answerError(w, result.error)
    return answerError(w, denial(result.preAuthorization))
  })
}
