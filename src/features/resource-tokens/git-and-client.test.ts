import fs from 'node:fs'
import path from 'node:path'
import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { addDays, isoDate } from '../../core/time.js'
import { GitClient, repoUrl } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { createPerson, type Person } from '../../testing/roles.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>
let owner: Person
const gitClient = new GitClient()

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  owner = await createPerson(server.database.db)
})
afterAll(async () => {
  await server.close()
  gitClient.remove()
})

async function privateProject(name: string): Promise<Record<string, any>> {
  const res = await request('POST', '/api/v4/projects', {
    token: owner.token,
    body: { name, visibility: 'private', initialize_with_readme: true },
  })
  expect(res.status, res.text).toBe(201)
  return res.body as Record<string, any>
}

async function projectToken(projectId: number, accessLevel: number, scopes: string[]): Promise<string> {
  const res = await request('POST', `/api/v4/projects/${projectId}/access_tokens`, {
    token: owner.token,
    body: { name: `level ${accessLevel}`, scopes, access_level: accessLevel },
  })
  expect(res.status, res.text).toBe(201)
  return res.body.token as string
}

describe('a project access token over Git HTTP', () => {
  test('clones and pushes with any username as a Developer; a Reporter clones but may not push', async () => {
    const project = await privateProject('Bot push')
    // A new project's main is protected (Maintainers push): unprotected, a Developer's token pushes to it.
    const unprotected = await request('DELETE', `/api/v4/projects/${project.id}/protected_branches/main`, { token: owner.token })
    expect(unprotected.status).toBe(204)
    const developer = await projectToken(project.id, 30, ['read_repository', 'write_repository'])
    const { run, dir } = await gitClient.clone(repoUrl(server.url, project.path_with_namespace, 'anything', developer))
    expect(run.code, run.stderr).toBe(0)
    expect(fs.existsSync(path.join(dir, 'README.md'))).toBe(true)
    fs.writeFileSync(path.join(dir, 'bot.txt'), 'from the bot\n')
    await gitClient.ok(dir, 'add', 'bot.txt')
    await gitClient.ok(dir, 'commit', '--quiet', '-m', 'bot commit')
    await gitClient.ok(dir, 'push', '--quiet', 'origin', 'HEAD')
    const pushed = (await gitClient.ok(dir, 'rev-parse', 'HEAD')).trim()

    const reporter = await projectToken(project.id, 20, ['read_repository', 'write_repository'])
    const second = await gitClient.clone(repoUrl(server.url, project.path_with_namespace, 'someone', reporter))
    expect(second.run.code, second.run.stderr).toBe(0)
    expect((await gitClient.ok(second.dir, 'rev-parse', 'HEAD')).trim()).toBe(pushed)
    fs.writeFileSync(path.join(second.dir, 'denied.txt'), 'no\n')
    await gitClient.ok(second.dir, 'add', 'denied.txt')
    await gitClient.ok(second.dir, 'commit', '--quiet', '-m', 'denied')
    const denied = await gitClient.run(second.dir, 'push', '--quiet', 'origin', 'HEAD')
    expect(denied.code).not.toBe(0)
    expect(denied.stderr).toContain('You are not allowed to push code to this project.')

    // A token of another project does not even see this one.
    const other = await privateProject('Other')
    const stranger = await projectToken(other.id, 40, ['read_repository'])
    const res = await request('GET', `/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`x:${stranger}`).toString('base64')}` },
    })
    expect(res.status).toBe(404)
  })

  test('a revoked token is refused', async () => {
    const project = await privateProject('Revoked bot')
    const created = await request('POST', `/api/v4/projects/${project.id}/access_tokens`, {
      token: owner.token,
      body: { name: 'gone', scopes: ['read_repository'] },
    })
    expect(
      (await request('DELETE', `/api/v4/projects/${project.id}/access_tokens/${created.body.id}`, { token: owner.token })).status,
    ).toBe(204)
    const res = await request('GET', `/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`x:${created.body.token}`).toString('base64')}` },
    })
    expect(res.status).toBe(401)
    expect(res.headers['www-authenticate']).toBe('Basic realm="GitLab"')
  })
})

describe('the gitbeaker client', () => {
  test('creates, lists, shows, rotates and revokes project access tokens', async () => {
    const api = new Gitlab({ host: server.url, token: owner.token })
    const project = await privateProject('Gitbeaker tokens')
    const expiresAt = isoDate(addDays(new Date(), 30))
    const created = await api.ProjectAccessTokens.create(project.id, 'gitbeaker', ['api'], expiresAt, { accessLevel: 30 })
    expect(created).toMatchObject({ name: 'gitbeaker', scopes: ['api'], expires_at: expiresAt, access_level: 30, active: true })
    expect((await api.ProjectAccessTokens.all(project.id)).map((t) => t.id)).toEqual([created.id])
    expect((await api.ProjectAccessTokens.show(project.id, created.id)).access_level).toBe(30)
    const rotated = await api.ProjectAccessTokens.rotate(project.id, created.id, { expiresAt })
    expect(rotated).toMatchObject({ name: 'gitbeaker', user_id: created.user_id, expires_at: expiresAt, active: true })
    const asBot = new Gitlab({ host: server.url, token: rotated.token as string })
    expect((await asBot.Projects.show(project.id)).id).toBe(project.id)
    await api.ProjectAccessTokens.revoke(project.id, rotated.id)
    expect(await api.ProjectAccessTokens.all(project.id)).toEqual([])
    await expect(asBot.Projects.show(project.id)).rejects.toThrow()
  })

  test('creates, lists, shows, rotates and revokes group access tokens', async () => {
    const api = new Gitlab({ host: server.url, token: owner.token })
    const group = await api.Groups.create('Gitbeaker group', `gitbeaker-group-${Date.now()}`)
    const expiresAt = isoDate(addDays(new Date(), 30))
    const created = await api.GroupAccessTokens.create(group.id, 'group bot', ['read_api'], expiresAt)
    expect(created).toMatchObject({ name: 'group bot', scopes: ['read_api'], expires_at: expiresAt, access_level: 40 })
    expect((await api.GroupAccessTokens.all(group.id)).map((t) => t.id)).toEqual([created.id])
    expect((await api.GroupAccessTokens.show(group.id, created.id)).id).toBe(created.id)
    const rotated = await api.GroupAccessTokens.rotate(group.id, created.id)
    expect(rotated.user_id).toBe(created.user_id)
    const asBot = new Gitlab({ host: server.url, token: rotated.token as string })
    expect((await asBot.Groups.show(group.id)).id).toBe(group.id)
    await api.GroupAccessTokens.revoke(group.id, rotated.id)
    expect(await api.GroupAccessTokens.all(group.id)).toEqual([])
  })
})
