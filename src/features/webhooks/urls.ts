// A hook's URL: `{name}` placeholders filled from its URL variables (GL WebHooks::Hook#interpolated_url), and what a
// log may show of it.

/** GL WebHooks::Hook::VARIABLE_REFERENCE_RE. */
const VARIABLE_REFERENCE = /\{([A-Za-z]+[0-9]*(?:[._-][A-Za-z0-9]+)*)\}/g

export class InterpolationError extends Error {}

/** The names the URL refers to, in order (repeats included). */
export function urlVariableNames(url: string): string[] {
  return [...url.matchAll(VARIABLE_REFERENCE)].map((match) => match[1]!)
}

/** The URL with its placeholders filled; a missing variable is GitLab's InterpolationError. */
export function interpolatedUrl(url: string, variables: Record<string, string>): string {
  if (!url.includes('{')) return url
  return url.replace(VARIABLE_REFERENCE, (_match, name: string) => {
    if (!Object.hasOwn(variables, name)) throw new InterpolationError(`Invalid URL template. Missing key ${name}`)
    return variables[name]!
  })
}

/** GL Gitlab::UrlSanitizer.sanitize_masked_url: a user and password in the URL are shown as `*****`. */
export function maskedUrl(url: string): string {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#@]*)@/.exec(url)
  if (!match) return url
  const [user, password] = match[2]!.split(/:(.*)/s, 2)
  const masked = `${user ? '*****' : ''}${password !== undefined ? `:${password ? '*****' : ''}` : ''}`
  return `${match[1]}${masked}@${url.slice(match[0].length)}`
}
