import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Db } from '../../db/index.js'
import type { LabelRow } from '../../db/schema.js'
import {
  createTestGroup,
  createTestIssue,
  createTestLabel,
  createTestMergeRequest,
  createTestProject,
  createTestUser,
} from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

// The counter rows behind `with_counts` follow every write to issues, merge requests and their label links.

let server: TestServer
let db: Db

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
})
afterAll(() => server.close())

async function countsOf(label: LabelRow) {
  const rows = await db.selectFrom('label_counts').selectAll().where('label_id', '=', label.id).orderBy('project_id').execute()
  return rows.map(({ label_id: _label, ...rest }) => rest)
}

describe('label counter rows', () => {
  test('follow links, state, confidentiality, moves and deletions of issues and merge requests', async () => {
    const author = await createTestUser(db)
    const group = await createTestGroup(db)
    const project = await createTestProject(db, { namespace: group })
    const other = await createTestProject(db, { namespace: group })
    const label = await createTestLabel(db, { group })
    const zero = { open_issues: 0, closed_issues: 0, open_confidential_issues: 0, closed_confidential_issues: 0, open_merge_requests: 0 }

    const first = await createTestIssue(db, { project, author, labels: [label] })
    const second = await createTestIssue(db, { project, author, labels: [label], state: 'closed' })
    const secret = await createTestIssue(db, { project, author, labels: [label], confidential: true })
    await createTestIssue(db, { project, author })
    const mergeRequest = await createTestMergeRequest(db, { project, author, labels: [label] })
    await createTestMergeRequest(db, { project, author, labels: [label], state: 'merged' })
    expect(await countsOf(label)).toEqual([
      { ...zero, project_id: project.id, open_issues: 1, closed_issues: 1, open_confidential_issues: 1, open_merge_requests: 1 },
    ])

    await db.updateTable('issues').set({ state: 'closed' }).where('id', '=', first.id).execute()
    await db.updateTable('issues').set({ confidential: 0 }).where('id', '=', secret.id).execute()
    await db.updateTable('merge_requests').set({ state: 'closed' }).where('id', '=', mergeRequest.id).execute()
    // Unrelated columns change nothing.
    await db.updateTable('issues').set({ title: 'Renamed' }).where('id', '=', second.id).execute()
    expect(await countsOf(label)).toEqual([{ ...zero, project_id: project.id, open_issues: 1, closed_issues: 2 }])

    await db.updateTable('issues').set({ project_id: other.id }).where('id', '=', second.id).execute()
    await db.deleteFrom('issue_labels').where('issue_id', '=', secret.id).execute()
    expect(await countsOf(label)).toEqual([
      { ...zero, project_id: project.id, closed_issues: 1 },
      { ...zero, project_id: other.id, closed_issues: 1 },
    ])

    // Deleting the issue (its links go by cascade) subtracts it once.
    await db.deleteFrom('issues').where('id', '=', first.id).execute()
    await db.deleteFrom('merge_requests').where('id', '=', mergeRequest.id).execute()
    expect(await countsOf(label)).toEqual([
      { ...zero, project_id: project.id },
      { ...zero, project_id: other.id, closed_issues: 1 },
    ])

    // Repointing a link moves its count.
    const target = await createTestLabel(db, { group })
    await db.updateTable('issue_labels').set({ label_id: target.id }).where('issue_id', '=', second.id).execute()
    expect(await countsOf(target)).toEqual([{ ...zero, project_id: other.id, closed_issues: 1 }])
    expect(await countsOf(label)).toEqual([
      { ...zero, project_id: project.id },
      { ...zero, project_id: other.id },
    ])

    // Deleting a label or a project removes its counter rows with it.
    await db.deleteFrom('labels').where('id', '=', target.id).execute()
    expect(await countsOf(target)).toEqual([])
    await db.deleteFrom('projects').where('id', '=', project.id).execute()
    expect(await countsOf(label)).toEqual([{ ...zero, project_id: other.id }])
  })
})
