import type { IncomingMessage } from 'node:http'
import { BlockList, isIP } from 'node:net'

/** A set of IPv4 and IPv6 ranges (`10.0.0.0/8`, `::1`); an IPv4 range also holds its IPv4-mapped IPv6 addresses. */
export class AddressRanges {
  private readonly list = new BlockList()
  readonly isEmpty: boolean

  /** `ranges` as the configuration gives them: already checked to be addresses with an optional prefix length. */
  constructor(ranges: readonly string[]) {
    this.isEmpty = ranges.length === 0
    for (const range of ranges) {
      const [address, prefix] = range.split('/')
      const family = isIP(address) === 4 ? 'ipv4' : 'ipv6'
      this.list.addSubnet(address, prefix === undefined ? (family === 'ipv4' ? 32 : 128) : Number(prefix), family)
    }
  }

  includes(address: string | undefined): boolean {
    if (address === undefined) return false
    const family = isIP(address)
    return family !== 0 && this.list.check(address, family === 4 ? 'ipv4' : 'ipv6')
  }
}

/**
 * Fastify's `trustProxy`: the client address is the right-most X-Forwarded-For entry that is not a trusted proxy,
 * believed only when the connecting peer is one (proxy-addr's walk); X-Forwarded-Proto and X-Forwarded-Host are read
 * only from such a peer too. Without trusted proxies the peer is the client and the headers are ignored.
 */
export function trustProxyOption(trusted: AddressRanges): false | ((address: string) => boolean) {
  return trusted.isEmpty ? false : (address) => trusted.includes(address)
}

/**
 * Drops what is not an address from X-Forwarded-For sent by a trusted proxy, as Rails does (RemoteIp#ips_from), so
 * that request.ip is always an address: proxy-addr would stop at such an entry and answer it as the client.
 */
export function dropUnparsableForwardedFor(request: IncomingMessage, trusted: AddressRanges): void {
  const given = request.headers['x-forwarded-for']
  const header = Array.isArray(given) ? given.join(',') : given
  if (header === undefined || trusted.isEmpty || !trusted.includes(request.socket.remoteAddress)) return
  const entries = header.split(',').map((entry) => entry.trim())
  if (entries.every((entry) => isIP(entry) !== 0)) return
  const addresses = entries.filter((entry) => isIP(entry) !== 0)
  if (addresses.length === 0) delete request.headers['x-forwarded-for']
  else request.headers['x-forwarded-for'] = addresses.join(', ')
}
