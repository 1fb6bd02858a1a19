/**
 * GitLab's User and UserDetail model validations, with their exact messages (app/models/user.rb,
 * app/models/user_detail.rb, lib/gitlab/path_regex.rb, app/validators/abstract_path_validator.rb).
 */

import { hasNamespacePathFormat, isTopLevelRoute, NAMESPACE_FORMAT_MESSAGE } from '../namespaces/index.js'

/** Devise's password length upper bound. */
export const MAXIMUM_PASSWORD_LENGTH = 128
const NAME_MAXIMUM_LENGTH = 255
const USERNAME_MAXIMUM_LENGTH = 255
const BIO_MAXIMUM_LENGTH = 255
const PRONOUNS_MAXIMUM_LENGTH = 50
const JOB_TITLE_MAXIMUM_LENGTH = 200
/** UserDetail::DEFAULT_FIELD_LENGTH. */
const PROFILE_FIELD_MAXIMUM_LENGTH = 500
const MAX_INT_VALUE = 2147483647

/** Gitlab::Themes ids and Gitlab::ColorSchemes ids. */
const THEME_IDS = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
const COLOR_SCHEME_IDS = new Set([1, 2, 3, 4, 5, 6])

/** Devise.email_regexp. */
const EMAIL_FORMAT = /^[^@\s]+@[^@\s]+$/

/** Mime::EXTENSION_LOOKUP keys: a username ending in `.<ext>` would be read as a format suffix. */
const RESERVED_EXTENSIONS = new Set([
  'atom',
  'avif',
  'bmp',
  'css',
  'csv',
  'gif',
  'gz',
  'gzip',
  'htm',
  'html',
  'ico',
  'ics',
  'jpe',
  'jpeg',
  'jpg',
  'js',
  'json',
  'mjs',
  'mp3',
  'mp4',
  'mpeg',
  'mpg',
  'oga',
  'ogg',
  'ogv',
  'otf',
  'pdf',
  'pjpeg',
  'png',
  'rss',
  'svg',
  'text',
  'tif',
  'tiff',
  'ttf',
  'txt',
  'vcf',
  'vtt',
  'webm',
  'webp',
  'woff',
  'woff2',
  'xhtml',
  'xml',
  'yaml',
  'zip',
])

export type ValidationErrors = Record<string, string[]>

function add(errors: ValidationErrors, attribute: string, message: string) {
  ;(errors[attribute] ??= []).push(message)
}

function isBlank(value: string | null | undefined): boolean {
  return value === null || value === undefined || value.trim() === ''
}

function checkMaximumLength(errors: ValidationErrors, attribute: string, value: string | null | undefined, maximum: number) {
  if (value && [...value].length > maximum) add(errors, attribute, `is too long (maximum is ${maximum} characters)`)
}

export function isValidEmail(email: string): boolean {
  return EMAIL_FORMAT.test(email)
}

/** Rails' `url: true`: an absolute http(s) URL. */
function isValidUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}

/** The username rules of the user's namespace path, reported on `username` as GitLab does. */
export function usernameErrors(username: string): string[] {
  if (isBlank(username)) return ["can't be blank"]
  const messages: string[] = []
  if ([...username].length > USERNAME_MAXIMUM_LENGTH) messages.push(`is too long (maximum is ${USERNAME_MAXIMUM_LENGTH} characters)`)
  if (!hasNamespacePathFormat(username)) {
    messages.push(NAMESPACE_FORMAT_MESSAGE)
  } else if (isTopLevelRoute(username)) {
    messages.push(`${username} is a reserved name`)
  }
  const extension = /\.([^.]+)$/.exec(username)?.[1]
  if (extension && RESERVED_EXTENSIONS.has(extension.toLowerCase())) messages.push('ending with a reserved file extension is not allowed.')
  return messages
}

/** The state of a user after a create or update, as far as validation needs it. */
export interface UserCandidate {
  email: string
  name: string
  username: string
  /** The new plaintext password, when one is being set. */
  password: string | null
  projectsLimit: number
  bio: string
  location: string
  publicEmail: string | null
  commitEmail: string | null
  websiteUrl: string
  organization: string
  jobTitle: string
  pronouns: string | null
  skype: string
  linkedin: string
  twitter: string
  discord: string
  themeId: number
  colorSchemeId: number
  confirmed: boolean
}

/** Which attributes changed; unchanged values were valid when stored and are not checked again (GitLab: `*_changed?`). */
export type ChangedAttributes = ReadonlySet<string>

/**
 * Every failed rule keyed by attribute, in the order GitLab's model reports them; uniqueness is checked
 * separately, because the API answers it with 409.
 */
export function userValidationErrors(
  user: UserCandidate,
  changed: ChangedAttributes,
  rules: { minimumPasswordLength: number },
): ValidationErrors {
  const errors: ValidationErrors = {}
  if (changed.has('email')) {
    if (isBlank(user.email)) add(errors, 'email', "can't be blank")
    else if (!isValidEmail(user.email)) add(errors, 'email', 'is invalid')
  }
  if (user.password !== null) {
    if (user.password === '') add(errors, 'password', "can't be blank")
    else if ([...user.password].length < rules.minimumPasswordLength) {
      add(errors, 'password', `is too short (minimum is ${rules.minimumPasswordLength} characters)`)
    } else if ([...user.password].length > MAXIMUM_PASSWORD_LENGTH) {
      add(errors, 'password', `is too long (maximum is ${MAXIMUM_PASSWORD_LENGTH} characters)`)
    }
  }
  if (changed.has('name')) {
    if (isBlank(user.name)) add(errors, 'name', "can't be blank")
    checkMaximumLength(errors, 'name', user.name, NAME_MAXIMUM_LENGTH)
  }
  const ownedEmails = user.confirmed ? [user.email.toLowerCase()] : []
  if (changed.has('public_email') && !isBlank(user.publicEmail)) {
    if (!isValidEmail(user.publicEmail!)) add(errors, 'public_email', 'is invalid')
    else if (!ownedEmails.includes(user.publicEmail!.toLowerCase())) add(errors, 'public_email', 'is not an email you own')
  }
  if (changed.has('commit_email') && !isBlank(user.commitEmail) && user.commitEmail !== PRIVATE_COMMIT_EMAIL) {
    if (!isValidEmail(user.commitEmail!)) add(errors, 'commit_email', 'is invalid')
    else if (!ownedEmails.includes(user.commitEmail!.toLowerCase())) add(errors, 'commit_email', 'is not an email you own')
  }
  if (changed.has('bio')) checkMaximumLength(errors, 'bio', user.bio, BIO_MAXIMUM_LENGTH)
  if (changed.has('projects_limit')) {
    if (user.projectsLimit < 0) add(errors, 'projects_limit', 'must be greater than or equal to 0')
    else if (user.projectsLimit > MAX_INT_VALUE) add(errors, 'projects_limit', `must be less than or equal to ${MAX_INT_VALUE}`)
  }
  if (changed.has('theme_id') && !THEME_IDS.has(user.themeId)) add(errors, 'theme_id', `${user.themeId} is not a valid theme`)
  if (changed.has('color_scheme_id') && !COLOR_SCHEME_IDS.has(user.colorSchemeId)) {
    add(errors, 'color_scheme_id', `${user.colorSchemeId} is not a valid color scheme`)
  }
  if (changed.has('pronouns')) checkMaximumLength(errors, 'pronouns', user.pronouns, PRONOUNS_MAXIMUM_LENGTH)
  if (changed.has('job_title')) checkMaximumLength(errors, 'job_title', user.jobTitle, JOB_TITLE_MAXIMUM_LENGTH)
  if (changed.has('discord')) {
    checkMaximumLength(errors, 'discord', user.discord, PROFILE_FIELD_MAXIMUM_LENGTH)
    if (!isBlank(user.discord) && !/^\d{17,20}$/.test(user.discord)) add(errors, 'discord', 'must contain only a discord user ID.')
  }
  for (const [attribute, value] of [
    ['linkedin', user.linkedin],
    ['location', user.location],
    ['organization', user.organization],
    ['skype', user.skype],
    ['twitter', user.twitter],
  ] as const) {
    if (changed.has(attribute)) checkMaximumLength(errors, attribute, value, PROFILE_FIELD_MAXIMUM_LENGTH)
  }
  if (changed.has('website_url') && !isBlank(user.websiteUrl)) {
    checkMaximumLength(errors, 'website_url', user.websiteUrl, PROFILE_FIELD_MAXIMUM_LENGTH)
    if (!isValidUrl(user.websiteUrl)) add(errors, 'website_url', 'is not a valid URL')
  }
  if (changed.has('username')) {
    const messages = usernameErrors(user.username)
    if (messages.length > 0) errors.username = messages
  }
  return errors
}

/** `commit_email` set to this means the private no-reply address (Gitlab::PrivateCommitEmail::TOKEN). */
export const PRIVATE_COMMIT_EMAIL = '_private'

const TAG = /<[^>]*>/g

/** Sanitize.clean as UserDetail applies it: tags are removed and the text is HTML-escaped. */
export function sanitizeProfileText(value: string): string {
  return value.replace(TAG, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** Location and organization are cleaned the same way but keep a literal `&`. */
export function sanitizePlaceText(value: string): string {
  return sanitizeProfileText(value).replace(/&amp;/g, '&')
}
