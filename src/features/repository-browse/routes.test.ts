import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestProject } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { BrowseFixture, processesMentioning, type CreatedProject, type Person } from './browse-fixtures.js'

let server: TestServer
let fixture: BrowseFixture
let request: BrowseFixture['request']
let owner: Person
let outsider: Person
let project: CreatedProject
let dir: string
/** The commit every listing reads (main's tip), and the first pushed one. */
let head: string
let first: string

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52])

function sized(size: number, line: string): string {
  return line.repeat(Math.ceil(size / line.length)).slice(0, size - 1) + '\n'
}

async function objectId(revision: string): Promise<string> {
  return (await fixture.ok(dir, 'rev-parse', revision)).trim()
}

beforeAll(async () => {
  server = await startTestServer()
  fixture = new BrowseFixture(server)
  request = fixture.request
  owner = await fixture.person('olive')
  outsider = await fixture.person('oscar')
  project = await fixture.project(owner, { initialize_with_readme: true })
  dir = await fixture.clone(owner, project.path_with_namespace)
  first = await fixture.commit(
    dir,
    {
      'src/app.js': sized(401, 'console.log(1)\n'),
      'src/lib/util.ts': sized(120, 'export const a = 1\n'),
      'src/style.css': sized(80, 'a { color: red }\n'),
      'main.rb': sized(300, 'puts 1\n'),
      'page.html': sized(60, '<!DOCTYPE html><p>hi</p>\n'),
      'tools/run.sh': sized(40, 'echo hi\n'),
      'docs/guide.md': sized(5000, '# Guide\n'),
      'vendor/lib.js': sized(9000, 'var vendored = 1\n'),
      'image.png': PNG,
      'bin.dat': Buffer.from([1, 2, 0, 3]),
    },
    'Add the code',
  )
  fs.chmodSync(path.join(dir, 'tools/run.sh'), 0o755)
  await fixture.ok(dir, 'update-index', '--chmod=+x', 'tools/run.sh')
  await fixture.ok(dir, 'update-index', '--add', '--cacheinfo', `160000,${first},sub`)
  await fixture.ok(dir, 'commit', '--quiet', '-m', 'Make run.sh executable, add a submodule')
  await fixture.ok(dir, 'commit', '--quiet', '--allow-empty', '-m', 'Bob was here', '--author=bob <bob@example.com>')
  head = await objectId('HEAD')
  await fixture.ok(dir, 'push', '--quiet', 'origin', 'main')
})

afterAll(async () => {
  await server.close()
  fixture.remove()
})

describe('GET /projects/:id/repository/tree', () => {
  test('lists the root of the default branch: trees, then blobs, then submodules, each in git order', async () => {
    const res = await request('GET', `/projects/${project.id}/repository/tree`)
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('application/json')
    const tree = async (path: string) => objectId(`HEAD:${path}`)
    expect(res.body).toEqual([
      { id: await tree('docs'), name: 'docs', type: 'tree', path: 'docs', mode: '040000' },
      { id: await tree('src'), name: 'src', type: 'tree', path: 'src', mode: '040000' },
      { id: await tree('tools'), name: 'tools', type: 'tree', path: 'tools', mode: '040000' },
      { id: await tree('vendor'), name: 'vendor', type: 'tree', path: 'vendor', mode: '040000' },
      { id: await tree('README.md'), name: 'README.md', type: 'blob', path: 'README.md', mode: '100644' },
      { id: await tree('bin.dat'), name: 'bin.dat', type: 'blob', path: 'bin.dat', mode: '100644' },
      { id: await tree('image.png'), name: 'image.png', type: 'blob', path: 'image.png', mode: '100644' },
      { id: await tree('main.rb'), name: 'main.rb', type: 'blob', path: 'main.rb', mode: '100644' },
      { id: await tree('page.html'), name: 'page.html', type: 'blob', path: 'page.html', mode: '100644' },
      { id: first, name: 'sub', type: 'commit', path: 'sub', mode: '160000' },
    ])
    expect(res.headers['x-total']).toBe('10')
    expect(res.headers['x-total-pages']).toBe('1')
    expect(res.headers['x-page']).toBe('1')
    expect(res.headers['x-per-page']).toBe('20')
    expect(res.headers['x-next-page']).toBe('')
  })

  test('a path, a ref and recursion: every entry below, paths from the root, trees first', async () => {
    const res = await request('GET', `/projects/${project.id}/repository/tree?path=src&ref=${first}&recursive=true`)
    expect(res.status).toBe(200)
    expect(res.body.map((entry: any) => [entry.type, entry.path, entry.name])).toEqual([
      ['tree', 'src/lib', 'lib'],
      ['blob', 'src/app.js', 'app.js'],
      ['blob', 'src/lib/util.ts', 'util.ts'],
      ['blob', 'src/style.css', 'style.css'],
    ])
    const tools = await request('GET', `/projects/${project.path_with_namespace.replace('/', '%2F')}/repository/tree?path=tools/`)
    expect(tools.body).toEqual([
      { id: await objectId('HEAD:tools/run.sh'), name: 'run.sh', type: 'blob', path: 'tools/run.sh', mode: '100755' },
    ])
  })

  test('offset pages: headers and links as GitLab sends them', async () => {
    const res = await request('GET', `/projects/${project.id}/repository/tree?per_page=4&page=2`)
    expect(res.status).toBe(200)
    expect(res.body.map((entry: any) => entry.name)).toEqual(['README.md', 'bin.dat', 'image.png', 'main.rb'])
    const base = `${server.config.externalUrl}/api/v4/projects/${project.id}/repository/tree`
    expect(res.headers.link).toBe(
      `<${base}?page=1&per_page=4>; rel="prev", <${base}?page=3&per_page=4>; rel="next", <${base}?page=1&per_page=4>; rel="first", <${base}?page=3&per_page=4>; rel="last"`,
    )
    expect([res.headers['x-total'], res.headers['x-total-pages'], res.headers['x-prev-page'], res.headers['x-next-page']]).toEqual([
      '10',
      '3',
      '1',
      '3',
    ])
  })

  test('keyset pages follow the Link header, through gitbeaker', async () => {
    const first = await request('GET', `/projects/${project.id}/repository/tree?pagination=keyset&per_page=3&recursive=true`)
    expect(first.status).toBe(200)
    const token = Buffer.from(JSON.stringify({ file_name: 'tools' })).toString('base64')
    expect(first.body.map((entry: any) => entry.path)).toEqual(['docs', 'src', 'src/lib'])
    expect(first.headers.link).toBe(
      `<${server.config.externalUrl}/api/v4/projects/${project.id}/repository/tree?page_token=${encodeURIComponent(
        Buffer.from(JSON.stringify({ file_name: 'src/lib' })).toString('base64'),
      )}&pagination=keyset&per_page=3&recursive=true>; rel="next"`,
    )
    expect(first.headers['x-total']).toBeUndefined()
    const second = await request(
      'GET',
      `/projects/${project.id}/repository/tree?pagination=keyset&per_page=2&recursive=true&page_token=${encodeURIComponent(token)}`,
    )
    expect(second.body.map((entry: any) => entry.path)).toEqual(['vendor', 'README.md'])

    const api = new Gitlab({ host: server.url, token: owner.token })
    const all = await api.Repositories.allRepositoryTrees(project.id, { recursive: true, pagination: 'keyset', perPage: 3 })
    const everything = await request('GET', `/projects/${project.id}/repository/tree?recursive=true&pagination=none`)
    expect(everything.headers.link).toBeUndefined()
    expect(everything.body).toHaveLength(17)
    expect(all).toEqual(everything.body)
    // The last page ends the walk: no Link.
    const last = await request('GET', `/projects/${project.id}/repository/tree?pagination=keyset&per_page=20&recursive=true`)
    expect(last.body).toHaveLength(17)
    expect(last.headers.link).toBeUndefined()
  })

  test('recursive offset pages are slices of the whole listing, with its totals; a page past the end is empty', async () => {
    const everything = (await request('GET', `/projects/${project.id}/repository/tree?recursive=true&pagination=none`)).body
    for (const perPage of [1, 4, 16, 17, 20]) {
      for (let page = 1; page <= Math.ceil(everything.length / perPage) + 1; page += 1) {
        const res = await request('GET', `/projects/${project.id}/repository/tree?recursive=true&per_page=${perPage}&page=${page}`)
        expect(res.status).toBe(200)
        expect(res.body, `page ${page} of ${perPage}`).toEqual(everything.slice((page - 1) * perPage, page * perPage))
        const hasNext = page * perPage < everything.length
        expect([res.headers['x-total'], res.headers['x-total-pages'], res.headers['x-next-page']]).toEqual([
          String(everything.length),
          String(Math.ceil(everything.length / perPage)),
          hasNext ? String(page + 1) : '',
        ])
      }
    }
  })

  test('keyset tokens by object id, as Gitaly once wrote them, and a token naming nothing', async () => {
    const everything = (await request('GET', `/projects/${project.id}/repository/tree?recursive=true&pagination=none`)).body
    const after = everything[5]
    const byId = await request(
      'GET',
      `/projects/${project.id}/repository/tree?recursive=true&pagination=keyset&per_page=3&page_token=${after.id}`,
    )
    expect(byId.body).toEqual(everything.slice(6, 9))
    const unknown = await request(
      'GET',
      `/projects/${project.id}/repository/tree?recursive=true&pagination=keyset&page_token=${'0'.repeat(40)}`,
    )
    expect(unknown.status).toBe(400)
    expect(unknown.body).toEqual({ message: '400 Bad request - Invalid page token' })
  })

  test('a page of a large recursive tree ends the git that lists it', async () => {
    const large = await fixture.project(owner, { initialize_with_readme: true })
    const work = await fixture.clone(owner, large.path_with_namespace)
    const files: Record<string, string> = {}
    for (let directory = 0; directory < 30; directory += 1) {
      for (let file = 0; file < 700; file += 1) files[`d${String(directory).padStart(2, '0')}/f${String(file).padStart(3, '0')}`] = 'x\n'
    }
    await fixture.commit(work, files, 'Many files')
    await fixture.ok(work, 'push', '--quiet', 'origin', 'main')
    const tree = (query: string) => request('GET', `/projects/${large.id}/repository/tree?recursive=true&${query}`)
    const first = await tree('pagination=keyset&per_page=3')
    expect(first.body.map((entry: any) => entry.path)).toEqual(['d00', 'd01', 'd02'])
    const blobs = await tree(
      `pagination=keyset&per_page=2&page_token=${encodeURIComponent(Buffer.from(JSON.stringify({ file_name: 'd29' })).toString('base64'))}`,
    )
    expect(blobs.body.map((entry: any) => entry.path)).toEqual(['README.md', 'd00/f000'])
    const offset = await tree('per_page=2&page=3')
    expect(offset.body.map((entry: any) => entry.path)).toEqual(['d04', 'd05'])
    expect([offset.headers['x-total'], offset.headers['x-total-pages']]).toEqual([
      String(30 + 1 + 30 * 700),
      String(Math.ceil((31 + 30 * 700) / 2)),
    ])
    // git writes far more than a pipe holds: a git still listing would be blocked on its write, and still running.
    const deadline = Date.now() + 5000
    const listing = () => processesMentioning('ls-tree\0-z\0-r')
    while (listing().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(listing()).toEqual([])
  })

  test('missing refs, paths that name no tree, and bad params answer GitLab 4xx bodies', async () => {
    const tree = (query: string) => request('GET', `/projects/${project.id}/repository/tree?${query}`)
    expect(await tree('ref=nope')).toMatchObject({ status: 404, body: { message: '404 Tree Not Found' } })
    expect(await tree('ref=-x')).toMatchObject({ status: 404, body: { message: '404 Tree Not Found' } })
    expect(await tree('ref=')).toMatchObject({ status: 404, body: { message: '404 Tree Not Found' } })
    for (const path of ['bogus', '../etc', 'src/../..', '/etc', 'src//lib', 'src%0Alib']) {
      expect(await tree(`path=${path}`), path).toMatchObject({ status: 404, body: { message: '404 invalid revision or path Not Found' } })
    }
    expect(await tree('path=main.rb')).toMatchObject({ status: 404, body: { message: '404 path not treeish Not Found' } })
    expect(await tree('pagination=none')).toMatchObject({
      status: 400,
      body: { error: 'pagination cannot be "none" unless "recursive" is true' },
    })
    expect(await tree('pagination=sideways')).toMatchObject({ status: 400, body: { error: 'pagination does not have a valid value' } })
    expect(await tree('pagination=keyset&page_token=unknown')).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Invalid page token' },
    })
  })

  test('an empty repository has no tree', async () => {
    const empty = await fixture.project(owner)
    expect(await request('GET', `/projects/${empty.id}/repository/tree`)).toMatchObject({
      status: 404,
      body: { message: '404 Tree Not Found' },
    })
  })
})

describe('a project with no repository on disk', () => {
  test('reads as nothing there, never a 5xx', async () => {
    const bare = await createTestProject(server.database.db, { owner: owner.user })
    const get = (path: string) => request('GET', `/projects/${bare.id}/${path}`, { token: owner.token })
    expect(await get('repository/tree')).toMatchObject({ status: 404, body: { message: '404 Tree Not Found' } })
    expect(await get(`repository/blobs/${head}`)).toMatchObject({ status: 404, body: { message: '404 Blob Not Found' } })
    expect(await get(`repository/blobs/${head}/raw`)).toMatchObject({ status: 404, body: { message: '404 Blob Not Found' } })
    expect(await get('repository/archive.zip')).toMatchObject({ status: 404, body: { message: '404 File Not Found' } })
    expect(await get('repository/merge_base?refs=main,other')).toMatchObject({
      status: 400,
      body: { message: 'Could not find refs: main, other' },
    })
    expect(await get('repository/contributors')).toMatchObject({ status: 200, body: [] })
    expect(await get('languages')).toMatchObject({ status: 200, body: {} })
  })
})

describe('bad input', () => {
  test('NUL bytes are refused before routing (GitLab malformed-strings middleware); revisions Gitaly refuses name nothing', async () => {
    const queries = [
      'repository/tree?path=%00',
      'repository/tree?ref=ma%00in',
      'repository/archive?path=a%00b',
      'repository/blobs/ab%00cd',
      'repository/merge_base?refs[]=a%00&refs[]=main',
      'repository/contributors?ref=%00',
    ]
    for (const query of queries) {
      const res = await request('GET', `/projects/${project.id}/${query}`)
      expect(res.status, query).toBe(400)
      expect(res.headers['content-type'], query).toBe('text/plain; charset=utf-8')
      expect(res.text, query).toBe('Bad Request')
    }
    expect(await request('GET', `/projects/${project.id}/repository/blobs/ab%2Fcd/raw`)).toMatchObject({
      status: 404,
      body: { message: '404 Blob Not Found' },
    })
    // Path scopes, reflog and upstream forms are no revisions Gitaly reads; some would end git's reader.
    const revisions = ['main@{u}', '@{upstream}', 'main@{1}', 'main:../x', 'HEAD:README.md', 'main main']
    for (const revision of revisions) {
      const ref = encodeURIComponent(revision)
      const tree = await request('GET', `/projects/${project.id}/repository/tree?ref=${ref}`)
      expect(tree, revision).toMatchObject({ status: 404, body: { message: '404 Tree Not Found' } })
      const blob = await request('GET', `/projects/${project.id}/repository/blobs/${ref}`)
      expect(blob, revision).toMatchObject({ status: 404, body: { message: '404 Blob Not Found' } })
      const archive = await request('GET', `/projects/${project.id}/repository/archive?sha=${ref}`)
      expect(archive, revision).toMatchObject({ status: 404, body: { message: '404 File Not Found' } })
      const contributors = await request('GET', `/projects/${project.id}/repository/contributors?ref=${ref}`)
      expect(contributors, revision).toMatchObject({ status: 404, body: { message: '404 Not Found' } })
      const mergeBase = await request('GET', `/projects/${project.id}/repository/merge_base?refs[]=main&refs[]=${ref}`)
      expect(mergeBase, revision).toMatchObject({ status: 400, body: { message: `Could not find ref: ${revision}` } })
    }
    expect((await request('GET', `/projects/${project.id}/repository/tree`)).status).toBe(200)
    expect(await request('GET', `/projects/${project.id}/repository/tree?path=src%2F..%2F..`)).toMatchObject({
      status: 404,
      body: { message: '404 invalid revision or path Not Found' },
    })
  })
})

describe('access', () => {
  test('a private project is 404 to outsiders; a guest, who may not read its code, gets 403', async () => {
    const secret = await fixture.project(owner, { visibility: 'private', initialize_with_readme: true })
    const guest = await fixture.person('gus')
    await fixture.member(guest, secret.id, 10)
    const readme = (await request('GET', `/projects/${secret.id}/repository/tree`, { token: owner.token })).body[0].id
    const paths = ['repository/tree', `repository/blobs/${readme}`, 'repository/contributors', 'repository/archive.zip', 'languages']
    for (const path of paths) {
      const anonymous = await request('GET', `/projects/${secret.id}/${path}`)
      expect(anonymous, path).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } })
      const stranger = await request('GET', `/projects/${secret.id}/${path}`, { token: outsider.token })
      expect(stranger, path).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } })
      const forbidden = await request('GET', `/projects/${secret.id}/${path}`, { token: guest.token })
      expect(forbidden, path).toMatchObject({ status: 403, body: { message: '403 Forbidden' } })
      const allowed = await request('GET', `/projects/${secret.id}/${path}`, { token: owner.token })
      expect(allowed.status, path).toBe(200)
    }
  })
})

describe('blobs', () => {
  test('GET blobs/:sha answers the content in base64', async () => {
    const sha = await objectId('HEAD:main.rb')
    const res = await request('GET', `/projects/${project.id}/repository/blobs/${sha}`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ size: 300, encoding: 'base64', content: Buffer.from(sized(300, 'puts 1\n')).toString('base64'), sha })
    expect(Object.keys(res.body)).toEqual(['size', 'encoding', 'content', 'sha'])
  })

  test('GET blobs/:sha/raw answers the bytes with the type Workhorse detects', async () => {
    const raw = async (path: string) => {
      const response = await fetch(`${server.url}/api/v4/projects/${project.id}/repository/blobs/${await objectId(`HEAD:${path}`)}/raw`)
      return { response, bytes: Buffer.from(await response.arrayBuffer()) }
    }
    const text = await raw('main.rb')
    expect(text.response.status).toBe(200)
    expect(text.bytes.toString()).toBe(sized(300, 'puts 1\n'))
    expect(text.response.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(text.response.headers.get('content-disposition')).toBe('inline')
    expect(text.response.headers.get('content-length')).toBe('300')
    expect(text.response.headers.get('cache-control')).toBe('max-age=0, private, must-revalidate, no-store, no-cache')
    expect(text.response.headers.get('expires')).toBe('Fri, 01 Jan 1990 00:00:00 GMT')
    expect(text.response.headers.get('x-content-type-options')).toBe('nosniff')

    const html = await raw('page.html')
    expect([html.response.headers.get('content-type'), html.response.headers.get('content-disposition')]).toEqual([
      'text/plain; charset=utf-8',
      'inline',
    ])
    const image = await raw('image.png')
    expect([image.response.headers.get('content-type'), image.response.headers.get('content-disposition')]).toEqual(['image/png', 'inline'])
    expect(image.bytes.equals(PNG)).toBe(true)
    const binary = await raw('bin.dat')
    expect([binary.response.headers.get('content-type'), binary.response.headers.get('content-disposition')]).toEqual([
      'application/octet-stream',
      'attachment',
    ])
    expect([...binary.bytes]).toEqual([1, 2, 0, 3])
  })

  test('what is no blob is 404 Blob Not Found', async () => {
    const tree = await objectId('HEAD:src')
    for (const sha of ['0000000000000000000000000000000000000000', tree, 'nope', '-x', 'HEAD:missing']) {
      for (const suffix of ['', '/raw']) {
        const res = await request('GET', `/projects/${project.id}/repository/blobs/${encodeURIComponent(sha)}${suffix}`)
        expect(res, sha + suffix).toMatchObject({ status: 404, body: { message: '404 Blob Not Found' } })
      }
    }
  })
})

describe('GET /projects/:id/repository/contributors', () => {
  test('one per email with its commits, merges left out, in the order asked for', async () => {
    const contributors = (query = '') => request('GET', `/projects/${project.id}/repository/contributors${query}`)
    const res = await contributors()
    expect(res.status).toBe(200)
    const olive = { name: 'Olive', email: owner.user.email, commits: 1, additions: 0, deletions: 0 }
    const tess = { name: 'Tess', email: 'tess@example.com', commits: 2, additions: 0, deletions: 0 }
    const bob = { name: 'bob', email: 'bob@example.com', commits: 1, additions: 0, deletions: 0 }
    // Equal counts keep the order of each author's newest commit.
    expect(res.body).toEqual([bob, olive, tess])
    expect(res.headers['x-total']).toBe('3')
    expect((await contributors('?order_by=name')).body).toEqual([bob, olive, tess])
    expect((await contributors('?order_by=name&sort=desc')).body).toEqual([tess, olive, bob])
    expect((await contributors(`?order_by=commits&sort=desc&ref=${first}`)).body).toEqual([{ ...tess, commits: 1 }, olive])
    // Olive's address is the factory's `user…@example.com`.
    const paged = await contributors('?order_by=email&per_page=2&page=2')
    expect(paged.body).toEqual([olive])
    expect(paged.headers['x-total-pages']).toBe('2')
    expect(await contributors('?ref=nope')).toMatchObject({ status: 404, body: { message: '404 Not Found' } })
    expect(await contributors('?order_by=size')).toMatchObject({ status: 400, body: { error: 'order_by does not have a valid value' } })
    const empty = await fixture.project(owner)
    expect(await request('GET', `/projects/${empty.id}/repository/contributors`)).toMatchObject({ status: 200, body: [] })
  })
})

describe('GET /projects/:id/repository/merge_base', () => {
  test('the common ancestor of branches, tags and object ids, as a commit entity', async () => {
    await fixture.ok(dir, 'checkout', '--quiet', '-b', 'feature', first)
    const feature = await fixture.commit(dir, { 'feature.txt': 'f\n' }, 'Feature work')
    await fixture.ok(dir, 'checkout', '--quiet', '--orphan', 'lonely')
    await fixture.commit(dir, { 'alone.txt': 'a\n' }, 'Unrelated')
    await fixture.ok(dir, 'push', '--quiet', 'origin', 'feature', 'lonely')
    await fixture.ok(dir, 'checkout', '--quiet', 'main')

    const api = new Gitlab({ host: server.url, token: owner.token })
    const base = (await api.Repositories.mergeBase(project.id, ['main', 'feature'])) as unknown as Record<string, any>
    const expected = (await fixture.ok(dir, 'show', '--no-patch', '--format=%H%n%s%n%an', first)).split('\n')
    expect(base).toMatchObject({
      id: first,
      short_id: first.slice(0, 8),
      title: expected[1],
      author_name: expected[2],
      parent_ids: [await objectId(`${first}^`)],
      web_url: `${server.config.externalUrl}/${project.path_with_namespace}/-/commit/${first}`,
    })
    const three = await request('GET', `/projects/${project.id}/repository/merge_base?refs=${feature},${head},main`)
    expect(three.status).toBe(200)
    expect(three.body.id).toBe(first)

    const mergeBase = (query: string) => request('GET', `/projects/${project.id}/repository/merge_base?${query}`)
    expect(await mergeBase('refs[]=main')).toMatchObject({ status: 400, body: { message: 'Provide at least 2 refs' } })
    expect(await mergeBase('refs[]=main&refs[]=nope')).toMatchObject({ status: 400, body: { message: 'Could not find ref: nope' } })
    expect(await mergeBase('refs=nope,main,-x')).toMatchObject({ status: 400, body: { message: 'Could not find refs: nope, -x' } })
    expect(await mergeBase('refs[]=main&refs[]=lonely')).toMatchObject({ status: 404, body: { message: '404 Merge Base Not Found' } })
    expect(await mergeBase('')).toMatchObject({ status: 400, body: { message: '400 (Bad request) "refs" not given' } })
  })
})

describe('GET /projects/:id/languages', () => {
  test('shares of the default branch by bytes, code only, five largest, two decimals', async () => {
    const res = await request('GET', `/projects/${project.id}/languages`)
    expect(res.status).toBe(200)
    expect(res.text).toBe('{"JavaScript":40.06,"Ruby":29.97,"TypeScript":11.99,"CSS":7.99,"HTML":5.99}')

    // The repository's .gitattributes overrides linguist: vendored code counted, a file generated, a language named.
    await fixture.commit(
      dir,
      { '.gitattributes': 'vendor/** -linguist-vendored\nmain.rb linguist-generated\n*.css linguist-language=scss\n' },
      'Attributes',
    )
    await fixture.ok(dir, 'push', '--quiet', 'origin', 'main')
    const overridden = await request('GET', `/projects/${project.id}/languages`)
    expect(overridden.text).toBe('{"JavaScript":96.91,"TypeScript":1.24,"SCSS":0.82,"HTML":0.62,"Shell":0.41}')
    const empty = await fixture.project(owner)
    expect(await request('GET', `/projects/${empty.id}/languages`)).toMatchObject({ status: 200, body: {} })
  })
})

describe('blobs over the object reader’s large-blob threshold', () => {
  let large: CreatedProject
  const text = Buffer.from(sized(2 * 1024 * 1024 + 5, 'a line of text, repeated\n'))
  const image = Buffer.concat([PNG, Buffer.alloc(1024 * 1024 + 3, 7)])
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    large = await fixture.project(owner, { initialize_with_readme: true })
    const work = await fixture.clone(owner, large.path_with_namespace)
    await fixture.commit(work, { 'big.txt': text, 'big.png': image, 'small.txt': 'small\n' }, 'Large files')
    await fixture.ok(work, 'push', '--quiet', 'origin', 'main')
    for (const name of ['big.txt', 'big.png', 'small.txt']) ids[name] = (await fixture.ok(work, 'rev-parse', `HEAD:${name}`)).trim()
  })

  const get = async (suffix: string) => {
    const response = await fetch(`${server.url}/api/v4/projects/${large.id}/repository/blobs/${suffix}`)
    return { response, bytes: Buffer.from(await response.arrayBuffer()) }
  }
  const headersOf = (response: Response, names: string[]) => names.map((name) => response.headers.get(name))

  test('raw: the bytes stream from git with their length and the type Workhorse detects', async () => {
    const names = ['content-type', 'content-disposition', 'content-length', 'cache-control', 'expires', 'x-content-type-options']
    const textRaw = await get(`${ids['big.txt']}/raw`)
    expect(textRaw.response.status).toBe(200)
    expect(headersOf(textRaw.response, names)).toEqual([
      'text/plain; charset=utf-8',
      'inline',
      String(text.length),
      'max-age=0, private, must-revalidate, no-store, no-cache',
      'Fri, 01 Jan 1990 00:00:00 GMT',
      'nosniff',
    ])
    expect(textRaw.bytes.equals(text)).toBe(true)
    const imageRaw = await get(`${ids['big.png']}/raw`)
    expect(headersOf(imageRaw.response, names.slice(0, 3))).toEqual(['image/png', 'inline', String(image.length)])
    expect(imageRaw.bytes.equals(image)).toBe(true)
  })

  test('JSON: the same text as a small blob’s, the base64 content written as git streams it', async () => {
    const small = await get(ids['small.txt'])
    const json = await get(ids['big.txt'])
    expect(json.response.status).toBe(200)
    const expected = JSON.stringify({ size: text.length, encoding: 'base64', content: text.toString('base64'), sha: ids['big.txt'] })
    expect(json.bytes.toString('utf8') === expected).toBe(true)
    expect(headersOf(json.response, ['content-type', 'content-length'])).toEqual([
      small.response.headers.get('content-type'),
      String(Buffer.byteLength(expected)),
    ])
    expect(small.bytes.toString()).toBe(JSON.stringify({ size: 6, encoding: 'base64', content: 'c21hbGwK', sha: ids['small.txt'] }))
  })
})

describe('a client that goes away', () => {
  test('mid-way through a large raw blob ends the git that streams it', async () => {
    const owned = await fixture.project(owner, { initialize_with_readme: true })
    const work = await fixture.clone(owner, owned.path_with_namespace)
    await fixture.commit(work, { 'random.bin': randomBytes(8 * 1024 * 1024) }, 'A large file')
    await fixture.ok(work, 'push', '--quiet', 'origin', 'main')
    const oid = (await fixture.ok(work, 'rev-parse', 'HEAD:random.bin')).trim()
    const streaming = () => processesMentioning(`cat-file\0blob\0${oid}`)
    // node:http rather than fetch: undici keeps a connection of an aborted body open, which would hold the server's close.
    await new Promise<void>((resolve, reject) => {
      const downloading = http.get(`${server.url}/api/v4/projects/${owned.id}/repository/blobs/${oid}/raw`, (response) => {
        expect(response.statusCode).toBe(200)
        response.once('data', () => {
          expect(streaming()).not.toEqual([])
          downloading.destroy()
          resolve()
        })
      })
      downloading.on('error', (error) => {
        if (!downloading.destroyed) reject(error)
      })
    })
    const deadline = Date.now() + 5000
    while (streaming().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(streaming()).toEqual([])
  })
})
