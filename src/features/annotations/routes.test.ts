import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { ClusterRow, EnvironmentRow, ProjectRow } from '../../db/schema.js'
import { client, type RequestOptions } from '../../testing/http.js'
import { addProjectMembersByRole, createPerson, type Person } from '../../testing/roles.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { commitFiles, projectRepositoryDirectory } from '../repositories/index.js'
import { cgiUnescape } from './dashboards.js'

let server: TestServer
let request: ReturnType<typeof client>
const start = new Date('2026-11-20T10:00:00.000Z')

const ROLES = ['maintainer', 'developer', 'reporter', 'guest'] as const

interface Team extends Record<(typeof ROLES)[number], Person> {
  project: ProjectRow
  outsider: Person
  environment: EnvironmentRow
  cluster: ClusterRow
}

let shared: Team

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  shared = await team()
})
afterAll(() => server.close())
beforeEach(() => server.freeze(start))

function call(method: string, path: string, person: Person | undefined, body?: RequestOptions['body']) {
  return request(method, `/api/v4${path}`, { token: person?.token, body })
}

function person(): Promise<Person> {
  return createPerson(server.database.db)
}

/** A private project with a repository holding one custom dashboard, its members, an environment and a cluster. */
async function team(visibility: 'private' | 'public' = 'private'): Promise<Team> {
  const db = server.database.db
  const created = await request('POST', '/api/v4/projects', {
    token: server.rootToken,
    body: { name: `dashboards-${Math.random().toString(36).slice(2, 8)}`, visibility, initialize_with_readme: true },
  })
  expect(created.status).toBe(201)
  const project = await db.selectFrom('projects').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow()
  await commitFiles({
    directory: projectRepositoryDirectory(server.config, project),
    branch: created.body.default_branch,
    changes: [{ path: '.gitlab/dashboards/custom dash.yml', content: 'dashboard: Custom\npanel_groups: []\n' }],
    message: 'Add a dashboard',
    author: { name: 'Root', email: 'root@example.com' },
    at: start,
  })
  const people = await addProjectMembersByRole(db, project, ROLES)
  const at = start.toISOString()
  const environment = await db
    .insertInto('environments')
    .values({ project_id: project.id, name: 'production', slug: 'production', created_at: at, updated_at: at })
    .returningAll()
    .executeTakeFirstOrThrow()
  const cluster = await db
    .insertInto('clusters')
    .values({ project_id: project.id, name: 'k8s', api_url: 'https://kube.example.com', token: 't', created_at: at, updated_at: at })
    .returningAll()
    .executeTakeFirstOrThrow()
  return { project, ...people, outsider: await person(), environment, cluster }
}

const SYSTEM = 'config/prometheus/common_metrics.yml'

function annotate(path: string, who: Person | undefined, body: Record<string, unknown>) {
  return call('POST', `${path}/metrics_dashboard/annotations`, who, {
    dashboard_path: SYSTEM,
    starting_at: '2026-11-20T09:00:00Z',
    description: 'Deploy',
    ...body,
  })
}

describe('POST /environments/:id/metrics_dashboard/annotations', () => {
  test('a Developer annotates the system dashboard: 201 with the annotation, times with milliseconds', async () => {
    const { environment, developer } = shared
    const res = await annotate(`/environments/${environment.id}`, developer, { ending_at: '2026-11-20T11:30:15+02:00' })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.any(Number),
      starting_at: '2026-11-20T09:00:00.000Z',
      ending_at: '2026-11-20T09:30:15.000Z',
      dashboard_path: SYSTEM,
      description: 'Deploy',
      environment_id: environment.id,
      cluster_id: null,
    })
    expect(Object.keys(res.body)).toEqual([
      'id',
      'starting_at',
      'ending_at',
      'dashboard_path',
      'description',
      'environment_id',
      'cluster_id',
    ])
  })

  test('without ending_at it marks one moment; ending at the start is allowed; the trailing slash works', async () => {
    const { environment, developer } = shared
    const point = await call('POST', `/environments/${environment.id}/metrics_dashboard/annotations/`, developer, {
      dashboard_path: SYSTEM,
      starting_at: '2026-11-20T09:00:00.123Z',
      description: 'Point',
    })
    expect(point.status).toBe(201)
    expect(point.body).toMatchObject({ starting_at: '2026-11-20T09:00:00.123Z', ending_at: null })
    const same = await annotate(`/environments/${environment.id}`, developer, { ending_at: '2026-11-20T09:00:00Z' })
    expect(same.status).toBe(201)
  })

  test('a project dashboard on the default branch is accepted, its path CGI-unescaped', async () => {
    const { environment, developer } = shared
    const res = await annotate(`/environments/${environment.id}`, developer, { dashboard_path: '.gitlab%2Fdashboards%2Fcustom+dash.yml' })
    expect(res.status).toBe(201)
    expect(res.body.dashboard_path).toBe('.gitlab/dashboards/custom dash.yml')
    for (const predefined of ['config/prometheus/pod_metrics.yml', 'config/prometheus/cluster_metrics.yml']) {
      expect((await annotate(`/environments/${environment.id}`, developer, { dashboard_path: predefined })).status).toBe(201)
    }
  })

  test('an unknown dashboard answers 400 with the service’s error body', async () => {
    const { environment, developer } = shared
    for (const dashboardPath of [
      '.gitlab/dashboards/missing.yml',
      'README.md',
      '.gitlab/dashboards/custom dash.yaml',
      'config/prometheus/other.yml',
    ]) {
      const res = await annotate(`/environments/${environment.id}`, developer, { dashboard_path: dashboardPath })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ status: 'error', message: 'Dashboard with requested path can not be found' })
    }
  })

  test('the model’s validations answer 400 with their errors', async () => {
    const { environment, developer } = shared
    const path = `/environments/${environment.id}`
    expect((await annotate(path, developer, { ending_at: '2026-11-20T08:59:59Z' })).body).toEqual({
      status: 'error',
      message: { ending_at: ["can't be before starting_at time"] },
    })
    expect((await annotate(path, developer, { description: 'x'.repeat(256) })).body).toEqual({
      status: 'error',
      message: { description: ['is too long (maximum is 255 characters)'] },
    })
    expect((await annotate(path, developer, { description: '' })).body).toEqual({
      status: 'error',
      message: { description: ["can't be blank"] },
    })
    // A blank path selects the system dashboard, then fails the model's presence check, as GitLab's.
    expect((await annotate(path, developer, { dashboard_path: '' })).body).toEqual({
      status: 'error',
      message: { dashboard_path: ["can't be blank"] },
    })
    expect((await annotate(path, developer, { description: '', ending_at: '2026-11-20T08:00:00Z' })).body).toEqual({
      status: 'error',
      message: { description: ["can't be blank"], ending_at: ["can't be before starting_at time"] },
    })
  })

  test('missing params get the contract’s body; a non-datetime is a param error', async () => {
    const { environment, developer } = shared
    const url = `/environments/${environment.id}/metrics_dashboard/annotations`
    for (const missing of ['starting_at', 'dashboard_path', 'description']) {
      const body: Record<string, unknown> = { dashboard_path: SYSTEM, starting_at: '2026-11-20T09:00:00Z', description: 'x' }
      delete body[missing]
      expect(await call('POST', url, developer, body)).toMatchObject({
        status: 400,
        body: { message: `400 (Bad request) "${missing}" not given` },
      })
    }
    expect(await annotate(`/environments/${environment.id}`, developer, { starting_at: 'yesterday' })).toMatchObject({
      status: 400,
      body: { error: 'starting_at is invalid' },
    })
    expect(await annotate(`/environments/${environment.id}`, developer, { ending_at: '2026-13-45T00:00:00Z' })).toMatchObject({
      status: 400,
      body: { error: 'ending_at is invalid' },
    })
  })

  test('permissions: Reporter 403; Guest, outsider and unknown id 404; anonymous 401', async () => {
    const { environment, reporter, guest, outsider, maintainer } = shared
    const path = `/environments/${environment.id}`
    expect(await annotate(path, reporter, {})).toMatchObject({ status: 403, body: { message: '403 Forbidden' } })
    expect(await annotate(path, guest, {})).toMatchObject({ status: 404, body: { message: '404 Not found' } })
    expect(await annotate(path, outsider, {})).toMatchObject({ status: 404, body: { message: '404 Not found' } })
    expect(await annotate(`/environments/${environment.id + 100000}`, maintainer, {})).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    })
    expect(await annotate(path, undefined, {})).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } })
    expect((await annotate(path, maintainer, {})).status).toBe(201)
  })
})

describe('POST /clusters/:id/metrics_dashboard/annotations', () => {
  test('a Developer annotates the cluster dashboard', async () => {
    const { cluster, developer } = shared
    const res = await annotate(`/clusters/${cluster.id}`, developer, {
      dashboard_path: 'config/prometheus/cluster_metrics.yml',
      description: 'Upgrade',
    })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.any(Number),
      starting_at: '2026-11-20T09:00:00.000Z',
      ending_at: null,
      dashboard_path: 'config/prometheus/cluster_metrics.yml',
      description: 'Upgrade',
      environment_id: null,
      cluster_id: cluster.id,
    })
  })

  test('a Reporter cannot see clusters (404); unknown dashboards and ids as for environments', async () => {
    const { cluster, reporter, developer } = shared
    expect(await annotate(`/clusters/${cluster.id}`, reporter, {})).toMatchObject({ status: 404, body: { message: '404 Not found' } })
    expect((await annotate(`/clusters/${cluster.id + 100000}`, developer, {})).status).toBe(404)
    expect((await annotate(`/clusters/${cluster.id}`, developer, { dashboard_path: 'nope.yml' })).body).toEqual({
      status: 'error',
      message: 'Dashboard with requested path can not be found',
    })
  })
})

describe('GET and DELETE …/metrics_dashboard/annotations', () => {
  test('a Reporter lists an environment’s annotations, latest start first, filtered and paginated', async () => {
    const t = await team()
    const path = `/environments/${t.environment.id}`
    const made = []
    for (const [startingAt, dashboardPath] of [
      ['2026-11-20T08:00:00Z', SYSTEM],
      ['2026-11-20T10:00:00Z', SYSTEM],
      ['2026-11-20T09:00:00Z', SYSTEM],
      ['2026-11-20T09:30:00Z', 'config/prometheus/pod_metrics.yml'],
    ]) {
      made.push((await annotate(path, t.developer, { starting_at: startingAt, dashboard_path: dashboardPath })).body)
    }
    const list = async (query: string) => {
      const res = await call('GET', `${path}/metrics_dashboard/annotations?${query}`, t.reporter)
      expect(res.status).toBe(200)
      return res
    }
    const all = await list('')
    expect(all.body).toEqual([made[1], made[3], made[2], made[0]])
    expect(all.headers).toMatchObject({ 'x-total': '4', 'x-page': '1' })
    expect((await list(`dashboard_path=${encodeURIComponent(SYSTEM)}`)).body).toEqual([made[1], made[2], made[0]])
    expect((await list('from=2026-11-20T09:00:00Z&to=2026-11-20T09:45:00Z')).body).toEqual([made[3], made[2]])
    // A `to` before `from` is ignored, as GitLab's finder does.
    expect((await list('from=2026-11-20T09:00:00Z&to=2026-11-20T08:00:00Z')).body).toEqual([made[1], made[3], made[2]])
    const page = await list('per_page=3&page=2')
    expect(page.body).toEqual([made[0]])
    expect((await call('GET', `${path}/metrics_dashboard/annotations`, t.guest)).status).toBe(404)
    expect((await call('GET', `/clusters/${t.cluster.id}/metrics_dashboard/annotations`, t.reporter)).status).toBe(404)
    expect((await call('GET', `/clusters/${t.cluster.id}/metrics_dashboard/annotations`, t.developer)).body).toEqual([])
  })

  test('a signed-in outsider sees a public project’s environment but not its annotations (403)', async () => {
    const t = await team('public')
    expect(await call('GET', `/environments/${t.environment.id}/metrics_dashboard/annotations`, t.outsider)).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    })
    expect((await annotate(`/environments/${t.environment.id}`, t.outsider, {})).status).toBe(403)
  })

  test('a Developer deletes an annotation (204); a Reporter may not; another owner’s is not found', async () => {
    const t = await team()
    const one = (await annotate(`/environments/${t.environment.id}`, t.developer, {})).body
    const other = (await annotate(`/clusters/${t.cluster.id}`, t.developer, {})).body
    const url = `/environments/${t.environment.id}/metrics_dashboard/annotations/${one.id}`
    expect((await call('DELETE', url, t.reporter)).status).toBe(403)
    expect(await call('DELETE', `/environments/${t.environment.id}/metrics_dashboard/annotations/${other.id}`, t.developer)).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    })
    const res = await call('DELETE', url, t.developer)
    expect(res.status).toBe(204)
    expect(res.text).toBe('')
    expect((await call('GET', `/environments/${t.environment.id}/metrics_dashboard/annotations`, t.reporter)).body).toEqual([])
    expect((await call('DELETE', `/clusters/${t.cluster.id}/metrics_dashboard/annotations/${other.id}`, t.maintainer)).status).toBe(204)
  })

  test('deleting the environment or the cluster through the API removes its annotations', async () => {
    const t = await team()
    await annotate(`/environments/${t.environment.id}`, t.developer, {})
    await annotate(`/clusters/${t.cluster.id}`, t.developer, {})
    await call('POST', `/projects/${t.project.id}/environments/${t.environment.id}/stop`, t.developer)
    expect((await call('DELETE', `/projects/${t.project.id}/environments/${t.environment.id}`, t.developer)).status).toBe(204)
    expect((await call('DELETE', `/projects/${t.project.id}/clusters/${t.cluster.id}`, t.maintainer)).status).toBe(204)
    const db = server.database.db
    const left = await db
      .selectFrom('metrics_dashboard_annotations')
      .selectAll()
      .where((eb) => eb.or([eb('environment_id', '=', t.environment.id), eb('cluster_id', '=', t.cluster.id)]))
      .execute()
    expect(left).toEqual([])
    expect((await call('GET', `/environments/${t.environment.id}/metrics_dashboard/annotations`, t.reporter)).status).toBe(404)
  })
})

describe('CGI.unescape', () => {
  test('decodes + and %XX and leaves broken escapes alone', () => {
    expect(cgiUnescape('a+b%2Fc%20d')).toBe('a b/c d')
    expect(cgiUnescape('100%')).toBe('100%')
    expect(cgiUnescape('%E2%9C%93')).toBe('✓')
  })
})
