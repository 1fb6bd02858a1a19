// GL Gitlab::GitRefValidator.validate: what a new branch may be called.

const EXPANDED_PREFIXES = ['refs/heads/', 'refs/remotes/', 'refs/tags/']

/** A name `git check-ref-format` accepts under refs/heads/ (a component's rules, then the whole name's). */
export function isWellFormedRefName(name: string): boolean {
  if (name === '' || name === '@' || name.endsWith('/') || name.endsWith('.') || name.startsWith('/')) return false
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return false
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false
  return name.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'))
}

/** GL GitRefValidator.validate: no `refs/…` or `-` prefix, not HEAD, and a well-formed ref name. */
export function isValidBranchName(name: string): boolean {
  if (EXPANDED_PREFIXES.some((prefix) => name.startsWith(prefix)) || name.startsWith('-')) return false
  if (name === 'HEAD') return false
  return isWellFormedRefName(name)
}
