import { randomBytes } from 'node:crypto'
import { expect, test } from 'vitest'
import { freePort, freshInstanceEnv, startSvc, waitUntilReady } from '../../testing/cli.js'
import { client } from '../../testing/http.js'
import { webClient } from '../sessions/testing.js'
import { startSmtpSink } from './testing.js'

const USERS = 40
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test('a server killed with -9 between queueing mail and sending it sends every mail after its restart', { timeout: 120_000 }, async () => {
  const sink = await startSmtpSink()
  const { env } = await freshInstanceEnv({ migrated: true })
  const port = await freePort()
  const token = `svcpat-${randomBytes(12).toString('hex')}`
  // A short lease: the restarted worker takes over the dead one's delivery jobs a second after it died.
  const serverEnv = { ...env, SVC_PORT: String(port), SVC_ROOT_TOKEN: token, SVC_SMTP_URL: sink.url, SVC_JOB_LEASE_MS: '1000' }
  const url = `http://127.0.0.1:${port}`
  const request = client(url)
  let child = startSvc(serverEnv)
  try {
    await waitUntilReady(url, child)
    const settings = await request('PUT', '/api/v4/application/settings', { token, body: { throttle_protected_paths_enabled: false } })
    expect(settings.status).toBe(200)
    const emails: string[] = []
    for (let n = 0; n < USERS; n++) {
      const email = `user${n}@example.com`
      const body = { email, username: `user${n}`, name: `User ${n}`, password: 'user-password', skip_confirmation: true }
      const created = await request('POST', '/api/v4/users', { token, body })
      expect(created.status, created.text).toBe(201)
      emails.push(email)
    }

    // The SMTP server takes the first messages and never answers: they are in flight, the rest queued behind them.
    sink.stalling = true
    const web = webClient(url)
    const csrf = await web.csrfTokenFrom('/users/password/new')
    for (const email of emails) {
      const asked = await web.request('POST', '/users/password', { form: true, body: { authenticity_token: csrf, 'user[email]': email } })
      expect(asked.status).toBe(302)
    }
    const deadline = Date.now() + 30_000
    while (sink.stalled === 0 && Date.now() < deadline) await sleep(10)
    expect(sink.stalled).toBeGreaterThan(0)
    child.kill('SIGKILL')
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)))
    expect(sink.received).toEqual([])

    sink.stalling = false
    child = startSvc(serverEnv)
    await waitUntilReady(url, child)
    await sink.waitFor(USERS)
    // At least once: every address got its mail (one held when the server died may arrive twice).
    expect(new Set(sink.received.map((mail) => mail.to[0]))).toEqual(new Set(emails))
    for (const mail of sink.received) expect(mail.raw).toContain('Subject: Reset password instructions')
  } finally {
    child.kill('SIGKILL')
    await sink.close()
  }
})
