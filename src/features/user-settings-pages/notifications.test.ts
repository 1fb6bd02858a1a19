import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import type { User } from '../../core/caller.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { CONTENT_SECURITY_POLICY } from '../../web/html.js'
import { flashOf } from '../sessions/testing.js'
import { settingsClient } from './testing.js'

const PATH = '/-/profile/notifications'
const XSS = '<script>alert(1)</script>'

let server: TestServer
let pages: ReturnType<typeof settingsClient>
let api: ReturnType<typeof client>
let user: User
let token: string
let session: TestSession
let crew: NamespaceRow
let strangers: NamespaceRow
let atlas: ProjectRow

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  pages = settingsClient(server)
  api = client(`${server.url}/api/v4`)
  user = await createTestUser(db, { username: 'rosalind', email: 'rosalind@example.com' })
  token = (await createTestToken(db, user)).value
  session = await createTestSession(server, user)
  crew = await createTestGroup(db, { path: 'crew', name: `Crew ${XSS}` })
  strangers = await createTestGroup(db, { path: 'strangers', name: 'Strangers', visibility: 'private' })
  await addTestMember(db, { user, group: crew, accessLevel: AccessLevel.DEVELOPER })
  atlas = await createTestProject(db, { namespace: strangers, path: 'atlas', name: 'Atlas', visibility: 'private' })
  await addTestMember(db, { user, project: atlas, accessLevel: AccessLevel.REPORTER })
  // A project of their group is theirs too; a public one elsewhere is not.
  await createTestProject(db, { namespace: crew, path: 'tools', name: 'Tools' })
  await createTestProject(db, { namespace: await createTestGroup(db, { path: 'others' }), path: 'elsewhere', name: 'Elsewhere' })
})
afterAll(() => server.close())

function save(path: string, fields: [string, string][], tokenOverride?: string | null) {
  return pages.submit(session, path, fields, { method: 'put', token: tokenOverride })
}

/** The fields a row's form sends: the level, and every event as Rails' check_box sends it. */
function rowFields(level: string, checked: string[] = []): [string, string][] {
  const events = ['new_note', 'new_issue', 'close_issue', 'failed_pipeline']
  return [
    ['notification_setting[level]', level],
    ...events.flatMap((event): [string, string][] =>
      checked.includes(event)
        ? [
            [`notification_setting[${event}]`, '0'],
            [`notification_setting[${event}]`, '1'],
          ]
        : [[`notification_setting[${event}]`, '0']],
    ),
  ]
}

describe('the notifications page', () => {
  test('shows the global level and e-mail, then the groups and projects the user is a member of', async () => {
    const res = await pages.get(session, PATH)
    expect(res.status).toBe(200)
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(res.text).toContain('<title>Notifications · svc</title>')
    expect(res.text).toContain('<a href="/-/profile/notifications" aria-current="page">Notifications</a>')
    expect(res.text).toContain('<label for="user_notification_email">Global notification email</label>')
    expect(res.text).toContain('<option value="">Use primary email (rosalind@example.com)</option>')
    expect(res.text).toContain('<label for="global_notification_setting_level">Global notification level</label>')
    // Participate is the global default; the global setting offers no Global.
    const global = /<select id="global_notification_setting_level"[\s\S]*?<\/select>/.exec(res.text)![0]
    expect([...global.matchAll(/<option value="(\w+)" ?(selected)?>/g)].map((m) => `${m[1]}${m[2] ? '*' : ''}`)).toEqual([
      'disabled',
      'participating*',
      'watch',
      'mention',
      'custom',
    ])
    expect(global).toMatch(/Participate &ndash; You will only receive notifications for threads you have participated in/)
    // The groups the API lists as the user's (GET /groups?all_available=false): a member's, and the group of a project
    // they are a member of.
    expect(res.text).toContain('<h2 id="group-notifications-heading">Groups (2)</h2>')
    expect(res.text).toContain('<a class="title" href="/groups/strangers">Strangers</a>')
    expect(res.text).toContain(`<a class="title" href="/groups/crew">Crew &lt;script&gt;alert(1)&lt;/script&gt;</a>`)
    expect(res.text).toContain(`<form method="post" action="${PATH}/groups/crew" class="notification-form">`)
    expect(res.text).toContain(`<label for="group_${crew.id}_level" class="visually-hidden">Notification level for Crew &lt;script&gt;`)
    const group = new RegExp(`<select id="group_${crew.id}_level"[\\s\\S]*?</select>`).exec(res.text)![0]
    expect(group).toMatch(/<option value="global" selected>/)
    // The projects the API lists as the user's (GET /projects?membership=true), by name.
    expect(res.text).toContain('<h2 id="project-notifications-heading">Projects (2)</h2>')
    const projects = /<section aria-labelledby="project-notifications-heading">[\s\S]*?<\/section>/.exec(res.text)![0]
    expect([...projects.matchAll(/<a class="title" href="([^"]+)">/g)].map((m) => m[1])).toEqual(['/strangers/atlas', '/crew/tools'])
    expect(res.text).not.toContain('Elsewhere')
    expect(res.text).not.toContain(XSS)
    // Custom's events are under each row, closed while the level is not Custom.
    expect(res.text).toMatch(/<details class="custom-events" >\s*<summary>Custom notification events<\/summary>/)
    expect(res.text).toContain(`<label for="project_${atlas.id}_new_note" class="inline-label">New note</label>`)
  })

  test('a visitor is sent to sign in', async () => {
    const res = await pages.get(null, PATH)
    expect([res.status, res.headers.location]).toEqual([302, '/users/sign_in'])
  })

  test('saves the global level with its custom events', async () => {
    const res = await save(PATH, rowFields('custom', ['new_note', 'failed_pipeline']))
    expect([res.status, res.headers.location]).toEqual([302, PATH])
    const global = await api('GET', '/notification_settings', { token })
    expect(global.body).toMatchObject({
      level: 'custom',
      events: { new_note: true, failed_pipeline: true, new_issue: false, close_issue: false },
    })
    const page = await pages.get(session, PATH)
    expect(flashOf(page.text)).toBe('Notification settings saved')
    const section = /<section class="box settings-section" aria-labelledby="global-notifications-heading">[\s\S]*?<\/section>/.exec(
      page.text,
    )![0]
    expect(section).toMatch(/<option value="custom" selected>/)
    expect(section).toMatch(/<details class="custom-events" open>/)
    expect(section).toMatch(/id="global_notification_setting_new_note" name="notification_setting\[new_note\]" value="1" checked \/>/)
    expect(section).toMatch(/id="global_notification_setting_new_issue" name="notification_setting\[new_issue\]" value="1" {2}\/>/)
  })

  test('saves the notification e-mail; an address the user has not verified is refused with GitLab alert', async () => {
    const res = await save(PATH, [['user[notification_email]', 'rosalind@example.com']])
    expect(res.status).toBe(302)
    expect(flashOf((await pages.get(session, PATH)).text)).toBe('Notification settings saved')
    const refused = await save(PATH, [['user[notification_email]', 'someone@else.example']])
    expect([refused.status, refused.headers.location]).toEqual([302, PATH])
    expect(flashOf((await pages.get(session, PATH)).text)).toBe('Failed to save new settings')
    expect((await api('GET', '/notification_settings', { token })).body.notification_email).toBe('rosalind@example.com')
  })

  test('saves a group level and a project level', async () => {
    const group = await save(`${PATH}/groups/crew`, rowFields('watch'))
    expect([group.status, group.headers.location]).toEqual([302, PATH])
    expect(flashOf((await pages.get(session, PATH)).text)).toBe(
      'Notification settings for Crew &lt;script&gt;alert(1)&lt;/script&gt; saved',
    )
    expect((await api('GET', `/groups/${crew.id}/notification_settings`, { token })).body).toEqual({ level: 'watch' })
    const project = await save(`${PATH}/projects/strangers/atlas`, rowFields('custom', ['close_issue']))
    expect(project.status).toBe(302)
    const page = await pages.get(session, PATH)
    expect(flashOf(page.text)).toBe('Notification settings for Atlas saved')
    expect(page.text).not.toContain(XSS)
    expect((await api('GET', `/projects/${atlas.id}/notification_settings`, { token })).body).toMatchObject({
      level: 'custom',
      events: { close_issue: true, new_note: false },
    })
    const row = new RegExp(`<li id="project_notification_${atlas.id}">[\\s\\S]*?</li>\\s*</ul>`).exec(page.text)![0]
    expect(row).toMatch(/<option value="custom" selected>/)
    expect(row).toMatch(new RegExp(`id="project_${atlas.id}_close_issue" name="notification_setting\\[close_issue\\]" value="1" checked`))
  })

  test('an unknown level is refused with GitLab alert and changes nothing', async () => {
    const res = await save(`${PATH}/groups/crew`, [['notification_setting[level]', 'loud']])
    expect([res.status, res.headers.location]).toEqual([302, PATH])
    expect(flashOf((await pages.get(session, PATH)).text)).toBe(
      'Failed to save new settings for Crew &lt;script&gt;alert(1)&lt;/script&gt;',
    )
    expect((await api('GET', `/groups/${crew.id}/notification_settings`, { token })).body).toEqual({ level: 'watch' })
  })

  test('a group or project the user may not see is the 404 page', async () => {
    const hidden = await createTestGroup(server.database.db, { path: 'hidden', visibility: 'private' })
    expect((await save(`${PATH}/groups/${hidden.full_path}`, rowFields('watch'))).status).toBe(404)
    expect((await save(`${PATH}/groups/no-such-group`, rowFields('watch'))).status).toBe(404)
    expect((await save(`${PATH}/projects/strangers/nothing`, rowFields('watch'))).status).toBe(404)
  })

  test('a form without a valid token is refused and changes nothing', async () => {
    for (const forged of [null, 'forged']) {
      const res = await save(`${PATH}/groups/crew`, rowFields('disabled'), forged)
      expect(res.status).toBe(422)
      expect(res.text).toContain('The change you requested was rejected.')
      expect((await save(PATH, rowFields('disabled'), forged)).status).toBe(422)
    }
    expect((await api('GET', `/groups/${crew.id}/notification_settings`, { token })).body).toEqual({ level: 'watch' })
    expect((await api('GET', '/notification_settings', { token })).body.level).toBe('custom')
  })
})
