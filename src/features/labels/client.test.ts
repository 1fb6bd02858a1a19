import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestGroup, createTestIssue, createTestMergeRequest, createTestProject, createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let gitlab: InstanceType<typeof Gitlab>

beforeAll(async () => {
  server = await startTestServer()
  gitlab = new Gitlab({ host: server.url, token: server.rootToken })
})
afterAll(() => server.close())

// gitbeaker's subscribe and unsubscribe post to /issues/:id/subscribe, so subscriptions are tested over raw HTTP.
describe('the gitbeaker ProjectLabels and GroupLabels APIs', () => {
  test('create, list with counts, show, edit, promote and remove', async () => {
    const db = server.database.db
    const author = await createTestUser(db)
    const group = await createTestGroup(db)
    const project = await createTestProject(db, { namespace: group })
    const sibling = await createTestProject(db, { namespace: group })

    const bug = await gitlab.ProjectLabels.create(project.id, 'bug', '#d9534f', { description: 'Broken', priority: 2 })
    expect(bug).toMatchObject({ name: 'bug', color: '#d9534f', text_color: '#FFFFFF', priority: 2, is_project_label: true })
    const docs = await gitlab.ProjectLabels.create(project.id, 'docs', 'gold')
    expect(docs.color).toBe('#FFD700')
    await expect(gitlab.ProjectLabels.create(project.id, 'bug', '#000000')).rejects.toMatchObject({
      cause: { description: 'Label already exists' },
    })

    const [bugRow] = await db.selectFrom('labels').selectAll().where('id', '=', bug.id).execute()
    await createTestIssue(db, { project, author, labels: [bugRow] })
    await createTestIssue(db, { project, author, labels: [bugRow], state: 'closed' })
    await createTestMergeRequest(db, { project, author, labels: [bugRow] })
    const listed = await gitlab.ProjectLabels.all(project.id, { withCounts: true })
    expect(
      listed.map((label) => [label.name, label.open_issues_count, label.closed_issues_count, label.open_merge_requests_count]),
    ).toEqual([
      ['bug', 1, 1, 1],
      ['docs', 0, 0, 0],
    ])
    expect((await gitlab.ProjectLabels.all(project.id, { search: 'brok' })).map((label) => label.name)).toEqual(['bug'])
    expect((await gitlab.ProjectLabels.show(project.id, 'bug')).id).toBe(bug.id)

    const edited = await gitlab.ProjectLabels.edit(project.id, bug.id, { newName: 'defect', description: 'Still broken' })
    expect(edited).toMatchObject({ id: bug.id, name: 'defect', description: 'Still broken', priority: 2 })

    await gitlab.ProjectLabels.create(sibling.id, 'defect', '#00ff00')
    const promoted = await gitlab.ProjectLabels.promote(project.id, bug.id)
    expect(promoted).toEqual({
      id: bug.id,
      name: 'defect',
      color: '#d9534f',
      description: 'Still broken',
      description_html: 'Still broken',
      open_issues_count: 1,
      closed_issues_count: 1,
      open_merge_requests_count: 1,
      subscribed: false,
    })
    const groupLabels = await gitlab.GroupLabels.all(group.id)
    expect(groupLabels.map((label) => [label.id, label.name])).toEqual([[bug.id, 'defect']])
    expect((await gitlab.ProjectLabels.all(sibling.id)).map((label) => label.id)).toEqual([bug.id])

    const feature = await gitlab.GroupLabels.create(group.id, 'feature', '#428BCA', { description: 'New things' })
    expect(feature).toMatchObject({ name: 'feature', text_color: '#FFFFFF', subscribed: false })
    expect(await gitlab.GroupLabels.edit(group.id, 'feature', { color: '#eeeeee' })).toMatchObject({
      color: '#eeeeee',
      text_color: '#333333',
    })
    expect((await gitlab.GroupLabels.show(group.id, feature.id)).name).toBe('feature')
    await gitlab.GroupLabels.remove(group.id, feature.id)
    await gitlab.ProjectLabels.remove(project.id, docs.id)
    await expect(gitlab.ProjectLabels.show(project.id, docs.id)).rejects.toMatchObject({ cause: { description: '404 Label Not Found' } })
  })
})
