import { execFile, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import https from 'node:https'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { parseSetCookie } from 'cookie'
import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SESSION_COOKIE } from './features/sessions/service.js'
import { startReceiver, type Receiver } from './features/webhooks/testing.js'
import { authenticityTokenOf } from './features/sessions/testing.js'
import { freePort } from './testing/cli.js'
import { GitClient } from './testing/git.js'
import { createPerson, type Person } from './testing/repositories.js'
import { startTestServer, type TestServer } from './testing/server.js'

// svc behind Debian's nginx terminating TLS, with the configuration the README's "Behind a TLS proxy" shows.

const NGINX = '/usr/sbin/nginx'
const run = promisify(execFile)

/** The README's nginx server block, listening on `port` with the certificate in `dir`, passing to svc at `upstream`. */
function nginxServerBlock(port: number, dir: string, upstream: string): string {
  return `server {
    listen 127.0.0.1:${port} ssl;
    server_name 127.0.0.1;
    ssl_certificate ${dir}/cert.pem;
    ssl_certificate_key ${dir}/key.pem;

    # Pushes and uploads of any size; svc sets its own limits.
    client_max_body_size 0;

    location / {
      proxy_pass ${upstream};
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $http_host;
      # Git streams packs both ways: pass them on as they come.
      proxy_request_buffering off;
      proxy_buffering off;
      proxy_read_timeout 3600s;
    }
  }`
}

/** A whole nginx configuration for an unprivileged run: pid, logs and temporary files all under `dir`. */
function nginxConfig(port: number, dir: string, upstream: string): string {
  // Started by root, nginx's workers would become `nobody`, who cannot write in the test's private directory.
  const user = process.getuid?.() === 0 ? 'user root root;' : ''
  return `${user}
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
daemon off;
events { worker_connections 64; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/client-body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  ${nginxServerBlock(port, dir, upstream)}
}
`
}

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

/** One HTTPS request that trusts the test's certificate (and only it). */
function httpsRequest(ca: string, url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const request = https.request(url, { method: options.method ?? 'GET', headers: options.headers, ca }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }),
      )
      response.on('error', reject)
    })
    request.on('error', reject)
    request.end(options.body)
  })
}

/** oauth4webapi's fetch, over httpsRequest. */
function fetchTrusting(ca: string) {
  return async (url: string, options: oauth.CustomFetchOptions<string, unknown>): Promise<Response> => {
    const headers = options.headers
    const body = options.body == null ? undefined : String(options.body)
    const answer = await httpsRequest(ca, url, { method: options.method, headers, body })
    const responseHeaders = new Headers()
    for (const [name, value] of Object.entries(answer.headers)) for (const one of [value ?? []].flat()) responseHeaders.append(name, one)
    return new Response(answer.status === 204 ? null : answer.text, { status: answer.status, headers: responseHeaders })
  }
}

let dir: string
let ca: string
let nginx: ChildProcess | undefined
let server: TestServer
let external: string
let alice: Person
let receiver: Receiver
const git = new GitClient()

/** Waits until nginx answers through to svc. */
async function waitForNginx() {
  for (let i = 0; i < 200; i++) {
    if (nginx?.exitCode != null) throw new Error(`nginx exited: ${fs.readFileSync(path.join(dir, 'error.log'), 'utf8')}`)
    try {
      if ((await httpsRequest(ca, `${external}/-/health`)).status === 200) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('nginx did not start')
}

beforeAll(async () => {
  // The test runs nginx itself: without it, it fails rather than pass unseen (.ci/run installs it).
  expect(fs.existsSync(NGINX), `${NGINX} is missing: apt-get install -y nginx`).toBe(true)
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-nginx-'))
  await run('openssl', [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'],
    ...['-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')],
  ])
  ca = fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8')
  const port = await freePort()
  external = `https://127.0.0.1:${port}`
  server = await startTestServer({ SVC_EXTERNAL_URL: external, SVC_TRUSTED_PROXIES: '127.0.0.1' })
  // startTestServer names the instance by its own address; this one is reached through nginx.
  server.config.externalUrl = external
  fs.writeFileSync(path.join(dir, 'nginx.conf'), nginxConfig(port, dir, server.url))
  nginx = spawn(NGINX, ['-e', path.join(dir, 'error.log'), '-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: 'ignore' })
  await waitForNginx()
  alice = await createPerson(server.database.db, 'alice')
  receiver = await startReceiver()
})

afterAll(async () => {
  if (nginx && nginx.exitCode === null) {
    const exited = new Promise((resolve) => nginx!.once('exit', resolve))
    nginx.kill('SIGTERM')
    await exited
  }
  await server?.close()
  await receiver?.close()
  git.remove()
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
})

/** An API request through nginx. */
function api(method: string, apiPath: string, token: string, body?: unknown) {
  return httpsRequest(ca, `${external}/api/v4${apiPath}`, {
    method,
    headers: { 'private-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

/** A browser through nginx: keeps the session cookie it is given. */
function browser() {
  let cookie: string | null = null
  const cookies: string[] = []
  return {
    cookies,
    async request(method: string, pagePath: string, form?: Record<string, string>) {
      const headers: Record<string, string> = {}
      if (cookie !== null) headers.cookie = `${SESSION_COOKIE}=${cookie}`
      if (form) headers['content-type'] = 'application/x-www-form-urlencoded'
      const answer = await httpsRequest(ca, pagePath.startsWith('https:') ? pagePath : `${external}${pagePath}`, {
        method,
        headers,
        body: form ? new URLSearchParams(form).toString() : undefined,
      })
      const setCookie = answer.headers['set-cookie']
      for (const line of [setCookie ?? []].flat()) {
        cookies.push(line)
        const parsed = parseSetCookie(line)
        if (parsed.name === SESSION_COOKIE) cookie = parsed.value || null
      }
      return answer
    },
  }
}

async function signIn(person: Person) {
  const web = browser()
  const form = await web.request('GET', '/users/sign_in')
  expect(form.status).toBe(200)
  const signedIn = await web.request('POST', '/users/sign_in', {
    authenticity_token: authenticityTokenOf(form.text),
    'user[login]': person.user.username,
    'user[password]': person.password,
  })
  expect(signedIn.status).toBe(302)
  expect(signedIn.headers.location).toBe('/')
  return web
}

describe('behind nginx terminating TLS', () => {
  test('the API hands out https URLs: web, clone, pagination links, Sentry DSN', async () => {
    const created = await api('POST', '/projects', alice.token, { name: 'behind-tls', initialize_with_readme: true, visibility: 'private' })
    expect(created.status, created.text).toBe(201)
    const project = JSON.parse(created.text)
    expect(project.web_url).toBe(`${external}/alice/behind-tls`)
    expect(project.http_url_to_repo).toBe(`${external}/alice/behind-tls.git`)
    expect(project.readme_url).toBe(`${external}/alice/behind-tls/-/blob/main/README.md`)
    expect(project._links.self).toBe(`${external}/api/v4/projects/${project.id}`)
    const listed = await api('GET', '/projects?membership=true&per_page=1', alice.token)
    expect(listed.status).toBe(200)
    expect(listed.headers.link).toContain(`<${external}/api/v4/projects?`)
    expect(String(listed.headers.link)).not.toContain('http:')
    const key = await api('POST', `/projects/${project.id}/error_tracking/client_keys`, alice.token)
    expect(key.status, key.text).toBe(201)
    const { public_key: publicKey, sentry_dsn: dsn } = JSON.parse(key.text)
    expect(dsn).toBe(`https://${publicKey}@127.0.0.1:${new URL(external).port}/api/v4/error_tracking/collector/${project.id}`)
  })

  test('git clones and pushes over https with a token, by the clone URL the API gives; the push hook names https URLs', async () => {
    const created = await api('POST', '/projects', alice.token, { name: 'cloned', initialize_with_readme: true, visibility: 'private' })
    expect(created.status, created.text).toBe(201)
    const projectId = JSON.parse(created.text).id
    const allowed = await api('PUT', '/application/settings', server.rootToken, { allow_local_requests_from_web_hooks_and_services: true })
    expect(allowed.status).toBe(200)
    const hook = await api('POST', `/projects/${projectId}/hooks`, alice.token, { url: `${receiver.url}/hook`, push_events: true })
    expect(hook.status, hook.text).toBe(201)
    const url = new URL(JSON.parse(created.text).http_url_to_repo)
    url.username = 'alice'
    url.password = alice.token
    const sslCa = ['-c', `http.sslCAInfo=${path.join(dir, 'cert.pem')}`]
    const dest = git.freshDir()
    await git.ok(git.workDir, ...sslCa, 'clone', '--quiet', url.toString(), dest)
    expect(fs.readFileSync(path.join(dest, 'README.md'), 'utf8')).toContain('cloned')
    fs.writeFileSync(path.join(dest, 'big.bin'), Buffer.alloc(3 * 1024 * 1024, 7))
    await git.ok(dest, 'add', 'big.bin')
    await git.ok(dest, 'commit', '--quiet', '-m', 'Add a large file')
    await git.ok(dest, ...sslCa, 'push', '--quiet', 'origin', 'main')
    const head = (await git.ok(dest, 'rev-parse', 'HEAD')).trim()
    const branch = await api('GET', `/projects/${projectId}/repository/branches/main`, alice.token)
    expect(JSON.parse(branch.text).commit.id).toBe(head)
    await server.runJobs()
    const [push] = await receiver.waitFor(1)
    const payload = JSON.parse(push.body)
    expect(payload.object_kind).toBe('push')
    expect(payload.project.web_url).toBe(`${external}/alice/cloned`)
    expect(payload.project.git_http_url).toBe(`${external}/alice/cloned.git`)
    expect(payload.repository.homepage).toBe(`${external}/alice/cloned`)
    expect(payload.commits.map((commit: { url: string }) => commit.url)).toEqual([`${external}/alice/cloned/-/commit/${head}`])
    expect(push.body).not.toContain('http://')
    // A wrong token is refused through the proxy as directly.
    url.password = 'not-a-token-at-all'
    const refused = await git.run(git.workDir, ...sslCa, 'clone', '--quiet', url.toString(), git.freshDir())
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('Authentication failed')
  })

  test('signing in on the web sets a Secure session cookie and the pages link by relative paths', async () => {
    const web = await signIn(alice)
    expect(web.cookies.length).toBeGreaterThanOrEqual(2)
    for (const line of web.cookies) expect(line).toMatch(/^_svc_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure; SameSite=Lax$/)
    const home = await web.request('GET', '/')
    expect(home.status).toBe(200)
    expect(home.text).toContain('<strong>@alice</strong>')
    expect(home.text).not.toContain('http://')
  })

  test('OAuth: discovery names only https URLs, and the authorization code flow works through them', async () => {
    const customFetch = { [oauth.customFetch]: fetchTrusting(ca) }
    const issuer = new URL(external)
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...customFetch, algorithm: 'oidc' }))
    expect(as.issuer).toBe(external)
    const urls = Object.entries(as).filter(([, value]) => typeof value === 'string' && /^[a-z]+:\/\//.test(value))
    expect(urls.map(([name]) => name)).toEqual([
      'issuer',
      'authorization_endpoint',
      'token_endpoint',
      'revocation_endpoint',
      'userinfo_endpoint',
      'jwks_uri',
    ])
    for (const [name, value] of urls.slice(1)) expect(String(value).startsWith(`${external}/oauth/`), `${name}: ${value}`).toBe(true)
    const redirectUri = 'https://client.example/callback'
    const registered = await api('POST', '/applications', server.rootToken, {
      name: 'Behind TLS',
      redirect_uri: redirectUri,
      scopes: 'read_user openid',
    })
    expect(registered.status, registered.text).toBe(201)
    const { application_id: clientId, secret } = JSON.parse(registered.text)
    const client: oauth.Client = { client_id: clientId }
    const verifier = oauth.generateRandomCodeVerifier()
    const state = oauth.generateRandomState()
    const nonce = oauth.generateRandomNonce()
    const authorize = new URL(as.authorization_endpoint!)
    authorize.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'read_user openid',
      state,
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString()

    const web = await signIn(alice)
    const consent = await web.request('GET', authorize.toString())
    expect(consent.status).toBe(200)
    expect(consent.text).toContain('<strong>Behind TLS</strong> is requesting access to your account')
    const approveForm = /<form[^>]*id="authorize">([\s\S]*?)<\/form>/.exec(consent.text)![1]
    const fields = Object.fromEntries(
      [...approveForm.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)" \/>/g)].map(([, name, value]) => [name, value]),
    )
    expect(Object.keys(fields)).toContain('code_challenge')
    const approved = await web.request('POST', '/oauth/authorize', fields)
    expect(approved.status).toBe(302)
    const callback = new URL(String(approved.headers.location))
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri)

    const params = oauth.validateAuthResponse(as, client, callback, state)
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretPost(secret),
      params,
      redirectUri,
      verifier,
      customFetch,
    )
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: nonce, requireIdToken: true })
    const claims = oauth.getValidatedIdTokenClaims(tokens)!
    expect(claims.iss).toBe(external)
    expect(claims.sub).toBe(String(alice.user.id))
    const info = await oauth.processUserInfoResponse(
      as,
      client,
      claims.sub,
      await oauth.userInfoRequest(as, client, tokens.access_token, customFetch),
    )
    expect(info.preferred_username).toBe('alice')
    expect(info.profile).toBe(`${external}/alice`)
  })

  test('the client address is the one nginx saw, or what a client sent before it: monitoring refuses a forwarded outsider', async () => {
    const ready = await httpsRequest(ca, `${external}/-/readiness`)
    expect(ready.status, ready.text).toBe(200)
    const outsider = await httpsRequest(ca, `${external}/-/readiness`, { headers: { 'x-forwarded-for': '203.0.113.9' } })
    expect(outsider.status).toBe(404)
    expect(outsider.text).toContain("Resource you were looking for doesn't exist.")
    expect((await httpsRequest(ca, `${external}/-/liveness`)).text).toBe('{"status":"ok"}')
  })
})
