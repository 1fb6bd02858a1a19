import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { MilestoneRow, ProjectRow } from '../../db/schema.js'
import { createTestIssue, createTestMilestone, createTestProject } from '../../testing/factories.js'
import { client, type RequestOptions } from '../../testing/http.js'
import { createPerson, createProjectTeam, type Person } from '../../testing/roles.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { eventsOfProject } from '../events/testing.js'
import { milestonesOfProject } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>
let url: string
const start = new Date('2026-11-20T10:00:00.000Z')

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  url = server.url
})
afterAll(() => server.close())
// Every test starts at the same moment; tests that need time to pass move the clock themselves.
beforeEach(() => server.freeze(start))

function call(method: string, path: string, person: Person | undefined, body?: RequestOptions['body']) {
  return request(method, `/api/v4${path}`, { token: person?.token, body })
}

function person(): Promise<Person> {
  return createPerson(server.database.db)
}

function team(visibility: 'public' | 'private' = 'public') {
  const roles = ['maintainer', 'developer', 'reporter', 'planner', 'guest'] as const
  return createProjectTeam(server.database.db, { roles, visibility })
}

/** A milestone as GitLab's Milestone entity shows it, computed independently of the presenter. */
function expectedMilestone(row: MilestoneRow, project: ProjectRow, expired = false) {
  return {
    id: row.id,
    iid: row.iid,
    project_id: project.id,
    title: row.title,
    description: row.description,
    state: row.state,
    created_at: row.created_at,
    updated_at: row.updated_at,
    due_date: row.due_date,
    start_date: row.start_date,
    expired,
    web_url: `${url}/${project.full_path}/-/milestones/${row.iid}`,
  }
}

describe('POST /projects/:id/milestones', () => {
  test('a Reporter creates one: 201 with the entity in field order, the next iid, and a created event', async () => {
    const { project, reporter, planner } = await team()
    const res = await call('POST', `/projects/${project.id}/milestones`, reporter, {
      title: 'v1.0',
      description: 'First',
      start_date: '2026-12-01',
      due_date: '2026-12-31',
    })
    expect(res.status).toBe(201)
    const [row] = await milestonesOfProject(server.database.db, project.id)
    expect(row).toMatchObject({
      iid: 1,
      title: 'v1.0',
      description: 'First',
      state: 'active',
      start_date: '2026-12-01',
      due_date: '2026-12-31',
    })
    expect(row.created_at).toBe(start.toISOString())
    expect(res.body).toEqual(expectedMilestone(row, project))
    expect(Object.keys(res.body)).toEqual(Object.keys(expectedMilestone(row, project)))
    const second = await call('POST', `/projects/${project.id}/milestones`, planner, { title: 'v2.0' })
    expect(second.status).toBe(201)
    expect(second.body).toMatchObject({ iid: 2, description: null, start_date: null, due_date: null, expired: false })
    expect(await eventsOfProject(server.database.db, project.id)).toEqual([
      {
        project_id: project.id,
        author_id: reporter.user.id,
        action: 1,
        target_type: 'Milestone',
        target_id: row.id,
        created_at: start.toISOString(),
      },
      {
        project_id: project.id,
        author_id: planner.user.id,
        action: 1,
        target_type: 'Milestone',
        target_id: second.body.id,
        created_at: start.toISOString(),
      },
    ])
  })

  test('Guests and non-members get 403; anonymous callers 401', async () => {
    const { project, guest, outsider } = await team()
    for (const caller of [guest, outsider]) {
      const res = await call('POST', `/projects/${project.id}/milestones`, caller, { title: 'x' })
      expect(res.status).toBe(403)
      expect(res.body).toEqual({ message: '403 Forbidden' })
    }
    expect((await call('POST', `/projects/${project.id}/milestones`, undefined, { title: 'x' })).status).toBe(401)
    expect(await milestonesOfProject(server.database.db, project.id)).toEqual([])
  })

  test("GitLab's validation errors, and nothing written", async () => {
    const { project, reporter } = await team()
    const path = `/projects/${project.id}/milestones`
    await call('POST', path, reporter, { title: 'Taken' })
    const cases: [Record<string, string>, unknown][] = [
      [{}, { message: '400 (Bad request) "title" not given' }],
      [{ title: '' }, { message: 'Failed to create milestone {:title=>["can\'t be blank"]}' }],
      [
        { title: 'Taken' },
        { message: 'Failed to create milestone {:title=>["already being used for another group or project milestone."]}' },
      ],
      [
        { title: 'Dates', start_date: '2026-12-31', due_date: '2026-12-01' },
        { message: 'Failed to create milestone {:due_date=>["must be greater than start date"]}' },
      ],
      [
        { title: 'Far', due_date: '10000-01-01' },
        { message: 'Failed to create milestone {:due_date=>["date must not be after 9999-12-31"]}' },
      ],
    ]
    for (const [body, error] of cases) {
      const res = await call('POST', path, reporter, body)
      expect(res.status).toBe(400)
      expect(res.body).toEqual(error)
    }
    expect((await milestonesOfProject(server.database.db, project.id)).map((m) => m.title)).toEqual(['Taken'])
    expect(await eventsOfProject(server.database.db, project.id)).toHaveLength(1)
  })

  test('markup is removed from the title; an unreadable date is left empty', async () => {
    const { project, reporter } = await team()
    const res = await call('POST', `/projects/${project.id}/milestones`, reporter, { title: '<b>Bold</b> &amp; plain', due_date: 'soon' })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ title: 'Bold & plain', due_date: null })
  })
})

describe('GET /projects/:id/milestones', () => {
  async function four() {
    const t = await team()
    const db = server.database.db
    const rows: MilestoneRow[] = []
    for (const [title, state] of [
      ['Alpha release', 'active'],
      ['Beta release', 'closed'],
      ['Gamma', 'active'],
      ['ab', 'active'],
    ] as const) {
      const row = await createTestMilestone(db, { project: t.project, title, state })
      // Updated one second apart from the start of the test.
      const at = new Date(start.getTime() + (rows.length + 1) * 1000).toISOString()
      rows.push(
        await db.updateTable('milestones').set({ updated_at: at }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow(),
      )
    }
    await db.updateTable('milestones').set({ description: 'mentions the beta testers' }).where('id', '=', rows[2].id).execute()
    return { ...t, rows }
  }
  const ids = (res: { body: { id: number }[] }) => res.body.map((m) => m.id)

  test('newest first, paginated, readable by anyone who sees the project', async () => {
    const { project, outsider, rows } = await four()
    const res = await call('GET', `/projects/${project.id}/milestones?per_page=3`, outsider)
    expect(res.status).toBe(200)
    expect(ids(res)).toEqual([rows[3].id, rows[2].id, rows[1].id])
    expect(res.headers).toMatchObject({ 'x-total': '4', 'x-total-pages': '2', 'x-page': '1', 'x-per-page': '3', 'x-next-page': '2' })
    const [stored] = await milestonesOfProject(server.database.db, project.id)
    const last = await call('GET', `/projects/${project.id}/milestones?page=2&per_page=3`, outsider)
    expect(last.body).toEqual([expectedMilestone(stored, project)])
  })

  test('filters: state, iids, title, search over title and description, search_title, updated before and after', async () => {
    const { project, guest, rows } = await four()
    const path = `/projects/${project.id}/milestones`
    expect(ids(await call('GET', `${path}?state=closed`, guest))).toEqual([rows[1].id])
    expect(ids(await call('GET', `${path}?state=active`, guest))).toEqual([rows[3].id, rows[2].id, rows[0].id])
    expect(ids(await call('GET', `${path}?iids[]=1&iids[]=3`, guest))).toEqual([rows[2].id, rows[0].id])
    expect(ids(await call('GET', `${path}?iids=1,3&include_ancestors=true`, guest))).toHaveLength(4)
    expect(ids(await call('GET', `${path}?title=Gamma`, guest))).toEqual([rows[2].id])
    expect(ids(await call('GET', `${path}?title=gamma`, guest))).toEqual([])
    expect(ids(await call('GET', `${path}?search=BETA`, guest))).toEqual([rows[2].id, rows[1].id])
    expect(ids(await call('GET', `${path}?search_title=beta`, guest))).toEqual([rows[1].id])
    expect(ids(await call('GET', `${path}?search=ab`, guest))).toEqual([rows[3].id])
    expect(ids(await call('GET', `${path}?search=release alpha`, guest))).toEqual([rows[0].id])
    const middle = new Date(start.getTime() + 2500).toISOString()
    expect(ids(await call('GET', `${path}?updated_before=${middle}`, guest))).toEqual([rows[1].id, rows[0].id])
    expect(ids(await call('GET', `${path}?updated_after=${middle}`, guest))).toEqual([rows[3].id, rows[2].id])
    const badState = await call('GET', `${path}?state=open`, guest)
    expect(badState.status).toBe(400)
    expect(badState.body).toEqual({ error: 'state does not have a valid value' })
    const badDate = await call('GET', `${path}?updated_before=yesterday`, guest)
    expect(badDate.body).toEqual({ error: 'updated_before is invalid' })
  })

  test('a hidden project is 404; with issues and merge requests off, 403', async () => {
    const priv = await team('private')
    const outsider = await person()
    const hidden = await call('GET', `/projects/${priv.project.id}/milestones`, outsider)
    expect(hidden.status).toBe(404)
    expect(hidden.body).toEqual({ message: '404 Project Not Found' })
    expect((await call('GET', `/projects/${priv.project.id}/milestones`, priv.guest)).status).toBe(200)
    await server.database.db
      .updateTable('projects')
      .set({ issues_access_level: 0, merge_requests_access_level: 0 })
      .where('id', '=', priv.project.id)
      .execute()
    const off = await call('GET', `/projects/${priv.project.id}/milestones`, priv.maintainer)
    expect(off.status).toBe(403)
    expect(off.body).toEqual({ message: '403 Forbidden' })
  })
})

describe('GET /projects/:id/milestones/:milestone_id', () => {
  test('by global id; another project\'s milestone is 404 "Not found"; a past due date is expired', async () => {
    const { project, guest } = await team()
    const db = server.database.db
    const milestone = await createTestMilestone(db, { project, dueDate: '2026-11-19' })
    const res = await call('GET', `/projects/${project.id}/milestones/${milestone.id}`, guest)
    expect(res.status).toBe(200)
    expect(res.body).toEqual(expectedMilestone(milestone, project, true))
    const other = await createTestMilestone(db, { project: await createTestProject(db, { owner: guest.user }) })
    const missing = await call('GET', `/projects/${project.id}/milestones/${other.id}`, guest)
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ message: '404 Not found' })
  })
})

describe('PUT /projects/:id/milestones/:milestone_id', () => {
  test('edits attributes; close and activate record closed and reopened events once per change', async () => {
    const { project, reporter } = await team()
    const db = server.database.db
    const milestone = await createTestMilestone(db, { project, title: 'Old' })
    const path = `/projects/${project.id}/milestones/${milestone.id}`
    server.travel(1000)
    const edited = await call('PUT', path, reporter, { title: 'New', description: 'Now described', due_date: '2026-11-01' })
    expect(edited.status).toBe(200)
    const [row] = await milestonesOfProject(db, project.id)
    expect(row).toMatchObject({ title: 'New', description: 'Now described', due_date: '2026-11-01', state: 'active' })
    expect(row.updated_at).toBe(new Date(start.getTime() + 1000).toISOString())
    expect(edited.body).toEqual(expectedMilestone(row, project, true))
    expect((await call('PUT', path, reporter, { state_event: 'close' })).body.state).toBe('closed')
    expect((await call('PUT', path, reporter, { state_event: 'close' })).body.state).toBe('closed')
    expect((await call('PUT', path, reporter, { state_event: 'activate' })).body.state).toBe('active')
    const events = await eventsOfProject(db, project.id)
    expect(events.map((e) => [e.action, e.target_type, e.target_id, e.author_id])).toEqual([
      [3, 'Milestone', milestone.id, reporter.user.id],
      [4, 'Milestone', milestone.id, reporter.user.id],
    ])
  })

  test('nothing to change is 400; a taken title is refused and the state stays; Guests get 403', async () => {
    const { project, reporter, guest } = await team()
    const db = server.database.db
    await createTestMilestone(db, { project, title: 'Taken' })
    const milestone = await createTestMilestone(db, { project, title: 'Mine' })
    const path = `/projects/${project.id}/milestones/${milestone.id}`
    const empty = await call('PUT', path, reporter, {})
    expect(empty.status).toBe(400)
    expect(empty.body).toEqual({
      error: 'title, description, start_date, due_date, state_event are missing, at least one parameter must be provided',
    })
    const taken = await call('PUT', path, reporter, { title: 'Taken', state_event: 'close' })
    expect(taken.status).toBe(400)
    expect(taken.body).toEqual({
      message: 'Failed to update milestone {:title=>["already being used for another group or project milestone."]}',
    })
    expect((await milestonesOfProject(db, project.id))[1]).toMatchObject({ title: 'Mine', state: 'active' })
    expect(await eventsOfProject(db, project.id)).toEqual([])
    expect((await call('PUT', path, guest, { title: 'x' })).status).toBe(403)
    const badEvent = await call('PUT', path, reporter, { state_event: 'reopen' })
    expect(badEvent.body).toEqual({ error: 'state_event does not have a valid value' })
  })
})

describe('DELETE /projects/:id/milestones/:milestone_id', () => {
  test("204; issues lose the milestone; a destroyed event is recorded and the milestone's events lose their target", async () => {
    const { project, reporter, developer } = await team()
    const db = server.database.db
    const created = (await call('POST', `/projects/${project.id}/milestones`, reporter, { title: 'Gone' })).body
    const [milestone] = await milestonesOfProject(db, project.id)
    const issue = await createTestIssue(db, { project, author: developer.user, milestone })
    const removed = await call('DELETE', `/projects/${project.id}/milestones/${created.id}`, developer)
    expect(removed.status).toBe(204)
    expect(await milestonesOfProject(db, project.id)).toEqual([])
    const stored = await db.selectFrom('issues').select('milestone_id').where('id', '=', issue.id).executeTakeFirstOrThrow()
    expect(stored.milestone_id).toBeNull()
    expect((await eventsOfProject(db, project.id)).map((e) => [e.action, e.target_type, e.target_id, e.author_id])).toEqual([
      [1, 'Milestone', null, reporter.user.id],
      [10, 'Milestone', null, developer.user.id],
    ])
    const again = await call('DELETE', `/projects/${project.id}/milestones/${created.id}`, reporter)
    expect(again.status).toBe(404)
    expect(again.body).toEqual({ message: '404 Not found' })
  })

  test('Guests get 403 and the milestone stays', async () => {
    const { project, guest } = await team()
    const milestone = await createTestMilestone(server.database.db, { project })
    expect((await call('DELETE', `/projects/${project.id}/milestones/${milestone.id}`, guest)).status).toBe(403)
    expect(await milestonesOfProject(server.database.db, project.id)).toHaveLength(1)
  })
})

describe('the gitbeaker ProjectMilestones API', () => {
  test('creates, lists, shows, edits and removes milestones', async () => {
    const { project, reporter } = await team()
    const gitlab = new Gitlab({ host: server.url, token: reporter.token })
    const created = await gitlab.ProjectMilestones.create(project.id, 'Client milestone', { dueDate: '2026-12-24' })
    expect(created).toMatchObject({ iid: 1, title: 'Client milestone', due_date: '2026-12-24', state: 'active' })
    expect((await gitlab.ProjectMilestones.all(project.id)).map((m) => m.id)).toEqual([created.id])
    expect(await gitlab.ProjectMilestones.show(project.id, created.id)).toMatchObject({ id: created.id })
    const closed = await gitlab.ProjectMilestones.edit(project.id, created.id, { stateEvent: 'close' })
    expect(closed.state).toBe('closed')
    await gitlab.ProjectMilestones.remove(project.id, created.id)
    expect(await milestonesOfProject(server.database.db, project.id)).toEqual([])
  })
})
