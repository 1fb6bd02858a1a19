import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Db } from '../../db/index.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let db: Db
let request: ReturnType<typeof client>
let owner: Person
let developer: Person
let reporter: Person
let project: Record<string, any>
let mergeRequest: Record<string, any>

async function api(method: string, path: string, who: Person, body?: unknown) {
  return request(method, path, { token: who.token, body })
}

function lineCode(path: string, oldLine: number, newLine: number) {
  return `${createHash('sha1').update(path).digest('hex')}_${oldLine}_${newLine}`
}

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  request = client(server.url + '/api/v4')
  owner = await createPerson(db, 'threadowner')
  developer = await createPerson(db, 'threaddev')
  reporter = await createPerson(db, 'threadreporter')
  project = await createRepositoryProject(request, owner, { name: 'Threads', path: 'threads' })
  await addProjectMember(db, developer, project.id, 30)
  await addProjectMember(db, reporter, project.id, 20)
  const commits = `/projects/${project.id}/repository/commits`
  const base = await api('POST', commits, owner, {
    branch: 'main',
    commit_message: 'Add the file',
    actions: [{ action: 'create', file_path: 'app.txt', content: 'one\ntwo\nthree\nfour\n' }],
  })
  expect(base.status, base.text).toBe(201)
  const change = await api('POST', commits, owner, {
    branch: 'feature',
    start_branch: 'main',
    commit_message: 'Change the file',
    actions: [{ action: 'update', file_path: 'app.txt', content: 'one\n2\nthree\nfour\nfive\n' }],
  })
  expect(change.status, change.text).toBe(201)
  const created = await api('POST', `/projects/${project.id}/merge_requests`, owner, {
    source_branch: 'feature',
    target_branch: 'main',
    title: 'Change the file',
  })
  expect(created.status, created.text).toBe(201)
  mergeRequest = created.body
})
afterAll(() => server.close())

function discussionsPath(suffix = '') {
  return `/projects/${project.id}/merge_requests/${mergeRequest.iid}/discussions${suffix}`
}

function position(overrides: Record<string, unknown> = {}) {
  const refs = mergeRequest.diff_refs
  return {
    base_sha: refs.base_sha,
    start_sha: refs.start_sha,
    head_sha: refs.head_sha,
    position_type: 'text',
    old_path: 'app.txt',
    new_path: 'app.txt',
    ...overrides,
  }
}

describe('threads on diff lines', () => {
  test('a thread on an added line is a DiffNote with GitLab position, resolvable, in the notes and the discussions', async () => {
    const res = await api('POST', discussionsPath(), developer, { body: 'Why **2**?', position: position({ new_line: 2 }) })
    expect(res.status, res.text).toBe(201)
    expect(Object.keys(res.body)).toEqual(['id', 'individual_note', 'notes'])
    expect(res.body.id).toMatch(/^[0-9a-f]{40}$/)
    expect(res.body.individual_note).toBe(false)
    const [note] = res.body.notes
    expect(Object.keys(note)).toEqual([
      'id',
      'type',
      'body',
      'attachment',
      'author',
      'created_at',
      'updated_at',
      'system',
      'noteable_id',
      'noteable_type',
      'project_id',
      'commit_id',
      'position',
      'resolvable',
      'resolved',
      'resolved_by',
      'resolved_at',
      'confidential',
      'internal',
      'imported',
      'imported_from',
      'noteable_iid',
      'commands_changes',
    ])
    expect(note).toMatchObject({
      type: 'DiffNote',
      body: 'Why **2**?',
      commit_id: null,
      resolvable: true,
      resolved: false,
      resolved_by: null,
      resolved_at: null,
      noteable_type: 'MergeRequest',
      noteable_iid: mergeRequest.iid,
    })
    expect(note.position).toEqual({
      base_sha: mergeRequest.diff_refs.base_sha,
      start_sha: mergeRequest.diff_refs.start_sha,
      head_sha: mergeRequest.diff_refs.head_sha,
      old_path: 'app.txt',
      new_path: 'app.txt',
      position_type: 'text',
      old_line: null,
      new_line: 2,
      line_range: null,
    })
    const stored = await db.selectFrom('notes').selectAll().where('id', '=', note.id).executeTakeFirstOrThrow()
    // An added line's old position is the next old line (GL Gitlab::Diff::Parser).
    expect(stored.line_code).toBe(lineCode('app.txt', 3, 2))

    const listed = await api('GET', `/projects/${project.id}/merge_requests/${mergeRequest.iid}/notes`, reporter)
    expect(listed.body.find((n: any) => n.id === note.id)).toMatchObject({ type: 'DiffNote', position: { new_line: 2 } })
    const threads = await api('GET', discussionsPath(), reporter)
    expect(threads.status).toBe(200)
    expect(threads.headers['x-total']).toBe(String(threads.body.length))
    expect(threads.body.find((d: any) => d.id === res.body.id).notes).toHaveLength(1)
  })

  test('a removed line by its old number, an unchanged one by both; a reply joins the thread with its position', async () => {
    const removed = await api('POST', discussionsPath(), developer, { body: 'Gone', position: position({ old_line: 2 }) })
    expect(removed.status, removed.text).toBe(201)
    expect(removed.body.notes[0].position).toMatchObject({ old_line: 2, new_line: null })
    const context = await api('POST', discussionsPath(), developer, { body: 'Same', position: position({ old_line: 3, new_line: 3 }) })
    expect(context.status, context.text).toBe(201)
    const reply = await api('POST', discussionsPath(`/${context.body.id}/notes`), reporter, { body: 'Agreed' })
    expect(reply.status, reply.text).toBe(201)
    expect(reply.body).toMatchObject({ type: 'DiffNote', body: 'Agreed', position: { old_line: 3, new_line: 3 } })
    const thread = await api('GET', discussionsPath(`/${context.body.id}`), reporter)
    expect(thread.body.notes.map((n: any) => n.body)).toEqual(['Same', 'Agreed'])
  })

  test('a position on no line of the diff, or without its commits, is refused as GitLab refuses it', async () => {
    const nowhere = await api('POST', discussionsPath(), developer, { body: 'x', position: position({ new_line: 40 }) })
    expect(nowhere.status).toBe(400)
    expect(nowhere.body).toEqual({ message: '400 Bad request - Note {:line_code=>["can\'t be blank", "must be a valid line code"]}' })
    const stale = await api('POST', discussionsPath(), developer, {
      body: 'x',
      position: position({ head_sha: '0'.repeat(40), new_line: 2 }),
    })
    expect(stale.status).toBe(400)
    const missing = await api('POST', discussionsPath(), developer, { body: 'x', position: { position_type: 'text', new_line: 2 } })
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({ message: '400 (Bad request) "position[base_sha]" not given' })
  })

  test('a thread without a position takes replies; a comment alone becomes a thread when answered', async () => {
    const started = await api('POST', discussionsPath(), reporter, { body: 'A thread' })
    expect(started.status, started.text).toBe(201)
    expect(started.body.notes[0]).toMatchObject({ type: 'DiscussionNote', resolvable: true, resolved: false })
    expect(started.body.notes[0]).not.toHaveProperty('position')
    const comment = await api('POST', `/projects/${project.id}/merge_requests/${mergeRequest.iid}/notes`, reporter, { body: 'Alone' })
    expect(comment.body).toMatchObject({ type: null, resolvable: false })
    const threads = await api('GET', discussionsPath('?per_page=100'), reporter)
    const alone = threads.body.find((d: any) => d.notes[0].id === comment.body.id)
    expect(alone.individual_note).toBe(true)
    const answer = await api('POST', discussionsPath(`/${alone.id}/notes`), developer, { body: 'An answer' })
    expect(answer.status, answer.text).toBe(201)
    expect(answer.body.type).toBe('DiscussionNote')
    const after = await api('GET', discussionsPath(`/${alone.id}`), reporter)
    expect(after.body.individual_note).toBe(false)
    expect(after.body.notes.map((n: any) => n.type)).toEqual(['DiscussionNote', 'DiscussionNote'])
  })

  test('a Developer resolves and unresolves a thread; a Reporter who did not write the merge request may not', async () => {
    const started = await api('POST', discussionsPath(), reporter, { body: 'Resolve me', position: position({ new_line: 5 }) })
    const refused = await api('PUT', discussionsPath(`/${started.body.id}`), reporter, { resolved: true })
    expect(refused.status).toBe(403)
    const resolved = await api('PUT', discussionsPath(`/${started.body.id}`), developer, { resolved: true })
    expect(resolved.status, resolved.text).toBe(200)
    expect(resolved.body.notes[0]).toMatchObject({ resolved: true, resolved_by: { username: 'threaddev' } })
    expect(resolved.body.notes[0].resolved_at).toMatch(/Z$/)
    const reopened = await api('PUT', discussionsPath(`/${started.body.id}`), owner, { resolved: false })
    expect(reopened.body.notes[0]).toMatchObject({ resolved: false, resolved_by: null, resolved_at: null })
    const unknown = await api('GET', discussionsPath(`/${'a'.repeat(40)}`), reporter)
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ message: '404 Discussion Not Found' })
  })
})
