import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { GitClient } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>
const git = new GitClient()
let token: string
const password = 'wendy-secret-1'

/** The project's web URL, which git clones as GitLab serves it: no `.git`. */
function webUrl(fullPath: string, withCredentials = true): string {
  const url = new URL(`${server.url}/${fullPath}`)
  if (withCredentials) {
    url.username = 'wendy'
    url.password = password
  }
  return url.toString()
}

async function createProject(body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await request('POST', '/projects', { token, body: { initialize_with_readme: true, ...body } })
  expect(res.status, res.text).toBe(201)
  return res.body
}

beforeAll(async () => {
  server = await startTestServer()
  request = client(`${server.url}/api/v4`)
  const user = await createTestUser(server.database.db, { username: 'wendy', name: 'Wendy', password })
  token = (await createTestToken(server.database.db, user)).value
})

afterAll(async () => {
  await server.close()
  git.remove()
})

describe('git at the web URL, without .git', () => {
  test('clone, push and fetch work at http://host/<namespace>/<project>', async () => {
    const project = await createProject({ name: 'Web Url', visibility: 'private' })
    const { run, dir } = await git.clone(webUrl(project.path_with_namespace))
    expect(run.code, run.stderr).toBe(0)
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toContain('Web Url')

    fs.writeFileSync(path.join(dir, 'pushed.txt'), 'over the web URL\n')
    await git.ok(dir, 'add', 'pushed.txt')
    await git.ok(dir, 'commit', '--quiet', '-m', 'Push without .git')
    const pushed = await git.run(dir, 'push', 'origin', 'main')
    expect(pushed.code, pushed.stderr).toBe(0)
    const sha = (await git.ok(dir, 'rev-parse', 'HEAD')).trim()

    const branch = await request('GET', `/projects/${project.id}/repository/tree?ref=main`, { token })
    expect(branch.status).toBe(200)
    expect(branch.body.map((entry: any) => entry.name)).toEqual(['README.md', 'pushed.txt'])
    const again = await git.clone(webUrl(project.path_with_namespace), '--branch', 'main')
    expect(again.run.code, again.run.stderr).toBe(0)
    expect((await git.ok(again.dir, 'rev-parse', 'HEAD')).trim()).toBe(sha)

    // A private project asks for credentials there as at the .git URL.
    const anonymous = await git.clone(webUrl(project.path_with_namespace, false))
    expect(anonymous.run.code).not.toBe(0)
    const refs = await fetch(`${server.url}/${project.path_with_namespace}/info/refs?service=git-upload-pack`)
    expect(refs.status).toBe(401)
    expect(refs.headers.get('www-authenticate')).toBe('Basic realm="GitLab"')
  })

  test('a public project clones anonymously; its .git URL and its page answer as before', async () => {
    const project = await createProject({ name: 'Open Web', visibility: 'public' })
    const { run, dir } = await git.clone(webUrl(project.path_with_namespace, false))
    expect(run.code, run.stderr).toBe(0)
    expect(fs.existsSync(path.join(dir, 'README.md'))).toBe(true)

    const advertised = await fetch(`${server.url}/${project.path_with_namespace}/info/refs?service=git-upload-pack`)
    expect(advertised.status).toBe(200)
    expect(advertised.headers.get('content-type')).toBe('application/x-git-upload-pack-advertisement')
    const dotGit = await fetch(`${server.url}/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`)
    expect(dotGit.status).toBe(200)
    expect(Buffer.from(await advertised.arrayBuffer()).equals(Buffer.from(await dotGit.arrayBuffer()))).toBe(true)

    // The web URL itself is not git's: it is the project's page.
    const page = await fetch(`${server.url}/${project.path_with_namespace}`, { redirect: 'manual' })
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(await page.text()).toContain(`<a class="context" href="/${project.path_with_namespace}">`)
  })

  test('an unknown project answers at the web URL as at the .git URL: credentials asked for, then 404', async () => {
    for (const suffix of ['', '.git']) {
      const url = `${server.url}/wendy/nothing-here${suffix}/info/refs?service=git-upload-pack`
      expect((await fetch(url)).status, suffix).toBe(401)
      const signedIn = await fetch(url, { headers: { authorization: `Basic ${Buffer.from(`wendy:${password}`).toString('base64')}` } })
      expect(signedIn.status, suffix).toBe(404)
    }
  })
})
