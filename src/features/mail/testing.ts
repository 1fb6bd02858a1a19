import { SMTPServer, type SMTPServerAddress } from 'smtp-server'

/** A message the sink accepted: its envelope and its bytes as they arrived. */
export interface ReceivedMail {
  from: string
  to: string[]
  raw: string
}

export interface SmtpSink {
  /** smtp://user:password@127.0.0.1:port, as SVC_SMTP_URL takes it. */
  url: string
  received: ReceivedMail[]
  /** Refuses every recipient with this reply code while set (451: try later; 550: never); the refusals are counted. */
  refusing: number | null
  refusals: number
  /** Holds every message at its end of data without an answer while set, as a stalled server does; those held are counted. */
  stalling: boolean
  stalled: number
  /** Resolves once `count` messages have arrived. */
  waitFor(count: number): Promise<void>
  close(): Promise<void>
}

export const SINK_USER = 'svc-mailer'
export const SINK_PASSWORD = 'p@ss word'

/** A local SMTP server that keeps what it receives, asking for the sink's user and password. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const waiters: { count: number; resolve: () => void }[] = []
  const sink: SmtpSink = {
    url: '',
    received: [],
    refusing: null,
    refusals: 0,
    stalling: false,
    stalled: 0,
    waitFor(count) {
      if (sink.received.length >= count) return Promise.resolve()
      return new Promise((resolve) => waiters.push({ count, resolve }))
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    closeTimeout: 100,
    disableReverseLookup: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SINK_USER && auth.password === SINK_PASSWORD) callback(null, { user: auth.username })
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }))
    },
    onRcptTo(_address: SMTPServerAddress, _session, callback) {
      if (sink.refusing === null) return callback()
      sink.refusals += 1
      const text = sink.refusing >= 500 ? 'Mailbox unavailable' : 'Try again later'
      callback(Object.assign(new Error(text), { responseCode: sink.refusing }))
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        if (sink.stalling) {
          sink.stalled += 1
          return
        }
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : ''
        sink.received.push({ from, to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') })
        for (const waiter of waiters.filter((w) => sink.received.length >= w.count)) {
          waiters.splice(waiters.indexOf(waiter), 1)
          waiter.resolve()
        }
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as { port: number }
  sink.url = `smtp://${SINK_USER}:${encodeURIComponent(SINK_PASSWORD)}@127.0.0.1:${port}`
  return sink
}

/** A message's header block as name/value pairs in order, folded lines joined. */
export function headersOf(raw: string): [string, string][] {
  const head = raw.slice(0, raw.indexOf('\r\n\r\n'))
  return head
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n')
    .map((line) => {
      const colon = line.indexOf(':')
      return [line.slice(0, colon), line.slice(colon + 1).trim()] as [string, string]
    })
}

/** The decoded body of a message's part of `type` (text/plain or text/html), lines ending in \n. */
export function partOf(raw: string, type: 'text/plain' | 'text/html'): string {
  // Split at the message's own boundary: a body line may start with `--` too (the `-- ` before a signature).
  const boundary = /boundary="([^"]+)"/.exec(raw)?.[1]
  const parts = boundary ? raw.split(`\r\n--${boundary}\r\n`) : []
  const part = parts.find((candidate) => candidate.startsWith(`Content-Type: ${type}`))
  if (!part) throw new Error(`no ${type} part`)
  const split = part.indexOf('\r\n\r\n')
  const head = part.slice(0, split)
  let body = part.slice(split + 4).replace(/\r\n--[^\r\n]*--\r\n$/, '')
  if (/Content-Transfer-Encoding: quoted-printable/i.test(head)) {
    const text = body.replace(/=\r\n/g, '')
    const bytes: number[] = []
    for (let i = 0; i < text.length; i++) {
      if (text[i] === '=' && /^[0-9A-F]{2}$/.test(text.slice(i + 1, i + 3))) {
        bytes.push(parseInt(text.slice(i + 1, i + 3), 16))
        i += 2
      } else bytes.push(...Buffer.from(text[i], 'utf8'))
    }
    body = Buffer.from(bytes).toString('utf8')
  } else if (/Content-Transfer-Encoding: base64/i.test(head)) {
    body = Buffer.from(body, 'base64').toString('utf8')
  }
  return body.replace(/\r\n/g, '\n')
}
