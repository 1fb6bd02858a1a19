import { X509Certificate } from 'node:crypto'
import { isIP } from 'node:net'

/** GL Gitlab::Regex.environment_scope_regex and its message. */
const ENVIRONMENT_SCOPE_PATTERN = /^[a-zA-Z0-9_/${}. \-*]+$/
export const ENVIRONMENT_SCOPE_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces"

/** GL Gitlab::Regex.kubernetes_namespace_regex and its message. */
const NAMESPACE_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
const NAMESPACE_MESSAGE = "can contain only lowercase letters, digits, and '-'. Must start with a letter, and cannot end with '-'"
/** GL Clusters::Platforms::Kubernetes::RESERVED_NAMESPACES. */
const RESERVED_NAMESPACES = new Set(['gitlab-managed-apps'])

export function environmentScopeProblem(scope: string): string | null {
  return ENVIRONMENT_SCOPE_PATTERN.test(scope) ? null : ENVIRONMENT_SCOPE_MESSAGE
}

/** GL Clusters::Platforms::Kubernetes `validates :namespace` (blank allowed), after it was lower-cased. */
export function namespaceProblems(namespace: string | null): string[] {
  if (namespace === null || namespace.trim() === '') return []
  const problems: string[] = []
  if (namespace.length > 63) problems.push('is too long (maximum is 63 characters)')
  if (!NAMESPACE_PATTERN.test(namespace)) problems.push(NAMESPACE_MESSAGE)
  if (RESERVED_NAMESPACES.has(namespace)) problems.push('is reserved')
  return problems
}

/** GL HostnameValidator on `domain` (blank allowed, numeric host names allowed). */
export function domainProblem(domain: string | null): string | null {
  if (domain === null || domain.trim() === '') return null
  // The message carries a backslash, as GitLab's does.
  if (!/^[a-zA-Z0-9.-]+$/.test(domain)) return 'contains invalid characters (valid characters: [a-z0-9\\-])'
  return null
}

function isLocalhost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  if (isIP(host) === 4) return host.startsWith('127.') || host === '0.0.0.0'
  return host === '::1' || host === '::'
}

function isLocalNetwork(host: string): boolean {
  if (isIP(host) === 4) {
    const [a, b] = host.split('.').map(Number)
    return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)
  }
  return isIP(host) === 6 && /^f[cd]/i.test(host)
}

function isLinkLocal(host: string): boolean {
  if (isIP(host) === 4) return host.startsWith('169.254.')
  return isIP(host) === 6 && /^fe[89ab]/i.test(host)
}

/**
 * GL PublicUrlValidator on the Kubernetes API URL (Gitlab::UrlBlocker without DNS): http or https, readable,
 * and not pointing at this machine or a private network.
 */
export function apiUrlProblem(value: string): string | null {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase()
  if (scheme !== 'http' && scheme !== 'https') return 'is blocked: Only allowed schemes are http, https'
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'must be a valid URL'
  }
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (host === '') return 'must be a valid URL'
  if (isLocalhost(host)) return 'is blocked: Requests to localhost are not allowed'
  if (isLinkLocal(host)) return 'is blocked: Requests to the link local network are not allowed'
  if (isLocalNetwork(host)) return 'is blocked: Requests to the local network are not allowed'
  return null
}

/** GL CertificateValidator on `ca_cert` (blank allowed). */
export function caCertProblem(pem: string | null): string | null {
  if (pem === null || pem === '') return null
  try {
    new X509Certificate(pem)
    return null
  } catch {
    return 'must be a valid PEM certificate'
  }
}
