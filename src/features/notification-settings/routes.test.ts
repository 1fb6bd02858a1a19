import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

const LEVELS = ['disabled', 'participating', 'watch', 'global', 'mention', 'custom'] as const
const LEVEL_NUMBERS = { disabled: 0, participating: 1, watch: 2, global: 3, mention: 4, custom: 5 }
const EVENTS = [
  'new_release',
  'new_note',
  'new_issue',
  'reopen_issue',
  'close_issue',
  'reassign_issue',
  'issue_due',
  'new_merge_request',
  'push_to_merge_request',
  'reopen_merge_request',
  'close_merge_request',
  'reassign_merge_request',
  'change_reviewer_merge_request',
  'merge_merge_request',
  'failed_pipeline',
  'fixed_pipeline',
  'success_pipeline',
  'moved_project',
  'merge_when_pipeline_succeeds',
]

/** Every event unset (null) but the given ones, in GitLab's order. */
function eventsWith(values: Record<string, boolean>, names: string[] = EVENTS) {
  return Object.fromEntries(names.map((name) => [name, values[name] ?? null]))
}

interface Fixture {
  server: TestServer
  request: ReturnType<typeof client>
  user: User
  token: string
  group: NamespaceRow
  project: ProjectRow
}

async function fixture(env: Record<string, string> = {}): Promise<Fixture> {
  const server = await startTestServer(env)
  const db = server.database.db
  const user = await createTestUser(db)
  const token = (await createTestToken(db, user)).value
  const group = await createTestGroup(db, { visibility: 'public' })
  const project = await createTestProject(db, { namespace: group, visibility: 'public' })
  return { server, request: client(server.url), user, token, group, project }
}

function settingRows(f: Fixture) {
  return f.server.database.db
    .selectFrom('notification_settings')
    .select(['source_type', 'source_id', 'level', 'events'])
    .where('user_id', '=', f.user.id)
    .orderBy('id')
    .execute()
}

describe('notification settings (free tier)', () => {
  let f: Fixture
  beforeAll(async () => {
    f = await fixture()
  })
  afterAll(() => f.server.close())

  test('every route needs a signed-in user', async () => {
    for (const path of [
      '/notification_settings',
      `/groups/${f.group.id}/notification_settings`,
      `/projects/${f.project.id}/notification_settings`,
    ]) {
      for (const method of ['GET', 'PUT']) {
        const response = await f.request(method, `/api/v4${path}`, { body: method === 'PUT' ? { level: 'watch' } : undefined })
        expect([method, path, response.status, response.text]).toEqual([method, path, 401, '{"message":"401 Unauthorized"}'])
      }
    }
    expect(await settingRows(f)).toEqual([])
  })

  test('the global setting is created at participating on first access, with the primary e-mail', async () => {
    const response = await f.request('GET', '/api/v4/notification_settings', { token: f.token })
    expect(response.status).toBe(200)
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    expect(response.text).toBe(`{"level":"participating","notification_email":"${f.user.email}"}`)
    expect(await settingRows(f)).toEqual([{ source_type: null, source_id: null, level: 1, events: '{}' }])
    // A second read finds the same row.
    await f.request('GET', '/api/v4/notification_settings', { token: f.token })
    expect(await settingRows(f)).toHaveLength(1)
  })

  test('the global level takes each of the six levels, stored as GitLab numbers', async () => {
    for (const level of LEVELS) {
      const response = await f.request('PUT', '/api/v4/notification_settings', { token: f.token, body: { level } })
      expect(response.status).toBe(200)
      const events = level === 'custom' ? `"events":${JSON.stringify(eventsWith({}))},` : ''
      expect(response.text).toBe(`{"level":"${level}",${events}"notification_email":"${f.user.email}"}`)
      const [row] = await settingRows(f)
      expect(row!.level).toBe(LEVEL_NUMBERS[level])
      expect((await f.request('GET', '/api/v4/notification_settings', { token: f.token })).text).toBe(response.text)
    }
  })

  test('custom events are set by name, form-encoded too, and kept while the level is not custom', async () => {
    let response = await f.request('PUT', '/api/v4/notification_settings', {
      token: f.token,
      body: { level: 'watch', new_note: true, new_release: false, change_reviewer_merge_request: true },
    })
    expect(response.body).toEqual({ level: 'watch', notification_email: f.user.email })
    response = await f.request('PUT', '/api/v4/notification_settings', {
      token: f.token,
      form: true,
      body: { level: 'custom', close_issue: 'true', failed_pipeline: 'false' },
    })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      level: 'custom',
      events: eventsWith({
        new_note: true,
        new_release: false,
        change_reviewer_merge_request: true,
        close_issue: true,
        failed_pipeline: false,
      }),
      notification_email: f.user.email,
    })
    expect(Object.keys(response.body.events)).toEqual(EVENTS)
    // new_epic is an Ultimate event: ignored on the free tier.
    response = await f.request('PUT', '/api/v4/notification_settings', { token: f.token, body: { new_epic: true, new_note: false } })
    expect(response.body.events).toEqual(
      eventsWith({ new_note: false, new_release: false, change_reviewer_merge_request: true, close_issue: true, failed_pipeline: false }),
    )
  })

  test('an unknown or blank level is refused with GitLab bodies, and nothing changes', async () => {
    await f.request('PUT', '/api/v4/notification_settings', { token: f.token, body: { level: 'mention' } })
    let response = await f.request('PUT', '/api/v4/notification_settings', { token: f.token, body: { level: 'foo', new_note: true } })
    expect([response.status, response.text]).toEqual([400, `{"message":"'foo' is not a valid level"}`])
    response = await f.request('PUT', '/api/v4/notification_settings', { token: f.token, body: { level: 'Watch' } })
    expect([response.status, response.text]).toEqual([400, `{"message":"'Watch' is not a valid level"}`])
    response = await f.request('PUT', '/api/v4/notification_settings', { token: f.token, body: { level: 3 } })
    expect([response.status, response.text]).toEqual([400, `{"message":"'3' is not a valid level"}`])
    response = await f.request('PUT', '/api/v4/notification_settings', { token: f.token, body: { level: '' } })
    expect([response.status, response.text]).toEqual([400, `{"message":{"level":["can't be blank"]}}`])
    response = await f.request('PUT', '/api/v4/notification_settings', { token: f.token, body: { new_note: 'maybe' } })
    expect([response.status, response.text]).toEqual([400, '{"error":"new_note is invalid"}'])
    // The level's error comes before the e-mail's, and the e-mail is not saved either.
    response = await f.request('PUT', '/api/v4/notification_settings', {
      token: f.token,
      body: { level: 'foo', notification_email: 'nobody@example.com' },
    })
    expect([response.status, response.text]).toEqual([400, `{"message":"'foo' is not a valid level"}`])
    const [row] = await settingRows(f)
    expect(row!.level).toBe(LEVEL_NUMBERS.mention)
    expect(JSON.parse(row!.events).new_note).toBe(false)
  })

  test('notification_email must be one of the user’s verified e-mails', async () => {
    let response = await f.request('PUT', '/api/v4/notification_settings', {
      token: f.token,
      body: { notification_email: 'someone-else@example.com', level: 'watch' },
    })
    expect([response.status, response.text]).toEqual([400, '{"message":{"notification_email":["must be an email you have verified"]}}'])
    response = await f.request('PUT', '/api/v4/notification_settings', {
      token: f.token,
      body: { notification_email: 'x@example.com', level: '' },
    })
    expect([response.status, response.text]).toEqual([400, '{"message":{"notification_email":["must be an email you have verified"]}}'])
    // Unlike GitLab, the level sent with a refused e-mail is not saved.
    expect((await settingRows(f))[0]!.level).toBe(LEVEL_NUMBERS.mention)

    const noReply = `${f.user.id}-${f.user.username}@users.noreply.127.0.0.1`
    response = await f.request('PUT', '/api/v4/notification_settings', { token: f.token, body: { notification_email: noReply } })
    expect(response.status).toBe(200)
    expect(response.body.notification_email).toBe(noReply)
    const stored = await f.server.database.db
      .selectFrom('users')
      .select('notification_email')
      .where('id', '=', f.user.id)
      .executeTakeFirst()
    expect(stored!.notification_email).toBe(noReply)
    expect((await f.request('GET', '/api/v4/notification_settings', { token: f.token })).body.notification_email).toBe(noReply)

    response = await f.request('PUT', '/api/v4/notification_settings', {
      token: f.token,
      body: { notification_email: f.user.email.toUpperCase() },
    })
    expect(response.status).toBe(200)
    expect(response.body.notification_email).toBe(f.user.email.toUpperCase())

    // A blank address goes back to the primary e-mail.
    response = await f.request('PUT', '/api/v4/notification_settings', { token: f.token, body: { notification_email: '' } })
    expect(response.body).toEqual({ level: 'mention', notification_email: f.user.email })
    const cleared = await f.server.database.db
      .selectFrom('users')
      .select('notification_email')
      .where('id', '=', f.user.id)
      .executeTakeFirst()
    expect(cleared!.notification_email).toBeNull()
  })

  test('an unconfirmed primary e-mail is not a verified one', async () => {
    const db = f.server.database.db
    const unconfirmed = await createTestUser(db, { confirmed_at: null })
    const token = (await createTestToken(db, unconfirmed)).value
    const response = await f.request('PUT', '/api/v4/notification_settings', { token, body: { notification_email: unconfirmed.email } })
    expect([response.status, response.text]).toEqual([400, '{"message":{"notification_email":["must be an email you have verified"]}}'])
  })

  for (const kind of ['groups', 'projects'] as const) {
    describe(kind, () => {
      const path = () => `/api/v4/${kind}/${kind === 'groups' ? f.group.id : f.project.id}/notification_settings`
      const sourceType = kind === 'groups' ? 'Namespace' : 'Project'

      test('default to global without saving anything', async () => {
        const response = await f.request('GET', path(), { token: f.token })
        expect([response.status, response.text]).toEqual([200, '{"level":"global"}'])
        expect((await settingRows(f)).filter((row) => row.source_type === sourceType)).toEqual([])
      })

      test('take each level; custom shows every event, null when never set', async () => {
        for (const level of LEVELS) {
          const response = await f.request('PUT', path(), { token: f.token, body: { level } })
          expect(response.status).toBe(200)
          expect(response.text).toBe(
            level === 'custom' ? `{"level":"custom","events":${JSON.stringify(eventsWith({}))}}` : `{"level":"${level}"}`,
          )
          expect((await f.request('GET', path(), { token: f.token })).text).toBe(response.text)
          const rows = (await settingRows(f)).filter((row) => row.source_type === sourceType)
          expect(rows).toEqual([
            {
              source_type: sourceType,
              source_id: kind === 'groups' ? f.group.id : f.project.id,
              level: LEVEL_NUMBERS[level],
              events: '{}',
            },
          ])
        }
        const response = await f.request('PUT', path(), {
          token: f.token,
          body: { merge_when_pipeline_succeeds: true, moved_project: false, new_epic: true },
        })
        expect(response.body).toEqual({ level: 'custom', events: eventsWith({ merge_when_pipeline_succeeds: true, moved_project: false }) })
      })

      test('refuse an unknown level and ignore notification_email', async () => {
        let response = await f.request('PUT', path(), { token: f.token, body: { level: 'loud' } })
        expect([response.status, response.text]).toEqual([400, `{"message":"'loud' is not a valid level"}`])
        response = await f.request('PUT', path(), { token: f.token, body: { level: 'watch', notification_email: 'x@example.com' } })
        expect([response.status, response.text]).toEqual([200, '{"level":"watch"}'])
      })

      test('are per user', async () => {
        const other = await createTestUser(f.server.database.db)
        const token = (await createTestToken(f.server.database.db, other)).value
        expect((await f.request('GET', path(), { token })).text).toBe('{"level":"global"}')
      })

      test('answer 404 for a missing or hidden source', async () => {
        const name = kind === 'groups' ? 'Group' : 'Project'
        const hidden =
          kind === 'groups'
            ? await createTestGroup(f.server.database.db, { visibility: 'private' })
            : await createTestProject(f.server.database.db, { namespace: f.group, visibility: 'private' })
        for (const id of ['999999', String(hidden.id)]) {
          for (const method of ['GET', 'PUT']) {
            const response = await f.request(method, `/api/v4/${kind}/${id}/notification_settings`, {
              token: f.token,
              body: method === 'PUT' ? { level: 'foo' } : undefined,
            })
            expect([response.status, response.text]).toEqual([404, `{"message":"404 ${name} Not Found"}`])
          }
        }
      })

      test('address the source by its full path', async () => {
        const fullPath = encodeURIComponent(kind === 'groups' ? f.group.full_path : f.project.full_path)
        const response = await f.request('PUT', `/api/v4/${kind}/${fullPath}/notification_settings`, {
          token: f.token,
          body: { level: 'disabled' },
        })
        expect([response.status, response.text]).toEqual([200, '{"level":"disabled"}'])
        expect((await f.request('GET', path(), { token: f.token })).text).toBe('{"level":"disabled"}')
      })
    })
  }

  test('gitbeaker reads and edits global, group and project settings', async () => {
    const db = f.server.database.db
    const user = await createTestUser(db)
    const gitlab = new Gitlab({ host: f.server.url, token: (await createTestToken(db, user)).value })
    expect(await gitlab.NotificationSettings.show()).toEqual({ level: 'participating', notification_email: user.email })
    expect(await gitlab.NotificationSettings.edit({ level: 'custom', newNote: true, mergeWhenPipelineSucceeds: false })).toEqual({
      level: 'custom',
      events: eventsWith({ new_note: true, merge_when_pipeline_succeeds: false }),
      notification_email: user.email,
    })
    expect(await gitlab.NotificationSettings.show({ groupId: f.group.id })).toEqual({ level: 'global' })
    expect(await gitlab.NotificationSettings.edit({ groupId: f.group.full_path, level: 'watch' })).toEqual({ level: 'watch' })
    expect(await gitlab.NotificationSettings.edit({ projectId: f.project.id, level: 'custom', issueDue: true })).toEqual({
      level: 'custom',
      events: eventsWith({ issue_due: true }),
    })
    expect(await gitlab.NotificationSettings.show({ projectId: f.project.full_path })).toEqual({
      level: 'custom',
      events: eventsWith({ issue_due: true }),
    })
    await expect(gitlab.NotificationSettings.edit({ level: 'nope' })).rejects.toMatchObject({
      cause: { description: "'nope' is not a valid level" },
    })
  })
})

describe('notification settings on Ultimate', () => {
  let f: Fixture
  beforeAll(async () => {
    f = await fixture({ SVC_TIER: 'ultimate' })
  })
  afterAll(() => f.server.close())

  test('global and group settings have new_epic, last; project settings do not', async () => {
    const withEpic = [...EVENTS, 'new_epic']
    let response = await f.request('PUT', '/api/v4/notification_settings', { token: f.token, body: { level: 'custom', new_epic: true } })
    expect(response.text).toBe(
      `{"level":"custom","events":${JSON.stringify(eventsWith({ new_epic: true }, withEpic))},"notification_email":"${f.user.email}"}`,
    )

    response = await f.request('PUT', `/api/v4/groups/${f.group.id}/notification_settings`, { token: f.token, body: { level: 'custom' } })
    expect(response.text).toBe(`{"level":"custom","events":${JSON.stringify(eventsWith({}, withEpic))}}`)
    response = await f.request('PUT', `/api/v4/groups/${f.group.id}/notification_settings`, { token: f.token, body: { new_epic: false } })
    expect(response.body.events.new_epic).toBe(false)

    response = await f.request('PUT', `/api/v4/projects/${f.project.id}/notification_settings`, {
      token: f.token,
      body: { level: 'custom', new_epic: true },
    })
    expect(response.text).toBe(`{"level":"custom","events":${JSON.stringify(eventsWith({}))}}`)
    const row = await f.server.database.db
      .selectFrom('notification_settings')
      .select('events')
      .where('source_type', '=', 'Project')
      .where('user_id', '=', f.user.id)
      .executeTakeFirstOrThrow()
    expect(row.events).toBe('{}')
  })
})
