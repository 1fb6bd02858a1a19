import { randomBytes } from 'node:crypto'
import { PassThrough } from 'node:stream'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { GitError } from '../features/repositories/git.js'
import { createTestApplication, createTestGrant, disableProtectedPathThrottle, REDIRECT_URI } from '../features/oauth/token-fixtures.js'
import { webClient } from '../features/sessions/testing.js'
import { createTestToken, createTestUser } from '../testing/factories.js'
import { GitClient, repoUrl } from '../testing/git.js'
import { client } from '../testing/http.js'
import { startTestServer, type TestServer } from '../testing/server.js'
import { createTestSession } from '../testing/sessions.js'
import { filterText, filterUrl, redactingLoggerOptions } from './log-redaction.js'

describe('filterUrl and filterText', () => {
  test('query values of GitLab’s filtered names, and sentry_key, client_secret and code_verifier, become [FILTERED]', () => {
    expect(filterUrl('/api/v4/user?private_token=abc&per_page=2&PRIVATE_TOKEN=d&access_token=e&sentry_key=f')).toBe(
      '/api/v4/user?private_token=[FILTERED]&per_page=2&PRIVATE_TOKEN=[FILTERED]&access_token=[FILTERED]&sentry_key=[FILTERED]',
    )
    expect(filterUrl('/oauth/token?code=1&client_secret=2&code_verifier=3&client_id=4&redirect_uri=5&state=6')).toBe(
      '/oauth/token?code=[FILTERED]&client_secret=[FILTERED]&code_verifier=[FILTERED]&client_id=4&redirect_uri=5&state=6',
    )
    expect(filterUrl('/x?user%5Bpassword%5D=a&user[login]=b&job_token=c&authenticity_token=d&otp_attempt=e&title=f&search=g')).toBe(
      '/x?user%5Bpassword%5D=[FILTERED]&user[login]=b&job_token=[FILTERED]&authenticity_token=[FILTERED]&otp_attempt=[FILTERED]&title=[FILTERED]&search=g',
    )
    expect(filterUrl("/x?private_token=it's;secret&a")).toBe('/x?private_token=[FILTERED];secret&a')
    expect(filterUrl('/x?private%5Ftoken%ZZ%5Btoken%5D=a&%E9t%C3=b')).toBe('/x?private%5Ftoken%ZZ%5Btoken%5D=[FILTERED]&%E9t%C3=b')
    expect(filterUrl('/group/project.git/info/refs?service=git-upload-pack')).toBe('/group/project.git/info/refs?service=git-upload-pack')
  })

  test('credentials in URLs within text go, user and password alike', () => {
    expect(filterUrl('http://oauth2:tok@host:80/a.git')).toBe('http://[FILTERED]@host:80/a.git')
    expect(filterText('Sentry sentry_version=7, sentry_key=abc,sentry_secret=def token=ghi --git-dir=/srv/a.git')).toBe(
      'Sentry sentry_version=7, sentry_key=[FILTERED],sentry_secret=[FILTERED] token=[FILTERED] --git-dir=/srv/a.git',
    )
    expect(filterText("git fetch https://tok@example.com/a.git?private_token=x failed: 'http://u:p@h/'")).toBe(
      "git fetch https://[FILTERED]@example.com/a.git?private_token=[FILTERED] failed: 'http://[FILTERED]@h/'",
    )
  })

  test('errors lose secret-named fields and the credentials in their messages; credential headers are redacted', () => {
    const lines: string[] = []
    const stream = new PassThrough()
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)))
    const log = pino(redactingLoggerOptions('info'), stream)
    const failed = Object.assign(new GitError(['clone', 'http://root:hunter2@example.com/a.git'], 128, 'fatal: denied'), {
      body: '{"password":"hunter2"}',
    })
    log.error({ err: failed }, 'clone of http://root:hunter2@example.com/a.git failed')
    log.info({ headers: { authorization: 'Bearer hunter2', 'private-token': 'hunter2', accept: '*/*' } }, 'headers')
    stream.end()
    expect(lines.join('\n')).not.toContain('hunter2')
    const [error, headers] = lines.map((line) => JSON.parse(line) as Record<string, any>)
    expect(error.msg).toBe('clone of http://[FILTERED]@example.com/a.git failed')
    expect(error.err.args).toEqual(['clone', 'http://[FILTERED]@example.com/a.git'])
    expect(error.err.body).toBe('[FILTERED]')
    expect(error.err.code).toBe(128)
    expect(error.err.stderr).toBe('fatal: denied')
    expect(headers.headers).toEqual({ authorization: '[FILTERED]', 'private-token': '[FILTERED]', accept: '*/*' })
  })
})

describe('a session using every credential form', () => {
  let server: TestServer
  const lines: string[] = []
  const gitClient = new GitClient()

  beforeAll(async () => {
    const stream = new PassThrough()
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)))
    server = await startTestServer({ SVC_LOG_LEVEL: 'debug' }, { logStream: stream })
    await disableProtectedPathThrottle(server)
  })
  afterAll(async () => {
    await server.close()
    gitClient.remove()
  })

  test('no secret reaches a log line, while every request is logged', async () => {
    const db = server.database.db
    const request = client(server.url)
    const password = `pw-${randomBytes(12).toString('hex')}`
    const user = await createTestUser(db, { password })
    const pat = (await createTestToken(db, user)).value
    const secrets: string[] = [server.rootToken, password, pat]

    // A personal access token in PRIVATE-TOKEN, in private_token=, and as a bearer.
    expect((await request('GET', '/api/v4/user', { token: pat })).status).toBe(200)
    expect((await request('GET', `/api/v4/user?private_token=${pat}`)).status).toBe(200)
    expect((await request('GET', '/api/v4/user', { headers: { authorization: `Bearer ${pat}` } })).status).toBe(200)
    const badToken = `glpat-${randomBytes(10).toString('hex')}`
    secrets.push(badToken)
    expect((await request('GET', `/api/v4/user?private_token=${badToken}`)).status).toBe(401)
    expect((await request('GET', '/api/v4/projects/no/such-project', { token: pat })).status).toBe(404)

    // An OAuth code exchanged with PKCE, its parameters in the query; the access token in access_token= and as a bearer.
    const application = await createTestApplication(db)
    const codeVerifier = randomBytes(32).toString('base64url')
    const grant = await createTestGrant(db, application, user, { codeVerifier })
    secrets.push(application.secret, grant.code, codeVerifier)
    const exchange = new URLSearchParams({
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: REDIRECT_URI,
      client_id: application.clientId,
      client_secret: application.secret,
      code_verifier: codeVerifier,
    })
    const tokens = await request('POST', `/oauth/token?${exchange.toString()}`)
    expect(tokens.status, tokens.text).toBe(200)
    const accessToken = tokens.body.access_token as string
    const refreshToken = tokens.body.refresh_token as string
    secrets.push(accessToken, refreshToken)
    expect((await request('GET', `/api/v4/user?access_token=${accessToken}`)).status).toBe(200)
    expect((await request('GET', '/api/v4/user', { headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(200)
    expect((await request('GET', `/oauth/token/info?access_token=${accessToken}`)).status).toBe(200)

    // Git over HTTP with Basic credentials: a token, then the password.
    const created = await request('POST', '/api/v4/projects', {
      token: pat,
      body: { name: 'Logged', visibility: 'private', initialize_with_readme: true },
    })
    expect(created.status, created.text).toBe(201)
    const project = created.body as { id: number; path_with_namespace: string }
    const byToken = await gitClient.clone(repoUrl(server.url, project.path_with_namespace, 'oauth2', pat))
    expect(byToken.run.code, byToken.run.stderr).toBe(0)
    const byPassword = await gitClient.clone(repoUrl(server.url, project.path_with_namespace, user.username, password))
    expect(byPassword.run.code, byPassword.run.stderr).toBe(0)
    const refused = await gitClient.clone(repoUrl(server.url, project.path_with_namespace, user.username, badToken))
    expect(refused.run.code).not.toBe(0)

    // A session cookie with its CSRF token, and the sign-in form's password.
    const session = await createTestSession(server, user)
    secrets.push(session.cookie.split('=')[1], session.csrfToken)
    expect((await request('GET', '/', { headers: { cookie: session.cookie } })).status).toBe(200)
    const signOut = await request('POST', '/users/sign_out', {
      headers: { cookie: session.cookie },
      form: true,
      body: { _method: 'delete', authenticity_token: session.csrfToken },
    })
    expect(signOut.status).toBe(302)
    const web = webClient(server.url)
    const signedIn = await web.signIn(user.username, password)
    expect(signedIn.status).toBe(302)
    secrets.push(web.cookie!)
    const wrong = await webClient(server.url).signIn(user.username, `${password}-wrong`)
    expect(wrong.status).toBe(200)

    // An error-tracking client key as sentry_key= and in X-Sentry-Auth.
    const settings = await request('PUT', `/api/v4/projects/${project.id}/error_tracking/settings?active=true&integrated=true`, {
      token: pat,
    })
    expect(settings.status, settings.text).toBe(200)
    const key = await request('POST', `/api/v4/projects/${project.id}/error_tracking/client_keys`, { token: pat })
    expect(key.status, key.text).toBe(201)
    const publicKey = key.body.public_key as string
    secrets.push(publicKey)
    const envelope = `${JSON.stringify({ event_id: 'a'.repeat(32) })}\n${JSON.stringify({ type: 'event' })}\n${JSON.stringify({
      event_id: 'a'.repeat(32),
      platform: 'node',
      level: 'error',
      environment: 'production',
      timestamp: 1700000000.5,
      exception: { values: [{ type: 'TypeError', value: 'x is undefined', stacktrace: { frames: [{ function: 'run', lineno: 1 }] } }] },
    })}\n`
    const collector = `/api/v4/error_tracking/collector/api/${project.id}/envelope`
    const sentryHeaders = { 'content-type': 'application/x-sentry-envelope' }
    const byQuery = await request('POST', `${collector}?sentry_key=${publicKey}`, { headers: sentryHeaders, body: envelope })
    expect(byQuery.status, byQuery.text).toBe(200)
    const sentryAuth = { ...sentryHeaders, 'x-sentry-auth': `Sentry sentry_version=7, sentry_key=${publicKey}` }
    expect((await request('POST', collector, { headers: sentryAuth, body: envelope })).status).toBe(200)

    // An alert integration's key as a bearer, right and wrong.
    const integration = await request('POST', `/api/v4/projects/${project.id}/alert_management/http_integrations`, {
      token: pat,
      body: { name: 'Logged', active: true },
    })
    expect(integration.status, integration.text).toBe(201)
    const alertKey = integration.body.token as string
    secrets.push(alertKey)
    const notify = new URL(integration.body.url as string).pathname
    const alert = await request('POST', notify, { headers: { authorization: `Bearer ${alertKey}` }, body: { title: 'logged' } })
    expect(alert.status, alert.text).toBe(200)
    const wrongAlert = await request('POST', notify, { headers: { authorization: `Bearer ${alertKey}x` }, body: { title: 'no' } })
    expect(wrongAlert.status).toBe(401)

    const log = lines.join('\n')
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8)
      expect(log.includes(secret), `a log line holds ${secret}`).toBe(false)
    }
    expect(log).not.toContain(encodeURIComponent(password))

    // The request lines are there, with their filtered URLs and status codes.
    const entries = lines.map((line) => JSON.parse(line) as Record<string, any>)
    const urls = entries.filter((entry) => entry.msg === 'incoming request').map((entry) => entry.req.url as string)
    expect(urls).toContain('/api/v4/user?private_token=[FILTERED]')
    expect(urls).toContain('/api/v4/user?access_token=[FILTERED]')
    expect(urls).toContain(
      `/oauth/token?grant_type=authorization_code&code=[FILTERED]&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&client_id=${application.clientId}&client_secret=[FILTERED]&code_verifier=[FILTERED]`,
    )
    expect(urls).toContain(`${collector}?sentry_key=[FILTERED]`)
    expect(urls).toContain(`/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`)
    expect(urls).toContain(notify)
    expect(urls).toContain('/users/sign_in')
    const incoming = entries.find((entry) => entry.msg === 'incoming request' && entry.req.url === '/api/v4/user?private_token=[FILTERED]')!
    expect(Object.keys(incoming.req).sort()).toEqual(['host', 'method', 'remoteAddress', 'remotePort', 'url'])
    const statuses = entries.filter((entry) => entry.msg === 'request completed').map((entry) => entry.res.statusCode as number)
    expect(statuses).toEqual(expect.arrayContaining([200, 201, 302, 401, 404]))
    expect(statuses.length).toBe(urls.length)
  })
})
