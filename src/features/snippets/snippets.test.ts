import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { GitClient } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>
let git: GitClient
let alice: User
let aliceToken: string

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  git = new GitClient()
  alice = await createTestUser(server.database.db, { username: 'alice', name: 'Alice Liddell', email: 'alice@example.com' })
  aliceToken = (await createTestToken(server.database.db, alice)).value
})
afterAll(async () => {
  git.remove()
  await server.close()
})

/** Where the test expects a snippet's repository: GitLab's `@snippets` hashed path, computed here independently. */
function snippetDirectory(id: number, storage = 'default'): string {
  const h = createHash('sha256').update(`${id}`).digest('hex')
  return path.join(server.config.storages[storage], '@snippets', h.slice(0, 2), h.slice(2, 4), `${h}.git`)
}

function userBasic(user: User) {
  const hash = createHash('md5').update(user.email).digest('hex')
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: 'active',
    locked: false,
    avatar_url: `https://www.gravatar.com/avatar/${hash}?s=80&d=identicon`,
    web_url: `${server.url}/${user.username}`,
  }
}

async function create(body: Record<string, unknown>, token = aliceToken) {
  const res = await request('POST', '/api/v4/snippets', { token, body })
  expect(res.status, res.text).toBe(201)
  return res.body as Record<string, any>
}

/** Clones the snippet's bare repository from disk with real git. */
async function cloneFromDisk(id: number): Promise<string> {
  const { run, dir } = await git.clone(snippetDirectory(id))
  expect(run.code, run.stderr).toBe(0)
  return dir
}

describe('personal snippets', () => {
  test('create answers GitLab’s Snippet entity, in its order, and commits the files on main', async () => {
    const res = await request('POST', '/api/v4/snippets', {
      token: aliceToken,
      body: {
        title: 'Two files',
        description: 'A pair',
        visibility: 'public',
        files: [
          { file_path: 'hello.rb', content: 'puts "hello"\n' },
          { file_path: 'lib/world.txt', content: 'world\n' },
        ],
      },
    })
    expect(res.status, res.text).toBe(201)
    const id = res.body.id as number
    const row = await server.database.db.selectFrom('snippets').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    const web = `${server.url}/-/snippets/${id}`
    const host = new URL(server.url).hostname
    expect(Object.keys(res.body)).toEqual([
      'id',
      'title',
      'description',
      'visibility',
      'author',
      'created_at',
      'updated_at',
      'project_id',
      'web_url',
      'raw_url',
      'ssh_url_to_repo',
      'http_url_to_repo',
      'file_name',
      'files',
      'imported',
      'imported_from',
    ])
    expect(res.body).toEqual({
      id,
      title: 'Two files',
      description: 'A pair',
      visibility: 'public',
      author: userBasic(alice),
      created_at: row.created_at,
      updated_at: row.updated_at,
      project_id: null,
      web_url: web,
      raw_url: `${web}/raw`,
      ssh_url_to_repo: `git@${host}:snippets/${id}.git`,
      http_url_to_repo: `${server.url}/snippets/${id}.git`,
      file_name: 'hello.rb',
      files: [
        { path: 'hello.rb', raw_url: `${web}/raw/main/hello.rb` },
        { path: 'lib/world.txt', raw_url: `${web}/raw/main/lib/world.txt` },
      ],
      imported: false,
      imported_from: 'none',
    })
    expect(row).toMatchObject({ file_name: 'hello.rb', content: 'puts "hello"\n', repository_storage: 'default', author_id: alice.id })

    const dir = await cloneFromDisk(id)
    expect(fs.readFileSync(path.join(dir, 'hello.rb'), 'utf8')).toBe('puts "hello"\n')
    expect(fs.readFileSync(path.join(dir, 'lib/world.txt'), 'utf8')).toBe('world\n')
    expect((await git.ok(dir, 'rev-parse', '--abbrev-ref', 'HEAD')).trim()).toBe('main')
    const log = await git.ok(dir, 'log', '--format=%an <%ae>|%cn|%s|%at')
    expect(log).toBe(`Alice Liddell <alice@example.com>|Alice Liddell|Initial commit|${Math.floor(Date.parse(row.created_at) / 1000)}\n`)
  })

  test('the deprecated file_name and content make one file; visibility defaults to internal', async () => {
    const body = await create({ title: 'Old style', file_name: 'old.md', content: '# Old\n' })
    expect(body).toMatchObject({ visibility: 'internal', description: null, file_name: 'old.md' })
    expect(body.files).toEqual([{ path: 'old.md', raw_url: `${server.url}/-/snippets/${body.id}/raw/main/old.md` }])
  })

  test('form-encoded files, as Rack nests them', async () => {
    const res = await request('POST', '/api/v4/snippets', {
      token: aliceToken,
      form: true,
      body: {
        title: 'Form',
        'files[0][file_path]': 'f.txt',
        'files[0][content]': 'from a form',
        'files[1][file_path]': 'g.txt',
        'files[1][content]': 'g',
      },
    })
    expect(res.status, res.text).toBe(201)
    expect(res.body.files.map((f: { path: string }) => f.path)).toEqual(['f.txt', 'g.txt'])
    expect((await request('GET', `/api/v4/snippets/${res.body.id}/raw`, { token: aliceToken })).text).toBe('from a form')
  })

  test('admins see repository_storage', async () => {
    const body = await create({ title: 'Stored', files: [{ file_path: 'a.txt', content: 'a' }] })
    const asAdmin = await request('GET', `/api/v4/snippets/${body.id}`, { token: server.rootToken })
    expect(asAdmin.status).toBe(200)
    expect(Object.keys(asAdmin.body).slice(-1)).toEqual(['repository_storage'])
    expect(asAdmin.body.repository_storage).toBe('default')
    const asAuthor = await request('GET', `/api/v4/snippets/${body.id}`, { token: aliceToken })
    expect(asAuthor.body).not.toHaveProperty('repository_storage')
  })

  test('raw answers the first file as inline text; files raw answers any file at a ref', async () => {
    const body = await create({
      title: 'Raw',
      visibility: 'public',
      files: [
        { file_path: 'b.txt', content: 'bee\n' },
        { file_path: 'a.txt', content: 'ay\n' },
      ],
    })
    const raw = await request('GET', `/api/v4/snippets/${body.id}/raw`)
    expect(raw.status).toBe(200)
    expect(raw.text).toBe('ay\n')
    expect(raw.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(raw.headers['content-disposition']).toBe(`inline; filename="a.txt"; filename*=UTF-8''a.txt`)

    const file = await request('GET', `/api/v4/snippets/${body.id}/files/main/b.txt/raw`, { token: aliceToken })
    expect(file.status).toBe(200)
    expect(file.text).toBe('bee\n')

    const sha = (await git.ok(snippetDirectory(body.id), 'rev-parse', 'main')).trim()
    expect((await request('GET', `/api/v4/snippets/${body.id}/files/${sha}/a.txt/raw`)).text).toBe('ay\n')

    const noRef = await request('GET', `/api/v4/snippets/${body.id}/files/nope/a.txt/raw`)
    expect([noRef.status, noRef.body]).toEqual([404, { message: '404 Reference Not Found' }])
    const noFile = await request('GET', `/api/v4/snippets/${body.id}/files/main/c.txt/raw`)
    expect([noFile.status, noFile.body]).toEqual([404, { message: '404 File Not Found' }])
    const glob = await request('GET', `/api/v4/snippets/${body.id}/files/main/${encodeURIComponent('a*')}/raw`)
    expect([glob.status, glob.body]).toEqual([404, { message: '404 File Not Found' }])
    const traversal = await request('GET', `/api/v4/snippets/${body.id}/files/main/..%2Fa.txt/raw`)
    expect([traversal.status, traversal.body]).toEqual([400, { error: 'file_path should be a valid file path' }])
  })

  test('update changes fields and commits file actions as one commit by the caller', async () => {
    const body = await create({
      title: 'Editable',
      files: [
        { file_path: 'keep.txt', content: 'keep\n' },
        { file_path: 'drop.txt', content: 'drop\n' },
        { file_path: 'old-name.txt', content: 'moving\n' },
      ],
    })
    server.travel(60_000)
    const res = await request('PUT', `/api/v4/snippets/${body.id}`, {
      token: aliceToken,
      body: {
        title: 'Edited',
        description: 'now described',
        visibility: 'private',
        files: [
          { action: 'update', file_path: 'keep.txt', content: 'kept\n' },
          { action: 'delete', file_path: 'drop.txt' },
          { action: 'move', previous_path: 'old-name.txt', file_path: 'new-name.txt' },
          { action: 'create', file_path: 'added.txt', content: 'added\n' },
        ],
      },
    })
    expect(res.status, res.text).toBe(200)
    const web = `${server.url}/-/snippets/${body.id}`
    expect(res.body).toMatchObject({
      title: 'Edited',
      description: 'now described',
      visibility: 'private',
      file_name: 'added.txt',
      files: [
        { path: 'added.txt', raw_url: `${web}/raw/main/added.txt` },
        { path: 'keep.txt', raw_url: `${web}/raw/main/keep.txt` },
        { path: 'new-name.txt', raw_url: `${web}/raw/main/new-name.txt` },
      ],
    })
    expect(Date.parse(res.body.updated_at) - Date.parse(body.updated_at)).toBeGreaterThanOrEqual(60_000)
    const row = await server.database.db.selectFrom('snippets').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ title: 'Edited', file_name: 'added.txt', content: 'added\n', visibility_level: 0 })

    const dir = await cloneFromDisk(body.id)
    expect(
      fs
        .readdirSync(dir)
        .filter((name) => name !== '.git')
        .sort(),
    ).toEqual(['added.txt', 'keep.txt', 'new-name.txt'])
    expect(fs.readFileSync(path.join(dir, 'keep.txt'), 'utf8')).toBe('kept\n')
    expect(fs.readFileSync(path.join(dir, 'new-name.txt'), 'utf8')).toBe('moving\n')
    expect(await git.ok(dir, 'log', '--format=%s|%an')).toBe('Update|Alice Liddell\nInitial commit|Alice Liddell\n')
    expect(await git.ok(dir, 'show', '--name-status', '--format=', 'HEAD')).toBe(
      'A\tadded.txt\nD\tdrop.txt\nM\tkeep.txt\nR100\told-name.txt\tnew-name.txt\n',
    )
  })

  test('the deprecated content and file_name update or rename the only file', async () => {
    const body = await create({ title: 'Single', file_name: 'one.txt', content: 'one\n' })
    const content = await request('PUT', `/api/v4/snippets/${body.id}`, { token: aliceToken, body: { content: 'uno\n' } })
    expect(content.status, content.text).toBe(200)
    expect((await request('GET', `/api/v4/snippets/${body.id}/raw`, { token: aliceToken })).text).toBe('uno\n')
    const renamed = await request('PUT', `/api/v4/snippets/${body.id}`, { token: aliceToken, body: { file_name: 'eins.txt' } })
    expect(renamed.body.files.map((f: { path: string }) => f.path)).toEqual(['eins.txt'])
    expect((await request('GET', `/api/v4/snippets/${body.id}/raw`, { token: aliceToken })).text).toBe('uno\n')
    const title = await request('PUT', `/api/v4/snippets/${body.id}`, { token: aliceToken, body: { title: 'Only the title' } })
    expect(title.body).toMatchObject({ title: 'Only the title', file_name: 'eins.txt' })
    server.travel(5_000)
    const same = await request('PUT', `/api/v4/snippets/${body.id}`, { token: aliceToken, body: { title: 'Only the title' } })
    expect(same.body).toEqual(title.body)
    const dir = await cloneFromDisk(body.id)
    expect((await git.ok(dir, 'log', '--format=%s')).split('\n').filter(Boolean)).toHaveLength(3)
  })

  test('delete removes the row at once and the repository through a job', async () => {
    const body = await create({ title: 'Doomed', files: [{ file_path: 'x.txt', content: 'x' }] })
    expect(fs.existsSync(snippetDirectory(body.id))).toBe(true)
    const res = await request('DELETE', `/api/v4/snippets/${body.id}`, { token: aliceToken })
    expect([res.status, res.text]).toEqual([204, ''])
    const gone = await request('GET', `/api/v4/snippets/${body.id}`, { token: aliceToken })
    expect([gone.status, gone.body]).toEqual([404, { message: '404 Snippet Not Found' }])
    expect(fs.existsSync(snippetDirectory(body.id))).toBe(true)
    expect(await server.runJobs()).toBeGreaterThanOrEqual(1)
    expect(fs.existsSync(snippetDirectory(body.id))).toBe(false)
    const again = await request('DELETE', `/api/v4/snippets/${body.id}`, { token: aliceToken })
    expect([again.status, again.body]).toEqual([404, { message: '404 Snippet Not Found' }])
  })

  test('lists: own snippets, public personal snippets, and all an admin sees; newest first with pagination headers', async () => {
    const bob = await createTestUser(server.database.db, { username: 'bob-lists' })
    const bobToken = (await createTestToken(server.database.db, bob)).value
    const mine = await create({ title: 'Bob private', visibility: 'private', files: [{ file_path: 'p', content: 'p' }] }, bobToken)
    const pub = await create({ title: 'Bob public', visibility: 'public', files: [{ file_path: 'q', content: 'q' }] }, bobToken)

    const own = await request('GET', '/api/v4/snippets', { token: bobToken })
    expect(own.status).toBe(200)
    expect(own.body.map((s: { id: number }) => s.id)).toEqual([pub.id, mine.id])
    expect(own.headers['x-total']).toBe('2')
    expect(own.headers['x-per-page']).toBe('20')

    const paged = await request('GET', '/api/v4/snippets?per_page=1&page=2', { token: bobToken })
    expect(paged.body.map((s: { id: number }) => s.id)).toEqual([mine.id])
    expect(paged.headers['x-prev-page']).toBe('1')

    const publicOnes = await request('GET', '/api/v4/snippets/public', { token: aliceToken })
    const publicIds = publicOnes.body.map((s: { id: number }) => s.id)
    expect(publicIds).toContain(pub.id)
    expect(publicIds).not.toContain(mine.id)
    expect(publicOnes.body.every((s: { visibility: string }) => s.visibility === 'public')).toBe(true)

    const all = await request('GET', '/api/v4/snippets/all', { token: server.rootToken })
    expect(all.body.map((s: { id: number }) => s.id)).toEqual(expect.arrayContaining([pub.id, mine.id]))
    const aliceAll = await request('GET', '/api/v4/snippets/all', { token: aliceToken })
    expect(aliceAll.body.map((s: { id: number }) => s.id)).not.toContain(mine.id)
    const byStorage = await request('GET', '/api/v4/snippets/all?repository_storage=nowhere', { token: server.rootToken })
    expect(byStorage.body).toEqual([])

    const after = await request('GET', `/api/v4/snippets?created_after=${encodeURIComponent(pub.created_at)}`, { token: bobToken })
    expect(after.body.map((s: { id: number }) => s.id)).toContain(pub.id)
    const before = await request('GET', '/api/v4/snippets?created_before=2000-01-01T00:00:00Z', { token: bobToken })
    expect(before.body).toEqual([])

    for (const listPath of ['/api/v4/snippets', '/api/v4/snippets/public', '/api/v4/snippets/all']) {
      const anonymous = await request('GET', listPath)
      expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }])
    }
  })

  test('a long page presents every snippet with its own files, in order', async () => {
    const carol = await createTestUser(server.database.db, { username: 'carol-many' })
    const carolToken = (await createTestToken(server.database.db, carol)).value
    const ids: number[] = []
    for (let n = 0; n < 12; n += 1) {
      ids.push((await create({ title: `n${n}`, files: [{ file_path: `file${n}.txt`, content: `${n}` }] }, carolToken)).id)
    }
    const page = await request('GET', '/api/v4/snippets?per_page=100', { token: carolToken })
    expect(page.body.map((s: { id: number; file_name: string }) => [s.id, s.file_name])).toEqual(
      ids.map((id, n) => [id, `file${n}.txt`]).reverse(),
    )
  })

  test('user_agent_detail is for admins; svc records none', async () => {
    const body = await create({ title: 'UA', files: [{ file_path: 'u', content: 'u' }] })
    const asUser = await request('GET', `/api/v4/snippets/${body.id}/user_agent_detail`, { token: aliceToken })
    expect([asUser.status, asUser.body]).toEqual([403, { message: '403 Forbidden' }])
    const asAdmin = await request('GET', `/api/v4/snippets/${body.id}/user_agent_detail`, { token: server.rootToken })
    expect([asAdmin.status, asAdmin.body]).toEqual([404, { message: '404 UserAgentDetail Not Found' }])
    const missing = await request('GET', `/api/v4/snippets/999999/user_agent_detail`, { token: server.rootToken })
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Not found' }])
  })
})

describe('validation', () => {
  const cases: [string, Record<string, unknown>, number, unknown][] = [
    ['no title', { files: [{ file_path: 'a', content: 'a' }] }, 400, { message: '400 (Bad request) "title" not given' }],
    ['blank title', { title: ' ', files: [{ file_path: 'a', content: 'a' }] }, 400, { error: 'title is empty' }],
    ['neither files nor content', { title: 't' }, 400, { error: 'files, content are missing, exactly one parameter must be provided' }],
    [
      'both files and content',
      { title: 't', content: 'c', file_name: 'f', files: [{ file_path: 'a', content: 'a' }] },
      400,
      { error: 'files, content are mutually exclusive' },
    ],
    ['content without file_name', { title: 't', content: 'c' }, 400, { message: '400 (Bad request) "file_name" not given' }],
    ['blank content', { title: 't', content: '', file_name: 'f' }, 400, { error: 'content is empty' }],
    [
      'file without content',
      { title: 't', files: [{ file_path: 'a' }] },
      400,
      { message: '400 (Bad request) "files[0][content]" not given' },
    ],
    ['blank file content', { title: 't', files: [{ file_path: 'a', content: '' }] }, 400, { error: 'files[0][content] is empty' }],
    ['blank file path', { title: 't', files: [{ file_path: '', content: 'a' }] }, 400, { error: 'files[0][file_path] is empty' }],
    [
      'path traversal',
      { title: 't', files: [{ file_path: '../etc/passwd', content: 'a' }] },
      400,
      { error: 'files[0][file_path] should be a valid file path' },
    ],
    [
      'unknown visibility',
      { title: 't', visibility: 'secret', files: [{ file_path: 'a', content: 'a' }] },
      400,
      { error: 'visibility does not have a valid value' },
    ],
    [
      'the same path twice',
      {
        title: 't',
        files: [
          { file_path: 'a', content: 'a' },
          { file_path: 'a', content: 'b' },
        ],
      },
      400,
      { message: { error: 'Repository Error creating the snippet' } },
    ],
  ]

  test.each(cases)('create refuses %s, creating nothing', async (_name, body, status, expected) => {
    const before = await server.database.db.selectFrom('snippets').select('id').execute()
    const res = await request('POST', '/api/v4/snippets', { token: aliceToken, body })
    expect([res.status, res.body]).toEqual([status, expected])
    const after = await server.database.db.selectFrom('snippets').select('id').execute()
    expect(after.length).toBe(before.length)
  })

  test('a failed create leaves no repository behind', async () => {
    const last = await server.database.db.selectFrom('snippets').select('id').orderBy('id', 'desc').executeTakeFirst()
    const res = await request('POST', '/api/v4/snippets', {
      token: aliceToken,
      body: {
        title: 't',
        files: [
          { file_path: 'dir', content: 'a file' },
          { file_path: 'dir/inside', content: 'needs dir to be a directory' },
        ],
      },
    })
    expect([res.status, res.body]).toEqual([400, { message: { error: 'Repository Error creating the snippet' } }])
    for (let id = (last?.id ?? 0) + 1; id <= (last?.id ?? 0) + 3; id += 1) expect(fs.existsSync(snippetDirectory(id))).toBe(false)
  })

  test('update refusals', async () => {
    const multi = await create({
      title: 'Multi',
      files: [
        { file_path: 'a.txt', content: 'a' },
        { file_path: 'b.txt', content: 'b' },
      ],
    })
    const url = `/api/v4/snippets/${multi.id}`
    const put = (body: Record<string, unknown>) => request('PUT', url, { token: aliceToken, body })
    const expectations: [Record<string, unknown>, number, unknown][] = [
      [
        {},
        400,
        { error: 'content, description, files, file_name, title, visibility are missing, at least one parameter must be provided' },
      ],
      [{ title: '' }, 400, { error: 'title is empty' }],
      [{ content: '' }, 400, { error: 'content is empty' }],
      [
        { content: 'x', files: [{ action: 'update', file_path: 'a.txt', content: 'z' }] },
        400,
        { error: 'files, content are mutually exclusive' },
      ],
      [
        { file_name: 'x', files: [{ action: 'update', file_path: 'a.txt', content: 'z' }] },
        400,
        { error: 'files, file_name are mutually exclusive' },
      ],
      [{ files: [{ action: 'rename', file_path: 'a.txt' }] }, 400, { error: 'files[action] does not have a valid value' }],
      [{ content: 'x' }, 400, { message: { error: 'To update Snippets with multiple files, you must use the `files` parameter' } }],
      [{ file_name: 'x' }, 400, { message: { error: 'To update Snippets with multiple files, you must use the `files` parameter' } }],
      [{ files: [{ action: 'update', file_path: 'a.txt' }] }, 422, { message: { error: 'Snippet actions have invalid data' } }],
      [{ files: [{ action: 'move', file_path: 'c.txt' }] }, 422, { message: { error: 'Snippet actions have invalid data' } }],
      [{ files: [{ action: 'delete' }] }, 422, { message: { error: 'Snippet actions have invalid data' } }],
      [
        { files: [{ action: 'update', file_path: 'zzz.txt', content: 'z' }] },
        400,
        { message: { error: 'Repository Error updating the snippet' } },
      ],
      [
        { files: [{ action: 'create', file_path: 'a.txt', content: 'z' }] },
        400,
        { message: { error: 'Repository Error updating the snippet' } },
      ],
      [{ files: [{ action: 'delete', file_path: 'zzz.txt' }] }, 400, { message: { error: 'Repository Error updating the snippet' } }],
      [
        { files: [{ action: 'move', previous_path: 'a.txt', file_path: 'b.txt' }] },
        400,
        { message: { error: 'Repository Error updating the snippet' } },
      ],
      [{ visibility: 'secret' }, 400, { error: 'visibility does not have a valid value' }],
      [
        { files: [{ action: 'create', file_path: 'a.txt/inner.txt', content: 'z' }] },
        400,
        { message: { error: 'Repository Error updating the snippet' } },
      ],
      [
        { files: [{ action: 'create', file_path: '.git/config', content: 'z' }] },
        400,
        { message: { error: 'Repository Error updating the snippet' } },
      ],
    ]
    const head = (await git.ok(snippetDirectory(multi.id), 'rev-parse', 'main')).trim()
    for (const [body, status, expected] of expectations) {
      const res = await put(body)
      expect([JSON.stringify(body), res.status, res.body]).toEqual([JSON.stringify(body), status, expected])
    }
    expect((await git.ok(snippetDirectory(multi.id), 'rev-parse', 'main')).trim()).toBe(head)
    const shown = await request('GET', url, { token: aliceToken })
    expect(shown.body).toMatchObject({ title: 'Multi', updated_at: multi.updated_at })
  })

  test('a create action without a path gets a generated name', async () => {
    const body = await create({ title: 'Gen', files: [{ file_path: 'a.txt', content: 'a' }] })
    const res = await request('PUT', `/api/v4/snippets/${body.id}`, {
      token: aliceToken,
      body: { files: [{ action: 'create', content: 'generated' }] },
    })
    expect(res.status, res.text).toBe(200)
    expect(res.body.files.map((f: { path: string }) => f.path)).toEqual(['a.txt', 'snippetfile1.txt'])
  })
})

describe('project snippets', () => {
  test('create, show, list, raw, update and delete under a project', async () => {
    const project = await createTestProject(server.database.db, { owner: alice, path: 'home' })
    const base = `/api/v4/projects/${project.id}/snippets`
    const missingVisibility = await request('POST', base, {
      token: aliceToken,
      body: { title: 'P', files: [{ file_path: 'p.txt', content: 'p' }] },
    })
    expect([missingVisibility.status, missingVisibility.body]).toEqual([400, { message: '400 (Bad request) "visibility" not given' }])

    const created = await request('POST', base, {
      token: aliceToken,
      body: { title: 'P', visibility: 'private', files: [{ file_path: 'p.txt', content: 'pee\n' }] },
    })
    expect(created.status, created.text).toBe(201)
    const id = created.body.id as number
    const web = `${server.url}/alice/home/-/snippets/${id}`
    const host = new URL(server.url).hostname
    expect(created.body).toMatchObject({
      project_id: project.id,
      visibility: 'private',
      web_url: web,
      raw_url: `${web}/raw`,
      ssh_url_to_repo: `git@${host}:alice/home/snippets/${id}.git`,
      http_url_to_repo: `${server.url}/alice/home/snippets/${id}.git`,
      file_name: 'p.txt',
      files: [{ path: 'p.txt', raw_url: `${web}/raw/main/p.txt` }],
    })
    const byPath = await request('GET', `/api/v4/projects/alice%2Fhome/snippets/${id}`, { token: aliceToken })
    expect(byPath.body).toEqual(created.body)
    expect((await request('GET', `/api/v4/snippets/${id}`, { token: aliceToken })).body).toEqual(created.body)

    const list = await request('GET', base, { token: aliceToken })
    expect(list.body.map((s: { id: number }) => s.id)).toEqual([id])
    expect((await request('GET', `${base}/${id}/raw`, { token: aliceToken })).text).toBe('pee\n')
    expect((await request('GET', `${base}/${id}/files/main/p.txt/raw`, { token: aliceToken })).text).toBe('pee\n')

    const edited = await request('PUT', `${base}/${id}`, { token: aliceToken, body: { title: 'P2', content: 'peas\n' } })
    expect(edited.status, edited.text).toBe(200)
    expect(edited.body).toMatchObject({ title: 'P2', file_name: 'p.txt' })
    expect((await cloneFromDisk(id)) && fs.readFileSync(path.join(await cloneFromDisk(id), 'p.txt'), 'utf8')).toBe('peas\n')

    const elsewhere = await createTestProject(server.database.db, { owner: alice, path: 'elsewhere' })
    const wrongProject = await request('GET', `/api/v4/projects/${elsewhere.id}/snippets/${id}`, { token: aliceToken })
    expect([wrongProject.status, wrongProject.body]).toEqual([404, { message: '404 Snippet Not Found' }])

    const removed = await request('DELETE', `${base}/${id}`, { token: aliceToken })
    expect(removed.status).toBe(204)
    await server.runJobs()
    expect(fs.existsSync(snippetDirectory(id))).toBe(false)
  })

  test('a project with snippets disabled answers 403; an unknown project 404', async () => {
    const project = await createTestProject(server.database.db, { owner: alice, path: 'nosnips' })
    await server.database.db.updateTable('projects').set({ snippets_access_level: 0 }).where('id', '=', project.id).execute()
    const base = `/api/v4/projects/${project.id}/snippets`
    for (const [method, url, body] of [
      ['GET', base, undefined],
      ['POST', base, { title: 't', visibility: 'public', files: [{ file_path: 'a', content: 'a' }] }],
      ['GET', `${base}/1`, undefined],
    ] as const) {
      const res = await request(method, url, { token: aliceToken, body })
      expect([method, url, res.status, res.body]).toEqual([method, url, 403, { message: '403 Forbidden' }])
    }
    const badParams = await request('POST', base, { token: aliceToken, body: { visibility: 'nope' } })
    expect([badParams.status, badParams.body]).toEqual([403, { message: '403 Forbidden' }])
    const unknown = await request('GET', '/api/v4/projects/999999/snippets', { token: aliceToken })
    expect([unknown.status, unknown.body]).toEqual([404, { message: '404 Project Not Found' }])
    const unknownBadParams = await request('POST', '/api/v4/projects/999999/snippets', { token: aliceToken, body: {} })
    expect([unknownBadParams.status, unknownBadParams.body]).toEqual([404, { message: '404 Project Not Found' }])
    const anonymous = await request('GET', '/api/v4/projects/999999/snippets')
    expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }])
  })
})

describe('spam', () => {
  test('public snippets are checked by title and first file; private ones are not', async () => {
    const settings = (body: Record<string, unknown>) => request('PUT', '/api/v4/application/settings', { token: server.rootToken, body })
    expect((await settings({ spam_check_patterns: 'buy cheap' })).status).toBe(200)
    try {
      const refused = await request('POST', '/api/v4/snippets', {
        token: aliceToken,
        body: { title: 'Offer', visibility: 'public', files: [{ file_path: 'ad.txt', content: 'buy cheap pills' }] },
      })
      expect([refused.status, refused.body]).toEqual([
        400,
        { message: { error: 'Your snippet has been recognized as spam and has been discarded.' } },
      ])
      const log = await server.database.db.selectFrom('spam_logs').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow()
      expect(log).toMatchObject({ user_id: alice.id, noteable_type: 'Snippet', title: 'Offer', description: 'buy cheap pills' })

      const hidden = await create({ title: 'Offer', visibility: 'private', files: [{ file_path: 'ad.txt', content: 'buy cheap pills' }] })
      const published = await request('PUT', `/api/v4/snippets/${hidden.id}`, { token: aliceToken, body: { visibility: 'public' } })
      expect([published.status, published.body]).toEqual([
        400,
        { message: { error: 'Your snippet has been recognized as spam and has been discarded.' } },
      ])
      expect((await request('GET', `/api/v4/snippets/${hidden.id}`, { token: aliceToken })).body.visibility).toBe('private')
    } finally {
      await settings({ spam_check_patterns: null })
    }
  })
})
