import type { User } from '../../core/caller.js'
import { DomainError } from '../../core/errors.js'
import { errorList, fieldError, refusalOf, type Refusal } from '../../web/form-errors.js'
import { csrfField, html } from '../../web/html.js'
import { describedBy } from '../../web/described-by.js'
import { fieldText } from '../../web/form-values.js'
import { isCurrentPassword, SIGN_IN_PATH, type WebRequest, type WebRouter } from '../sessions/index.js'
import { updateOwnPassword } from '../users/index.js'
import { formOf, USER_SETTINGS_PATHS, userSettingsBreadcrumbs, userSettingsPage, userSettingsSidebar } from './shared.js'

// Changing one's password (GL UserSettings::PasswordsController#edit and #update): the current password first, then
// the model's rules for the new one; a changed password signs the user out everywhere, this browser included.

const EDIT_PATH = USER_SETTINGS_PATHS.password
const PATH = '/-/user_settings/password'

export const WRONG_CURRENT_PASSWORD = 'You must provide a valid current password.'
export const PASSWORD_UPDATED = 'Password was successfully updated. Please sign in again.'

/** GL `authorize_change_password!`: the 404 page where passwords do not sign anyone in. */
function mayChangePassword(w: WebRequest, user: User): boolean {
  return w.ctx.settings.password_authentication_enabled_for_web && user.password_digest !== null
}

async function renderEdit(w: WebRequest, refusal: Refusal | null) {
  const token = await w.csrfToken()
  const minimum = w.ctx.settings.minimum_password_length
  const errorOf = (attribute: string, id: string) => refusal?.byField[attribute] && `${id}_error`
  const body = html`<h1>Password</h1>
    <p class="help">Change your password.</p>
    ${refusal ? errorList(refusal.messages) : ''}
    <form method="post" action="${PATH}" class="update-password" accept-charset="UTF-8">
      ${csrfField(token)}<input type="hidden" name="_method" value="put" />
      <label for="user_password">Current password</label>
      <input type="password" id="user_password" name="user[password]" required autocomplete="current-password" aria-describedby="user_password_help" />
      <p class="help" id="user_password_help">You must provide your current password in order to change it.</p>
      <label for="user_new_password">New password</label>
      <input
        type="password"
        id="user_new_password"
        name="user[new_password]"
        required
        autocomplete="new-password"
        ${describedBy('user_new_password_help', errorOf('password', 'user_new_password'))}
      />
      <p class="help" id="user_new_password_help">Minimum length is ${minimum} characters.</p>
      ${fieldError(refusal, 'password', 'user_new_password')}
      <label for="user_password_confirmation">Password confirmation</label>
      <input
        type="password"
        id="user_password_confirmation"
        name="user[password_confirmation]"
        required
        autocomplete="new-password"
        ${describedBy(errorOf('password_confirmation', 'user_password_confirmation'))}
      />
      ${fieldError(refusal, 'password_confirmation', 'user_password_confirmation')}
      <div class="button-row"><button type="submit" class="primary">Save password</button></div>
    </form>`
  return w.render(
    {
      title: 'Password',
      narrow: true,
      sidebar: userSettingsSidebar('password'),
      breadcrumbs: userSettingsBreadcrumbs({ text: 'Edit Password' }),
    },
    body,
    refusal ? 422 : 200,
  )
}

/**
 * PUT /-/user_settings/password: a wrong current password goes back to the form with GitLab's alert (and counts as
 * a failed sign-in); a refused new one shows the model's messages; a saved one ends every session of the user, and
 * the sign-in page asks them to sign in again.
 */
async function updatePassword(w: WebRequest, user: User) {
  if (!mayChangePassword(w, user)) return w.notFound()
  const form = formOf(w, 'user')
  if (!(await isCurrentPassword(w.ctx, form.password))) {
    await w.flash('alert', WRONG_CURRENT_PASSWORD)
    return w.redirect(EDIT_PATH)
  }
  try {
    await updateOwnPassword(w.ctx, {
      password: fieldText(form, 'new_password'),
      passwordConfirmation: fieldText(form, 'password_confirmation'),
    })
  } catch (error) {
    if (error instanceof DomainError) return renderEdit(w, refusalOf(error))
    throw error
  }
  await w.signOutEverywhere()
  await w.flash('notice', PASSWORD_UPDATED)
  return w.redirect(SIGN_IN_PATH)
}

export function registerPasswordPages(web: WebRouter) {
  web.get(
    EDIT_PATH,
    userSettingsPage(async (w, user) => (mayChangePassword(w, user) ? renderEdit(w, null) : w.notFound())),
  )
  web.put(PATH, userSettingsPage(updatePassword))
  web.route('PATCH', PATH, userSettingsPage(updatePassword))
}
