import fs from 'node:fs'
import path from 'node:path'
import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { GitClient } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { cloneProject, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { projectRepositoryDirectory } from '../repositories/index.js'

let server: TestServer
let request: ReturnType<typeof client>
const gitClient = new GitClient()
const gitOk = (cwd: string, ...args: string[]) => gitClient.ok(cwd, ...args)

let sequence = 0

function repository(owner: Person, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  sequence += 1
  return createRepositoryProject(request, owner, { name: `History ${sequence}`, ...body })
}

async function person(): Promise<Person> {
  sequence += 1
  const username = `reader${sequence}`
  const password = `${username}-secret-1`
  const user = await createTestUser(server.database.db, { username, name: `Reader ${sequence}`, password })
  return { user, token: (await createTestToken(server.database.db, user)).value, password }
}

/** Writes (string) or removes (null) files, commits them on the current branch and answers the new commit. */
async function commit(dir: string, files: Record<string, string | Buffer | null>, message: string, date?: string): Promise<string> {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name)
    if (content === null) await gitOk(dir, 'rm', '--quiet', name)
    else {
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, content)
      await gitOk(dir, 'add', name)
    }
  }
  await gitOk(dir, 'commit', '--quiet', '-m', message, ...(date ? [`--date=${date}`] : []))
  return (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
}

async function gitFormat(dir: string, format: string, rev: string): Promise<string> {
  return (await gitOk(dir, 'show', '--no-patch', `--format=${format}`, rev)).replace(/\n$/, '')
}

let owner: Person
let project: Record<string, any>
let dir: string
const shas: Record<string, string> = {}

beforeAll(async () => {
  server = await startTestServer()
  request = client(`${server.url}/api/v4`)
  owner = await person()
  project = await repository(owner)
  dir = await cloneProject(server, gitClient, owner, project.path_with_namespace)
  shas.readme = (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
  shas.first = await commit(
    dir,
    { 'lib/a.txt': 'one\ntwo\nthree\nfour\nfive\nsix\n', 'gone.txt': 'bye\n' },
    'Add a\n\nBody text.\n',
    '2026-01-02T03:04:05+02:00',
  )
  shas.second = await commit(dir, { 'logo.bin': Buffer.from([0, 1, 2, 3, 0, 255]) }, 'Add a logo', '2026-01-03T00:00:00Z')
  await gitOk(dir, 'mv', 'lib/a.txt', 'lib/b.txt')
  fs.appendFileSync(path.join(dir, 'lib/b.txt'), 'seven\n')
  shas.third = await commit(
    dir,
    { 'lib/b.txt': fs.readFileSync(path.join(dir, 'lib/b.txt'), 'utf8'), 'gone.txt': null, 'logo.bin': Buffer.from([0, 9, 9, 9, 0, 255]) },
    'Rename a to b\n\nSigned-off-by: Ann <ann@example.com>\nSigned-off-by: Bob <bob@example.com>\nReviewed-by: Cy\n',
    '2026-01-04T00:00:00Z',
  )
  await gitOk(dir, 'push', '--quiet', 'origin', 'main')
  await gitOk(dir, 'checkout', '--quiet', '-b', 'side', shas.first)
  shas.side = await commit(dir, { 'side.txt': 'side\n' }, 'On the side', '2026-01-05T00:00:00Z')
  await gitOk(dir, 'tag', 'v1', shas.first)
  await gitOk(dir, 'push', '--quiet', 'origin', 'side', 'v1')
})

afterAll(async () => {
  await server.close()
  gitClient.remove()
})

describe('a commit', () => {
  test('GET commits/:sha answers the commit detail with stats, as GitLab does', async () => {
    const res = await request('GET', `/projects/${project.id}/repository/commits/${shas.first}`, { token: owner.token })
    expect(res.status, res.text).toBe(200)
    const committed = await gitFormat(dir, '%cI', shas.first)
    expect(Object.keys(res.body)).toEqual([
      'id',
      'short_id',
      'created_at',
      'parent_ids',
      'title',
      'message',
      'author_name',
      'author_email',
      'authored_date',
      'committer_name',
      'committer_email',
      'committed_date',
      'trailers',
      'extended_trailers',
      'web_url',
      'stats',
      'status',
      'project_id',
      'last_pipeline',
    ])
    expect(res.body).toEqual({
      id: shas.first,
      short_id: shas.first.slice(0, 8),
      created_at: expect.any(String),
      parent_ids: [shas.readme],
      title: 'Add a',
      message: 'Add a\n\nBody text.\n',
      author_name: 'Tess',
      author_email: 'tess@example.com',
      authored_date: '2026-01-02T03:04:05.000+02:00',
      committer_name: 'Tess',
      committer_email: 'tess@example.com',
      committed_date: expect.any(String),
      trailers: {},
      extended_trailers: {},
      web_url: `${server.url}/${project.path_with_namespace}/-/commit/${shas.first}`,
      stats: { additions: 7, deletions: 0, total: 7 },
      status: null,
      project_id: project.id,
      last_pipeline: null,
    })
    expect(new Date(res.body.committed_date).getTime()).toBe(new Date(committed).getTime())
    expect(res.body.created_at).toBe(res.body.committed_date)
  })

  test('a branch or tag name names its commit; stats=false leaves the stats out', async () => {
    const byTag = await request('GET', `/projects/${project.id}/repository/commits/v1?stats=false`, { token: owner.token })
    expect(byTag.status).toBe(200)
    expect(byTag.body.id).toBe(shas.first)
    expect(byTag.body).not.toHaveProperty('stats')
    const byBranch = await request('GET', `/projects/${project.path_with_namespace.replace('/', '%2F')}/repository/commits/side`, {
      token: owner.token,
    })
    expect(byBranch.body.id).toBe(shas.side)
  })

  test('unknown, malformed or option-like revisions answer 404 Commit Not Found', async () => {
    for (const sha of ['0123456789abcdef0123456789abcdef01234567', 'nope', '--all', 'main%0Ahead', 'main..side', '%2Fetc%2Fpasswd']) {
      const res = await request('GET', `/projects/${project.id}/repository/commits/${sha}`, { token: owner.token })
      expect(res.status, sha).toBe(404)
      expect(res.body, sha).toEqual({ message: '404 Commit Not Found' })
    }
    // A NUL byte never reaches git: the request is refused before.
    const nul = await request('GET', `/projects/${project.id}/repository/commits/a%00b`, { token: owner.token })
    expect(nul.status).toBe(400)
  })

  test('a private project hides its commits from strangers: 404 Project Not Found', async () => {
    const hidden = await repository(owner, { visibility: 'private' })
    const stranger = await person()
    const res = await request('GET', `/projects/${hidden.id}/repository/commits/main`, { token: stranger.token })
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ message: '404 Project Not Found' })
  })
})

describe('a commit diff', () => {
  test('renames, deleted and binary files as GitLab shows them, paginated', async () => {
    const res = await request('GET', `/projects/${project.id}/repository/commits/${shas.third}/diff`, { token: owner.token })
    expect(res.status, res.text).toBe(200)
    expect(res.headers['x-total']).toBe('3')
    expect(res.body).toEqual([
      {
        diff: '@@ -1 +0,0 @@\n-bye\n',
        collapsed: false,
        too_large: false,
        new_path: 'gone.txt',
        old_path: 'gone.txt',
        a_mode: '100644',
        b_mode: '0',
        new_file: false,
        renamed_file: false,
        deleted_file: true,
        generated_file: false,
      },
      {
        diff: '@@ -4,3 +4,4 @@ three\n four\n five\n six\n+seven\n',
        collapsed: false,
        too_large: false,
        new_path: 'lib/b.txt',
        old_path: 'lib/a.txt',
        a_mode: '100644',
        b_mode: '100644',
        new_file: false,
        renamed_file: true,
        deleted_file: false,
        generated_file: false,
      },
      {
        diff: 'Binary files a/logo.bin and b/logo.bin differ\n',
        collapsed: false,
        too_large: false,
        new_path: 'logo.bin',
        old_path: 'logo.bin',
        a_mode: '100644',
        b_mode: '100644',
        new_file: false,
        renamed_file: false,
        deleted_file: false,
        generated_file: false,
      },
    ])
    const page = await request('GET', `/projects/${project.id}/repository/commits/${shas.third}/diff?per_page=1&page=2`, {
      token: owner.token,
    })
    expect(page.body.map((d: any) => d.new_path)).toEqual(['lib/b.txt'])
    expect(page.headers['x-next-page']).toBe('3')
    const unified = await request('GET', `/projects/${project.id}/repository/commits/${shas.first}/diff?unidiff=true`, {
      token: owner.token,
    })
    expect(unified.body.find((d: any) => d.new_path === 'gone.txt')).toMatchObject({
      diff: '--- /dev/null\n+++ b/gone.txt\n@@ -0,0 +1 @@\n+bye\n',
      new_file: true,
      a_mode: '0',
      b_mode: '100644',
    })
  })
})

describe("a diff past GitLab's limits", () => {
  test('a file whose patch passes 200 KiB is too_large, its diff left out', async () => {
    const big = await repository(owner)
    const bigDir = await cloneProject(server, gitClient, owner, big.path_with_namespace)
    const sha = await commit(bigDir, { 'big.txt': 'a line of text that repeats\n'.repeat(8_000), 'small.txt': 'small\n' }, 'Big')
    await gitOk(bigDir, 'push', '--quiet', 'origin', 'main')
    const res = await request('GET', `/projects/${big.id}/repository/commits/${sha}/diff`, { token: owner.token })
    expect(res.status).toBe(200)
    expect(res.body.map((d: any) => [d.new_path, d.too_large, d.diff.length > 0])).toEqual([
      ['big.txt', true, false],
      ['small.txt', false, true],
    ])
    const shown = await request('GET', `/projects/${big.id}/repository/commits/${sha}`, { token: owner.token })
    expect(shown.body.stats).toEqual({ additions: 8_001, deletions: 0, total: 8_001 })
  })
})

describe('the commit list', () => {
  test('newest first on the default branch, without totals, as GitLab pages it', async () => {
    const res = await request('GET', `/projects/${project.id}/repository/commits?per_page=2`, { token: owner.token })
    expect(res.status, res.text).toBe(200)
    expect(res.body.map((c: any) => c.id)).toEqual([shas.third, shas.second])
    expect(res.headers['x-next-page']).toBe('2')
    expect(res.headers['x-total']).toBeUndefined()
    expect(res.headers['x-total-pages']).toBeUndefined()
    expect(res.headers.link).toContain('rel="next"')
    const last = await request('GET', `/projects/${project.id}/repository/commits?per_page=2&page=2`, { token: owner.token })
    expect(last.body.map((c: any) => c.id)).toEqual([shas.first, shas.readme])
    const past = await request('GET', `/projects/${project.id}/repository/commits?per_page=2&page=3`, { token: owner.token })
    expect(past.body).toEqual([])
    expect(past.headers['x-next-page']).toBe('')
  })

  test('ref_name, path, since, until, all, first_parent, with_stats and trailers', async () => {
    const list = async (query: string) => {
      const res = await request('GET', `/projects/${project.id}/repository/commits?${query}`, { token: owner.token })
      expect(res.status, res.text).toBe(200)
      return res.body as any[]
    }
    expect((await list('ref_name=side')).map((c) => c.id)).toEqual([shas.side, shas.first, shas.readme])
    expect((await list('path=lib/b.txt')).map((c) => c.id)).toEqual([shas.third])
    expect((await list('all=true')).map((c) => c.id).sort()).toEqual(Object.values(shas).sort())
    expect((await list('ref_name=nope')).map((c) => c.id)).toEqual([])
    expect((await list('author=Nobody')).map((c) => c.id)).toEqual([])
    for (const path of ['../x', '/etc/passwd', ':(glob)**', '%00']) expect(await list(`path=${encodeURIComponent(path)}`), path).toEqual([])
    expect((await list('first_parent=true&order=topo')).length).toBe(4)
    const since = await list(`since=${encodeURIComponent('2099-01-01T00:00:00Z')}`)
    expect(since).toEqual([])
    expect((await list('until=2000-01-01T00:00:00Z')).length).toBe(0)
    const [withStats] = await list('per_page=1&with_stats=true&trailers=true')
    expect(withStats.stats).toEqual({ additions: 1, deletions: 1, total: 2 })
    expect(withStats.trailers).toEqual({ 'Signed-off-by': 'Bob <bob@example.com>', 'Reviewed-by': 'Cy' })
    expect(withStats.extended_trailers).toEqual({
      'Signed-off-by': ['Ann <ann@example.com>', 'Bob <bob@example.com>'],
      'Reviewed-by': ['Cy'],
    })
    expect(Object.keys(withStats).slice(-2)).toEqual(['web_url', 'stats'])
  })

  test('bad dates answer 400 as Grape does', async () => {
    for (const name of ['since', 'until']) {
      const res = await request('GET', `/projects/${project.id}/repository/commits?${name}=yesterday`, { token: owner.token })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ error: `${name} is invalid` })
    }
    const order = await request('GET', `/projects/${project.id}/repository/commits?order=random`, { token: owner.token })
    expect(order.status).toBe(400)
    expect(order.body).toEqual({ error: 'order does not have a valid value' })
  })
})

describe('refs, comments and statuses', () => {
  test('the branches and tags that hold a commit', async () => {
    const res = await request('GET', `/projects/${project.id}/repository/commits/${shas.first}/refs`, { token: owner.token })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([
      { type: 'branch', name: 'main' },
      { type: 'branch', name: 'side' },
      { type: 'tag', name: 'v1' },
    ])
    const tags = await request('GET', `/projects/${project.id}/repository/commits/${shas.first}/refs?type=tag`, { token: owner.token })
    expect(tags.body).toEqual([{ type: 'tag', name: 'v1' }])
    const bad = await request('GET', `/projects/${project.id}/repository/commits/${shas.first}/refs?type=note`, { token: owner.token })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'type does not have a valid value' })
  })

  test('comments and statuses are empty lists of an existing commit', async () => {
    for (const what of ['comments', 'statuses']) {
      const res = await request('GET', `/projects/${project.id}/repository/commits/${shas.first}/${what}`, { token: owner.token })
      expect(res.status).toBe(200)
      expect(res.body).toEqual([])
      expect(res.headers['x-total']).toBe('0')
      const missing = await request('GET', `/projects/${project.id}/repository/commits/${'f'.repeat(40)}/${what}`, { token: owner.token })
      expect(missing.status).toBe(404)
      expect(missing.body).toEqual({ message: '404 Commit Not Found' })
    }
  })
})

describe('gitbeaker', () => {
  test('Commits.all, show, showDiff and allReferences', async () => {
    const api = new Gitlab({ host: server.url, token: owner.token })
    const all = await api.Commits.all(project.id, { refName: 'main', perPage: 10 })
    expect(all.map((c) => c.id)).toEqual([shas.third, shas.second, shas.first, shas.readme])
    const shown = await api.Commits.show(project.id, shas.second)
    expect(shown).toMatchObject({ id: shas.second, title: 'Add a logo', stats: { additions: 0, deletions: 0, total: 0 } })
    const diff = await api.Commits.showDiff(project.id, shas.second)
    expect(diff).toEqual([
      expect.objectContaining({ new_path: 'logo.bin', new_file: true, diff: 'Binary files /dev/null and b/logo.bin differ\n' }),
    ])
    const refs = await api.Commits.allReferences(project.id, shas.side)
    expect(refs).toEqual([{ type: 'branch', name: 'side' }])
  })
})

describe('compare', () => {
  test('from the merge base by default; straight from `from` itself', async () => {
    const res = await request('GET', `/projects/${project.id}/repository/compare?from=main&to=side`, { token: owner.token })
    expect(res.status, res.text).toBe(200)
    expect(Object.keys(res.body)).toEqual(['commit', 'commits', 'diffs', 'compare_timeout', 'compare_same_ref', 'web_url'])
    expect(res.body.commit.id).toBe(shas.side)
    expect(res.body.commits.map((c: any) => c.id)).toEqual([shas.side])
    expect(res.body.diffs.map((d: any) => d.new_path)).toEqual(['side.txt'])
    expect(res.body).toMatchObject({
      compare_timeout: false,
      compare_same_ref: false,
      web_url: `${server.url}/${project.path_with_namespace}/-/compare/${shas.third}...${shas.side}`,
    })
    const straight = await request('GET', `/projects/${project.id}/repository/compare?from=main&to=side&straight=true`, {
      token: owner.token,
    })
    expect(straight.body.commits.map((c: any) => c.id)).toEqual([shas.side])
    expect(straight.body.diffs.map((d: any) => [d.old_path, d.new_path])).toEqual([
      ['gone.txt', 'gone.txt'],
      ['lib/b.txt', 'lib/a.txt'],
      ['logo.bin', 'logo.bin'],
      ['side.txt', 'side.txt'],
    ])
    const older = await request('GET', `/projects/${project.id}/repository/compare?from=${shas.readme}&to=main&unidiff=true`, {
      token: owner.token,
    })
    expect(older.body.commits.map((c: any) => c.id)).toEqual([shas.first, shas.second, shas.third])
    expect(older.body.commit.id).toBe(shas.third)
    expect(older.body.diffs.find((d: any) => d.new_path === 'lib/b.txt').diff).toMatch(
      /^--- \/dev\/null\n\+\+\+ b\/lib\/b.txt\n@@ -0,0 \+1,7 @@/,
    )
  })

  test('the same ref twice, unknown refs and foreign projects', async () => {
    const same = await request('GET', `/projects/${project.id}/repository/compare?from=main&to=${shas.third}`, { token: owner.token })
    expect(same.body).toMatchObject({ commit: null, commits: [], diffs: [], compare_same_ref: true })
    for (const query of ['from=nope&to=main', 'from=main&to=nope', 'from=--all&to=main']) {
      const res = await request('GET', `/projects/${project.id}/repository/compare?${query}`, { token: owner.token })
      expect(res.status, query).toBe(404)
      expect(res.body).toEqual({ message: '404 Ref Not Found' })
    }
    const missing = await request('GET', `/projects/${project.id}/repository/compare?from=main`, { token: owner.token })
    expect(missing.status).toBe(400)
    const other = await repository(owner)
    const foreign = await request('GET', `/projects/${project.id}/repository/compare?from=main&to=main&from_project_id=${other.id}`, {
      token: owner.token,
    })
    expect(foreign.status).toBe(400)
    expect(foreign.body).toEqual({ message: `Target project id:${other.id} is not a fork of project id:${project.id}` })
  })

  test('gitbeaker Repositories.compare', async () => {
    const api = new Gitlab({ host: server.url, token: owner.token })
    const compared = await api.Repositories.compare(project.id, 'main', 'side')
    expect((compared.commits ?? []).map((c) => c.id)).toEqual([shas.side])
    expect(compared.diffs?.[0]).toMatchObject({ new_path: 'side.txt', new_file: true, diff: '@@ -0,0 +1 @@\n+side\n' })
  })
})

describe('compare across a fork network', () => {
  test('from the upstream project into a fork: the upstream commit is fetched for the comparison and its ref removed after', async () => {
    const forker = await person()
    const forkedRes = await request('POST', `/projects/${project.id}/fork`, { token: forker.token, body: {} })
    expect(forkedRes.status, forkedRes.text).toBe(201)
    await server.runJobs()
    const fork = forkedRes.body
    const forkDir = await cloneProject(server, gitClient, forker, fork.path_with_namespace)
    await gitOk(forkDir, 'checkout', '--quiet', '-b', 'feature')
    const forkHead = await commit(forkDir, { 'fork.txt': 'fork\n' }, 'In the fork')
    await gitOk(forkDir, 'push', '--quiet', 'origin', 'feature')
    await gitOk(dir, 'checkout', '--quiet', 'main')
    const upstreamHead = await commit(dir, { 'upstream.txt': 'upstream\n' }, 'Upstream moves on')
    await gitOk(dir, 'push', '--quiet', 'origin', 'main')

    const res = await request('GET', `/projects/${fork.id}/repository/compare?from=main&to=feature&from_project_id=${project.id}`, {
      token: forker.token,
    })
    expect(res.status, res.text).toBe(200)
    expect(res.body.commits.map((c: any) => c.id)).toEqual([forkHead])
    expect(res.body.diffs.map((d: any) => d.new_path)).toEqual(['fork.txt'])
    expect(res.body.web_url).toBe(`${server.url}/${fork.path_with_namespace}/-/compare/${upstreamHead}...${forkHead}`)
    const straight = await request(
      'GET',
      `/projects/${fork.id}/repository/compare?from=main&to=feature&from_project_id=${project.id}&straight=true`,
      { token: forker.token },
    )
    expect(straight.body.diffs.map((d: any) => [d.new_path, d.deleted_file])).toEqual([
      ['fork.txt', false],
      ['upstream.txt', true],
    ])
    const forkRow = await server.database.db.selectFrom('projects').selectAll().where('id', '=', fork.id).executeTakeFirstOrThrow()
    const forkRepository = projectRepositoryDirectory(server.config, forkRow)
    expect(await gitOk(forkDir, '--git-dir', forkRepository, 'for-each-ref', 'refs/tmp/')).toBe('')
  })
})
