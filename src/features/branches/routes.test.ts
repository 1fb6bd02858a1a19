import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { GitClient } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { addProjectMember, cloneProject, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'

let server: TestServer
let request: ReturnType<typeof client>
let db: TestServer['database']['db']
const gitClient = new GitClient()
const gitOk = (cwd: string, ...args: string[]) => gitClient.ok(cwd, ...args)

let sequence = 0

/** A public project with a README commit on main, made through the API by `owner`. */
function repository(body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  sequence += 1
  return createRepositoryProject(request, owner, { name: `Repo ${sequence}`, ...body })
}

let owner: Person
let developer: Person
let reporter: Person

beforeAll(async () => {
  server = await startTestServer()
  request = client(`${server.url}/api/v4`)
  db = server.database.db
  owner = await createPerson(db, 'olive')
  developer = await createPerson(db, 'dev')
  reporter = await createPerson(db, 'rita')
})

afterAll(async () => {
  await server.close()
  gitClient.remove()
})

const encoded = (name: string) => encodeURIComponent(name)

describe('a branch', () => {
  test('reads as GitLab shows it: its commit, protection and what the caller may do', async () => {
    const project = await repository()
    await addProjectMember(db, developer, project.id, 30)
    const res = await request('GET', `/projects/${project.id}/repository/branches/main`, { token: developer.token })
    expect(res.status, res.text).toBe(200)
    const sha = res.body.commit.id
    expect(res.body).toEqual({
      name: 'main',
      commit: {
        id: sha,
        short_id: sha.slice(0, 8),
        created_at: expect.any(String),
        parent_ids: [],
        title: 'Initial commit',
        // Kept as given, without the line feed `git commit -m` would add (Gitaly's UserCommitFiles).
        message: 'Initial commit',
        author_name: 'Olive',
        author_email: owner.user.email,
        authored_date: expect.any(String),
        committer_name: 'Olive',
        committer_email: owner.user.email,
        committed_date: expect.any(String),
        trailers: {},
        extended_trailers: {},
        web_url: `${server.url}/${project.path_with_namespace}/-/commit/${sha}`,
      },
      merged: false,
      protected: true,
      developers_can_push: false,
      developers_can_merge: false,
      can_push: false,
      default: true,
      web_url: `${server.url}/${project.path_with_namespace}/-/tree/main`,
    })
    expect(Object.keys(res.body)).toEqual([
      'name',
      'commit',
      'merged',
      'protected',
      'developers_can_push',
      'developers_can_merge',
      'can_push',
      'default',
      'web_url',
    ])
    const asOwner = await request('GET', `/projects/${project.id}/repository/branches/main`, { token: owner.token })
    expect(asOwner.body.can_push).toBe(true)
  })

  test('is created from a branch, a tag or a sha, with slashes in its name, and deleted', async () => {
    const project = await repository()
    await addProjectMember(db, developer, project.id, 30)
    const main = (await request('GET', `/projects/${project.id}/repository/branches/main`, { token: owner.token })).body.commit.id
    const created = await request('POST', `/projects/${project.id}/repository/branches`, {
      token: developer.token,
      body: { branch: 'feature/one', ref: 'main' },
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body).toMatchObject({
      name: 'feature/one',
      merged: false,
      protected: false,
      developers_can_push: false,
      developers_can_merge: false,
      can_push: true,
      default: false,
      web_url: `${server.url}/${project.path_with_namespace}/-/tree/feature/one`,
    })
    expect(created.body.commit.id).toBe(main)
    const fromSha = await request('POST', `/projects/${project.id}/repository/branches`, {
      token: developer.token,
      body: { branch: 'from-sha', ref: main },
    })
    expect(fromSha.status, fromSha.text).toBe(201)

    const shown = await request('GET', `/projects/${project.id}/repository/branches/${encoded('feature/one')}`, { token: developer.token })
    expect(shown.status).toBe(200)
    expect(shown.body.name).toBe('feature/one')
    const head = await fetch(`${server.url}/api/v4/projects/${project.id}/repository/branches/${encoded('feature/one')}`, {
      method: 'HEAD',
      headers: { 'private-token': developer.token },
    })
    expect(head.status).toBe(204)
    const headMissing = await fetch(`${server.url}/api/v4/projects/${project.id}/repository/branches/nope`, {
      method: 'HEAD',
      headers: { 'private-token': developer.token },
    })
    expect(headMissing.status).toBe(404)

    const deleted = await request('DELETE', `/projects/${project.id}/repository/branches/${encoded('feature/one')}`, {
      token: developer.token,
    })
    expect(deleted.status, deleted.text).toBe(204)
    expect(deleted.text).toBe('')
    const gone = await request('GET', `/projects/${project.id}/repository/branches/${encoded('feature/one')}`, { token: developer.token })
    expect(gone.status).toBe(404)
    expect(gone.body).toEqual({ message: '404 Branch Not Found' })

    // As GitLab's post-receive records them: a new branch, and a removed one, by the developer.
    const events = await request('GET', `/projects/${project.id}/events?action=pushed&sort=asc`, { token: owner.token })
    expect(events.body.map((event: Record<string, any>) => [event.action_name, event.author_id, event.push_data])).toEqual([
      [
        'pushed new',
        developer.user.id,
        {
          commit_count: 0,
          action: 'created',
          ref_type: 'branch',
          commit_from: null,
          commit_to: main,
          ref: 'feature/one',
          commit_title: null,
          ref_count: null,
        },
      ],
      ['pushed new', developer.user.id, expect.objectContaining({ action: 'created', ref: 'from-sha' })],
      [
        'deleted',
        developer.user.id,
        {
          commit_count: 0,
          action: 'removed',
          ref_type: 'branch',
          commit_from: main,
          commit_to: null,
          ref: 'feature/one',
          commit_title: null,
          ref_count: null,
        },
      ],
    ])
  })

  test('creation refuses what GitLab refuses, with its messages, and changes nothing', async () => {
    const project = await repository()
    await addProjectMember(db, developer, project.id, 30)
    await addProjectMember(db, reporter, project.id, 20)
    const create = (who: Person, body: Record<string, unknown>) =>
      request('POST', `/projects/${project.id}/repository/branches`, { token: who.token, body })
    expect(await create(developer, { branch: 'main', ref: 'main' })).toMatchObject({
      status: 400,
      body: { message: 'Branch already exists' },
    })
    for (const name of ['a..b', 'bad name', 'ends/', '-dash', 'refs/heads/x', 'HEAD', 'x.lock', 'a:b', 'a~1', 'a^b', 'x@{1}', '.hidden']) {
      const res = await create(developer, { branch: name, ref: 'main' })
      expect(res.status, name).toBe(400)
      expect(res.body, name).toEqual({ message: 'Branch name is invalid' })
    }
    // A NUL byte is refused before any route, as GitLab's malformed-strings middleware does.
    expect((await create(developer, { branch: 'a\u0000b', ref: 'main' })).status).toBe(400)
    expect(await create(developer, { branch: 'x', ref: 'nope' })).toMatchObject({
      status: 400,
      body: { message: "Failed to create branch 'x': invalid reference name 'nope'" },
    })
    expect(await create(developer, { branch: 'x', ref: 'main\nmain' })).toMatchObject({ status: 400 })
    expect(await create(developer, { branch: 'x', ref: '../../etc/passwd' })).toMatchObject({ status: 400 })
    expect(await create(developer, { branch: '', ref: 'main' })).toMatchObject({ status: 400, body: { error: 'branch is empty' } })
    expect(await create(developer, { branch: 'x' })).toMatchObject({ status: 400, body: { message: '400 (Bad request) "ref" not given' } })
    expect(await create(reporter, { branch: 'x', ref: 'main' })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } })
    await create(developer, { branch: 'tree', ref: 'main' })
    expect(await create(developer, { branch: 'tree/leaf', ref: 'main' })).toMatchObject({
      status: 400,
      body: { message: "Failed to create branch 'tree/leaf': Branch name conflicts with existing branch hierarchy." },
    })
    const list = await request('GET', `/projects/${project.id}/repository/branches`, { token: developer.token })
    expect(list.body.map((branch: { name: string }) => branch.name)).toEqual(['main', 'tree'])
  })

  test('creation takes the names GitLab takes: a refs/tags/ prefix, an @ inside, a 64-character hexadecimal name', async () => {
    const project = await repository()
    const names = ['refs/tags/v1', 'implement_@all', '#1', 'a'.repeat(64)]
    for (const name of names) {
      const res = await request('POST', `/projects/${project.id}/repository/branches`, {
        token: owner.token,
        body: { branch: name, ref: 'main' },
      })
      expect(res.status, res.text).toBe(201)
      expect(res.body.name).toBe(name)
    }
    const list = await request('GET', `/projects/${project.id}/repository/branches`, { token: owner.token })
    expect(list.body.map((branch: { name: string }) => branch.name).sort()).toEqual([...names, 'main'].sort())
  })

  test('deletion refuses the default branch and, below Maintainer, protected ones', async () => {
    const project = await repository()
    await addProjectMember(db, developer, project.id, 30)
    await addProjectMember(db, reporter, project.id, 20)
    const main = await request('DELETE', `/projects/${project.id}/repository/branches/main`, { token: owner.token })
    expect(main).toMatchObject({ status: 400, body: { message: 'The default branch of a project cannot be deleted.' } })
    await request('POST', `/projects/${project.id}/protected_branches`, { token: owner.token, body: { name: 'release/*' } })
    await request('POST', `/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: 'release/1', ref: 'main' } })
    const byDeveloper = await request('DELETE', `/projects/${project.id}/repository/branches/${encoded('release/1')}`, {
      token: developer.token,
    })
    expect(byDeveloper.status).toBe(400)
    expect(byDeveloper.body).toEqual({
      message:
        'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
    })
    const byReporter = await request('DELETE', `/projects/${project.id}/repository/branches/${encoded('release/1')}`, {
      token: reporter.token,
    })
    expect(byReporter.status).toBe(403)
    const missing = await request('DELETE', `/projects/${project.id}/repository/branches/nope`, { token: developer.token })
    expect(missing).toMatchObject({ status: 404, body: { message: '404 Branch Not Found' } })
    const byOwner = await request('DELETE', `/projects/${project.id}/repository/branches/${encoded('release/1')}`, { token: owner.token })
    expect(byOwner.status, byOwner.text).toBe(204)
  })

  test('requests racing to create or delete one branch: one wins, the others get GitLab 4xx answers', async () => {
    const project = await repository()
    const creations = await Promise.all(
      Array.from({ length: 6 }, () =>
        request('POST', `/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: 'race', ref: 'main' } }),
      ),
    )
    expect(creations.filter((res) => res.status === 201)).toHaveLength(1)
    for (const res of creations.filter((res) => res.status !== 201))
      expect([res.status, res.body]).toEqual([400, { message: 'Branch already exists' }])
    const deletions = await Promise.all(
      Array.from({ length: 6 }, () => request('DELETE', `/projects/${project.id}/repository/branches/race`, { token: owner.token })),
    )
    expect(deletions.filter((res) => res.status === 204)).toHaveLength(1)
    for (const res of deletions.filter((res) => res.status !== 204)) {
      expect([
        [400, { message: 'Failed to remove branch' }],
        [404, { message: '404 Branch Not Found' }],
      ]).toContainEqual([res.status, res.body])
    }
  })

  test('a name git would read as more than a branch is no branch: 404, never a 5xx', async () => {
    const project = await repository()
    for (const name of [
      'main^',
      'main~1',
      'main:README.md',
      'main@{0}',
      '../../etc/passwd',
      '/main',
      'HEAD',
      '-main',
      'refs/heads/main',
      'a b',
    ]) {
      const res = await request('GET', `/projects/${project.id}/repository/branches/${encoded(name)}`, { token: owner.token })
      expect([res.status, res.body], name).toEqual([404, { message: '404 Branch Not Found' }])
      const removed = await request('DELETE', `/projects/${project.id}/repository/branches/${encoded(name)}`, { token: owner.token })
      expect(removed.status, name).toBe(404)
    }
    const unknownProject = await request('GET', '/projects/999999/repository/branches/main', { token: owner.token })
    expect([unknownProject.status, unknownProject.body]).toEqual([404, { message: '404 Project Not Found' }])
  })

  test('a branch in an empty repository starts from a README on the default branch', async () => {
    sequence += 1
    const made = await request('POST', '/projects', { token: owner.token, body: { name: `Empty ${sequence}` } })
    expect(made.body.empty_repo).toBe(true)
    const res = await request('POST', `/projects/${made.body.id}/repository/branches`, {
      token: owner.token,
      body: { branch: 'feature', ref: 'main' },
    })
    expect(res.status, res.text).toBe(201)
    expect(res.body.commit.title).toBe('Add README.md')
    const project = await request('GET', `/projects/${made.body.id}`, { token: owner.token })
    expect(project.body.empty_repo).toBe(false)
    expect(project.body.default_branch).toBe('main')
  })
})

describe("the branches API's own protect and unprotect", () => {
  test('Maintainers protect a branch by name, Developers allowed as asked, and unprotect it', async () => {
    const project = await repository()
    await addProjectMember(db, developer, project.id, 30)
    await request('POST', `/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: 'topic/x', ref: 'main' } })
    const path = `/projects/${project.id}/repository/branches/${encoded('topic/x')}`
    const byDeveloper = await request('PUT', `${path}/protect`, { token: developer.token })
    expect([byDeveloper.status, byDeveloper.body]).toEqual([403, { message: '403 Forbidden' }])
    const missing = await request('PUT', `/projects/${project.id}/repository/branches/nope/protect`, { token: owner.token })
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Branch Not Found' }])

    const res = await request('PUT', `${path}/protect`, { token: owner.token, body: { developers_can_merge: true } })
    expect(res.status, res.text).toBe(200)
    expect(res.body).toMatchObject({
      name: 'topic/x',
      protected: true,
      developers_can_push: false,
      developers_can_merge: true,
      can_push: true,
    })
    const asDeveloper = await request('GET', path, { token: developer.token })
    expect(asDeveloper.body).toMatchObject({ protected: true, can_push: false })
    const again = await request('PUT', `${path}/protect`, { token: owner.token, body: { developers_can_push: true } })
    expect(again.body).toMatchObject({ developers_can_push: true, developers_can_merge: true })
    const rules = await request('GET', `/projects/${project.id}/protected_branches/${encoded('topic/x')}`, { token: owner.token })
    expect(rules.body.push_access_levels).toEqual([
      { id: expect.any(Number), access_level: 30, access_level_description: 'Developers + Maintainers' },
    ])

    const unprotected = await request('PUT', `${path}/unprotect`, { token: owner.token })
    expect(unprotected.status).toBe(200)
    expect(unprotected.body).toMatchObject({ protected: false, developers_can_push: false, developers_can_merge: false })
  })
})

describe('the branch list', () => {
  test('is sorted by name, searched with anchors and paged with the headers GitLab sends', async () => {
    const project = await repository()
    for (const name of ['feature/b', 'feature/a', 'fix-1', 'release', 'a-feature']) {
      const res = await request('POST', `/projects/${project.id}/repository/branches`, {
        token: owner.token,
        body: { branch: name, ref: 'main' },
      })
      expect(res.status, res.text).toBe(201)
    }
    const names = (res: { body: { name: string }[] }) => res.body.map((branch) => branch.name)
    const all = await request('GET', `/projects/${project.id}/repository/branches`, { token: owner.token })
    expect(names(all)).toEqual(['a-feature', 'feature/a', 'feature/b', 'fix-1', 'main', 'release'])
    expect(all.headers['x-total']).toBe('6')
    expect(all.headers['x-total-pages']).toBe('1')
    expect(all.headers['x-page']).toBe('1')
    expect(all.headers['x-next-page']).toBe('2')
    expect(all.headers['x-per-page']).toBe('20')

    const search = (term: string) =>
      request('GET', `/projects/${project.id}/repository/branches?search=${encodeURIComponent(term)}`, { token: owner.token })
    expect(names(await search('feature'))).toEqual(['a-feature', 'feature/a', 'feature/b'])
    expect(names(await search('^feature'))).toEqual(['feature/a', 'feature/b'])
    expect(names(await search('feature$'))).toEqual(['a-feature'])
    expect(names(await search('f*1'))).toEqual(['fix-1'])
    expect(names(await search('RELEASE'))).toEqual(['release'])
    const regex = await request('GET', `/projects/${project.id}/repository/branches?regex=${encodeURIComponent('^f.*[ab]$')}`, {
      token: owner.token,
    })
    expect(names(regex)).toEqual(['feature/a', 'feature/b'])

    const newest = await request('GET', `/projects/${project.id}/repository/branches?sort=updated_desc`, { token: owner.token })
    expect(newest.status).toBe(200)
    expect(names(newest)).toHaveLength(6)
    const badSort = await request('GET', `/projects/${project.id}/repository/branches?sort=size`, { token: owner.token })
    expect([badSort.status, badSort.body]).toEqual([400, { error: 'sort does not have a valid value' }])

    const first = await request('GET', `/projects/${project.id}/repository/branches?per_page=2`, { token: owner.token })
    expect(names(first)).toEqual(['a-feature', 'feature/a'])
    expect(first.headers['x-total-pages']).toBe('4')
    const second = await request('GET', `/projects/${project.id}/repository/branches?per_page=2&page=2`, { token: owner.token })
    expect(names(second)).toEqual(['feature/b', 'fix-1'])
    expect(second.headers['x-total']).toBe('6')
    expect(second.headers['x-total-pages']).toBe('3')
    expect(second.headers['x-prev-page']).toBe('1')
    expect(second.headers['x-next-page']).toBe('3')

    const keyset = await request('GET', `/projects/${project.id}/repository/branches?pagination=keyset&per_page=2&page_token=feature%2Fa`, {
      token: owner.token,
    })
    expect(names(keyset)).toEqual(['feature/b', 'fix-1'])
    expect(keyset.headers.link).toContain('page_token=fix-1')
  })

  test('tells which branches the default branch contains, and merged ones are deleted together', async () => {
    const project = await repository()
    await addProjectMember(db, developer, project.id, 30)
    const dir = await cloneProject(server, gitClient, owner, project.path_with_namespace)
    await gitOk(dir, 'checkout', '--quiet', '-b', 'old')
    await gitOk(dir, 'commit', '--quiet', '--allow-empty', '-m', 'Old work')
    await gitOk(dir, 'checkout', '--quiet', 'main')
    await gitOk(dir, 'merge', '--quiet', '--no-ff', '-m', 'Merge old', 'old')
    await gitOk(dir, 'checkout', '--quiet', '-b', 'open')
    await gitOk(dir, 'commit', '--quiet', '--allow-empty', '-m', 'Open work')
    await gitOk(dir, 'branch', 'kept', 'old')
    await gitOk(dir, 'branch', 'same', 'main')
    await gitOk(dir, 'push', '--quiet', 'origin', 'main', 'old', 'open', 'kept', 'same')
    await request('POST', `/projects/${project.id}/protected_branches`, { token: owner.token, body: { name: 'kept' } })

    const list = await request('GET', `/projects/${project.id}/repository/branches`, { token: developer.token })
    const merged = Object.fromEntries(list.body.map((branch: { name: string; merged: boolean }) => [branch.name, branch.merged]))
    expect(merged).toEqual({ kept: true, main: false, old: true, open: false, same: false })
    const old = await request('GET', `/projects/${project.id}/repository/branches/old`, { token: developer.token })
    expect(old.body.merged).toBe(true)

    const res = await request('DELETE', `/projects/${project.id}/repository/merged_branches`, { token: developer.token })
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ message: '202 Accepted' })
    const after = await request('GET', `/projects/${project.id}/repository/branches`, { token: developer.token })
    expect(after.body.map((branch: { name: string }) => branch.name)).toEqual(['kept', 'main', 'open', 'same'])
  })

  test('works through gitbeaker as a real client uses it', async () => {
    const project = await repository()
    const api = new Gitlab({ host: server.url, token: owner.token })
    const created = await api.Branches.create(project.id, 'gitbeaker/branch', 'main')
    expect(created.name).toBe('gitbeaker/branch')
    const shown = await api.Branches.show(project.id, 'gitbeaker/branch')
    expect(shown.commit.id).toBe(created.commit.id)
    const all = await api.Branches.all(project.id)
    expect(all.map((branch) => branch.name)).toEqual(['gitbeaker/branch', 'main'])
    await api.Branches.remove(project.id, 'gitbeaker/branch')
    await expect(api.Branches.show(project.id, 'gitbeaker/branch')).rejects.toThrow()
  })
})
