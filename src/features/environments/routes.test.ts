import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { EnvironmentRow, ProjectRow } from '../../db/schema.js'
import { client, type RequestOptions } from '../../testing/http.js'
import { createProjectTeam, type Person } from '../../testing/roles.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { findEnvironmentsByNames } from './index.js'
import { environmentSlug, guessTier } from './naming.js'

let server: TestServer
let request: ReturnType<typeof client>
const start = new Date('2026-11-20T10:00:00.000Z')

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
})
afterAll(() => server.close())
beforeEach(() => server.freeze(start))

function call(method: string, path: string, person: Person | undefined, body?: RequestOptions['body'], headers?: Record<string, string>) {
  return request(method, `/api/v4${path}`, { token: person?.token, body, headers })
}

function team(visibility: 'public' | 'private' | 'internal' = 'private') {
  const roles = ['maintainer', 'developer', 'reporter', 'guest'] as const
  return createProjectTeam(server.database.db, { roles, visibility })
}

async function insertEnvironment(project: ProjectRow, values: Partial<EnvironmentRow> & { name: string }): Promise<EnvironmentRow> {
  const at = start.toISOString()
  return server.database.db
    .insertInto('environments')
    .values({ project_id: project.id, slug: environmentSlug(values.name), created_at: at, updated_at: at, ...values })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** The entity as GitLab's Entities::Environment shows it, computed independently of the presenter. */
function expected(row: EnvironmentRow, extra: Record<string, unknown> = {}) {
  const base: Record<string, unknown> = {
    id: row.id,
    name: row.name,
    slug: row.slug,
    external_url: row.external_url,
    created_at: row.created_at,
    updated_at: row.updated_at,
    tier: row.tier,
  }
  return { ...base, ...extra, state: row.state, auto_stop_at: row.auto_stop_at, description: null, auto_stop_setting: 'always' }
}

function projectOf(body: any) {
  return { id: body.project.id, path_with_namespace: body.project.path_with_namespace }
}

describe('environment slugs (GL Gitlab::Slug::Environment)', () => {
  test('a name that is already a slug stays as it is', () => {
    expect(environmentSlug('production')).toBe('production')
    expect(environmentSlug('staging-2')).toBe('staging-2')
  })

  test('a changed or long name is cut to 17 characters and gets the six base-36 digits of its SHA-256', () => {
    expect(environmentSlug('review/fix-foo')).toMatch(/^review-fix-foo-[a-z0-9]{6}$/)
    expect(environmentSlug('Production')).toMatch(/^production-[a-z0-9]{6}$/)
    expect(environmentSlug('1st')).toMatch(/^env-1st-[a-z0-9]{6}$/)
    expect(environmentSlug('a-very-long-environment-name')).toMatch(/^a-very-long-envir-[a-z0-9]{6}$/)
    // The suffix is a function of the name, as GitLab's: the same name always gets the same slug.
    expect(environmentSlug('review/fix-foo')).toBe(environmentSlug('review/fix-foo'))
    expect(environmentSlug('review/fix-foo')).not.toBe(environmentSlug('review/fix-bar'))
  })

  test('the suffix is the last six digits of the SHA-256 read as a base-36 number', async () => {
    const { createHash } = await import('node:crypto')
    const digits = BigInt(`0x${createHash('sha256').update('review/fix-foo').digest('hex')}`)
      .toString(36)
      .slice(-6)
    expect(environmentSlug('review/fix-foo')).toBe(`review-fix-foo-${digits}`)
  })

  test('the tier of an environment created without one comes from its name', () => {
    expect(guessTier('review/app')).toBe('development')
    expect(guessTier('qa')).toBe('testing')
    expect(guessTier('pre-release')).toBe('staging')
    expect(guessTier('production')).toBe('production')
    expect(guessTier('canary')).toBe('other')
  })
})

describe('POST /projects/:id/environments', () => {
  test('a Developer creates one: 201 with the entity, its slug, guessed tier and the project', async () => {
    const { project, developer } = await team()
    const res = await call('POST', `/projects/${project.id}/environments`, developer, {
      name: 'review/fix-foo',
      external_url: 'https://fix.example.com',
    })
    expect(res.status).toBe(201)
    const [row] = await findEnvironmentsByNames(server.database.db, project.id, ['review/fix-foo'])
    expect(row.slug).toBe(environmentSlug('review/fix-foo'))
    expect(res.body).toEqual(expected(row, { project: res.body.project }))
    expect(Object.keys(res.body)).toEqual([
      'id',
      'name',
      'slug',
      'external_url',
      'created_at',
      'updated_at',
      'tier',
      'project',
      'state',
      'auto_stop_at',
      'description',
      'auto_stop_setting',
    ])
    expect(res.body).toMatchObject({
      tier: 'development',
      state: 'available',
      external_url: 'https://fix.example.com',
      created_at: start.toISOString(),
    })
    expect(projectOf(res.body)).toEqual({ id: project.id, path_with_namespace: project.full_path })
  })

  test('the tier given wins over the guess; a blank external_url is null', async () => {
    const { project, developer } = await team()
    const res = await call('POST', `/projects/${project.id}/environments`, developer, {
      name: 'production',
      tier: 'staging',
      external_url: '',
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ name: 'production', slug: 'production', tier: 'staging', external_url: null })
  })

  test('missing name: the contract body; bad tier and a given slug: Grape errors', async () => {
    const { project, developer } = await team()
    const path = `/projects/${project.id}/environments`
    expect(await call('POST', path, developer, { external_url: 'https://x.example.com' })).toMatchObject({
      status: 400,
      body: { message: '400 (Bad request) "name" not given' },
    })
    expect(await call('POST', path, developer, { name: 'x', tier: 'gold' })).toMatchObject({
      status: 400,
      body: { error: 'tier does not have a valid value' },
    })
    expect(await call('POST', path, developer, { name: 'x', slug: 'x' })).toMatchObject({
      status: 400,
      body: { error: 'slug is automatically generated and cannot be changed' },
    })
  })

  test('a taken name, a bad name, a long name and a script link answer the model errors', async () => {
    const { project, developer } = await team()
    const path = `/projects/${project.id}/environments`
    expect((await call('POST', path, developer, { name: 'staging' })).status).toBe(201)
    const taken = await call('POST', path, developer, { name: 'staging' })
    expect(taken.status).toBe(400)
    expect(taken.body).toEqual({ message: { name: ['has already been taken'], slug: ['has already been taken'] } })
    const format = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'"
    expect((await call('POST', path, developer, { name: '/review' })).body).toEqual({ message: { name: [format] } })
    expect((await call('POST', path, developer, { name: 'a#b' })).body).toEqual({ message: { name: [format] } })
    expect((await call('POST', path, developer, { name: '' })).body).toEqual({ message: { name: ["can't be blank", format] } })
    expect((await call('POST', path, developer, { name: 'x'.repeat(256) })).body).toEqual({
      message: { name: ['is too long (maximum is 255 characters)'] },
    })
    expect((await call('POST', path, developer, { name: 'ok', external_url: 'javascript:alert(1)' })).body).toEqual({
      message: { external_url: ['javascript scheme is not allowed'] },
    })
    expect((await call('POST', path, developer, { name: 'ok', external_url: `https://${'a'.repeat(250)}.com` })).body).toEqual({
      message: { external_url: ['is too long (maximum is 255 characters)'] },
    })
    // Names differing only in case are different environments.
    expect((await call('POST', path, developer, { name: 'Staging' })).status).toBe(201)
  })

  test('a Reporter is refused 403, an outsider of a private project 404, anonymous 401', async () => {
    const { project, reporter, outsider } = await team()
    const path = `/projects/${project.id}/environments`
    expect(await call('POST', path, reporter, { name: 'x' })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } })
    expect(await call('POST', path, outsider, { name: 'x' })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } })
    expect(await call('POST', path, undefined, { name: 'x' })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } })
  })

  test('with the environments feature disabled, even a Maintainer is refused', async () => {
    const { project, maintainer } = await team()
    await server.database.db.updateTable('projects').set({ environments_access_level: 0 }).where('id', '=', project.id).execute()
    expect((await call('POST', `/projects/${project.id}/environments`, maintainer, { name: 'x' })).status).toBe(403)
    expect((await call('GET', `/projects/${project.id}/environments`, maintainer)).status).toBe(403)
  })
})

describe('an archived project', () => {
  test('keeps its environments readable but refuses changes', async () => {
    const { project, maintainer } = await team()
    const row = await insertEnvironment(project, { name: 'production' })
    await server.database.db.updateTable('projects').set({ archived: 1 }).where('id', '=', project.id).execute()
    expect((await call('GET', `/projects/${project.id}/environments`, maintainer)).status).toBe(200)
    expect((await call('POST', `/projects/${project.id}/environments`, maintainer, { name: 'x' })).status).toBe(403)
    expect((await call('PUT', `/projects/${project.id}/environments/${row.id}`, maintainer, { tier: 'other' })).status).toBe(403)
    expect((await call('POST', `/projects/${project.id}/environments/${row.id}/stop`, maintainer)).body.state).toBe('available')
  })
})

describe('GET /projects/:id/environments', () => {
  test('a Reporter lists them oldest first with pagination headers and the project', async () => {
    const { project, reporter } = await team()
    const a = await insertEnvironment(project, { name: 'production', tier: 'production' })
    const b = await insertEnvironment(project, { name: 'review/one', state: 'stopped' })
    const c = await insertEnvironment(project, { name: 'review/two' })
    const res = await call('GET', `/projects/${project.id}/environments?per_page=2`, reporter)
    expect(res.status).toBe(200)
    expect(res.body.map((e: any) => e.id)).toEqual([a.id, b.id])
    expect(res.body[0]).toEqual(expected(a, { project: res.body[0].project }))
    expect(projectOf(res.body[0])).toEqual({ id: project.id, path_with_namespace: project.full_path })
    expect(res.headers).toMatchObject({ 'x-total': '3', 'x-total-pages': '2', 'x-page': '1', 'x-per-page': '2', 'x-next-page': '2' })
    const page2 = await call('GET', `/projects/${project.id}/environments?per_page=2&page=2`, reporter)
    expect(page2.body.map((e: any) => e.id)).toEqual([c.id])
  })

  test('filters by exact name, by name prefix (case-insensitive, three characters at least) and by state', async () => {
    const { project, reporter } = await team()
    const a = await insertEnvironment(project, { name: 'production' })
    const b = await insertEnvironment(project, { name: 'Review/one', state: 'stopped' })
    const c = await insertEnvironment(project, { name: 'review/two', state: 'stopping' })
    await insertEnvironment(project, { name: 'pre_review' })
    const ids = async (query: string) =>
      (await call('GET', `/projects/${project.id}/environments?${query}`, reporter)).body.map((e: any) => e.id)
    expect(await ids('name=production')).toEqual([a.id])
    expect(await ids('name=Production')).toEqual([])
    // A blank name filters nothing out, as GitLab's finder skips it.
    expect(await ids('name=')).toHaveLength(4)
    expect(await ids('search=REV')).toEqual([b.id, c.id])
    expect(await ids('search=rev_')).toEqual([])
    expect(await ids('states=stopped')).toEqual([b.id])
    expect(await ids('states=stopping')).toEqual([c.id])
    expect(await call('GET', `/projects/${project.id}/environments?search=re`, reporter)).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Search query is less than 3 characters' },
    })
    expect(await call('GET', `/projects/${project.id}/environments?states=gone`, reporter)).toMatchObject({
      status: 400,
      body: { error: 'states does not have a valid value' },
    })
    expect(await call('GET', `/projects/${project.id}/environments?name=a&search=abc`, reporter)).toMatchObject({
      status: 400,
      body: { error: 'name, search cannot be used together' },
    })
  })

  test('a Guest of a private project is refused; anyone signed in reads those of a public project', async () => {
    const { project, guest, outsider } = await team()
    expect((await call('GET', `/projects/${project.id}/environments`, guest)).status).toBe(403)
    expect((await call('GET', `/projects/${project.id}/environments`, outsider)).status).toBe(404)
    const open = await team('public')
    await insertEnvironment(open.project, { name: 'production' })
    expect((await call('GET', `/projects/${open.project.id}/environments`, open.guest)).body).toHaveLength(1)
    expect((await call('GET', `/projects/${open.project.id}/environments`, open.outsider)).body).toHaveLength(1)
    expect((await call('GET', `/projects/${open.project.id}/environments`, undefined)).status).toBe(401)
  })
})

describe('GET /projects/:id/environments/:environment_id', () => {
  test('shows last_deployment (null) instead of the project', async () => {
    const { project, reporter, guest } = await team()
    const row = await insertEnvironment(project, {
      name: 'production',
      external_url: 'https://example.com',
      auto_stop_at: '2026-12-01T00:00:00.000Z',
    })
    const res = await call('GET', `/projects/${project.id}/environments/${row.id}`, reporter)
    expect(res.status).toBe(200)
    expect(res.body).toEqual(expected(row, { last_deployment: null }))
    expect(Object.keys(res.body)).toContain('last_deployment')
    expect(Object.keys(res.body)).not.toContain('project')
    expect(await call('GET', `/projects/${project.id}/environments/${row.id + 1000}`, reporter)).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    })
    expect((await call('GET', `/projects/${project.id}/environments/${row.id}`, guest)).status).toBe(403)
    expect(await call('GET', `/projects/${project.id}/environments/abc`, reporter)).toMatchObject({
      status: 400,
      body: { error: 'environment_id is invalid' },
    })
  })

  test('an environment of another project is not found', async () => {
    const one = await team()
    const other = await team()
    const row = await insertEnvironment(other.project, { name: 'production' })
    expect((await call('GET', `/projects/${one.project.id}/environments/${row.id}`, one.maintainer)).status).toBe(404)
  })
})

describe('PUT /projects/:id/environments/:environment_id', () => {
  test('a Developer changes external_url and tier; the name stays', async () => {
    const { project, developer } = await team()
    const row = await insertEnvironment(project, { name: 'production', tier: 'production' })
    server.travel(60_000)
    const res = await call('PUT', `/projects/${project.id}/environments/${row.id}`, developer, {
      external_url: 'https://prod.example.com',
      tier: 'staging',
      name: 'renamed',
    })
    expect(res.status).toBe(200)
    const updatedAt = new Date(start.getTime() + 60_000).toISOString()
    expect(res.body).toEqual(
      expected({ ...row, external_url: 'https://prod.example.com', tier: 'staging', updated_at: updatedAt }, { project: res.body.project }),
    )
  })

  test('nothing changed leaves updated_at; bad values are refused', async () => {
    const { project, developer, reporter } = await team()
    const row = await insertEnvironment(project, { name: 'production', external_url: 'https://a.example.com' })
    server.travel(60_000)
    const path = `/projects/${project.id}/environments/${row.id}`
    expect((await call('PUT', path, developer, { external_url: 'https://a.example.com' })).body.updated_at).toBe(row.updated_at)
    expect((await call('PUT', path, developer, { external_url: 'data:text/html,x' })).body).toEqual({
      message: { external_url: ['data scheme is not allowed'] },
    })
    expect((await call('PUT', path, developer, { tier: 'gold' })).body).toEqual({ error: 'tier does not have a valid value' })
    expect((await call('PUT', path, developer, { slug: 'x' })).body).toEqual({
      error: 'slug is automatically generated and cannot be changed',
    })
    expect((await call('PUT', path, reporter, { tier: 'other' })).status).toBe(403)
    expect((await call('PUT', `/projects/${project.id}/environments/${row.id + 1000}`, developer, { tier: 'other' })).status).toBe(404)
  })
})

describe('POST /projects/:id/environments/:environment_id/stop', () => {
  test('a Developer stops an available environment; its auto-stop time goes', async () => {
    const { project, developer } = await team()
    const row = await insertEnvironment(project, { name: 'review/x', auto_stop_at: '2026-12-01T00:00:00.000Z' })
    const res = await call('POST', `/projects/${project.id}/environments/${row.id}/stop`, developer)
    expect(res.status).toBe(200)
    expect(res.body).toEqual(expected({ ...row, state: 'stopped', auto_stop_at: null }, { project: res.body.project }))
  })

  test('a stopping environment stops only with force', async () => {
    const { project, developer } = await team()
    const row = await insertEnvironment(project, { name: 'review/y', state: 'stopping' })
    const path = `/projects/${project.id}/environments/${row.id}/stop`
    expect((await call('POST', path, developer)).body.state).toBe('stopping')
    expect((await call('POST', path, developer, { force: true })).body.state).toBe('stopped')
  })

  test('a Reporter gets the environment back unchanged, as GitLab answers; a Guest of a private project 403', async () => {
    const { project, reporter, guest } = await team()
    const row = await insertEnvironment(project, { name: 'review/z' })
    const res = await call('POST', `/projects/${project.id}/environments/${row.id}/stop`, reporter)
    expect(res.status).toBe(200)
    expect(res.body.state).toBe('available')
    expect((await call('POST', `/projects/${project.id}/environments/${row.id}/stop`, guest)).status).toBe(403)
    expect((await call('POST', `/projects/${project.id}/environments/${row.id + 1000}/stop`, reporter)).status).toBe(404)
  })
})

describe('DELETE /projects/:id/environments/:environment_id', () => {
  test('only a stopped environment can be deleted, by a Developer and up', async () => {
    const { project, developer, reporter } = await team()
    const row = await insertEnvironment(project, { name: 'review/del' })
    const path = `/projects/${project.id}/environments/${row.id}`
    expect(await call('DELETE', path, developer)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } })
    await call('POST', `${path}/stop`, developer)
    expect((await call('DELETE', path, reporter)).status).toBe(403)
    const res = await call('DELETE', path, developer)
    expect(res.status).toBe(204)
    expect(res.text).toBe('')
    expect(await findEnvironmentsByNames(server.database.db, project.id, ['review/del'])).toEqual([])
    expect(await call('DELETE', path, developer)).toMatchObject({ status: 404, body: { message: '404 Not found' } })
  })

  test('If-Unmodified-Since older than the last change answers 412', async () => {
    const { project, maintainer } = await team()
    const row = await insertEnvironment(project, { name: 'old', state: 'stopped' })
    const path = `/projects/${project.id}/environments/${row.id}`
    const before = new Date(start.getTime() - 3600_000).toUTCString()
    expect(await call('DELETE', path, maintainer, undefined, { 'if-unmodified-since': before })).toMatchObject({
      status: 412,
      body: { message: '412 Precondition Failed' },
    })
    expect((await call('DELETE', path, maintainer, undefined, { 'if-unmodified-since': start.toUTCString() })).status).toBe(204)
  })

  test('the environment’s annotations go with it', async () => {
    const { project, maintainer } = await team()
    const row = await insertEnvironment(project, { name: 'annotated', state: 'stopped' })
    const at = start.toISOString()
    const db = server.database.db
    await db
      .insertInto('metrics_dashboard_annotations')
      .values({
        environment_id: row.id,
        dashboard_path: 'config/prometheus/common_metrics.yml',
        description: 'd',
        starting_at: at,
        created_at: at,
        updated_at: at,
      })
      .execute()
    expect((await call('DELETE', `/projects/${project.id}/environments/${row.id}`, maintainer)).status).toBe(204)
    expect(await db.selectFrom('metrics_dashboard_annotations').selectAll().where('environment_id', '=', row.id).execute()).toEqual([])
  })
})

describe('findEnvironmentsByNames', () => {
  test('finds a project’s environments by exact, case-sensitive names', async () => {
    const { project } = await team()
    const other = await team()
    const a = await insertEnvironment(project, { name: 'production' })
    await insertEnvironment(project, { name: 'staging' })
    await insertEnvironment(other.project, { name: 'production' })
    const found = await findEnvironmentsByNames(server.database.db, project.id, ['production', 'Staging', 'production'])
    expect(found.map((e) => e.id)).toEqual([a.id])
    expect(await findEnvironmentsByNames(server.database.db, project.id, [])).toEqual([])
  })
})

describe('a real client', () => {
  test('@gitbeaker/rest Environments all, create, show, edit, stop and remove', async () => {
    const { project, maintainer } = await team()
    const api = new Gitlab({ host: server.url, token: maintainer.token })
    const created = await api.Environments.create(project.id, 'review/beaker', { externalUrl: 'https://beaker.example.com' })
    expect(created).toMatchObject({ name: 'review/beaker', external_url: 'https://beaker.example.com', state: 'available' })
    const all = await api.Environments.all(project.id, { search: 'review' })
    expect(all.map((e) => e.id)).toEqual([created.id])
    expect(await api.Environments.show(project.id, created.id)).toMatchObject({ id: created.id, last_deployment: null })
    expect(await api.Environments.edit(project.id, created.id, { tier: 'staging' })).toMatchObject({ tier: 'staging' })
    expect(await api.Environments.stop(project.id, created.id)).toMatchObject({ state: 'stopped' })
    await api.Environments.remove(project.id, created.id)
    expect(await api.Environments.all(project.id)).toEqual([])
  })
})
