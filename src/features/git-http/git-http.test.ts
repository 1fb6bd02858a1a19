import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { GitClient, repoUrl } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { projectRepositoryDirectory } from '../repositories/index.js'
import { changeSettings, createTestApplication, createTestGrant, REDIRECT_URI } from '../oauth/token-fixtures.js'

let server: TestServer
let request: ReturnType<typeof client>
let owner: User
let ownerToken: string

const DENIED =
  "HTTP Basic: Access denied. If a password was provided for Git authentication, the password was incorrect or you're required " +
  'to use a token instead of a password. If a token was provided, it was either incorrect, expired, or improperly scoped. See '

const gitClient = new GitClient()
const git = (cwd: string, ...args: string[]) => gitClient.run(cwd, ...args)
const gitOk = (cwd: string, ...args: string[]) => gitClient.ok(cwd, ...args)
const freshDir = () => gitClient.freshDir()

async function clone(fullPath: string, login?: string, password?: string) {
  return gitClient.clone(repoUrl(server.url, fullPath, login, password))
}

async function createProject(body: Record<string, unknown>, token = ownerToken): Promise<Record<string, any>> {
  const res = await request('POST', '/api/v4/projects', { token, body })
  expect(res.status, res.text).toBe(201)
  return res.body as Record<string, any>
}

function basic(login: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` }
}

async function infoRefs(fullPath: string, service: string, headers: Record<string, string> = {}) {
  return request('GET', `/${fullPath}.git/info/refs?service=${service}`, { headers })
}

async function oauthToken(user: User, scopes: string): Promise<string> {
  const app = await createTestApplication(server.database.db, { scopes })
  const grant = await createTestGrant(server.database.db, app, user, { scopes })
  const res = await request('POST', '/oauth/token', {
    form: true,
    body: {
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: REDIRECT_URI,
      client_id: app.clientId,
      client_secret: app.secret,
    },
  })
  expect(res.status, res.text).toBe(200)
  return res.body.access_token as string
}

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  owner = await createTestUser(server.database.db, { username: 'olga', password: 'olga-secret-1' })
  ownerToken = (await createTestToken(server.database.db, owner)).value
})

afterAll(async () => {
  await server.close()
  gitClient.remove()
})

describe('public projects', () => {
  test('anyone clones and fetches without credentials', async () => {
    const project = await createProject({ name: 'Open', visibility: 'public', initialize_with_readme: true })
    const { run, dir } = await clone(project.path_with_namespace)
    expect(run.code, run.stderr).toBe(0)
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toContain('# Open')
    expect((await gitOk(dir, 'rev-parse', 'HEAD')).trim()).toMatch(/^[0-9a-f]{40}$/)
    await gitOk(dir, 'fetch', '--quiet', 'origin')

    const refs = await infoRefs(project.path_with_namespace, 'git-upload-pack')
    expect(refs.status).toBe(200)
    expect(refs.headers['content-type']).toBe('application/x-git-upload-pack-advertisement')
    expect(refs.text.startsWith('001e# service=git-upload-pack\n0000')).toBe(true)
  })

  test('pushing without credentials is asked for them', async () => {
    const project = await createProject({ name: 'Open push', visibility: 'public', initialize_with_readme: true })
    const res = await infoRefs(project.path_with_namespace, 'git-receive-pack')
    expect(res.status).toBe(401)
    expect(res.headers['www-authenticate']).toBe('Basic realm="GitLab"')
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(res.text).toBe(`${DENIED}${server.url}/help/topics/git/troubleshooting_git.md#error-on-git-fetch-http-basic-access-denied`)
  })

  test('a renamed project still answers at its former path and in other letter case', async () => {
    const project = await createProject({ name: 'Before', path: 'before', visibility: 'public', initialize_with_readme: true })
    const renamed = await request('PUT', `/api/v4/projects/${project.id}`, { token: ownerToken, body: { path: 'after' } })
    expect(renamed.status, renamed.text).toBe(200)
    expect((await clone('olga/before')).run.code).toBe(0)
    expect((await clone('OLGA/After')).run.code).toBe(0)
  })

  test('a project whose repository is missing answers 404 with GitLab’s text', async () => {
    const project = await createTestProject(server.database.db, {
      namespace: await createTestGroup(server.database.db),
      visibility: 'public',
    })
    const anonymous = await infoRefs(project.full_path, 'git-upload-pack')
    expect(anonymous.status).toBe(404)
    expect(anonymous.text).toBe('A repository for this project does not exist yet.')
    const pushed = await infoRefs(project.full_path, 'git-receive-pack', basic('root', server.rootToken))
    expect(pushed.status).toBe(404)
    expect(pushed.text).toBe('A repository for this project does not exist yet.')
  })

  test('a gzip-encoded fetch request is inflated', async () => {
    const project = await createProject({ name: 'Gzip', visibility: 'public', initialize_with_readme: true })
    const { dir } = await clone(project.path_with_namespace)
    const head = (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
    const want = `want ${head}\n`
    const body = `${(want.length + 4).toString(16).padStart(4, '0')}${want}00000009done\n`
    const res = await fetch(`${server.url}/${project.path_with_namespace}.git/git-upload-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'gzip' },
      body: gzipSync(body),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/x-git-upload-pack-result')
    expect(Buffer.from(await res.arrayBuffer()).includes('PACK')).toBe(true)
  })

  test('a project in nested groups answers at its full path; an unknown path asks for credentials', async () => {
    const top = await createTestGroup(server.database.db, { path: 'top' })
    const sub = await createTestGroup(server.database.db, { path: 'sub', parent: top })
    const project = await createProject(
      { name: 'Deep', namespace_id: sub.id, visibility: 'public', initialize_with_readme: true },
      server.rootToken,
    )
    expect(project.path_with_namespace).toBe('top/sub/Deep')
    const { run, dir } = await clone('top/sub/Deep')
    expect(run.code, run.stderr).toBe(0)
    expect(fs.existsSync(path.join(dir, 'README.md'))).toBe(true)
    const missing = await infoRefs('top/sub/Nothing', 'git-upload-pack')
    expect(missing.status).toBe(401)
    expect(missing.headers['www-authenticate']).toBe('Basic realm="GitLab"')
    const missingSignedIn = await infoRefs('top/sub/Nothing', 'git-upload-pack', basic('olga', ownerToken))
    expect(missingSignedIn.status).toBe(404)
    expect(missingSignedIn.text).toBe("The project you were looking for could not be found or you don't have permission to view it.")
  })
})

describe('private projects', () => {
  let project: Record<string, any>
  let reporter: User

  beforeAll(async () => {
    project = await createProject({ name: 'Secret', visibility: 'private', initialize_with_readme: true })
    reporter = await createTestUser(server.database.db, { username: 'rita', password: 'rita-secret-1' })
    await addTestMember(server.database.db, { user: reporter, project: { id: project.id } as never, accessLevel: 20 })
  })

  test('anonymous callers get 401 with a Basic challenge, and git fails', async () => {
    const res = await infoRefs(project.path_with_namespace, 'git-upload-pack')
    expect(res.status).toBe(401)
    expect(res.headers['www-authenticate']).toBe('Basic realm="GitLab"')
    expect(res.text.startsWith(DENIED)).toBe(true)
    const { run } = await clone(project.path_with_namespace)
    expect(run.code).not.toBe(0)
  })

  test('a personal access token clones, with any username', async () => {
    const token = (await createTestToken(server.database.db, reporter, { scopes: ['read_repository'] })).value
    const { run, dir } = await clone(project.path_with_namespace, 'anything', token)
    expect(run.code, run.stderr).toBe(0)
    expect(fs.existsSync(path.join(dir, 'README.md'))).toBe(true)
    await gitOk(dir, 'fetch', '--quiet', 'origin')
  })

  test('bad, expired, revoked tokens are asked again; a token without a repository scope may not download', async () => {
    const bad = await infoRefs(project.path_with_namespace, 'git-upload-pack', basic('rita', 'glpat-nonsense'))
    expect(bad.status).toBe(401)
    expect(bad.headers['www-authenticate']).toBe('Basic realm="GitLab"')
    const expired = (await createTestToken(server.database.db, reporter, { scopes: ['api'], expiresAt: '2020-01-01' })).value
    expect((await infoRefs(project.path_with_namespace, 'git-upload-pack', basic('rita', expired))).status).toBe(401)
    const revoked = (await createTestToken(server.database.db, reporter, { scopes: ['api'], revoked: true })).value
    expect((await infoRefs(project.path_with_namespace, 'git-upload-pack', basic('rita', revoked))).status).toBe(401)
    const readApi = (await createTestToken(server.database.db, reporter, { scopes: ['read_api'] })).value
    const res = await infoRefs(project.path_with_namespace, 'git-upload-pack', basic('rita', readApi))
    expect(res.status).toBe(403)
    expect(res.headers['www-authenticate']).toBeUndefined()
    expect(res.text).toBe('You are not allowed to download code.')
    // The token's abilities are judged before the project is looked for.
    const unknown = await infoRefs(`${project.path_with_namespace}-missing`, 'git-upload-pack', basic('rita', readApi))
    expect(unknown.status).toBe(403)
    expect(unknown.text).toBe('You are not allowed to download code.')
  })

  test('a signed-in user who cannot see the project gets 404', async () => {
    const stranger = await createTestUser(server.database.db)
    const token = (await createTestToken(server.database.db, stranger, { scopes: ['api'] })).value
    const res = await infoRefs(project.path_with_namespace, 'git-upload-pack', basic('x', token))
    expect(res.status).toBe(404)
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(res.text).toBe("The project you were looking for could not be found or you don't have permission to view it.")
  })

  test('an OAuth access token clones with the username oauth2', async () => {
    const token = await oauthToken(reporter, 'read_repository')
    const { run, dir } = await clone(project.path_with_namespace, 'oauth2', token)
    expect(run.code, run.stderr).toBe(0)
    expect(fs.existsSync(path.join(dir, 'README.md'))).toBe(true)
  })

  test('the password clones while password authentication for Git is on', async () => {
    const { run } = await clone(project.path_with_namespace, 'rita', 'rita-secret-1')
    expect(run.code, run.stderr).toBe(0)
    expect((await infoRefs(project.path_with_namespace, 'git-upload-pack', basic('rita', 'wrong-password'))).status).toBe(401)
    await changeSettings(server, { password_authentication_enabled_for_git: false })
    try {
      const res = await infoRefs(project.path_with_namespace, 'git-upload-pack', basic('rita', 'rita-secret-1'))
      expect(res.status).toBe(401)
      expect(res.headers['www-authenticate']).toBe('Basic realm="GitLab"')
    } finally {
      await changeSettings(server, { password_authentication_enabled_for_git: true })
    }
  })

  test('an internal project is cloned by any signed-in user, not anonymously', async () => {
    const internal = await createProject({ name: 'Inside', visibility: 'internal', initialize_with_readme: true })
    const someone = await createTestUser(server.database.db)
    const token = (await createTestToken(server.database.db, someone, { scopes: ['read_repository'] })).value
    expect((await clone(internal.path_with_namespace, 'someone', token)).run.code).toBe(0)
    expect((await infoRefs(internal.path_with_namespace, 'git-upload-pack')).status).toBe(401)
  })
})

describe('pushing', () => {
  let developer: User
  let reporter: User

  beforeAll(async () => {
    developer = await createTestUser(server.database.db, { username: 'dev' })
    reporter = await createTestUser(server.database.db, { username: 'rep' })
  })

  async function projectWithMembers(name: string, body: Record<string, unknown> = { initialize_with_readme: true }) {
    const project = await createProject({ name, visibility: 'private', ...body })
    await addTestMember(server.database.db, { user: developer, project: { id: project.id } as never, accessLevel: 30 })
    await addTestMember(server.database.db, { user: reporter, project: { id: project.id } as never, accessLevel: 20 })
    return project
  }

  async function events(projectId: number) {
    const res = await request('GET', `/api/v4/projects/${projectId}/events?action=pushed&sort=asc`, { token: server.rootToken })
    expect(res.status).toBe(200)
    return res.body as Record<string, any>[]
  }

  test('a Developer pushes commits, branches and tags; each ref change records a push event with push_data', async () => {
    const project = await projectWithMembers('Pushed')
    // A new project's main is protected (Maintainers push): unprotected, Developers push to it as GitLab lets them.
    const unprotected = await request('DELETE', `/api/v4/projects/${project.id}/protected_branches/main`, { token: ownerToken })
    expect(unprotected.status).toBe(204)
    const token = (await createTestToken(server.database.db, developer, { scopes: ['write_repository'] })).value
    const { run, dir } = await clone(project.path_with_namespace, 'dev', token)
    expect(run.code, run.stderr).toBe(0)
    const first = (await gitOk(dir, 'rev-parse', 'HEAD')).trim()

    fs.writeFileSync(path.join(dir, 'a.txt'), 'a\n')
    await gitOk(dir, 'add', 'a.txt')
    const longTitle = `Add a file with a title that is much longer than seventy characters, to be cut`
    await gitOk(dir, 'commit', '--quiet', '-m', `${longTitle}\n\nBody text.`)
    const second = (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
    await gitOk(dir, 'push', '--quiet', 'origin', 'main')

    let list = await events(project.id)
    expect(list).toHaveLength(1)
    expect(list[0]).toMatchObject({ action_name: 'pushed to', author_username: 'dev', target_type: null, project_id: project.id })
    expect(list[0].push_data).toEqual({
      commit_count: 1,
      action: 'pushed',
      ref_type: 'branch',
      commit_from: first,
      commit_to: second,
      ref: 'main',
      commit_title: `${longTitle.slice(0, 67)}...`,
      ref_count: null,
    })
    expect(Object.keys(list[0])).toEqual([
      'id',
      'title',
      'project_id',
      'action_name',
      'target_id',
      'target_iid',
      'target_type',
      'author_id',
      'target_title',
      'created_at',
      'author',
      'push_data',
      'imported',
      'imported_from',
      'author_username',
    ])

    await gitOk(dir, 'checkout', '--quiet', '-b', 'feature')
    for (const name of ['b', 'c']) {
      fs.writeFileSync(path.join(dir, `${name}.txt`), `${name}\n`)
      await gitOk(dir, 'add', `${name}.txt`)
      await gitOk(dir, 'commit', '--quiet', '-m', `Add ${name}`)
    }
    const feature = (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
    await gitOk(dir, 'tag', 'v1.0', second)
    await gitOk(dir, 'push', '--quiet', 'origin', 'feature', 'v1.0')

    list = await events(project.id)
    expect(list.slice(1).map((event) => [event.action_name, event.push_data])).toEqual([
      [
        'pushed new',
        {
          commit_count: 2,
          action: 'created',
          ref_type: 'branch',
          commit_from: null,
          commit_to: feature,
          ref: 'feature',
          commit_title: 'Add c',
          ref_count: null,
        },
      ],
      [
        'pushed new',
        {
          commit_count: 1,
          action: 'created',
          ref_type: 'tag',
          commit_from: null,
          commit_to: second,
          ref: 'v1.0',
          commit_title: `${longTitle.slice(0, 67)}...`,
          ref_count: null,
        },
      ],
    ])

    await gitOk(dir, 'push', '--quiet', 'origin', '--delete', 'feature')
    list = await events(project.id)
    expect(list).toHaveLength(4)
    expect(list[3].action_name).toBe('deleted')
    expect(list[3].push_data).toEqual({
      commit_count: 0,
      action: 'removed',
      ref_type: 'branch',
      commit_from: feature,
      commit_to: null,
      ref: 'feature',
      commit_title: null,
      ref_count: null,
    })

    // What was pushed is there for the next clone.
    const again = await clone(project.path_with_namespace, 'dev', token)
    expect(fs.readFileSync(path.join(again.dir, 'a.txt'), 'utf8')).toBe('a\n')
  })

  test('the first push into an empty repository makes the project non-empty, with its README', async () => {
    const project = await projectWithMembers('Empty at first', {})
    expect(project.empty_repo).toBe(true)
    // An empty project's first branch is its Maintainers' to push (GitLab's default branch protection).
    const maintainer = await createTestUser(server.database.db, { username: 'mae' })
    await addTestMember(server.database.db, { user: maintainer, project: { id: project.id } as never, accessLevel: 40 })
    const token = (await createTestToken(server.database.db, maintainer, { scopes: ['api'] })).value
    const dir = freshDir()
    await gitOk(gitClient.workDir, 'init', '--quiet', '--initial-branch=main', dir)
    fs.writeFileSync(path.join(dir, 'README.md'), '# Hello\n')
    await gitOk(dir, 'add', 'README.md')
    await gitOk(dir, 'commit', '--quiet', '-m', 'First')
    await gitOk(dir, 'push', '--quiet', repoUrl(server.url, project.path_with_namespace, 'mae', token), 'main')
    const res = await request('GET', `/api/v4/projects/${project.id}`, { token: server.rootToken })
    expect(res.body).toMatchObject({ empty_repo: false, default_branch: 'main', readme_url: `${project.web_url}/-/blob/main/README.md` })
    const [event] = await events(project.id)
    expect(event.push_data).toMatchObject({ commit_count: 1, action: 'created', ref: 'main', commit_title: 'First' })
  })

  test('pushes running together into one repository all land, and each is recorded once, by itself', async () => {
    const project = await projectWithMembers('Busy')
    const token = (await createTestToken(server.database.db, developer, { scopes: ['api'] })).value
    const { dir } = await clone(project.path_with_namespace, 'dev', token)
    const head = (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
    // Each creates a branch at the commit the repository has, as git sends it: commands, a flush, an empty pack.
    const header = Buffer.from([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, 0])
    const emptyPack = Buffer.concat([header, createHash('sha1').update(header).digest()])
    const push = async (n: number) => {
      const line = `${'0'.repeat(40)} ${head} refs/heads/busy-${n}\0 report-status\n`
      const body = Buffer.concat([Buffer.from(`${(line.length + 4).toString(16).padStart(4, '0')}${line}0000`), emptyPack])
      // Some arrive gzip-encoded: their commands are read once inflated.
      const gzipped = n % 3 === 0
      const res = await fetch(`${server.url}/${project.path_with_namespace}.git/git-receive-pack`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-git-receive-pack-request',
          ...(gzipped ? { 'content-encoding': 'gzip' } : {}),
          ...basic('dev', token),
        },
        body: gzipped ? gzipSync(body) : body,
      })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/x-git-receive-pack-result')
      expect(await res.text()).toContain(`ok refs/heads/busy-${n}\n`)
    }
    await Promise.all(Array.from({ length: 12 }, async (_, n) => push(n)))
    const listed = (await gitOk(dir, 'ls-remote', '--heads', 'origin', 'busy-*')).trim().split('\n')
    expect(listed).toHaveLength(12)
    const recorded = (await events(project.id)).map((event) => event.push_data)
    expect(recorded.map((data) => data.ref).sort()).toEqual(Array.from({ length: 12 }, (_, n) => `busy-${n}`).sort())
    for (const data of recorded) expect(data).toMatchObject({ action: 'created', commit_count: 0, commit_from: null, commit_to: head })
  })

  test('a push whose command fails, or changes nothing, records nothing', async () => {
    const project = await projectWithMembers('Refused commands')
    const token = (await createTestToken(server.database.db, developer, { scopes: ['api'] })).value
    const { dir } = await clone(project.path_with_namespace, 'dev', token)
    const head = (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
    const commands = [
      // main is not at this old value: receive-pack refuses the update.
      `${'1'.repeat(40)} ${head} refs/heads/main\0 report-status\n`,
      // A branch that is not there, deleted.
      `${head} ${'0'.repeat(40)} refs/heads/missing\n`,
    ]
    const body = Buffer.from(`${commands.map((line) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`).join('')}0000`)
    const res = await fetch(`${server.url}/${project.path_with_namespace}.git/git-receive-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-receive-pack-request', ...basic('dev', token) },
      body,
    })
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('ng refs/heads/main')
    expect(await events(project.id)).toEqual([])
  })

  test('a request of the wrong type is refused as git http-backend refuses it', async () => {
    const project = await projectWithMembers('Wrong type')
    const token = (await createTestToken(server.database.db, developer, { scopes: ['api'] })).value
    const res = await fetch(`${server.url}/${project.path_with_namespace}.git/git-receive-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-upload-pack-request', ...basic('dev', token) },
      body: '0000',
    })
    expect(res.status).toBe(415)
    expect(res.headers.get('cache-control')).toBe('no-cache, max-age=0, must-revalidate')
    expect(await res.text()).toBe(
      "Expected POST with Content-Type 'application/x-git-receive-pack-request', but received 'application/x-git-upload-pack-request' instead.\n",
    )
  })

  test('a Reporter may not push', async () => {
    const project = await projectWithMembers('No reporters')
    const token = (await createTestToken(server.database.db, reporter, { scopes: ['api'] })).value
    const res = await infoRefs(project.path_with_namespace, 'git-receive-pack', basic('rep', token))
    expect(res.status).toBe(403)
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(res.text).toBe('You are not allowed to push code to this project.')

    const { run, dir } = await clone(project.path_with_namespace, 'rep', token)
    expect(run.code, run.stderr).toBe(0)
    fs.writeFileSync(path.join(dir, 'x.txt'), 'x\n')
    await gitOk(dir, 'add', 'x.txt')
    await gitOk(dir, 'commit', '--quiet', '-m', 'Nope')
    const push = await git(dir, 'push', 'origin', 'main')
    expect(push.code).not.toBe(0)
    expect(push.stderr).toContain('You are not allowed to push code to this project.')
    expect(await events(project.id)).toEqual([])
  })

  test('a token without write_repository or api may not push, even a Developer’s', async () => {
    const project = await projectWithMembers('Read only token')
    const token = (await createTestToken(server.database.db, developer, { scopes: ['read_repository'] })).value
    const res = await infoRefs(project.path_with_namespace, 'git-receive-pack', basic('dev', token))
    expect(res.status).toBe(403)
    expect(res.text).toBe('You are not allowed to upload code.')
    const { dir } = await clone(project.path_with_namespace, 'dev', token)
    fs.writeFileSync(path.join(dir, 'y.txt'), 'y\n')
    await gitOk(dir, 'add', 'y.txt')
    await gitOk(dir, 'commit', '--quiet', '-m', 'Nope')
    expect((await git(dir, 'push', 'origin', 'main')).code).not.toBe(0)
    const oauth = await oauthToken(developer, 'read_repository')
    expect((await infoRefs(project.path_with_namespace, 'git-receive-pack', basic('oauth2', oauth))).text).toBe(
      'You are not allowed to upload code.',
    )
    expect(await events(project.id)).toEqual([])
  })

  test('an archived project takes no pushes but can still be cloned', async () => {
    const project = await projectWithMembers('Archived')
    expect((await request('POST', `/api/v4/projects/${project.id}/archive`, { token: server.rootToken })).status).toBe(201)
    const token = (await createTestToken(server.database.db, developer, { scopes: ['api'] })).value
    const res = await infoRefs(project.path_with_namespace, 'git-receive-pack', basic('dev', token))
    expect(res.status).toBe(403)
    expect(res.text).toBe("You can't push code to an archived project.")
    expect((await infoRefs(project.path_with_namespace, 'git-upload-pack', basic('dev', token))).status).toBe(200)
  })

  test('an unknown service is refused once the caller is known', async () => {
    const project = await projectWithMembers('Services')
    const token = (await createTestToken(server.database.db, developer, { scopes: ['api'] })).value
    const res = await request('GET', `/${project.path_with_namespace}.git/info/refs`, { headers: basic('dev', token) })
    expect(res.status).toBe(403)
    expect(res.text).toBe("The command you're trying to execute is not allowed.")
    const bad = await request('GET', `/${project.path_with_namespace}.git/info/refs`, { headers: basic('dev', 'wrong') })
    expect(bad.status).toBe(401)
    expect((await request('GET', `/${project.path_with_namespace}.git/info/refs?service=git-upload-archive`)).status).toBe(401)
  })
})

describe('a caller that goes away', () => {
  test('a push whose caller disconnects before the answer still lands and is recorded', async () => {
    const developer = await createTestUser(server.database.db)
    const project = await createProject({ name: 'Dropped', visibility: 'private', initialize_with_readme: true })
    // main is protected: a Maintainer pushes to it.
    await addTestMember(server.database.db, { user: developer, project: { id: project.id } as never, accessLevel: 40 })
    const token = (await createTestToken(server.database.db, developer, { scopes: ['api'] })).value
    const { dir } = await clone(project.path_with_namespace, 'dev', token)
    const old = (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
    fs.writeFileSync(path.join(dir, 'z.txt'), 'z\n')
    await gitOk(dir, 'add', 'z.txt')
    await gitOk(dir, 'commit', '--quiet', '-m', 'Sent and gone')
    const next = (await gitOk(dir, 'rev-parse', 'HEAD')).trim()
    const pack = await new Promise<Buffer>((resolve, reject) => {
      const child = execFile('git', ['pack-objects', '--stdout', '--revs'], { cwd: dir, encoding: 'buffer' }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      )
      child.stdin?.end(`${next}\n^${old}\n`)
    })
    const command = `${old} ${next} refs/heads/main\0report-status\n`
    const body = Buffer.concat([Buffer.from(`${(command.length + 4).toString(16).padStart(4, '0')}${command}0000`), pack])

    const controller = new AbortController()
    const res = await fetch(`${server.url}/${project.path_with_namespace}.git/git-receive-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-receive-pack-request', ...basic('dev', token) },
      body,
      signal: controller.signal,
    })
    expect(res.status).toBe(200)
    controller.abort()

    let events: Record<string, any>[] = []
    for (let attempt = 0; attempt < 50 && events.length === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      events = (await request('GET', `/api/v4/projects/${project.id}/events?action=pushed`, { token: server.rootToken })).body
    }
    expect(events.map((event) => event.push_data)).toEqual([
      {
        commit_count: 1,
        action: 'pushed',
        ref_type: 'branch',
        commit_from: old,
        commit_to: next,
        ref: 'main',
        commit_title: 'Sent and gone',
        ref_count: null,
      },
    ])
  })

  /** The processes this test process runs, at any depth, that work on `directory` (parallel tests leave theirs alone). */
  function gitProcessesOf(directory: string): string[] {
    const found: string[] = []
    const visit = (pid: string) => {
      const children: string[] = []
      try {
        for (const task of fs.readdirSync(`/proc/${pid}/task`))
          children.push(...fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean))
      } catch {
        return // the process has just exited
      }
      for (const child of children) {
        try {
          const environ = fs.readFileSync(`/proc/${child}/environ`, 'latin1').split('\0')
          const cwd = fs.readlinkSync(`/proc/${child}/cwd`)
          if (cwd === directory || environ.some((entry) => entry.startsWith(`PATH_TRANSLATED=${directory}/`)))
            found.push(`${child} ${fs.readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()}`)
        } catch {
          // the process has just exited
        }
        visit(child)
      }
    }
    visit(String(process.pid))
    return found
  }

  async function waitFor<T>(read: () => T, done: (value: T) => boolean): Promise<T> {
    let value = read()
    for (let attempt = 0; attempt < 50 && !done(value); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      value = read()
    }
    return value
  }

  /** Sends the head of a POST announcing `length` bytes, then part of its body, and keeps the socket open. */
  async function sendShortBody(
    serverUrl: string,
    urlPath: string,
    headers: Record<string, string>,
    length: number,
    part: string,
  ): Promise<net.Socket> {
    const { port } = new URL(serverUrl)
    const socket = net.connect(Number(port), '127.0.0.1')
    socket.on('error', () => {})
    await new Promise((resolve) => socket.once('connect', resolve))
    const lines = Object.entries({ host: `127.0.0.1:${port}`, ...headers, 'content-length': String(length) }).map(
      ([k, v]) => `${k}: ${v}\r\n`,
    )
    socket.write(`POST ${urlPath} HTTP/1.1\r\n${lines.join('')}\r\n${part}`)
    return socket
  }

  /** Waits until a git process runs in `directory`. */
  async function expectBackendRunning(directory: string) {
    expect(
      (
        await waitFor(
          () => gitProcessesOf(directory),
          (found) => found.length > 0,
        )
      ).length,
    ).toBeGreaterThan(0)
  }

  /** Once the request's backend runs in `directory`, drops the connection; then no git process is left there. */
  async function dropAndExpectNoBackend(directory: string, socket: net.Socket) {
    await expectBackendRunning(directory)
    socket.destroy()
    expect(
      await waitFor(
        () => gitProcessesOf(directory),
        (found) => found.length === 0,
      ),
    ).toEqual([])
  }

  async function repositoryOfProject(id: number): Promise<string> {
    const row = await server.database.db
      .selectFrom('projects')
      .select(['id', 'repository_storage'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    return projectRepositoryDirectory(server.config, row)
  }

  const command = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`

  test('a push whose body ends short of its length ends its backend, and the next push lands', async () => {
    const developer = await createTestUser(server.database.db)
    const project = await createProject({ name: 'Cut short', visibility: 'private', initialize_with_readme: true })
    // main is protected: a Maintainer pushes to it.
    await addTestMember(server.database.db, { user: developer, project: { id: project.id } as never, accessLevel: 40 })
    const token = (await createTestToken(server.database.db, developer, { scopes: ['api'] })).value
    const directory = await repositoryOfProject(project.id)
    const { dir } = await clone(project.path_with_namespace, 'dev', token)
    const old = (await gitOk(dir, 'rev-parse', 'HEAD')).trim()

    const socket = await sendShortBody(
      server.url,
      `/${project.path_with_namespace}.git/git-receive-pack`,
      { 'content-type': 'application/x-git-receive-pack-request', ...basic('dev', token) },
      156,
      command(`${old} ${'1'.repeat(40)} refs/heads/main\0report-status\n`),
    )
    await dropAndExpectNoBackend(directory, socket)

    fs.writeFileSync(path.join(dir, 'after.txt'), 'after\n')
    await gitOk(dir, 'add', 'after.txt')
    await gitOk(dir, 'commit', '--quiet', '-m', 'After the cut')
    await gitOk(dir, 'push', '--quiet', 'origin', 'main')
    expect((await gitOk(dir, 'ls-remote', 'origin', 'refs/heads/main')).split('\t')[0]).toBe((await gitOk(dir, 'rev-parse', 'HEAD')).trim())
  })

  test('a fetch whose body ends short of its length ends its backend, and the next clone works', async () => {
    const project = await createProject({ name: 'Fetch cut short', visibility: 'public', initialize_with_readme: true })
    const directory = await repositoryOfProject(project.id)
    const { dir } = await clone(project.path_with_namespace)
    const head = (await gitOk(dir, 'rev-parse', 'HEAD')).trim()

    const socket = await sendShortBody(
      server.url,
      `/${project.path_with_namespace}.git/git-upload-pack`,
      { 'content-type': 'application/x-git-upload-pack-request' },
      156,
      command(`want ${head}\n`),
    )
    await dropAndExpectNoBackend(directory, socket)

    const again = await clone(project.path_with_namespace)
    expect(again.run.code, again.run.stderr).toBe(0)
    expect((await gitOk(again.dir, 'rev-parse', 'HEAD')).trim()).toBe(head)
  })

  test('closing the server ends the backends of requests still arriving', async () => {
    const other = await startTestServer()
    let closed = false
    try {
      const res = await client(other.url)('POST', '/api/v4/projects', {
        token: other.rootToken,
        body: { name: 'Closing', visibility: 'public', initialize_with_readme: true },
      })
      expect(res.status, res.text).toBe(201)
      const row = await other.database.db
        .selectFrom('projects')
        .select(['id', 'repository_storage'])
        .where('id', '=', res.body.id)
        .executeTakeFirstOrThrow()
      const directory = projectRepositoryDirectory(other.config, row)
      const socket = await sendShortBody(
        other.url,
        `/${res.body.path_with_namespace}.git/git-upload-pack`,
        { 'content-type': 'application/x-git-upload-pack-request' },
        156,
        command(`want ${'1'.repeat(40)}\n`),
      )
      await expectBackendRunning(directory)
      await other.close()
      closed = true
      socket.destroy()
      expect(gitProcessesOf(directory)).toEqual([])
    } finally {
      if (!closed) await other.close()
    }
  })
})

describe('ref advertisements', () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50))

  test('a kept advertisement answers until the refs change, and every caller is still asked who they are', async () => {
    const project = await createProject({ name: 'Advertised', visibility: 'private', initialize_with_readme: true })
    const auth = basic(owner.username, ownerToken)
    await settle()
    const first = await infoRefs(project.path_with_namespace, 'git-upload-pack', auth)
    const second = await infoRefs(project.path_with_namespace, 'git-upload-pack', auth)
    expect(first.status).toBe(200)
    expect(second.status).toBe(200)
    expect(second.headers['content-type']).toBe('application/x-git-upload-pack-advertisement')
    expect(second.text).toBe(first.text)
    expect(second.text).toContain('refs/heads/main')

    // The kept answer is for callers who may have it: others are refused as before.
    const anonymous = await infoRefs(project.path_with_namespace, 'git-upload-pack')
    expect(anonymous.status).toBe(401)

    // A push changes the refs: the next advertisement shows them, for fetches and for pushes alike.
    const work = (await clone(project.path_with_namespace, owner.username, ownerToken)).dir
    await gitOk(work, 'push', 'origin', 'HEAD:refs/heads/advertised')
    for (const service of ['git-upload-pack', 'git-receive-pack']) {
      const after = await infoRefs(project.path_with_namespace, service, auth)
      expect(after.text).toContain('refs/heads/advertised')
    }
    await gitOk(work, 'push', 'origin', ':refs/heads/advertised')
    const afterDelete = await infoRefs(project.path_with_namespace, 'git-upload-pack', auth)
    expect(afterDelete.text).not.toContain('refs/heads/advertised')
    expect((await git(work, 'ls-remote', 'origin')).stdout).not.toContain('refs/heads/advertised')
  })

  test('a push that leaves many loose refs packs them; every branch is still there', async () => {
    const project = await createProject({ name: 'Many refs', visibility: 'private', initialize_with_readme: true })
    const work = (await clone(project.path_with_namespace, owner.username, ownerToken)).dir
    const refspecs = Array.from({ length: 70 }, (_, n) => `HEAD:refs/heads/many-${n}`)
    await gitOk(work, 'push', 'origin', ...refspecs)
    const directory = projectRepositoryDirectory(server.config, { id: project.id, repository_storage: 'default' })
    expect(fs.readdirSync(path.join(directory, 'refs/heads'))).toEqual([])
    expect(fs.readFileSync(path.join(directory, 'packed-refs'), 'utf8')).toContain('refs/heads/many-69')
    const listed = (await git(work, 'ls-remote', '--heads', 'origin')).stdout.trim().split('\n')
    expect(listed).toHaveLength(71)
  })
})
