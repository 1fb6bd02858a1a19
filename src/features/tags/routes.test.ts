import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { GitClient } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { addProjectMember, cloneProject, createRepositoryProject, type Person } from '../../testing/repositories.js'

let server: TestServer
let request: ReturnType<typeof client>
const gitClient = new GitClient()
const gitOk = (cwd: string, ...args: string[]) => gitClient.ok(cwd, ...args)

let sequence = 0

async function person(): Promise<Person> {
  sequence += 1
  const username = `tagger${sequence}`
  const password = `${username}-secret-1`
  const user = await createTestUser(server.database.db, {
    username,
    name: `Tagger ${sequence}`,
    email: `${username}@example.com`,
    password,
  })
  return { user, token: (await createTestToken(server.database.db, user)).value, password }
}

let owner: Person
let developer: Person
let reporter: Person
let project: Record<string, any>
let dir: string
let main: string

beforeAll(async () => {
  server = await startTestServer()
  request = client(`${server.url}/api/v4`)
  owner = await person()
  developer = await person()
  reporter = await person()
  project = await createRepositoryProject(request, owner, { name: 'Tags' })
  await addProjectMember(server.database.db, developer, project.id, 30)
  await addProjectMember(server.database.db, reporter, project.id, 20)
  dir = await cloneProject(server, gitClient, owner, project.path_with_namespace)
  main = (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
})

afterAll(async () => {
  await server.close()
  gitClient.remove()
})

describe('creating tags', () => {
  test('a message makes an annotated tag by the caller; none a lightweight one', async () => {
    const annotated = await request('POST', `/projects/${project.id}/repository/tags`, {
      token: developer.token,
      body: { tag_name: 'v1.0.0', ref: 'main', message: '  Release 1.0.0\n' },
    })
    expect(annotated.status, annotated.text).toBe(201)
    expect(Object.keys(annotated.body)).toEqual(['name', 'message', 'target', 'commit', 'release', 'protected', 'created_at'])
    expect(annotated.body).toMatchObject({ name: 'v1.0.0', message: 'Release 1.0.0', release: null, protected: false })
    expect(annotated.body.target).not.toBe(main)
    expect(annotated.body.commit.id).toBe(main)
    expect(annotated.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000\+00:00$/)
    await gitOk(dir, 'fetch', '--quiet', '--tags', 'origin')
    expect((await gitOk(dir, 'cat-file', '-t', 'v1.0.0')).trim()).toBe('tag')
    expect(await gitOk(dir, 'for-each-ref', '--format=%(taggername) %(taggeremail)|%(contents)', 'refs/tags/v1.0.0')).toBe(
      `${developer.user.name} <${developer.user.email}>|Release 1.0.0\n\n`,
    )
    expect((await gitOk(dir, 'rev-parse', 'v1.0.0')).trim()).toBe(annotated.body.target)

    const light = await request('POST', `/projects/${project.id}/repository/tags`, {
      token: developer.token,
      body: { tag_name: 'light', ref: main },
    })
    expect(light.status).toBe(201)
    expect(light.body).toMatchObject({ name: 'light', message: '', target: main, created_at: null })
    expect(light.body.commit).toMatchObject({ id: main, short_id: main.slice(0, 8) })
  })

  test("GitLab's 400s: existing names, invalid names, unknown targets; nothing changes", async () => {
    const create = (body: Record<string, unknown>) =>
      request('POST', `/projects/${project.id}/repository/tags`, { token: developer.token, body })
    await create({ tag_name: 'dup', ref: 'main' })
    const dup = await create({ tag_name: 'dup', ref: 'main', message: 'again' })
    expect(dup.status).toBe(400)
    expect(dup.body).toEqual({ message: 'Tag dup already exists' })
    for (const name of ['bad name', 'a..b', '-x', 'refs/heads/x', 'HEAD', 'x.lock', 'end/', 'a~1', 'a:b', '.hidden', 'x@{1}']) {
      const res = await create({ tag_name: name, ref: 'main' })
      expect(res.status, name).toBe(400)
      expect(res.body, name).toEqual({ message: 'Tag name invalid' })
    }
    for (const ref of ['nope', '--all', 'main\nx', 'f'.repeat(40)]) {
      const res = await create({ tag_name: 'never', ref })
      expect(res.status, ref).toBe(400)
      expect(res.body, ref).toEqual({ message: `Target ${ref} is invalid` })
    }
    const empty = await create({ tag_name: 'never', ref: ' ' })
    expect(empty.status).toBe(400)
    expect(empty.body).toEqual({ message: 'Target is empty' })
    const missing = await request('POST', `/projects/${project.id}/repository/tags`, { token: developer.token, body: { ref: 'main' } })
    expect(missing.status).toBe(400)
    expect((await gitClient.run(dir, 'ls-remote', '--exit-code', 'origin', 'refs/tags/never')).code).toBe(2)
  })

  test('a tagger whose name has angle brackets and a line break is written as git takes it, never a 5xx', async () => {
    const odd = await createTestUser(server.database.db, { username: 'oddname', name: 'Odd <x>\nName' })
    await addProjectMember(server.database.db, { user: odd, token: '', password: '' }, project.id, 40)
    const token = (await createTestToken(server.database.db, odd)).value
    const res = await request('POST', `/projects/${project.id}/repository/tags`, {
      token,
      body: { tag_name: 'odd-tagger', ref: 'main', message: 'Odd' },
    })
    expect([res.status, res.body.name, res.body.message]).toEqual([201, 'odd-tagger', 'Odd'])
    expect((await gitOk(dir, 'ls-remote', '--tags', 'origin', 'odd-tagger')).trim()).toMatch(/refs\/tags\/odd-tagger$/)
    const tagger = await gitOk(dir, 'fetch', '-q', 'origin', 'refs/tags/odd-tagger:refs/tags/odd-tagger').then(() =>
      gitOk(dir, 'for-each-ref', '--format=%(taggername) %(taggeremail)', 'refs/tags/odd-tagger'),
    )
    expect(tagger.trim()).toBe(`Odd xName <${odd.email}>`)
  })

  test('Reporters may not create or delete tags: 403', async () => {
    const res = await request('POST', `/projects/${project.id}/repository/tags`, {
      token: reporter.token,
      body: { tag_name: 'r', ref: 'main' },
    })
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ message: '403 Forbidden' })
    const del = await request('DELETE', `/projects/${project.id}/repository/tags/light`, { token: reporter.token })
    expect(del.status).toBe(403)
  })
})

describe('reading tags', () => {
  test('a missing tag answers 404 Tag Not Found; names with slashes are encoded', async () => {
    const res = await request('GET', `/projects/${project.id}/repository/tags/nope`, { token: reporter.token })
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ message: '404 Tag Not Found' })
    await request('POST', `/projects/${project.id}/repository/tags`, {
      token: developer.token,
      body: { tag_name: 'release/2', ref: 'main' },
    })
    const slashed = await request('GET', `/projects/${project.id}/repository/tags/release%2F2`, { token: reporter.token })
    expect(slashed.status).toBe(200)
    expect(slashed.body.name).toBe('release/2')
    const prefix = await request('GET', `/projects/${project.id}/repository/tags/release`, { token: reporter.token })
    expect(prefix.status).toBe(404)
  })

  test('order_by, sort and search with ^ and $', async () => {
    for (const name of ['v1.10', 'v1.9', 'v1.2']) {
      await request('POST', `/projects/${project.id}/repository/tags`, { token: developer.token, body: { tag_name: name, ref: 'main' } })
    }
    const names = async (query: string) => {
      const res = await request('GET', `/projects/${project.id}/repository/tags?${query}`, { token: reporter.token })
      expect(res.status, res.text).toBe(200)
      return res.body.map((tag: any) => tag.name)
    }
    expect(await names('order_by=version&sort=asc&search=^v1.')).toEqual(['v1.0.0', 'v1.2', 'v1.9', 'v1.10'])
    expect(await names('order_by=name&sort=asc&search=^v1.')).toEqual(['v1.0.0', 'v1.10', 'v1.2', 'v1.9'])
    expect(await names('order_by=name&sort=desc&search=0$')).toEqual(['v1.10', 'v1.0.0'])
    expect(await names('search=V1.9')).toEqual(['v1.9'])
    const paged = await request('GET', `/projects/${project.id}/repository/tags?order_by=name&sort=asc&per_page=2&page=2`, {
      token: reporter.token,
    })
    const everything = await names('per_page=100')
    expect(paged.headers['x-total']).toBe(String(everything.length))
    expect(paged.body.map((tag: any) => tag.name)).toEqual([...everything].sort().slice(2, 4))
    expect(paged.headers['x-page']).toBe('2')
    const bad = await request('GET', `/projects/${project.id}/repository/tags?order_by=size`, { token: reporter.token })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'order_by does not have a valid value' })
  })
})

describe('protected tags', () => {
  test('a protected tag shows protected: true; a Developer may not create one under a Maintainers rule', async () => {
    const protect = await request('POST', `/projects/${project.id}/protected_tags`, {
      token: owner.token,
      body: { name: 'rel-*', create_access_level: 40 },
    })
    expect(protect.status, protect.text).toBe(201)
    const refused = await request('POST', `/projects/${project.id}/repository/tags`, {
      token: developer.token,
      body: { tag_name: 'rel-1', ref: 'main' },
    })
    expect(refused.status).toBe(400)
    expect(typeof refused.body.message).toBe('string')
    expect((await request('GET', `/projects/${project.id}/repository/tags/rel-1`, { token: developer.token })).status).toBe(404)
    const created = await request('POST', `/projects/${project.id}/repository/tags`, {
      token: owner.token,
      body: { tag_name: 'rel-2', ref: 'main' },
    })
    expect(created.status).toBe(201)
    expect(created.body.protected).toBe(true)
    const listed = await request('GET', `/projects/${project.id}/repository/tags?search=rel-`, { token: developer.token })
    expect(listed.body.map((tag: any) => [tag.name, tag.protected])).toEqual([['rel-2', true]])
  })
})

describe('deleting tags', () => {
  test('204, then gone; a second delete is 404; If-Unmodified-Since before the commit is 412', async () => {
    await request('POST', `/projects/${project.id}/repository/tags`, { token: developer.token, body: { tag_name: 'doomed', ref: 'main' } })
    const early = await request('DELETE', `/projects/${project.id}/repository/tags/doomed`, {
      token: developer.token,
      headers: { 'if-unmodified-since': 'Thu, 01 Jan 2015 00:00:00 GMT' },
    })
    expect(early.status).toBe(412)
    const res = await request('DELETE', `/projects/${project.id}/repository/tags/doomed`, { token: developer.token })
    expect(res.status).toBe(204)
    expect(res.text).toBe('')
    const again = await request('DELETE', `/projects/${project.id}/repository/tags/doomed`, { token: developer.token })
    expect(again.status).toBe(404)
    expect(again.body).toEqual({ message: '404 Tag Not Found' })
  })
})

describe('a repository being moved', () => {
  test('takes no tag changes: 400 read-only, nothing changes', async () => {
    const db = server.database.db
    await db.updateTable('projects').set({ repository_read_only: 1 }).where('id', '=', project.id).execute()
    try {
      const created = await request('POST', `/projects/${project.id}/repository/tags`, {
        token: owner.token,
        body: { tag_name: 'ro', ref: 'main' },
      })
      expect(created.status).toBe(400)
      expect(created.body).toEqual({ message: 'The repository is temporarily read-only. Please try again later.' })
      const deleted = await request('DELETE', `/projects/${project.id}/repository/tags/light`, { token: owner.token })
      expect(deleted.status).toBe(400)
      expect((await request('GET', `/projects/${project.id}/repository/tags/light`, { token: owner.token })).status).toBe(200)
    } finally {
      await db.updateTable('projects').set({ repository_read_only: 0 }).where('id', '=', project.id).execute()
    }
  })
})

describe('gitbeaker', () => {
  test('Tags.create, all, show and remove', async () => {
    const api = new Gitlab({ host: server.url, token: developer.token })
    const created = await api.Tags.create(project.id, 'gb-1', 'main', { message: 'From gitbeaker' })
    expect(created).toMatchObject({ name: 'gb-1', message: 'From gitbeaker', commit: expect.objectContaining({ id: main }) })
    const all = await api.Tags.all(project.id, { search: 'gb-' })
    expect(all.map((tag) => tag.name)).toEqual(['gb-1'])
    const shown = await api.Tags.show(project.id, 'gb-1')
    expect(shown.target).toBe(created.target)
    await api.Tags.remove(project.id, 'gb-1')
    await expect(api.Tags.show(project.id, 'gb-1')).rejects.toThrow()
  })
})
