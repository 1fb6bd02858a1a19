import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import type { Context } from '../../core/context.js'
import type { Db } from '../../db/index.js'
import type { MailOutboxRow } from '../../db/schema.js'
import { enqueueJob, wakeJobWorkers, type JobContext } from '../../jobs/index.js'
import { composeMessage, type MailSender } from './compose.js'
import { DeliverMails, DELIVERY_MAX_ATTEMPTS } from './jobs.js'
import { deleteSentMails, findQueuedMails, insertOutboxMails, markMailsSent, recordMailFailure } from './store.js'
import { mailDirectory, smtpTransport, syncDirectory, writeMessageFile } from './transport.js'

export interface OutgoingMail {
  to: string // one address
  toUserId: number | null
  subject: string
  text: string
  html: string
  /** Extra headers: X-GitLab-Project, X-GitLab-Issue-IID, List-Id, List-Unsubscribe, In-Reply-To, References, Message-ID… */
  headers: Record<string, string>
}

/** Mails one delivery job sends: enough to keep every pooled connection busy, few enough to retry cheaply. */
export const MAILS_PER_JOB = 100
/** Sent mails are kept this long (to look into what went out), then pruned. */
export const SENT_MAIL_RETENTION_MS = 7 * 24 * 60 * 60_000
const PRUNE_BATCH_SIZE = 1000

/** An RFC 5322 display name, quoted unless it is atoms and spaces only. */
function displayAddress(name: string, address: string): string {
  if (name === '') return address
  const shown = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~ -]+$/.test(name) ? name : `"${name.replace(/(["\\])/g, '\\$1')}"`
  return `${shown} <${address}>`
}

/** GitLab's From/Reply-To and the host part of Message-IDs, from the configuration. */
export function mailIdentity(ctx: Context): { from: string; replyTo: string | null; host: string } {
  const { emailDisplayName, emailFrom, emailReplyTo } = ctx.config
  return {
    from: displayAddress(emailDisplayName, emailFrom),
    replyTo: displayAddress(emailDisplayName, emailReplyTo),
    host: new URL(ctx.config.externalUrl).hostname,
  }
}

/** The sender as the composer takes it: the display name encoded there when it is not ASCII (GL ApplicationMailer). */
function senderOf(ctx: Context): MailSender {
  const { emailDisplayName: name, emailFrom, emailReplyTo } = ctx.config
  return { from: { name, address: emailFrom }, replyTo: { name, address: emailReplyTo } }
}

/** A header value on one line: a line break in it would start a header of its own. */
function oneLine(value: string): string {
  return value.replace(/[\r\n]+\s*/g, ' ')
}

function isSingleAddress(address: string): boolean {
  return /^[^\s@<>",;:]+@[^\s@<>",;:]+$/.test(address)
}

/**
 * Queues mails in `db` (the transaction of the change that causes them): an outbox row each and the durable job(s)
 * sending them. One multi-row insert for many mails.
 */
export async function queueMails(ctx: Context, db: Db, mails: OutgoingMail[]): Promise<void> {
  if (mails.length === 0) return
  const now = ctx.now()
  const at = now.toISOString()
  const { host } = mailIdentity(ctx)
  const rows = mails.map((mail) => {
    if (!isSingleAddress(mail.to)) throw new Error(`not one e-mail address: ${JSON.stringify(mail.to)}`)
    const headers: Record<string, string> = {}
    let messageId = `<${randomBytes(16).toString('hex')}@${host}>`
    for (const [name, value] of Object.entries(mail.headers)) {
      if (!/^[\x21-\x39\x3b-\x7e]+$/.test(name)) throw new Error(`not a header name: ${JSON.stringify(name)}`)
      if (name.toLowerCase() === 'message-id')
        messageId = /^<.*>$/.test(value.trim()) ? oneLine(value.trim()) : `<${oneLine(value.trim())}>`
      else headers[name] = oneLine(value)
    }
    return {
      message_id: messageId,
      to_address: mail.to,
      to_user_id: mail.toUserId,
      subject: oneLine(mail.subject),
      text_body: mail.text,
      html_body: mail.html,
      headers: JSON.stringify(headers),
      created_at: at,
    }
  })
  const ids = await insertOutboxMails(db, rows)
  for (let start = 0; start < ids.length; start += MAILS_PER_JOB) {
    await enqueueJob(db, DeliverMails, { mailIds: ids.slice(start, start + MAILS_PER_JOB) }, { now })
  }
  // The worker looks again once the caller's transaction has had its turn, rather than at its next poll.
  setImmediate(wakeJobWorkers)
}

/** A refusal of this one message (5xx to its recipient or its content) that sending it again will not change. */
function isPermanentRefusal(error: unknown): boolean {
  const { code, responseCode } = error as { code?: string; responseCode?: number }
  return (code === 'EENVELOPE' || code === 'EMESSAGE') && typeof responseCode === 'number' && responseCode >= 500
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** The .eml file name: when the mail was queued, then its id, so a directory listing reads in order. */
function messageFileName(row: MailOutboxRow): string {
  return `${row.created_at.replace(/[-:]/g, '')}-${row.id}.eml`
}

/**
 * Sends the mails among `mailIds` that are still queued, over this process's SMTP pool, or writes them as .eml files
 * under `<data dir>/mail/` when no SMTP server is configured; those sent are marked in one statement. A crash before
 * that marks nothing, so the retry sends them again: at least once. Mails the server refused for good fail now; the
 * others stay queued and the job fails, to be retried with backoff, until its last attempt fails them too.
 */
export async function deliverMails(ctx: JobContext, mailIds: number[]): Promise<void> {
  const rows = await findQueuedMails(ctx.db, mailIds)
  if (rows.length === 0) return
  const sender = senderOf(ctx)
  const { smtpUrl } = ctx.config
  const sent: number[] = []
  const failures: { row: MailOutboxRow; error: unknown }[] = []
  if (smtpUrl) {
    const transport = await smtpTransport(ctx, smtpUrl)
    await Promise.all(
      rows.map(async (row) => {
        try {
          const raw = await composeMessage(row, sender)
          await transport.sendMail({ envelope: { from: ctx.config.emailFrom, to: [row.to_address] }, raw })
          sent.push(row.id)
        } catch (error) {
          failures.push({ row, error })
        }
      }),
    )
  } else {
    const directory = mailDirectory(ctx)
    await fs.mkdir(directory, { recursive: true })
    await Promise.all(
      rows.map(async (row) => {
        try {
          await writeMessageFile(directory, messageFileName(row), await composeMessage(row, sender))
          sent.push(row.id)
        } catch (error) {
          failures.push({ row, error })
        }
      }),
    )
    if (sent.length > 0) await syncDirectory(directory)
  }
  await markMailsSent(ctx.db, sent, ctx.now().toISOString())
  const isLastAttempt = ctx.job.attempt >= DELIVERY_MAX_ATTEMPTS
  let retrying = 0
  for (const { row, error } of failures) {
    const final = isLastAttempt || isPermanentRefusal(error)
    if (!final) retrying += 1
    await recordMailFailure(ctx.db, row.id, describe(error), final)
    ctx.log.warn({ err: error, mailId: row.id, final }, 'mail not sent')
  }
  if (retrying > 0) {
    const first = failures.find(({ error }) => !isPermanentRefusal(error))
    throw new Error(`${retrying} of ${rows.length} mails not sent: ${describe(first?.error)}`)
  }
}

/** Removes mails sent before the retention period, in bounded batches. */
export async function pruneSentMails(ctx: Context): Promise<number> {
  const before = new Date(ctx.now().getTime() - SENT_MAIL_RETENTION_MS).toISOString()
  let removed = 0
  for (;;) {
    const batch = await deleteSentMails(ctx.db, before, PRUNE_BATCH_SIZE)
    removed += batch
    if (batch < PRUNE_BATCH_SIZE) return removed
  }
}
