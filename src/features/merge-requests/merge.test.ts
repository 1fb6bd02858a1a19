import fs from 'node:fs'
import path from 'node:path'
import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestToken, createTestUser } from '../../testing/factories.js'
import { GitClient, repoUrl } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>
let db: TestServer['database']['db']
const gitClient = new GitClient()
const gitOk = (cwd: string, ...args: string[]) => gitClient.ok(cwd, ...args)

interface Person {
  user: User
  token: string
  password: string
}

let sequence = 0

async function person(name?: string): Promise<Person> {
  sequence += 1
  const username = name ?? `person${sequence}`
  const password = `${username}-secret-1`
  const user = await createTestUser(db, { username, name: `${username[0].toUpperCase()}${username.slice(1)}`, password })
  return { user, token: (await createTestToken(db, user)).value, password }
}

async function projectRow(id: number): Promise<ProjectRow> {
  return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

async function member(who: Person, projectId: number, accessLevel: number) {
  await addTestMember(db, { user: who.user, project: await projectRow(projectId), accessLevel })
}

/** A project with a README commit on main, made through the API by `owner`. */
async function repository(owner: Person, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  sequence += 1
  const res = await request('POST', '/projects', {
    token: owner.token,
    body: { name: `Repo ${sequence}`, initialize_with_readme: true, visibility: 'public', ...body },
  })
  expect(res.status, res.text).toBe(201)
  return res.body
}

async function cloneAs(who: Person, fullPath: string): Promise<string> {
  const { run, dir } = await gitClient.clone(repoUrl(server.url, fullPath, who.user.username, who.password))
  expect(run.code, run.stderr).toBe(0)
  return dir
}

/** Commits `files` on `branch` (created from the current HEAD when new) and answers the new commit. */
async function commit(dir: string, branch: string, files: Record<string, string>, message: string): Promise<string> {
  const exists = (await gitClient.run(dir, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`)).code === 0
  await gitOk(dir, 'checkout', '--quiet', ...(exists ? [branch] : ['-b', branch]))
  for (const [name, content] of Object.entries(files)) {
    fs.writeFileSync(path.join(dir, name), content)
    await gitOk(dir, 'add', name)
  }
  await gitOk(dir, 'commit', '--quiet', '-m', message)
  return (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
}

async function push(dir: string, ...refs: string[]) {
  await gitOk(dir, 'push', '--quiet', 'origin', ...refs)
}

async function remoteHead(dir: string, branch: string): Promise<string | null> {
  await gitOk(dir, 'fetch', '--quiet', '--prune', 'origin')
  const run = await gitClient.run(dir, 'rev-parse', '--verify', '--quiet', `refs/remotes/origin/${branch}`)
  return run.code === 0 ? run.stdout.trim() : null
}

async function show(dir: string, format: string, rev: string): Promise<string> {
  await gitOk(dir, 'fetch', '--quiet', 'origin')
  return gitOk(dir, 'show', '--no-patch', `--format=${format}`, rev)
}

async function openMergeRequest(who: Person, projectId: number, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await request('POST', `/projects/${projectId}/merge_requests`, {
    token: who.token,
    body: { target_branch: 'main', title: 'Add a feature', ...body },
  })
  expect(res.status, res.text).toBe(201)
  return res.body
}

function merge(who: Person | null, projectId: number, iid: number, body: Record<string, unknown> = {}) {
  return request('PUT', `/projects/${projectId}/merge_requests/${iid}/merge`, { token: who?.token, body })
}

function getMergeRequest(who: Person, projectId: number, iid: number) {
  return request('GET', `/projects/${projectId}/merge_requests/${iid}`, { token: who.token })
}

const NOT_ALLOWED = { message: '405 Method Not Allowed' }

let owner: Person
let developer: Person

beforeAll(async () => {
  server = await startTestServer()
  request = client(`${server.url}/api/v4`)
  db = server.database.db
  owner = await person('olive')
  developer = await person('dev')
})

afterAll(async () => {
  await server.close()
  gitClient.remove()
})

describe('merge commits', () => {
  test('a Maintainer merges through gitbeaker: a merge commit by the merger on main, the merge request merged, events and a note', async () => {
    const project = await repository(owner)
    await member(developer, project.id, 30)
    // main is protected (Maintainers push), so the owner pushes it; the developer opens the merge request.
    const dir = await cloneAs(owner, project.path_with_namespace)
    const mainBefore = (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
    const first = await commit(dir, 'feature', { 'feature.txt': 'one\n' }, 'First step')
    const head = await commit(dir, 'feature', { 'feature.txt': 'one\ntwo\n' }, 'Second step')
    await commit(dir, 'main', { 'other.txt': 'meanwhile\n' }, 'Meanwhile on main')
    const mainTip = (await gitOk(dir, 'rev-parse', 'main')).trim()
    await push(dir, 'main', 'feature')
    const mr = await openMergeRequest(developer, project.id, { source_branch: 'feature', title: 'Add the feature' })

    const before = await getMergeRequest(developer, project.id, mr.iid)
    expect(before.status).toBe(200)
    expect(before.body).toMatchObject({
      sha: head,
      merge_status: 'can_be_merged',
      detailed_merge_status: 'mergeable',
      has_conflicts: false,
      diff_refs: { base_sha: mainBefore, head_sha: head, start_sha: mainTip },
      merge_commit_sha: null,
      // main is protected: only Maintainers merge into it.
      user: { can_merge: false },
    })

    const maintainer = await person('mara')
    await member(maintainer, project.id, 40)
    const api = new Gitlab({ host: server.url, token: maintainer.token })
    const merged = (await api.MergeRequests.merge(project.id, mr.iid)) as unknown as Record<string, any>
    expect(merged).toMatchObject({
      iid: mr.iid,
      state: 'merged',
      merged_by: { id: maintainer.user.id, username: 'mara' },
      merge_user: { id: maintainer.user.id, username: 'mara' },
      sha: head,
      squash_commit_sha: null,
      merge_status: 'can_be_merged',
      detailed_merge_status: 'not_open',
      // A merged merge request keeps its last version's refs (GL MergeRequest#diff_refs).
      diff_refs: { base_sha: mainBefore, head_sha: head, start_sha: mainTip },
      user: { can_merge: true },
    })
    expect(merged.merged_at).toEqual(merged.updated_at)

    const newMain = await remoteHead(dir, 'main')
    expect(merged.merge_commit_sha).toBe(newMain)
    expect((await show(dir, '%P', newMain!)).trim()).toBe(`${mainTip} ${head}`)
    expect(await show(dir, '%an <%ae>|%cn <%ce>', newMain!)).toBe(`Mara <${maintainer.user.email}>|Mara <${maintainer.user.email}>\n`)
    expect(await show(dir, '%B', newMain!)).toBe(
      `Merge branch 'feature' into 'main'\n\nAdd the feature\n\nSee merge request ${project.path_with_namespace}!${mr.iid}\n`,
    )
    expect(await gitOk(dir, 'show', `${newMain}:feature.txt`)).toBe('one\ntwo\n')
    expect(await gitOk(dir, 'show', `${newMain}:other.txt`)).toBe('meanwhile\n')
    expect(first).not.toBe(head)
    // The source branch stays unless asked for.
    expect(await remoteHead(dir, 'feature')).toBe(head)

    const events = await request('GET', `/projects/${project.id}/events`, { token: owner.token })
    expect(events.status).toBe(200)
    const [accepted, pushed] = events.body
    expect(accepted).toMatchObject({
      action_name: 'accepted',
      target_type: 'MergeRequest',
      target_id: mr.id,
      target_iid: mr.iid,
      target_title: 'Add the feature',
      author_id: maintainer.user.id,
    })
    expect(pushed).toMatchObject({
      action_name: 'pushed to',
      author_id: maintainer.user.id,
      push_data: {
        commit_count: 3,
        action: 'pushed',
        ref_type: 'branch',
        commit_from: mainTip,
        commit_to: newMain,
        ref: 'main',
        commit_title: "Merge branch 'feature' into 'main'",
      },
    })
    const notes = await request('GET', `/projects/${project.id}/merge_requests/${mr.iid}/notes`, { token: owner.token })
    expect(notes.body.map((note: Record<string, any>) => [note.body, note.system, note.author.id])).toEqual([
      ['merged', true, maintainer.user.id],
    ])

    const again = await merge(maintainer, project.id, mr.iid)
    expect([again.status, again.body]).toEqual([405, NOT_ALLOWED])
    const list = await request('GET', `/projects/${project.id}/merge_requests`, { token: owner.token })
    expect(list.body[0]).toMatchObject({ state: 'merged', merge_status: 'can_be_merged', detailed_merge_status: 'not_open', sha: head })
  })

  test('a custom merge commit message, and the project template with its placeholders', async () => {
    const project = await repository(owner)
    const dir = await cloneAs(owner, project.path_with_namespace)
    await commit(dir, 'main', { 'base.txt': 'base\n' }, 'Base')
    await commit(dir, 'one', { 'one.txt': '1\n' }, 'One')
    await gitOk(dir, 'checkout', '--quiet', 'main')
    await commit(dir, 'two', { 'two.txt': '2\n' }, 'Two')
    await gitOk(dir, 'checkout', '--quiet', 'main')
    await commit(dir, 'main', { 'main.txt': 'm\n' }, 'Main moves')
    await push(dir, 'main', 'one', 'two')
    const one = await openMergeRequest(owner, project.id, { source_branch: 'one', title: 'One' })
    const res = await merge(owner, project.id, one.iid, { merge_commit_message: 'Exactly this\n\nand this' })
    expect(res.status, res.text).toBe(200)
    expect(await show(dir, '%B', res.body.merge_commit_sha)).toBe('Exactly this\n\nand this\n')

    const template = '%{title} (%{reference})\n\n%{description}\n\n%{issues}\n\nInto %{target_branch} from %{source_branch}'
    const edit = await request('PUT', `/projects/${project.id}`, { token: owner.token, body: { merge_commit_template: template } })
    expect(edit.status, edit.text).toBe(200)
    const two = await openMergeRequest(owner, project.id, { source_branch: 'two', title: 'Two' })
    const merged = await merge(owner, project.id, two.iid)
    expect(merged.status, merged.text).toBe(200)
    expect(await show(dir, '%B', merged.body.merge_commit_sha)).toBe(
      `Two (${project.path_with_namespace}!${two.iid})\n\nInto main from two\n`,
    )
  })
})

describe('merge methods', () => {
  test('fast-forward only: main moves to the source head without a merge commit; a diverged source needs a rebase', async () => {
    const project = await repository(owner)
    const edit = await request('PUT', `/projects/${project.id}`, { token: owner.token, body: { merge_method: 'ff' } })
    expect(edit.status, edit.text).toBe(200)
    const dir = await cloneAs(owner, project.path_with_namespace)
    const head = await commit(dir, 'linear', { 'a.txt': 'a\n' }, 'Linear')
    await gitOk(dir, 'checkout', '--quiet', 'main')
    await commit(dir, 'late', { 'b.txt': 'b\n' }, 'Late')
    await push(dir, 'linear', 'late')
    const linear = await openMergeRequest(owner, project.id, { source_branch: 'linear' })
    const late = await openMergeRequest(owner, project.id, { source_branch: 'late', title: 'Late' })

    const res = await merge(owner, project.id, linear.iid)
    expect(res.status, res.text).toBe(200)
    expect(res.body).toMatchObject({ state: 'merged', merge_commit_sha: null, squash_commit_sha: null, sha: head })
    expect(await remoteHead(dir, 'main')).toBe(head)

    const behind = await getMergeRequest(owner, project.id, late.iid)
    expect(behind.body).toMatchObject({ merge_status: 'can_be_merged', detailed_merge_status: 'need_rebase', has_conflicts: false })
    const refused = await merge(owner, project.id, late.iid)
    expect([refused.status, refused.body]).toEqual([405, NOT_ALLOWED])
    expect(await remoteHead(dir, 'main')).toBe(head)
  })

  test('semi-linear: refused until the source contains the target, then a merge commit', async () => {
    const project = await repository(owner)
    await request('PUT', `/projects/${project.id}`, { token: owner.token, body: { merge_method: 'rebase_merge' } })
    const dir = await cloneAs(owner, project.path_with_namespace)
    await commit(dir, 'topic', { 't.txt': 't\n' }, 'Topic')
    const mainTip = await commit(dir, 'main', { 'm.txt': 'm\n' }, 'Main moves')
    await push(dir, 'main', 'topic')
    const mr = await openMergeRequest(owner, project.id, { source_branch: 'topic' })
    const refused = await merge(owner, project.id, mr.iid)
    expect([refused.status, refused.body]).toEqual([405, NOT_ALLOWED])
    expect((await getMergeRequest(owner, project.id, mr.iid)).body.detailed_merge_status).toBe('need_rebase')

    await gitOk(dir, 'checkout', '--quiet', 'topic')
    await gitOk(dir, 'rebase', '--quiet', 'main')
    const rebased = (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
    await gitOk(dir, 'push', '--quiet', '--force', 'origin', 'topic')
    const res = await merge(owner, project.id, mr.iid)
    expect(res.status, res.text).toBe(200)
    expect((await show(dir, '%P', res.body.merge_commit_sha)).trim()).toBe(`${mainTip} ${rebased}`)
    expect(await remoteHead(dir, 'main')).toBe(res.body.merge_commit_sha)
  })
})

describe('refusals', () => {
  test('conflicts answer 405 and show as has_conflicts; nothing moves', async () => {
    const project = await repository(owner)
    const dir = await cloneAs(owner, project.path_with_namespace)
    await commit(dir, 'clash', { 'README.md': 'theirs\n' }, 'Theirs')
    const mainTip = await commit(dir, 'main', { 'README.md': 'ours\n' }, 'Ours')
    await push(dir, 'main', 'clash')
    const mr = await openMergeRequest(owner, project.id, { source_branch: 'clash' })
    const shown = await getMergeRequest(owner, project.id, mr.iid)
    expect(shown.body).toMatchObject({ merge_status: 'cannot_be_merged', detailed_merge_status: 'conflict', has_conflicts: true })
    const res = await merge(owner, project.id, mr.iid)
    expect([res.status, res.body]).toEqual([405, NOT_ALLOWED])
    expect(await remoteHead(dir, 'main')).toBe(mainTip)
    expect((await getMergeRequest(owner, project.id, mr.iid)).body.state).toBe('opened')
  })

  test('a project that requires a successful pipeline, or whose repository is read-only, merges nothing', async () => {
    const project = await repository(owner)
    const dir = await cloneAs(owner, project.path_with_namespace)
    await commit(dir, 'clean', { 'c.txt': 'c\n' }, 'Clean')
    await push(dir, 'clean')
    const mr = await openMergeRequest(owner, project.id, { source_branch: 'clean' })
    const edit = await request('PUT', `/projects/${project.id}`, {
      token: owner.token,
      body: { only_allow_merge_if_pipeline_succeeds: true },
    })
    expect(edit.status, edit.text).toBe(200)
    expect((await getMergeRequest(owner, project.id, mr.iid)).body).toMatchObject({
      merge_status: 'can_be_merged',
      detailed_merge_status: 'ci_must_pass',
    })
    const refused = await merge(owner, project.id, mr.iid)
    expect([refused.status, refused.body]).toEqual([405, NOT_ALLOWED])
    await request('PUT', `/projects/${project.id}`, { token: owner.token, body: { only_allow_merge_if_pipeline_succeeds: false } })
    await db.updateTable('projects').set({ repository_read_only: 1 }).where('id', '=', project.id).execute()
    const readOnly = await merge(owner, project.id, mr.iid)
    expect([readOnly.status, readOnly.body]).toEqual([422, { message: 'Branch cannot be merged' }])
    expect((await getMergeRequest(owner, project.id, mr.iid)).body.state).toBe('opened')
  })

  test('who may merge, a stale sha, drafts, closed merge requests, missing branches and auto-merge', async () => {
    const project = await repository(owner)
    const reporter = await person()
    await member(reporter, project.id, 20)
    await member(developer, project.id, 30)
    const dir = await cloneAs(owner, project.path_with_namespace)
    const head = await commit(dir, 'ready', { 'r.txt': 'r\n' }, 'Ready')
    await gitOk(dir, 'checkout', '--quiet', 'main')
    await commit(dir, 'drafty', { 'd.txt': 'd\n' }, 'Drafty')
    await gitOk(dir, 'checkout', '--quiet', 'main')
    await commit(dir, 'shut', { 's.txt': 's\n' }, 'Shut')
    await push(dir, 'ready', 'drafty', 'shut')
    const mr = await openMergeRequest(owner, project.id, { source_branch: 'ready' })
    const draft = await openMergeRequest(owner, project.id, { source_branch: 'drafty', title: 'Draft: not yet' })
    const closed = await openMergeRequest(owner, project.id, { source_branch: 'shut', title: 'Shut' })
    const gone = await openMergeRequest(owner, project.id, { source_branch: 'nowhere', title: 'Nowhere' })
    await request('PUT', `/projects/${project.id}/merge_requests/${closed.iid}`, { token: owner.token, body: { state_event: 'close' } })

    const anonymous = await merge(null, project.id, mr.iid)
    expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }])
    const byReporter = await merge(reporter, project.id, mr.iid)
    expect([byReporter.status, byReporter.body]).toEqual([401, { message: '401 Unauthorized' }])
    const missing = await merge(owner, project.id, 999)
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Not found' }])
    // GL MergeRequest#can_be_merged_by?: main is protected, merged into by Maintainers only.
    const byDeveloper = await merge(developer, project.id, mr.iid)
    expect([byDeveloper.status, byDeveloper.body]).toEqual([401, { message: '401 Unauthorized' }])
    const stale = await merge(owner, project.id, mr.iid, { sha: '0'.repeat(40) })
    expect([stale.status, stale.body]).toEqual([409, { message: `SHA does not match HEAD of source branch: ${head}` }])
    for (const iid of [draft.iid, closed.iid, gone.iid]) {
      const res = await merge(owner, project.id, iid)
      expect([res.status, res.body]).toEqual([405, NOT_ALLOWED])
    }
    expect((await getMergeRequest(owner, project.id, draft.iid)).body.detailed_merge_status).toBe('draft_status')
    expect((await getMergeRequest(owner, project.id, closed.iid)).body.detailed_merge_status).toBe('not_open')
    expect((await getMergeRequest(owner, project.id, gone.iid)).body).toMatchObject({
      sha: null,
      merge_status: 'cannot_be_merged',
      detailed_merge_status: 'commits_status',
      has_conflicts: true,
    })
    // No pipeline to wait for and no other strategy: auto-merge merges now, or fails as an immediate merge would.
    const auto = await merge(owner, project.id, draft.iid, { auto_merge: true })
    expect([auto.status, auto.body]).toEqual([422, { message: 'Branch cannot be merged' }])
    const developersMerge = await request('PATCH', `/projects/${project.id}/protected_branches/main`, {
      token: owner.token,
      body: { allowed_to_merge: [{ access_level: 30 }] },
    })
    expect(developersMerge.status, developersMerge.text).toBe(200)
    const ok = await merge(developer, project.id, mr.iid, { sha: head, merge_when_pipeline_succeeds: true })
    expect(ok.status, ok.text).toBe(200)
    expect(ok.body).toMatchObject({ state: 'merged', merged_by: { id: developer.user.id } })
  })

  test('user.can_merge follows the target branch protection, as can_be_merged_by? does', async () => {
    const project = await repository(owner)
    const reporter = await person()
    await member(reporter, project.id, 20)
    await member(developer, project.id, 30)
    const dir = await cloneAs(owner, project.path_with_namespace)
    await commit(dir, 'feature', { 'f.txt': 'f\n' }, 'Feature')
    await push(dir, 'feature')
    const mr = await openMergeRequest(owner, project.id, { source_branch: 'feature' })
    const canMerge = async (who: Person) => (await getMergeRequest(who, project.id, mr.iid)).body.user.can_merge
    // main is protected from the start: Maintainers merge into it.
    expect([await canMerge(owner), await canMerge(developer), await canMerge(reporter)]).toEqual([true, false, false])
    const protect = await request('PUT', `/projects/${project.id}/repository/branches/main/protect`, {
      token: owner.token,
      body: { developers_can_merge: true },
    })
    expect(protect.status, protect.text).toBe(200)
    expect([await canMerge(owner), await canMerge(developer), await canMerge(reporter)]).toEqual([true, true, false])
    await request('DELETE', `/projects/${project.id}/protected_branches/main`, { token: owner.token })
    await request('PUT', `/projects/${project.id}/repository/branches/main/protect`, { token: owner.token, body: {} })
    expect(await canMerge(developer)).toBe(false)
    await request('DELETE', `/projects/${project.id}/protected_branches/main`, { token: owner.token })
    expect(await canMerge(developer)).toBe(true)
  })
})

describe('squash and source branch removal', () => {
  test('squash: one commit by the author on the merge base, then the merge commit; the source branch removed on request', async () => {
    const project = await repository(owner)
    await member(developer, project.id, 30)
    const devDir = await cloneAs(developer, project.path_with_namespace)
    const base = (await gitOk(devDir, 'rev-parse', 'HEAD')).trim()
    await commit(devDir, 'many', { 'x.txt': '1\n' }, 'One')
    const head = await commit(devDir, 'many', { 'x.txt': '1\n2\n', 'y.txt': 'y\n' }, 'Two')
    await push(devDir, 'many')
    const ownerDir = await cloneAs(owner, project.path_with_namespace)
    const mainTip = await commit(ownerDir, 'main', { 'z.txt': 'z\n' }, 'Main moves')
    await push(ownerDir, 'main')
    const mr = await openMergeRequest(developer, project.id, { source_branch: 'many', title: 'Many things' })

    const res = await merge(owner, project.id, mr.iid, { squash: true, should_remove_source_branch: true })
    expect(res.status, res.text).toBe(200)
    expect(res.body).toMatchObject({ state: 'merged', squash: true, squash_on_merge: true, sha: head })
    const squash = res.body.squash_commit_sha as string
    const mergeCommit = res.body.merge_commit_sha as string
    expect(squash).toMatch(/^[0-9a-f]{40}$/)
    expect((await show(ownerDir, '%P', mergeCommit)).trim()).toBe(`${mainTip} ${squash}`)
    await gitOk(ownerDir, 'fetch', '--quiet', 'origin')
    expect((await show(ownerDir, '%P', squash)).trim()).toBe(base)
    expect(await show(ownerDir, '%an|%cn|%B', squash)).toBe('Dev|Olive|Many things\n')
    expect((await show(ownerDir, '%T', squash)).trim()).toBe((await show(devDir, '%T', head)).trim())
    expect(await remoteHead(ownerDir, 'many')).toBeNull()

    const events = await request('GET', `/projects/${project.id}/events`, { token: owner.token })
    expect(events.body[0]).toMatchObject({
      action_name: 'deleted',
      push_data: { action: 'removed', ref: 'many', commit_from: head, commit_to: null },
    })
    expect(events.body[1]).toMatchObject({ action_name: 'accepted', target_iid: mr.iid })
    // The head stays known through refs/merge-requests/<iid>/head once the branch is gone.
    expect((await getMergeRequest(owner, project.id, mr.iid)).body.sha).toBe(head)
  })

  test('the project squash option decides; a custom squash message; remove_source_branch set at creation', async () => {
    const project = await repository(owner)
    await request('PUT', `/projects/${project.id}`, { token: owner.token, body: { squash_option: 'always' } })
    const dir = await cloneAs(owner, project.path_with_namespace)
    const head = await commit(dir, 'always', { 'a.txt': 'a\n' }, 'A')
    await gitOk(dir, 'checkout', '--quiet', 'main')
    const never = await commit(dir, 'never', { 'n.txt': 'n\n' }, 'N')
    await push(dir, 'always', 'never')
    const mr = await openMergeRequest(owner, project.id, { source_branch: 'always', remove_source_branch: true })
    expect(mr.squash_on_merge).toBe(true)
    const res = await merge(owner, project.id, mr.iid, { squash_commit_message: 'Squashed as asked' })
    expect(res.status, res.text).toBe(200)
    await gitOk(dir, 'fetch', '--quiet', 'origin')
    expect(await show(dir, '%B', res.body.squash_commit_sha)).toBe('Squashed as asked\n')
    expect(await remoteHead(dir, 'always')).toBeNull()
    expect(res.body.sha).toBe(head)

    await request('PUT', `/projects/${project.id}`, { token: owner.token, body: { squash_option: 'never' } })
    const other = await openMergeRequest(owner, project.id, { source_branch: 'never' })
    const plain = await merge(owner, project.id, other.iid, { squash: true })
    expect(plain.status, plain.text).toBe(200)
    expect(plain.body).toMatchObject({ squash: true, squash_on_merge: false, squash_commit_sha: null })
    expect((await show(dir, '%P', plain.body.merge_commit_sha)).trim().split(' ')[1]).toBe(never)
  })
})

describe('forks', () => {
  test('a merge request from a fork is created on the fork, targets the upstream, and merges the fork commits into it', async () => {
    const upstream = await repository(owner)
    const forker = await person('fran')
    const fork = await repository(forker, { initialize_with_readme: false, visibility: 'public' })
    await db.updateTable('projects').set({ forked_from_project_id: upstream.id }).where('id', '=', fork.id).execute()
    const dir = await cloneAs(owner, upstream.path_with_namespace)
    await gitOk(dir, 'remote', 'add', 'fork', repoUrl(server.url, fork.path_with_namespace, forker.user.username, forker.password))
    await gitOk(dir, 'push', '--quiet', 'fork', 'main')
    const head = await commit(dir, 'forked', { 'fork.txt': 'from the fork\n' }, 'From the fork')
    await gitOk(dir, 'push', '--quiet', 'fork', 'forked')

    const res = await request('POST', `/projects/${fork.id}/merge_requests`, {
      token: forker.token,
      body: { source_branch: 'forked', target_branch: 'main', title: 'From the fork', target_project_id: upstream.id },
    })
    expect(res.status, res.text).toBe(201)
    expect(res.body).toMatchObject({
      iid: 1,
      project_id: upstream.id,
      source_project_id: fork.id,
      target_project_id: upstream.id,
      sha: head,
      merge_status: 'can_be_merged',
      detailed_merge_status: 'mergeable',
      web_url: `${server.url}/${upstream.path_with_namespace}/-/merge_requests/1`,
      user: { can_merge: false },
    })
    const duplicate = await request('POST', `/projects/${fork.id}/merge_requests`, {
      token: forker.token,
      body: { source_branch: 'forked', target_branch: 'main', title: 'Again', target_project_id: upstream.id },
    })
    expect([duplicate.status, duplicate.body]).toEqual([
      409,
      { message: ['Another open merge request already exists for this source branch: !1'] },
    ])
    // Lists read the head from the refs without checking mergeability.
    const list = await request('GET', `/projects/${upstream.id}/merge_requests`, { token: forker.token })
    expect(list.body[0]).toMatchObject({ iid: 1, sha: head, merge_status: 'unchecked', detailed_merge_status: 'unchecked' })
    const byForker = await merge(forker, upstream.id, 1)
    expect([byForker.status, byForker.body]).toEqual([401, { message: '401 Unauthorized' }])

    const merged = await merge(owner, upstream.id, 1, { should_remove_source_branch: true })
    expect(merged.status, merged.text).toBe(200)
    const main = await remoteHead(dir, 'main')
    expect(merged.body).toMatchObject({ state: 'merged', merge_commit_sha: main, sha: head })
    expect((await show(dir, '%P', main!)).trim().split(' ')[1]).toBe(head)
    expect(await gitOk(dir, 'show', `${main}:fork.txt`)).toBe('from the fork\n')
    expect(await show(dir, '%B', main!)).toBe(
      `Merge branch 'forked' into 'main'\n\nFrom the fork\n\nSee merge request ${upstream.path_with_namespace}!1\n`,
    )
    // The upstream's Owner may not push to the fork, so its branch stays.
    const forkHeads = await gitOk(dir, 'ls-remote', '--heads', 'fork')
    expect(forkHeads).toContain(`${head}\trefs/heads/forked`)
  })

  test('without target_project_id a fork targets its upstream unless it targets itself by default', async () => {
    const upstream = await repository(owner)
    const forker = await person()
    const fork = await repository(forker)
    await db.updateTable('projects').set({ forked_from_project_id: upstream.id }).where('id', '=', fork.id).execute()
    const toUpstream = await openMergeRequest(forker, fork.id, { source_branch: 'x' })
    expect([toUpstream.project_id, toUpstream.source_project_id]).toEqual([upstream.id, fork.id])
    await request('PUT', `/projects/${fork.id}`, { token: forker.token, body: { mr_default_target_self: true } })
    const toSelf = await openMergeRequest(forker, fork.id, { source_branch: 'y' })
    expect([toSelf.project_id, toSelf.source_project_id]).toEqual([fork.id, fork.id])
  })
})
