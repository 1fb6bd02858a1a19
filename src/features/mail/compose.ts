import { createHash } from 'node:crypto'
import MailComposer from 'nodemailer/lib/mail-composer'
import type { MailOutboxRow } from '../../db/schema.js'

/** Who a message is from and where replies go, as headers carry them. */
export interface MailSender {
  from: string | { name: string; address: string }
  replyTo: string | { name: string; address: string } | null
}

/** Headers every message carries unless its sender set them (GL Gitlab::Email::Hook::AdditionalHeadersInterceptor). */
const DEFAULT_HEADERS: Record<string, string> = { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' }

/** Headers composed from the row itself: a value for them among the extra headers is left out. */
const COMPOSED_HEADERS = new Set(['to', 'subject', 'date', 'message-id', 'mime-version', 'content-type', 'content-transfer-encoding'])

/**
 * The message as RFC 5322 bytes, multipart/alternative text and HTML. The same row gives the same bytes on every
 * attempt (its Message-ID, its Date and MIME boundaries derived from the Message-ID), so a mail sent twice after a
 * crash is one message twice, which receivers can recognise.
 */
export function composeMessage(row: MailOutboxRow, sender: MailSender): Promise<Buffer> {
  const extra = JSON.parse(row.headers) as Record<string, string>
  const headers: Record<string, string> = {}
  let from = sender.from
  let replyTo = sender.replyTo
  for (const [name, value] of Object.entries({ ...DEFAULT_HEADERS, ...extra })) {
    const key = name.toLowerCase()
    if (key === 'from') from = value
    else if (key === 'reply-to') replyTo = value
    else if (!COMPOSED_HEADERS.has(key)) {
      // A header given twice in different cases keeps the last.
      for (const known of Object.keys(headers)) if (known.toLowerCase() === key) delete headers[known]
      headers[name] = value
    }
  }
  // nodemailer writes custom names in its own casing (X-Gitlab-Project); receivers' filters match GitLab's.
  const spelling = new Map(Object.keys(headers).map((name) => [name.toLowerCase(), name]))
  const composer = new MailComposer({
    from,
    ...(replyTo === null ? {} : { replyTo }),
    to: row.to_address,
    subject: row.subject,
    messageId: row.message_id,
    date: new Date(row.created_at),
    headers,
    text: row.text_body,
    html: row.html_body,
    // Lines end in CRLF in the message itself, as SMTP carries it, so a file holds the same bytes.
    newline: '\r\n',
    normalizeHeaderKey: (key: string) => spelling.get(key.toLowerCase()) ?? key,
    baseBoundary: createHash('sha256').update(row.message_id).digest('hex').slice(0, 16),
  })
  return composer.compile().build()
}
