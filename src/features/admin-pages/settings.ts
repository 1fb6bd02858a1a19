import { settingRules, type SettingName, type Settings } from '../../core/settings.js'
import { DomainError, Invalid } from '../../core/errors.js'
import { describedBy, errorIdOf } from '../../web/described-by.js'
import { errorList, fieldError, refusalOf, type Refusal } from '../../web/form-errors.js'
import { lastTextOf } from '../../web/form-values.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { getSettings, updateSettings, type SettingsCache, type UpdateSettingsInput } from '../settings/index.js'
import { adminPage, renderAdminPage, SETTINGS_PAGES, type SettingsPage } from './layout.js'

// The instance settings in GitLab's admin sections (Admin::ApplicationSettingsController: general, reporting, network,
// repository), each section its own form, saved through the service behind PUT /application/settings.

type Field =
  | { name: SettingName; kind: 'checkbox'; label: string; help?: string }
  | { name: SettingName; kind: 'number' | 'text' | 'textarea'; label: string; help?: string }
  | { name: SettingName; kind: 'select'; label: string; help?: string; options: { value: string; label: string }[] }
  | { name: 'repository_storages_weighted'; kind: 'weights'; label: string; help?: string }

interface Section {
  id: string
  title: string
  description: string
  fields: Field[]
}

const VISIBILITY_OPTIONS = [
  { value: 'private', label: 'Private' },
  { value: 'internal', label: 'Internal' },
  { value: 'public', label: 'Public' },
]

// GL Gitlab::Access protection levels, as the admin form names them.
const BRANCH_PROTECTION_OPTIONS = [
  { value: '0', label: 'Not protected' },
  { value: '1', label: 'Partially protected' },
  { value: '3', label: 'Protected against pushes' },
  { value: '2', label: 'Fully protected' },
  { value: '4', label: 'Fully protected after initial push' },
]

const SECTIONS: Record<SettingsPage, Section[]> = {
  general: [
    {
      id: 'js-visibility-settings',
      title: 'Visibility and access controls',
      description: 'Set visibility of project contents and configure Git access protocols.',
      fields: [
        {
          name: 'default_branch_protection',
          kind: 'select',
          label: 'Default branch protection',
          help: 'How a new project protects its default branch when its group does not say.',
          options: BRANCH_PROTECTION_OPTIONS,
        },
        { name: 'default_project_visibility', kind: 'select', label: 'Default project visibility', options: VISIBILITY_OPTIONS },
        { name: 'default_snippet_visibility', kind: 'select', label: 'Default snippet visibility', options: VISIBILITY_OPTIONS },
        { name: 'default_group_visibility', kind: 'select', label: 'Default group visibility', options: VISIBILITY_OPTIONS },
      ],
    },
    {
      id: 'js-account-settings',
      title: 'Account and limit',
      description: 'Set projects limits, session duration, user options and access token lifetimes.',
      fields: [
        { name: 'default_projects_limit', kind: 'number', label: 'Default projects limit' },
        { name: 'can_create_group', kind: 'checkbox', label: 'Allow new users to create top-level groups' },
        {
          name: 'user_default_external',
          kind: 'checkbox',
          label: 'Make new users external by default',
          help: 'External users cannot create projects or groups.',
        },
        { name: 'user_defaults_to_private_profile', kind: 'checkbox', label: "Make new users' profiles private by default" },
        {
          name: 'user_oauth_applications',
          kind: 'checkbox',
          label: 'Allow users to register any application to use this instance as an OAuth provider',
        },
        { name: 'impersonation_enabled', kind: 'checkbox', label: 'Allow administrators to impersonate users' },
        {
          name: 'session_expire_delay',
          kind: 'number',
          label: 'Session duration (minutes)',
          help: 'A web session ends after this long without use.',
        },
        {
          name: 'max_personal_access_token_lifetime',
          kind: 'number',
          label: 'Maximum allowable lifetime for access tokens (days)',
          help: 'Leave blank for 365 days.',
        },
        { name: 'require_personal_access_token_expiry', kind: 'checkbox', label: 'Personal access tokens must expire' },
        {
          name: 'offset_pagination_limit',
          kind: 'number',
          label: 'Offset pagination limit',
          help: 'The largest page × per_page an API list answers with offset pagination; 0 for none.',
        },
      ],
    },
    {
      id: 'js-signup-settings',
      title: 'Sign-up restrictions',
      description: 'Configure the way a user creates a new account.',
      fields: [
        { name: 'signup_enabled', kind: 'checkbox', label: 'Sign-up enabled' },
        { name: 'minimum_password_length', kind: 'number', label: 'Minimum password length (number of characters)' },
      ],
    },
    {
      id: 'js-signin-settings',
      title: 'Sign-in restrictions',
      description: 'Set sign-in restrictions for all users.',
      fields: [
        { name: 'password_authentication_enabled_for_web', kind: 'checkbox', label: 'Allow password authentication for the web interface' },
        { name: 'password_authentication_enabled_for_git', kind: 'checkbox', label: 'Allow password authentication for Git over HTTP(S)' },
        {
          name: 'ropc_without_client_credentials',
          kind: 'checkbox',
          label: 'Allow the OAuth password grant without client credentials',
        },
        { name: 'admin_mode', kind: 'checkbox', label: 'Admin Mode', help: 'Require additional authentication for administrative tasks.' },
        {
          name: 'max_login_attempts',
          kind: 'number',
          label: 'Maximum login attempts',
          help: 'Failed sign-ins that lock an account; blank for 10.',
        },
        {
          name: 'failed_login_attempts_unlock_period_in_minutes',
          kind: 'number',
          label: 'Locked account unlock period (minutes)',
          help: 'Blank for 10.',
        },
      ],
    },
  ],
  reporting: [
    {
      id: 'js-spam-settings',
      title: 'Spam and Anti-bot Protection',
      description: 'Check issues, comments and public snippets for spam, and let authors prove they are human with reCAPTCHA.',
      fields: [
        {
          name: 'spam_check_patterns',
          kind: 'textarea',
          label: 'Spam check patterns',
          help: 'One case-insensitive regular expression per line, matched against titles, descriptions and comments of users other than administrators. Blank turns the check off.',
        },
        {
          name: 'recaptcha_enabled',
          kind: 'checkbox',
          label: 'Enable reCAPTCHA',
          help: 'Writes flagged as spam may go through once the author solves a reCAPTCHA.',
        },
        { name: 'recaptcha_site_key', kind: 'text', label: 'reCAPTCHA site key' },
        { name: 'recaptcha_private_key', kind: 'text', label: 'reCAPTCHA private key' },
      ],
    },
  ],
  network: [
    {
      id: 'js-ip-limits-settings',
      title: 'User and IP rate limits',
      description: 'Limit API requests per user, and per IP address for requests without credentials.',
      fields: [
        { name: 'throttle_unauthenticated_api_enabled', kind: 'checkbox', label: 'Enable unauthenticated API request rate limit' },
        {
          name: 'throttle_unauthenticated_api_requests_per_period',
          kind: 'number',
          label: 'Maximum unauthenticated API requests per rate limit period per IP',
        },
        {
          name: 'throttle_unauthenticated_api_period_in_seconds',
          kind: 'number',
          label: 'Unauthenticated API rate limit period in seconds',
        },
        { name: 'throttle_authenticated_api_enabled', kind: 'checkbox', label: 'Enable authenticated API request rate limit' },
        {
          name: 'throttle_authenticated_api_requests_per_period',
          kind: 'number',
          label: 'Maximum authenticated API requests per rate limit period per user',
        },
        { name: 'throttle_authenticated_api_period_in_seconds', kind: 'number', label: 'Authenticated API rate limit period in seconds' },
        {
          name: 'rate_limiting_response_text',
          kind: 'textarea',
          label: 'Plain-text response to send to clients that hit a rate limit',
          help: 'Blank for "Retry later".',
        },
      ],
    },
    {
      id: 'js-protected-paths-settings',
      title: 'Protected paths',
      description: 'Limit POSTs to sign-in, the OAuth token endpoint and the other protected paths.',
      fields: [
        { name: 'throttle_protected_paths_enabled', kind: 'checkbox', label: 'Enable protected paths rate limit' },
        { name: 'throttle_protected_paths_requests_per_period', kind: 'number', label: 'Maximum number of requests per period per user' },
        { name: 'throttle_protected_paths_period_in_seconds', kind: 'number', label: 'Rate limit period in seconds' },
      ],
    },
    {
      id: 'js-users-api-limits-settings',
      title: 'Users API rate limit',
      description: 'Limit the requests a user who is not an administrator sends to GET /users/:id.',
      fields: [
        { name: 'users_get_by_id_limit', kind: 'number', label: 'Maximum requests per 10 minutes per user', help: '0 for no limit.' },
      ],
    },
  ],
  repository: [
    {
      id: 'js-repository-storage-settings',
      title: 'Repository storage',
      description: 'New projects are stored on a storage chosen at random by these weights.',
      fields: [
        {
          name: 'repository_storages_weighted',
          kind: 'weights',
          label: 'Storage nodes for new repositories',
          help: 'A weight from 0 to 100 per storage.',
        },
      ],
    },
  ],
}

const PAGE_TITLES: Record<SettingsPage, string> = Object.fromEntries(SETTINGS_PAGES.map(({ page, label }) => [page, label])) as Record<
  SettingsPage,
  string
>

function pagePath(page: SettingsPage): string {
  return `/admin/application_settings/${page}`
}

/** What a section's form holds: the settings, or what was typed into a refused form. */
type FormValues = Record<string, string | boolean | Record<string, string>>

function valuesOf(settings: Settings): FormValues {
  const values: FormValues = {}
  for (const [name, value] of Object.entries(settings)) {
    if (typeof value === 'boolean') values[name] = value
    else if (value === null) values[name] = ''
    else if (typeof value === 'object')
      values[name] = Object.fromEntries(Object.entries(value).map(([key, weight]) => [key, String(weight)]))
    else values[name] = String(value)
  }
  return values
}

function inputId(name: string, key?: string): string {
  return key === undefined ? `application_setting_${name}` : `application_setting_${name}_${key}`
}

function fieldName(name: string, key?: string): string {
  return key === undefined ? `application_setting[${name}]` : `application_setting[${name}][${key}]`
}

/** The field's help and error ids, as an attribute after a space (the admin form's markup writes attributes that way). */
function describedByField(field: Field, refusal: Refusal | null): Html {
  const id = inputId(field.name)
  const attribute = describedBy(field.help && `${id}_help`, errorIdOf(refusal, field.name, id))
  return attribute.text ? html` ${attribute}` : attribute
}

function help(field: Field): Html {
  return field.help ? html`<p class="help" id="${inputId(field.name)}_help">${field.help}</p>` : html``
}

function fieldMarkup(field: Field, values: FormValues, refusal: Refusal | null, storages: readonly string[]): Html {
  const id = inputId(field.name)
  const error = fieldError(refusal, field.name, id)
  const invalid = refusal?.byField[field.name] ? html` aria-invalid="true"` : html``
  const value = values[field.name]
  if (field.kind === 'checkbox') {
    return html`<div class="choice">
      <input type="hidden" name="${fieldName(field.name)}" value="0" />
      <input type="checkbox" id="${id}" name="${fieldName(field.name)}" value="1"${value === true ? html` checked` : ''}${describedByField(field, refusal)} />
      <label for="${id}">${field.label}</label>
      ${help(field)}${error}
    </div>`
  }
  if (field.kind === 'weights') {
    const weights = typeof value === 'object' ? value : {}
    return html`<fieldset class="choices storage-weights"${describedByField(field, refusal)}>
      <legend>${field.label}</legend>
      ${help(field)}
      <div class="field-row">
        ${storages.map(
          (storage) => html`<div class="field">
            <label for="${inputId(field.name, storage)}">${storage}</label>
            <input type="text" inputmode="numeric" id="${inputId(field.name, storage)}" name="${fieldName(field.name, storage)}" value="${weights[storage] ?? '0'}"${invalid} />
          </div>`,
        )}
      </div>
      ${error}
    </fieldset>`
  }
  const text = typeof value === 'string' ? value : ''
  const control =
    field.kind === 'select'
      ? html`<select id="${id}" name="${fieldName(field.name)}"${describedByField(field, refusal)}${invalid}>
          ${field.options.map((option) => html`<option value="${option.value}"${option.value === text ? html` selected` : ''}>${option.label}</option>`)}
        </select>`
      : field.kind === 'textarea'
        ? html`<textarea id="${id}" name="${fieldName(field.name)}" rows="4"${describedByField(field, refusal)}${invalid}>${text}</textarea>`
        : html`<input type="text"${field.kind === 'number' ? html` inputmode="numeric"` : ''} id="${id}" name="${fieldName(field.name)}" value="${text}"${describedByField(field, refusal)}${invalid} />`
  return html`<label for="${id}">${field.label}</label>${control}${help(field)}${error}`
}

interface Refused {
  sectionId: string
  values: FormValues
  refusal: Refusal
}

async function renderSettingsPage(w: WebRequest, page: SettingsPage, refused: Refused | null = null) {
  const settings = await getSettings(w.ctx)
  const stored = valuesOf(settings)
  const csrf = csrfField(await w.csrfToken())
  const storages = Object.keys(settings.repository_storages_weighted)
  const sections = SECTIONS[page].map((section) => {
    const mine = refused?.sectionId === section.id ? refused : null
    const values = mine ? { ...stored, ...mine.values } : stored
    return html`<section class="box settings-section" id="${section.id}" aria-labelledby="${section.id}-title">
      <header><h2 id="${section.id}-title">${section.title}</h2></header>
      <div class="body">
        <p class="help">${section.description}</p>
        ${mine ? errorList(mine.refusal.messages) : ''}
        <form method="post" action="/admin/application_settings#${section.id}" class="settings-form">
          ${csrf}<input type="hidden" name="_method" value="put" /><input type="hidden" name="page" value="${page}" />
          <input type="hidden" name="section" value="${section.id}" />
          ${section.fields.map((field) => fieldMarkup(field, values, mine?.refusal ?? null, storages))}
          <div class="button-row"><button type="submit" class="primary">Save changes</button></div>
        </form>
      </div>
    </section>`
  })
  return renderAdminPage(
    w,
    {
      title: PAGE_TITLES[page],
      section: 'settings',
      settingsPage: page,
      crumbs: [{ text: 'Settings', href: pagePath('general') }, { text: PAGE_TITLES[page] }],
      status: refused ? 422 : 200,
    },
    html`<h1>${PAGE_TITLES[page]}</h1>
      ${sections}`,
  )
}

/** A section's form as the service's input, or the fields it cannot read as settings (Rails' messages). */
function inputOf(section: Section, form: Record<string, unknown>): { input: UpdateSettingsInput; errors: Record<string, string[]> } {
  const input: Record<string, unknown> = {}
  const errors: Record<string, string[]> = {}
  for (const field of section.fields) {
    const raw = form[field.name]
    const rule = settingRules[field.name]
    if (field.kind === 'weights') {
      input[field.name] = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}
      continue
    }
    const text = lastTextOf(raw) ?? ''
    if (rule.type === 'boolean') input[field.name] = ['1', 'true', 'on'].includes(text)
    else if (rule.type === 'integer') {
      const trimmed = text.trim()
      if (trimmed === '' && rule.nullable) input[field.name] = null
      else if (/^[+-]?\d{1,15}$/.test(trimmed)) input[field.name] = Number(trimmed)
      else errors[field.name] = ['is not a number']
    } else if (rule.type === 'string') {
      if (rule.values && !rule.values.includes(text)) errors[field.name] = ['is not included in the list']
      else input[field.name] = text.trim() === '' && rule.nullable ? null : text
    }
  }
  return { input: input as UpdateSettingsInput, errors }
}

/** What the refused form showed: the typed values of its fields. */
function typedValues(section: Section, form: Record<string, unknown>): FormValues {
  const values: FormValues = {}
  for (const field of section.fields) {
    const raw = form[field.name]
    if (field.kind === 'weights') {
      values[field.name] =
        raw !== null && typeof raw === 'object' && !Array.isArray(raw)
          ? Object.fromEntries(Object.entries(raw as Record<string, unknown>).map(([key, weight]) => [key, textOf(weight)]))
          : {}
    } else if (field.kind === 'checkbox') values[field.name] = ['1', 'true', 'on'].includes(lastTextOf(raw) ?? '')
    else values[field.name] = lastTextOf(raw) ?? ''
  }
  return values
}

async function saveSettings(w: WebRequest, cache: SettingsCache) {
  const page = SETTINGS_PAGES.find((candidate) => candidate.page === textOf(w.params.page))?.page ?? 'general'
  const section = SECTIONS[page].find((candidate) => candidate.id === textOf(w.params.section))
  if (!section) return w.notFound()
  const form = w.params.application_setting
  const fields = form !== null && typeof form === 'object' && !Array.isArray(form) ? (form as Record<string, unknown>) : {}
  const { input, errors } = inputOf(section, fields)
  try {
    if (Object.keys(errors).length > 0) throw new Invalid(errors)
    await updateSettings(w.ctx, cache, input)
  } catch (error) {
    if (!(error instanceof DomainError)) throw error
    return renderSettingsPage(w, page, { sectionId: section.id, values: typedValues(section, fields), refusal: refusalOf(error) })
  }
  await w.flash('notice', 'Application settings saved successfully')
  return w.redirect(`${pagePath(page)}#${section.id}`)
}

export function registerAdminSettingsPages(web: WebRouter, cache: SettingsCache) {
  web.get(
    '/admin/application_settings',
    adminPage(async (w) => w.redirect(pagePath('general'))),
  )
  for (const { page } of SETTINGS_PAGES)
    web.get(
      pagePath(page),
      adminPage((w) => renderSettingsPage(w, page)),
    )
  web.put(
    '/admin/application_settings',
    adminPage((w) => saveSettings(w, cache)),
  )
}
