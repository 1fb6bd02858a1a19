import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'
import { GitClient } from '../../../testing/git.js'
import { client } from '../../../testing/http.js'
import { cloneProject, createPerson, createRepositoryProject, type Person } from '../../../testing/repositories.js'
import type { TestServer } from '../../../testing/server.js'
import type { HookPayload } from './index.js'
import { expectedHookProject, startNoticingServer, type Noticed } from './testing.js'

const seen = vi.hoisted(() => [] as Noticed[])
vi.mock('../../change-notices/index.js', async (original) => {
  const { keepingNotices } = await import('./testing.js')
  return keepingNotices(await original(), seen)
})

let server: TestServer
let request: ReturnType<typeof client>
let owner: Person
const git = new GitClient()
const ZERO = '0'.repeat(40)

beforeAll(async () => {
  server = await startNoticingServer()
  request = client(`${server.url}/api/v4`)
  owner = await createPerson(server.database.db, 'olga')
})
afterAll(async () => {
  await server.close()
  git.remove()
})
beforeEach(() => {
  seen.length = 0
})

function pushPayloadsSeen(): HookPayload[][] {
  return seen.filter((noticed) => noticed.change.kind === 'push').map((noticed) => noticed.payloads)
}

/** A commit of the work tree `dir` as Commit#hook_attrs shows it, with its files. */
async function commitJson(
  dir: string,
  projectPath: string,
  oid: string,
  files: { added?: string[]; modified?: string[]; removed?: string[] },
) {
  const [message, date, name, email] = (await git.ok(dir, 'show', '--no-patch', '--format=%B%x00%cI%x00%an%x00%ae', oid)).split('\0')
  return {
    id: oid,
    message,
    title: message.split('\n')[0],
    timestamp: date,
    url: `${server.url}/${projectPath}/-/commit/${oid}`,
    author: { name, email: email.trim() },
    added: files.added ?? [],
    modified: files.modified ?? [],
    removed: files.removed ?? [],
  }
}

async function commitIn(dir: string, files: Record<string, string | null>, message: string): Promise<string> {
  for (const [name, content] of Object.entries(files)) {
    if (content === null) await git.ok(dir, 'rm', '--quiet', name)
    else {
      fs.writeFileSync(path.join(dir, name), content)
      await git.ok(dir, 'add', name)
    }
  }
  await git.ok(dir, 'commit', '--quiet', '-m', message)
  return (await git.ok(dir, 'rev-parse', 'HEAD')).trim()
}

describe('Push Hook and Tag Push Hook', () => {
  test('a branch pushed over git: GitLab’s body with its commits and their files, for project and system hooks', async () => {
    const created = await createRepositoryProject(request, owner, { path: 'pushed' })
    const project = await server.database.db.selectFrom('projects').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow()
    const dir = await cloneProject(server, git, owner, project.full_path)
    const before = (await git.ok(dir, 'rev-parse', 'HEAD')).trim()
    const first = await commitIn(dir, { 'a.txt': 'a\n', 'README.md': 'changed\n' }, 'Add a\n\nAnd change the README.')
    const second = await commitIn(dir, { 'a.txt': null, 'b.txt': 'b\n' }, 'Swap a for b')
    seen.length = 0
    await git.ok(dir, 'push', '--quiet', 'origin', 'main')
    const projectJson = expectedHookProject(server.url, project, owner.user.name)
    const body = {
      object_kind: 'push',
      event_name: 'push',
      before,
      after: second,
      ref: 'refs/heads/main',
      ref_protected: true,
      checkout_sha: second,
      message: null,
      user_id: owner.user.id,
      user_name: owner.user.name,
      user_username: owner.user.username,
      user_email: null,
      user_avatar: expect.stringMatching(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{32}\?s=80&d=identicon$/),
      project_id: project.id,
      project: projectJson,
      commits: [
        await commitJson(dir, project.full_path, first, { added: ['a.txt'], modified: ['README.md'] }),
        await commitJson(dir, project.full_path, second, { added: ['b.txt'], removed: ['a.txt'] }),
      ],
      total_commits_count: 2,
      push_options: {},
      repository: {
        name: project.name,
        url: projectJson.url,
        description: project.description,
        homepage: projectJson.homepage,
        git_http_url: projectJson.git_http_url,
        git_ssh_url: projectJson.git_ssh_url,
        visibility_level: project.visibility_level,
      },
    }
    expect(pushPayloadsSeen()).toEqual([
      [
        { event: 'Push Hook', trigger: 'push_events', scope: 'project', branch: 'main', body },
        {
          event: 'System Hook',
          trigger: 'repository_update_events',
          scope: 'system',
          body: {
            event_name: 'repository_update',
            user_id: owner.user.id,
            user_name: owner.user.name,
            user_email: owner.user.email,
            user_avatar: body.user_avatar,
            project_id: project.id,
            project: projectJson,
            changes: [{ before, after: second, ref: 'refs/heads/main' }],
            refs: ['refs/heads/main'],
          },
        },
      ],
    ])
    expect(Object.keys(pushPayloadsSeen()[0][0].body)).toEqual(Object.keys(body))
  })

  test('more than 20 commits: the newest 20, oldest first, and the whole count; a new branch counts what main lacks', async () => {
    const created = await createRepositoryProject(request, owner, { path: 'many' })
    const dir = await cloneProject(server, git, owner, created.path_with_namespace)
    await git.ok(dir, 'checkout', '--quiet', '-b', 'topic')
    const oids: string[] = []
    for (let n = 1; n <= 23; n += 1) oids.push(await commitIn(dir, { [`f${n}.txt`]: `${n}\n` }, `Commit ${n}`))
    seen.length = 0
    await git.ok(dir, 'push', '--quiet', 'origin', 'topic')
    const [[pushed]] = pushPayloadsSeen()
    expect(pushed.body).toMatchObject({ before: ZERO, after: oids[22], ref_protected: false, total_commits_count: 23 })
    expect((pushed.body.commits as { id: string }[]).map((commit) => commit.id)).toEqual(oids.slice(3))

    seen.length = 0
    await git.ok(dir, 'push', '--quiet', 'origin', ':topic')
    const [[removed]] = pushPayloadsSeen()
    expect(removed.body).toMatchObject({ before: oids[22], after: ZERO, checkout_sha: null, commits: [], total_commits_count: 0 })
  })

  test('repository_update tells a push once with every ref; more than three branches created at once run no push hooks', async () => {
    const created = await createRepositoryProject(request, owner, { path: 'limited' })
    const dir = await cloneProject(server, git, owner, created.path_with_namespace)
    const head = (await git.ok(dir, 'rev-parse', 'HEAD')).trim()
    seen.length = 0
    await git.ok(dir, 'push', '--quiet', 'origin', 'main:a', 'main:b', 'main:c')
    const triggers = () => pushPayloadsSeen().map((payloads) => payloads.map((payload) => `${payload.scope} ${payload.trigger}`))
    expect(triggers()).toEqual([
      ['project push_events', 'system repository_update_events'],
      ['project push_events'],
      ['project push_events'],
    ])
    const update = pushPayloadsSeen()[0][1].body
    expect([update.changes, update.refs]).toEqual([
      ['a', 'b', 'c'].map((branch) => ({ before: ZERO, after: head, ref: `refs/heads/${branch}` })),
      ['refs/heads/a', 'refs/heads/b', 'refs/heads/c'],
    ])

    seen.length = 0
    await git.ok(dir, 'push', '--quiet', 'origin', 'main:d', 'main:e', 'main:f', 'main:g')
    expect(triggers()).toEqual([['system repository_update_events'], [], [], []])
  })

  test('a tag: Tag Push Hook with its message and the commit it points at; its deletion with none', async () => {
    const created = await createRepositoryProject(request, owner, { path: 'tagged' })
    const main = await request('GET', `/projects/${created.id}/repository/branches/main`, { token: owner.token })
    seen.length = 0
    const tagged = await request('POST', `/projects/${created.id}/repository/tags`, {
      token: owner.token,
      body: { tag_name: 'v1.0', ref: 'main', message: 'First release' },
    })
    expect(tagged.status, tagged.text).toBe(201)
    const [[project, update]] = pushPayloadsSeen()
    expect([project.event, project.trigger, project.scope, 'branch' in project]).toEqual([
      'Tag Push Hook',
      'tag_push_events',
      'project',
      false,
    ])
    expect([update.event, update.trigger, update.scope]).toEqual(['System Hook', 'repository_update_events', 'system'])
    expect(project.body).toMatchObject({
      object_kind: 'tag_push',
      event_name: 'tag_push',
      before: ZERO,
      after: tagged.body.target,
      ref: 'refs/tags/v1.0',
      ref_protected: false,
      checkout_sha: main.body.commit.id,
      message: 'First release',
      total_commits_count: 1,
    })
    expect((project.body.commits as { id: string }[]).map((commit) => commit.id)).toEqual([main.body.commit.id])

    seen.length = 0
    const deleted = await request('DELETE', `/projects/${created.id}/repository/tags/v1.0`, { token: owner.token })
    expect(deleted.status, deleted.text).toBe(204)
    expect(pushPayloadsSeen()[0][0].body).toMatchObject({
      before: tagged.body.target,
      after: ZERO,
      checkout_sha: null,
      message: null,
      commits: [],
      total_commits_count: 0,
    })
  })
})
