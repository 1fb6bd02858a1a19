import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { contextFor } from '../../../testing/context.js'
import { GitClient } from '../../../testing/git.js'
import { client } from '../../../testing/http.js'
import { cloneProject, createPerson, createRepositoryProject, type Person } from '../../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../../testing/server.js'
import { noticeChange } from '../../change-notices/index.js'
import { startReceiver, type Receiver } from '../testing.js'

// End to end: pushes, issues, comments and merge requests made through git and the API reach a real receiver on
// loopback, with GitLab's headers, once their transaction has committed, and never when it rolled back.

let server: TestServer
let receiver: Receiver
let request: ReturnType<typeof client>
let owner: Person
let project: Record<string, any>
const git = new GitClient()

beforeAll(async () => {
  ;[server, receiver] = await Promise.all([startTestServer(), startReceiver()])
  request = client(`${server.url}/api/v4`)
  const settings = { allow_local_requests_from_web_hooks_and_services: true, throttle_protected_paths_enabled: false }
  const res = await request('PUT', '/application/settings', { token: server.rootToken, body: settings })
  expect(res.status, res.text).toBe(200)
  owner = await createPerson(server.database.db, 'olga')
  project = await createRepositoryProject(request, owner, { path: 'hooked' })
  const triggers = {
    push_events: true,
    tag_push_events: true,
    issues_events: true,
    confidential_issues_events: true,
    note_events: true,
    confidential_note_events: true,
    merge_requests_events: true,
  }
  await hook(`/projects/${project.id}/hooks`, { url: `${receiver.url}/project`, token: 'project-secret', ...triggers })
  await hook('/hooks', {
    url: `${receiver.url}/system`,
    push_events: true,
    tag_push_events: true,
    merge_requests_events: true,
    repository_update_events: true,
  })
})
afterAll(async () => {
  await Promise.all([server.close(), receiver.close()])
  git.remove()
})
beforeEach(async () => {
  await server.runJobs()
  receiver.received.length = 0
})

async function hook(url: string, body: Record<string, unknown>) {
  const res = await request('POST', url, { token: server.rootToken, body })
  expect(res.status, res.text).toBe(201)
}

/** What the receiver got once every due job has run: path, event header and the body's kind. */
async function sent() {
  await server.runJobs()
  return receiver.received.map((received) => {
    const body = JSON.parse(received.body) as Record<string, any>
    return { path: received.path, event: received.headers['x-gitlab-event'], body }
  })
}

function kinds(delivered: Awaited<ReturnType<typeof sent>>) {
  return delivered
    .map(({ path, event, body }) => `${path} ${event} ${body.object_kind ?? body.event_name}`)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

describe('changes reach the hooks that listen for them', () => {
  test('a push over git: Push Hook to the project, push and repository_update to the system hook', async () => {
    const dir = await cloneProject(server, git, owner, project.path_with_namespace)
    fs.writeFileSync(path.join(dir, 'a.txt'), 'a\n')
    await git.ok(dir, 'add', 'a.txt')
    await git.ok(dir, 'commit', '--quiet', '-m', 'Add a')
    await git.ok(dir, 'tag', 'v1')
    await git.ok(dir, 'push', '--quiet', 'origin', 'main', 'v1')
    const delivered = await sent()
    expect(kinds(delivered)).toEqual([
      '/project Push Hook push',
      '/project Tag Push Hook tag_push',
      '/system System Hook push',
      '/system System Hook repository_update',
      '/system System Hook tag_push',
    ])
    const push = delivered.find((one) => one.event === 'Push Hook')!
    expect(push.body).toMatchObject({ ref: 'refs/heads/main', total_commits_count: 1, user_username: owner.user.username })
    const update = delivered.find((one) => one.body.event_name === 'repository_update')!
    expect(update.body.refs).toEqual(['refs/heads/main', 'refs/tags/v1'])
  })

  test('an issue, a comment on it and a merge request', async () => {
    const issue = await request('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Broken' } })
    expect(issue.status, issue.text).toBe(201)
    const note = await request('POST', `/projects/${project.id}/issues/${issue.body.iid}/notes`, {
      token: owner.token,
      body: { body: 'Hm' },
    })
    expect(note.status, note.text).toBe(201)
    const told = await sent()
    expect(kinds(told)).toEqual(['/project Issue Hook issue', '/project Note Hook note'])
    expect(told[0].body.object_attributes).toMatchObject({ id: issue.body.id, action: 'open' })
    expect(told[1].body.object_attributes).toMatchObject({ id: note.body.id, action: 'create', note: 'Hm' })

    const branch = await request('POST', `/projects/${project.id}/repository/branches`, {
      token: owner.token,
      body: { branch: 'topic', ref: 'main' },
    })
    expect(branch.status, branch.text).toBe(201)
    await sent()
    receiver.received.length = 0
    const opened = await request('POST', `/projects/${project.id}/merge_requests`, {
      token: owner.token,
      body: { source_branch: 'topic', target_branch: 'main', title: 'Topic' },
    })
    expect(opened.status, opened.text).toBe(201)
    const delivered = await sent()
    // The system hook hears the project hook's body, as `System Hook`.
    expect(kinds(delivered)).toEqual(['/project Merge Request Hook merge_request', '/system System Hook merge_request'])
    expect(delivered[0].body).toEqual(delivered[1].body)
    expect(delivered[0].body.object_attributes).toMatchObject({ id: opened.body.id, action: 'open' })
  })

  test('a change whose transaction rolls back sends nothing', async () => {
    const issue = await request('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Kept' } })
    expect(issue.status, issue.text).toBe(201)
    await sent()
    receiver.received.length = 0
    const ctx = contextFor(server, owner.user)
    const change = {
      kind: 'issue' as const,
      action: 'update' as const,
      projectId: project.id as number,
      issueId: issue.body.id as number,
      actorId: owner.user.id,
      changes: { title: { previous: 'Kept', current: 'Gone' } },
      at: new Date(),
    }
    await expect(
      server.database.db.transaction().execute(async (trx) => {
        await noticeChange(ctx, trx, change)
        throw new Error('the change fails after it was told')
      }),
    ).rejects.toThrow('the change fails after it was told')
    expect(await sent()).toEqual([])

    // The same change, committed, is sent.
    await server.database.db.transaction().execute((trx) => noticeChange(ctx, trx, change))
    expect(kinds(await sent())).toEqual(['/project Issue Hook issue'])
  })
})
