import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { ProjectRow } from '../../db/schema.js'
import { client, type RequestOptions } from '../../testing/http.js'
import { createProjectTeam, type Person } from '../../testing/roles.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>
const start = new Date('2026-11-20T10:00:00.000Z')

// A self-signed certificate, as a cluster's CA.
const CA_CERT = `-----BEGIN CERTIFICATE-----
MIIBijCCATGgAwIBAgIUTcBrLQgk149t3tJQNihf388sPlEwCgYIKoZIzj0EAwIw
GzEZMBcGA1UEAwwQa3ViZS5leGFtcGxlLmNvbTAeFw0yNjExMjMyMzI1NDVaFw0z
NjExMjAyMzI1NDVaMBsxGTAXBgNVBAMMEGt1YmUuZXhhbXBsZS5jb20wWTATBgcq
hkjOPQIBBggqhkjOPQMBBwNCAARPKxVi+P6j5pqk/ceTRw+WG7Ao8TzBxS5MgGQo
SQLhYfWLXTDLDyU7hhMW/DoKuvfucT62LQbXbTJNyAAw5QI9o1MwUTAdBgNVHQ4E
FgQUvOHZUfUPTWM+e9O7sGGywuCNWE4wHwYDVR0jBBgwFoAUvOHZUfUPTWM+e9O7
sGGywuCNWE4wDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiBCH/nF
EQ6glOaNoSaTd6Rn+ycFNSnAIUWg9/3+Z9qeyAIgXv3x4wsKQdoFU6r0MMlp3Ziy
q/d/jLlJVhZL5rzjDc4=
-----END CERTIFICATE-----`

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
})
afterAll(() => server.close())
beforeEach(() => server.freeze(start))

function call(method: string, path: string, person: Person | undefined, body?: RequestOptions['body'], headers?: Record<string, string>) {
  return request(method, `/api/v4${path}`, { token: person?.token, body, headers })
}

function team(visibility: 'public' | 'private' = 'private') {
  const roles = ['maintainer', 'developer', 'reporter', 'guest'] as const
  return createProjectTeam(server.database.db, { roles, visibility })
}

const platform = { api_url: 'https://kube.example.com:6443', token: 'secret-token' }

function createCluster(project: ProjectRow, who: Person | undefined, body: Record<string, unknown> = {}) {
  return call('POST', `/projects/${project.id}/clusters/user`, who, {
    name: 'production-cluster',
    platform_kubernetes_attributes: platform,
    ...body,
  })
}

function userBasic(who: Person) {
  const { user } = who
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: 'active',
    locked: false,
    avatar_url: expect.stringMatching(/^https:\/\/www\.gravatar\.com\/avatar\//),
    web_url: `${server.url}/${user.username}`,
  }
}

describe('POST /projects/:id/clusters/user', () => {
  test('a Maintainer adds a cluster: 201 with GitLab’s ClusterProject entity and never the token', async () => {
    const { project, maintainer } = await team()
    const res = await createCluster(project, maintainer, {
      domain: 'apps.example.com',
      platform_kubernetes_attributes: { ...platform, namespace: 'My-Apps', ca_cert: `  ${CA_CERT}\n` },
    })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'production-cluster',
      created_at: start.toISOString(),
      domain: 'apps.example.com',
      enabled: true,
      managed: true,
      provider_type: 'user',
      platform_type: 'kubernetes',
      environment_scope: '*',
      cluster_type: 'project_type',
      namespace_per_environment: true,
      user: userBasic(maintainer),
      platform_kubernetes: { api_url: 'https://kube.example.com:6443', namespace: 'my-apps', authorization_type: 'rbac', ca_cert: CA_CERT },
      provider_gcp: null,
      management_project: null,
      project: expect.objectContaining({ id: project.id, path_with_namespace: project.full_path }),
    })
    expect(res.text).not.toContain('secret-token')
    const row = await server.database.db.selectFrom('clusters').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow()
    expect(row.token).toBe('secret-token')
  })

  test('flags and the authorization type are taken as given', async () => {
    const { project, maintainer } = await team()
    const res = await createCluster(project, maintainer, {
      enabled: false,
      managed: 'false',
      namespace_per_environment: false,
      environment_scope: 'review/*',
      platform_kubernetes_attributes: { ...platform, authorization_type: 'abac' },
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      enabled: false,
      managed: false,
      namespace_per_environment: false,
      environment_scope: 'review/*',
      domain: null,
      platform_kubernetes: { authorization_type: 'abac', namespace: null, ca_cert: null },
    })
  })

  test('a form-encoded request names the platform attributes with brackets', async () => {
    const { project, maintainer } = await team()
    const res = await request('POST', `/api/v4/projects/${project.id}/clusters/user`, {
      token: maintainer.token,
      form: true,
      body: {
        name: 'form-cluster',
        enabled: 'false',
        'platform_kubernetes_attributes[api_url]': 'https://kube.example.com',
        'platform_kubernetes_attributes[token]': 'tok',
        'platform_kubernetes_attributes[namespace]': 'apps',
      },
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      name: 'form-cluster',
      enabled: false,
      platform_kubernetes: { api_url: 'https://kube.example.com', namespace: 'apps' },
    })
  })

  test('missing and malformed params answer 400 as GitLab', async () => {
    const { project, maintainer } = await team()
    const path = `/projects/${project.id}/clusters/user`
    expect((await call('POST', path, maintainer, { platform_kubernetes_attributes: platform })).body).toEqual({
      message: '400 (Bad request) "name" not given',
    })
    expect((await call('POST', path, maintainer, { name: 'x' })).body).toEqual({
      message: '400 (Bad request) "platform_kubernetes_attributes" not given',
    })
    expect((await call('POST', path, maintainer, { name: 'x', platform_kubernetes_attributes: { token: 't' } })).body).toEqual({
      message: '400 (Bad request) "platform_kubernetes_attributes[api_url]" not given',
    })
    expect(
      (await call('POST', path, maintainer, { name: 'x', platform_kubernetes_attributes: { api_url: 'https://k.example.com' } })).body,
    ).toEqual({
      message: '400 (Bad request) "platform_kubernetes_attributes[token]" not given',
    })
    expect(
      (await call('POST', path, maintainer, { name: 'x', platform_kubernetes_attributes: { ...platform, api_url: '' } })).body,
    ).toEqual({
      error: 'platform_kubernetes_attributes[api_url] is empty',
    })
    expect(
      (await call('POST', path, maintainer, { name: 'x', platform_kubernetes_attributes: { ...platform, authorization_type: 'none' } }))
        .body,
    ).toEqual({ error: 'platform_kubernetes_attributes[authorization_type] does not have a valid value' })
    expect((await call('POST', path, maintainer, { name: 'x', enabled: 'maybe', platform_kubernetes_attributes: platform })).body).toEqual({
      error: 'enabled is invalid',
    })
  })

  test('the model’s validations answer 400 with its errors', async () => {
    const { project, maintainer } = await team()
    const invalid = async (body: Record<string, unknown>) => {
      const res = await createCluster(project, maintainer, body)
      expect(res.status).toBe(400)
      return res.body
    }
    expect(await invalid({ name: '' })).toEqual({ message: { name: ['has to be present'] } })
    expect(await invalid({ platform_kubernetes_attributes: { ...platform, api_url: 'kube.example.com' } })).toEqual({
      message: { 'platform_kubernetes.api_url': ['is blocked: Only allowed schemes are http, https'] },
    })
    expect(await invalid({ platform_kubernetes_attributes: { ...platform, api_url: 'https://exa mple.com' } })).toEqual({
      message: { 'platform_kubernetes.api_url': ['must be a valid URL'] },
    })
    expect(await invalid({ platform_kubernetes_attributes: { ...platform, api_url: 'http://localhost:8080' } })).toEqual({
      message: { 'platform_kubernetes.api_url': ['is blocked: Requests to localhost are not allowed'] },
    })
    expect(await invalid({ platform_kubernetes_attributes: { ...platform, api_url: 'https://10.0.0.1' } })).toEqual({
      message: { 'platform_kubernetes.api_url': ['is blocked: Requests to the local network are not allowed'] },
    })
    expect(await invalid({ platform_kubernetes_attributes: { ...platform, token: '  ' } })).toEqual({
      message: { 'platform_kubernetes.token': ["can't be blank"] },
    })
    expect(await invalid({ platform_kubernetes_attributes: { ...platform, ca_cert: 'not a certificate' } })).toEqual({
      message: { 'platform_kubernetes.ca_cert': ['must be a valid PEM certificate'] },
    })
    expect(await invalid({ platform_kubernetes_attributes: { ...platform, namespace: 'bad_namespace-' } })).toEqual({
      message: {
        'platform_kubernetes.namespace': [
          "can contain only lowercase letters, digits, and '-'. Must start with a letter, and cannot end with '-'",
        ],
      },
    })
    expect(await invalid({ platform_kubernetes_attributes: { ...platform, namespace: 'gitlab-managed-apps' } })).toEqual({
      message: { 'platform_kubernetes.namespace': ['is reserved'] },
    })
    expect(await invalid({ domain: 'http://apps.example.com' })).toEqual({
      message: { domain: ['contains invalid characters (valid characters: [a-z0-9\\-])'] },
    })
    expect(await invalid({ environment_scope: '' })).toEqual({
      message: {
        environment_scope: ["can't be blank", "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces"],
      },
    })
    expect(await invalid({ environment_scope: 'prod#1' })).toEqual({
      message: { environment_scope: ["can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces"] },
    })
  })

  test('one cluster per environment scope in a project', async () => {
    const { project, maintainer } = await team()
    expect((await createCluster(project, maintainer)).status).toBe(201)
    expect(await createCluster(project, maintainer, { name: 'other' })).toMatchObject({
      status: 400,
      body: { message: { environment_scope: ['cannot add duplicated environment scope'] } },
    })
    expect((await createCluster(project, maintainer, { name: 'staging', environment_scope: 'staging' })).status).toBe(201)
    // Another project may use the same scope.
    const other = await team()
    expect((await createCluster(other.project, other.maintainer)).status).toBe(201)
  })

  test('a Developer is refused 403, an outsider 404, anonymous 401', async () => {
    const { project, developer, outsider } = await team()
    expect(await createCluster(project, developer)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } })
    expect(await createCluster(project, outsider)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } })
    expect(await createCluster(project, undefined)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } })
  })

  test('with the infrastructure feature disabled, even a Maintainer is refused', async () => {
    const { project, maintainer } = await team()
    await server.database.db.updateTable('projects').set({ infrastructure_access_level: 0 }).where('id', '=', project.id).execute()
    expect((await createCluster(project, maintainer)).status).toBe(403)
    expect((await call('GET', `/projects/${project.id}/clusters`, maintainer)).status).toBe(403)
  })
})

describe('an archived project', () => {
  test('keeps its clusters readable but refuses changes', async () => {
    const { project, maintainer } = await team()
    const a = (await createCluster(project, maintainer)).body
    await server.database.db.updateTable('projects').set({ archived: 1 }).where('id', '=', project.id).execute()
    expect((await call('GET', `/projects/${project.id}/clusters/${a.id}`, maintainer)).status).toBe(200)
    expect((await createCluster(project, maintainer, { environment_scope: 'other' })).status).toBe(403)
    expect((await call('PUT', `/projects/${project.id}/clusters/${a.id}`, maintainer, { name: 'x' })).status).toBe(403)
    expect((await call('DELETE', `/projects/${project.id}/clusters/${a.id}`, maintainer)).status).toBe(403)
  })
})

describe('GET /projects/:id/clusters and /clusters/:cluster_id', () => {
  test('a Developer lists them (Entities::Cluster, no project) and shows one (with the project)', async () => {
    const { project, maintainer, developer } = await team()
    const a = (await createCluster(project, maintainer)).body
    const b = (await createCluster(project, maintainer, { name: 'staging', environment_scope: 'staging' })).body
    const list = await call('GET', `/projects/${project.id}/clusters?per_page=1`, developer)
    expect(list.status).toBe(200)
    const { project: _project, ...withoutProject } = a
    expect(list.body).toEqual([withoutProject])
    expect(list.headers).toMatchObject({ 'x-total': '2', 'x-next-page': '2' })
    expect((await call('GET', `/projects/${project.id}/clusters?page=2&per_page=1`, developer)).body.map((c: any) => c.id)).toEqual([b.id])
    const one = await call('GET', `/projects/${project.id}/clusters/${a.id}`, developer)
    expect(one.status).toBe(200)
    expect(one.body).toEqual(a)
  })

  test('a Reporter is refused the list (403) and finds no cluster (404); unknown ids are 404', async () => {
    const { project, maintainer, reporter } = await team()
    const a = (await createCluster(project, maintainer)).body
    expect(await call('GET', `/projects/${project.id}/clusters`, reporter)).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    })
    expect(await call('GET', `/projects/${project.id}/clusters/${a.id}`, reporter)).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    })
    expect((await call('GET', `/projects/${project.id}/clusters/${a.id + 1000}`, maintainer)).status).toBe(404)
    const other = await team()
    expect((await call('GET', `/projects/${other.project.id}/clusters/${a.id}`, other.maintainer)).status).toBe(404)
  })
})

describe('PUT /projects/:id/clusters/:cluster_id', () => {
  test('a Maintainer changes attributes; a blank token keeps the current one', async () => {
    const { project, maintainer } = await team()
    const a = (await createCluster(project, maintainer, { namespace_per_environment: false })).body
    const res = await call('PUT', `/projects/${project.id}/clusters/${a.id}`, maintainer, {
      name: 'renamed',
      enabled: false,
      domain: 'new.example.com',
      platform_kubernetes_attributes: { api_url: 'https://kube2.example.com', token: '', namespace: 'Ns1' },
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      ...a,
      name: 'renamed',
      enabled: false,
      domain: 'new.example.com',
      // GitLab declares a default of true here, so leaving it out turns it back on.
      namespace_per_environment: true,
      platform_kubernetes: { ...a.platform_kubernetes, api_url: 'https://kube2.example.com', namespace: 'ns1' },
    })
    const row = await server.database.db.selectFrom('clusters').selectAll().where('id', '=', a.id).executeTakeFirstOrThrow()
    expect(row.token).toBe('secret-token')
    await call('PUT', `/projects/${project.id}/clusters/${a.id}`, maintainer, { platform_kubernetes_attributes: { token: 'new-token' } })
    expect((await server.database.db.selectFrom('clusters').select('token').where('id', '=', a.id).executeTakeFirstOrThrow()).token).toBe(
      'new-token',
    )
  })

  test('validations apply, the cluster’s own scope is no duplicate, and a Developer is refused', async () => {
    const { project, maintainer, developer, reporter } = await team()
    const a = (await createCluster(project, maintainer)).body
    await createCluster(project, maintainer, { name: 'staging', environment_scope: 'staging' })
    const path = `/projects/${project.id}/clusters/${a.id}`
    expect((await call('PUT', path, maintainer, { environment_scope: '*' })).status).toBe(200)
    expect((await call('PUT', path, maintainer, { environment_scope: 'staging' })).body).toEqual({
      message: { environment_scope: ['cannot add duplicated environment scope'] },
    })
    expect(
      (await call('PUT', path, maintainer, { name: '', platform_kubernetes_attributes: { api_url: 'ftp://x.example.com' } })).body,
    ).toEqual({
      message: { 'platform_kubernetes.api_url': ['is blocked: Only allowed schemes are http, https'], name: ['has to be present'] },
    })
    expect((await call('PUT', path, developer, { name: 'x' })).status).toBe(403)
    expect((await call('PUT', path, reporter, { name: 'x' })).status).toBe(404)
  })
})

describe('DELETE /projects/:id/clusters/:cluster_id', () => {
  test('a Maintainer deletes a cluster, and its annotations go with it', async () => {
    const { project, maintainer, developer } = await team()
    const a = (await createCluster(project, maintainer)).body
    const db = server.database.db
    const at = start.toISOString()
    await db
      .insertInto('metrics_dashboard_annotations')
      .values({
        cluster_id: a.id,
        dashboard_path: 'config/prometheus/cluster_metrics.yml',
        description: 'd',
        starting_at: at,
        created_at: at,
        updated_at: at,
      })
      .execute()
    const path = `/projects/${project.id}/clusters/${a.id}`
    expect((await call('DELETE', path, developer)).status).toBe(403)
    const stale = new Date(start.getTime() - 3600_000).toUTCString()
    expect((await call('DELETE', path, maintainer, undefined, { 'if-unmodified-since': stale })).status).toBe(412)
    const res = await call('DELETE', path, maintainer)
    expect(res.status).toBe(204)
    expect(await db.selectFrom('clusters').selectAll().where('id', '=', a.id).execute()).toEqual([])
    expect(await db.selectFrom('metrics_dashboard_annotations').selectAll().where('cluster_id', '=', a.id).execute()).toEqual([])
    expect(await call('DELETE', path, maintainer)).toMatchObject({ status: 404, body: { message: '404 Not found' } })
  })
})
