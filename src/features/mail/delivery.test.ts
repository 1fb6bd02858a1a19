import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { loadConfig } from '../../config/index.js'
import { countJobsByKindAndState } from '../../jobs/index.js'
import { contextFor } from '../../testing/context.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { mailIdentity, queueMails, type OutgoingMail } from './index.js'
import { headersOf, startSmtpSink, type SmtpSink } from './testing.js'

const QUEUED_AT = new Date('2026-12-01T10:00:00.123Z')

let sink: SmtpSink
let server: TestServer

beforeAll(async () => {
  sink = await startSmtpSink()
  server = await startTestServer({ SVC_SMTP_URL: sink.url })
  server.freeze(QUEUED_AT)
})
afterAll(async () => {
  await server?.close()
  await sink?.close()
})

function mail(overrides: Partial<OutgoingMail> = {}): OutgoingMail {
  return {
    to: 'alice@example.com',
    toUserId: null,
    subject: 'Reset password instructions',
    text: 'Hello, Alice!\n\nFollow the link.\n',
    html: '<p>Hello, Alice!</p>\n<p>Follow the link.</p>\n',
    headers: {},
    ...overrides,
  }
}

async function outbox(target: TestServer) {
  return target.database.db.selectFrom('mail_outbox').selectAll().orderBy('id').execute()
}

async function queue(target: TestServer, mails: OutgoingMail[]) {
  const ctx = contextFor(target, null, QUEUED_AT)
  await ctx.db.transaction().execute((trx) => queueMails(ctx, trx, mails))
}

test('the identity comes from the configuration: GitLab <gitlab@host>, replies to noreply@host', () => {
  expect(mailIdentity(contextFor(server, null))).toEqual({
    from: 'GitLab <gitlab@127.0.0.1>',
    replyTo: 'GitLab <noreply@127.0.0.1>',
    host: '127.0.0.1',
  })
})

test('SVC_EMAIL_FROM, SVC_EMAIL_DISPLAY_NAME and SVC_EMAIL_REPLY_TO change it; a bad address stops the start', () => {
  const configured = loadConfig({
    SVC_EXTERNAL_URL: 'https://git.example.com:8443/',
    SVC_EMAIL_FROM: 'ops@example.com',
    SVC_EMAIL_DISPLAY_NAME: 'Example, Inc. GitLab',
    SVC_EMAIL_REPLY_TO: 'help@example.com',
  })
  expect(mailIdentity({ ...contextFor(server, null), config: configured })).toEqual({
    from: '"Example, Inc. GitLab" <ops@example.com>',
    replyTo: '"Example, Inc. GitLab" <help@example.com>',
    host: 'git.example.com',
  })
  expect(loadConfig({ SVC_EXTERNAL_URL: 'https://git.example.com:8443/' })).toMatchObject({
    emailFrom: 'gitlab@git.example.com',
    emailDisplayName: 'GitLab',
    emailReplyTo: 'noreply@git.example.com',
  })
  expect(() => loadConfig({ SVC_EMAIL_FROM: 'GitLab <gitlab@example.com>' })).toThrow(
    'SVC_EMAIL_FROM="GitLab <gitlab@example.com>" is invalid: expected an e-mail address such as gitlab@example.com',
  )
  expect(() => loadConfig({ SVC_SMTP_URL: 'http://mail.example.com' })).toThrow(
    'SVC_SMTP_URL="http://mail.example.com" is invalid: expected an smtp:// or smtps:// URL',
  )
})

test('a queued mail reaches the SMTP server as one multipart message with GitLab headers, and is marked sent', async () => {
  sink.received.length = 0
  await queue(server, [
    mail({ headers: { 'X-GitLab-Project': 'Alpha', 'X-GitLab-Issue-IID': '7', 'List-Id': 'alpha <alpha.example.127.0.0.1>' } }),
  ])
  expect(await server.runJobs()).toBe(1)
  expect(sink.received).toHaveLength(1)
  const [received] = sink.received
  const [row] = (await outbox(server)).slice(-1)
  expect(row.message_id).toMatch(/^<[0-9a-f]{32}@127\.0\.0\.1>$/)
  expect({ from: received.from, to: received.to }).toEqual({ from: 'gitlab@127.0.0.1', to: ['alice@example.com'] })
  const boundary = headersOf(received.raw)
    .find(([name]) => name === 'Content-Type')![1]
    .replace(/^.*boundary="(.*)"$/, '$1')
  expect(headersOf(received.raw)).toEqual([
    ['Auto-Submitted', 'auto-generated'],
    ['X-Auto-Response-Suppress', 'All'],
    ['X-GitLab-Project', 'Alpha'],
    ['X-GitLab-Issue-IID', '7'],
    ['List-Id', 'alpha <alpha.example.127.0.0.1>'],
    ['From', 'GitLab <gitlab@127.0.0.1>'],
    ['To', 'alice@example.com'],
    ['Reply-To', 'GitLab <noreply@127.0.0.1>'],
    ['Subject', 'Reset password instructions'],
    ['Message-ID', row.message_id],
    ['Date', 'Tue, 01 Dec 2026 10:00:00 +0000'],
    ['MIME-Version', '1.0'],
    ['Content-Type', `multipart/alternative; boundary="${boundary}"`],
  ])
  const body = received.raw.slice(received.raw.indexOf('\r\n\r\n') + 4)
  expect(body).toBe(
    [
      `--${boundary}`,
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 7bit',
      '',
      'Hello, Alice!',
      '',
      'Follow the link.',
      '',
      `--${boundary}`,
      'Content-Type: text/html; charset=utf-8',
      'Content-Transfer-Encoding: 7bit',
      '',
      '<p>Hello, Alice!</p>',
      '<p>Follow the link.</p>',
      '',
      `--${boundary}--`,
      '',
    ].join('\r\n'),
  )
  expect(row).toMatchObject({ state: 'sent', attempts: 1, last_error: null, sent_at: QUEUED_AT.toISOString() })
})

test("a sender's own From, Reply-To, Message-ID and threading headers replace the defaults; a subject that is not ASCII is encoded", async () => {
  sink.received.length = 0
  await queue(server, [
    mail({
      subject: 'Re: Ünïcode | Issue #7',
      headers: {
        From: '"Alice Example (@alice)" <gitlab@127.0.0.1>',
        'Reply-To': 'reply+abc@127.0.0.1',
        'Message-ID': '<note_1@127.0.0.1>',
        'In-Reply-To': '<issue_7@127.0.0.1>',
        References: '<reply-abc@127.0.0.1> <issue_7@127.0.0.1>',
        'Auto-Submitted': 'auto-replied',
        Subject: 'ignored: the subject is its own field',
      },
    }),
  ])
  expect(await server.runJobs()).toBe(1)
  expect(headersOf(sink.received[0].raw).filter(([name]) => !['Content-Type', 'Date', 'MIME-Version'].includes(name))).toEqual([
    ['Auto-Submitted', 'auto-replied'],
    ['X-Auto-Response-Suppress', 'All'],
    ['In-Reply-To', '<issue_7@127.0.0.1>'],
    ['References', '<reply-abc@127.0.0.1> <issue_7@127.0.0.1>'],
    ['From', '"Alice Example (@alice)" <gitlab@127.0.0.1>'],
    ['To', 'alice@example.com'],
    ['Reply-To', 'reply+abc@127.0.0.1'],
    ['Subject', '=?UTF-8?Q?Re=3A_=C3=9Cn=C3=AFcode_=7C_Issue_=237?='],
    ['Message-ID', '<note_1@127.0.0.1>'],
  ])
})

test('many mails go in one insert and one delivery job per hundred, and all arrive', async () => {
  sink.received.length = 0
  const before = (await outbox(server)).length
  await queue(
    server,
    Array.from({ length: 250 }, (_, n) => mail({ to: `user${n}@example.com`, subject: `Mail ${n}` })),
  )
  const jobs = await countJobsByKindAndState(server.database.db)
  expect(jobs.filter((row) => row.kind === 'mail.deliver' && row.state === 'queued')).toEqual([
    { kind: 'mail.deliver', state: 'queued', count: 3 },
  ])
  expect(await server.runJobs()).toBe(3)
  expect(sink.received.map((received) => received.to[0]).sort()).toEqual(
    Array.from({ length: 250 }, (_, n) => `user${n}@example.com`).sort(),
  )
  const rows = (await outbox(server)).slice(before)
  expect(rows.filter((row) => row.state === 'sent')).toHaveLength(250)
})

test('a server that refuses for now gets the mail again after the backoff; a mail it refuses for good fails at once', async () => {
  sink.received.length = 0
  sink.refusing = 451
  await queue(server, [mail({ to: 'later@example.com' })])
  expect(await server.runJobs()).toBe(1)
  expect(sink.received).toEqual([])
  expect(sink.refusals).toBe(1)
  let [row] = (await outbox(server)).slice(-1)
  expect(row).toMatchObject({ state: 'queued', attempts: 1, sent_at: null })
  expect(row.last_error).toMatch(/451 Try again later/)
  // Nothing runs before the backoff has passed.
  expect(await server.runJobs()).toBe(0)
  sink.refusing = null
  server.travel(10_000)
  expect(await server.runJobs()).toBe(1)
  expect(sink.received.map((received) => received.to)).toEqual([['later@example.com']])
  ;[row] = (await outbox(server)).slice(-1)
  expect(row).toMatchObject({ state: 'sent', attempts: 2, last_error: null })

  sink.refusing = 550
  await queue(server, [mail({ to: 'nobody@example.com' })])
  expect(await server.runJobs()).toBe(1)
  sink.refusing = null
  ;[row] = (await outbox(server)).slice(-1)
  expect(row).toMatchObject({ state: 'failed', attempts: 1 })
  expect(row.last_error).toMatch(/550 Mailbox unavailable/)
  server.travel(60 * 60_000)
  expect(await server.runJobs()).toBe(0)
})

test('without SVC_SMTP_URL each message is an .eml file under <data dir>/mail, the bytes SMTP carries', async () => {
  const offline = await startTestServer()
  try {
    offline.freeze(QUEUED_AT)
    sink.received.length = 0
    const same = mail({ headers: { 'Message-ID': '<same@127.0.0.1>', 'X-GitLab-Project': 'Alpha' } })
    await queue(offline, [same, mail({ to: 'bob@example.com' })])
    await queue(server, [same])
    expect(await offline.runJobs()).toBe(1)
    expect(await server.runJobs()).toBe(1)
    const directory = path.join(offline.config.dataDir, 'mail')
    const rows = await outbox(offline)
    const names = fs.readdirSync(directory).sort()
    expect(names).toEqual(rows.map((row) => `20261201T100000.123Z-${row.id}.eml`))
    expect(fs.readFileSync(path.join(directory, names[0]), 'utf8')).toBe(sink.received[0].raw)
    expect(headersOf(fs.readFileSync(path.join(directory, names[1]), 'utf8')).find(([name]) => name === 'To')).toEqual([
      'To',
      'bob@example.com',
    ])
    expect(rows.map((row) => row.state)).toEqual(['sent', 'sent'])
  } finally {
    await offline.close()
  }
})

test('queueing refuses a recipient that is not one address, and a header name that is not one', async () => {
  const ctx = contextFor(server, null, QUEUED_AT)
  await expect(queueMails(ctx, ctx.db, [mail({ to: 'a@example.com, b@example.com' })])).rejects.toThrow('not one e-mail address')
  await expect(queueMails(ctx, ctx.db, [mail({ headers: { 'X-Bad: y\r\nBcc': 'z' } })])).rejects.toThrow('not a header name')
})
