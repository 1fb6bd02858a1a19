import { DomainError } from '../../core/errors.js'
import { errorList, fieldError, refusalOf, type Refusal } from '../../web/form-errors.js'
import { fieldText } from '../../web/form-values.js'
import { describedBy, errorIdOf } from '../../web/described-by.js'
import { csrfField, html, type Html } from '../../web/html.js'
import {
  EDIT_PASSWORD_PATH,
  findResetLink,
  NEW_PASSWORD_PATH,
  NEW_UNLOCK_PATH,
  requestPasswordReset,
  resendUnlockInstructions,
  RESET_PASSWORD_PATH,
  resetPasswordByToken,
  UNLOCK_PATH,
  unlockByToken,
} from './recovery.js'
import { SIGN_IN_PATH, type WebRequest, type WebRouter } from './web-router.js'

// The forgotten-password and unlock pages (GL PasswordsController and Devise's UnlocksController, paranoid): what
// they answer never tells whether an account has the address given.

// GL config/locales/devise.en.yml, with the brand written as svc.
export const RESET_SENT =
  'If your email address exists in our database, you will receive a password recovery link at your email address in a few minutes.'
export const PASSWORD_CHANGED = 'Your password was changed successfully.'
export const NO_TOKEN =
  "You can't access this page without coming from a password reset email. If you do come from a password reset email, please make sure you used the full URL provided."
export const RESET_EXPIRED = 'Your password reset token has expired.'
export const PASSWORD_AUTHENTICATION_UNAVAILABLE = 'Password authentication is unavailable.'
export const ALREADY_SIGNED_IN = 'You are already signed in.'
export const UNLOCK_SENT = 'If your account exists, you will receive an email with instructions about how to unlock it in a few minutes.'
export const UNLOCKED = 'Your account has been unlocked successfully. Please sign in to continue.'
export const UNLOCK_TOKEN_INVALID = 'Unlock token is invalid'

function userForm(w: WebRequest): Record<string, unknown> {
  const form = w.params.user
  return form && typeof form === 'object' && !Array.isArray(form) ? (form as Record<string, unknown>) : {}
}

const signInLink = html`<p class="help">Already have login and password? <a href="${SIGN_IN_PATH}">Sign in</a></p>`

/** Devise's require_no_authentication: someone signed in has no use for these pages. */
async function refuseSignedIn(w: WebRequest) {
  await w.flash('alert', ALREADY_SIGNED_IN)
  return w.redirect('/')
}

/** An e-mail form asking for one link or another (reset password, resend unlock instructions). */
async function renderEmailForm(
  w: WebRequest,
  page: { title: string; action: string; button: string; help: string | null; email: string; errors?: string[] },
  status = 200,
) {
  const token = await w.csrfToken()
  return w.render(
    { title: page.title, narrow: true },
    html`<h1>${page.title}</h1>
      ${errorList(page.errors ?? [])}
      <form method="post" action="${page.action}" accept-charset="UTF-8">
        ${csrfField(token)}
        <label for="user_email">Email</label>
        <input
          type="email"
          id="user_email"
          name="user[email]"
          value="${page.email}"
          autocomplete="email"
          autocapitalize="off"
          autofocus
          required
          ${describedBy(page.help === null ? undefined : 'user_email_help')}
        />
        ${page.help === null ? '' : html`<p class="help" id="user_email_help">${page.help}</p>`}
        <div class="button-row"><button type="submit" class="primary">${page.button}</button></div>
      </form>
      ${signInLink}`,
    status,
  )
}

/** GET /users/password/new: the e-mail to send a reset link to; `user_email` fills it in (an expired link's owner). */
async function showNewPassword(w: WebRequest) {
  if (w.ctx.caller.user) return refuseSignedIn(w)
  const email = typeof w.params.user_email === 'string' ? w.params.user_email : ''
  return renderEmailForm(w, {
    title: 'Reset password',
    action: RESET_PASSWORD_PATH,
    button: 'Reset password',
    help: 'Requires your primary svc email address.',
    email,
  })
}

/** POST /users/password: the same notice whether or not an account has the address (and whether or not a link went). */
async function createPasswordReset(w: WebRequest) {
  const { ctx } = w
  if (ctx.caller.user) return refuseSignedIn(w)
  if (!ctx.settings.password_authentication_enabled_for_web && !ctx.settings.password_authentication_enabled_for_git) {
    await w.flash('alert', PASSWORD_AUTHENTICATION_UNAVAILABLE)
    return w.redirect(SIGN_IN_PATH)
  }
  await requestPasswordReset(ctx, userForm(w).email)
  await w.flash('notice', RESET_SENT)
  return w.redirect(SIGN_IN_PATH)
}

async function renderEditPassword(w: WebRequest, resetToken: string, refusal: Refusal | null) {
  const token = await w.csrfToken()
  const minimum = w.ctx.settings.minimum_password_length
  const body: Html = html`<h1>Change your password</h1>
    ${refusal ? errorList(refusal.messages) : ''}
    <form method="post" action="${RESET_PASSWORD_PATH}" accept-charset="UTF-8">
      ${csrfField(token)}<input type="hidden" name="_method" value="put" />
      <input type="hidden" name="user[reset_password_token]" value="${resetToken}" />
      <label for="user_password">New password</label>
      <input
        type="password"
        id="user_password"
        name="user[password]"
        autocomplete="new-password"
        autofocus
        required
        ${describedBy('user_password_help', errorIdOf(refusal, 'password', 'user_password'))}
      />
      <p class="help" id="user_password_help">Minimum length is ${minimum} characters.</p>
      ${fieldError(refusal, 'password', 'user_password')}
      <label for="user_password_confirmation">Confirm new password</label>
      <input
        type="password"
        id="user_password_confirmation"
        name="user[password_confirmation]"
        autocomplete="new-password"
        required
        ${describedBy(errorIdOf(refusal, 'password_confirmation', 'user_password_confirmation'))}
      />
      ${fieldError(refusal, 'password_confirmation', 'user_password_confirmation')}
      <div class="button-row"><button type="submit" class="primary">Change your password</button></div>
    </form>
    ${signInLink}`
  return w.render({ title: 'Change your password', narrow: true }, body)
}

/**
 * GET /users/password/edit?reset_password_token= (GL PasswordsController#edit): without a token, back to sign in; a
 * link unknown or too old goes to ask for a new one, the address filled in when the link had an owner.
 */
async function showEditPassword(w: WebRequest) {
  const resetToken = w.params.reset_password_token
  if (typeof resetToken !== 'string' || resetToken === '') {
    await w.flash('alert', NO_TOKEN)
    return w.redirect(SIGN_IN_PATH)
  }
  const link = await findResetLink(w.ctx, resetToken)
  if (link.kind === 'expired') {
    await w.flash('alert', RESET_EXPIRED)
    return w.redirect(link.email === null ? NEW_PASSWORD_PATH : `${NEW_PASSWORD_PATH}?${new URLSearchParams({ user_email: link.email })}`)
  }
  return renderEditPassword(w, resetToken, null)
}

/**
 * PUT /users/password (Devise's PasswordsController#update, `sign_in_after_reset_password` off): a refusal shows the
 * form again with the model's messages; a new password ends every session of the user, this one too if it was theirs,
 * and the sign-in page says so.
 */
async function updatePassword(w: WebRequest) {
  const form = userForm(w)
  const resetToken = form.reset_password_token
  let user
  try {
    user = await resetPasswordByToken(w.ctx, resetToken, {
      password: fieldText(form, 'password'),
      passwordConfirmation: fieldText(form, 'password_confirmation'),
    })
  } catch (error) {
    if (error instanceof DomainError) return renderEditPassword(w, typeof resetToken === 'string' ? resetToken : '', refusalOf(error))
    throw error
  }
  if (w.session?.user_id === user.id) w.clearSession()
  await w.flash('notice', PASSWORD_CHANGED)
  return w.redirect(SIGN_IN_PATH)
}

function renderNewUnlock(w: WebRequest, errors: string[] = [], status = 200) {
  const email = typeof w.params.user_email === 'string' ? w.params.user_email : ''
  const title = 'Resend unlock instructions'
  return renderEmailForm(w, { title, action: UNLOCK_PATH, button: title, help: null, email, errors }, status)
}

/**
 * GET /users/unlock?unlock_token= (Devise's UnlocksController#show): a known link unlocks the account and sends its
 * owner to sign in; an unknown one shows the form that sends a new link, with Devise's error (422).
 */
async function unlock(w: WebRequest) {
  if (w.ctx.caller.user) return refuseSignedIn(w)
  const user = await unlockByToken(w.ctx, w.params.unlock_token)
  if (!user) return renderNewUnlock(w, [UNLOCK_TOKEN_INVALID], 422)
  await w.flash('notice', UNLOCKED)
  return w.redirect(SIGN_IN_PATH)
}

/** POST /users/unlock: a locked account with the address gets a new link; the notice is the same either way. */
async function createUnlock(w: WebRequest) {
  if (w.ctx.caller.user) return refuseSignedIn(w)
  await resendUnlockInstructions(w.ctx, userForm(w).email)
  await w.flash('notice', UNLOCK_SENT)
  return w.redirect(SIGN_IN_PATH)
}

/** Forgotten password and unlock pages; their POSTs count against the protected-paths rate limit. */
export function registerRecoveryPages(web: WebRouter) {
  web.get(NEW_PASSWORD_PATH, showNewPassword)
  web.post(RESET_PASSWORD_PATH, createPasswordReset, { protectedPath: true })
  web.get(EDIT_PASSWORD_PATH, showEditPassword)
  web.put(RESET_PASSWORD_PATH, updatePassword, { protectedPath: true })
  web.route('PATCH', RESET_PASSWORD_PATH, updatePassword, { protectedPath: true })
  web.get(UNLOCK_PATH, unlock)
  web.get(NEW_UNLOCK_PATH, (w) => (w.ctx.caller.user ? refuseSignedIn(w) : renderNewUnlock(w)))
  web.post(UNLOCK_PATH, createUnlock, { protectedPath: true })
}
