// E-mail delivery on the embedded default (SQLite, fresh data dir): mails queued in the outbox, as a change queues
// them in its transaction, reach a local SMTP sink through svc's delivery jobs (target >= 500 mails/s), beside
// nodemailer's pool sending the same messages straight to the sink from this process (the bare baseline), with svc's
// peak RSS. Prints figures only. Run alone with `node bench/mail.mjs` after `npm run build`, or through `npm run bench`.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import nodemailer from 'nodemailer'
import { SMTPServer } from 'smtp-server'
import { format, memory, printTable, root, startSvc, stop, svcEnv } from './common.mjs'

const MAILS = Number(process.env.BENCH_MAILS ?? 5_000)
const USER = 'bench'
const PASSWORD = 'bench-password'

const load = (file) => import(pathToFileURL(path.join(root, 'dist', file)).href)

/** An SMTP server that accepts everything and counts it; `until(n)` resolves at the n-th message. */
async function startSink() {
  let count = 0
  let firstAt = 0
  let waiter = null
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    disableReverseLookup: true,
    closeTimeout: 100,
    logger: false,
    onAuth: (auth, _session, callback) =>
      auth.username === USER && auth.password === PASSWORD ? callback(null, { user: USER }) : callback(new Error('Invalid login')),
    onData(stream, _session, callback) {
      stream.on('data', () => {})
      stream.on('end', () => {
        if (count++ === 0) firstAt = performance.now()
        callback()
        if (waiter && count >= waiter.count) waiter.resolve(performance.now())
      })
    },
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: server.server.address().port,
    reset() {
      count = 0
    },
    get firstAt() {
      return firstAt
    },
    until(n) {
      return new Promise((resolve) => (count >= n ? resolve(performance.now()) : (waiter = { count: n, resolve })))
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

/** The n-th mail: about the size of a notification, text and HTML. */
function mailNumber(n) {
  const text = `Alice opened issue #${n}: Rocket engine overheats on launch\n\n${'The engine overheats after ten seconds. '.repeat(12)}\n`
  return {
    to: `reader${n}@example.com`,
    toUserId: null,
    subject: `Team / Rocket | Rocket engine overheats on launch (#${n})`,
    text,
    html: `<p>Alice opened issue <a href="http://127.0.0.1/team/rocket/-/issues/${n}">#${n}</a></p><p>${text}</p>`,
    headers: { 'X-GitLab-Project': 'Rocket', 'X-GitLab-Issue-IID': String(n), 'List-Id': 'team/rocket <rocket.team.127.0.0.1>' },
  }
}

export async function benchMail() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-mail-'))
  const sink = await startSink()
  let svc = null
  let database = null
  try {
    const env = await svcEnv(dataDir, { SVC_SMTP_URL: `smtp://${USER}:${PASSWORD}@127.0.0.1:${sink.port}` })
    ;({ child: svc } = await startSvc(env))
    const [{ loadConfig }, { openDatabase }, { queueMails }] = await Promise.all([
      load('config/index.js'),
      load('db/index.js'),
      load('features/mail/index.js'),
    ])
    const config = loadConfig(env)
    database = await openDatabase(config)
    const ctx = { db: database.db, config, now: () => new Date() }
    const mails = Array.from({ length: MAILS }, (_, n) => mailNumber(n))

    const queuedAt = performance.now()
    await database.db.transaction().execute((trx) => queueMails(ctx, trx, mails))
    const committedAt = performance.now()
    const doneAt = await sink.until(MAILS)
    const firstAt = sink.firstAt
    const svcRate = MAILS / ((doneAt - firstAt) / 1000)
    const svcRss = memory(svc.pid, 'VmHWM')

    // The same messages through nodemailer's own pool (5 connections), composed and sent from this process.
    sink.reset()
    const bare = nodemailer.createTransport({ pool: true, host: '127.0.0.1', port: sink.port, auth: { user: USER, pass: PASSWORD } })
    const bareStart = performance.now()
    await Promise.all(mails.map((mail) => bare.sendMail({ from: 'GitLab <gitlab@127.0.0.1>', ...mail })))
    const bareRate = MAILS / ((performance.now() - bareStart) / 1000)
    bare.close()

    console.log(`\nmail: ${MAILS} mails queued in one transaction, delivered by svc's jobs to a local SMTP sink (SQLite)`)
    printTable([
      ['measure', 'svc', 'bare', 'svc/bare', 'svc peak RSS MB'],
      ['mails/s to the sink', format(svcRate), format(bareRate), `${format(svcRate / bareRate, 2)}x`, format(svcRss, 1)],
    ])
    console.log(
      `queueing took ${format(committedAt - queuedAt)} ms; first mail at the sink ${format(firstAt - committedAt)} ms after the commit ` +
        `(the worker's poll), the last ${format(doneAt - committedAt)} ms after it (target >= 500 mails/s)`,
    )
  } catch (error) {
    console.log(`mail bench could not finish: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    if (database) await database.close()
    if (svc) await stop(svc)
    await sink.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchMail()
