import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { LabelRow, MergeRequestRow, MilestoneRow } from '../../db/schema.js'
import { createTestLabel, createTestMergeRequest, createTestMilestone } from '../../testing/factories.js'
import { client, type TestResponse } from '../../testing/http.js'
import { createProjectTeam, type ProjectTeam } from '../../testing/roles.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'

// The merge request list's filters and sort menu, with GitLab's query params (the ones the issue list has, and
// `reviewer_username`): the rows, the tab counts and the links all honour them.

let server: TestServer
let web: ReturnType<typeof client>
let team: ProjectTeam<'developer' | 'reporter' | 'guest'>
let session: TestSession
let bug: LabelRow
let v1: MilestoneRow
let v2: MilestoneRow
let rows: MergeRequestRow[]

const day = (n: number) => new Date(Date.UTC(2026, 10, n, 9))

beforeAll(async () => {
  server = await startTestServer()
  web = client(server.url)
  const api = client(`${server.url}/api/v4`)
  const db = server.database.db
  team = await createProjectTeam(db, { roles: ['developer', 'reporter', 'guest'] })
  session = await createTestSession(server, team.guest.user)
  bug = await createTestLabel(db, { project: team.project, title: 'bug' })
  v1 = await createTestMilestone(db, { project: team.project, title: 'v1.0', dueDate: '2026-12-01' })
  v2 = await createTestMilestone(db, { project: team.project, title: 'v2.0', dueDate: '2027-03-01' })
  const { project, developer, reporter } = team
  rows = [
    await createTestMergeRequest(db, { project, author: developer.user, title: 'Alpha change', labels: [bug], createdAt: day(1) }),
    await createTestMergeRequest(db, {
      project,
      author: reporter.user,
      title: 'Beta change',
      assignees: [developer.user],
      createdAt: day(2),
    }),
    await createTestMergeRequest(db, {
      project,
      author: developer.user,
      title: 'Gamma change',
      state: 'merged',
      createdAt: day(3),
      mergedAt: day(9),
    }),
    await createTestMergeRequest(db, {
      project,
      author: reporter.user,
      title: 'Delta change',
      state: 'merged',
      createdAt: day(4),
      mergedAt: day(5),
    }),
    await createTestMergeRequest(db, { project, author: reporter.user, title: 'Epsilon change', state: 'closed', createdAt: day(6) }),
  ]
  const put = (iid: number, body: Record<string, unknown>) =>
    api('PUT', `/projects/${project.id}/merge_requests/${iid}`, { token: developer.token, body })
  expect((await put(rows[0].iid, { milestone_id: v1.id, reviewer_ids: [reporter.user.id] })).status).toBe(200)
  expect((await put(rows[1].iid, { milestone_id: v2.id })).status).toBe(200)
})
afterAll(() => server.close())

const base = () => `/${team.project.full_path}/-/merge_requests`

function visit(query: string): Promise<TestResponse> {
  return web('GET', `${base()}${query}`, { headers: { cookie: session.cookie, accept: 'text/html' } })
}

const titlesOf = (text: string) => [...text.matchAll(/<a class="title" href="[^"]+">(\w+) change<\/a>/g)].map((match) => match[1])
const countOf = (text: string, tab: string) => new RegExp(`>${tab} <span class="badge count">(\\d+)</span>`).exec(text)?.[1]

describe('the merge request list', () => {
  test("offers GitLab's filters and its merge request sorts; the merged date only on the Merged tab", async () => {
    const open = await visit('')
    expect(open.status).toBe(200)
    expect(open.text).toContain(
      `<form class="issuable-filters" method="get" action="${base()}" role="search" aria-label="Filter merge requests">`,
    )
    expect(open.text).toContain(
      '<input type="search" id="merge_request_search" name="search" value="" placeholder="Search or filter results&hellip;" />',
    )
    for (const [name, label] of [
      ['author_username', 'Author'],
      ['assignee_username', 'Assignee'],
      ['reviewer_username', 'Reviewer'],
    ]) {
      expect(open.text).toContain(`<label for="filter_${name}">${label}</label>`)
      expect(open.text).toContain(`<input type="text" id="filter_${name}" name="${name}" value="" placeholder="username" />`)
    }
    expect(open.text).toContain('<option value="v2.0" >v2.0</option>')
    expect(open.text).toContain('<option value="bug" >bug</option>')
    const sortsOf = (text: string) =>
      [...text.matchAll(/<option value="([a-z_]+)" (?:selected)?>[^<]+<\/option>/g)].map((match) => match[1])
    const openSorts = [
      'created_date',
      'created_asc',
      'updated_desc',
      'updated_asc',
      'milestone',
      'milestone_due_desc',
      'title_asc',
      'title_desc',
    ]
    expect(sortsOf(open.text).filter((name) => openSorts.includes(name) || name.startsWith('merged'))).toEqual(openSorts)
    expect(open.text).toContain('<option value="created_date" selected>Created date</option>')
    expect(titlesOf(open.text)).toEqual(['Beta', 'Alpha'])
    const merged = await visit('?state=merged')
    expect(merged.text).toContain('<option value="merged_at_desc" >Merged date</option>')
    expect(merged.text).toContain('<option value="merged_at_asc" >Merged date, oldest</option>')
  })

  test('filters by reviewer, author, assignee, milestone and label; the tab counts honour the filters', async () => {
    const byReviewer = await visit(`?reviewer_username=${team.reporter.user.username}`)
    expect(titlesOf(byReviewer.text)).toEqual(['Alpha'])
    expect([countOf(byReviewer.text, 'Open'), countOf(byReviewer.text, 'Merged'), countOf(byReviewer.text, 'All')]).toEqual(['1', '0', '1'])
    expect(byReviewer.text).toContain(
      `<input type="text" id="filter_reviewer_username" name="reviewer_username" value="${team.reporter.user.username}" placeholder="username" />`,
    )
    expect(byReviewer.text).toContain(`href="${base()}?state=merged&amp;reviewer_username=${team.reporter.user.username}"`)
    expect(byReviewer.text).toContain(`aria-label="Remove reviewer filter @${team.reporter.user.username}"`)

    const byAuthor = await visit(`?author_username=@${team.reporter.user.username}&state=all`)
    expect(titlesOf(byAuthor.text)).toEqual(['Epsilon', 'Delta', 'Beta'])
    expect([countOf(byAuthor.text, 'Open'), countOf(byAuthor.text, 'Merged'), countOf(byAuthor.text, 'Closed')]).toEqual(['1', '1', '1'])

    const byAssignee = await visit(`?assignee_username=${team.developer.user.username}`)
    expect(titlesOf(byAssignee.text)).toEqual(['Beta'])
    const byMilestone = await visit('?milestone_title=v1.0')
    expect(titlesOf(byMilestone.text)).toEqual(['Alpha'])
    expect(byMilestone.text).toContain('<option value="v1.0" selected>v1.0</option>')
    const noMilestone = await visit('?milestone_title=None&state=all')
    expect(titlesOf(noMilestone.text)).toEqual(['Epsilon', 'Delta', 'Gamma'])
    const byLabel = await visit('?label_name[]=bug')
    expect(titlesOf(byLabel.text)).toEqual(['Alpha'])
    // A label on a row filters this list by it, as GitLab's list does.
    expect(byLabel.text).toContain(`<a class="label-badge" href="${base()}?label_name[]=bug"`)

    const nothing = await visit(`?reviewer_username=${team.guest.user.username}`)
    expect(nothing.status).toBe(200)
    expect(nothing.text).toContain('No merge requests match your search or filter.')
    expect(countOf(nothing.text, 'All')).toBe('0')
  })

  test("sorts by GitLab's sort names, and falls back to the newest first for a sort the tab does not offer", async () => {
    expect(titlesOf((await visit('?state=all&sort=title_asc')).text)).toEqual(['Alpha', 'Beta', 'Delta', 'Epsilon', 'Gamma'])
    expect(titlesOf((await visit('?state=all&sort=created_asc')).text)).toEqual(['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon'])
    expect(titlesOf((await visit('?sort=milestone_due_desc')).text)).toEqual(['Beta', 'Alpha'])
    const byMergedDate = await visit('?state=merged&sort=merged_at_desc')
    expect(titlesOf(byMergedDate.text)).toEqual(['Gamma', 'Delta'])
    expect(byMergedDate.text).toContain('<option value="merged_at_desc" selected>Merged date</option>')
    expect(titlesOf((await visit('?state=merged&sort=merged_at_asc')).text)).toEqual(['Delta', 'Gamma'])
    expect(titlesOf((await visit('?state=merged')).text)).toEqual(['Delta', 'Gamma'])
    const fallback = await visit('?sort=merged_at_desc')
    expect(fallback.text).toContain('<option value="created_date" selected>Created date</option>')
    expect(titlesOf(fallback.text)).toEqual(['Beta', 'Alpha'])
    // The page's links keep the order.
    expect((await visit('?state=all&sort=title_desc')).text).toContain(`href="${base()}?state=merged&amp;sort=title_desc"`)
  })
})
