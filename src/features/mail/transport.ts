import fs from 'node:fs/promises'
import path from 'node:path'
import nodemailer, { type Transporter } from 'nodemailer'
import type { Context } from '../../core/context.js'

/** SMTP connections one process keeps open at most. */
const MAX_CONNECTIONS = 5
/** An idle connection closes after this, so a process that sends nothing holds none. */
const IDLE_TIMEOUT_MS = 5_000
/** Waits before a stalled server counts as failed; the job then retries later. */
const CONNECTION_TIMEOUT_MS = 30_000
const SOCKET_TIMEOUT_MS = 60_000

/** The SMTP URL's parts as nodemailer takes them: smtps:// is TLS from the start, smtp:// upgrades with STARTTLS when offered. */
export function smtpOptions(smtpUrl: string) {
  const url = new URL(smtpUrl)
  const secure = url.protocol === 'smtps:'
  return {
    pool: true as const,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : secure ? 465 : 25,
    secure,
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
    maxConnections: MAX_CONNECTIONS,
    idleTimeout: IDLE_TIMEOUT_MS,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: CONNECTION_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
  }
}

/** This process's connection pool to the configured SMTP server, made on first need. */
export function smtpTransport(ctx: Context, smtpUrl: string): Promise<Transporter> {
  return ctx.memo.remember(`mail.smtp:${smtpUrl}`, async () => nodemailer.createTransport(smtpOptions(smtpUrl)))
}

/** Where messages go as .eml files when no SMTP server is configured. */
export function mailDirectory(ctx: Context): string {
  return path.join(ctx.config.dataDir, 'mail')
}

/**
 * Writes a message whole under `directory` (to a temporary name, flushed, then renamed), so a crash leaves either
 * the complete file or none; writing it again replaces it with the same bytes.
 */
export async function writeMessageFile(directory: string, name: string, message: Buffer): Promise<void> {
  const temporary = path.join(directory, `.${name}.tmp`)
  const file = await fs.open(temporary, 'w', 0o600)
  try {
    await file.writeFile(message)
    await file.sync()
  } finally {
    await file.close()
  }
  await fs.rename(temporary, path.join(directory, name))
}

/** Flushes the directory's entries (the renames) to disk. */
export async function syncDirectory(directory: string): Promise<void> {
  const handle = await fs.open(directory, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
