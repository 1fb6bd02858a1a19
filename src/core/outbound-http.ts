import { Buffer } from 'node:buffer'
import { lookup as lookupHost } from 'node:dns/promises'
import http from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { networkInterfaces } from 'node:os'
import { performance } from 'node:perf_hooks'
import type { Settings } from './settings.js'

/**
 * The one way svc sends an HTTP request to an address a user gave, guarded against server-side request forgery the
 * way GitLab guards its webhooks (gitlab-http's UrlBlocker and NewConnectionAdapter, WebHookService).
 */

export interface OutboundRequest {
  url: string // http: or https: only
  method: 'POST' | 'GET'
  headers: Record<string, string>
  body?: string
  timeoutMs: number // whole request, connect to last byte
  /** Loopback, private, link-local, unique-local, shared, 0.0.0.0/::, IPv4-mapped … are allowed only when true. */
  allowLocal: boolean
  /** GitLab's outbound_local_requests_whitelist entries: IPs, CIDR ranges, hostnames, hosts with :port. */
  allowlist: string[]
  verifyTls: boolean // enable_ssl_verification
  /** Bytes of the response body kept (rest read and dropped). */
  maxResponseBytes: number
  /** `dns_rebinding_protection_enabled`: connect to the address that was checked. Default true; false connects by name, as GitLab then does. */
  dnsRebindingProtection?: boolean
}

export interface OutboundResponse {
  status: number
  /** Names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>
  body: string
  elapsedMs: number
}

/**
 * A request svc will not send (bad URL, blocked address), in GitLab's words, e.g. "Requests to the local network are
 * not allowed". GitLab shows them as `URL is blocked: …` when sending and `is blocked: …` on the URL field when saving.
 */
export class OutboundRefused extends Error {
  override name = 'OutboundRefused'
}

/** Sent but failed: connection refused, TLS error, timeout, a response too large…, in the words GitLab logs. */
export class OutboundFailed extends Error {
  override name = 'OutboundFailed'
}

export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/** Resolves a host name to every address the OS would give, in its order. */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>

export interface OutboundOptions {
  /** The resolver; the OS's (getaddrinfo, /etc/hosts included) unless given. */
  resolve?: ResolveHost
}

/** What GitLab reads a response up to before giving up (max_http_response_size_limit's default, 100 MiB). */
export const OUTBOUND_RESPONSE_READ_LIMIT_BYTES = 100 * 1024 * 1024

const SCHEMES = ['http', 'https']
// Ruby's Net::HTTP words for the two kinds of timeout (Net::OpenTimeout, Net::ReadTimeout).
const OPEN_TIMEOUT = 'execution expired'
const READ_TIMEOUT = 'Net::ReadTimeout with #<TCPSocket:(closed)>'

const resolveWithOs: ResolveHost = async (hostname) =>
  (await lookupHost(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }))

/** The outbound rules of a kind of hook from the instance settings (GitLab's WebHook#allow_local_requests?). */
export function outboundRulesFor(
  settings: Pick<
    Settings,
    | 'allow_local_requests_from_system_hooks'
    | 'allow_local_requests_from_web_hooks_and_services'
    | 'dns_rebinding_protection_enabled'
    | 'outbound_local_requests_whitelist'
  >,
  hook: 'system' | 'web',
): Pick<OutboundRequest, 'allowLocal' | 'allowlist' | 'dnsRebindingProtection'> {
  return {
    allowLocal:
      hook === 'system' ? settings.allow_local_requests_from_system_hooks : settings.allow_local_requests_from_web_hooks_and_services,
    allowlist: settings.outbound_local_requests_whitelist,
    dnsRebindingProtection: settings.dns_rebinding_protection_enabled,
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Addresses

interface Ip {
  version: 4 | 6
  value: bigint
}

interface IpRange {
  version: 4 | 6
  base: bigint
  prefix: number
}

function ipv4Value(text: string): bigint {
  return text.split('.').reduce((sum, part) => (sum << 8n) | BigInt(Number(part)), 0n)
}

function ipv6Value(text: string): bigint {
  let groups = text
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(groups)
  if (dotted) {
    const v4 = ipv4Value(dotted[1])
    groups = `${groups.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`
  }
  const [head, tail] = groups.includes('::') ? groups.split('::') : [groups, undefined]
  const headParts = head === '' ? [] : head.split(':')
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':')
  const parts = tail === undefined ? headParts : [...headParts, ...Array(8 - headParts.length - tailParts.length).fill('0'), ...tailParts]
  return parts.reduce((sum, part) => (sum << 16n) | BigInt(parseInt(part, 16)), 0n)
}

/** A literal IP address (IPv6 with or without brackets), or null. */
function parseIp(text: string): Ip | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
  const version = isIP(bare)
  if (version === 4) return { version: 4, value: ipv4Value(bare) }
  if (version === 6) return { version: 6, value: ipv6Value(bare) }
  return null
}

function rangeOf(ip: Ip, prefix: number): IpRange {
  const bits = ip.version === 4 ? 32 : 128
  const hostBits = BigInt(bits - prefix)
  return { version: ip.version, base: (ip.value >> hostBits) << hostBits, prefix }
}

/** What Ruby's IPAddr.new reads: an address, `address/prefix`, or an IPv4 `address/netmask`; else null. */
function parseRange(text: string): IpRange | null {
  const slash = text.indexOf('/')
  const ip = parseIp(slash === -1 ? text : text.slice(0, slash))
  if (!ip) return null
  const bits = ip.version === 4 ? 32 : 128
  if (slash === -1) return rangeOf(ip, bits)
  const mask = text.slice(slash + 1)
  if (/^\d{1,3}$/.test(mask)) return Number(mask) <= bits ? rangeOf(ip, Number(mask)) : null
  const netmask = ip.version === 4 ? parseIp(mask) : null
  if (netmask?.version !== 4) return null
  const prefix = netmask.value.toString(2).padStart(32, '0').indexOf('0')
  const length = prefix === -1 ? 32 : prefix
  return netmask.value === ((0xffffffffn << BigInt(32 - length)) & 0xffffffffn) ? rangeOf(ip, length) : null
}

function inRange(ip: Ip, range: IpRange): boolean {
  return ip.version === range.version && rangeOf(ip, range.prefix).base === range.base
}

function ranges(...texts: string[]): IpRange[] {
  return texts.map((text) => parseRange(text) as IpRange)
}

const LOOPBACK = ranges('127.0.0.0/8', '::1/128')
const LOCAL_NETWORK = ranges('10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fec0::/10', 'fc00::/7')
const LINK_LOCAL = ranges('169.254.0.0/16', 'fe80::/10')
const SHARED_ADDRESS_SPACE = ranges('100.64.0.0/10')
const LIMITED_BROADCAST = ranges('255.255.255.255/32')
// "This host": GitLab lists 0.0.0.0 itself; the rest of 0.0.0.0/8 is not routable and refused the same way.
const THIS_HOST = ranges('0.0.0.0/8', '::/128')
// IPv6 forms that carry an IPv4 address: mapped (::ffff:a.b.c.d, as GitLab), compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d).
const IPV4_CARRIERS = ranges('::ffff:0:0/96', '::/96', '64:ff9b::/96')

/** The address as the checks see it: an IPv6 form that carries an IPv4 address is that IPv4 address. */
function unwrapIpv4(ip: Ip): Ip {
  if (ip.version === 6 && ip.value > 1n && IPV4_CARRIERS.some((range) => inRange(ip, range))) {
    return { version: 4, value: ip.value & 0xffffffffn }
  }
  return ip
}

function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.')
}

/** This machine's addresses: GitLab's "localhost" is any of them (Socket.ip_address_list), and 0.0.0.0 and ::. */
function ownAddresses(): Ip[] {
  const own = ['127.0.0.1', '::1']
  for (const entries of Object.values(networkInterfaces())) for (const entry of entries ?? []) own.push(entry.address)
  return own.map((text) => parseIp(text.replace(/%.*$/, ''))).filter((ip): ip is Ip => ip !== null)
}

/** GitLab's validate_local_request: the first rule any resolved address breaks, in GitLab's order and words. */
function refuseLocal(addresses: Ip[]) {
  const own = ownAddresses()
  const isAny = (matches: (ip: Ip) => boolean) => addresses.some(matches)
  const inAny = (list: IpRange[]) => isAny((ip) => list.some((range) => inRange(ip, range)))
  if (isAny((ip) => own.some((mine) => mine.version === ip.version && mine.value === ip.value)) || inAny(THIS_HOST)) {
    throw new OutboundRefused('Requests to localhost are not allowed')
  }
  if (inAny(LOOPBACK)) throw new OutboundRefused('Requests to loopback addresses are not allowed')
  if (inAny(LOCAL_NETWORK)) throw new OutboundRefused('Requests to the local network are not allowed')
  if (inAny(LINK_LOCAL)) throw new OutboundRefused('Requests to the link local network are not allowed')
  if (inAny(SHARED_ADDRESS_SPACE)) throw new OutboundRefused('Requests to the shared address space are not allowed')
  if (inAny(LIMITED_BROADCAST)) throw new OutboundRefused('Requests to the limited broadcast address are not allowed')
}

// ---------------------------------------------------------------------------------------------------------------
// The allowlist (GitLab's UrlAllowlist)

interface AllowlistEntry {
  range: IpRange | null
  domain: string
  port: number | null
}

function parseAllowlist(entries: string[]): AllowlistEntry[] {
  return entries.map((entry) => {
    const match = /^\[(.*)\]:(\d+)$/.exec(entry) ?? /^([^:]+):(\d+)$/.exec(entry)
    const address = match ? match[1] : entry
    const port = match ? Number(match[2]) : null
    return { range: parseRange(address), domain: address.toLowerCase(), port }
  })
}

function allowsDomain(allowlist: AllowlistEntry[], hostname: string, port: number): boolean {
  return allowlist.some((entry) => !entry.range && entry.domain === hostname && (entry.port === null || entry.port === port))
}

function allowsIp(allowlist: AllowlistEntry[], ip: Ip, port: number): boolean {
  return allowlist.some((entry) => entry.range && inRange(ip, entry.range) && (entry.port === null || entry.port === port))
}

// ---------------------------------------------------------------------------------------------------------------
// The URL and the address it may go to

interface Target {
  url: URL
  secure: boolean
  /** Lower case, IPv6 without brackets, IPv4 in dotted form whatever form it was written in. */
  hostname: string
  port: number
}

function parseTarget(text: string): Target {
  // The URL parser would drop line breaks silently; GitLab refuses them.
  if (/[\r\n]/.test(text)) throw new OutboundRefused('URI is invalid')
  const scheme = /^([a-zA-Z][a-zA-Z\d+.-]*):/.exec(text.trim())?.[1].toLowerCase()
  if (!scheme || !SCHEMES.includes(scheme)) throw new OutboundRefused(`Only allowed schemes are ${SCHEMES.join(', ')}`)
  let url: URL
  try {
    // Decimal, octal, hex and short IPv4 forms come out dotted here, as the OS's inet_aton would read them.
    url = new URL(text)
  } catch {
    throw new OutboundRefused('URI is invalid')
  }
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  if (!hostname) throw new OutboundRefused('URI is invalid')
  if (!isIP(hostname) && !/^[\p{L}\p{N}]/u.test(hostname)) throw new OutboundRefused('Hostname or IP address invalid')
  const secure = url.protocol === 'https:'
  return { url, secure, hostname, port: url.port ? Number(url.port) : secure ? 443 : 80 }
}

/** Names under `localhost` are loopback whatever a resolver says (RFC 6761). */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.replace(/\.$/, '')
  return name === 'localhost' || name.endsWith('.localhost')
}

/** Every address the host stands for, as text, or null when it cannot be resolved. */
async function resolveTarget(target: Target, resolve: ResolveHost): Promise<string[] | null> {
  if (isIP(target.hostname)) return [target.hostname]
  if (isLocalhostName(target.hostname)) return ['127.0.0.1', '::1']
  try {
    const addresses = (await resolve(target.hostname)).map((entry) => entry.address)
    return addresses.length > 0 && addresses.every((address) => isIP(address)) ? addresses : null
  } catch {
    return null
  }
}

interface Rules {
  allowLocal: boolean
  allowlist: string[]
  dnsRebindingProtection: boolean
}

/**
 * GitLab's UrlBlocker.validate_url_with_proxy! after the URL itself: the address to connect to (every resolved address
 * checked, the first one pinned), or null to connect by name. Throws OutboundRefused.
 */
async function screenTarget(target: Target, rules: Rules, resolve: ResolveHost): Promise<string | null> {
  if (rules.allowLocal && !rules.dnsRebindingProtection) return null
  const allowlist = parseAllowlist(rules.allowlist)
  const domainAllowed = allowsDomain(allowlist, target.hostname, target.port)
  const resolved = await resolveTarget(target, resolve)
  if (!resolved) {
    if (domainAllowed || !rules.dnsRebindingProtection) return null
    throw new OutboundRefused('Host cannot be resolved or invalid')
  }
  if (domainAllowed) return null
  const addresses = resolved.map((text) => unwrapIpv4(parseIp(text) as Ip))
  // GitLab connects to the first address, an IPv4-mapped one as plain IPv4.
  const first = addresses[0].version === 4 ? formatIpv4(addresses[0].value) : resolved[0]
  const pinned = rules.dnsRebindingProtection ? first : null
  if (allowsIp(allowlist, addresses[0], target.port)) return pinned
  if (!rules.allowLocal) refuseLocal(addresses)
  return pinned
}

/** GitLab's limit on a lookup (UrlBlocker::GETADDRINFO_TIMEOUT_SECONDS) when no request timeout is shorter. */
export const OUTBOUND_LOOKUP_TIMEOUT_MS = 15_000

/** screenTarget, refused in Ruby's timeout words when the resolver does not answer in time: nothing was sent. */
async function screenWithin(target: Target, rules: Rules, resolve: ResolveHost, timeoutMs: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OutboundRefused(OPEN_TIMEOUT)), timeoutMs)
  })
  try {
    return await Promise.race([screenTarget(target, rules, resolve), expired])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The checks of sendOutbound without sending, as GitLab validates a hook URL when it is saved: a host that cannot be
 * resolved yet is accepted there (it is checked again when sending). Throws OutboundRefused.
 */
export async function checkOutboundUrl(
  url: string,
  options: { allowLocal: boolean; allowlist: string[] },
  outbound: OutboundOptions = {},
): Promise<void> {
  const target = parseTarget(url)
  const rules = { ...options, dnsRebindingProtection: false }
  await screenWithin(target, rules, outbound.resolve ?? resolveWithOs, OUTBOUND_LOOKUP_TIMEOUT_MS)
}

// ---------------------------------------------------------------------------------------------------------------
// Sending

/** CGI.unescape, as WebHookService reads the user and password of a URL: `+` is a space, bad escapes stay as they are. */
function unescapeUserinfo(text: string): string {
  const bytes: number[] = []
  const plain = text.replace(/\+/g, ' ')
  for (let index = 0; index < plain.length; index++) {
    const escape = /^%[\da-fA-F]{2}/.exec(plain.slice(index, index + 3))
    if (escape) {
      bytes.push(parseInt(plain.slice(index + 1, index + 3), 16))
      index += 2
    } else bytes.push(...Buffer.from(plain[index]))
  }
  return Buffer.from(bytes).toString('utf8')
}

/** Hands net.connect the one address that was checked, whatever it asks for. */
function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address)
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }])
    else callback(null, address, family)
  }
}

/** net.connect's lookup through an injected resolver, for connecting by name. */
function resolverLookup(resolve: ResolveHost): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 4)
        else if (options.all) callback(null, addresses)
        else callback(null, addresses[0].address, addresses[0].family)
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    )
  }
}

class OutboundTimeout extends Error {}

const CONNECT_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'Connection refused',
  ECONNRESET: 'Connection reset by peer',
  EHOSTUNREACH: 'No route to host',
  ENETUNREACH: 'Network is unreachable',
  ETIMEDOUT: 'Connection timed out',
  EADDRNOTAVAIL: 'Cannot assign requested address',
  EACCES: 'Permission denied',
  EINVAL: 'Invalid argument',
}

const RESOLVER_ERRORS: Record<string, string> = {
  ENOTFOUND: 'Name or service not known',
  EAI_AGAIN: 'Temporary failure in name resolution',
}

const CERTIFICATE_ERRORS = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
])

/** What went wrong, in the words of Ruby's Net::HTTP and OpenSSL that GitLab's hook logs show. */
function failureOf(
  error: NodeJS.ErrnoException & { reason?: string },
  target: Target,
  connectTo: string,
  connected: boolean,
): OutboundFailed {
  if (error instanceof OutboundFailed) return error
  if (error instanceof OutboundTimeout) return new OutboundFailed(connected ? READ_TIMEOUT : OPEN_TIMEOUT)
  const code = error.code ?? ''
  const opening = `Failed to open TCP connection to ${connectTo}:${target.port}`
  if (error.syscall === 'connect' && CONNECT_ERRORS[code]) {
    return new OutboundFailed(`${opening} (${CONNECT_ERRORS[code]} - connect(2) for "${connectTo}" port ${target.port})`)
  }
  if (RESOLVER_ERRORS[code]) return new OutboundFailed(`${opening} (getaddrinfo: ${RESOLVER_ERRORS[code]})`)
  const ssl = `SSL_connect returned=1 errno=0 peeraddr=${connectTo}:${target.port} state=error`
  if (CERTIFICATE_ERRORS.has(code)) return new OutboundFailed(`${ssl}: certificate verify failed (${error.message})`)
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return new OutboundFailed(`hostname "${target.hostname}" does not match the server certificate`)
  // OpenSSL's own errors reach Node as EPROTO or ERR_SSL_*, the reason inside `…:SSL routines:function:reason:…`.
  const sslReason = /SSL routines:[^:]*:([^:]+)/.exec(error.message)?.[1]
  if (sslReason || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) {
    return new OutboundFailed(`${ssl}: ${sslReason ?? error.reason ?? error.message}`)
  }
  if (code === 'HPE_HEADER_OVERFLOW') return new OutboundFailed('Response headers too large')
  if (code === 'HPE_INVALID_HEADER_TOKEN') return new OutboundFailed('wrong header line format')
  if (code.startsWith('HPE_')) return new OutboundFailed('wrong status line')
  if (code === 'ECONNRESET' && (error.message === 'socket hang up' || error.message === 'aborted')) {
    return new OutboundFailed('end of file reached')
  }
  if (CONNECT_ERRORS[code]) return new OutboundFailed(CONNECT_ERRORS[code])
  return new OutboundFailed(error.message)
}

/** The first `limit` bytes as text, without a character cut in two. */
function textOfFirstBytes(bytes: Buffer, limit: number): string {
  let end = Math.min(bytes.length, Math.max(0, limit))
  if (end < bytes.length) while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--
  return bytes.subarray(0, end).toString('utf8')
}

/** The URL's user and password as Basic auth, the URL without them (WebHookService#make_request_with_auth). */
function credentialsOf(url: URL): string | null {
  if (url.username === '' && url.password === '') return null
  const credentials = `${unescapeUserinfo(url.username)}:${unescapeUserinfo(url.password)}`
  return `Basic ${Buffer.from(credentials).toString('base64')}`
}

function exchange(
  target: Target,
  request: OutboundRequest,
  address: string | null,
  resolve: ResolveHost | null,
  startedAt: number,
): Promise<OutboundResponse> {
  const headers: Record<string, string> = { ...request.headers }
  const authorization = credentialsOf(target.url)
  if (authorization) {
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'authorization') delete headers[name]
    headers.Authorization = authorization
  }
  if (request.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(request.body))
  const options: https.RequestOptions = {
    method: request.method,
    host: target.hostname,
    port: target.port,
    path: `${target.url.pathname}${target.url.search}`,
    headers,
    // A fresh connection each time: a pooled one may lead to an address that was checked for another request.
    agent: false,
    rejectUnauthorized: request.verifyTls,
  }
  // Pinned, the Host header and TLS SNI keep the name while the socket goes to the checked address.
  if (address) options.lookup = pinnedLookup(address)
  else if (resolve) options.lookup = resolverLookup(resolve)
  const connectTo = address ?? target.hostname

  return new Promise<OutboundResponse>((done, fail) => {
    let connected = false
    let settled = false
    let req: http.ClientRequest
    const finish = (outcome: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      outcome()
    }
    const failWith = (error: Error) => {
      finish(() => fail(failureOf(error, target, connectTo, connected)))
      req?.destroy()
    }
    const timer = setTimeout(() => req?.destroy(new OutboundTimeout()), Math.max(0, request.timeoutMs - (performance.now() - startedAt)))
    try {
      req = (target.secure ? https : http).request(options)
    } catch (error) {
      // Node refuses a header it cannot send (a line break in a value, say) before anything goes out.
      finish(() => fail(new OutboundRefused((error as Error).message)))
      return
    }
    req.on('socket', (socket) => socket.once(target.secure ? 'secureConnect' : 'connect', () => (connected = true)))
    req.on('error', failWith)
    req.on('response', (res) => {
      const kept: Buffer[] = []
      let keptBytes = 0
      let readBytes = 0
      res.on('data', (chunk: Buffer) => {
        readBytes += chunk.length
        if (readBytes > OUTBOUND_RESPONSE_READ_LIMIT_BYTES) {
          failWith(new OutboundFailed(`Response body is larger than ${OUTBOUND_RESPONSE_READ_LIMIT_BYTES} bytes`))
          return
        }
        if (keptBytes <= request.maxResponseBytes) {
          kept.push(chunk)
          keptBytes += chunk.length
        }
      })
      res.on('error', failWith)
      res.on('end', () => {
        const responseHeaders: Record<string, string> = {}
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value
        }
        finish(() =>
          done({
            status: res.statusCode ?? 0,
            headers: responseHeaders,
            body: textOfFirstBytes(Buffer.concat(kept), request.maxResponseBytes),
            elapsedMs: performance.now() - startedAt,
          }),
        )
      })
      res.on('close', () => {
        if (!res.complete) failWith(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }))
      })
    })
    req.end(request.body)
  })
}

/**
 * Sends the request if its URL and every address its host resolves to pass GitLab's checks, to the first address
 * (pinned unless `dnsRebindingProtection` is false); redirects are answered, never followed. Throws OutboundRefused when
 * nothing was sent, OutboundFailed when the exchange failed.
 */
export async function sendOutbound(request: OutboundRequest, outbound: OutboundOptions = {}): Promise<OutboundResponse> {
  const startedAt = performance.now()
  const target = parseTarget(request.url)
  const rules: Rules = {
    allowLocal: request.allowLocal,
    allowlist: request.allowlist,
    dnsRebindingProtection: request.dnsRebindingProtection ?? true,
  }
  const resolve = outbound.resolve ?? resolveWithOs
  const address = await screenWithin(target, rules, resolve, Math.min(request.timeoutMs, OUTBOUND_LOOKUP_TIMEOUT_MS))
  return exchange(target, request, address, outbound.resolve ? resolve : null, startedAt)
}
