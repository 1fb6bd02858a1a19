import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Db } from '../../db/index.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import {
  addTestMember,
  createTestGroup,
  createTestIssue,
  createTestLabel,
  createTestMergeRequest,
  createTestProject,
  createTestToken,
  createTestUser,
} from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let db: Db
let request: ReturnType<typeof client>
let root: string

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  request = client(`${server.url}/api/v4`)
  root = server.rootToken
})
afterAll(() => server.close())

async function userWithToken(options: { admin?: boolean } = {}) {
  const user = await createTestUser(db, options.admin ? { admin: 1 } : {})
  const { value: token } = await createTestToken(db, user, { scopes: ['api'] })
  return { user, token }
}

async function groupWithProject(options: { visibility?: 'public' | 'private'; parent?: NamespaceRow } = {}) {
  const group = await createTestGroup(db, { visibility: options.visibility ?? 'public', parent: options.parent })
  const project = await createTestProject(db, { namespace: group, visibility: options.visibility ?? 'public' })
  return { group, project }
}

describe('creating project labels', () => {
  test('answers 201 with the ProjectLabel entity in GitLab field order', async () => {
    const { project } = await groupWithProject()
    const response = await request('POST', `/projects/${project.id}/labels`, {
      token: root,
      body: { name: '  Bug  ', color: 'Red', description: 'Things <b>broken</b> & https://example.com/a?b=1&c=2.', priority: 3 },
    })
    expect(response.status).toBe(201)
    expect(response.text).toBe(
      JSON.stringify({
        id: response.body.id,
        name: 'Bug',
        color: '#FF0000',
        description: 'Things broken & https://example.com/a?b=1&c=2.',
        description_html:
          'Things broken &amp; <a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noreferrer noopener" target="_blank">https://example.com/a?b=1&amp;c=2</a>.',
        text_color: '#FFFFFF',
        subscribed: false,
        priority: 3,
        is_project_label: true,
      }),
    )
  })

  test('keeps hex colours as given, derives the text colour, renders plain descriptions as escaped text', async () => {
    const { project } = await groupWithProject()
    const light = await request('POST', `/projects/${project.id}/labels`, { token: root, body: { name: 'light', color: '#fEd' } })
    expect(light.body).toMatchObject({ color: '#fEd', text_color: '#333333', description: null, description_html: '' })
    const dark = await request('POST', `/projects/${project.id}/labels`, {
      token: root,
      body: { name: 'dark', color: '#7f7f7f', description: 'Say "hi" & 1 < 2 <b>now</b>' },
    })
    expect(dark.body).toMatchObject({
      color: '#7f7f7f',
      text_color: '#FFFFFF',
      description: 'Say "hi" & 1 < 2 now',
      description_html: 'Say "hi" &amp; 1 &lt; 2 now',
    })
    const names = await request('POST', `/projects/${project.id}/labels`, {
      token: root,
      body: { name: 'named', color: ' LightGoldenRodYellow ' },
    })
    expect(names.body).toMatchObject({ color: '#FAFAD2', text_color: '#333333' })
    // `cyan` is not in GitLab's list.
    const cyan = await request('POST', `/projects/${project.id}/labels`, { token: root, body: { name: 'cyan', color: 'cyan' } })
    expect(cyan.status).toBe(400)
    expect(cyan.text).toBe('{"message":{"color":["must be a valid color code"]}}')
  })

  test('409 when the title is available already, from the project or a group above it', async () => {
    const top = await createTestGroup(db)
    const { group, project } = await groupWithProject({ parent: top })
    await createTestLabel(db, { group: top, title: 'from-top' })
    await createTestLabel(db, { group, title: 'from-group' })
    await createTestLabel(db, { project, title: 'own' })
    for (const name of ['from-top', 'from-group', 'own']) {
      const response = await request('POST', `/projects/${project.id}/labels`, { token: root, body: { name, color: '#000000' } })
      expect(response.status).toBe(409)
      expect(response.text).toBe('{"message":"Label already exists"}')
    }
    // The check uses the raw name; the stripped title then fails validation.
    const spaced = await request('POST', `/projects/${project.id}/labels`, { token: root, body: { name: ' own ', color: '#000000' } })
    expect(spaced.status).toBe(400)
    expect(spaced.text).toBe('{"message":{"title":["has already been taken"]}}')
  })

  test('400 validation bodies, and nothing is created', async () => {
    const { project } = await groupWithProject()
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'a,b', color: '#000' }, '{"message":{"title":["is invalid"]}}'],
      [{ name: '', color: '#000' }, '{"message":{"title":["can\'t be blank","is invalid"]}}'],
      [{ name: 'x'.repeat(256), color: '#000' }, '{"message":{"title":["is too long (maximum is 255 characters)"]}}'],
      [{ name: 'ok', color: '' }, '{"message":{"color":["must be a valid color code","can\'t be blank"]}}'],
      [{ name: 'a,b', color: '#12' }, '{"message":{"color":["must be a valid color code"],"title":["is invalid"]}}'],
      [{ name: 'ok', color: '#000', priority: -1 }, '{"message":{"priority":["must be greater than or equal to 0"]}}'],
      [{ color: '#000' }, '{"message":"400 (Bad request) \\"name\\" not given"}'],
      [{ name: 'ok' }, '{"message":"400 (Bad request) \\"color\\" not given"}'],
      [{ name: 'ok', color: '#000', priority: 'high' }, '{"error":"priority is invalid"}'],
    ]
    for (const [body, expected] of cases) {
      const response = await request('POST', `/projects/${project.id}/labels`, { token: root, body })
      expect([response.status, response.text]).toEqual([400, expected])
    }
    const description = await request('POST', `/projects/${project.id}/labels`, {
      token: root,
      body: { name: 'long', color: '#000', description: 'é'.repeat(262_145) },
    })
    expect(description.text).toBe('{"message":{"description":["is too long (maximum is 524288 characters)"]}}')
    expect((await request('GET', `/projects/${project.id}/labels`, { token: root })).body).toEqual([])
  })

  test("a project label may not take the title of its group's label on rename", async () => {
    const { group, project } = await groupWithProject()
    await createTestLabel(db, { group, title: 'shared' })
    const own = await createTestLabel(db, { project, title: 'mine' })
    const response = await request('PUT', `/projects/${project.id}/labels/${own.id}`, { token: root, body: { new_name: 'shared' } })
    expect(response.status).toBe(400)
    expect(response.text).toBe(`{"message":{"title":["already exists at group level for ${group.name}. Please choose another one."]}}`)
  })
})

describe('reading project labels', () => {
  test("lists the project's and its groups' labels by title, with pagination headers and search", async () => {
    const top = await createTestGroup(db)
    const { group, project } = await groupWithProject({ parent: top })
    await createTestLabel(db, { group: top, title: 'Zeta', description: 'far away' })
    await createTestLabel(db, { group, title: 'beta' })
    await createTestLabel(db, { project, title: 'Alpha', description: 'first BUG of all' })
    await createTestLabel(db, { project: await createTestProject(db, { namespace: group }), title: 'elsewhere' })
    const all = await request('GET', `/projects/${project.id}/labels?per_page=2`, { token: root })
    expect(all.status).toBe(200)
    expect(all.body.map((label: { name: string }) => label.name)).toEqual(['Alpha', 'Zeta'])
    expect(all.headers['x-total']).toBe('3')
    expect(all.headers['x-next-page']).toBe('2')
    expect(all.body[1]).toEqual({
      id: expect.any(Number),
      name: 'Zeta',
      color: '#6699cc',
      description: 'far away',
      description_html: 'far away',
      text_color: '#FFFFFF',
      subscribed: false,
      priority: null,
      is_project_label: false,
    })
    const direct = await request('GET', `/projects/${project.id}/labels?include_ancestor_groups=false`, { token: root })
    expect(direct.body.map((label: { name: string }) => label.name)).toEqual(['Alpha', 'beta'])
    const search = await request('GET', `/projects/${project.id}/labels?search=bug`, { token: root })
    expect(search.body.map((label: { name: string }) => label.name)).toEqual(['Alpha'])
    const words = await request('GET', `/projects/${project.id}/labels?search=${encodeURIComponent('far way')}`, { token: root })
    expect(words.body.map((label: { name: string }) => label.name)).toEqual(['Zeta'])
    const wildcard = await request('GET', `/projects/${project.id}/labels?search=%25`, { token: root })
    expect(wildcard.body).toEqual([])
  })

  test('finds one label by id first, then by title', async () => {
    const { project } = await groupWithProject()
    const first = await createTestLabel(db, { project, title: 'first' })
    const numeric = await createTestLabel(db, { project, title: String(first.id) })
    const slashed = await createTestLabel(db, { project, title: 'a/b' })
    expect((await request('GET', `/projects/${project.id}/labels/${first.id}`, { token: root })).body.name).toBe('first')
    expect((await request('GET', `/projects/${project.id}/labels/${numeric.id}`, { token: root })).body.name).toBe(String(first.id))
    expect((await request('GET', `/projects/${project.id}/labels/first`, { token: root })).body.id).toBe(first.id)
    expect((await request('GET', `/projects/${project.id}/labels/a%2Fb`, { token: root })).body.id).toBe(slashed.id)
    const missing = await request('GET', `/projects/${project.id}/labels/nothing`, { token: root })
    expect([missing.status, missing.text]).toEqual([404, '{"message":"404 Label Not Found"}'])
  })

  test('counts only with with_counts, as the caller may see them', async () => {
    const { user: author } = await userWithToken()
    const { user: guest, token: guestToken } = await userWithToken()
    const { user: reporter, token: reporterToken } = await userWithToken()
    const { group, project } = await groupWithProject()
    const sibling = await createTestProject(db, { namespace: group })
    await addTestMember(db, { user: guest, project, accessLevel: 10 })
    await addTestMember(db, { user: reporter, project, accessLevel: 20 })
    const label = await createTestLabel(db, { project, title: 'counted' })
    const groupLabel = await createTestLabel(db, { group, title: 'group-wide' })
    await createTestIssue(db, { project, author, labels: [label, groupLabel] })
    const closing = await createTestIssue(db, { project, author, labels: [label] })
    await createTestIssue(db, { project, author, labels: [label], confidential: true })
    await createTestIssue(db, { project, author: guest, labels: [label], confidential: true, state: 'closed' })
    await createTestIssue(db, { project: sibling, author, labels: [groupLabel] })
    await createTestMergeRequest(db, { project, author, labels: [label, groupLabel] })
    await createTestMergeRequest(db, { project, author, labels: [label], state: 'merged' })

    const plain = await request('GET', `/projects/${project.id}/labels`, { token: reporterToken })
    expect(Object.keys(plain.body[0])).not.toContain('open_issues_count')

    const countsFor = async (token: string) => {
      const response = await request('GET', `/projects/${project.id}/labels?with_counts=true`, { token })
      return Object.fromEntries(
        response.body.map((entry: Record<string, number | string>) => [
          entry.name,
          [entry.open_issues_count, entry.closed_issues_count, entry.open_merge_requests_count],
        ]),
      )
    }
    expect(await countsFor(reporterToken)).toEqual({ counted: [3, 1, 1], 'group-wide': [2, 0, 1] })
    // A guest sees confidential issues only when they wrote them.
    expect(await countsFor(guestToken)).toEqual({ counted: [2, 1, 1], 'group-wide': [2, 0, 1] })

    await db.updateTable('issues').set({ state: 'closed' }).where('id', '=', closing.id).execute()
    expect(await countsFor(reporterToken)).toEqual({ counted: [2, 2, 1], 'group-wide': [2, 0, 1] })

    // Issues of a project whose issues the caller may not read do not count.
    await db.updateTable('projects').set({ issues_access_level: 0 }).where('id', '=', sibling.id).execute()
    expect(await countsFor(reporterToken)).toEqual({ counted: [2, 2, 1], 'group-wide': [1, 0, 1] })
    expect((await request('GET', `/projects/${project.id}/labels`, { token: (await userWithToken()).token })).status).toBe(200)
  })

  test('needs authentication, and a project the caller can see', async () => {
    const { project } = await groupWithProject({ visibility: 'private' })
    const { token } = await userWithToken()
    const anonymous = await request('GET', `/projects/${project.id}/labels`)
    expect([anonymous.status, anonymous.text]).toEqual([401, '{"message":"401 Unauthorized"}'])
    const hidden = await request('GET', `/projects/${project.id}/labels`, { token })
    expect([hidden.status, hidden.text]).toEqual([404, '{"message":"404 Project Not Found"}'])
  })
})

describe('changing project labels', () => {
  test('edits title, colour, description and priority; null priority removes it; at least one field', async () => {
    const { project } = await groupWithProject()
    const label = await createTestLabel(db, { project, title: 'old' })
    const edited = await request('PUT', `/projects/${project.id}/labels/old`, {
      token: root,
      body: { new_name: 'new', color: 'navy', description: 'Now described', priority: 5 },
    })
    expect(edited.status).toBe(200)
    expect(edited.body).toMatchObject({ id: label.id, name: 'new', color: '#000080', description: 'Now described', priority: 5 })
    const cleared = await request('PUT', `/projects/${project.id}/labels/${label.id}`, { token: root, body: { priority: null } })
    expect(cleared.body).toMatchObject({ name: 'new', priority: null })
    const form = await request('PUT', `/projects/${project.id}/labels/${label.id}`, { token: root, body: { priority: '7' }, form: true })
    expect(form.body.priority).toBe(7)
    const blank = await request('PUT', `/projects/${project.id}/labels/${label.id}`, { token: root, body: { priority: '' }, form: true })
    expect(blank.body.priority).toBeNull()
    const none = await request('PUT', `/projects/${project.id}/labels/${label.id}`, { token: root, body: {} })
    expect([none.status, none.text]).toEqual([
      400,
      '{"error":"new_name, color, description, priority are missing, at least one parameter must be provided"}',
    ])
    const invalid = await request('PUT', `/projects/${project.id}/labels/${label.id}`, { token: root, body: { color: 'nope' } })
    expect([invalid.status, invalid.text]).toEqual([400, '{"message":{"color":["must be a valid color code"]}}'])
    expect((await request('GET', `/projects/${project.id}/labels/${label.id}`, { token: root })).body.color).toBe('#000080')
  })

  test('a list read before an edit shows the edited label afterwards, its description and text colour rendered anew', async () => {
    const { project } = await groupWithProject()
    const label = await createTestLabel(db, { project, title: 'shown' })
    const before = await request('GET', `/projects/${project.id}/labels`, { token: root })
    expect(before.body).toEqual([expect.objectContaining({ id: label.id, description_html: '' })])
    await request('PUT', `/projects/${project.id}/labels/${label.id}`, {
      token: root,
      body: { color: '#eeeeee', description: 'See https://example.com & more' },
    })
    const after = await request('GET', `/projects/${project.id}/labels`, { token: root })
    expect(after.body).toEqual([
      expect.objectContaining({
        id: label.id,
        color: '#eeeeee',
        text_color: '#333333',
        description_html:
          'See <a href="https://example.com" rel="nofollow noreferrer noopener" target="_blank">https://example.com</a> &amp; more',
      }),
    ])
  })

  test("a list read before a subscription or a new priority shows each caller's own afterwards", async () => {
    const { project } = await groupWithProject()
    const label = await createTestLabel(db, { project, title: 'listed' })
    const { token: alice } = await userWithToken()
    const { token: bob } = await userWithToken()
    const path = `/projects/${project.id}/labels`
    const shown = async (token: string) => {
      const res = await request('GET', path, { token })
      expect([res.status, res.headers['content-type']]).toEqual([200, 'application/json'])
      return res.body.map((entity: { subscribed: boolean; priority: number | null }) => [entity.subscribed, entity.priority])
    }
    expect([await shown(alice), await shown(bob)]).toEqual([[[false, null]], [[false, null]]])
    expect((await request('POST', `${path}/${label.id}/subscribe`, { token: alice })).status).toBe(201)
    expect([await shown(alice), await shown(bob)]).toEqual([[[true, null]], [[false, null]]])
    expect((await request('PUT', `${path}/${label.id}`, { token: root, body: { priority: 3 } })).status).toBe(200)
    expect([await shown(alice), await shown(bob)]).toEqual([[[true, 3]], [[false, 3]]])
  })

  test('the deprecated PUT and DELETE name the label in the params', async () => {
    const { project } = await groupWithProject()
    const label = await createTestLabel(db, { project, title: 'legacy' })
    const byName = await request('PUT', `/projects/${project.id}/labels`, { token: root, body: { name: 'legacy', color: '#123456' } })
    expect(byName.body).toMatchObject({ id: label.id, color: '#123456' })
    const byId = await request('PUT', `/projects/${project.id}/labels`, { token: root, body: { label_id: label.id, new_name: 'renamed' } })
    expect(byId.body).toMatchObject({ id: label.id, name: 'renamed' })
    const both = await request('PUT', `/projects/${project.id}/labels`, {
      token: root,
      body: { label_id: label.id, name: 'x', color: '#000' },
    })
    expect([both.status, both.text]).toEqual([400, '{"error":"label_id, name are mutually exclusive"}'])
    const neither = await request('DELETE', `/projects/${project.id}/labels`, { token: root })
    expect([neither.status, neither.text]).toEqual([400, '{"error":"label_id, name are missing, exactly one parameter must be provided"}'])
    const removed = await request('DELETE', `/projects/${project.id}/labels`, { token: root, body: { name: 'renamed' } })
    expect([removed.status, removed.text]).toEqual([204, ''])
    expect((await request('GET', `/projects/${project.id}/labels/${label.id}`, { token: root })).status).toBe(404)
  })

  test('deleting a label takes it off issues and merge requests', async () => {
    const { user } = await userWithToken()
    const { project } = await groupWithProject()
    const label = await createTestLabel(db, { project, title: 'doomed' })
    const kept = await createTestLabel(db, { project, title: 'kept' })
    const issue = await createTestIssue(db, { project, author: user, labels: [label, kept] })
    const mergeRequest = await createTestMergeRequest(db, { project, author: user, labels: [label] })
    const stale = await request('DELETE', `/projects/${project.id}/labels/${label.id}`, {
      token: root,
      headers: { 'if-unmodified-since': new Date(Date.parse(label.updated_at as string) - 60_000).toUTCString() },
    })
    expect([stale.status, stale.text]).toEqual([412, '{"message":"412 Precondition Failed"}'])
    const response = await request('DELETE', `/projects/${project.id}/labels/${label.id}`, { token: root })
    expect([response.status, response.text]).toEqual([204, ''])
    const issueLabels = await db.selectFrom('issue_labels').select('label_id').where('issue_id', '=', issue.id).execute()
    expect(issueLabels.map((row) => row.label_id)).toEqual([kept.id])
    expect(await db.selectFrom('merge_request_labels').selectAll().where('merge_request_id', '=', mergeRequest.id).execute()).toEqual([])
    expect(await db.selectFrom('label_counts').selectAll().where('label_id', '=', label.id).execute()).toEqual([])
  })

  test('writes need Planner or Reporter; guests get 403; group labels need the group role', async () => {
    const { group, project } = await groupWithProject()
    const { user: guest, token: guestToken } = await userWithToken()
    const { user: planner, token: plannerToken } = await userWithToken()
    await addTestMember(db, { user: guest, project, accessLevel: 10 })
    await addTestMember(db, { user: planner, project, accessLevel: 15 })
    const label = await createTestLabel(db, { project, title: 'guarded' })
    const groupLabel = await createTestLabel(db, { group, title: 'group-owned' })
    const forbidden = '{"message":"403 Forbidden"}'
    const created = await request('POST', `/projects/${project.id}/labels`, { token: guestToken, body: { name: 'g', color: '#000' } })
    expect([created.status, created.text]).toEqual([403, forbidden])
    const edited = await request('PUT', `/projects/${project.id}/labels/${label.id}`, { token: guestToken, body: { color: '#000' } })
    expect([edited.status, edited.text]).toEqual([403, forbidden])
    const removed = await request('DELETE', `/projects/${project.id}/labels/${label.id}`, { token: guestToken })
    expect([removed.status, removed.text]).toEqual([403, forbidden])
    expect((await request('GET', `/projects/${project.id}/labels/${label.id}`, { token: guestToken })).status).toBe(200)

    expect(
      (await request('POST', `/projects/${project.id}/labels`, { token: plannerToken, body: { name: 'p', color: '#000' } })).status,
    ).toBe(201)
    // A project planner may prioritise the group's label in the project, not change it.
    const prioritised = await request('PUT', `/projects/${project.id}/labels/${groupLabel.id}`, {
      token: plannerToken,
      body: { priority: 1 },
    })
    expect(prioritised.body).toMatchObject({ id: groupLabel.id, priority: 1, is_project_label: false })
    const recoloured = await request('PUT', `/projects/${project.id}/labels/${groupLabel.id}`, {
      token: plannerToken,
      body: { color: '#000' },
    })
    expect([recoloured.status, recoloured.text]).toEqual([403, forbidden])
    // The group's priority is per project.
    const other = await createTestProject(db, { namespace: group })
    expect((await request('GET', `/projects/${other.id}/labels/${groupLabel.id}`, { token: root })).body.priority).toBeNull()
  })
})

describe('subscriptions', () => {
  test('201 with the label when it changes, 304 with no body when it does not; per user and per project', async () => {
    const { group, project } = await groupWithProject()
    const other = await createTestProject(db, { namespace: group })
    const { token: alice } = await userWithToken()
    const { token: bob } = await userWithToken()
    const label = await createTestLabel(db, { group, title: 'watched' })
    const path = `/projects/${project.id}/labels/${label.id}`
    const first = await request('POST', `${path}/subscribe`, { token: alice })
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({ id: label.id, subscribed: true, is_project_label: false })
    const again = await request('POST', `${path}/subscribe`, { token: alice })
    expect([again.status, again.text, again.headers['content-length'] ?? '0']).toEqual([304, '', '0'])
    expect((await request('GET', path, { token: alice })).body.subscribed).toBe(true)
    expect((await request('GET', path, { token: bob })).body.subscribed).toBe(false)
    // A subscription from a project holds in that project only.
    expect((await request('GET', `/projects/${other.id}/labels/${label.id}`, { token: alice })).body.subscribed).toBe(false)
    // Subscribing through the group covers every project and replaces the per-project subscription.
    const global = await request('POST', `/groups/${group.id}/labels/${label.id}/subscribe`, { token: alice })
    expect([global.status, global.body.subscribed]).toEqual([201, true])
    expect((await request('GET', `/projects/${other.id}/labels/${label.id}`, { token: alice })).body.subscribed).toBe(true)
    const notThere = await request('POST', `${path}/unsubscribe`, { token: alice })
    expect([notThere.status, notThere.text]).toEqual([304, ''])
    const off = await request('POST', `/groups/${group.id}/labels/watched/unsubscribe`, { token: alice })
    expect([off.status, off.body.subscribed]).toEqual([201, false])
    const offAgain = await request('POST', `/groups/${group.id}/labels/watched/unsubscribe`, { token: alice })
    expect([offAgain.status, offAgain.text]).toEqual([304, ''])
    const missing = await request('POST', `/projects/${project.id}/labels/nope/subscribe`, { token: alice })
    expect([missing.status, missing.text]).toEqual([404, '{"message":"404 Label Not Found"}'])
  })
})

async function promoteFixture() {
  const { user } = await userWithToken()
  const group = await createTestGroup(db)
  const project = await createTestProject(db, { namespace: group })
  const sibling = await createTestProject(db, { namespace: group })
  const label = await createTestLabel(db, { project, title: 'promote-me', color: '#112233', description: 'The original' })
  const twin = await createTestLabel(db, { project: sibling, title: 'promote-me', color: '#445566' })
  const issue = await createTestIssue(db, { project, author: user, labels: [label] })
  const twinIssue = await createTestIssue(db, { project: sibling, author: user, labels: [twin], state: 'closed' })
  const twinMergeRequest = await createTestMergeRequest(db, { project: sibling, author: user, labels: [twin] })
  await db.insertInto('label_priorities').values({ project_id: sibling.id, label_id: twin.id, priority: 4 }).execute()
  const at = new Date().toISOString()
  await db
    .insertInto('label_subscriptions')
    .values({ user_id: user.id, label_id: label.id, project_id: project.id, created_at: at })
    .execute()
  await db
    .insertInto('label_subscriptions')
    .values({ user_id: user.id, label_id: twin.id, project_id: sibling.id, created_at: at })
    .execute()
  return { user, group, project, sibling, label, twin, issue, twinIssue, twinMergeRequest }
}

async function labelIdsOfIssue(issueId: number) {
  return (await db.selectFrom('issue_labels').select('label_id').where('issue_id', '=', issueId).execute()).map((row) => row.label_id)
}

describe('promoting a project label', () => {
  test("keeps its ID, becomes the group label and absorbs same-titled labels of the group's projects", async () => {
    const f = await promoteFixture()
    const response = await request('PUT', `/projects/${f.project.id}/labels/${f.label.id}/promote`, { token: root })
    expect(response.status).toBe(200)
    expect(response.text).toBe(
      JSON.stringify({
        id: f.label.id,
        name: 'promote-me',
        color: '#112233',
        description: 'The original',
        description_html: 'The original',
        open_issues_count: 1,
        closed_issues_count: 1,
        open_merge_requests_count: 1,
        subscribed: false,
      }),
    )
    const row = await db.selectFrom('labels').selectAll().where('id', '=', f.label.id).executeTakeFirstOrThrow()
    expect([row.project_id, row.group_id]).toEqual([null, f.group.id])
    expect(await db.selectFrom('labels').select('id').where('id', '=', f.twin.id).execute()).toEqual([])
    expect(await labelIdsOfIssue(f.twinIssue.id)).toEqual([f.label.id])
    const mergeRequestLabels = await db
      .selectFrom('merge_request_labels')
      .select('label_id')
      .where('merge_request_id', '=', f.twinMergeRequest.id)
      .execute()
    expect(mergeRequestLabels).toEqual([{ label_id: f.label.id }])
    expect(await db.selectFrom('label_priorities').select(['project_id', 'priority']).where('label_id', '=', f.label.id).execute()).toEqual(
      [{ project_id: f.sibling.id, priority: 4 }],
    )
    const subscriptions = await db
      .selectFrom('label_subscriptions')
      .select(['user_id', 'label_id'])
      .where('user_id', '=', f.user.id)
      .execute()
    expect(subscriptions).toEqual([{ user_id: f.user.id, label_id: f.label.id }])
    const listed = await request('GET', `/projects/${f.sibling.id}/labels?with_counts=true`, { token: root })
    expect(listed.body).toEqual([expect.objectContaining({ id: f.label.id, is_project_label: false, priority: 4, closed_issues_count: 1 })])
  })

  test('merges an existing group label with the title into the promoted one, which keeps its ID', async () => {
    const f = await promoteFixture()
    const existing = await createTestLabel(db, { group: f.group, title: 'promote-me', color: '#999999' })
    const both = await createTestIssue(db, { project: f.project, author: f.user, labels: [f.label, existing] })
    await db.insertInto('label_priorities').values({ project_id: f.project.id, label_id: existing.id, priority: 9 }).execute()
    const response = await request('PUT', `/projects/${f.project.id}/labels/promote`, { token: root, body: { name: 'promote-me' } })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ id: f.label.id, color: '#112233', open_issues_count: 2, closed_issues_count: 1 })
    const sameTitle = await db
      .selectFrom('labels')
      .select('id')
      .where('title', '=', 'promote-me')
      .where('id', 'in', [f.label.id, f.twin.id, existing.id])
      .execute()
    expect(sameTitle).toEqual([{ id: f.label.id }])
    expect(await labelIdsOfIssue(both.id)).toEqual([f.label.id])
    const priorities = await db
      .selectFrom('label_priorities')
      .select(['project_id', 'priority'])
      .where('label_id', '=', f.label.id)
      .orderBy('project_id')
      .execute()
    expect(priorities).toEqual(
      [
        { project_id: f.project.id, priority: 9 },
        { project_id: f.sibling.id, priority: 4 },
      ].sort((a, b) => a.project_id - b.project_id),
    )
  })

  test('refusals: no group, a group label, no group role, unknown label', async () => {
    const { user, token } = await userWithToken()
    const personal = await createTestProject(db, { owner: user })
    const own = await createTestLabel(db, { project: personal, title: 'solo' })
    const noGroup = await request('PUT', `/projects/${personal.id}/labels/${own.id}/promote`, { token })
    expect([noGroup.status, noGroup.text]).toEqual([400, '{"message":"400 Bad request - Failed to promote project label to group label"}'])
    const { group, project } = await groupWithProject()
    const groupLabel = await createTestLabel(db, { group, title: 'already' })
    const already = await request('PUT', `/projects/${project.id}/labels/${groupLabel.id}/promote`, { token: root })
    expect(already.status).toBe(400)
    await addTestMember(db, { user, project, accessLevel: 40 })
    const label = await createTestLabel(db, { project, title: 'mine' })
    const forbidden = await request('PUT', `/projects/${project.id}/labels/${label.id}/promote`, { token })
    expect([forbidden.status, forbidden.text]).toEqual([403, '{"message":"403 Forbidden"}'])
    const unknown = await request('PUT', `/projects/${project.id}/labels/unknown/promote`, { token: root })
    expect([unknown.status, unknown.text]).toEqual([404, '{"message":"404 Label Not Found"}'])
  })
})

describe('group labels', () => {
  test('create, list with ancestors, descendants and project labels, edit, delete', async () => {
    const top = await createTestGroup(db)
    const group = await createTestGroup(db, { parent: top })
    const child = await createTestGroup(db, { parent: group })
    const project: ProjectRow = await createTestProject(db, { namespace: group })
    await createTestLabel(db, { group: top, title: 'top' })
    await createTestLabel(db, { group: child, title: 'child' })
    await createTestLabel(db, { project, title: 'project' })
    const created = await request('POST', `/groups/${group.id}/labels`, {
      token: root,
      body: { name: 'own', color: 'orange', description: 'Group one' },
    })
    expect(created.status).toBe(201)
    expect(created.text).toBe(
      JSON.stringify({
        id: created.body.id,
        name: 'own',
        color: '#FFA500',
        description: 'Group one',
        description_html: 'Group one',
        text_color: '#FFFFFF',
        subscribed: false,
      }),
    )
    const names = async (query: string) =>
      (await request('GET', `/groups/${group.id}/labels${query}`, { token: root })).body.map((label: { name: string }) => label.name)
    expect(await names('')).toEqual(['own', 'top'])
    expect(await names('?include_ancestor_groups=false')).toEqual(['own'])
    expect(await names('?include_descendant_groups=true')).toEqual(['child', 'own', 'top'])
    expect(await names('?only_group_labels=false&include_ancestor_groups=false')).toEqual(['own', 'project'])
    expect(await names('?search=GROUP')).toEqual(['own'])
    const conflict = await request('POST', `/groups/${group.id}/labels`, { token: root, body: { name: 'top', color: '#000' } })
    expect([conflict.status, conflict.text]).toEqual([409, '{"message":"Label already exists"}'])

    const edited = await request('PUT', `/groups/${group.id}/labels/own`, { token: root, body: { new_name: 'renamed', priority: 3 } })
    expect(edited.body).toMatchObject({ id: created.body.id, name: 'renamed' })
    expect(Object.keys(edited.body)).not.toContain('priority')
    const none = await request('PUT', `/groups/${group.id}/labels/renamed`, { token: root, body: { priority: 3 } })
    expect([none.status, none.text]).toEqual([
      400,
      '{"error":"new_name, color, description are missing, at least one parameter must be provided"}',
    ])
    const legacy = await request('PUT', `/groups/${group.id}/labels`, { token: root, body: { name: 'renamed', color: '#010203' } })
    expect(legacy.body).toMatchObject({ name: 'renamed', color: '#010203' })
    // Editing and deleting reach the group's own labels only.
    expect((await request('DELETE', `/groups/${group.id}/labels/top`, { token: root })).status).toBe(404)
    const missingName = await request('DELETE', `/groups/${group.id}/labels`, { token: root })
    expect([missingName.status, missingName.text]).toEqual([400, '{"message":"400 (Bad request) \\"name\\" not given"}'])
    expect((await request('DELETE', `/groups/${group.id}/labels`, { token: root, body: { name: 'renamed' } })).status).toBe(204)
    expect((await request('GET', `/groups/${group.id}/labels/renamed`, { token: root })).status).toBe(404)
  })

  test('counts are group-wide, over the projects the caller may see', async () => {
    const { user, token } = await userWithToken()
    const group = await createTestGroup(db)
    const open = await createTestProject(db, { namespace: group })
    const secret = await createTestProject(db, { namespace: group, visibility: 'private' })
    const label = await createTestLabel(db, { group, title: 'everywhere' })
    await createTestIssue(db, { project: open, author: user, labels: [label] })
    await createTestIssue(db, { project: secret, author: user, labels: [label] })
    await createTestMergeRequest(db, { project: secret, author: user, labels: [label] })
    const asRoot = await request('GET', `/groups/${group.id}/labels?with_counts=true`, { token: root })
    expect(asRoot.body[0]).toMatchObject({ open_issues_count: 2, closed_issues_count: 0, open_merge_requests_count: 1 })
    const asUser = await request('GET', `/groups/${group.id}/labels?with_counts=true`, { token })
    expect(asUser.body[0]).toMatchObject({ open_issues_count: 1, closed_issues_count: 0, open_merge_requests_count: 0 })
    await addTestMember(db, { user, group, accessLevel: 20 })
    const asMember = await request('GET', `/groups/${group.id}/labels?with_counts=true`, { token })
    expect(asMember.body[0]).toMatchObject({ open_issues_count: 2, open_merge_requests_count: 1 })
  })

  test('writes need Planner or Reporter in the group', async () => {
    const group = await createTestGroup(db)
    const { user, token } = await userWithToken()
    await addTestMember(db, { user, group, accessLevel: 10 })
    const refused = await request('POST', `/groups/${group.id}/labels`, { token, body: { name: 'x', color: '#000' } })
    expect([refused.status, refused.text]).toEqual([403, '{"message":"403 Forbidden"}'])
    const hidden = await createTestGroup(db, { visibility: 'private' })
    const notFound = await request('GET', `/groups/${hidden.id}/labels`, { token })
    expect([notFound.status, notFound.text]).toEqual([404, '{"message":"404 Group Not Found"}'])
  })
})
