import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { ProjectRow } from '../../db/schema.js'
import { createTestGroup, createTestProject } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

// Prometheus Alertmanager (Debian's prometheus-alertmanager) notifying svc through its webhook receiver: the
// Prometheus integration's URL with the key as a Bearer token, and an HTTP integration's URL with the key as the
// Basic password, which svc reads as Prometheus by the payload's shape.

const ALERTMANAGER = '/usr/bin/prometheus-alertmanager'
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex')

let server: TestServer
let request: ReturnType<typeof client>
let db: TestServer['database']['db']
let alertmanager: ChildProcess | null = null
let alertmanagerUrl = ''
let workDir = ''
let project: ProjectRow
let environmentId = 0
let integrations: { prometheus: Integration; http: Integration }

interface Integration {
  id: number
  url: string
  token: string
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
    probe.on('error', reject)
  })
}

async function integration(type: 'prometheus' | 'http', name: string): Promise<Integration> {
  const response = await request('POST', `/api/v4/projects/${project.id}/alert_management/http_integrations`, {
    token: server.rootToken,
    body: { type, name, active: true, create_incident: true, auto_close_incident: true },
  })
  expect(response.status, response.text).toBe(201)
  return { id: response.body.id, url: response.body.url, token: response.body.token }
}

function config(): string {
  return `global:
  resolve_timeout: 1s
route:
  receiver: prometheus
  group_by: ['alertname']
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
  routes:
    - receiver: http
      matchers: ['target="http"']
receivers:
  - name: prometheus
    webhook_configs:
      - url: ${JSON.stringify(integrations.prometheus.url)}
        send_resolved: true
        http_config:
          authorization:
            type: Bearer
            credentials: ${JSON.stringify(integrations.prometheus.token)}
  - name: http
    webhook_configs:
      - url: ${JSON.stringify(integrations.http.url)}
        send_resolved: true
        http_config:
          basic_auth:
            username: ''
            password: ${JSON.stringify(integrations.http.token)}
`
}

async function startAlertmanager() {
  const port = await freePort()
  fs.writeFileSync(path.join(workDir, 'alertmanager.yml'), config())
  const child = spawn(
    ALERTMANAGER,
    [
      `--config.file=${path.join(workDir, 'alertmanager.yml')}`,
      `--storage.path=${path.join(workDir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  child.stderr?.on('data', (chunk) => (stderr += chunk))
  alertmanager = child
  alertmanagerUrl = `http://127.0.0.1:${port}`
  // Polled by hand: expect.poll belongs to tests, and this runs before them.
  const deadline = Date.now() + 20_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`alertmanager exited: ${stderr}`)
    try {
      if ((await fetch(`${alertmanagerUrl}/-/ready`)).status === 200) return
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`alertmanager was not ready: ${stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  db = server.database.db
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-alertmanager-'))
  const group = await createTestGroup(db, {})
  project = await createTestProject(db, { namespace: group })
  const at = new Date().toISOString()
  const environment = await db
    .insertInto('environments')
    .values({ project_id: project.id, name: 'production', slug: 'production', created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow()
  environmentId = Number(environment.id)
  integrations = { prometheus: await integration('prometheus', 'Prometheus'), http: await integration('http', 'Alertmanager over HTTP') }
  await startAlertmanager()
}, 60_000)

afterAll(async () => {
  if (alertmanager && alertmanager.exitCode === null) {
    const exited = new Promise((resolve) => alertmanager!.once('exit', resolve))
    alertmanager.kill('SIGTERM')
    await exited
  }
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true })
  await server?.close()
})

interface PostedAlert {
  labels: Record<string, string>
  annotations: Record<string, string>
  startsAt: string
  endsAt: string
  generatorURL: string
}

async function postToAlertmanager(alerts: PostedAlert[]) {
  const response = await fetch(`${alertmanagerUrl}/api/v2/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(alerts),
  })
  expect(response.status, await response.text()).toBe(200)
}

/** The project's alerts through the API, after running whatever jobs the webhook left. */
async function svcAlerts(): Promise<Array<Record<string, any>>> {
  await server.runJobs()
  const response = await request('GET', `/api/v4/projects/${project.id}/alert_management/alerts?per_page=100&sort=created_asc`, {
    token: server.rootToken,
  })
  expect(response.status, response.text).toBe(200)
  return response.body
}

function firing(
  name: string,
  startsAt: string,
  labels: Record<string, string>,
  annotations: Record<string, string>,
  expr: string,
): PostedAlert {
  return {
    labels: { alertname: name, ...labels },
    annotations,
    startsAt,
    // Far ahead: the alert fires until told otherwise, whatever resolve_timeout says.
    endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    generatorURL: `http://prometheus.example:9090/graph?g0.expr=${encodeURIComponent(expr)}&g0.tab=1`,
  }
}

test('alerts Alertmanager sends are created in svc, with an incident each, and resolved when Alertmanager resolves them', async () => {
  const startsAt = '2026-11-23T22:00:00Z'
  const alerts = [
    firing(
      'HighLatency',
      startsAt,
      { severity: 'warning', svc_environment_name: 'production' },
      {
        title: 'Latency above 500 ms',
        description: 'p99 latency of the API is above 500 ms',
        runbook: 'https://runbooks.example/latency',
        svc_incident_markdown: '**Check the database first**',
      },
      'histogram_quantile(0.99, rate(http_duration_seconds_bucket[5m])) > 0.5',
    ),
    firing(
      'DiskFull',
      startsAt,
      { severity: 'P1', svc_environment_name: 'staging' },
      { summary: 'Disk full on db-1' },
      'node_filesystem_avail_bytes == 0',
    ),
  ]
  await postToAlertmanager(alerts)

  const ours = async () => (await svcAlerts()).filter((a) => a.monitoring_tool === 'Prometheus' && a.title !== 'Queue backlog above 10k')
  await expect.poll(async () => (await ours()).length, { timeout: 30_000, interval: 200 }).toBe(2)
  const created = await ours()
  const byTitle = new Map(created.map((a) => [a.title, a]))
  expect(byTitle.get('Latency above 500 ms')).toMatchObject({
    title: 'Latency above 500 ms',
    description: 'p99 latency of the API is above 500 ms',
    severity: 'low',
    status: 'triggered',
    monitoring_tool: 'Prometheus',
    environment: { id: environmentId, name: 'production' },
    runbook: 'https://runbooks.example/latency',
    started_at: '2026-11-23T22:00:00.000Z',
    ended_at: null,
    fingerprint: sha1(`${startsAt}/Latency above 500 ms/histogram_quantile(0.99, rate(http_duration_seconds_bucket[5m])) > 0.5`),
  })
  expect(byTitle.get('Disk full on db-1')).toMatchObject({
    severity: 'critical',
    status: 'triggered',
    environment: null,
    fingerprint: sha1(`${startsAt}/Disk full on db-1/node_filesystem_avail_bytes == 0`),
  })
  // Alertmanager does not show the future end of a firing alert: it sends the zero time, which resolves nothing.
  const stored = await db
    .selectFrom('alerts')
    .select('payload')
    .where('project_id', '=', project.id)
    .where('title', '=', 'Disk full on db-1')
    .execute()
  expect(
    stored.map((row) => JSON.parse(row.payload) as { status: string; endsAt: string }).map((item) => [item.status, item.endsAt]),
  ).toEqual([['firing', '0001-01-01T00:00:00Z']])

  // Each alert opened an incident, which shows the incident markdown of its annotation.
  await expect.poll(async () => (await ours()).filter((a) => a.issue_iid !== null).length, { timeout: 10_000 }).toBe(2)
  const latency = (await svcAlerts()).find((a) => a.title === 'Latency above 500 ms')!
  const incident = await request('GET', `/api/v4/projects/${project.id}/issues/${latency.issue_iid}`, { token: server.rootToken })
  expect(incident.status).toBe(200)
  expect(incident.body).toMatchObject({ issue_type: 'incident', state: 'opened', title: 'Latency above 500 ms' })
  expect(incident.body.description).toContain('**full_query:** `histogram_quantile(0.99, rate(http_duration_seconds_bucket[5m])) > 0.5`')
  expect(incident.body.description).toMatch(/\n\n---\n\n\*\*Check the database first\*\*$/)

  // Resolved: the same alerts again, ended a moment ago.
  const ended = new Date(Date.now() - 1_000).toISOString()
  await postToAlertmanager(alerts.map((alert) => ({ ...alert, endsAt: ended })))
  await expect
    .poll(
      async () =>
        (await svcAlerts())
          .filter((a) => a.monitoring_tool === 'Prometheus' && a.title !== 'Queue backlog above 10k')
          .map((a) => `${a.title}: ${a.status}`)
          .sort(),
      { timeout: 30_000, interval: 200 },
    )
    .toEqual(['Disk full on db-1: resolved', 'Latency above 500 ms: resolved'])
  const resolved = await ours()
  for (const alert of resolved) expect(alert.ended_at).toBe(ended)
  // No second alert was opened for either, and their incidents are closed.
  expect(resolved.map((a) => a.iid).sort()).toEqual(created.map((a) => a.iid).sort())
  await expect
    .poll(async () => {
      await server.runJobs()
      const issue = await request('GET', `/api/v4/projects/${project.id}/issues/${latency.issue_iid}`, { token: server.rootToken })
      return issue.body.state
    })
    .toBe('closed')
}, 90_000)

test("an HTTP integration's URL with the key as Basic password takes Alertmanager's notifications as Prometheus alerts", async () => {
  const startsAt = '2026-11-23T21:00:00Z'
  const alert = firing(
    'QueueBacklog',
    startsAt,
    { target: 'http', severity: 'critical' },
    { title: 'Queue backlog above 10k' },
    'queue_depth > 10000',
  )
  await postToAlertmanager([alert])
  await expect
    .poll(async () => (await svcAlerts()).find((a) => a.title === 'Queue backlog above 10k')?.status ?? null, {
      timeout: 30_000,
      interval: 200,
    })
    .toBe('triggered')
  expect((await svcAlerts()).find((a) => a.title === 'Queue backlog above 10k')).toMatchObject({
    monitoring_tool: 'Prometheus',
    severity: 'critical',
    fingerprint: sha1(`${startsAt}/Queue backlog above 10k/queue_depth > 10000`),
  })
  await postToAlertmanager([{ ...alert, endsAt: new Date(Date.now() - 1_000).toISOString() }])
  await expect
    .poll(async () => (await svcAlerts()).find((a) => a.title === 'Queue backlog above 10k')?.status, { timeout: 30_000, interval: 200 })
    .toBe('resolved')
}, 90_000)
