import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { ProjectRow } from '../../db/schema.js'
import { createTestToken } from '../../testing/factories.js'
import { GitClient } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import {
  addProjectMember,
  branchHead,
  createPerson,
  createRepositoryProject,
  gitInRepository,
  type Person,
} from '../../testing/repositories.js'
import { projectRepositoryDirectory } from '../repositories/index.js'

let server: TestServer
let request: ReturnType<typeof client>
let db: TestServer['database']['db']
const gitClient = new GitClient()

let sequence = 0

async function projectRow(id: number): Promise<ProjectRow> {
  return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

function repository(who: Person, visibility = 'public'): Promise<Record<string, any>> {
  sequence += 1
  return createRepositoryProject(request, who, { name: `Files ${sequence}`, visibility })
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex')
const filesPath = (projectId: number, filePath: string, suffix = '') =>
  `/projects/${projectId}/repository/files/${encodeURIComponent(filePath)}${suffix}`

const AT = '2026-11-27T10:00:00.000Z'
/** The same moment as a commit shows it: in the offset git recorded. */
const COMMIT_AT = '2026-11-27T10:00:00.000+00:00'
let owner: Person
let developer: Person
let reporter: Person

beforeAll(async () => {
  server = await startTestServer()
  server.freeze(new Date(AT))
  request = client(`${server.url}/api/v4`)
  db = server.database.db
  owner = await createPerson(db, 'olive', { email: 'olive@example.com' })
  developer = await createPerson(db, 'devon', { email: 'devon@example.com' })
  reporter = await createPerson(db, 'remy', { email: 'remy@example.com' })
})

afterAll(async () => {
  await server.close()
  gitClient.remove()
})

describe('the files API through gitbeaker', () => {
  test('create, show, showRaw, allFileBlames, edit and remove', async () => {
    const project = await repository(owner)
    const api = new Gitlab({ host: server.url, token: owner.token })

    const created = await api.RepositoryFiles.create(project.id, 'docs/hello world.txt', 'main', 'one\ntwo\n', 'Add hello')
    expect(created).toEqual({ file_path: 'docs/hello world.txt', branch: 'main' })
    const first = await branchHead(server, gitClient, project.id)
    const blob = (await gitInRepository(server, gitClient, project.id, 'rev-parse', `${first}:docs/hello world.txt`)).trim()

    const shown = await api.RepositoryFiles.show(project.id, 'docs/hello world.txt', 'main')
    expect(shown).toEqual({
      file_name: 'hello world.txt',
      file_path: 'docs/hello world.txt',
      size: 8,
      encoding: 'base64',
      content_sha256: sha256('one\ntwo\n'),
      ref: 'main',
      blob_id: blob,
      commit_id: first,
      last_commit_id: first,
      execute_filemode: false,
      content: Buffer.from('one\ntwo\n').toString('base64'),
    })
    expect(await api.RepositoryFiles.showRaw(project.id, 'docs/hello world.txt', 'main')).toBe('one\ntwo\n')

    const edited = await api.RepositoryFiles.edit(project.id, 'docs/hello world.txt', 'main', 'one\nTWO\nthree\n', 'Edit hello', {
      lastCommitId: first,
      authorName: 'Ann',
      authorEmail: 'ann@example.com',
    })
    expect(edited).toEqual({ file_path: 'docs/hello world.txt', branch: 'main' })
    const second = await branchHead(server, gitClient, project.id)
    expect((await gitInRepository(server, gitClient, project.id, 'log', '-1', '--format=%an <%ae> / %cn <%ce> / %B', second)).trim()).toBe(
      'Ann <ann@example.com> / Olive <olive@example.com> / Edit hello',
    )

    const blames = await api.RepositoryFiles.allFileBlames(project.id, 'docs/hello world.txt', 'main')
    const commitOf = (sha: string, message: string, author: string, email: string) => ({
      id: sha,
      parent_ids: [expect.stringMatching(/^[0-9a-f]{40}$/)],
      message,
      authored_date: COMMIT_AT,
      author_name: author,
      author_email: email,
      committed_date: COMMIT_AT,
      committer_name: 'Olive',
      committer_email: 'olive@example.com',
    })
    expect(blames).toEqual([
      { commit: commitOf(first, 'Add hello', 'Olive', 'olive@example.com'), lines: ['one'] },
      { commit: commitOf(second, 'Edit hello', 'Ann', 'ann@example.com'), lines: ['TWO', 'three'] },
    ])

    await api.RepositoryFiles.remove(project.id, 'docs/hello world.txt', 'main', 'Remove hello')
    expect((await gitInRepository(server, gitClient, project.id, 'ls-tree', '--name-only', 'main')).trim()).toBe('README.md')
  })
})

describe('reading files', () => {
  test('GET carries the X-Gitlab-* headers; HEAD answers them alone', async () => {
    const project = await repository(owner)
    const main = await branchHead(server, gitClient, project.id)
    const readme = (await gitInRepository(server, gitClient, project.id, 'show', 'main:README.md')).toString()
    const blob = (await gitInRepository(server, gitClient, project.id, 'rev-parse', 'main:README.md')).trim()
    const expected = {
      'x-gitlab-blob-id': blob,
      'x-gitlab-commit-id': main,
      'x-gitlab-content-sha256': sha256(readme),
      'x-gitlab-encoding': 'base64',
      'x-gitlab-execute-filemode': 'false',
      'x-gitlab-file-name': 'README.md',
      'x-gitlab-file-path': 'README.md',
      'x-gitlab-last-commit-id': main,
      'x-gitlab-ref': 'main',
      'x-gitlab-size': String(Buffer.byteLength(readme)),
    }
    const got = await request('GET', `${filesPath(project.id, 'README.md')}?ref=main`)
    expect(got.status).toBe(200)
    expect(got.headers).toMatchObject(expected)
    expect(got.headers['content-type']).toBe('application/json')
    const headed = await request('HEAD', `${filesPath(project.id, 'README.md')}?ref=main`)
    expect(headed.status).toBe(200)
    expect(headed.headers).toMatchObject(expected)
    expect(headed.text).toBe('')
    const missing = await request('HEAD', `${filesPath(project.id, 'nope.md')}?ref=main`)
    expect(missing.status).toBe(404)
  })

  test('raw: text and binary content types, ref defaulting to HEAD, and a file named *.json', async () => {
    const project = await repository(owner)
    const bytes = Buffer.from([0x00, 0x01, 0xfe, 0xff])
    const made = await request('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: {
        branch: 'main',
        commit_message: 'Files',
        actions: [
          { action: 'create', file_path: 'data.bin', content: bytes.toString('base64'), encoding: 'base64' },
          { action: 'create', file_path: 'package.json', content: '{"name":"x"}\n' },
          { action: 'create', file_path: 'tool.sh', content: 'echo\n', execute_filemode: true },
        ],
      },
    })
    expect(made.status, made.text).toBe(201)

    const text = await request('GET', filesPath(project.id, 'README.md', '/raw'))
    expect(text.status).toBe(200)
    expect(text.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(text.headers['content-disposition']).toBe(`inline; filename="README.md"; filename*=UTF-8''README.md`)
    expect(text.headers['x-gitlab-ref']).toBe('')
    expect(text.headers['cache-control']).toBe('max-age=0, private, must-revalidate, no-store, no-cache')
    expect(text.headers.expires).toBe('Fri, 01 Jan 1990 00:00:00 GMT')

    const binary = await fetch(`${server.url}/api/v4${filesPath(project.id, 'data.bin', '/raw')}?ref=main&lfs=true`)
    expect(binary.status).toBe(200)
    expect(binary.headers.get('content-type')).toBe('application/octet-stream')
    expect(binary.headers.get('content-disposition')).toBe(`attachment; filename="data.bin"; filename*=UTF-8''data.bin`)
    expect(Buffer.from(await binary.arrayBuffer())).toEqual(bytes)

    const svg = await request('POST', filesPath(project.id, 'logo.svg'), {
      token: owner.token,
      body: { branch: 'main', content: '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>\n', commit_message: 'Logo' },
    })
    expect(svg.status).toBe(201)
    const svgRaw = await request('GET', `${filesPath(project.id, 'logo.svg', '/raw')}?ref=main`)
    expect(svgRaw.headers['content-type']).toBe('image/svg+xml')
    expect(svgRaw.headers['content-disposition']).toBe(`attachment; filename="logo.svg"; filename*=UTF-8''logo.svg`)

    const json = await request('GET', `/projects/${project.id}/repository/files/package.json?ref=main`)
    expect(json.status, json.text).toBe(200)
    expect(json.body.file_path).toBe('package.json')
    expect(Buffer.from(json.body.content, 'base64').toString()).toBe('{"name":"x"}\n')

    const renamed = await request('PUT', `/projects/${project.id}/repository/files/package.json`, {
      token: owner.token,
      body: { branch: 'main', content: '{}\n', commit_message: 'Empty package' },
    })
    expect(renamed.status, renamed.text).toBe(200)
    expect(renamed.body).toEqual({ file_path: 'package.json', branch: 'main' })
    expect(await gitInRepository(server, gitClient, project.id, 'show', 'main:package.json')).toBe('{}\n')

    const pathspec = await request('POST', filesPath(project.id, ':wq'), {
      token: owner.token,
      body: { branch: 'main', content: 'Test file', commit_message: 'Pathspec characters' },
    })
    expect(pathspec.status, pathspec.text).toBe(201)
    const withColon = await request('GET', `${filesPath(project.id, ':wq')}?ref=main`)
    expect(withColon.body).toMatchObject({
      file_name: ':wq',
      file_path: ':wq',
      last_commit_id: await branchHead(server, gitClient, project.id),
    })

    const tool = await request('GET', `${filesPath(project.id, 'tool.sh')}?ref=main`)
    expect(tool.body.execute_filemode).toBe(true)
    expect(tool.headers['x-gitlab-execute-filemode']).toBe('true')
  })

  test('blame ranges, and the range checks', async () => {
    const project = await repository(owner)
    const post = (content: string, message: string) =>
      request('POST', `/projects/${project.id}/repository/commits`, {
        token: owner.token,
        body: {
          branch: 'main',
          commit_message: message,
          actions: [{ action: content === '1\n2\n3\n' ? 'create' : 'update', file_path: 'n.txt', content }],
        },
      })
    expect((await post('1\n2\n3\n', 'Numbers')).status).toBe(201)
    const numbers = await branchHead(server, gitClient, project.id)
    expect((await post('1\ntwo\n3\n', 'Two')).status).toBe(201)
    const two = await branchHead(server, gitClient, project.id)
    const blame = (query: string) => request('GET', `${filesPath(project.id, 'n.txt', '/blame')}?ref=main${query}`)

    const all = await blame('')
    expect(all.status).toBe(200)
    expect(all.headers['x-gitlab-file-name']).toBe('n.txt')
    expect(all.body.map((range: any) => [range.commit.id, range.lines])).toEqual([
      [numbers, ['1']],
      [two, ['two']],
      [numbers, ['3']],
    ])
    const headed = await request('HEAD', `${filesPath(project.id, 'n.txt', '/blame')}?ref=main`)
    expect(headed.status).toBe(200)
    expect(headed.headers['x-gitlab-last-commit-id']).toBe(two)
    expect(headed.text).toBe('')
    const ranged = await blame('&range[start]=2&range[end]=3')
    expect(ranged.body.map((range: any) => [range.commit.id, range.lines])).toEqual([
      [two, ['two']],
      [numbers, ['3']],
    ])
    expect((await blame('&range[start]=3&range[end]=2')).body).toEqual({ message: 'range[start] must be less than or equal to range[end]' })
    expect((await blame('&range[start]=0&range[end]=2')).body).toEqual({ error: 'range[start] does not have a valid value' })
    expect((await blame('&range[start]=2')).body).toEqual({ message: '400 (Bad request) "range[end]" not given' })
    const pastEnd = await blame('&range[start]=2&range[end]=4')
    expect(pastEnd.status).toBe(400)
    expect(pastEnd.body).toEqual({ message: 'range is outside of the file length' })
    const past = await blame('&range[start]=7&range[end]=9')
    expect(past.status).toBe(400)
    expect(past.body).toEqual({ message: 'range is outside of the file length' })
  })

  test("GitLab's 404s and 400s for refs and paths, never a 5xx", async () => {
    const project = await repository(owner)
    const get = (path: string) => request('GET', `/projects/${project.id}/repository/files/${path}`)
    const notFound = (what: string) => ({ message: `404 ${what} Not Found` })
    const invalidPath = { error: 'file_path should be a valid file path' }

    expect((await get('README.md?ref=nope')).body).toEqual(notFound('Commit'))
    expect((await get('README.md?ref=main:README.md')).body).toEqual(notFound('Commit'))
    expect((await get('README.md?ref=--all')).body).toEqual(notFound('Commit'))
    expect((await get(`README.md?ref=${'0'.repeat(40)}`)).body).toEqual(notFound('Commit'))
    expect((await get('nope.md?ref=main')).body).toEqual(notFound('File'))
    expect((await get('README.md%2Fx?ref=main')).body).toEqual(notFound('File'))
    expect((await get('.%2FREADME.md?ref=main')).body).toEqual(notFound('File'))
    expect((await get('.git%2Fconfig?ref=main')).body).toEqual(notFound('File'))
    expect((await get('README.md')).body).toEqual({ message: '400 (Bad request) "ref" not given' })
    expect((await get('README.md?ref=')).body).toEqual({ error: 'ref is empty' })

    for (const path of ['..%2F..%2Fetc%2Fpasswd', '%2Fetc%2Fpasswd', 'a%2F..%2F..%2Fb', '%2E%2E%2Fx', '%252E%252E%252Fetc', 'a%5C..%5Cb']) {
      const res = await get(`${path}?ref=main`)
      expect(res.status, path).toBe(400)
      expect(res.body, path).toEqual(invalidPath)
    }
    const nul = await get('README%00.md?ref=main')
    expect(nul.status).toBe(400)
    expect(nul.text).toBe('Bad Request')
    const raw = await request('GET', `/projects/${project.id}/repository/files/..%2Fx/raw`)
    expect(raw.body).toEqual(invalidPath)
  })

  test('a private project: 404 to strangers, 403 to a Guest, read with a read_repository token', async () => {
    const project = await repository(owner, 'private')
    const stranger = await request('GET', `${filesPath(project.id, 'README.md')}?ref=main`, { token: developer.token })
    expect(stranger.status).toBe(404)
    expect(stranger.body).toEqual({ message: '404 Project Not Found' })
    const guest = await createPerson(db, `guest${sequence}`)
    await addProjectMember(db, guest, project.id, 10)
    const asGuest = await request('GET', `${filesPath(project.id, 'README.md')}?ref=main`, { token: guest.token })
    expect(asGuest.status).toBe(403)
    expect(asGuest.body).toEqual({ message: '403 Forbidden' })
    const token = (await createTestToken(db, owner.user, { scopes: ['read_repository'] })).value
    const read = await request('GET', `${filesPath(project.id, 'README.md')}?ref=main`, { token })
    expect(read.status).toBe(200)
    const write = await request('POST', filesPath(project.id, 'x.txt'), {
      token,
      body: { branch: 'main', content: 'x', commit_message: 'x' },
    })
    expect(write.status).toBe(403)

    const disabled = await request('PUT', `/projects/${project.id}`, { token: owner.token, body: { repository_access_level: 'disabled' } })
    expect(disabled.status, disabled.text).toBe(200)
    const readDisabled = await request('GET', `${filesPath(project.id, 'README.md')}?ref=main`, { token: owner.token })
    expect(readDisabled.status).toBe(403)
    const writeDisabled = await request('POST', filesPath(project.id, 'x.txt'), {
      token: owner.token,
      body: { branch: 'main', content: 'x', commit_message: 'x' },
    })
    expect(writeDisabled.status).toBe(403)
    expect(writeDisabled.body).toEqual({ message: '403 Forbidden' })
  })
})

describe('files over the object reader’s large-blob threshold', () => {
  let project: Record<string, any>
  const bigLines = Array.from({ length: 120_000 }, (_, index) => `line ${index + 1}`)
  const big = `${bigLines.join('\n')}\n`
  const bigAfter = `${big}tail\n`

  beforeAll(async () => {
    project = await repository(owner)
    const work = await fs.mkdtemp(`${gitClient.workDir}/large-`)
    const inWork = (...args: string[]) => gitInRepository(server, gitClient, project.id, `--work-tree=${work}`, ...args)
    await inWork('read-tree', 'main')
    const commitFiles = async (files: Record<string, string>, message: string) => {
      for (const [name, content] of Object.entries(files)) await fs.writeFile(`${work}/${name}`, content)
      await inWork('add', ...Object.keys(files))
      await inWork('commit', '--quiet', '-m', message)
    }
    await commitFiles({ 'big.txt': big, 'small.txt': 'a\nb\n' }, 'Big')
    await commitFiles({ 'big.txt': bigAfter, 'small.txt': 'a\nb\ntail\n' }, 'Tail')
    expect(Buffer.byteLength(bigAfter)).toBeGreaterThan(1024 * 1024)
  })

  test('raw streams the bytes with their length and the same X-Gitlab-* headers, SHA-256 of the whole content', async () => {
    const main = await branchHead(server, gitClient, project.id)
    const raw = await request('GET', `${filesPath(project.id, 'big.txt', '/raw')}?ref=main`)
    expect(raw.status).toBe(200)
    expect(raw.headers).toMatchObject({
      'content-type': 'text/plain; charset=utf-8',
      'content-length': String(bigAfter.length),
      'x-gitlab-content-sha256': sha256(bigAfter),
      'x-gitlab-size': String(bigAfter.length),
      'x-gitlab-commit-id': main,
      'x-gitlab-last-commit-id': main,
      'cache-control': 'max-age=0, private, must-revalidate, no-store, no-cache',
    })
    expect(raw.text === bigAfter).toBe(true)
  })

  test('GET answers the same JSON text as for a small file, its base64 content written as git streams it', async () => {
    const main = await branchHead(server, gitClient, project.id)
    const got = await request('GET', `${filesPath(project.id, 'big.txt')}?ref=main`)
    expect(got.status).toBe(200)
    const expected = JSON.stringify({
      file_name: 'big.txt',
      file_path: 'big.txt',
      size: bigAfter.length,
      encoding: 'base64',
      content_sha256: sha256(bigAfter),
      ref: 'main',
      blob_id: (await gitInRepository(server, gitClient, project.id, 'rev-parse', 'main:big.txt')).trim(),
      commit_id: main,
      last_commit_id: main,
      execute_filemode: false,
      content: Buffer.from(bigAfter).toString('base64'),
    })
    expect(got.text === expected).toBe(true)
    expect(got.headers['content-type']).toBe('application/json')
    expect(got.headers['content-length']).toBe(String(expected.length))
  })

  test('blame is the same JSON text as the serializer writes, streamed; a range past the end is refused as git refuses it', async () => {
    const blame = (file: string, query = '') => request('GET', `${filesPath(project.id, file, '/blame')}?ref=main${query}`)
    const small = await blame('small.txt')
    expect(small.body.map((range: any) => range.lines)).toEqual([['a', 'b'], ['tail']])
    const [bigCommit, tailCommit] = small.body.map((range: any) => range.commit)
    const large = await blame('big.txt')
    expect(large.status).toBe(200)
    expect(large.headers['content-type']).toBe('application/json')
    expect(large.headers['x-gitlab-size']).toBe(String(bigAfter.length))
    const expected = JSON.stringify([
      { commit: bigCommit, lines: bigLines },
      { commit: tailCommit, lines: ['tail'] },
    ])
    expect(large.text === expected).toBe(true)
    const ranged = await blame('big.txt', '&range[start]=119999&range[end]=120001')
    expect(ranged.text).toBe(
      JSON.stringify([
        { commit: bigCommit, lines: ['line 119999', 'line 120000'] },
        { commit: tailCommit, lines: ['tail'] },
      ]),
    )
    const past = await blame('big.txt', '&range[start]=2&range[end]=120002')
    expect(past.status).toBe(400)
    expect(past.body).toEqual({ message: 'range is outside of the file length' })
  })
})

describe('a project whose repository is gone from disk', () => {
  test("reads answer 404 Commit Not Found and writes 404 Repository Not Found, GitLab's words, never a 500", async () => {
    const project = await repository(owner)
    const directory = projectRepositoryDirectory(server.config, await projectRow(project.id))
    await fs.rm(directory, { recursive: true, force: true })
    const read = await request('GET', `${filesPath(project.id, 'README.md')}?ref=main`, { token: owner.token })
    expect(read.status).toBe(404)
    expect(read.body).toEqual({ message: '404 Commit Not Found' })
    const raw = await request('GET', filesPath(project.id, 'README.md', '/raw'), { token: owner.token })
    expect(raw.body).toEqual({ message: '404 Commit Not Found' })
    const write = await request('POST', filesPath(project.id, 'x.txt'), {
      token: owner.token,
      body: { branch: 'main', content: 'x', commit_message: 'M' },
    })
    expect(write.status).toBe(404)
    expect(write.body).toEqual({ message: '404 Repository Not Found' })
    const pick = await request('POST', `/projects/${project.id}/repository/commits/main/cherry_pick`, {
      token: owner.token,
      body: { branch: 'main' },
    })
    expect(pick.status).toBe(404)
    expect(pick.body).toEqual({ message: '404 Commit Not Found' })
  })
})

describe('hostile input', () => {
  test('odd values for every parameter of the files and commits APIs get a 4xx or a success, never a 5xx', async () => {
    const project = await repository(owner)
    const odd: unknown[] = [
      '',
      ' ',
      '..',
      '../x',
      '-x',
      'a b',
      'a:b',
      '\u0001',
      'x'.repeat(5000),
      '%',
      '%00',
      '\u202e',
      'HEAD@{0}',
      'main^{tree}',
      0,
      -1,
      true,
      [],
      {},
      ['a'],
      { a: 1 },
      null,
    ]
    const failures: string[] = []
    const send = async (method: string, path: string, body?: Record<string, unknown>) => {
      const res = await request(method, path, { token: owner.token, body })
      if (res.status >= 500) failures.push(`${res.status} ${method} ${path} ${JSON.stringify(body)}`)
    }
    for (const value of odd) {
      const text = typeof value === 'string' ? value : JSON.stringify(value)
      const ref = encodeURIComponent(text)
      await send('GET', `${filesPath(project.id, 'README.md')}?ref=${ref}`)
      await send('GET', `${filesPath(project.id, 'README.md', '/raw')}?ref=${ref}`)
      await send('GET', `${filesPath(project.id, 'README.md', '/blame')}?ref=main&range[start]=${ref}&range[end]=${ref}`)
      await send('GET', `/projects/${project.id}/repository/files/${ref}?ref=main`)
      await send('POST', filesPath(project.id, 'odd.txt'), { branch: value, commit_message: value, content: value, encoding: value })
      await send('PUT', filesPath(project.id, 'README.md'), {
        branch: 'main',
        commit_message: 'M',
        content: 'x',
        last_commit_id: value,
        execute_filemode: value,
      })
      await send('DELETE', filesPath(project.id, 'nope.txt'), {
        branch: value,
        commit_message: 'M',
        start_branch: value,
        author_name: value,
      })
      await send('POST', `/projects/${project.id}/repository/commits`, { branch: value, commit_message: 'M', actions: value })
      await send('POST', `/projects/${project.id}/repository/commits`, {
        branch: 'odd',
        start_branch: 'main',
        commit_message: 'M',
        start_sha: value,
        actions: [{ action: 'create', file_path: value, content: value, encoding: 'text', previous_path: value, last_commit_id: value }],
      })
      await send('POST', `/projects/${project.id}/repository/commits`, {
        branch: 'main',
        commit_message: 'M',
        actions: [
          value,
          { action: 'move', file_path: 'x', previous_path: value },
          { action: 'chmod', file_path: value, execute_filemode: value },
        ],
      })
      await send('POST', `/projects/${project.id}/repository/commits/${ref}/cherry_pick`, { branch: value, dry_run: value, message: value })
      await send('POST', `/projects/${project.id}/repository/commits/main/revert`, { branch: value, dry_run: value })
    }
    expect(failures).toEqual([])
  })
})

describe('writing files', () => {
  test("GitLab's answers and refusals, each leaving the branch where it was", async () => {
    const project = await repository(owner)
    const main = await branchHead(server, gitClient, project.id)
    const write = async (method: string, path: string, body: Record<string, unknown>, status: number, expected: unknown, who = owner) => {
      const res = await request(method, filesPath(project.id, path), {
        token: who.token,
        body: { branch: 'main', commit_message: 'M', ...body },
      })
      expect(res.status, `${method} ${path} ${res.text}`).toBe(status)
      expect(res.body).toEqual(expected)
      expect(await branchHead(server, gitClient, project.id)).toBe(main)
    }
    const message = (text: string) => ({ message: text })
    await write('POST', 'README.md', { content: 'x' }, 400, message('A file with this name already exists'))
    await write('PUT', 'nope.md', { content: 'x' }, 400, message("A file with this name doesn't exist"))
    await write('DELETE', 'nope.md', {}, 400, message("A file with this name doesn't exist"))
    await write('POST', '.git/config', { content: 'x' }, 400, message("invalid path: '.git/config'"))
    await write('POST', 'x.bin', { content: '***', encoding: 'base64' }, 400, message('400 Bad request - content is not valid base64'))
    await write('POST', 'x.txt', { content: 'x', encoding: 'hex' }, 400, { error: 'encoding does not have a valid value' })
    await write(
      'POST',
      'x.txt',
      { content: 'x', branch: 'nowhere' },
      400,
      message('You can only create or edit files when you are on a branch'),
    )
    await write('POST', 'x.txt', { content: 'x', branch: '', commit_message: ' ' }, 400, {
      error: 'branch is empty, commit_message is empty',
    })
    await write('POST', 'x.txt', { branch: 'main' }, 400, message('400 (Bad request) "content" not given'))
    await write('POST', 'x.txt', { content: 'x' }, 403, message('403 Forbidden'), reporter)
    const anonymous = await request('POST', filesPath(project.id, 'x.txt'), { body: { branch: 'main', content: 'x', commit_message: 'M' } })
    expect(anonymous.status).toBe(401)

    // Beyond the largest body the API reads (GitLab's request size limit).
    const huge = await request('POST', filesPath(project.id, 'huge.txt'), {
      token: owner.token,
      body: { branch: 'main', commit_message: 'Huge', content: 'x'.repeat(3 * 1024 * 1024) },
    })
    expect(huge.status).toBe(413)
    expect(huge.body).toEqual({ message: '413 Request Entity Too Large' })
    expect(await branchHead(server, gitClient, project.id)).toBe(main)
  })

  test('a stale last_commit_id is refused; base64 content, execute_filemode and a new branch from start_branch', async () => {
    const project = await repository(owner)
    const first = await branchHead(server, gitClient, project.id)
    const put = (body: Record<string, unknown>) =>
      request('PUT', filesPath(project.id, 'README.md'), { token: owner.token, body: { branch: 'main', commit_message: 'Edit', ...body } })
    const fresh = await put({
      content: Buffer.from('first edit\n').toString('base64'),
      encoding: 'base64',
      last_commit_id: first,
      execute_filemode: true,
    })
    expect(fresh.status, fresh.text).toBe(200)
    expect(fresh.body).toEqual({ file_path: 'README.md', branch: 'main' })
    expect(await gitInRepository(server, gitClient, project.id, 'show', 'main:README.md')).toBe('first edit\n')
    expect((await gitInRepository(server, gitClient, project.id, 'ls-tree', 'main', 'README.md')).slice(0, 6)).toBe('100755')

    const emptied = await put({ content: null, encoding: 'base64' })
    expect(emptied.status, emptied.text).toBe(200)
    expect(await gitInRepository(server, gitClient, project.id, 'show', 'main:README.md')).toBe('')
    const second = await branchHead(server, gitClient, project.id)

    const stale = await put({ content: 'mine\n', last_commit_id: first })
    expect(stale.status).toBe(400)
    expect(stale.body).toEqual({ message: 'You are attempting to update a file that has changed since you started editing it.' })
    const staleDelete = await request('DELETE', filesPath(project.id, 'README.md'), {
      token: owner.token,
      body: { branch: 'main', commit_message: 'Delete', last_commit_id: first },
    })
    expect(staleDelete.status).toBe(400)
    expect(staleDelete.body).toEqual({ message: 'You are attempting to delete a file that has been previously updated.' })
    expect(await branchHead(server, gitClient, project.id)).toBe(second)

    const branched = await request('POST', filesPath(project.id, 'new/file.txt'), {
      token: owner.token,
      body: { branch: 'topic', start_branch: 'main', content: 'new', commit_message: 'On topic' },
    })
    expect(branched.status, branched.text).toBe(201)
    expect(branched.body).toEqual({ file_path: 'new/file.txt', branch: 'topic' })
    expect((await gitInRepository(server, gitClient, project.id, 'rev-parse', 'topic~1')).trim()).toBe(second)
    const deleted = await request('DELETE', filesPath(project.id, 'new/file.txt'), {
      token: owner.token,
      body: { branch: 'topic', commit_message: 'Gone' },
    })
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
  })

  test('protected branches: a Developer may not write to a protected branch, through either API; other branches are open', async () => {
    const project = await repository(owner)
    await addProjectMember(db, developer, project.id, 30)
    const protect = await request('POST', `/projects/${project.id}/protected_branches`, {
      token: owner.token,
      body: { name: 'release', push_access_level: 40, merge_access_level: 40 },
    })
    expect(protect.status, protect.text).toBe(201)
    const branch = await request('POST', `/projects/${project.id}/repository/branches`, {
      token: owner.token,
      body: { branch: 'release', ref: 'main' },
    })
    expect(branch.status, branch.text).toBe(201)
    const release = await branchHead(server, gitClient, project.id, 'release')

    const viaFiles = await request('POST', filesPath(project.id, 'x.txt'), {
      token: developer.token,
      body: { branch: 'release', content: 'x', commit_message: 'M' },
    })
    expect(viaFiles.status).toBe(400)
    expect(viaFiles.body).toEqual({ message: 'You are not allowed to push into this branch' })
    const viaCommits = await request('POST', `/projects/${project.id}/repository/commits`, {
      token: developer.token,
      body: { branch: 'release', commit_message: 'M', actions: [{ action: 'create', file_path: 'x.txt', content: 'x' }] },
    })
    expect(viaCommits.status).toBe(403)
    expect(viaCommits.body).toEqual({ message: '403 Forbidden - You are not allowed to push into this branch' })
    const pick = await request('POST', `/projects/${project.id}/repository/commits/${release}/revert`, {
      token: developer.token,
      body: { branch: 'release' },
    })
    expect(pick.status).toBe(403)
    expect(await branchHead(server, gitClient, project.id, 'release')).toBe(release)

    const open = await request('POST', filesPath(project.id, 'x.txt'), {
      token: developer.token,
      body: { branch: 'feature', start_branch: 'release', content: 'x', commit_message: 'M' },
    })
    expect(open.status, open.text).toBe(201)
    const asMaintainer = await request('POST', filesPath(project.id, 'x.txt'), {
      token: owner.token,
      body: { branch: 'release', content: 'x', commit_message: 'M' },
    })
    expect(asMaintainer.status, asMaintainer.text).toBe(201)
  })
})

describe('a .json suffix', () => {
  test('names the file x.json and the branch a.json; elsewhere it is still the format suffix GitLab takes', async () => {
    const project = await repository(owner)
    const made = await request('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: {
        branch: 'a.json',
        start_branch: 'main',
        commit_message: 'JSON',
        actions: [{ action: 'create', file_path: 'x.json', content: '{}\n' }],
      },
    })
    expect(made.status, made.text).toBe(201)
    const file = await request('GET', `${filesPath(project.id, 'x.json')}?ref=a.json`, { token: owner.token })
    expect(file.status, file.text).toBe(200)
    expect(file.body).toMatchObject({
      file_name: 'x.json',
      file_path: 'x.json',
      ref: 'a.json',
      content: Buffer.from('{}\n').toString('base64'),
    })
    const head = await request('HEAD', `${filesPath(project.id, 'x.json')}?ref=a.json`, { token: owner.token })
    expect(head.headers['x-gitlab-file-name']).toBe('x.json')
    const branch = await request('GET', `/projects/${project.id}/repository/branches/a.json`, { token: owner.token })
    expect([branch.status, branch.body.name]).toEqual([200, 'a.json'])
    const commit = await request('GET', `/projects/${project.id}/repository/commits/a.json`, { token: owner.token })
    expect([commit.status, commit.body.id]).toEqual([200, made.body.id])
    expect((await request('GET', `${filesPath(project.id, 'x')}?ref=a.json`, { token: owner.token })).status).toBe(404)

    const projectJson = await request('GET', `/projects/${project.id}.json`, { token: owner.token })
    expect([projectJson.status, projectJson.body.id]).toEqual([200, project.id])
    const branches = await request('GET', `/projects/${project.id}/repository/branches.json`, { token: owner.token })
    expect(branches.body.map((listed: { name: string }) => listed.name)).toEqual(['a.json', 'main'])
    const version = await request('GET', '/version.json', { token: owner.token })
    expect(version.status).toBe(200)
  })
})
