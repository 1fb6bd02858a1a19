// OAuth token endpoint figures: svc's refresh-token grant against oidc-provider's (in-memory adapter, rotating
// refresh tokens) in the same run, and the latency of svc's password grant (scrypt). Prints figures only.
// Run alone with `node bench/oauth.mjs` after `npm run build`, or through `npm run bench` (bench/run.mjs).
// `node bench/oauth.mjs oidc-provider <port> <chains> <scope>` is the oidc-provider child it starts.
import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, URLSearchParams } from 'node:url'
import { format, freePort, root, startSvc, stop, svcEnv, treeMemory } from './common.mjs'

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
// One refresh chain per connection: rotation revokes each refresh token once used, so a chain is sequential.
const chains = Number(process.env.BENCH_CONNECTIONS ?? 10)
const CLIENT_ID = 'bench-client'
const CLIENT_SECRET = `bench-secret-${randomBytes(8).toString('hex')}`
const BASIC = `Basic ${Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`).toString('base64')}`
const ROOT_PASSWORD = `bench-root-${randomBytes(8).toString('hex')}`
const PASSWORD_REQUESTS = Number(process.env.BENCH_PASSWORD_REQUESTS ?? 100)
const sha256 = (value) => createHash('sha256').update(value).digest('hex')

/** The oidc-provider side: one confidential client, rotating refresh tokens, `chains` refresh tokens printed as JSON. */
async function serveOidcProvider(port, count, scope) {
  const { default: Provider } = await import('oidc-provider')
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: process.env.BENCH_CLIENT_SECRET,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: ['https://rp.example.com/callback'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    scopes: ['openid', 'offline_access', 'api'],
    rotateRefreshToken: true,
    findAccount: async (_ctx, accountId) => ({ accountId, claims: async () => ({ sub: accountId }) }),
    ttl: { AccessToken: 7200, RefreshToken: 14 * 86400, Grant: 14 * 86400, IdToken: 120, Session: 86400, Interaction: 3600 },
    features: { devInteractions: { enabled: false } },
  })
  const client = await provider.Client.find(CLIENT_ID)
  const refreshTokens = []
  for (let index = 0; index < count; index++) {
    const grant = new provider.Grant({ accountId: '1', clientId: CLIENT_ID })
    grant.addOIDCScope(scope)
    const grantId = await grant.save()
    const token = new provider.RefreshToken({ accountId: '1', client, grantId, scope, gty: 'authorization_code' })
    refreshTokens.push(await token.save())
  }
  const server = provider.listen(port, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ refreshTokens })}\n`))
  server.keepAliveTimeout = 72_000
  process.on('SIGTERM', () => server.close(() => process.exit(0)))
}

function send(port, method, urlPath, headers, body, agent) {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers, agent }, (response) => {
      const chunks = []
      response.on('data', (chunk) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode, body: Buffer.concat(chunks).toString() }))
    })
    request.on('error', reject)
    request.end(body)
  })
}

/** The OAuth application and one refresh chain per connection, written into svc's SQLite file as the token endpoint writes them. */
function seedSvc(dataDir, count, scope) {
  const Database = createRequire(import.meta.url)(path.join(root, 'node_modules/better-sqlite3'))
  const db = new Database(path.join(dataDir, 'svc.sqlite3'))
  const at = new Date().toISOString()
  const refreshTokens = []
  db.transaction(() => {
    const { id: userId } = db.prepare("select id from users where username = 'root'").get()
    let application = db.prepare('select id from oauth_applications where uid = ?').get(CLIENT_ID)
    if (!application) {
      const id = db
        .prepare(
          "insert into oauth_applications (uid, secret_digest, name, redirect_uri, scopes, confidential, created_at, updated_at) values (?, ?, 'Bench', 'https://rp.example.com/callback', 'api openid', 1, ?, ?)",
        )
        .run(CLIENT_ID, sha256(CLIENT_SECRET), at, at).lastInsertRowid
      application = { id }
    }
    const insert = db.prepare(
      'insert into oauth_access_tokens (application_id, resource_owner_id, token_digest, refresh_token_digest, scopes, expires_in, created_at) values (?, ?, ?, ?, ?, 7200, ?)',
    )
    for (let index = 0; index < count; index++) {
      const refreshToken = randomBytes(32).toString('hex')
      insert.run(application.id, userId, sha256(randomBytes(32).toString('hex')), sha256(refreshToken), scope, at)
      refreshTokens.push(refreshToken)
    }
  })()
  db.close()
  return refreshTokens
}

function percentile(sorted, fraction) {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]
}

/**
 * Refreshes along every chain at once, each chain on its own keep-alive connection, for `durationMs`: each
 * request sends the refresh token the previous answer gave. A refused refresh ends its chain (counted as failed).
 */
async function refreshLoad(port, urlPath, state, durationMs) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: state.length })
  const latencies = []
  let failed = 0
  let firstFailure = null
  const started = performance.now()
  const deadline = started + durationMs
  await Promise.all(
    state.map(async (chain) => {
      while (chain.refreshToken && performance.now() < deadline) {
        const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: chain.refreshToken }).toString()
        const sent = performance.now()
        const response = await send(
          port,
          'POST',
          urlPath,
          { authorization: BASIC, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
          body,
          agent,
        )
        latencies.push(performance.now() - sent)
        const refreshToken = response.status === 200 ? JSON.parse(response.body).refresh_token : undefined
        if (!refreshToken) {
          failed++
          firstFailure ??= `${response.status} ${response.body.slice(0, 200)}`
        }
        chain.refreshToken = refreshToken
      }
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  agent.destroy()
  latencies.sort((a, b) => a - b)
  return {
    rps: (latencies.length - failed) / elapsed,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    requests: latencies.length,
    failed,
    firstFailure,
  }
}

/** `total` password grants, `concurrency` at a time, each on a fresh connection as a CLI or script signs in. */
async function passwordLoad(port, total, concurrency) {
  const body = new URLSearchParams({ grant_type: 'password', username: 'root', password: ROOT_PASSWORD }).toString()
  const latencies = []
  let failed = 0
  let firstFailure = null
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++
        const sent = performance.now()
        const response = await send(
          port,
          'POST',
          '/oauth/token',
          { authorization: BASIC, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
          body,
          false,
        )
        latencies.push(performance.now() - sent)
        if (response.status !== 200) {
          failed++
          firstFailure ??= `${response.status} ${response.body.slice(0, 200)}`
        }
      }
    }),
  )
  latencies.sort((a, b) => a - b)
  return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), requests: latencies.length, failed, firstFailure }
}

async function startOidcProvider(scope) {
  const port = await freePort()
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), 'oidc-provider', String(port), String(chains), scope], {
    env: { ...process.env, BENCH_CLIENT_SECRET: CLIENT_SECRET },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (data) => (stderr += data))
  const { refreshTokens } = await new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (data) => {
      out += data
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))))
    })
    child.once('exit', () => reject(new Error(`oidc-provider exited before listening: ${stderr.trim()}`)))
  })
  return { child, port, refreshTokens }
}

function printTable(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
  for (const row of rows)
    console.log(row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  '))
}

/** The OAuth figures, on a fresh SQLite data directory of their own. */
export async function benchOAuth() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-oauth-'))
  const rootToken = `bench-${randomBytes(16).toString('hex')}`
  // svc as it ships (one worker process per core) unless OAUTH_WORKERS says otherwise; oidc-provider is one process.
  const env = await svcEnv(dataDir, {
    SVC_ROOT_TOKEN: rootToken,
    SVC_ROOT_PASSWORD: ROOT_PASSWORD,
    SVC_WORKERS: process.env.OAUTH_WORKERS ?? '',
  })
  const port = Number(env.SVC_PORT)
  let svc = null
  let provider = null
  try {
    await stop((await startSvc(env)).child)
    const scenarios = [
      { name: 'refresh_token grant', scope: 'api', oidcScope: 'offline_access api' },
      { name: 'refresh_token grant, openid (ID token)', scope: 'api openid', oidcScope: 'openid offline_access api' },
    ]
    for (const scenario of scenarios) scenario.svcTokens = seedSvc(dataDir, chains, scenario.scope)
    svc = (await startSvc(env)).child
    // Every request here is a POST to /oauth/token, a protected path: its throttle would stop the load at 10 a minute.
    const settings = await send(
      port,
      'PUT',
      '/api/v4/application/settings',
      { 'private-token': rootToken, 'content-type': 'application/json' },
      JSON.stringify({ throttle_protected_paths_enabled: false }),
      false,
    )
    if (settings.status !== 200) throw new Error(`could not turn the protected-paths throttle off: ${settings.status} ${settings.body}`)

    console.log(`\nOAuth token endpoint: ${chains} connections, one refresh chain each, ${seconds} s per target, loopback`)
    const rows = [
      [
        'scenario',
        'svc req/s',
        'oidc-provider req/s',
        'svc/oidc-provider',
        'svc p50 ms',
        'svc p99 ms',
        'op p50 ms',
        'op p99 ms',
        'svc RSS MB (all processes)',
      ],
    ]
    for (const scenario of scenarios) {
      provider = await startOidcProvider(scenario.oidcScope)
      const svcChains = scenario.svcTokens.map((refreshToken) => ({ refreshToken }))
      const providerChains = provider.refreshTokens.map((refreshToken) => ({ refreshToken }))
      // A second of warm-up on each, continuing the same chains.
      await refreshLoad(port, '/oauth/token', svcChains, 1000)
      await refreshLoad(provider.port, '/token', providerChains, 1000)
      const measured = await refreshLoad(port, '/oauth/token', svcChains, seconds * 1000)
      const baseline = await refreshLoad(provider.port, '/token', providerChains, seconds * 1000)
      await stop(provider.child)
      provider = null
      for (const [who, result] of [
        ['svc', measured],
        ['oidc-provider', baseline],
      ])
        if (result.failed)
          console.log(`${scenario.name}: ${who} refused ${result.failed} of ${result.requests}, first: ${result.firstFailure}`)
      rows.push([
        scenario.name,
        format(measured.rps),
        format(baseline.rps),
        `${format(measured.rps / baseline.rps, 2)}x`,
        format(measured.p50, 1),
        format(measured.p99, 1),
        format(baseline.p50, 1),
        format(baseline.p99, 1),
        format(treeMemory(svc.pid).total, 1),
      ])
    }
    printTable(rows)
    console.log('target: refresh_token grant svc/oidc-provider >= 2x')

    const passwordRows = [['password grant (scrypt)', 'requests', 'p50 ms', 'p99 ms']]
    await passwordLoad(port, 4, 1)
    for (const concurrency of [1, 4]) {
      const result = await passwordLoad(port, PASSWORD_REQUESTS, concurrency)
      if (result.failed) console.log(`password grant: refused ${result.failed} of ${result.requests}, first: ${result.firstFailure}`)
      passwordRows.push([
        concurrency === 1 ? 'sequential' : `concurrency ${concurrency}`,
        String(result.requests),
        format(result.p50, 1),
        format(result.p99, 1),
      ])
    }
    console.log('')
    printTable(passwordRows)
  } catch (error) {
    console.log(`OAuth bench could not finish: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    if (provider) await stop(provider.child)
    if (svc) await stop(svc)
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === 'oidc-provider') await serveOidcProvider(Number(process.argv[3]), Number(process.argv[4]), process.argv[5])
  else await benchOAuth()
}
