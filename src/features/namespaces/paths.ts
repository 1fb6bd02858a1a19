// Path and name rules of groups, user namespaces and projects (GL lib/gitlab/path_regex.rb, lib/gitlab/regex.rb,
// app/validators/namespace_path_validator.rb, project_path_validator.rb).

export const MAX_PATH_LENGTH = 255
export const MAX_NAME_LENGTH = 255

/**
 * Words that would mask a route of the instance's root: no username or top-level group path may be one of them
 * (GL PathRegex::TOP_LEVEL_ROUTES; the words of older releases, such as koding and ci, and of newer ones, such as
 * login, sitemap and v2, are all kept, so no path either release refuses is taken).
 */
const TOP_LEVEL_ROUTES = new Set([
  '-',
  '.well-known',
  '404.html',
  '422.html',
  '500.html',
  '502.html',
  '503.html',
  'abuse_reports',
  'admin',
  'api',
  'apple-touch-icon-precomposed.png',
  'apple-touch-icon.png',
  'assets',
  'autocomplete',
  'ci',
  'dashboard',
  'deploy.html',
  'explore',
  'favicon.ico',
  'favicon.png',
  'files',
  'groups',
  'header_logo_dark.png',
  'header_logo_light.png',
  'health_check',
  'help',
  'import',
  'invites',
  'jwt',
  'koding',
  'login',
  'notification_settings',
  'oauth',
  'profile',
  'projects',
  'public',
  'robots.txt',
  's',
  'search',
  'sent_notifications',
  'sitemap',
  'sitemap.xml',
  'sitemap.xml.gz',
  'slash-command-logo.png',
  'snippets',
  'u',
  'unsubscribes',
  'uploads',
  'users',
  'v2',
])

/** Words that would mask a route below a project (GL PathRegex::PROJECT_WILDCARD_ROUTES); also refused for subgroups. */
const PROJECT_WILDCARD_ROUTES = new Set([
  '-',
  'badges',
  'blame',
  'blob',
  'builds',
  'commits',
  'create',
  'create_dir',
  'edit',
  'files',
  'find_file',
  'new',
  'preview',
  'raw',
  'refs',
  'tree',
  'update',
  'wikis',
])

const NAMESPACE_FORMAT = /^(?:[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])$/
const PROJECT_PATH_FORMAT = /^[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*$/
const FORBIDDEN_SUFFIX = /\.(git|atom)$/
const ONLY_DOTS = /^\.+$/

export const NAMESPACE_FORMAT_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."
export const PROJECT_PATH_FORMAT_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"
export const GROUP_NAME_MESSAGE =
  "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'."
export const PROJECT_NAME_MESSAGE =
  "can contain only letters, digits, emojis, '_', '.', '+', dashes, or spaces. It must start with a letter, digit, emoji, or '_'."

const GROUP_NAME = /^[\p{L}\p{N}\u{00A9}-\u{1F9FF}_][\p{L}\p{N}\p{Pd}\u{00A9}-\u{1F9FF}_(). ]*$/u
const PROJECT_NAME = /^[\p{L}\p{N}\u{00A9}-\u{1F9FF}_][\p{L}\p{N}\p{Pd}+\u{00A9}-\u{1F9FF}_. ]*$/u

function tooLong(value: string, maximum: number): string[] {
  return [...value].length > maximum ? [`is too long (maximum is ${maximum} characters)`] : []
}

/** Whether a username or top-level group path would mask a route of the instance's root (compared case-insensitively). */
export function isTopLevelRoute(path: string): boolean {
  return TOP_LEVEL_ROUTES.has(path.toLowerCase())
}

/** Gitlab::PathRegex.namespace_format_regex: the format of usernames and group paths. */
export function hasNamespacePathFormat(path: string): boolean {
  return NAMESPACE_FORMAT.test(path) && !FORBIDDEN_SUFFIX.test(path)
}

/** Errors for the `path` of a group or user namespace; top-level paths may not mask instance routes. */
export function namespacePathErrors(path: string, options: { topLevel: boolean }): string[] {
  if (path === '') return ["can't be blank"]
  const errors = tooLong(path, MAX_PATH_LENGTH)
  if (!hasNamespacePathFormat(path)) return [...errors, NAMESPACE_FORMAT_MESSAGE]
  const reserved = options.topLevel ? isTopLevelRoute(path) : PROJECT_WILDCARD_ROUTES.has(path.toLowerCase())
  if (reserved) errors.push(`${path} is a reserved name`)
  return errors
}

/** Errors for a project's `path`; `.` and `..` would name directories, so they are refused as malformed. */
export function projectPathErrors(path: string): string[] {
  if (path === '') return ["can't be blank"]
  const errors = tooLong(path, MAX_PATH_LENGTH)
  if (!PROJECT_PATH_FORMAT.test(path) || FORBIDDEN_SUFFIX.test(path) || ONLY_DOTS.test(path)) {
    return [...errors, PROJECT_PATH_FORMAT_MESSAGE]
  }
  if (PROJECT_WILDCARD_ROUTES.has(path.toLowerCase())) errors.push(`${path} is a reserved name`)
  return errors
}

/** Errors for the `name` of a group or a project. */
export function nameErrors(name: string, kind: 'group' | 'project'): string[] {
  if (name.trim() === '') return ["can't be blank"]
  const errors = tooLong(name, MAX_NAME_LENGTH)
  const [format, message] = kind === 'group' ? [GROUP_NAME, GROUP_NAME_MESSAGE] : [PROJECT_NAME, PROJECT_NAME_MESSAGE]
  if (!format.test(name)) errors.push(message)
  return errors
}
