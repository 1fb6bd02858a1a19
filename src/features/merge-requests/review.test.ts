import fs from 'node:fs'
import path from 'node:path'
import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { addTestMember, createTestToken, createTestUser } from '../../testing/factories.js'
import { GitClient, repoUrl } from '../../testing/git.js'
import { contextFor } from '../../testing/context.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { recordVersionsAfterPush } from './index.js'

let server: TestServer
let request: ReturnType<typeof client>
const gitClient = new GitClient()
const gitOk = (cwd: string, ...args: string[]) => gitClient.ok(cwd, ...args)

interface Person {
  user: User
  token: string
  password: string
}

let sequence = 0

async function person(): Promise<Person> {
  sequence += 1
  const username = `reviewer${sequence}`
  const password = `${username}-secret-1`
  const user = await createTestUser(server.database.db, { username, name: `Reviewer ${sequence}`, password })
  return { user, token: (await createTestToken(server.database.db, user)).value, password }
}

async function repository(owner: Person): Promise<Record<string, any>> {
  sequence += 1
  const res = await request('POST', '/projects', {
    token: owner.token,
    body: { name: `Review ${sequence}`, initialize_with_readme: true, visibility: 'public' },
  })
  expect(res.status, res.text).toBe(201)
  return res.body
}

async function cloneAs(who: Person, fullPath: string): Promise<string> {
  const { run, dir } = await gitClient.clone(repoUrl(server.url, fullPath, who.user.username, who.password))
  expect(run.code, run.stderr).toBe(0)
  return dir
}

/** Writes (string or bytes) or removes (null) files on the current branch, commits, and answers the commit. */
async function commit(dir: string, files: Record<string, string | Buffer | null>, message: string): Promise<string> {
  for (const [name, content] of Object.entries(files)) {
    if (content === null) await gitOk(dir, 'rm', '--quiet', name)
    else {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
      fs.writeFileSync(path.join(dir, name), content)
      await gitOk(dir, 'add', name)
    }
  }
  await gitOk(dir, 'commit', '--quiet', '-m', message)
  return (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
}

const DIFF_KEYS = [
  'diff',
  'collapsed',
  'too_large',
  'new_path',
  'old_path',
  'a_mode',
  'b_mode',
  'new_file',
  'renamed_file',
  'deleted_file',
  'generated_file',
]

let owner: Person
let developer: Person
let project: Record<string, any>
let dir: string
let base: string
let firstHead: string
let secondHead: string
let mr: Record<string, any>

beforeAll(async () => {
  server = await startTestServer()
  request = client(`${server.url}/api/v4`)
  owner = await person()
  developer = await person()
  project = await repository(owner)
  const row = await server.database.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow()
  await addTestMember(server.database.db, { user: developer.user, project: row, accessLevel: 30 })
  dir = await cloneAs(owner, project.path_with_namespace)
  base = await commit(
    dir,
    { 'docs/guide.md': 'line 1\nline 2\nline 3\nline 4\nline 5\n', 'old.txt': 'old\n', 'z.txt': 'z\n' },
    'Lay out the project',
  )
  await gitOk(dir, 'push', '--quiet', 'origin', 'main')
  await gitOk(dir, 'checkout', '--quiet', '-b', 'feature')
  await gitOk(dir, 'mv', 'docs/guide.md', 'docs/manual.md')
  firstHead = await commit(
    dir,
    {
      'docs/manual.md': 'line 1\nline 2\nline 3\nline 4\nline 5\nline 6\n',
      'old.txt': null,
      'a.txt': 'a\n',
      'img.bin': Buffer.from([0, 1, 2, 3]),
      'src/deep/code.ts': 'export {}\n',
    },
    'Rework the docs\n\nWith a body.',
  )
  await gitOk(dir, 'push', '--quiet', 'origin', 'feature')
  const created = await request('POST', `/projects/${project.id}/merge_requests`, {
    token: owner.token,
    body: { source_branch: 'feature', target_branch: 'main', title: 'Rework' },
  })
  expect(created.status, created.text).toBe(201)
  mr = created.body
})

afterAll(async () => {
  await server.close()
  gitClient.remove()
})

const url = (suffix = '') => `/projects/${project.id}/merge_requests/${mr.iid}${suffix}`

describe('a merge request opened on a pushed branch', () => {
  test('has one version, its diff_refs and changes_count', () => {
    expect(mr.diff_refs).toEqual({ base_sha: base, head_sha: firstHead, start_sha: base })
    expect(mr.changes_count).toBe('5')
  })

  test('changes: the entity, then its files in GitLab order (directories first), renames, deletions and binaries', async () => {
    const res = await request('GET', url('/changes'), { token: developer.token })
    expect(res.status, res.text).toBe(200)
    const keys = Object.keys(res.body)
    expect(keys.slice(-2)).toEqual(['changes', 'overflow'])
    expect(keys.indexOf('changes')).toBeGreaterThan(keys.indexOf('user'))
    expect(res.body.overflow).toBe(false)
    expect(res.body.changes.map((d: any) => d.new_path)).toEqual(['docs/manual.md', 'src/deep/code.ts', 'a.txt', 'img.bin', 'old.txt'])
    expect(Object.keys(res.body.changes[0])).toEqual(DIFF_KEYS)
    expect(res.body.changes[0]).toMatchObject({
      old_path: 'docs/guide.md',
      new_path: 'docs/manual.md',
      renamed_file: true,
      diff: '@@ -3,3 +3,4 @@ line 2\n line 3\n line 4\n line 5\n+line 6\n',
    })
    expect(res.body.changes[3]).toMatchObject({ new_file: true, a_mode: '0', diff: 'Binary files /dev/null and b/img.bin differ\n' })
    expect(res.body.changes[4]).toMatchObject({ deleted_file: true, b_mode: '0', diff: '@@ -1 +0,0 @@\n-old\n' })
    const unified = await request('GET', url('/changes?unidiff=true'), { token: developer.token })
    expect(unified.body.changes[2].diff).toBe('--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n')
  })

  test('diffs are paginated with totals; raw_diffs is the patch as text', async () => {
    const page = await request('GET', url('/diffs?per_page=2&page=2'), { token: developer.token })
    expect(page.status).toBe(200)
    expect(page.body.map((d: any) => d.new_path)).toEqual(['a.txt', 'img.bin'])
    expect(page.headers['x-total']).toBe('5')
    expect(page.headers['x-total-pages']).toBe('3')
    const raw = await request('GET', url('/raw_diffs'), { token: developer.token })
    expect(raw.status).toBe(200)
    expect(raw.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(raw.headers['cache-control']).toBe('no-store')
    expect(raw.headers.pragma).toBe('no-cache')
    expect(raw.text).toBe(await gitOk(dir, 'diff', '--full-index', base, firstHead))
  })

  test('an unknown merge request or version answers 404', async () => {
    const none = await request('GET', `/projects/${project.id}/merge_requests/999/diffs`, { token: developer.token })
    expect(none.status).toBe(404)
    expect(none.body).toEqual({ message: '404 Not found' })
    const version = await request('GET', url('/versions/999999'), { token: developer.token })
    expect(version.status).toBe(404)
    expect(version.body).toEqual({ message: '404 Not found' })
    const bad = await request('GET', url('/versions/abc'), { token: developer.token })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'version_id is invalid' })
  })
})

describe('pushing to the source branch', () => {
  test('a new version each time it moves, newest first; commits follow the latest', async () => {
    await gitOk(dir, 'checkout', '--quiet', 'feature')
    secondHead = await commit(dir, { 'a.txt': 'a\nb\n' }, 'Second pass')
    await gitOk(dir, 'push', '--quiet', 'origin', 'feature')

    const versions = await request('GET', url('/versions'), { token: developer.token })
    expect(versions.status, versions.text).toBe(200)
    expect(versions.headers['x-total']).toBe('2')
    expect(versions.body.map((v: any) => v.head_commit_sha)).toEqual([secondHead, firstHead])
    expect(Object.keys(versions.body[0])).toEqual([
      'id',
      'head_commit_sha',
      'base_commit_sha',
      'start_commit_sha',
      'created_at',
      'merge_request_id',
      'state',
      'real_size',
      'patch_id_sha',
    ])
    expect(versions.body[0]).toMatchObject({
      base_commit_sha: base,
      start_commit_sha: base,
      merge_request_id: mr.id,
      state: 'collected',
      real_size: '5',
    })
    expect(versions.body[0].patch_id_sha).toMatch(/^[0-9a-f]{40}$/)
    expect(versions.body[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(versions.body[0].patch_id_sha).not.toBe(versions.body[1].patch_id_sha)
    expect(versions.body[0].id).toBeGreaterThan(versions.body[1].id)

    const commits = await request('GET', url('/commits'), { token: developer.token })
    expect(commits.body.map((c: any) => c.id)).toEqual([secondHead, firstHead])
    expect(commits.body[1]).toMatchObject({ title: 'Rework the docs', message: 'Rework the docs\n\nWith a body.\n' })
    expect(commits.headers['x-total']).toBe('2')

    const older = await request('GET', url(`/versions/${versions.body[1].id}`), { token: developer.token })
    expect(older.body.commits.map((c: any) => c.id)).toEqual([firstHead])
    expect(older.body.diffs.find((d: any) => d.new_path === 'a.txt').diff).toBe('@@ -0,0 +1 @@\n+a\n')
    const shown = await request('GET', url(''), { token: developer.token })
    expect(shown.body.diff_refs).toEqual({ base_sha: base, head_sha: secondHead, start_sha: base })
    // The versions' commits are kept by refs clients do not see; the head ref is GitLab's refs/merge-requests/<iid>/head.
    const advertised = await gitOk(dir, 'ls-remote', 'origin')
    expect(advertised).toContain(`${secondHead}\trefs/merge-requests/${mr.iid}/head`)
    expect(advertised).not.toContain('refs/keep-around/')
    const pushed = await gitClient.run(dir, 'push', 'origin', `${firstHead}:refs/keep-around/${firstHead}`)
    expect(pushed.code).not.toBe(0)
    // Reading again records nothing new.
    expect((await request('GET', url('/versions'), { token: developer.token })).body).toHaveLength(2)
  })

  test('a push that makes it conflict shows in merge_status and has_conflicts', async () => {
    await gitOk(dir, 'checkout', '--quiet', 'main')
    await commit(dir, { 'a.txt': 'conflicting\n' }, 'Meanwhile on main')
    await gitOk(dir, 'push', '--quiet', 'origin', 'main')
    const conflicting = await request('GET', url(''), { token: developer.token })
    expect(conflicting.body).toMatchObject({ merge_status: 'cannot_be_merged', has_conflicts: true, detailed_merge_status: 'conflict' })
    // Undone by a later commit on main (main is protected: no force push): the merge is clean again.
    await commit(dir, { 'a.txt': null }, 'Undo it')
    await gitOk(dir, 'push', '--quiet', 'origin', 'main')
    const clean = await request('GET', url(''), { token: developer.token })
    expect(clean.body).toMatchObject({ merge_status: 'can_be_merged', has_conflicts: false, detailed_merge_status: 'mergeable' })
  })
})

describe('the refresh after a push', () => {
  test('records one version per push, even with no read in between', async () => {
    const other = await repository(owner)
    const otherDir = await cloneAs(owner, other.path_with_namespace)
    await gitOk(otherDir, 'checkout', '--quiet', '-b', 'topic')
    const heads = [await commit(otherDir, { 'one.txt': '1\n' }, 'One')]
    await gitOk(otherDir, 'push', '--quiet', 'origin', 'topic')
    const opened = await request('POST', `/projects/${other.id}/merge_requests`, {
      token: owner.token,
      body: { source_branch: 'topic', target_branch: 'main', title: 'Topic' },
    })
    const row = await server.database.db.selectFrom('projects').selectAll().where('id', '=', other.id).executeTakeFirstOrThrow()
    for (const name of ['two.txt', 'three.txt']) {
      heads.push(await commit(otherDir, { [name]: `${name}\n` }, name))
      await gitOk(otherDir, 'push', '--quiet', 'origin', 'topic')
      await recordVersionsAfterPush(contextFor(server, owner.user), row, ['refs/heads/topic', 'refs/tags/ignored'])
    }
    const versions = await request('GET', `/projects/${other.id}/merge_requests/${opened.body.iid}/versions`, { token: owner.token })
    expect(versions.body.map((v: any) => v.head_commit_sha)).toEqual([...heads].reverse())
    expect(versions.body.map((v: any) => v.real_size)).toEqual(['3', '2', '1'])
  })
})

describe('git pushes', () => {
  test('each push to the source branch is a version, read or not', async () => {
    const other = await repository(owner)
    const otherDir = await cloneAs(owner, other.path_with_namespace)
    await gitOk(otherDir, 'checkout', '--quiet', '-b', 'pushed')
    const heads = [await commit(otherDir, { 'one.txt': '1\n' }, 'One')]
    await gitOk(otherDir, 'push', '--quiet', 'origin', 'pushed')
    const opened = await request('POST', `/projects/${other.id}/merge_requests`, {
      token: owner.token,
      body: { source_branch: 'pushed', target_branch: 'main', title: 'Pushed' },
    })
    for (const name of ['two.txt', 'three.txt']) {
      heads.push(await commit(otherDir, { [name]: `${name}\n` }, name))
      await gitOk(otherDir, 'push', '--quiet', 'origin', 'pushed')
    }
    const versions = await request('GET', `/projects/${other.id}/merge_requests/${opened.body.iid}/versions`, { token: owner.token })
    expect(versions.body.map((v: any) => v.head_commit_sha)).toEqual([...heads].reverse())
  })
})

describe('another target branch', () => {
  test('a new version starting from the new target', async () => {
    const other = await repository(owner)
    const otherDir = await cloneAs(owner, other.path_with_namespace)
    const readme = (await gitOk(otherDir, 'rev-parse', 'HEAD')).trim()
    await gitOk(otherDir, 'push', '--quiet', 'origin', 'HEAD:refs/heads/stable')
    const moved = await commit(otherDir, { 'main.txt': 'main\n' }, 'Main moves')
    await gitOk(otherDir, 'push', '--quiet', 'origin', 'main')
    await gitOk(otherDir, 'checkout', '--quiet', '-b', 'topic')
    const head = await commit(otherDir, { 'topic.txt': 'topic\n' }, 'Topic')
    await gitOk(otherDir, 'push', '--quiet', 'origin', 'topic')
    const opened = await request('POST', `/projects/${other.id}/merge_requests`, {
      token: owner.token,
      body: { source_branch: 'topic', target_branch: 'main', title: 'Topic' },
    })
    expect(opened.body.diff_refs).toEqual({ base_sha: moved, head_sha: head, start_sha: moved })
    const retargeted = await request('PUT', `/projects/${other.id}/merge_requests/${opened.body.iid}`, {
      token: owner.token,
      body: { target_branch: 'stable' },
    })
    expect(retargeted.status, retargeted.text).toBe(200)
    expect(retargeted.body.diff_refs).toEqual({ base_sha: readme, head_sha: head, start_sha: readme })
    expect(retargeted.body.changes_count).toBe('2')
    const versions = await request('GET', `/projects/${other.id}/merge_requests/${opened.body.iid}/versions`, { token: owner.token })
    expect(versions.body.map((v: any) => v.start_commit_sha)).toEqual([readme, moved])
  })
})

describe('gitbeaker', () => {
  test('showChanges, allDiffs, allCommits, allDiffVersions and showDiffVersion', async () => {
    const api = new Gitlab({ host: server.url, token: developer.token })
    const changes = (await api.MergeRequests.showChanges(project.id, mr.iid)) as unknown as Record<string, any>
    expect(changes.changes.map((d: any) => d.new_path)).toContain('a.txt')
    const diffs = await api.MergeRequests.allDiffs(project.id, mr.iid)
    expect(diffs).toHaveLength(5)
    const commits = await api.MergeRequests.allCommits(project.id, mr.iid)
    expect(commits.map((c) => c.id)).toEqual([secondHead, firstHead])
    const versions = await api.MergeRequests.allDiffVersions(project.id, mr.iid)
    expect(versions).toHaveLength(2)
    const version = (await api.MergeRequests.showDiffVersion(project.id, mr.iid, versions[0].id)) as unknown as Record<string, any>
    expect(version.head_commit_sha).toBe(secondHead)
    expect(version.commits.map((c: any) => c.id)).toEqual([secondHead, firstHead])
    expect(version.diffs).toHaveLength(5)
  })
})

describe('once merged', () => {
  test('keeps its diff_refs, versions and commits; the commit lists its merge request', async () => {
    const merged = await request('PUT', url('/merge'), { token: owner.token })
    expect(merged.status, merged.text).toBe(200)
    expect(merged.body.state).toBe('merged')
    expect(merged.body.diff_refs).toEqual({ base_sha: base, head_sha: secondHead, start_sha: base })
    expect(merged.body.changes_count).toBe('5')
    const versions = await request('GET', url('/versions'), { token: developer.token })
    expect(versions.body.map((v: any) => v.head_commit_sha)).toEqual([secondHead, firstHead])
    const commits = await request('GET', url('/commits'), { token: developer.token })
    expect(commits.body.map((c: any) => c.id)).toEqual([secondHead, firstHead])
    for (const sha of [firstHead, merged.body.merge_commit_sha]) {
      const related = await request('GET', `/projects/${project.id}/repository/commits/${sha}/merge_requests`, { token: developer.token })
      expect(related.status, related.text).toBe(200)
      expect(related.body.map((m: any) => m.iid)).toEqual([mr.iid])
    }
    const unrelated = await request('GET', `/projects/${project.id}/repository/commits/${base}/merge_requests`, { token: developer.token })
    expect(unrelated.body).toEqual([])
  })
})

describe('a merge request with more files than a diff shows', () => {
  test('changes, access_raw_diffs and a version show the files GitLab stores; raw_diffs streams the whole patch', async () => {
    await gitOk(dir, 'checkout', '--quiet', '-b', 'wide', base)
    fs.mkdirSync(path.join(dir, 'wide'))
    for (let index = 0; index < 1_005; index += 1)
      fs.writeFileSync(path.join(dir, `wide/f${String(index).padStart(4, '0')}.txt`), `${index}\n`)
    await gitOk(dir, 'add', 'wide')
    await gitOk(dir, 'commit', '--quiet', '-m', 'Many files')
    const head = (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
    await gitOk(dir, 'push', '--quiet', 'origin', 'wide')
    const created = await request('POST', `/projects/${project.id}/merge_requests`, {
      token: owner.token,
      body: { source_branch: 'wide', target_branch: 'main', title: 'Wide' },
    })
    expect(created.status, created.text).toBe(201)
    const wide = (suffix: string) =>
      request('GET', `/projects/${project.id}/merge_requests/${created.body.iid}${suffix}`, { token: developer.token })

    const limited = await wide('/changes')
    expect([limited.body.overflow, limited.body.changes.length, limited.body.changes_count]).toEqual([true, 1_000, '1000+'])
    const raw = await wide('/changes?access_raw_diffs=true')
    expect([raw.body.overflow, raw.body.changes.length]).toEqual([false, 1_000])
    expect(raw.body.changes).toEqual(limited.body.changes)
    const [version] = (await wide('/versions')).body
    const full = await wide(`/versions/${version.id}`)
    expect(full.body.diffs.length).toBe(1_000)
    expect(full.body.diffs.at(-1).new_path).toBe('wide/f0999.txt')

    const patch = await wide('/raw_diffs')
    expect(patch.status).toBe(200)
    expect(patch.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(patch.text === (await gitOk(dir, 'diff', '--full-index', base, head))).toBe(true)
    expect(patch.text.split('\ndiff --git ').length).toBe(1_005)
  })
})
