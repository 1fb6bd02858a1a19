import { isIP } from 'node:net'
import os from 'node:os'
import path from 'node:path'

/** scrypt's cost N for password digests (16 MiB of memory each); SVC_PASSWORD_HASH_COST may only lower it, for test suites. */
export const DEFAULT_PASSWORD_HASH_COST = 16384

export type Tier = 'free' | 'premium' | 'ultimate'
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'

export interface Config {
  host: string
  port: number
  /** Base URL used in links (pagination, web_url); defaults to http://host:port. */
  externalUrl: string
  dataDir: string
  /** postgres://… for PostgreSQL; absent means SQLite at <dataDir>/svc.sqlite3. */
  databaseUrl: string | null
  redisUrl: string | null
  tier: Tier
  rootPassword: string | null
  rootToken: string | null
  logLevel: LogLevel
  smtpUrl: string | null
  /** The address e-mail comes from (GitLab's `gitlab_email_from`); default gitlab@<host of the external URL>. */
  emailFrom: string
  /** The name shown beside it (GitLab's `gitlab_email_display_name`). */
  emailDisplayName: string
  /** Where replies go (GitLab's `gitlab_email_reply_to`); default noreply@<host of the external URL>. */
  emailReplyTo: string
  /** Where reCAPTCHA answers are verified (the v2 siteverify protocol). */
  recaptchaVerifyUrl: string
  /** Repository storages by name, in the order configured: absolute directories; `default` always exists. */
  storages: Record<string, string>
  /** How long a worker's claim on a job holds without renewal: a job whose worker died runs again this long after. */
  jobLeaseMs: number
  /** scrypt's cost N for new password digests: the default, or lower for test suites only. */
  passwordHashCost: number
  /** Processes serving HTTP under `svc serve`; 1 serves from the one process, more fork that many workers. */
  workers: number
  /** Proxies (addresses or CIDR ranges) whose X-Forwarded-For and X-Forwarded-Proto are believed; none by default. */
  trustedProxies: string[]
  /** Client addresses (or CIDR ranges) that may read /-/health, /-/metrics, /-/readiness and /-/liveness (GitLab's `monitoring.ip_whitelist`). */
  monitoringIpWhitelist: string[]
}

/** The most worker processes SVC_WORKERS may ask for. */
const MAX_WORKERS = 64

/** A bad environment variable; main.ts prints the message alone and exits non-zero. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>

function fail(name: string, expected: string, value: string): never {
  throw new ConfigError(`${name}=${JSON.stringify(value)} is invalid: expected ${expected}`)
}

function read(env: Env, name: string): string | null {
  const value = env[name]
  return value === undefined || value === '' ? null : value
}

function readUrl(env: Env, name: string, protocols: string[], expected: string): string | null {
  const value = read(env, name)
  if (value === null) return null
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return fail(name, expected, value)
  }
  if (!protocols.includes(url.protocol)) fail(name, expected, value)
  return value
}

function readEnum<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = read(env, name)
  if (value === null) return fallback
  if (!(allowed as readonly string[]).includes(value)) fail(name, `one of ${allowed.join(', ')}`, value)
  return value as T
}

/** SVC_STORAGES: `name=/path` pairs separated by commas, unique names, one of them `default` (as GitLab requires). */
function readStorages(env: Env, dataDir: string): Record<string, string> {
  const value = read(env, 'SVC_STORAGES')
  if (value === null) return { default: path.join(dataDir, 'repositories') }
  const expected = "comma-separated name=path pairs with unique names (letters, digits, '_', '-', '.'), one of them named default"
  const storages: Record<string, string> = {}
  for (const pair of value.split(',')) {
    const match = /^\s*([A-Za-z0-9_.-]+)\s*=\s*(\S(?:.*\S)?)\s*$/.exec(pair)
    if (!match || Object.hasOwn(storages, match[1])) fail('SVC_STORAGES', expected, value)
    storages[match[1]] = path.resolve(match[2])
  }
  if (!Object.hasOwn(storages, 'default')) fail('SVC_STORAGES', expected, value)
  return storages
}

/** One bare e-mail address, as the From and Reply-To settings take it. */
function readAddress(env: Env, name: string): string | null {
  const value = read(env, name)
  if (value !== null && !/^[^\s@<>",]+@[^\s@<>",]+$/.test(value)) fail(name, 'an e-mail address such as gitlab@example.com', value)
  return value
}

/** A comma-separated list of IPv4/IPv6 addresses or CIDR ranges (`10.0.0.0/8`, `::1/128`), each as `address/prefix`. */
function readAddressRanges(env: Env, name: string, fallback: string[]): string[] {
  const value = read(env, name)
  if (value === null) return fallback
  const ranges = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
  for (const range of ranges) {
    const [address, prefix, ...rest] = range.split('/')
    const family = isIP(address)
    const bits = family === 4 ? 32 : 128
    if (family === 0 || rest.length > 0 || (prefix !== undefined && (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits))) {
      fail(name, 'comma-separated IPv4 or IPv6 addresses or CIDR ranges such as 10.0.0.0/8,::1/128', value)
    }
  }
  return ranges
}

export function loadConfig(env: Env = process.env): Config {
  const host = read(env, 'SVC_HOST') ?? '127.0.0.1'
  const portText = read(env, 'SVC_PORT') ?? '8080'
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) fail('SVC_PORT', 'a port number from 0 to 65535', portText)
  const port = Number(portText)
  const externalUrl = readUrl(env, 'SVC_EXTERNAL_URL', ['http:', 'https:'], 'an http:// or https:// URL')
  const rootToken = read(env, 'SVC_ROOT_TOKEN')
  if (rootToken !== null && !/^[\x21-\x7e]{16,}$/.test(rootToken)) {
    fail('SVC_ROOT_TOKEN', 'at least 16 printable characters without spaces', rootToken)
  }
  const dataDir = path.resolve(read(env, 'SVC_DATA_DIR') ?? './data')
  const rootPassword = read(env, 'SVC_ROOT_PASSWORD')
  const leaseText = read(env, 'SVC_JOB_LEASE_MS') ?? '60000'
  if (!/^\d{1,9}$/.test(leaseText) || Number(leaseText) < 100) fail('SVC_JOB_LEASE_MS', 'a number of milliseconds from 100', leaseText)
  const hashCostText = read(env, 'SVC_PASSWORD_HASH_COST') ?? String(DEFAULT_PASSWORD_HASH_COST)
  const hashCost = Number(hashCostText)
  if (!/^\d{1,5}$/.test(hashCostText) || hashCost < 2 || hashCost > DEFAULT_PASSWORD_HASH_COST || (hashCost & (hashCost - 1)) !== 0) {
    fail('SVC_PASSWORD_HASH_COST', `a power of two from 2 to ${DEFAULT_PASSWORD_HASH_COST}`, hashCostText)
  }
  const workersText = read(env, 'SVC_WORKERS') ?? String(Math.min(os.availableParallelism(), MAX_WORKERS))
  if (!/^\d{1,2}$/.test(workersText) || Number(workersText) < 1 || Number(workersText) > MAX_WORKERS) {
    fail('SVC_WORKERS', `an integer from 1 to ${MAX_WORKERS}`, workersText)
  }
  if (rootPassword !== null && rootPassword.length < 8) fail('SVC_ROOT_PASSWORD', 'at least 8 characters', '***')
  const baseUrl = (externalUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '')
  const mailHost = new URL(baseUrl).hostname
  const emailDisplayName = read(env, 'SVC_EMAIL_DISPLAY_NAME') ?? 'GitLab'
  if (/[\r\n]/.test(emailDisplayName)) fail('SVC_EMAIL_DISPLAY_NAME', 'one line of text', emailDisplayName)
  return {
    host,
    port,
    externalUrl: baseUrl,
    dataDir,
    databaseUrl: readUrl(env, 'SVC_DATABASE_URL', ['postgres:', 'postgresql:'], 'a postgres:// URL'),
    redisUrl: readUrl(env, 'SVC_REDIS_URL', ['redis:', 'rediss:'], 'a redis:// URL'),
    tier: readEnum(env, 'SVC_TIER', ['free', 'premium', 'ultimate'] as const, 'free'),
    rootPassword,
    rootToken,
    logLevel: readEnum(env, 'SVC_LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    smtpUrl: readUrl(env, 'SVC_SMTP_URL', ['smtp:', 'smtps:'], 'an smtp:// or smtps:// URL'),
    emailFrom: readAddress(env, 'SVC_EMAIL_FROM') ?? `gitlab@${mailHost}`,
    emailDisplayName,
    emailReplyTo: readAddress(env, 'SVC_EMAIL_REPLY_TO') ?? `noreply@${mailHost}`,
    recaptchaVerifyUrl:
      readUrl(env, 'SVC_RECAPTCHA_VERIFY_URL', ['http:', 'https:'], 'an http:// or https:// URL') ??
      'https://www.google.com/recaptcha/api/siteverify',
    storages: readStorages(env, dataDir),
    jobLeaseMs: Number(leaseText),
    passwordHashCost: hashCost,
    workers: Number(workersText),
    trustedProxies: readAddressRanges(env, 'SVC_TRUSTED_PROXIES', []),
    monitoringIpWhitelist: readAddressRanges(env, 'SVC_MONITORING_IP_WHITELIST', ['127.0.0.0/8', '::1/128']),
  }
}
