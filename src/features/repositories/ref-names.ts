// What a branch or tag may be called: git-check-ref-format(1), and GL Gitlab::GitRefValidator over it.

const FORBIDDEN_IN_REF = /[\0-\x20\x7f~^:?*[\\]/

// GL GitRefValidator::EXPANDED_PREFIXES and DISALLOWED_PREFIXES.
const REFUSED_PREFIXES = ['refs/heads/', 'refs/remotes/', '-']

/**
 * A full ref name (`refs/heads/main`) as git-check-ref-format(1) takes it: no control characters, space, `~^:?*[\`,
 * `..` or `@{`; no empty component, none starting with `.` or ending with `.lock`; no `.` at the end.
 */
export function isWellFormedRef(ref: string): boolean {
  if (FORBIDDEN_IN_REF.test(ref) || ref.includes('..') || ref.includes('@{') || ref.endsWith('.')) return false
  return ref.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'))
}

/** A name that reads as exactly one ref under refs/heads/ or refs/tags/: well formed there, and no option to git. */
export function isReadableRefName(name: string): boolean {
  return !name.startsWith('-') && isWellFormedRef(`refs/heads/${name}`)
}

/**
 * GL Gitlab::GitRefValidator.validate: what a new branch or tag may be called. Not `HEAD`, no `refs/heads/`,
 * `refs/remotes/` or `-` prefix, and a well-formed ref under refs/heads/. `@` is refused too: git reads it as HEAD.
 */
export function isValidRefName(name: string): boolean {
  if (name === 'HEAD' || name === '@' || REFUSED_PREFIXES.some((prefix) => name.startsWith(prefix))) return false
  return isWellFormedRef(`refs/heads/${name}`)
}
