import { csrfField, html } from '../../web/html.js'
import { REACTIVATED_MESSAGE, signInWithPassword } from './password.js'
import { NEW_PASSWORD_PATH } from './recovery.js'
import { registerRecoveryPages } from './recovery-pages.js'
import { endSession, setReturnTo, startSession } from './service.js'
import { SIGN_IN_PATH, type WebRequest, type WebRouter } from './web-router.js'

function hasControlCharacter(text: string): boolean {
  return [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)
}

/**
 * Where to go after signing in: only a path of this instance (one leading '/', not '//' or '/\', which browsers
 * read as another host), never back to the sign-in page; anything else goes home.
 */
export function safeReturnPath(returnTo: string | null | undefined): string {
  if (!returnTo || !/^\/(?![/\\])/.test(returnTo) || hasControlCharacter(returnTo)) return '/'
  if (returnTo === SIGN_IN_PATH || returnTo.startsWith(`${SIGN_IN_PATH}?`)) return '/'
  return returnTo
}

/** The return path stored in the session, cleared once used. */
async function takeReturnPath(w: WebRequest): Promise<string> {
  const session = w.session
  if (!session?.return_to) return '/'
  const path = safeReturnPath(session.return_to)
  await setReturnTo(w.ctx.db, session, null)
  return path
}

function userField(w: WebRequest, name: string): unknown {
  const form = w.params.user
  return form && typeof form === 'object' && !Array.isArray(form) ? (form as Record<string, unknown>)[name] : undefined
}

async function renderSignIn(w: WebRequest, options: { login?: string; alert?: string } = {}) {
  const token = await w.csrfToken()
  const flash = options.alert ? { kind: 'alert' as const, text: options.alert } : null
  if (!w.ctx.settings.password_authentication_enabled_for_web) {
    return w.render(
      { title: 'Sign in', flash, narrow: true },
      html`<h1>Sign in</h1>
      <p>Signing in with a password is turned off on this instance.</p>`,
    )
  }
  return w.render(
    { title: 'Sign in', flash, narrow: true },
    html`<h1>Sign in</h1>
      <form method="post" action="${SIGN_IN_PATH}" accept-charset="UTF-8">
        ${csrfField(token)}
        <label for="user_login">Username or primary email</label>
        <input type="text" id="user_login" name="user[login]" value="${options.login ?? ''}" autocomplete="username" autofocus required />
        <label for="user_password">Password</label>
        <input type="password" id="user_password" name="user[password]" autocomplete="current-password" required />
        <div class="sign-in-options">
          <label class="scope"><input type="checkbox" id="user_remember_me" name="user[remember_me]" value="1" /> Remember me</label>
          <a href="${NEW_PASSWORD_PATH}">Forgot your password?</a>
        </div>
        <p><button type="submit">Sign in</button></p>
      </form>`,
  )
}

/** GET /users/sign_in: the form; someone already signed in goes on to where they were headed. */
async function showSignIn(w: WebRequest) {
  if (w.ctx.caller.user) return w.redirect(await takeReturnPath(w))
  return renderSignIn(w)
}

/**
 * POST /users/sign_in (GL SessionsController#create): a wrong login or password shows the form again with
 * Devise's alert (200); a success replaces the visitor's session by a new one (its row deleted, never
 * upgraded: session fixation) and goes to the page that sent the visitor here.
 */
async function signIn(w: WebRequest) {
  const { ctx } = w
  if (ctx.caller.user) return w.redirect(await takeReturnPath(w))
  // GL SessionsController#ensure_password_authentication_enabled!: render_403.
  if (!ctx.settings.password_authentication_enabled_for_web) {
    return w.render({ title: 'Forbidden' }, html`<h1>403: Forbidden</h1>`, 403)
  }
  const login = userField(w, 'login')
  const result = await signInWithPassword(ctx, login, userField(w, 'password'), w.request.ip)
  if (result.kind === 'refused') {
    return renderSignIn(w, { login: typeof login === 'string' ? login : '', alert: result.message })
  }
  const visitor = w.session
  const returnPath = safeReturnPath(visitor?.return_to)
  if (visitor) await endSession(ctx.db, visitor)
  const started = await startSession(
    ctx.db,
    { userId: result.user.id, ip: w.request.ip, userAgent: w.request.headers['user-agent'] ?? null },
    ctx.settings,
    ctx.now(),
  )
  w.replaceSession(started, { persistent: userField(w, 'remember_me') === '1' })
  if (result.reactivated) await w.flash('notice', REACTIVATED_MESSAGE)
  return w.redirect(returnPath)
}

/** DELETE /users/sign_out (a form's POST with `_method=delete`): the session row goes, the cookie too. */
async function signOut(w: WebRequest) {
  if (w.session) await endSession(w.ctx.db, w.session)
  w.clearSession()
  return w.redirect(SIGN_IN_PATH)
}

/** GET /: a small home page for the signed-in user; visitors are sent to sign in. */
/** Sign-in and sign-out pages, and those that reset a forgotten password or unlock an account. */
export function registerSessionPages(web: WebRouter) {
  web.get(SIGN_IN_PATH, showSignIn)
  web.post(SIGN_IN_PATH, signIn, { protectedPath: true })
  web.delete('/users/sign_out', signOut)
  web.post('/users/sign_out', signOut)
  registerRecoveryPages(web)
}
