import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import { createTestIssue, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

const SECRET = 'recaptcha-secret-for-tests'
const SITE_KEY = 'recaptcha-site-key-for-tests'
const RIGHT_ANSWER = 'solved-captcha'

/** A stand-in for reCAPTCHA's siteverify endpoint, over real HTTP: the right answer with the right secret succeeds. */
interface Siteverify {
  url: string
  received: Record<string, string>[]
  close(): Promise<void>
}

async function startSiteverify(): Promise<Siteverify> {
  const received: Record<string, string>[] = []
  const server = http.createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body))
      received.push({ method: request.method ?? '', contentType: request.headers['content-type'] ?? '', ...form })
      if (form.response === 'verifier-breaks') {
        response.writeHead(500).end()
        return
      }
      const success = form.secret === SECRET && form.response === RIGHT_ANSWER
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(
        JSON.stringify(success ? { success: true, hostname: 'localhost' } : { success: false, 'error-codes': ['invalid-input-response'] }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/recaptcha/api/siteverify`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

let siteverify: Siteverify
let server: TestServer
let request: ReturnType<typeof client>
let author: User
let authorToken: string
let otherToken: string
let project: ProjectRow

const discarded = (entity: string) => `{"message":{"error":"Your ${entity} has been recognized as spam and has been discarded."}}`
const needsCaptcha = (entity: string, spamLogId: number) =>
  `{"needs_captcha_response":true,"spam_log_id":${spamLogId},"captcha_site_key":"${SITE_KEY}","message":{"error":"Your ${entity} has been recognized as spam. Please, change the content or solve the reCAPTCHA to proceed."}}`

async function putSettings(body: Record<string, unknown>) {
  const response = await request('PUT', '/api/v4/application/settings', { token: server.rootToken, body })
  expect(response.status).toBe(200)
}

function spamLogs() {
  return server.database.db.selectFrom('spam_logs').selectAll().orderBy('id').execute()
}

async function issueTitles() {
  const rows = await server.database.db.selectFrom('issues').select('title').where('project_id', '=', project.id).orderBy('id').execute()
  return rows.map((row) => row.title)
}

async function noteBodies() {
  const rows = await server.database.db.selectFrom('notes').select('body').where('system', '=', 0).orderBy('id').execute()
  return rows.map((row) => row.body)
}

function createIssue(token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return request('POST', `/api/v4/projects/${project.id}/issues`, { token, body, headers: { 'user-agent': 'spam-test/1.0', ...headers } })
}

beforeAll(async () => {
  siteverify = await startSiteverify()
  server = await startTestServer({ SVC_RECAPTCHA_VERIFY_URL: siteverify.url })
  request = client(server.url)
  const db = server.database.db
  author = await createTestUser(db)
  authorToken = (await createTestToken(db, author)).value
  otherToken = (await createTestToken(db, await createTestUser(db))).value
  project = await createTestProject(db, { owner: author, visibility: 'public' })
})
afterAll(async () => {
  await server.close()
  await siteverify.close()
})

describe('spam settings', () => {
  test('are off by default and listed with the application settings', async () => {
    const response = await request('GET', '/api/v4/application/settings', { token: server.rootToken })
    expect(response.body).toMatchObject({
      recaptcha_enabled: false,
      recaptcha_private_key: null,
      recaptcha_site_key: null,
      spam_check_patterns: null,
    })
  })

  test('refuse a pattern that is not a regular expression, changing nothing', async () => {
    const response = await request('PUT', '/api/v4/application/settings', {
      token: server.rootToken,
      body: { spam_check_patterns: 'fine\n(unclosed', signup_enabled: false },
    })
    expect([response.status, response.text]).toEqual([
      400,
      '{"message":{"spam_check_patterns":["has an invalid regular expression: (unclosed"]}}',
    ])
    const settings = await request('GET', '/api/v4/application/settings', { token: server.rootToken })
    expect(settings.body).toMatchObject({ spam_check_patterns: null, signup_enabled: true })
  })

  test('refuse reCAPTCHA without its keys, as GitLab validates them', async () => {
    let response = await request('PUT', '/api/v4/application/settings', { token: server.rootToken, body: { recaptcha_enabled: true } })
    expect([response.status, response.text]).toEqual([
      400,
      `{"message":{"recaptcha_site_key":["can't be blank"],"recaptcha_private_key":["can't be blank"]}}`,
    ])
    response = await request('PUT', '/api/v4/application/settings', {
      token: server.rootToken,
      body: { recaptcha_enabled: true, recaptcha_site_key: SITE_KEY, recaptcha_private_key: '  ' },
    })
    expect([response.status, response.text]).toEqual([400, `{"message":{"recaptcha_private_key":["can't be blank"]}}`])
  })
})

describe('the spam check', () => {
  beforeEach(async () => {
    await putSettings({ spam_check_patterns: null, recaptcha_enabled: false })
    await server.database.db.deleteFrom('spam_logs').execute()
    siteverify.received.length = 0
  })

  test('is off by default: anything is written and nothing logged', async () => {
    const response = await createIssue(authorToken, { title: 'Cheap pills here', description: 'buy now' })
    expect(response.status).toBe(201)
    expect(await issueTitles()).toContain('Cheap pills here')
    expect(await spamLogs()).toEqual([])
  })

  test('without a CAPTCHA, discards a matching issue with 400 and logs it', async () => {
    await putSettings({ spam_check_patterns: 'cheap\\s+pills\n\n^casino$' })
    const before = await issueTitles()
    let response = await createIssue(authorToken, { title: 'Totally CHEAP   Pills', description: 'see inside' })
    expect([response.status, response.text]).toEqual([400, discarded('issue')])
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    // The description is checked too; each line is a pattern of its own.
    response = await createIssue(authorToken, { title: 'Harmless', description: 'Casino' })
    expect([response.status, response.text]).toEqual([400, discarded('issue')])
    expect(await issueTitles()).toEqual(before)

    const logs = await spamLogs()
    expect(logs).toEqual([
      expect.objectContaining({
        user_id: author.id,
        noteable_type: 'Issue',
        title: 'Totally CHEAP   Pills',
        description: 'see inside',
        source_ip: '127.0.0.1',
        user_agent: 'spam-test/1.0',
        recaptcha_verified: 0,
      }),
      expect.objectContaining({ title: 'Harmless', description: 'Casino' }),
    ])

    response = await createIssue(authorToken, { title: 'A casino review', description: 'pills, cheaply' })
    expect(response.status).toBe(201)
  })

  test('refuses an edit that turns an issue into spam, leaving it as it was', async () => {
    const issue = await createTestIssue(server.database.db, { project, author, title: 'Plain title' })
    await putSettings({ spam_check_patterns: 'cheap pills' })
    const response = await request('PUT', `/api/v4/projects/${project.id}/issues/${issue.iid}`, {
      token: authorToken,
      body: { description: 'now with cheap pills' },
    })
    expect([response.status, response.text]).toEqual([400, discarded('issue')])
    const row = await server.database.db.selectFrom('issues').select(['title', 'description']).where('id', '=', issue.id).executeTakeFirst()
    expect(row).toEqual({ title: 'Plain title', description: null })
  })

  test('checks notes by their body', async () => {
    const issue = await createTestIssue(server.database.db, { project, author })
    await putSettings({ spam_check_patterns: 'cheap pills' })
    const before = await noteBodies()
    let response = await request('POST', `/api/v4/projects/${project.id}/issues/${issue.iid}/notes`, {
      token: authorToken,
      body: { body: 'Get cheap pills' },
    })
    expect([response.status, response.text]).toEqual([400, discarded('note')])
    expect(await noteBodies()).toEqual(before)
    expect(await spamLogs()).toEqual([expect.objectContaining({ noteable_type: 'Note', title: null, description: 'Get cheap pills' })])
    response = await request('POST', `/api/v4/projects/${project.id}/issues/${issue.iid}/notes`, {
      token: authorToken,
      body: { body: 'Fine' },
    })
    expect(response.status).toBe(201)
  })

  test('lets administrators through unchecked', async () => {
    await putSettings({ spam_check_patterns: 'cheap pills' })
    const response = await createIssue(server.rootToken, { title: 'Admin writes about cheap pills' })
    expect(response.status).toBe(201)
    expect(await spamLogs()).toEqual([])
  })

  describe('with reCAPTCHA configured', () => {
    beforeEach(async () => {
      await putSettings({
        spam_check_patterns: 'cheap pills',
        recaptcha_enabled: true,
        recaptcha_site_key: SITE_KEY,
        recaptcha_private_key: SECRET,
      })
    })

    test('asks for a CAPTCHA with 409, then writes the issue once it is solved', async () => {
      const before = await issueTitles()
      const body = { title: 'Cheap pills, solved', description: 'retry me' }
      const refused = await createIssue(authorToken, body)
      const [log] = await spamLogs()
      expect(log).toMatchObject({ user_id: author.id, noteable_type: 'Issue', title: body.title, recaptcha_verified: 0 })
      expect([refused.status, refused.text]).toEqual([409, needsCaptcha('issue', log!.id)])
      expect(await issueTitles()).toEqual(before)
      expect(siteverify.received).toEqual([])

      const retried = await createIssue(authorToken, body, { 'X-Svc-Captcha-Response': RIGHT_ANSWER, 'X-Svc-Spam-Log-Id': String(log!.id) })
      expect(retried.status).toBe(201)
      expect(retried.body).toMatchObject({ title: body.title, description: body.description })
      expect(await issueTitles()).toEqual([...before, body.title])
      expect(siteverify.received).toEqual([
        {
          method: 'POST',
          contentType: 'application/x-www-form-urlencoded',
          secret: SECRET,
          response: RIGHT_ANSWER,
          remoteip: '127.0.0.1',
        },
      ])
      const logs = await spamLogs()
      expect(logs).toHaveLength(1)
      expect(logs[0]!.recaptcha_verified).toBe(1)
    })

    test('accepts GitLab’s header spellings', async () => {
      const refused = await createIssue(authorToken, { title: 'cheap pills by GitLab client' })
      expect(refused.status).toBe(409)
      const retried = await createIssue(
        authorToken,
        { title: 'cheap pills by GitLab client' },
        { 'X-GitLab-Captcha-Response': RIGHT_ANSWER, 'X-GitLab-Spam-Log-Id': String(refused.body.spam_log_id) },
      )
      expect(retried.status).toBe(201)
    })

    test('a wrong answer gets the same 409 again, with a new spam log, and writes nothing', async () => {
      const before = await issueTitles()
      const body = { title: 'cheap pills, wrong answer' }
      const first = await createIssue(authorToken, body)
      const firstId: number = first.body.spam_log_id
      for (const answer of ['wrong-answer', 'verifier-breaks']) {
        const retried = await createIssue(authorToken, body, { 'X-Svc-Captcha-Response': answer, 'X-Svc-Spam-Log-Id': String(firstId) })
        const newest = (await spamLogs()).at(-1)!
        expect(newest.id).not.toBe(firstId)
        expect([retried.status, retried.text]).toEqual([409, needsCaptcha('issue', newest.id)])
      }
      expect(siteverify.received.map((received) => received.response)).toEqual(['wrong-answer', 'verifier-breaks'])
      expect(await issueTitles()).toEqual(before)
      expect((await spamLogs()).map((log) => log.recaptcha_verified)).toEqual([0, 0, 0])
    })

    test('another user’s spam log does not let a write through, even with a right answer', async () => {
      const before = await issueTitles()
      const theirs = await createIssue(otherToken, { title: 'their cheap pills' })
      expect(theirs.status).toBe(409)
      const retried = await createIssue(
        authorToken,
        { title: 'my cheap pills' },
        { 'X-Svc-Captcha-Response': RIGHT_ANSWER, 'X-Svc-Spam-Log-Id': String(theirs.body.spam_log_id) },
      )
      const newest = (await spamLogs()).at(-1)!
      expect([retried.status, retried.text]).toEqual([409, needsCaptcha('issue', newest.id)])
      expect(newest).toMatchObject({ user_id: author.id, title: 'my cheap pills' })
      // The answer is not even sent to the verifier.
      expect(siteverify.received).toEqual([])
      // Nor does a right answer without a spam log id.
      const withoutLog = await createIssue(authorToken, { title: 'my cheap pills' }, { 'X-Svc-Captcha-Response': RIGHT_ANSWER })
      expect(withoutLog.status).toBe(409)
      expect(await issueTitles()).toEqual(before)
      expect((await spamLogs()).map((log) => log.recaptcha_verified)).toEqual([0, 0, 0])
    })

    test('notes are asked for a CAPTCHA the same way', async () => {
      const issue = await createTestIssue(server.database.db, { project, author })
      const path = `/api/v4/projects/${project.id}/issues/${issue.iid}/notes`
      const refused = await request('POST', path, { token: authorToken, body: { body: 'cheap pills in a comment' } })
      const [log] = await spamLogs()
      expect([refused.status, refused.text]).toEqual([409, needsCaptcha('note', log!.id)])
      const retried = await request('POST', path, {
        token: authorToken,
        body: { body: 'cheap pills in a comment' },
        headers: { 'X-Svc-Captcha-Response': RIGHT_ANSWER, 'X-Svc-Spam-Log-Id': String(log!.id) },
      })
      expect(retried.status).toBe(201)
      expect(retried.body.body).toBe('cheap pills in a comment')
    })

    test('turning reCAPTCHA off again discards spam outright', async () => {
      await putSettings({ recaptcha_enabled: false })
      const response = await createIssue(
        authorToken,
        { title: 'cheap pills' },
        { 'X-Svc-Captcha-Response': RIGHT_ANSWER, 'X-Svc-Spam-Log-Id': '1' },
      )
      expect([response.status, response.text]).toEqual([400, discarded('issue')])
      expect(siteverify.received).toEqual([])
    })
  })
})
