import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import type { User } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import {
  addTestMember,
  createTestIssue,
  createTestMergeRequest,
  createTestMilestone,
  createTestProject,
  createTestToken,
  createTestUser,
} from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestEvent, createTestNote, setFeatureLevel, setPrivateProfile } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
})
afterAll(() => server.close())

const db = () => server.database.db

async function userWithToken(overrides: Partial<User> = {}, scopes = ['api']) {
  const user = await createTestUser(db(), overrides)
  const token = await createTestToken(db(), user, { scopes })
  return { user, token: token.value }
}

function basic(user: User) {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: 'active',
    locked: false,
    avatar_url: expect.stringMatching(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{32}\?s=80&d=identicon$/),
    web_url: `${server.url}/${user.username}`,
  }
}

type Listed = { id: number; action_name: string; target_type: string | null; target_title: string | null }
const ids = (body: Listed[]) => body.map((event) => event.id)

describe('the event entity', () => {
  test('issue, merge request, milestone and note events as GitLab shows them', async () => {
    const { user: owner, token } = await userWithToken()
    const project = await createTestProject(db(), { owner })
    const issue = await createTestIssue(db(), { project, author: owner, title: 'Broken build' })
    const mergeRequest = await createTestMergeRequest(db(), { project, author: owner, title: 'Fix the build', state: 'merged' })
    const milestone = await createTestMilestone(db(), { project, title: 'v1.0' })
    const note = await createTestNote(db(), { issue, author: owner, body: 'Seen it **too**' })
    const at = new Date('2026-01-02T03:04:05.678Z')
    const opened = await createTestEvent(db(), {
      project,
      author: owner,
      action: 'created',
      target: { type: 'Issue', id: issue.id },
      createdAt: at,
    })
    const reopened = await createTestEvent(db(), { project, author: owner, action: 'reopened', target: { type: 'Issue', id: issue.id } })
    const closed = await createTestEvent(db(), { project, author: owner, action: 'closed', target: { type: 'Issue', id: issue.id } })
    const merged = await createTestEvent(db(), {
      project,
      author: owner,
      action: 'merged',
      target: { type: 'MergeRequest', id: mergeRequest.id },
    })
    const updated = await createTestEvent(db(), {
      project,
      author: owner,
      action: 'updated',
      target: { type: 'MergeRequest', id: mergeRequest.id },
    })
    const approved = await createTestEvent(db(), {
      project,
      author: owner,
      action: 'approved',
      target: { type: 'MergeRequest', id: mergeRequest.id },
    })
    const dated = await createTestEvent(db(), {
      project,
      author: owner,
      action: 'created',
      target: { type: 'Milestone', id: milestone.id },
    })
    const destroyed = await createTestEvent(db(), {
      project,
      author: owner,
      action: 'destroyed',
      target: { type: 'Milestone', id: milestone.id },
    })
    const commented = await createTestEvent(db(), {
      project,
      author: owner,
      action: 'commented',
      target: { type: 'Note', id: note.id },
      createdAt: at,
    })

    const listed = await request('GET', `/api/v4/projects/${project.id}/events?sort=asc`, { token })
    expect(listed.status).toBe(200)
    const names = listed.body.map((e: Listed) => [e.id, e.action_name, e.target_type, e.target_title])
    expect(names).toEqual([
      [opened.id, 'opened', 'Issue', 'Broken build'],
      [reopened.id, 'opened', 'Issue', 'Broken build'],
      [closed.id, 'closed', 'Issue', 'Broken build'],
      [merged.id, 'accepted', 'MergeRequest', 'Fix the build'],
      [updated.id, 'opened', 'MergeRequest', 'Fix the build'],
      [approved.id, 'approved', 'MergeRequest', 'Fix the build'],
      [dated.id, 'opened', 'Milestone', 'v1.0'],
      [destroyed.id, 'destroyed', 'Milestone', 'v1.0'],
      [commented.id, 'commented on', 'Note', null],
    ])
    expect(listed.body[0]).toEqual({
      id: opened.id,
      title: null,
      project_id: project.id,
      action_name: 'opened',
      target_id: issue.id,
      target_iid: issue.iid,
      target_type: 'Issue',
      author_id: owner.id,
      target_title: 'Broken build',
      created_at: '2026-01-02T03:04:05.678Z',
      author: basic(owner),
      imported: false,
      imported_from: 'none',
      author_username: owner.username,
    })
    expect(listed.body[3]).toMatchObject({ target_id: mergeRequest.id, target_iid: mergeRequest.iid })
    expect(listed.body[6]).toMatchObject({ target_id: milestone.id, target_iid: milestone.iid })

    const noteEvent = {
      id: commented.id,
      title: null,
      project_id: project.id,
      action_name: 'commented on',
      target_id: note.id,
      target_iid: note.id,
      target_type: 'Note',
      author_id: owner.id,
      data: null,
      target_title: null,
      created_at: '2026-01-02T03:04:05.678Z',
      note: {
        id: note.id,
        type: null,
        body: 'Seen it **too**',
        attachment: null,
        author: basic(owner),
        created_at: note.created_at,
        updated_at: note.updated_at,
        system: false,
        noteable_id: issue.id,
        noteable_type: 'Issue',
        project_id: project.id,
        resolvable: false,
        confidential: false,
        internal: false,
        imported: false,
        imported_from: 'none',
        noteable_iid: issue.iid,
        commands_changes: {},
      },
      author: basic(owner),
      imported: false,
      imported_from: 'none',
      author_username: owner.username,
    }
    expect(listed.body[8]).toEqual(noteEvent)
    // Field order is GitLab's, with the contract's `title` after `id` and `data` after `author_id` (spec § Contribution event).
    expect(Object.keys(listed.body[8])).toEqual(Object.keys(noteEvent))
    expect(Object.keys(listed.body[8].note)).toEqual(Object.keys(noteEvent.note))

    // Outside project lists note events carry no `data`.
    const own = await request('GET', `/api/v4/users/${owner.id}/events?target_type=note`, { token })
    const { data: _data, ...withoutData } = noteEvent
    expect(own.body).toEqual([withoutData])
  })

  test('notes on merge requests name their merge request', async () => {
    const { user: owner, token } = await userWithToken()
    const project = await createTestProject(db(), { owner })
    const mergeRequest = await createTestMergeRequest(db(), { project, author: owner })
    const note = await createTestNote(db(), { mergeRequest, author: owner })
    await createTestEvent(db(), { project, author: owner, action: 'commented', target: { type: 'Note', id: note.id } })
    const listed = await request('GET', `/api/v4/projects/${project.id}/events`, { token })
    expect(listed.body[0].note).toMatchObject({
      noteable_id: mergeRequest.id,
      noteable_type: 'MergeRequest',
      noteable_iid: mergeRequest.iid,
    })
  })
})

describe('filters', () => {
  let owner: User
  let token: string
  let project: ProjectRow
  const created: Record<string, number> = {}

  beforeAll(async () => {
    ;({ user: owner, token } = await userWithToken())
    project = await createTestProject(db(), { owner })
    const issue = await createTestIssue(db(), { project, author: owner })
    const mergeRequest = await createTestMergeRequest(db(), { project, author: owner })
    const note = await createTestNote(db(), { issue, author: owner })
    // Ids grow while creation times fall: order is by id, not by time.
    const times = ['2024-03-11T00:00:00.000Z', '2024-03-10T23:59:59.999Z', '2024-03-10T00:00:00.000Z', '2024-03-09T23:59:59.999Z']
    created.issue = (
      await createTestEvent(db(), {
        project,
        author: owner,
        action: 'created',
        target: { type: 'Issue', id: issue.id },
        createdAt: new Date(times[0]),
      })
    ).id
    created.mergeRequest = (
      await createTestEvent(db(), {
        project,
        author: owner,
        action: 'merged',
        target: { type: 'MergeRequest', id: mergeRequest.id },
        createdAt: new Date(times[1]),
      })
    ).id
    created.note = (
      await createTestEvent(db(), {
        project,
        author: owner,
        action: 'commented',
        target: { type: 'Note', id: note.id },
        createdAt: new Date(times[2]),
      })
    ).id
    created.joined = (await createTestEvent(db(), { project, author: owner, action: 'joined', createdAt: new Date(times[3]) })).id
  })

  const list = async (query: string) => {
    const response = await request('GET', `/api/v4/projects/${project.id}/events?${query}`, { token })
    expect(response.status).toBe(200)
    return ids(response.body)
  }

  test('sort is by id, newest first unless asc', async () => {
    const all = [created.issue, created.mergeRequest, created.note, created.joined]
    expect(await list('')).toEqual([...all].reverse())
    expect(await list('sort=desc')).toEqual([...all].reverse())
    expect(await list('sort=asc')).toEqual(all)
  })

  test('action and target_type', async () => {
    expect(await list('action=merged')).toEqual([created.mergeRequest])
    expect(await list('action=commented')).toEqual([created.note])
    expect(await list('action=joined')).toEqual([created.joined])
    expect(await list('action=expired')).toEqual([])
    expect(await list('target_type=issue')).toEqual([created.issue])
    expect(await list('target_type=merge_request')).toEqual([created.mergeRequest])
    expect(await list('target_type=note&action=commented')).toEqual([created.note])
    expect(await list('target_type=note&action=created')).toEqual([])
    for (const type of ['milestone', 'project', 'snippet', 'user', 'wiki', 'design']) expect(await list(`target_type=${type}`)).toEqual([])
  })

  test('before and after leave out the whole day they name', async () => {
    expect(await list('before=2024-03-10&sort=asc')).toEqual([created.joined])
    expect(await list('after=2024-03-10&sort=asc')).toEqual([created.issue])
    expect(await list('after=2024-03-09&before=2024-03-11&sort=asc')).toEqual([created.mergeRequest, created.note])
    expect(await list('after=2024-03-10&before=2024-03-11')).toEqual([])
    expect(await list('before=2024-03-12&after=2024-03-08&sort=asc')).toEqual([
      created.issue,
      created.mergeRequest,
      created.note,
      created.joined,
    ])
  })

  test('values GitLab does not know are refused as Grape refuses them, on every endpoint', async () => {
    const cases: [string, string][] = [
      ['action=opened', 'action does not have a valid value'],
      ['action=Merged', 'action does not have a valid value'],
      ['target_type=epic', 'target_type does not have a valid value'],
      ['target_type=Issue', 'target_type does not have a valid value'],
      ['sort=newest', 'sort does not have a valid value'],
      ['before=2024-02-30', 'before is invalid'],
      ['after=yesterday', 'after is invalid'],
      ['action=nope&after=soon', 'action does not have a valid value, after is invalid'],
    ]
    for (const path of [`/api/v4/projects/${project.id}/events`, `/api/v4/users/${owner.id}/events`, '/api/v4/events']) {
      for (const [query, error] of cases) {
        const response = await request('GET', `${path}?${query}`, { token })
        expect([query, response.status, response.body]).toEqual([query, 400, { error }])
      }
    }
  })
})

describe('pages', () => {
  test('offset pages carry GitLab headers', async () => {
    const { user: owner, token } = await userWithToken()
    const project = await createTestProject(db(), { owner })
    const events = []
    for (let n = 0; n < 5; n++) events.push(await createTestEvent(db(), { project, author: owner, action: 'joined' }))
    const response = await request('GET', `/api/v4/projects/${project.id}/events?per_page=2&page=2`, { token })
    expect(response.status).toBe(200)
    expect(ids(response.body)).toEqual([events[2].id, events[1].id])
    const base = `${server.url}/api/v4/projects/${project.id}/events`
    expect(response.headers).toMatchObject({
      'x-page': '2',
      'x-per-page': '2',
      'x-next-page': '3',
      'x-prev-page': '1',
      'x-total': '5',
      'x-total-pages': '3',
      link:
        `<${base}?page=1&per_page=2>; rel="prev", <${base}?page=3&per_page=2>; rel="next", ` +
        `<${base}?page=1&per_page=2>; rel="first", <${base}?page=3&per_page=2>; rel="last"`,
    })
    const clamped = await request('GET', `/api/v4/projects/${project.id}/events?per_page=1000`, { token })
    expect(clamped.headers['x-per-page']).toBe('100')
  })

  test('keyset pages on project events follow rel="next" to the end, either way', async () => {
    const { user: owner, token } = await userWithToken()
    const project = await createTestProject(db(), { owner })
    const events = []
    for (let n = 0; n < 5; n++) events.push(await createTestEvent(db(), { project, author: owner, action: 'joined' }))
    for (const sort of ['desc', 'asc'] as const) {
      const seen: number[] = []
      let next: string | undefined = `${server.url}/api/v4/projects/${project.id}/events?pagination=keyset&per_page=2&sort=${sort}`
      let pages = 0
      while (next) {
        const response = await request('GET', next.slice(server.url.length), { token })
        expect(response.status).toBe(200)
        expect(response.headers['x-total']).toBeUndefined()
        expect(response.headers['x-page']).toBeUndefined()
        seen.push(...ids(response.body))
        pages++
        const link: string | undefined = response.headers.link
        if (link) expect(link).toMatch(/^<[^>]+>; rel="next"$/)
        next = link ? /^<([^>]+)>/.exec(link)![1] : undefined
      }
      const expected = events.map((e) => e.id)
      expect(seen).toEqual(sort === 'asc' ? expected : [...expected].reverse())
      // The last full page links to one more, empty page.
      expect(pages).toBe(3)
    }
    const bad = await request('GET', `/api/v4/projects/${project.id}/events?pagination=keyset&cursor=nonsense`, { token })
    expect([bad.status, bad.body]).toEqual([400, { message: '400 Bad request - Invalid cursor parameter' }])
  })
})

describe('visibility', () => {
  test('events of private projects show only to those who may see the project', async () => {
    const { user: owner, token: ownerToken } = await userWithToken()
    const { token: strangerToken } = await userWithToken()
    const hidden = await createTestProject(db(), { owner, visibility: 'private' })
    const open = await createTestProject(db(), { owner })
    const inHidden = await createTestEvent(db(), { project: hidden, author: owner, action: 'joined' })
    const inOpen = await createTestEvent(db(), { project: open, author: owner, action: 'joined' })

    const refused = await request('GET', `/api/v4/projects/${hidden.id}/events`, { token: strangerToken })
    expect([refused.status, refused.body]).toEqual([404, { message: '404 Project Not Found' }])
    const anonymous = await request('GET', `/api/v4/projects/${hidden.id}/events`)
    expect(anonymous.status).toBe(404)

    const byStranger = await request('GET', `/api/v4/users/${owner.id}/events`, { token: strangerToken })
    expect(ids(byStranger.body)).toEqual([inOpen.id])
    expect(byStranger.headers['x-total']).toBe('1')
    const byAnonymous = await request('GET', `/api/v4/users/${owner.username}/events`)
    expect(ids(byAnonymous.body)).toEqual([inOpen.id])
    const byOwner = await request('GET', `/api/v4/users/${owner.id}/events`, { token: ownerToken })
    expect(ids(byOwner.body)).toEqual([inOpen.id, inHidden.id])
    const byAdmin = await request('GET', `/api/v4/users/${owner.id}/events`, { token: server.rootToken })
    expect(ids(byAdmin.body)).toEqual([inOpen.id, inHidden.id])
  })

  test('confidential issues and their notes show to their author, assignees and Planners or Reporters up, not to guests', async () => {
    const { user: owner } = await userWithToken()
    const { user: guest, token: guestToken } = await userWithToken()
    const { user: reporter, token: reporterToken } = await userWithToken()
    const { user: assignee, token: assigneeToken } = await userWithToken()
    const { token: strangerToken } = await userWithToken()
    const project = await createTestProject(db(), { owner })
    await addTestMember(db(), { user: guest, project, accessLevel: AccessLevel.GUEST })
    await addTestMember(db(), { user: reporter, project, accessLevel: AccessLevel.REPORTER })
    const secret = await createTestIssue(db(), { project, author: owner, confidential: true, assignees: [assignee] })
    const plain = await createTestIssue(db(), { project, author: owner })
    const secretNote = await createTestNote(db(), { issue: secret, author: owner })
    const internalNote = await createTestNote(db(), { issue: plain, author: owner, internal: true })
    const visible = await createTestEvent(db(), { project, author: owner, action: 'created', target: { type: 'Issue', id: plain.id } })
    const onSecret = await createTestEvent(db(), { project, author: owner, action: 'created', target: { type: 'Issue', id: secret.id } })
    const onSecretNote = await createTestEvent(db(), {
      project,
      author: owner,
      action: 'commented',
      target: { type: 'Note', id: secretNote.id },
    })
    const onInternal = await createTestEvent(db(), {
      project,
      author: owner,
      action: 'commented',
      target: { type: 'Note', id: internalNote.id },
    })

    const everything = [onInternal.id, onSecretNote.id, onSecret.id, visible.id]
    for (const [token, expected] of [
      [strangerToken, [visible.id]],
      [guestToken, [visible.id]],
      [assigneeToken, [onSecretNote.id, onSecret.id, visible.id]],
      [reporterToken, everything],
      [server.rootToken, everything],
    ] as const) {
      const response = await request('GET', `/api/v4/projects/${project.id}/events`, { token })
      expect(ids(response.body)).toEqual(expected)
      // As in GitLab, hidden events are filtered after paging: the count still includes them.
      expect(response.headers['x-total']).toBe('4')
    }
    const anonymous = await request('GET', `/api/v4/projects/${project.id}/events`)
    expect(ids(anonymous.body)).toEqual([visible.id])
  })

  test('merge request events follow the merge requests feature, milestones need issues or merge requests', async () => {
    const { user: owner } = await userWithToken()
    const { user: guest, token: guestToken } = await userWithToken()
    const { user: reporter, token: reporterToken } = await userWithToken()
    const project = await createTestProject(db(), { owner })
    await addTestMember(db(), { user: guest, project, accessLevel: AccessLevel.GUEST })
    await addTestMember(db(), { user: reporter, project, accessLevel: AccessLevel.REPORTER })
    const mergeRequest = await createTestMergeRequest(db(), { project, author: owner })
    const note = await createTestNote(db(), { mergeRequest, author: owner })
    const milestone = await createTestMilestone(db(), { project })
    const merged = await createTestEvent(db(), {
      project,
      author: owner,
      action: 'merged',
      target: { type: 'MergeRequest', id: mergeRequest.id },
    })
    const commented = await createTestEvent(db(), { project, author: owner, action: 'commented', target: { type: 'Note', id: note.id } })
    const dated = await createTestEvent(db(), {
      project,
      author: owner,
      action: 'created',
      target: { type: 'Milestone', id: milestone.id },
    })
    const joined = await createTestEvent(db(), { project, author: owner, action: 'joined' })

    const seen = async (token?: string) => ids((await request('GET', `/api/v4/projects/${project.id}/events`, { token })).body)
    expect(await seen()).toEqual([joined.id, dated.id, commented.id, merged.id])
    // Private merge requests: members from Reporter up.
    await setFeatureLevel(db(), project, 'merge_requests', 10)
    expect(await seen()).toEqual([joined.id, dated.id])
    expect(await seen(guestToken)).toEqual([joined.id, dated.id])
    expect(await seen(reporterToken)).toEqual([joined.id, dated.id, commented.id, merged.id])
    // With issues off too, only Reporters still reach milestones through merge requests.
    await setFeatureLevel(db(), project, 'issues', 0)
    expect(await seen(guestToken)).toEqual([joined.id])
    expect(await seen(reporterToken)).toEqual([joined.id, dated.id, commented.id, merged.id])
  })

  test('events whose target is gone, and pushes without repository access, are hidden', async () => {
    const { user: owner, token } = await userWithToken()
    const { user: guest, token: guestToken } = await userWithToken()
    const project = await createTestProject(db(), { owner, visibility: 'private' })
    await addTestMember(db(), { user: guest, project, accessLevel: AccessLevel.GUEST })
    const issue = await createTestIssue(db(), { project, author: owner })
    const gone = await createTestEvent(db(), { project, author: owner, action: 'created', target: { type: 'Issue', id: issue.id } })
    const pushed = await createTestEvent(db(), { project, author: owner, action: 'pushed' })
    const unknown = await createTestEvent(db(), { project, author: owner, action: 'created', target: { type: 'Snippet', id: 1 } })
    expect(ids((await request('GET', `/api/v4/projects/${project.id}/events`, { token })).body)).toEqual([pushed.id, gone.id])
    expect((await request('GET', `/api/v4/projects/${project.id}/events?action=pushed`, { token })).body[0].action_name).toBe('pushed to')
    // Guests of a private project cannot read its code.
    expect(ids((await request('GET', `/api/v4/projects/${project.id}/events`, { token: guestToken })).body)).toEqual([gone.id])
    await db().deleteFrom('issues').where('id', '=', issue.id).execute()
    expect(ids((await request('GET', `/api/v4/projects/${project.id}/events`, { token })).body)).toEqual([pushed.id])
    expect(unknown.id).toBeGreaterThan(0)
  })
})

describe('GET /users/:id/events', () => {
  test('by id or username; unknown users are 404', async () => {
    const { user, token } = await userWithToken()
    const project = await createTestProject(db(), { owner: user })
    const event = await createTestEvent(db(), { project, author: user, action: 'joined' })
    for (const key of [String(user.id), user.username, user.username.toUpperCase()]) {
      const response = await request('GET', `/api/v4/users/${key}/events`, { token })
      expect([response.status, ids(response.body)]).toEqual([200, [event.id]])
    }
    for (const key of ['999999999', 'nobody-at-all']) {
      const response = await request('GET', `/api/v4/users/${key}/events`, { token })
      expect([response.status, response.body]).toEqual([404, { message: '404 User Not Found' }])
    }
  })

  test('a private profile shows no events except to the user and administrators', async () => {
    const { user, token } = await userWithToken()
    const { token: otherToken } = await userWithToken()
    const project = await createTestProject(db(), { owner: user })
    const event = await createTestEvent(db(), { project, author: user, action: 'joined' })
    await setPrivateProfile(db(), user)
    const other = await request('GET', `/api/v4/users/${user.id}/events`, { token: otherToken })
    expect([other.status, other.body, other.headers['x-total']]).toEqual([200, [], '0'])
    expect(ids((await request('GET', `/api/v4/users/${user.id}/events`)).body)).toEqual([])
    expect(ids((await request('GET', `/api/v4/users/${user.id}/events`, { token })).body)).toEqual([event.id])
    expect(ids((await request('GET', `/api/v4/users/${user.id}/events`, { token: server.rootToken })).body)).toEqual([event.id])
  })
})

describe('GET /events', () => {
  test("the caller's own events, or with scope=all every event of their projects", async () => {
    const { user, token } = await userWithToken()
    const { user: teammate } = await userWithToken()
    const mine = await createTestProject(db(), { owner: user })
    const theirs = await createTestProject(db(), { owner: teammate, visibility: 'private' })
    const elsewhere = await createTestProject(db(), { owner: teammate })
    await addTestMember(db(), { user, project: theirs, accessLevel: AccessLevel.GUEST })
    const own = await createTestEvent(db(), { project: mine, author: user, action: 'joined' })
    const ownThere = await createTestEvent(db(), { project: theirs, author: user, action: 'joined' })
    const teammates = await createTestEvent(db(), { project: theirs, author: teammate, action: 'joined' })
    const publicButNotMine = await createTestEvent(db(), { project: elsewhere, author: teammate, action: 'joined' })

    const response = await request('GET', '/api/v4/events', { token })
    expect([response.status, ids(response.body)]).toEqual([200, [ownThere.id, own.id]])
    expect(response.headers['x-total']).toBe('2')
    const all = await request('GET', '/api/v4/events?scope=all', { token })
    expect(ids(all.body)).toEqual([teammates.id, ownThere.id, own.id])
    expect(ids(all.body)).not.toContain(publicButNotMine.id)
    const other = await request('GET', '/api/v4/events?scope=mine', { token })
    expect(ids(other.body)).toEqual([ownThere.id, own.id])
  })

  test('needs a signed-in caller with api, read_api or read_user', async () => {
    const anonymous = await request('GET', '/api/v4/events')
    expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }])
    for (const scopes of [['read_user'], ['read_api']]) {
      const { token } = await userWithToken({}, scopes)
      expect((await request('GET', '/api/v4/events', { token })).status).toBe(200)
      const { user } = await userWithToken()
      expect((await request('GET', `/api/v4/users/${user.id}/events`, { token })).status).toBe(200)
    }
    const { token } = await userWithToken({}, ['read_repository'])
    const refused = await request('GET', '/api/v4/events', { token })
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ error: 'insufficient_scope' })
  })
})
