import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Db } from '../../db/index.js'
import { addTestMember, createTestGroup } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let db: Db
let request: ReturnType<typeof client>
let owner: Person
let developer: Person
let stranger: Person
let groupPath: string
let app: Record<string, any>
let sibling: Record<string, any>
let quiet: Record<string, any>
let hidden: Record<string, any>
let elsewhere: Record<string, any>

async function api(method: string, path: string, who: Person, body?: unknown) {
  const res = await request(method, path, { token: who.token, body })
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300)
  return res.body
}

async function issue(project: Record<string, any>, who: Person, title: string) {
  return api('POST', `/projects/${project.id}/issues`, who, { title })
}

async function branch(project: Record<string, any>, name: string, message: string, file: string, start = 'main') {
  await api('POST', `/projects/${project.id}/repository/commits`, owner, {
    branch: name,
    start_branch: start,
    commit_message: message,
    actions: [{ action: 'create', file_path: file, content: `${file}\n` }],
  })
}

async function systemNotes(project: Record<string, any>, iid: number, who: Person = owner): Promise<string[]> {
  const notes = await api('GET', `/projects/${project.id}/issues/${iid}/notes?sort=asc&per_page=100`, who)
  return notes.filter((note: any) => note.system).map((note: any) => note.body)
}

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  request = client(server.url + '/api/v4')
  owner = await createPerson(db, 'closerowner')
  developer = await createPerson(db, 'closerdev')
  stranger = await createPerson(db, 'closerstranger')
  const group = await createTestGroup(db, { path: 'closers' })
  groupPath = group.full_path
  await addTestMember(db, { user: owner.user, group, accessLevel: 50 })
  const inGroup = (name: string, extra: Record<string, unknown> = {}) =>
    createRepositoryProject(request, owner, { name, path: name, namespace_id: group.id, ...extra })
  app = await inGroup('app')
  sibling = await inGroup('sibling')
  quiet = await inGroup('quiet')
  elsewhere = await createRepositoryProject(request, stranger, { name: 'Elsewhere', path: 'elsewhere' })
  hidden = await createRepositoryProject(request, stranger, { name: 'Hidden', path: 'hidden', visibility: 'private' })
  await api('PUT', `/projects/${quiet.id}`, owner, { autoclose_referenced_issues: false })
  await addProjectMember(db, developer, app.id, 30)
  await addProjectMember(db, developer, sibling.id, 30)
  await addProjectMember(db, developer, quiet.id, 30)
})
afterAll(() => server.close())

describe('merging closes the issues named with a closing keyword', () => {
  test('several phrasings in the description and in commit messages, in this project and others the merger may update', async () => {
    const local = []
    for (let n = 1; n <= 9; n++) local.push(await issue(app, owner, `Local ${n}`))
    const siblingIssue = await issue(sibling, owner, 'Sibling issue')
    const quietIssue = await issue(quiet, owner, 'Quiet issue')
    const hiddenIssue = await issue(hidden, stranger, 'Hidden issue')
    const strangerIssue = await issue(elsewhere, stranger, 'Not ours to close')
    await branch(app, 'fix-things', 'Fix things\n\nImplementing #7, and fixes: #8', 'a.txt')
    await branch(app, 'fix-things', 'Tidy up\n\nThis closes nothing: #9 is only related', 'b.txt', 'fix-things')
    const description = [
      'Closes #1, #2 and #3',
      `Fixes ${groupPath}/sibling#${siblingIssue.iid}`,
      'resolves: #4',
      `Implements ${server.url}/${groupPath}/app/-/issues/5.`,
      'Related to #6; CLOSES #9 is not a keyword',
      `Closes quiet#${quietIssue.iid} and closerstranger/hidden#${hiddenIssue.iid}`,
      `Fixes closerstranger/elsewhere#${strangerIssue.iid}`,
    ].join('\n')
    const mr = await api('POST', `/projects/${app.id}/merge_requests`, developer, {
      source_branch: 'fix-things',
      target_branch: 'main',
      title: 'Fix things',
      description,
    })
    // GET …/closes_issues: what merging would close, as the caller reads them; a project with autoclose off is left out.
    const closes = await api('GET', `/projects/${app.id}/merge_requests/${mr.iid}/closes_issues`, owner)
    expect(closes.map((i: any) => `${i.project_id}#${i.iid}`).sort()).toEqual(
      [
        ...[1, 2, 3, 4, 5, 7, 8].map((iid) => `${app.id}#${iid}`),
        `${sibling.id}#${siblingIssue.iid}`,
        `${elsewhere.id}#${strangerIssue.iid}`,
      ].sort(),
    )
    expect(closes[0]).toMatchObject({ title: expect.any(String), web_url: expect.stringContaining('/-/issues/') })
    // The default branch is protected: a Maintainer merges.
    const merged = await api('PUT', `/projects/${app.id}/merge_requests/${mr.iid}/merge`, owner)
    expect(merged.state).toBe('merged')

    const states = await Promise.all(local.map(async (i) => (await api('GET', `/projects/${app.id}/issues/${i.iid}`, owner)).state))
    expect(states).toEqual(['closed', 'closed', 'closed', 'closed', 'closed', 'opened', 'closed', 'closed', 'opened'])
    const first = await api('GET', `/projects/${app.id}/issues/${local[0].iid}`, owner)
    expect(first.closed_by).toMatchObject({ username: 'closerowner' })
    // Closed once merged (GitLab closes them in a worker after the merge).
    expect(Date.parse(first.closed_at)).toBeGreaterThanOrEqual(Date.parse(merged.merged_at))
    expect(await systemNotes(app, 1)).toEqual([`mentioned in merge request !${mr.iid}`, `closed via merge request !${mr.iid}`])
    expect(await systemNotes(app, 6)).toEqual([`mentioned in merge request !${mr.iid}`])

    const siblingAfter = await api('GET', `/projects/${sibling.id}/issues/${siblingIssue.iid}`, owner)
    expect(siblingAfter).toMatchObject({ state: 'closed', closed_by: { username: 'closerowner' } })
    expect(await systemNotes(sibling, siblingIssue.iid)).toEqual([
      `mentioned in merge request app!${mr.iid}`,
      `closed via merge request app!${mr.iid}`,
    ])
    // A project that turned autoclose off keeps its issues open; the merger cannot see the private one nor update the stranger's.
    expect((await api('GET', `/projects/${quiet.id}/issues/${quietIssue.iid}`, owner)).state).toBe('opened')
    expect((await api('GET', `/projects/${hidden.id}/issues/${hiddenIssue.iid}`, stranger)).state).toBe('opened')
    expect(await systemNotes(hidden, hiddenIssue.iid, stranger)).toEqual([])
    expect((await api('GET', `/projects/${elsewhere.id}/issues/${strangerIssue.iid}`, stranger)).state).toBe('opened')
    // The developer who wrote the description may read the public project's issue: it is mentioned there.
    expect(await systemNotes(elsewhere, strangerIssue.iid, stranger)).toEqual([`mentioned in merge request ${groupPath}/app!${mr.iid}`])
  })

  test('a merge into another branch than the default closes nothing', async () => {
    const target = await issue(app, owner, 'Stays open')
    await branch(app, 'release', 'Release branch', 'release.txt')
    await branch(app, 'into-release', `Fix for release\n\nCloses #${target.iid}`, 'c.txt', 'release')
    const mr = await api('POST', `/projects/${app.id}/merge_requests`, developer, {
      source_branch: 'into-release',
      target_branch: 'release',
      title: 'Into release',
      description: `Closes #${target.iid}`,
    })
    await api('PUT', `/projects/${app.id}/merge_requests/${mr.iid}/merge`, owner)
    expect((await api('GET', `/projects/${app.id}/issues/${target.iid}`, owner)).state).toBe('opened')
  })

  test('mentions are written once, when the description changes too', async () => {
    const target = await issue(app, owner, 'Mentioned')
    await branch(app, 'mentioning', 'Mention', 'd.txt')
    const mr = await api('POST', `/projects/${app.id}/merge_requests`, developer, {
      source_branch: 'mentioning',
      target_branch: 'main',
      title: `About #${target.iid}`,
    })
    await api('PUT', `/projects/${app.id}/merge_requests/${mr.iid}`, developer, { description: `See #${target.iid} again` })
    expect(await systemNotes(app, target.iid)).toEqual([`mentioned in merge request !${mr.iid}`])
  })
})
