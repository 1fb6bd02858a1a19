import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { contextFor } from '../../testing/context.js'
import {
  addTestMember,
  createTestGroup,
  createTestIssue,
  createTestLabel,
  createTestMergeRequest,
  createTestProject,
  createTestUser,
} from '../../testing/factories.js'
import { GitClient } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { branchHead, createPerson, createRepositoryProject, gitInRepository } from '../../testing/repositories.js'
import { ROLE_ACCESS_LEVELS, type RoleName } from '../../testing/roles.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { startSmtpSink, type SmtpSink } from '../mail/testing.js'
import {
  updateGlobalNotificationSetting,
  updateSourceNotificationSetting,
  type NotificationEvent,
  type NotificationLevel,
} from '../notification-settings/index.js'
import { comment, deliveredMails, tell, tellIssue, tellMergeRequest, type DeliveredMail } from './testing.js'

let sink: SmtpSink
let server: TestServer
const AT = new Date('2026-12-01T10:00:00.000Z')

beforeAll(async () => {
  sink = await startSmtpSink()
  server = await startTestServer({ SVC_SMTP_URL: sink.url })
  server.freeze(AT)
})
afterAll(async () => {
  await server?.close()
  await sink?.close()
})

const db = () => server.database.db

type Setting = { level: NotificationLevel; events?: Partial<Record<NotificationEvent, boolean>> }

/** A user with a role (or none) in the project, and a notification setting for the project, its group or everywhere. */
async function person(
  project: ProjectRow | null,
  options: {
    role?: RoleName
    group?: NamespaceRow
    groupRole?: RoleName
    projectSetting?: Setting
    groupSetting?: Setting
    globalSetting?: Setting
    user?: Parameters<typeof createTestUser>[1]
  } = {},
): Promise<User> {
  const user = await createTestUser(db(), { name: `Person ${Math.random().toString(36).slice(2, 8)}`, ...options.user })
  if (project && options.role) await addTestMember(db(), { user, project, accessLevel: ROLE_ACCESS_LEVELS[options.role] })
  if (options.group && options.groupRole)
    await addTestMember(db(), { user, group: options.group, accessLevel: ROLE_ACCESS_LEVELS[options.groupRole] })
  const ctx = contextFor(server, user)
  const events = (setting: Setting) => setting.events ?? {}
  if (options.globalSetting)
    await updateGlobalNotificationSetting(ctx, { level: options.globalSetting.level, events: events(options.globalSetting) })
  if (options.groupSetting && options.group)
    await updateSourceNotificationSetting(ctx, 'group', String(options.group.id), {
      level: options.groupSetting.level,
      events: events(options.groupSetting),
    })
  if (options.projectSetting && project)
    await updateSourceNotificationSetting(ctx, 'project', String(project.id), {
      level: options.projectSetting.level,
      events: events(options.projectSetting),
    })
  return user
}

async function space(visibility: 'public' | 'private' = 'public') {
  const group = await createTestGroup(db(), { visibility })
  const project = await createTestProject(db(), { namespace: group, visibility, name: 'Rocket' })
  return { group, project }
}

/** Who received mail, by e-mail address, with the reason header (null when there is none). */
function reasons(mails: DeliveredMail[]): Record<string, string | null> {
  return Object.fromEntries(mails.map((mail) => [mail.to, mail.headers['X-GitLab-NotificationReason'] ?? null]))
}

/** The expected recipients: a user alone has no reason header. */
function reasonsOf(entries: (User | [User, string | null])[]): Record<string, string | null> {
  return Object.fromEntries(entries.map((entry) => (Array.isArray(entry) ? [entry[0].email, entry[1]] : [entry.email, null])))
}

async function openIssue(
  project: ProjectRow,
  author: User,
  options: Parameters<typeof createTestIssue>[1] extends infer T ? Partial<T> : never = {},
) {
  const issue = await createTestIssue(db(), { project, author, title: 'Engine stalls', ...options })
  await tellIssue(server, author, issue, 'open')
  return issue
}

describe('a new issue', () => {
  test('reaches participants, watchers at any level, Custom users of new_issue, the mentioned and subscribers; nobody else', async () => {
    const { group, project } = await space()
    const author = await person(project, { role: 'developer', projectSetting: { level: 'watch' } })
    const assignee = await person(project, { role: 'developer' })
    const projectWatcher = await person(project, { role: 'reporter', projectSetting: { level: 'watch' } })
    const groupWatcher = await person(null, { group, groupRole: 'developer', groupSetting: { level: 'watch' } })
    const globalWatcher = await person(project, { role: 'guest', globalSetting: { level: 'watch' } })
    const globalWatcherElsewhere = await person(null, { globalSetting: { level: 'watch' } })
    const projectOverridesGroup = await person(project, {
      role: 'developer',
      group,
      groupSetting: { level: 'watch' },
      projectSetting: { level: 'participating' },
    })
    const participating = await person(project, { role: 'developer' })
    const mentioned = await person(project, { role: 'developer', projectSetting: { level: 'mention' } })
    const mentionLevelOnly = await person(project, { role: 'developer', projectSetting: { level: 'mention' } })
    const disabled = await person(project, { role: 'developer', projectSetting: { level: 'disabled' } })
    const disabledMentioned = await person(project, { role: 'developer', globalSetting: { level: 'disabled' } })
    const customOn = await person(project, { role: 'developer', projectSetting: { level: 'custom', events: { new_issue: true } } })
    const customOff = await person(project, { role: 'developer', projectSetting: { level: 'custom', events: { close_issue: true } } })
    const customInGroup = await person(null, {
      group,
      groupRole: 'developer',
      groupSetting: { level: 'custom', events: { new_issue: true } },
    })
    const label = await createTestLabel(db(), { project })
    const labelSubscriber = await person(project, { role: 'guest', projectSetting: { level: 'disabled' } })
    await db()
      .insertInto('label_subscriptions')
      .values({ user_id: labelSubscriber.id, label_id: label.id, project_id: project.id, created_at: AT.toISOString() })
      .execute()
    const blockedWatcher = await person(project, { role: 'developer', projectSetting: { level: 'watch' }, user: { state: 'blocked' } })
    const deactivatedWatcher = await person(project, {
      role: 'developer',
      projectSetting: { level: 'watch' },
      user: { state: 'deactivated' },
    })
    const botWatcher = await person(project, { role: 'developer', projectSetting: { level: 'watch' }, user: { bot: 1 } })

    await openIssue(project, author, {
      description: `Please look, @${mentioned.username} and @${disabledMentioned.username}. Not \`@${participating.username}\`.`,
      assignees: [assignee],
      labels: [label],
    })

    expect(reasons(await deliveredMails(server, sink))).toEqual(
      reasonsOf([
        [assignee, 'assigned'],
        projectWatcher,
        groupWatcher,
        globalWatcher,
        [mentioned, 'mentioned'],
        customOn,
        customInGroup,
        [labelSubscriber, 'subscribed'],
      ]),
    )
    void [
      globalWatcherElsewhere,
      projectOverridesGroup,
      participating,
      mentionLevelOnly,
      disabled,
      customOff,
      blockedWatcher,
      deactivatedWatcher,
      botWatcher,
    ]
  })

  test('the closest group setting that is not Global applies below it, and the global one below that', async () => {
    const top = await createTestGroup(db())
    const sub = await createTestGroup(db(), { parent: top })
    const project = await createTestProject(db(), { namespace: sub })
    const author = await person(project, { role: 'developer' })
    const topWatcher = await person(null, { group: top, groupRole: 'developer', groupSetting: { level: 'watch' } })
    const subSilences = await person(null, { group: top, groupRole: 'developer', groupSetting: { level: 'watch' } })
    await updateSourceNotificationSetting(contextFor(server, subSilences), 'group', String(sub.id), { level: 'disabled', events: {} })
    const subDefers = await person(null, {
      group: top,
      groupRole: 'developer',
      groupSetting: { level: 'watch' },
      globalSetting: { level: 'disabled' },
    })
    await updateSourceNotificationSetting(contextFor(server, subDefers), 'group', String(sub.id), { level: 'global', events: {} })
    await openIssue(project, author)
    expect(reasons(await deliveredMails(server, sink))).toEqual(reasonsOf([topWatcher, subDefers]))
  })

  test('goes to the notification e-mail chosen over the primary one', async () => {
    const { project } = await space()
    const author = await person(project, { role: 'developer' })
    const watcher = await person(project, { role: 'developer', projectSetting: { level: 'watch' } })
    const privateAddress = `${watcher.id}-${watcher.username}@users.noreply.127.0.0.1`
    await updateGlobalNotificationSetting(contextFor(server, watcher), { events: {}, notificationEmail: privateAddress })
    await openIssue(project, author)
    expect((await deliveredMails(server, sink)).map((mail) => mail.to)).toEqual([privateAddress])
  })

  test('a confidential issue reaches only those who may read it: Reporters and up, its author and assignees', async () => {
    const { project } = await space()
    const author = await person(project, { role: 'guest' })
    const guestAssignee = await person(project, { role: 'guest' })
    const guestWatcher = await person(project, { role: 'guest', projectSetting: { level: 'watch' } })
    const reporterWatcher = await person(project, { role: 'reporter', projectSetting: { level: 'watch' } })
    const plannerWatcher = await person(project, { role: 'planner', projectSetting: { level: 'watch' } })
    const mentionedOutsider = await person(null)
    await openIssue(project, author, { confidential: true, assignees: [guestAssignee], description: `cc @${mentionedOutsider.username}` })
    const mails = await deliveredMails(server, sink)
    expect(reasons(mails)).toEqual(reasonsOf([[guestAssignee, 'assigned'], reporterWatcher, plannerWatcher]))
    expect(mails[0].headers['X-GitLab-ConfidentialIssue']).toBe('true')
    void guestWatcher
  })

  test('a private project is told only to those who can still see it: an expired membership sees nothing', async () => {
    const { project } = await space('private')
    const author = await person(project, { role: 'developer' })
    const member = await person(project, { role: 'developer', projectSetting: { level: 'watch' } })
    const expired = await person(null, { projectSetting: undefined })
    await addTestMember(db(), { user: expired, project, accessLevel: 30, expiresAt: '2026-11-30' })
    await updateSourceNotificationSetting(contextFor(server, member), 'project', String(project.id), { level: 'watch', events: {} })
    await db()
      .insertInto('notification_settings')
      .values({
        user_id: expired.id,
        source_type: 'Project',
        source_id: project.id,
        level: 2,
        created_at: AT.toISOString(),
        updated_at: AT.toISOString(),
      })
      .execute()
    await openIssue(project, author)
    expect(reasons(await deliveredMails(server, sink))).toEqual(reasonsOf([member]))
  })

  test('nobody hears of a project whose group turned e-mail off', async () => {
    const { group, project } = await space()
    const author = await person(project, { role: 'developer' })
    await person(project, { role: 'developer', projectSetting: { level: 'watch' } })
    await db().updateTable('namespaces').set({ emails_enabled: 0 }).where('id', '=', group.id).execute()
    await openIssue(project, author)
    expect(await deliveredMails(server, sink)).toEqual([])
  })
})

describe('the e-mail of a new issue', () => {
  test('starts the thread: subject, sender, GitLab headers and the unsubscribe link, exactly', async () => {
    const group = await createTestGroup(db(), { path: `space-${Date.now().toString(36)}`, name: 'Space' })
    const project = await createTestProject(db(), { namespace: group, name: 'Rocket Engine', path: 'rocket-engine' })
    const author = await person(project, { role: 'developer', user: { name: 'Ada Lovelace' } })
    const watcher = await person(project, { role: 'developer', projectSetting: { level: 'watch' } })
    const issue = await openIssue(project, author, { title: 'Engine <stalls> & coughs', description: 'It **stalls** at 3000 rpm.' })
    const [mail] = await deliveredMails(server, sink)
    const key = mail.headers['X-GitLab-Reply-Key']
    expect(key).toMatch(/^[0-9a-f]{32}$/)
    const url = `${server.url}/${project.full_path}/-/issues/${issue.iid}`
    const unsubscribe = `${server.url}/-/sent_notifications/${key}/unsubscribe`
    const { Date: date, 'Content-Type': contentType, ...headers } = mail.headers
    expect(date).toBe('Tue, 01 Dec 2026 10:00:00 +0000')
    expect(contentType).toMatch(/^multipart\/alternative; boundary=/)
    expect(headers).toEqual({
      'Auto-Submitted': 'auto-generated',
      'X-Auto-Response-Suppress': 'All',
      'X-GitLab-Project': 'Rocket Engine',
      'X-GitLab-Project-Id': String(project.id),
      'X-GitLab-Project-Path': project.full_path,
      'List-Id': `${project.full_path} <${project.id}.rocket-engine.${group.path}.127.0.0.1>`,
      'X-GitLab-Issue-ID': String(issue.id),
      'X-GitLab-Issue-IID': String(issue.iid),
      'X-GitLab-ConfidentialIssue': 'false',
      'X-GitLab-Reply-Key': key,
      'List-Unsubscribe': `<${unsubscribe}?force=true>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      From: `"Ada Lovelace (@${author.username})" <gitlab@127.0.0.1>`,
      To: watcher.email,
      'Reply-To': 'GitLab <noreply@127.0.0.1>',
      Subject: `Rocket Engine | Engine <stalls> & coughs (#${issue.iid})`,
      'Message-ID': `<issue_${issue.id}@127.0.0.1>`,
      'MIME-Version': '1.0',
    })
    expect(mail.text).toBe(
      [
        `Ada Lovelace created an issue: ${url}`,
        '',
        'It **stalls** at 3000 rpm.',
        '',
        '-- ',
        `View it on svc: ${url}`,
        "You're receiving this email because of your account on 127.0.0.1.",
        `Unsubscribe from this thread: ${unsubscribe}`,
        `Manage all notifications: ${server.url}/-/profile/notifications`,
        '',
      ].join('\n'),
    )
    expect(mail.html).toContain('<title>Rocket Engine | Engine &lt;stalls&gt; &amp; coughs (#')
    expect(mail.html).toContain('<strong>stalls</strong>')
    expect(mail.html).toContain(`<a href="${unsubscribe}" style="color:#1f75cb;">Unsubscribe</a> from this thread`)
    expect(mail.html).not.toContain('<stalls>')
  })
})

describe('a closed or reopened issue', () => {
  test('answers the thread for its participants, watchers and Custom users of close_issue, never the one who closed it', async () => {
    const { project } = await space()
    const author = await person(project, { role: 'developer' })
    const closer = await person(project, { role: 'maintainer', projectSetting: { level: 'watch' } })
    const watcher = await person(project, { role: 'developer', projectSetting: { level: 'watch' } })
    const customClose = await person(project, { role: 'developer', projectSetting: { level: 'custom', events: { close_issue: true } } })
    const customNew = await person(project, { role: 'developer', projectSetting: { level: 'custom', events: { new_issue: true } } })
    const mentionLevel = await person(project, { role: 'developer', projectSetting: { level: 'mention' } })
    const issue = await createTestIssue(db(), { project, author, title: 'Fuel leak', description: `@${mentionLevel.username} knows` })
    await tellIssue(server, closer, issue, 'close')
    const mails = await deliveredMails(server, sink)
    expect(reasons(mails)).toEqual(reasonsOf([author, watcher, customClose]))
    const mail = mails.find((each) => each.to === author.email)!
    expect(mail.subject).toBe(`Re: Rocket | Fuel leak (#${issue.iid})`)
    expect(mail.headers['In-Reply-To']).toBe(`<issue_${issue.id}@127.0.0.1>`)
    expect(mail.headers.References).toBe(`<issue_${issue.id}@127.0.0.1>`)
    expect(mail.headers['Message-ID']).toMatch(/^<[0-9a-f]{32}@127\.0\.0\.1>$/)
    expect(mail.headers.From).toBe(`"${closer.name} (@${closer.username})" <gitlab@127.0.0.1>`)
    expect(mail.text.split('\n\n-- \n')[0]).toBe(
      `Issue was closed by ${closer.name}\n\nIssue #${issue.iid}: ${server.url}/${project.full_path}/-/issues/${issue.iid}`,
    )
    void customNew

    await tellIssue(server, closer, issue, 'reopen')
    const reopened = await deliveredMails(server, sink)
    expect(reasons(reopened)).toEqual(reasonsOf([author, watcher]))
    expect(reopened[0].text).toMatch(new RegExp(`^Issue was reopened by ${closer.name}\n`))
  })
})

describe('a reassigned issue', () => {
  test('tells the new assignees (assigned) and the previous ones, even at the mention level', async () => {
    const { project } = await space()
    const author = await person(project, { role: 'developer', projectSetting: { level: 'disabled' } })
    const editor = await person(project, { role: 'maintainer' })
    const before = await person(project, { role: 'developer', projectSetting: { level: 'mention' } })
    const after = await person(project, { role: 'developer', projectSetting: { level: 'mention' } })
    const customReassign = await person(project, {
      role: 'developer',
      projectSetting: { level: 'custom', events: { reassign_issue: true } },
    })
    const issue = await createTestIssue(db(), { project, author, assignees: [after] })
    await tellIssue(server, editor, issue, 'update', { assignees: { previous: [before.id], current: [after.id] } })
    const mails = await deliveredMails(server, sink)
    expect(reasons(mails)).toEqual(reasonsOf([before, [after, 'assigned'], customReassign]))
    expect(mails.find((mail) => mail.to === after.email)!.text.split('\n\n-- \n')[0]).toBe(
      `${after.name} was added as an assignee.\n\n${before.name} was removed as an assignee.`,
    )
  })
})

describe('a new comment', () => {
  test('reaches participants, watchers, the mentioned and Custom users of new_note, threaded under the issue', async () => {
    const { project } = await space()
    const author = await person(project, { role: 'developer' })
    const commenter = await person(project, { role: 'developer' })
    const earlierCommenter = await person(project, { role: 'developer' })
    const watcher = await person(project, { role: 'developer', projectSetting: { level: 'watch' } })
    const mentioned = await person(project, { role: 'guest', projectSetting: { level: 'mention' } })
    const customNote = await person(project, { role: 'developer', projectSetting: { level: 'custom', events: { new_note: true } } })
    const bystander = await person(project, { role: 'developer' })
    const issue = await createTestIssue(db(), { project, author })
    await comment(server, earlierCommenter, { issue }, 'First!')
    await deliveredMails(server, sink)
    const first = await comment(server, commenter, { issue }, `Looks bad, @${mentioned.username}`, {
      type: 'DiscussionNote',
      discussion_id: 'a'.repeat(40),
    })
    const mails = await deliveredMails(server, sink)
    expect(reasons(mails)).toEqual(reasonsOf([author, earlierCommenter, watcher, [mentioned, 'mentioned'], customNote]))
    const mail = mails.find((each) => each.to === author.email)!
    expect(mail.subject).toBe(`Re: Rocket | ${issue.title} (#${issue.iid})`)
    expect(mail.headers['Message-ID']).toBe(`<note_${first.id}@127.0.0.1>`)
    expect(mail.headers['In-Reply-To']).toBe(`<issue_${issue.id}@127.0.0.1>`)
    expect(mail.headers.References).toBe(`<issue_${issue.id}@127.0.0.1>`)
    expect(mail.headers['X-GitLab-Discussion-ID']).toBe('a'.repeat(40))
    expect(mail.text.split('\n\n-- \n')[0]).toBe(`${commenter.name} started a new discussion:\n\nLooks bad, @${mentioned.username}`)
    expect(mail.text).toContain(`View it on svc: ${server.url}/${project.full_path}/-/issues/${issue.iid}#note_${first.id}`)
    void bystander

    await comment(server, author, { issue }, 'Agreed', { type: 'DiscussionNote', discussion_id: 'a'.repeat(40) })
    const replies = await deliveredMails(server, sink)
    // The mention level hears only what mentions them.
    expect(reasons(replies)).toEqual(reasonsOf([commenter, earlierCommenter, watcher, customNote]))
    const answer = replies.find((each) => each.to === commenter.email)!
    expect(answer.headers['In-Reply-To']).toBe(`<note_${first.id}@127.0.0.1>`)
    expect(answer.headers.References).toBe(`<issue_${issue.id}@127.0.0.1> <note_${first.id}@127.0.0.1>`)
    expect(answer.text.split('\n\n-- \n')[0]).toBe(`${author.name} commented on a discussion:\n\nAgreed`)
  })

  test('an internal note reaches only Reporters and up; system notes reach nobody', async () => {
    const { project } = await space()
    const author = await person(project, { role: 'guest' })
    const reporter = await person(project, { role: 'reporter', projectSetting: { level: 'watch' } })
    const guest = await person(project, { role: 'guest', projectSetting: { level: 'watch' } })
    const issue = await createTestIssue(db(), { project, author })
    await comment(server, reporter, { issue }, 'Between us', { internal: 1 })
    expect(await deliveredMails(server, sink)).toEqual([])
    await comment(server, guest, { issue }, 'changed the description', { system: 1 })
    expect(await deliveredMails(server, sink)).toEqual([])
    void author
  })

  test('a comment on a merge request threads under it', async () => {
    const { project } = await space()
    const author = await person(project, { role: 'developer' })
    const reviewer = await person(project, { role: 'developer' })
    const mergeRequest = await createTestMergeRequest(db(), { project, author, title: 'Faster pumps' })
    await comment(server, reviewer, { mergeRequest }, 'LGTM')
    const [mail, ...others] = await deliveredMails(server, sink)
    expect(others).toEqual([])
    expect(mail.to).toBe(author.email)
    expect(mail.subject).toBe(`Re: Rocket | Faster pumps (!${mergeRequest.iid})`)
    expect(mail.headers['X-GitLab-MergeRequest-ID']).toBe(String(mergeRequest.id))
    expect(mail.headers['X-GitLab-MergeRequest-IID']).toBe(String(mergeRequest.iid))
    expect(mail.headers['X-GitLab-ConfidentialIssue']).toBeUndefined()
    expect(mail.headers['In-Reply-To']).toBe(`<merge_request_${mergeRequest.id}@127.0.0.1>`)
  })
})

describe('merge requests', () => {
  async function mergeRequestSpace() {
    const { group, project } = await space()
    const author = await person(project, { role: 'developer' })
    const assignee = await person(project, { role: 'developer' })
    const reviewer = await person(project, { role: 'developer' })
    const watcher = await person(project, { role: 'developer', projectSetting: { level: 'watch' } })
    const customPush = await person(project, {
      role: 'developer',
      projectSetting: { level: 'custom', events: { push_to_merge_request: true } },
    })
    const customMerge = await person(project, {
      role: 'developer',
      projectSetting: { level: 'custom', events: { merge_merge_request: true } },
    })
    const guestWatcher = await person(project, { role: 'guest', projectSetting: { level: 'watch' } })
    const mergeRequest = await createTestMergeRequest(db(), {
      project,
      author,
      title: 'Faster pumps',
      assignees: [assignee],
      sourceBranch: 'pumps',
    })
    await db()
      .insertInto('merge_request_reviewers')
      .values({ merge_request_id: mergeRequest.id, user_id: reviewer.id, created_at: AT.toISOString() })
      .execute()
    return { group, project, author, assignee, reviewer, watcher, customPush, customMerge, guestWatcher, mergeRequest }
  }

  test('a new one reaches assignees, reviewers and watchers who may read merge requests', async () => {
    const s = await mergeRequestSpace()
    await tellMergeRequest(server, s.author, s.mergeRequest, 'open')
    const mails = await deliveredMails(server, sink)
    // A Guest of a public project reads its merge requests.
    expect(reasons(mails)).toEqual(reasonsOf([[s.assignee, 'assigned'], s.reviewer, s.watcher, s.guestWatcher]))
    const mail = mails[0]
    expect(mail.subject).toBe(`Rocket | Faster pumps (!${s.mergeRequest.iid})`)
    expect(mail.headers['Message-ID']).toBe(`<merge_request_${s.mergeRequest.id}@127.0.0.1>`)
    const url = `${server.url}/${s.project.full_path}/-/merge_requests/${s.mergeRequest.iid}`
    expect(mail.text.split('\n\n-- \n')[0]).toBe(
      [
        `${s.author.name} created a merge request: ${url}`,
        '',
        'Branches: pumps to main',
        `Author: ${s.author.name}`,
        `Assignee: ${s.assignee.name}`,
        `Reviewer: ${s.reviewer.name}`,
      ].join('\n'),
    )
  })

  test('merged, closed and reopened ones answer the thread; the merger hears nothing', async () => {
    const s = await mergeRequestSpace()
    await tellMergeRequest(server, s.assignee, s.mergeRequest, 'merge')
    const merged = await deliveredMails(server, sink)
    expect(reasons(merged)).toEqual(reasonsOf([s.author, s.reviewer, s.watcher, s.customMerge, s.guestWatcher]))
    expect(merged[0].text).toMatch(new RegExp(`^Merge request !${s.mergeRequest.iid} was merged\n\nMerge request URL: `))

    await tellMergeRequest(server, s.watcher, s.mergeRequest, 'close')
    const closed = await deliveredMails(server, sink)
    expect(reasons(closed)).toEqual(reasonsOf([s.author, s.assignee, s.reviewer, s.guestWatcher]))
    expect(closed[0].text).toMatch(new RegExp(`^Merge request !${s.mergeRequest.iid} was closed by ${s.watcher.name}\n`))

    await tellMergeRequest(server, s.author, s.mergeRequest, 'reopen')
    const reopened = await deliveredMails(server, sink)
    expect(reasons(reopened)).toEqual(reasonsOf([s.assignee, s.reviewer, s.watcher, s.guestWatcher]))
    expect(reopened[0].subject).toBe(`Re: Rocket | Faster pumps (!${s.mergeRequest.iid})`)
  })

  test('new commits reach participants and Custom users of push_to_merge_request, not watchers', async () => {
    const s = await mergeRequestSpace()
    await tellMergeRequest(server, s.author, s.mergeRequest, 'update', { oldrev: 'b'.repeat(40) })
    const mails = await deliveredMails(server, sink)
    expect(reasons(mails)).toEqual(reasonsOf([s.assignee, s.reviewer, s.customPush]))
    expect(mails[0].text.split('\n\n-- \n')[0]).toBe(
      `${s.author.name} pushed new commits to merge request !${s.mergeRequest.iid}\n\n${server.url}/${s.project.full_path}/-/merge_requests/${s.mergeRequest.iid}`,
    )
  })

  test('the e-mail of a push lists the commits it added to the source branch, oldest first', async () => {
    const git = new GitClient()
    try {
      const owner = await createPerson(db(), `pusher${Date.now().toString(36)}`)
      const created = await createRepositoryProject(client(`${server.url}/api/v4`), owner, { name: 'Pumps' })
      const project = await db().selectFrom('projects').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow()
      const assignee = await person(project, { role: 'developer' })
      const oldrev = await branchHead(server, git, project.id)
      const tree = (await gitInRepository(server, git, project.id, 'rev-parse', `${oldrev}^{tree}`)).trim()
      const first = (await gitInRepository(server, git, project.id, 'commit-tree', tree, '-p', oldrev, '-m', 'Prime the pump')).trim()
      const second = (await gitInRepository(server, git, project.id, 'commit-tree', tree, '-p', first, '-m', 'Pump <faster>')).trim()
      await gitInRepository(server, git, project.id, 'update-ref', 'refs/heads/pumps', second)
      const mergeRequest = await createTestMergeRequest(db(), {
        project,
        author: owner.user,
        title: 'Pumps',
        assignees: [assignee],
        sourceBranch: 'pumps',
      })
      await tellMergeRequest(server, owner.user, mergeRequest, 'update', { oldrev })
      const [mail] = await deliveredMails(server, sink)
      expect(mail.to).toBe(assignee.email)
      expect(mail.text.split('\n\n-- \n')[0]).toBe(
        [
          `${owner.user.name} pushed new commits to merge request !${mergeRequest.iid}`,
          '',
          `${server.url}/${project.full_path}/-/merge_requests/${mergeRequest.iid}`,
          '',
          `* ${first.slice(0, 8)} - Prime the pump`,
          `* ${second.slice(0, 8)} - Pump <faster>`,
        ].join('\n'),
      )
      expect(mail.html).toContain(`<li><code>${second.slice(0, 8)}</code> - Pump &lt;faster&gt;</li>`)
    } finally {
      git.remove()
    }
  })

  test('new reviewers hear review_requested; reassigning tells old and new assignees', async () => {
    const s = await mergeRequestSpace()
    const newReviewer = await person(s.project, { role: 'developer', projectSetting: { level: 'mention' } })
    await db().deleteFrom('merge_request_reviewers').where('merge_request_id', '=', s.mergeRequest.id).execute()
    await db()
      .insertInto('merge_request_reviewers')
      .values({ merge_request_id: s.mergeRequest.id, user_id: newReviewer.id, created_at: AT.toISOString() })
      .execute()
    await tellMergeRequest(server, s.author, s.mergeRequest, 'update', {
      changes: { reviewers: { previous: [s.reviewer.id], current: [newReviewer.id] } },
    })
    const mails = await deliveredMails(server, sink)
    expect(reasons(mails)).toEqual(reasonsOf([s.assignee, s.reviewer, s.watcher, s.guestWatcher, [newReviewer, 'review_requested']]))
    expect(mails.find((mail) => mail.to === newReviewer.email)!.text.split('\n\n-- \n')[0]).toBe(
      `Reviewer changed from ${s.reviewer.name} to ${newReviewer.name}`,
    )
  })
})

describe('access granted', () => {
  test('a new project or group member hears of it unless their notifications are disabled there', async () => {
    const { group, project } = await space()
    const owner = await person(project, { role: 'owner' })
    const developer = await person(null)
    await tell(server, owner, {
      kind: 'member',
      action: 'add',
      source: { type: 'project', id: project.id },
      userId: developer.id,
      actorId: owner.id,
      accessLevel: 30,
      expiresAt: null,
      at: AT,
    })
    const [mail, ...others] = await deliveredMails(server, sink)
    expect(others).toEqual([])
    expect(mail.to).toBe(developer.email)
    expect(mail.subject).toBe(`Access to the ${project.full_name} project was granted`)
    expect(mail.headers['List-Id']).toBeUndefined()
    expect(mail.headers.From).toBe('GitLab <gitlab@127.0.0.1>')
    expect(mail.text.split('\n\n-- \n')[0]).toBe(
      `You have been granted access to the ${project.full_name} project with the following role: Developer.\n\n${server.url}/${project.full_path}`,
    )

    const quiet = await person(null, { globalSetting: { level: 'disabled' } })
    const member = { kind: 'member', action: 'add', actorId: owner.id, accessLevel: 5, expiresAt: null, at: AT } as const
    await tell(server, owner, { ...member, source: { type: 'group', id: group.id }, userId: quiet.id })
    await tell(server, owner, { ...member, source: { type: 'group', id: group.id }, userId: owner.id })
    expect(await deliveredMails(server, sink)).toEqual([])

    await tell(server, owner, { ...member, source: { type: 'group', id: group.id }, userId: developer.id })
    const [granted] = await deliveredMails(server, sink)
    expect(granted.subject).toBe(`Access to the ${group.full_name} group was granted`)
    expect(granted.text).toMatch(/with the following role: Minimal Access\.\n/)
  })
})

describe('alerts', () => {
  /** A new alert of the project, as the alerts feature stores it, then told of. */
  async function triggerAlert(project: ProjectRow, title: string, description: string | null) {
    const at = AT.toISOString()
    const alert = await db()
      .insertInto('alerts')
      .values({ project_id: project.id, iid: 1, title, description, started_at: at, payload: '{}', created_at: at, updated_at: at })
      .returningAll()
      .executeTakeFirstOrThrow()
    await tell(server, null, { kind: 'alert', action: 'create', projectId: project.id, alertId: alert.id, at: AT })
  }

  test("a triggered alert reaches the project Maintainers and Owners, or its group's when it has none", async () => {
    const { group, project } = await space()
    const maintainer = await person(project, { role: 'maintainer', projectSetting: { level: 'disabled' } })
    const owner = await person(project, { role: 'owner' })
    await person(project, { role: 'developer', projectSetting: { level: 'watch' } })
    await person(project, { role: 'maintainer', user: { state: 'blocked' } })
    await triggerAlert(project, 'CPU on fire', 'Load 99')
    const mails = await deliveredMails(server, sink)
    expect(mails.map((mail) => mail.to)).toEqual([maintainer.email, owner.email].sort())
    expect(mails[0].subject).toBe('Rocket | Alert: CPU on fire')
    expect(mails[0].headers['X-GitLab-Alert-IID']).toBe('1')
    expect(mails[0].headers['X-GitLab-NotificationReason']).toBe('alert_triggered')
    expect(mails[0].text.split('\n\n-- \n')[0]).toBe(
      `An alert has been triggered in ${project.full_path}.\n\nView alert details at ${server.url}/${project.full_path}/-/alert_management/1/details\n\nDescription: Load 99`,
    )

    const bare = await createTestProject(db(), { namespace: group })
    const groupOwner = await person(null, { group, groupRole: 'owner' })
    await triggerAlert(bare, 'Disk full', null)
    expect((await deliveredMails(server, sink)).map((mail) => mail.to)).toEqual([groupOwner.email])
  })
})

describe('subscriptions', () => {
  test('an explicit subscriber hears even when disabled; an unsubscribed participant hears only a mention', async () => {
    const { project } = await space()
    const author = await person(project, { role: 'developer' })
    const subscriber = await person(project, { role: 'developer', globalSetting: { level: 'disabled' } })
    const leaver = await person(project, { role: 'developer' })
    const issue = await createTestIssue(db(), { project, author, assignees: [leaver] })
    const subscription = (user: User, subscribed: number) => ({
      user_id: user.id,
      subscribable_type: 'Issue' as const,
      subscribable_id: issue.id,
      project_id: project.id,
      subscribed,
      created_at: AT.toISOString(),
      updated_at: AT.toISOString(),
    })
    await db()
      .insertInto('subscriptions')
      .values([subscription(subscriber, 1), subscription(leaver, 0)])
      .execute()
    await tellIssue(server, author, issue, 'close')
    expect(reasons(await deliveredMails(server, sink))).toEqual(reasonsOf([[subscriber, 'subscribed']]))

    await db()
      .updateTable('issues')
      .set({ description: `ping @${leaver.username}` })
      .where('id', '=', issue.id)
      .execute()
    await tellIssue(server, author, issue, 'update', { description: { previous: null, current: `ping @${leaver.username}` } })
    const mentions = await deliveredMails(server, sink)
    expect(reasons(mentions)).toEqual(reasonsOf([[leaver, 'mentioned']]))
    expect(mentions[0].text).toMatch(/^You have been mentioned in an issue\.\n/)
  })
})
