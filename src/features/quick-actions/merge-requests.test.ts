import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Db } from '../../db/index.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

// Quick actions on merge requests through the API: POST …/merge_requests/:iid/notes runs those issues have and the
// merge request's own (/draft, /ready, /assign_reviewer, /unassign_reviewer, /approve, /unapprove, /merge), and a
// merge request's description runs them on create and edit (GL MergeRequestActions, Notes::CreateService).

let server: TestServer
let db: Db
let request: ReturnType<typeof client>
let owner: Person
let developer: Person
let reporter: Person
let guest: Person
let project: Record<string, any>
let bug: Record<string, any>
let v1: Record<string, any>
let branches = 0

async function call(method: string, path: string, body?: unknown, who: Person = owner) {
  const res = await request(method, path, { token: who.token, body })
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300)
  return res.body
}

/** A merge request by the developer between a fresh branch with one commit and main. */
async function openMergeRequest(extra: Record<string, unknown> = {}) {
  branches += 1
  const branch = `topic-${branches}`
  await call('POST', `/projects/${project.id}/repository/commits`, {
    branch,
    start_branch: 'main',
    commit_message: `Add ${branch}`,
    actions: [{ action: 'create', file_path: `${branch}.txt`, content: `${branch}\n` }],
  })
  return call(
    'POST',
    `/projects/${project.id}/merge_requests`,
    { source_branch: branch, target_branch: 'main', title: `Add ${branch}`, ...extra },
    developer,
  )
}

function comment(mr: { iid: number }, who: Person, body: string, extra: Record<string, unknown> = {}) {
  return request('POST', `/projects/${project.id}/merge_requests/${mr.iid}/notes`, { token: who.token, body: { body, ...extra } })
}

const mergeRequestNow = (mr: { iid: number }) => call('GET', `/projects/${project.id}/merge_requests/${mr.iid}`)
const systemNotesOf = async (mr: { iid: number }) =>
  (await call('GET', `/projects/${project.id}/merge_requests/${mr.iid}/notes?sort=asc&per_page=100`))
    .filter((note: any) => note.system)
    .map((note: any) => note.body)

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  request = client(`${server.url}/api/v4`)
  owner = await createPerson(db, 'qaowner')
  developer = await createPerson(db, 'qadev')
  reporter = await createPerson(db, 'qareporter')
  guest = await createPerson(db, 'qaguest')
  project = await createRepositoryProject(request, owner, { name: 'Shop', path: 'shop' })
  await addProjectMember(db, developer, project.id, 30)
  await addProjectMember(db, reporter, project.id, 20)
  await addProjectMember(db, guest, project.id, 10)
  bug = await call('POST', `/projects/${project.id}/labels`, { name: 'bug', color: '#d9534f' })
  v1 = await call('POST', `/projects/${project.id}/milestones`, { title: 'v1.0' })
})
afterAll(() => server.close())

describe('a comment on a merge request', () => {
  test('with text and commands keeps the text as the note and applies the changes, each with its note', async () => {
    const mr = await openMergeRequest()
    const res = await comment(
      mr,
      developer,
      `Ready for a look.\n/label ~bug\n/assign me\n/reviewer @${reporter.user.username}\n/milestone %"v1.0"`,
    )
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ body: 'Ready for a look.', noteable_type: 'MergeRequest' })
    expect(res.body.commands_changes).toEqual({
      add_label_ids: [bug.id],
      assignee_ids: [developer.user.id],
      reviewer_ids: [reporter.user.id],
      milestone_id: v1.id,
    })
    const now = await mergeRequestNow(mr)
    expect([now.labels, now.assignees.map((u: any) => u.id), now.reviewers.map((u: any) => u.id), now.milestone.id]).toEqual([
      ['bug'],
      [developer.user.id],
      [reporter.user.id],
      v1.id,
    ])
    expect(await systemNotesOf(mr)).toEqual([
      `added ~${bug.id} label`,
      `changed milestone to %${v1.iid}`,
      `assigned to @${developer.user.username}`,
      `requested review from @${reporter.user.username}`,
    ])
  })

  test('/draft and /ready set the Draft prefix, and say when nothing changes', async () => {
    const mr = await openMergeRequest()
    let res = await comment(mr, developer, '/draft')
    expect([res.status, res.body]).toEqual([
      202,
      { commands_changes: { wip_event: 'draft' }, summary: ['Marked this merge request as a draft.'] },
    ])
    expect(await mergeRequestNow(mr)).toMatchObject({ title: `Draft: ${mr.title}`, draft: true })
    res = await comment(mr, developer, '/draft')
    expect(res.body).toEqual({ commands_changes: { wip_event: 'draft' }, summary: ["No change to this merge request's draft status."] })
    res = await comment(mr, developer, '/ready')
    expect(res.body).toEqual({ commands_changes: { wip_event: 'ready' }, summary: ['Marked this merge request as ready.'] })
    expect(await mergeRequestNow(mr)).toMatchObject({ title: mr.title, draft: false })
    res = await comment(mr, developer, '/ready')
    expect([res.status, res.body]).toEqual([202, { commands_changes: {}, summary: ["No change to this merge request's draft status."] }])
    expect(await systemNotesOf(mr)).toEqual(['marked this merge request as **draft**', 'marked this merge request as **ready**'])
  })

  test('/assign_reviewer and /reviewer, one reviewer on the free tier, and /remove_reviewer', async () => {
    const mr = await openMergeRequest()
    expect((await comment(mr, developer, '/unassign_reviewer')).body.summary).toEqual(['Could not apply unassign_reviewer command.'])
    let res = await comment(mr, developer, `/assign_reviewer @${reporter.user.username}`)
    expect(res.body).toEqual({
      commands_changes: { reviewer_ids: [reporter.user.id] },
      summary: [`Assigned @${reporter.user.username} as reviewer.`],
    })
    res = await comment(mr, developer, '/assign_reviewer')
    expect(res.body).toEqual({ commands_changes: {}, summary: ['Failed to assign a reviewer because no user was specified.'] })
    res = await comment(mr, developer, '/reviewer @nobody-here')
    expect(res.body.summary).toEqual(["Could not apply assign_reviewer command. Failed to find users for '@nobody-here'."])
    // One reviewer on the free tier: the new one replaces the old.
    res = await comment(mr, developer, `/reviewer @${owner.user.username}`)
    expect(res.body.commands_changes).toEqual({ reviewer_ids: [owner.user.id] })
    res = await comment(mr, developer, '/remove_reviewer')
    expect(res.body).toEqual({ commands_changes: { reviewer_ids: [] }, summary: [`Removed reviewer @${owner.user.username}.`] })
    expect((await mergeRequestNow(mr)).reviewers).toEqual([])
    expect(await systemNotesOf(mr)).toEqual([
      `requested review from @${reporter.user.username}`,
      `requested review from @${owner.user.username} and removed review request for @${reporter.user.username}`,
      `removed review request for @${owner.user.username}`,
    ])
  })

  test('/approve and /unapprove approve at once, as the API does, outside commands_changes', async () => {
    const mr = await openMergeRequest()
    let res = await comment(mr, developer, 'Looks right.\n/approve')
    expect(res.status).toBe(201)
    expect([res.body.body, res.body.commands_changes]).toEqual(['Looks right.', {}])
    const approvals = await call('GET', `/projects/${project.id}/merge_requests/${mr.iid}/approvals`)
    expect(approvals.approved_by.map((entry: any) => entry.user.username)).toEqual([developer.user.username])
    res = await comment(mr, developer, '/approve')
    expect(res.body).toEqual({ commands_changes: {}, summary: ['Could not apply approve command.'] })
    res = await comment(mr, developer, '/unapprove')
    expect([res.status, res.body]).toEqual([202, { commands_changes: {}, summary: ['Unapproved the current merge request.'] }])
    expect((await call('GET', `/projects/${project.id}/merge_requests/${mr.iid}/approvals`)).approved_by).toEqual([])
    expect(await systemNotesOf(mr)).toEqual(['approved this merge request', 'unapproved this merge request'])
  })

  test('/merge merges the head it names when the caller may merge and the merge request is mergeable', async () => {
    const mr = await openMergeRequest()
    const head = (await mergeRequestNow(mr)).sha
    expect((await comment(mr, developer, '/merge', { merge_request_diff_head_sha: head })).body.summary).toEqual([
      'Could not apply merge command.',
    ])
    let res = await comment(mr, owner, '/merge')
    expect(res.body).toEqual({ commands_changes: {}, summary: ['The `/merge` quick action requires the SHA of the head of the branch.'] })
    res = await comment(mr, owner, '/merge', { merge_request_diff_head_sha: '0'.repeat(40) })
    expect(res.body).toEqual({ commands_changes: {}, summary: ['Branch has been updated since the merge was requested.'] })
    expect((await mergeRequestNow(mr)).state).toBe('opened')
    res = await comment(mr, owner, 'Shipping it.\n/merge', { merge_request_diff_head_sha: head })
    expect(res.status).toBe(201)
    expect([res.body.body, res.body.commands_changes]).toEqual(['Shipping it.', { merge: head }])
    expect(await mergeRequestNow(mr)).toMatchObject({ state: 'merged', merged_by: { username: owner.user.username } })
    expect((await comment(mr, owner, '/merge', { merge_request_diff_head_sha: head })).body.summary).toEqual([
      'Could not apply merge command.',
    ])

    const draft = await openMergeRequest({ title: 'Draft: not yet' })
    const draftHead = (await mergeRequestNow(draft)).sha
    res = await comment(draft, owner, '/merge', { merge_request_diff_head_sha: draftHead })
    expect(res.body.summary).toEqual(['Could not apply merge command.'])
  })

  test("/close, /reopen, /title and /lock as on issues, in a merge request's words; issue-only commands are not applied", async () => {
    const mr = await openMergeRequest()
    let res = await comment(mr, developer, '/title Add the topic\n/lock\n/close\n/due tomorrow\n/confidential')
    expect(res.body).toEqual({
      commands_changes: { title: 'Add the topic', discussion_locked: true, state_event: 'close' },
      summary: [
        'Changed the title to "Add the topic". Locked the discussion. Closed this merge request. Could not apply due command. ' +
          'Could not apply confidential command.',
      ],
    })
    expect(await mergeRequestNow(mr)).toMatchObject({ title: 'Add the topic', discussion_locked: true, state: 'closed' })
    res = await comment(mr, developer, '/reopen\n/unlock')
    expect(res.body.summary).toEqual(['Reopened this merge request. Unlocked the discussion.'])
    expect((await mergeRequestNow(mr)).state).toBe('opened')
  })

  test("a Guest's commands, and a Reporter's, are not applied", async () => {
    const mr = await openMergeRequest()
    const head = (await mergeRequestNow(mr)).sha
    const byGuest = await comment(mr, guest, '/label ~bug\n/draft\n/reviewer me\n/approve\n/merge', { merge_request_diff_head_sha: head })
    expect([byGuest.status, byGuest.body]).toEqual([
      202,
      {
        commands_changes: {},
        summary: [
          'Could not apply label command. Could not apply draft command. Could not apply assign_reviewer command. ' +
            'Could not apply approve command. Could not apply merge command.',
        ],
      },
    ])
    const byReporter = await comment(mr, reporter, 'Noted.\n/close\n/reviewer me')
    expect([byReporter.status, byReporter.body.body, byReporter.body.commands_changes]).toEqual([201, 'Noted.', {}])
    const now = await mergeRequestNow(mr)
    expect([now.labels, now.draft, now.reviewers, now.state]).toEqual([[], false, [], 'opened'])
    expect(await systemNotesOf(mr)).toEqual([])
  })
})

describe("a merge request's description", () => {
  test('runs its commands when the merge request is created, and leaves the description', async () => {
    const mr = await openMergeRequest({
      description: `Adds the topic.\n/label ~bug\n/draft\n/assign_reviewer @${reporter.user.username}\n/approve`,
    })
    expect(mr).toMatchObject({
      description: 'Adds the topic.',
      labels: ['bug'],
      draft: true,
      reviewers: [{ username: reporter.user.username }],
    })
    expect(mr.title).toMatch(/^Draft: Add topic-\d+$/)
    // Approving needs a merge request that exists already.
    expect((await call('GET', `/projects/${project.id}/merge_requests/${mr.iid}/approvals`)).approved_by).toEqual([])
  })

  test('runs them on an edit, approving too', async () => {
    const mr = await openMergeRequest({ description: 'Adds it.\n/label ~bug' })
    await call('PUT', `/projects/${project.id}/merge_requests/${mr.iid}`, { remove_labels: 'bug' }, developer)
    const edited = await call(
      'PUT',
      `/projects/${project.id}/merge_requests/${mr.iid}`,
      { description: 'Adds it, tested.\n/label ~bug\n/draft\n/approve' },
      developer,
    )
    expect(edited).toMatchObject({ description: 'Adds it, tested.', labels: ['bug'], draft: true })
    const approvals = await call('GET', `/projects/${project.id}/merge_requests/${mr.iid}/approvals`)
    expect(approvals.approved_by.map((entry: any) => entry.user.username)).toEqual([developer.user.username])
  })
})
