import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'
import { GitClient } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { cloneProject, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import type { TestServer } from '../../testing/server.js'
import { startNoticingServer, type Noticed } from '../webhooks/payloads/testing.js'

const seen = vi.hoisted(() => [] as Noticed[])
vi.mock('../change-notices/index.js', async (original) => {
  const { keepingNotices } = await import('../webhooks/payloads/testing.js')
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

const AT = new Date('2026-11-20T10:00:00.000Z')

function pushesSeen() {
  return seen.map((noticed) => noticed.change)
}

describe('every ref a push moves is told, in the transaction that records it', () => {
  test('git over HTTP: a branch updated, a branch and a tag created, then both deleted', async () => {
    const project = await createRepositoryProject(request, owner, { path: 'pushed' })
    const dir = await cloneProject(server, git, owner, project.path_with_namespace)
    const before = (await git.ok(dir, 'rev-parse', 'HEAD')).trim()
    fs.writeFileSync(path.join(dir, 'a.txt'), 'a\n')
    await git.ok(dir, 'add', 'a.txt')
    await git.ok(dir, 'commit', '--quiet', '-m', 'Add a')
    const after = (await git.ok(dir, 'rev-parse', 'HEAD')).trim()
    await git.ok(dir, 'tag', 'v1')
    seen.length = 0
    server.freeze(AT)
    await git.ok(dir, 'push', '--quiet', 'origin', 'main', 'main:topic', 'v1')
    const subject = { kind: 'push', projectId: project.id, actorId: owner.user.id, at: AT }
    expect(pushesSeen()).toEqual([
      { ...subject, ref: 'refs/heads/main', before, after },
      { ...subject, ref: 'refs/heads/topic', before: ZERO, after },
      { ...subject, ref: 'refs/tags/v1', before: ZERO, after },
    ])

    seen.length = 0
    await git.ok(dir, 'push', '--quiet', 'origin', ':topic', ':v1')
    expect(pushesSeen()).toEqual([
      { ...subject, ref: 'refs/heads/topic', before: after, after: ZERO },
      { ...subject, ref: 'refs/tags/v1', before: after, after: ZERO },
    ])
  })

  test('the API: a branch and a tag created and deleted', async () => {
    const project = await createRepositoryProject(request, owner, { path: 'api-refs' })
    const main = await request('GET', `/projects/${project.id}/repository/branches/main`, { token: owner.token })
    const head = main.body.commit.id
    seen.length = 0
    server.freeze(AT)
    const calls: [string, string, Record<string, unknown>?][] = [
      ['POST', `/projects/${project.id}/repository/branches`, { branch: 'topic', ref: 'main' }],
      ['DELETE', `/projects/${project.id}/repository/branches/topic`],
      ['POST', `/projects/${project.id}/repository/tags`, { tag_name: 'v1', ref: 'main' }],
      ['DELETE', `/projects/${project.id}/repository/tags/v1`],
    ]
    for (const [method, url, body] of calls) {
      const res = await request(method, url, { token: owner.token, body })
      expect(res.status, res.text).toBeLessThan(300)
    }
    const subject = { kind: 'push', projectId: project.id, actorId: owner.user.id, at: AT }
    expect(pushesSeen()).toEqual([
      { ...subject, ref: 'refs/heads/topic', before: ZERO, after: head },
      { ...subject, ref: 'refs/heads/topic', before: head, after: ZERO },
      { ...subject, ref: 'refs/tags/v1', before: ZERO, after: head },
      { ...subject, ref: 'refs/tags/v1', before: head, after: ZERO },
    ])
  })
})
