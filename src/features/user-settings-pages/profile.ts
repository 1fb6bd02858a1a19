import type { User } from '../../core/caller.js'
import { DomainError } from '../../core/errors.js'
import { errorList, fieldError, refusalOf, type Refusal } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { describedBy } from '../../web/described-by.js'
import { givenText } from '../../web/form-values.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { updateOwnProfile, type OwnProfileAttributes } from '../users/index.js'
import { checkboxOf, formOf, USER_SETTINGS_PATHS, userSettingsBreadcrumbs, userSettingsPage, userSettingsSidebar } from './shared.js'

// The signed-in user's profile (GL UserSettings::ProfilesController#show and #update), saved through the users
// feature's own rules, so the page refuses what the model refuses, in its words.

const PATH = USER_SETTINGS_PATHS.profile

/** GL Profiles|Profile was successfully updated. */
export const PROFILE_UPDATED = 'Profile was successfully updated'

/** Rails' human attribute names for the profile's full messages. */
const ATTRIBUTE_NAMES: Record<string, string> = {
  name: 'Name',
  public_email: 'Public email',
  website_url: 'Website url',
  job_title: 'Job title',
  linkedin: 'Linkedin',
  twitter: 'Twitter',
  discord: 'Discord',
}

interface ProfileValues {
  name: string
  pronouns: string
  publicEmail: string
  websiteUrl: string
  location: string
  jobTitle: string
  organization: string
  bio: string
  linkedin: string
  twitter: string
  discord: string
  privateProfile: boolean
}

function valuesOf(user: User): ProfileValues {
  return {
    name: user.name,
    pronouns: user.pronouns ?? '',
    publicEmail: user.public_email ?? '',
    websiteUrl: user.website_url,
    location: user.location,
    jobTitle: user.job_title,
    organization: user.organization,
    bio: user.bio,
    linkedin: user.linkedin,
    twitter: user.twitter,
    discord: user.discord,
    privateProfile: user.private_profile === 1,
  }
}

/** What the form sent; a field it left out keeps its value (GitLab permits each one on its own). */
function submittedValues(w: WebRequest, user: User): { values: ProfileValues; attributes: OwnProfileAttributes } {
  const form = formOf(w, 'user')
  const current = valuesOf(user)
  const attributes: OwnProfileAttributes = {
    name: givenText(form, 'name'),
    pronouns: givenText(form, 'pronouns'),
    publicEmail: givenText(form, 'public_email'),
    websiteUrl: givenText(form, 'website_url'),
    location: givenText(form, 'location'),
    jobTitle: givenText(form, 'job_title'),
    // GitLab's form names the organization after the user detail that keeps it.
    organization: givenText(form, 'user_detail_organization') ?? givenText(form, 'organization'),
    bio: givenText(form, 'bio'),
    linkedin: givenText(form, 'linkedin'),
    twitter: givenText(form, 'twitter'),
    discord: givenText(form, 'discord'),
    privateProfile: checkboxOf(form, 'private_profile'),
  }
  const values: ProfileValues = {
    name: attributes.name ?? current.name,
    pronouns: attributes.pronouns ?? current.pronouns,
    publicEmail: attributes.publicEmail ?? current.publicEmail,
    websiteUrl: attributes.websiteUrl ?? current.websiteUrl,
    location: attributes.location ?? current.location,
    jobTitle: attributes.jobTitle ?? current.jobTitle,
    organization: attributes.organization ?? current.organization,
    bio: attributes.bio ?? current.bio,
    linkedin: attributes.linkedin ?? current.linkedin,
    twitter: attributes.twitter ?? current.twitter,
    discord: attributes.discord ?? current.discord,
    privateProfile: attributes.privateProfile ?? current.privateProfile,
  }
  return { values, attributes }
}

/** GL User#public_verified_emails as svc keeps them: the primary address once confirmed. */
function publicEmailChoices(user: User): string[] {
  return user.confirmed_at !== null ? [user.email] : []
}

interface TextField {
  attribute: string
  name: string
  id: string
  label: string
  value: string
  help?: string
  placeholder?: string
  required?: boolean
}

function textField(field: TextField, refusal: Refusal | null): Html {
  const helpId = field.help ? `${field.id}_help` : null
  const errorId = refusal?.byField[field.attribute] ? `${field.id}_error` : null
  return html`<div class="field">
    <label for="${field.id}">${field.label}</label>
    <input
      type="text"
      id="${field.id}"
      name="${field.name}"
      value="${field.value}"
      ${field.placeholder ? html`placeholder="${field.placeholder}"` : ''}
      ${field.required ? html`required` : ''}
      ${describedBy(helpId, errorId)}
    />
    ${field.help ? html`<p class="help" id="${helpId}">${field.help}</p>` : ''} ${fieldError(refusal, field.attribute, field.id)}
  </div>`
}

async function renderProfile(w: WebRequest, user: User, values: ProfileValues, refusal: Refusal | null) {
  const token = await w.csrfToken()
  const emails = publicEmailChoices(user)
  const publicEmails = values.publicEmail && !emails.includes(values.publicEmail) ? [...emails, values.publicEmail] : emails
  const body = html`<h1>Edit profile</h1>
    ${refusal ? errorList(refusal.messages) : ''}
    <form method="post" action="${PATH}" class="edit-user" accept-charset="UTF-8">
      ${csrfField(token)}<input type="hidden" name="_method" value="put" />
      <section class="box settings-section" aria-labelledby="main-settings-heading">
        <header><h2 id="main-settings-heading">Main settings</h2></header>
        <div class="body">
          <p class="help">This information will appear on your profile.</p>
          ${textField(
            {
              attribute: 'name',
              name: 'user[name]',
              id: 'user_name',
              label: 'Full name',
              value: values.name,
              help: 'Enter your name, so people you know can recognize you.',
              required: true,
            },
            refusal,
          )}
          <div class="field">
            <label for="user_id">User ID</label>
            <input type="text" id="user_id" value="${user.id}" readonly />
          </div>
          ${textField(
            {
              attribute: 'pronouns',
              name: 'user[pronouns]',
              id: 'user_pronouns',
              label: 'Pronouns',
              value: values.pronouns,
              help: 'Enter your pronouns to let people know how to refer to you.',
            },
            refusal,
          )}
          <div class="field">
            <label for="user_public_email">Public email</label>
            <select
              id="user_public_email"
              name="user[public_email]"
              ${describedBy('user_public_email_help', refusal?.byField.public_email && 'user_public_email_error')}
            >
              <option value="">Do not show on profile</option>
              ${publicEmails.map((email) => html`<option value="${email}" ${email === values.publicEmail ? html`selected` : ''}>${email}</option>`)}
            </select>
            <p class="help" id="user_public_email_help">This email will be displayed on your public profile.</p>
            ${fieldError(refusal, 'public_email', 'user_public_email')}
          </div>
          ${textField(
            {
              attribute: 'website_url',
              name: 'user[website_url]',
              id: 'user_website_url',
              label: 'Website URL',
              value: values.websiteUrl,
              placeholder: 'https://website.com',
            },
            refusal,
          )}
          ${textField(
            {
              attribute: 'location',
              name: 'user[location]',
              id: 'user_location',
              label: 'Location',
              value: values.location,
              placeholder: 'City, country',
            },
            refusal,
          )}
          ${textField({ attribute: 'job_title', name: 'user[job_title]', id: 'user_job_title', label: 'Job title', value: values.jobTitle }, refusal)}
          ${textField(
            {
              attribute: 'organization',
              name: 'user[user_detail_organization]',
              id: 'user_user_detail_organization',
              label: 'Organization',
              value: values.organization,
              help: 'Who you represent or work for.',
            },
            refusal,
          )}
          <div class="field">
            <label for="user_bio">Bio</label>
            <textarea id="user_bio" name="user[bio]" rows="4" maxlength="250" ${describedBy('user_bio_help', refusal?.byField.bio && 'user_bio_error')}>
${values.bio}</textarea
            >
            <p class="help" id="user_bio_help">Tell us about yourself in fewer than 250 characters.</p>
            ${fieldError(refusal, 'bio', 'user_bio')}
          </div>
        </div>
      </section>
      <section class="box settings-section" aria-labelledby="social-accounts-heading">
        <header><h2 id="social-accounts-heading">Social accounts</h2></header>
        <div class="body">
          ${textField(
            {
              attribute: 'linkedin',
              name: 'user[linkedin]',
              id: 'user_linkedin',
              label: 'LinkedIn',
              value: values.linkedin,
              placeholder: 'profilename',
              help: 'Your LinkedIn profile name from linkedin.com/in/profilename',
            },
            refusal,
          )}
          ${textField(
            {
              attribute: 'twitter',
              name: 'user[twitter]',
              id: 'user_twitter',
              label: 'X (formerly Twitter)',
              value: values.twitter,
              placeholder: '@username',
            },
            refusal,
          )}
          ${textField(
            {
              attribute: 'discord',
              name: 'user[discord]',
              id: 'user_discord',
              label: 'Discord',
              value: values.discord,
              placeholder: 'User ID',
              help: 'Your Discord user ID.',
            },
            refusal,
          )}
        </div>
      </section>
      <fieldset class="settings-choice">
        <legend>Private profile</legend>
        <input type="hidden" name="user[private_profile]" value="0" />
        <label class="inline-label"
          ><input type="checkbox" id="user_private_profile" name="user[private_profile]" value="1" ${values.privateProfile ? html`checked` : ''} />
          Don't display activity-related personal information on your profile.</label
        >
      </fieldset>
      <div class="button-row">
        <button type="submit" class="primary">Update profile settings</button>
        <a class="button" href="/${user.username}">Cancel</a>
      </div>
    </form>`
  return w.render(
    {
      title: 'Edit Profile',
      narrow: true,
      sidebar: userSettingsSidebar('profile'),
      breadcrumbs: userSettingsBreadcrumbs({ text: 'Edit Profile' }),
    },
    body,
    refusal ? 422 : 200,
  )
}

/** PUT /-/user_settings/profile: saves, then back to the form with GitLab's notice; a refusal keeps what was typed. */
async function updateProfile(w: WebRequest, user: User) {
  const { values, attributes } = submittedValues(w, user)
  try {
    await updateOwnProfile(w.ctx, attributes)
  } catch (error) {
    if (error instanceof DomainError) return renderProfile(w, user, values, refusalOf(error, ATTRIBUTE_NAMES))
    throw error
  }
  await w.flash('notice', PROFILE_UPDATED)
  return w.redirect(PATH)
}

export function registerProfilePages(web: WebRouter) {
  web.get(
    PATH,
    userSettingsPage((w, user) => renderProfile(w, user, valuesOf(user), null)),
  )
  web.put(PATH, userSettingsPage(updateProfile))
  // GL routes: the profile's older addresses lead to it.
  for (const old of ['/-/profile', '/profile']) web.get(old, async (w) => w.redirect(PATH, 301))
}
