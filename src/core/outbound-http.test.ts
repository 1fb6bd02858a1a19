import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import net, { type AddressInfo } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TLSSocket } from 'node:tls'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  checkOutboundUrl,
  OUTBOUND_RESPONSE_READ_LIMIT_BYTES,
  OutboundFailed,
  OutboundRefused,
  outboundRulesFor,
  sendOutbound,
  type OutboundRequest,
  type ResolveHost,
} from './outbound-http.js'
import { defaultSettings } from './settings.js'

interface Received {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
  body: string
  servername: string | null
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void

interface Receiver {
  port: number
  received: Received[]
  server: net.Server
}

const closers: (() => Promise<void>)[] = []

function listen(server: net.Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)))
}

function track(server: http.Server | net.Server) {
  closers.push(
    () =>
      new Promise((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
}

function recording(received: Received[], handler: Handler): Handler {
  return (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const servername = (req.socket as TLSSocket).servername
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        servername: typeof servername === 'string' ? servername : null,
      })
      handler(req, res)
    })
  }
}

const answerOk: Handler = (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain' })
  res.end('ok')
}

async function startReceiver(handler: Handler = answerOk, host = '127.0.0.1'): Promise<Receiver> {
  const received: Received[] = []
  const server = http.createServer(recording(received, handler))
  const port = await listen(server, host)
  track(server)
  return { port, received, server }
}

let tlsKey: string
let tlsCert: string

async function startTlsReceiver(handler: Handler = answerOk): Promise<Receiver> {
  const received: Received[] = []
  const server = https.createServer({ key: tlsKey, cert: tlsCert }, recording(received, handler))
  const port = await listen(server, '127.0.0.1')
  track(server)
  return { port, received, server }
}

/** A TCP server that accepts connections and never says anything. */
async function startSilentServer(): Promise<number> {
  const server = net.createServer(() => {})
  const port = await listen(server, '127.0.0.1')
  const sockets = new Set<net.Socket>()
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
  })
  closers.push(
    () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  )
  return port
}

/** A TCP server that answers every connection with the given bytes, then closes it. */
async function startRawServer(answer: string): Promise<number> {
  const server = net.createServer((socket) => {
    socket.on('error', () => {})
    socket.once('data', () => socket.end(answer))
  })
  const port = await listen(server, '127.0.0.1')
  track(server)
  return port
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer()
  const port = await listen(server, '127.0.0.1')
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** A resolver that answers each lookup with the next list of addresses (the last one repeats), counting the lookups. */
function scriptedResolver(...answers: string[][]): ResolveHost & { calls: string[] } {
  const calls: string[] = []
  const resolve = async (hostname: string) => {
    calls.push(hostname)
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)]
    return answer.map((address) => ({ address, family: net.isIP(address) as 4 | 6 }))
  }
  return Object.assign(resolve, { calls })
}

const failingResolver: ResolveHost = async (hostname) => {
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
}

function outbound(url: string, overrides: Partial<OutboundRequest> = {}): OutboundRequest {
  return {
    url,
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Gitlab-Event': 'Push Hook' },
    body: '{"object_kind":"push"}',
    timeoutMs: 10_000,
    allowLocal: true,
    allowlist: [],
    verifyTls: true,
    maxResponseBytes: 8192,
    ...overrides,
  }
}

/** The message of the error of that class the promise ends with. */
async function messageOf(kind: typeof OutboundRefused | typeof OutboundFailed, promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (error instanceof kind) return error.message
    throw error
  }
  throw new Error(`expected ${kind.name}, the request went through`)
}

const refusal = (promise: Promise<unknown>) => messageOf(OutboundRefused, promise)
const failure = (promise: Promise<unknown>) => messageOf(OutboundFailed, promise)

const blocked = { allowLocal: false, allowlist: [] }

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-outbound-'))
  try {
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'],
        ...['-subj', '/CN=hooks.test', '-addext', 'subjectAltName=DNS:hooks.test,IP:127.0.0.1'],
        ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      ],
      { stdio: 'ignore' },
    )
    tlsKey = readFileSync(join(dir, 'key.pem'), 'utf8')
    tlsCert = readFileSync(join(dir, 'cert.pem'), 'utf8')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

afterAll(async () => {
  await Promise.all(closers.map((close) => close()))
})

describe('the URL', () => {
  test.each(['ftp://example.com/hook', 'file:///etc/passwd', 'javascript:alert(1)', 'gopher://127.0.0.1:70/', 'example.com/hook', ''])(
    '%j is refused: only http and https',
    async (url) => {
      expect(await refusal(checkOutboundUrl(url, blocked))).toBe('Only allowed schemes are http, https')
      expect(await refusal(sendOutbound(outbound(url)))).toBe('Only allowed schemes are http, https')
    },
  )

  test.each([
    'http://exa mple.com/',
    'http://example.com:65536/',
    'http://example.com/a\nX-Injected: 1',
    'http://example.com/\r',
    'http://',
    'https://[::1/',
  ])('%j is an invalid URI', async (url) => {
    expect(await refusal(checkOutboundUrl(url, blocked))).toBe('URI is invalid')
  })

  test.each(['http://-hooks.example.com/', 'http://_hooks.example.com/', 'http://.example.com/'])(
    '%j: a host name starts with a letter or digit',
    async (url) => {
      expect(await refusal(checkOutboundUrl(url, blocked))).toBe('Hostname or IP address invalid')
    },
  )

  test('schemes are case-insensitive and any port is allowed to a public address (GitLab restricts no ports for hooks)', async () => {
    for (const url of ['HTTPS://93.184.216.34/', 'http://93.184.216.34:22/', 'http://93.184.216.34:1/', 'https://93.184.216.34:65535/']) {
      await expect(checkOutboundUrl(url, blocked)).resolves.toBeUndefined()
    }
  })
})

describe('local addresses', () => {
  test.each([
    ['http://127.0.0.1/', 'Requests to localhost are not allowed'],
    ['http://localhost/', 'Requests to localhost are not allowed'],
    ['http://LOCALHOST./', 'Requests to localhost are not allowed'],
    ['http://hooks.localhost:8080/', 'Requests to localhost are not allowed'],
    ['http://0.0.0.0/', 'Requests to localhost are not allowed'],
    ['http://0/', 'Requests to localhost are not allowed'],
    ['http://0.1.2.3/', 'Requests to localhost are not allowed'],
    ['http://[::]/', 'Requests to localhost are not allowed'],
    ['http://[::1]:3000/', 'Requests to localhost are not allowed'],
    // Written the ways inet_aton reads them: decimal, hex, octal, short forms.
    ['http://2130706433/', 'Requests to localhost are not allowed'],
    ['http://0x7f.1/', 'Requests to localhost are not allowed'],
    ['http://0x7f000001/', 'Requests to localhost are not allowed'],
    ['http://0177.0.0.1/', 'Requests to localhost are not allowed'],
    ['http://127.1/', 'Requests to localhost are not allowed'],
    ['http://%31%32%37.0.0.1/', 'Requests to localhost are not allowed'],
    // IPv6 forms that carry an IPv4 address.
    ['http://[::ffff:127.0.0.1]/', 'Requests to localhost are not allowed'],
    ['http://[::ffff:7f00:2]/', 'Requests to loopback addresses are not allowed'],
    ['http://[::127.0.0.2]/', 'Requests to loopback addresses are not allowed'],
    ['http://[64:ff9b::a00:1]/', 'Requests to the local network are not allowed'],
    ['http://127.0.0.2/', 'Requests to loopback addresses are not allowed'],
    ['http://127.255.255.254:9000/', 'Requests to loopback addresses are not allowed'],
    ['http://10.1.2.3/', 'Requests to the local network are not allowed'],
    ['http://0xa000001/', 'Requests to the local network are not allowed'],
    ['http://172.16.0.1/', 'Requests to the local network are not allowed'],
    ['http://172.31.255.255/', 'Requests to the local network are not allowed'],
    ['http://192.168.1.1/', 'Requests to the local network are not allowed'],
    ['http://[fd12:3456::1]/', 'Requests to the local network are not allowed'],
    ['http://[fec0::1]/', 'Requests to the local network are not allowed'],
    ['http://[::ffff:192.168.0.1]/', 'Requests to the local network are not allowed'],
    ['http://169.254.169.254/latest/meta-data/', 'Requests to the link local network are not allowed'],
    ['http://[fe80::1]/', 'Requests to the link local network are not allowed'],
    ['http://100.64.0.1/', 'Requests to the shared address space are not allowed'],
    ['http://100.127.255.255/', 'Requests to the shared address space are not allowed'],
    ['http://255.255.255.255/', 'Requests to the limited broadcast address are not allowed'],
  ])('%s: %s', async (url, message) => {
    expect(await refusal(checkOutboundUrl(url, blocked))).toBe(message)
    expect(await refusal(sendOutbound(outbound(url, { allowLocal: false })))).toBe(message)
  })

  test("this machine's own addresses are localhost", async () => {
    const own = Object.values(networkInterfaces())
      .flat()
      .filter((entry) => entry && !entry.internal && entry.family === 'IPv4')
    for (const entry of own) {
      expect(await refusal(checkOutboundUrl(`http://${entry!.address}/`, blocked))).toBe('Requests to localhost are not allowed')
    }
  })

  test.each([
    'http://172.32.0.1/',
    'http://100.128.0.1/',
    'http://11.0.0.1/',
    'http://169.255.0.1/',
    'http://[2001:4860::8888]/',
    'http://[2606:4700::1111]:8080/',
  ])('%s is public', async (url) => {
    await expect(checkOutboundUrl(url, blocked)).resolves.toBeUndefined()
  })

  test('a refused request sends nothing', async () => {
    const receiver = await startReceiver()
    const message = await refusal(sendOutbound(outbound(`http://127.0.0.1:${receiver.port}/hook`, { allowLocal: false })))
    expect(message).toBe('Requests to localhost are not allowed')
    expect(receiver.received).toEqual([])
  })

  test('with local requests allowed the same addresses are reached, in every form', async () => {
    const receiver = await startReceiver()
    for (const host of ['127.0.0.1', 'localhost', '2130706433', '0x7f.1', '[::ffff:127.0.0.1]']) {
      const res = await sendOutbound(outbound(`http://${host}:${receiver.port}/hook`))
      expect(res.status).toBe(200)
    }
    expect(receiver.received.map((r) => r.url)).toEqual(Array(5).fill('/hook'))
    const v6 = await startReceiver(answerOk, '::1')
    expect((await sendOutbound(outbound(`http://[::1]:${v6.port}/v6`))).status).toBe(200)
    expect(v6.received[0].headers.host).toBe(`[::1]:${v6.port}`)
  })

  test('every address a name resolves to is checked, not only the first', async () => {
    for (const [addresses, message] of [
      [['93.184.216.34', '10.0.0.1'], 'Requests to the local network are not allowed'],
      [['2606:2800:220:1::1', '::1'], 'Requests to localhost are not allowed'],
      [['93.184.216.34', '::ffff:169.254.169.254'], 'Requests to the link local network are not allowed'],
    ] as const) {
      const resolve = scriptedResolver([...addresses])
      expect(await refusal(checkOutboundUrl('http://hooks.test/', blocked, { resolve }))).toBe(message)
      expect(await refusal(sendOutbound(outbound('http://hooks.test/', { allowLocal: false }), { resolve }))).toBe(message)
    }
  })
})

describe('the allowlist', () => {
  let receiver: Receiver
  beforeAll(async () => {
    receiver = await startReceiver()
  })

  test.each([['127.0.0.1'], ['127.0.0.0/8'], ['127.0.0.0/255.0.0.0'], ['10.0.0.0/8', '127.0.0.1/32'], ['::1', '127.0.0.1']])(
    'an address or range %j lets a local address through',
    async (...allowlist) => {
      const res = await sendOutbound(outbound(`http://127.0.0.1:${receiver.port}/`, { allowLocal: false, allowlist }))
      expect(res.status).toBe(200)
    },
  )

  test('an entry with a port allows that port only; without one a URL means its scheme default', async () => {
    const port = receiver.port
    expect(
      (await sendOutbound(outbound(`http://127.0.0.1:${port}/`, { allowLocal: false, allowlist: [`127.0.0.1:${port}`] }))).status,
    ).toBe(200)
    expect(await refusal(sendOutbound(outbound(`http://127.0.0.1:${port}/`, { allowLocal: false, allowlist: ['127.0.0.1:1'] })))).toBe(
      'Requests to localhost are not allowed',
    )
    await expect(checkOutboundUrl('http://127.0.0.1/', { allowLocal: false, allowlist: ['127.0.0.1:80'] })).resolves.toBeUndefined()
    await expect(checkOutboundUrl('https://127.0.0.1/', { allowLocal: false, allowlist: ['127.0.0.1:443'] })).resolves.toBeUndefined()
    expect(await refusal(checkOutboundUrl('https://127.0.0.1/', { allowLocal: false, allowlist: ['127.0.0.1:80'] }))).toBe(
      'Requests to localhost are not allowed',
    )
    await expect(checkOutboundUrl('http://[::1]:8080/', { allowLocal: false, allowlist: ['[::1]:8080'] })).resolves.toBeUndefined()
    await expect(checkOutboundUrl('http://[::1]/', { allowLocal: false, allowlist: ['[::1]'] })).resolves.toBeUndefined()
    expect(await refusal(checkOutboundUrl('http://[::1]:8081/', { allowLocal: false, allowlist: ['[::1]:8080'] }))).toBe(
      'Requests to localhost are not allowed',
    )
  })

  test('a host name entry allows that name (with its port, if given), not the address behind it', async () => {
    const port = receiver.port
    for (const allowlist of [['localhost'], [`localhost:${port}`], ['LocalHost']]) {
      const res = await sendOutbound(outbound(`http://localhost:${port}/named`, { allowLocal: false, allowlist }))
      expect(res.status).toBe(200)
    }
    expect(await refusal(sendOutbound(outbound(`http://localhost:${port}/`, { allowLocal: false, allowlist: ['localhost:1'] })))).toBe(
      'Requests to localhost are not allowed',
    )
    expect(await refusal(sendOutbound(outbound(`http://127.0.0.1:${port}/`, { allowLocal: false, allowlist: ['localhost'] })))).toBe(
      'Requests to localhost are not allowed',
    )
    const resolve = scriptedResolver(['127.0.0.1'])
    const res = await sendOutbound(outbound(`http://hooks.test:${port}/`, { allowLocal: false, allowlist: ['hooks.test'] }), { resolve })
    expect(res.status).toBe(200)
  })

  test('an allowlisted name is accepted even when it cannot be resolved (GitLab skips the lookup checks for it)', async () => {
    await expect(
      sendOutbound(outbound('http://hooks.test/', { allowLocal: false, allowlist: ['hooks.test'] }), { resolve: failingResolver }),
    ).rejects.toThrow(new OutboundFailed('Failed to open TCP connection to hooks.test:80 (getaddrinfo: Name or service not known)'))
  })

  test('address entries are matched against the first resolved address, the one connected to', async () => {
    const resolve = scriptedResolver(['127.0.0.1', '10.0.0.1'])
    await expect(
      checkOutboundUrl('http://hooks.test/', { allowLocal: false, allowlist: ['127.0.0.1'] }, { resolve }),
    ).resolves.toBeUndefined()
    expect(await refusal(checkOutboundUrl('http://hooks.test/', { allowLocal: false, allowlist: ['10.0.0.1'] }, { resolve }))).toBe(
      'Requests to localhost are not allowed',
    )
  })

  test('entries that are neither addresses nor the host change nothing', async () => {
    const allowlist = ['not an address', '127.0.0.1/40', '999.0.0.1', '', 'example.com']
    expect(await refusal(checkOutboundUrl('http://127.0.0.1/', { allowLocal: false, allowlist }))).toBe(
      'Requests to localhost are not allowed',
    )
  })
})

describe('DNS', () => {
  test('a name that cannot be resolved is refused when sending, accepted when saving (GitLab resolves again on each send)', async () => {
    expect(await refusal(sendOutbound(outbound('http://hooks.test/'), { resolve: failingResolver }))).toBe(
      'Host cannot be resolved or invalid',
    )
    expect(await refusal(sendOutbound(outbound('http://hooks.test/', { allowLocal: false }), { resolve: failingResolver }))).toBe(
      'Host cannot be resolved or invalid',
    )
    await expect(checkOutboundUrl('http://hooks.test/', blocked, { resolve: failingResolver })).resolves.toBeUndefined()
  })

  test('a resolver that does not answer in time is refused with Ruby’s timeout words', async () => {
    const never: ResolveHost = () => new Promise(() => {})
    expect(await refusal(sendOutbound(outbound('http://hooks.test/', { timeoutMs: 50 }), { resolve: never }))).toBe('execution expired')
  })

  test('the connection goes to the address that was resolved and checked, once; Host and path keep the name', async () => {
    const receiver = await startReceiver()
    // Were the name looked up again, the second answer would lead nowhere.
    const resolve = scriptedResolver(['127.0.0.1'], ['203.0.113.7'])
    const res = await sendOutbound(outbound(`http://hooks.test:${receiver.port}/path/to?q=1#fragment`), { resolve })
    expect(res.status).toBe(200)
    expect(resolve.calls).toEqual(['hooks.test'])
    expect(receiver.received).toHaveLength(1)
    expect(receiver.received[0]).toMatchObject({ method: 'POST', url: '/path/to?q=1' })
    expect(receiver.received[0].headers.host).toBe(`hooks.test:${receiver.port}`)
  })

  test('DNS rebinding: a name that answers a public address to the check and a local one later reaches nothing local', async () => {
    const receiver = await startReceiver()
    const resolve = scriptedResolver(['203.0.113.7'], ['127.0.0.1'])
    const message = await failure(
      sendOutbound(outbound(`http://rebind.test:${receiver.port}/`, { allowLocal: false, timeoutMs: 1000 }), { resolve }),
    )
    expect(message).toMatch(new RegExp(`^(execution expired|Failed to open TCP connection to 203\\.0\\.113\\.7:${receiver.port} )`))
    expect(resolve.calls).toEqual(['rebind.test'])
    expect(receiver.received).toEqual([])
  })

  test('with dns_rebinding_protection_enabled off the name is resolved again to connect, as GitLab then does', async () => {
    const receiver = await startReceiver()
    const resolve = scriptedResolver(['203.0.113.7'], ['127.0.0.1'])
    const res = await sendOutbound(outbound(`http://rebind.test:${receiver.port}/`, { allowLocal: false, dnsRebindingProtection: false }), {
      resolve,
    })
    expect(res.status).toBe(200)
    expect(resolve.calls).toEqual(['rebind.test', 'rebind.test'])
    expect(receiver.received[0].headers.host).toBe(`rebind.test:${receiver.port}`)

    // Still checked: a name that resolves to a local address is refused.
    expect(
      await refusal(
        sendOutbound(outbound('http://rebind.test/', { allowLocal: false, dnsRebindingProtection: false }), {
          resolve: scriptedResolver(['10.0.0.1']),
        }),
      ),
    ).toBe('Requests to the local network are not allowed')
    // An unresolvable name is not refused then; connecting fails.
    expect(
      await failure(
        sendOutbound(outbound('http://hooks.test:8080/', { allowLocal: false, dnsRebindingProtection: false }), {
          resolve: failingResolver,
        }),
      ),
    ).toBe('Failed to open TCP connection to hooks.test:8080 (getaddrinfo: Name or service not known)')
  })

  test('local requests allowed and protection off: nothing is checked, the name is resolved once, to connect', async () => {
    const receiver = await startReceiver()
    const resolve = scriptedResolver(['127.0.0.1'])
    const res = await sendOutbound(outbound(`http://hooks.test:${receiver.port}/`, { dnsRebindingProtection: false }), { resolve })
    expect(res.status).toBe(200)
    expect(resolve.calls).toEqual(['hooks.test'])
  })
})

describe('the exchange', () => {
  test('method, headers and body go out as given, with Content-Length; the answer comes back whole', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.setHeader('Set-Cookie', ['a=1', 'b=2'])
      res.setHeader('X-Request-Id', 'abc')
      res.writeHead(201, { 'Content-Type': 'application/json' })
      res.end('{"ok":true}')
    })
    const res = await sendOutbound(outbound(`http://127.0.0.1:${receiver.port}/hooks/1`))
    expect(res.status).toBe(201)
    expect(res.body).toBe('{"ok":true}')
    expect(res.headers).toMatchObject({ 'content-type': 'application/json', 'set-cookie': 'a=1, b=2', 'x-request-id': 'abc' })
    expect(typeof res.elapsedMs).toBe('number')
    expect(res.elapsedMs).toBeGreaterThanOrEqual(0)
    const [sent] = receiver.received
    expect(sent).toMatchObject({ method: 'POST', url: '/hooks/1', body: '{"object_kind":"push"}' })
    expect(sent.headers).toMatchObject({
      'content-type': 'application/json',
      'x-gitlab-event': 'Push Hook',
      'content-length': '22',
      host: `127.0.0.1:${receiver.port}`,
    })

    const get = await sendOutbound({ ...outbound(`http://127.0.0.1:${receiver.port}/status`), method: 'GET', body: undefined, headers: {} })
    expect(get.status).toBe(201)
    expect(receiver.received[1]).toMatchObject({ method: 'GET', url: '/status', body: '' })
    expect(receiver.received[1].headers['content-length']).toBeUndefined()
  })

  test('a redirect is the answer, never followed', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/' })
      res.end()
    })
    const res = await sendOutbound(outbound(`http://127.0.0.1:${receiver.port}/`))
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe('http://169.254.169.254/latest/meta-data/')
    expect(receiver.received).toHaveLength(1)
  })

  test('credentials in the URL become Basic auth, unescaped as CGI.unescape does, and leave the URL', async () => {
    const receiver = await startReceiver()
    await sendOutbound(
      outbound(`http://hook%40user:p%2Bss+w%C3%B6rd@127.0.0.1:${receiver.port}/secret?x=1`, { headers: { authorization: 'Bearer other' } }),
    )
    await sendOutbound(outbound(`http://token@127.0.0.1:${receiver.port}/`))
    const [withPassword, userOnly] = receiver.received
    expect(withPassword.url).toBe('/secret?x=1')
    expect(withPassword.headers.authorization).toBe(`Basic ${Buffer.from('hook@user:p+ss wörd').toString('base64')}`)
    expect(userOnly.headers.authorization).toBe(`Basic ${Buffer.from('token:').toString('base64')}`)
  })

  test('only maxResponseBytes of the body are kept, cut between characters; the rest is read and dropped', async () => {
    let finished = false
    const receiver = await startReceiver((_req, res) => {
      res.on('finish', () => (finished = true))
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' })
      res.end(`aé${'x'.repeat(1024 * 1024)}`)
    })
    const twoBytes = await sendOutbound(outbound(`http://127.0.0.1:${receiver.port}/`, { maxResponseBytes: 2 }))
    expect(twoBytes.body).toBe('a')
    const threeBytes = await sendOutbound(outbound(`http://127.0.0.1:${receiver.port}/`, { maxResponseBytes: 5 }))
    expect(threeBytes.body).toBe('aéxx')
    expect(finished).toBe(true)
    const none = await sendOutbound(outbound(`http://127.0.0.1:${receiver.port}/`, { maxResponseBytes: 0 }))
    expect(none.body).toBe('')
  })

  test(`a response body over ${OUTBOUND_RESPONSE_READ_LIMIT_BYTES} bytes fails`, async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'x')
    const receiver = await startReceiver((_req, res) => {
      res.on('error', () => {})
      res.writeHead(200)
      let sent = 0
      const pump = () => {
        while (sent <= OUTBOUND_RESPONSE_READ_LIMIT_BYTES && !res.destroyed) {
          sent += chunk.length
          if (!res.write(chunk)) return void res.once('drain', pump)
        }
        res.end()
      }
      pump()
    })
    expect(await failure(sendOutbound(outbound(`http://127.0.0.1:${receiver.port}/`)))).toBe(
      `Response body is larger than ${OUTBOUND_RESPONSE_READ_LIMIT_BYTES} bytes`,
    )
  })

  test('a refused connection fails in Net::HTTP’s words', async () => {
    const port = await closedPort()
    expect(await failure(sendOutbound(outbound(`http://127.0.0.1:${port}/`)))).toBe(
      `Failed to open TCP connection to 127.0.0.1:${port} (Connection refused - connect(2) for "127.0.0.1" port ${port})`,
    )
  })

  test('a server that takes the request and never answers times out (Net::ReadTimeout)', async () => {
    const receiver = await startReceiver(() => {})
    expect(await failure(sendOutbound(outbound(`http://127.0.0.1:${receiver.port}/`, { timeoutMs: 200 })))).toBe(
      'Net::ReadTimeout with #<TCPSocket:(closed)>',
    )
    const slowBody = await startReceiver((_req, res) => {
      res.writeHead(200)
      res.write('partial')
    })
    expect(await failure(sendOutbound(outbound(`http://127.0.0.1:${slowBody.port}/`, { timeoutMs: 200 })))).toBe(
      'Net::ReadTimeout with #<TCPSocket:(closed)>',
    )
  })

  test('a TLS handshake that never completes times out while opening (execution expired)', async () => {
    const port = await startSilentServer()
    expect(await failure(sendOutbound(outbound(`https://127.0.0.1:${port}/`, { timeoutMs: 200, verifyTls: false })))).toBe(
      'execution expired',
    )
  })

  test('a connection closed without an answer, or a garbled answer, fails', async () => {
    const closing = await startRawServer('')
    expect(await failure(sendOutbound(outbound(`http://127.0.0.1:${closing}/`)))).toBe('end of file reached')
    const garbled = await startRawServer('SSH-2.0-OpenSSH_9.6\r\n\r\n')
    expect(await failure(sendOutbound(outbound(`http://127.0.0.1:${garbled}/`)))).toBe('wrong status line')
    const cut = await startRawServer('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort')
    expect(await failure(sendOutbound(outbound(`http://127.0.0.1:${cut}/`)))).toBe('end of file reached')
  })

  test('a header Node cannot send is refused before anything goes out', async () => {
    const receiver = await startReceiver()
    const message = await refusal(
      sendOutbound(outbound(`http://127.0.0.1:${receiver.port}/`, { headers: { 'X-Token': 'a\r\nInjected: 1' } })),
    )
    expect(message).toBe('Invalid character in header content ["X-Token"]')
    expect(receiver.received).toEqual([])
  })
})

describe('TLS', () => {
  test('the pinned connection keeps the name for SNI and Host; verification off accepts a self-signed certificate', async () => {
    const receiver = await startTlsReceiver()
    const resolve = scriptedResolver(['127.0.0.1'], ['203.0.113.7'])
    const res = await sendOutbound(outbound(`https://hooks.test:${receiver.port}/tls`, { verifyTls: false }), { resolve })
    expect(res.status).toBe(200)
    expect(resolve.calls).toEqual(['hooks.test'])
    expect(receiver.received[0]).toMatchObject({ url: '/tls', servername: 'hooks.test' })
    expect(receiver.received[0].headers.host).toBe(`hooks.test:${receiver.port}`)
  })

  test('verification on refuses a certificate no CA signed, in OpenSSL’s words', async () => {
    const receiver = await startTlsReceiver()
    expect(await failure(sendOutbound(outbound(`https://127.0.0.1:${receiver.port}/`, { verifyTls: true })))).toBe(
      `SSL_connect returned=1 errno=0 peeraddr=127.0.0.1:${receiver.port} state=error: certificate verify failed (self-signed certificate)`,
    )
    expect(receiver.received).toEqual([])
  })

  test('https to a plain HTTP server fails the handshake', async () => {
    const receiver = await startReceiver()
    expect(await failure(sendOutbound(outbound(`https://127.0.0.1:${receiver.port}/`, { verifyTls: false })))).toBe(
      `SSL_connect returned=1 errno=0 peeraddr=127.0.0.1:${receiver.port} state=error: wrong version number`,
    )
  })
})

test('the rules of a kind of hook come from the instance settings', () => {
  expect(outboundRulesFor(defaultSettings, 'system')).toEqual({ allowLocal: true, allowlist: [], dnsRebindingProtection: true })
  expect(outboundRulesFor(defaultSettings, 'web')).toEqual({ allowLocal: false, allowlist: [], dnsRebindingProtection: true })
  const changed = {
    ...defaultSettings,
    allow_local_requests_from_web_hooks_and_services: true,
    allow_local_requests_from_system_hooks: false,
    dns_rebinding_protection_enabled: false,
    outbound_local_requests_whitelist: ['10.0.0.0/8'],
  }
  expect(outboundRulesFor(changed, 'web')).toEqual({ allowLocal: true, allowlist: ['10.0.0.0/8'], dnsRebindingProtection: false })
  expect(outboundRulesFor(changed, 'system')).toEqual({ allowLocal: false, allowlist: ['10.0.0.0/8'], dnsRebindingProtection: false })
})
