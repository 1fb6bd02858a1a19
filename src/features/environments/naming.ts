import { createHash } from 'node:crypto'
import type { Tier } from './schemas.js'

/** GL Gitlab::Regex.environment_name_regex: these characters, not starting or ending with '/'. */
const NAME_PATTERN = /^[a-zA-Z0-9_${}. -]([a-zA-Z0-9_/${}. -]*[a-zA-Z0-9_${}. -])?$/
export const NAME_FORMAT_MESSAGE =
  "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'"

export function isValidEnvironmentName(name: string): boolean {
  return NAME_PATTERN.test(name)
}

/** GL Gitlab::Slug::Environment#suffix: the last six base-36 digits of the name's SHA-256, so a name always gets the same slug. */
function slugSuffix(name: string): string {
  const hex = createHash('sha256').update(name, 'utf8').digest('hex')
  return BigInt(`0x${hex}`).toString(36).slice(-6)
}

/**
 * GL Gitlab::Slug::Environment: lower-case letters, digits and '-', starting with a letter, at most 24 characters,
 * not ending with '-'. A name that had to change (or was too long) is cut to 17 characters and gets a suffix.
 */
export function environmentSlug(name: string): string {
  let slug = name.toLowerCase().replace(/[^a-z0-9]/g, '-')
  if (!/^[a-z]/.test(slug)) slug = `env-${slug}`
  slug = slug.replace(/-+/g, '-')
  if (slug.length > 24 || slug !== name) {
    slug = slug.slice(0, 17)
    if (!slug.endsWith('-')) slug += '-'
    return slug + slugSuffix(name)
  }
  return slug.endsWith('-') ? slug.slice(0, -1) : slug
}

/** GL Environment#guess_tier: the tier of an environment created without one, from words in its name. */
export function guessTier(name: string): Tier {
  if (/(dev|review|trunk)/i.test(name)) return 'development'
  if (/(test|tst|int|ac(ce|)pt|qa|qc|control|quality)/i.test(name)) return 'testing'
  if (/(st(a|)g|mod(e|)l|pre|demo|non)/i.test(name)) return 'staging'
  if (/(pr(o|)d|live)/i.test(name)) return 'production'
  return 'other'
}

// GL Gitlab::Utils::SanitizeNodeLink::UNSAFE_PROTOCOLS.
const UNSAFE_SCHEMES = new Set(['javascript', 'data', 'vbscript'])

/** GL Environment#safe_external_url: links that would run script are refused. */
export function externalUrlProblem(url: string): string | null {
  const scheme = /^\s*([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase()
  if (scheme && UNSAFE_SCHEMES.has(scheme)) return `${scheme} scheme is not allowed`
  // Addressable refuses an authority it cannot read, such as a port that is not a number.
  const authority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(url)?.[1]
  if (authority !== undefined) {
    const host = authority.slice(authority.lastIndexOf('@') + 1)
    const port = host.startsWith('[')
      ? host.slice(host.indexOf(']') + 1)
      : host.slice(host.lastIndexOf(':') === -1 ? host.length : host.lastIndexOf(':'))
    if ((host.startsWith('[') && !host.includes(']')) || (port !== '' && !/^:\d*$/.test(port))) return 'URI is invalid'
  }
  return null
}
