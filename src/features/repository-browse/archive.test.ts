import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import zlib from 'node:zlib'
import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { BrowseFixture, processesMentioning, type CreatedProject, type Person } from './browse-fixtures.js'

let server: TestServer
let fixture: BrowseFixture
let owner: Person
let project: CreatedProject
let dir: string
let head: string

/** A program's output for the given input (bzip2 -d, unzip -Z1). */
function run(program: string, args: string[], input?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(program, args, { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    )
    child.stdin?.end(input)
  })
}

/** What git itself writes for the same archive, in the test's clone. */
async function gitArchive(format: string, prefix: string, revision: string, ...paths: string[]): Promise<Buffer> {
  const file = path.join(fixture.git.workDir, `expected-${randomBytes(4).toString('hex')}`)
  await fixture.ok(dir, 'archive', `--format=${format}`, `--prefix=${prefix}/`, `--output=${file}`, revision, ...paths)
  return fs.readFileSync(file)
}

async function download(query: string): Promise<{ response: Response; bytes: Buffer }> {
  const response = await fetch(`${server.url}/api/v4/projects/${project.id}/repository/archive${query}`, {
    headers: { 'private-token': owner.token },
  })
  return { response, bytes: Buffer.from(await response.arrayBuffer()) }
}

/** The processes whose command line mentions `text`. */
beforeAll(async () => {
  server = await startTestServer()
  fixture = new BrowseFixture(server)
  owner = await fixture.person('olive')
  project = await fixture.project(owner, { initialize_with_readme: true, visibility: 'private' })
  dir = await fixture.clone(owner, project.path_with_namespace)
  head = await fixture.commit(
    dir,
    { 'src/app.js': 'console.log(1)\n', 'src/lib/util.ts': 'export {}\n', 'docs/a.md': '# A\n', 'notes.txt': 'n\n' },
    'Add files',
  )
  await fixture.ok(dir, 'checkout', '--quiet', '-b', 'release/1.0')
  await fixture.ok(dir, 'push', '--quiet', 'origin', 'main', 'release/1.0')
})

afterAll(async () => {
  await server.close()
  fixture.remove()
})

describe('GET /projects/:id/repository/archive', () => {
  test('every format, unpacked, holds what git archive writes; the file is named as GitLab names it', async () => {
    const prefix = `${project.path}-main-${head}`
    const tar = await gitArchive('tar', prefix, head)
    const gzip = (bytes: Buffer) => zlib.gunzipSync(bytes)
    const bzip2 = (bytes: Buffer) => run('bzip2', ['-dc'], bytes)
    const cases: [string, string, (bytes: Buffer) => Buffer | Promise<Buffer>][] = [
      ['', 'tar.gz', gzip],
      ['.tar.gz', 'tar.gz', gzip],
      ['.tgz', 'tar.gz', gzip],
      ['.gz', 'tar.gz', gzip],
      ['?format=tar.gz', 'tar.gz', gzip],
      ['.tar.bz2', 'tar.bz2', bzip2],
      ['.tbz', 'tar.bz2', bzip2],
      ['.tbz2', 'tar.bz2', bzip2],
      ['.tb2', 'tar.bz2', bzip2],
      ['.bz2', 'tar.bz2', bzip2],
      ['.tar', 'tar', (bytes) => bytes],
      ['?format=tar', 'tar', (bytes) => bytes],
    ]
    for (const [suffix, extension, unpack] of cases) {
      const { response, bytes } = await download(`${suffix}${suffix.startsWith('?') ? '&' : '?'}sha=main`)
      expect(response.status, suffix).toBe(200)
      expect(response.headers.get('content-disposition'), suffix).toBe(`attachment; filename="${prefix}.${extension}"`)
      expect(response.headers.get('content-type'), suffix).toBe('application/octet-stream')
      expect(response.headers.get('content-transfer-encoding'), suffix).toBe('binary')
      expect((await unpack(bytes)).equals(tar), suffix).toBe(true)
    }

    const zip = await download('.zip')
    expect(zip.response.status).toBe(200)
    expect(zip.response.headers.get('content-type')).toBe('application/zip')
    expect(zip.response.headers.get('content-disposition')).toBe(`attachment; filename="${prefix}.zip"`)
    expect(zip.bytes.equals(await gitArchive('zip', prefix, head))).toBe(true)
    const zipFile = path.join(fixture.git.workDir, 'download.zip')
    fs.writeFileSync(zipFile, zip.bytes)
    expect((await run('unzip', ['-Z1', zipFile])).toString().split('\n').filter(Boolean)).toEqual([
      `${prefix}/`,
      `${prefix}/README.md`,
      `${prefix}/docs/`,
      `${prefix}/docs/a.md`,
      `${prefix}/notes.txt`,
      `${prefix}/src/`,
      `${prefix}/src/app.js`,
      `${prefix}/src/lib/`,
      `${prefix}/src/lib/util.ts`,
    ])
  })

  test('a ref with a slash, a sub-directory and excluded paths, through gitbeaker too', async () => {
    const prefix = `${project.path}-release-1.0-${head}-src`
    const { response, bytes } = await download('.tar?sha=release/1.0&path=src')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${prefix}.tar"`)
    expect(bytes.equals(await gitArchive('tar', prefix, head, 'src'))).toBe(true)

    const slashed = await download('.tar?sha=release/1.0&path=src/')
    expect(slashed.response.headers.get('content-disposition')).toBe(`attachment; filename="${prefix}-.tar"`)
    expect(slashed.bytes.equals(await gitArchive('tar', `${prefix}-`, head, 'src'))).toBe(true)

    const excluded = await download(`.tar?sha=${head}&exclude_paths=docs,src/lib`)
    const excludedPrefix = `${project.path}-${head}-${head}`
    expect(excluded.response.headers.get('content-disposition')).toBe(`attachment; filename="${excludedPrefix}.tar"`)
    expect(excluded.bytes.equals(await gitArchive('tar', excludedPrefix, head, '.', ':(exclude)docs', ':(exclude)src/lib'))).toBe(true)

    const api = new Gitlab({ host: server.url, token: owner.token })
    const blob = await api.Repositories.showArchive(project.id, { fileType: 'zip', path: 'docs' })
    const zipPrefix = `${project.path}-main-${head}-docs`
    expect(Buffer.from(await blob.arrayBuffer()).equals(await gitArchive('zip', zipPrefix, head, 'docs'))).toBe(true)
  })

  test('unknown refs and paths are 404 File Not Found; an unknown format is no route', async () => {
    for (const query of ['?sha=nope', '?sha=-x', '?path=missing', '?path=../etc', '?path=/etc', '?exclude_paths=..', '.zip?sha=nope']) {
      const res = await fetch(`${server.url}/api/v4/projects/${project.id}/repository/archive${query}`, {
        headers: { 'private-token': owner.token },
      })
      expect(res.status, query).toBe(404)
      expect(await res.json(), query).toEqual({ message: '404 File Not Found' })
    }
    const rar = await fetch(`${server.url}/api/v4/projects/${project.id}/repository/archive.rar`, {
      headers: { 'private-token': owner.token },
    })
    expect(rar.status).toBe(404)
    expect(await rar.json()).toEqual({ error: '404 Not Found' })
    const empty = await fixture.project(owner)
    const nothing = await fetch(`${server.url}/api/v4/projects/${empty.id}/repository/archive`, {
      headers: { 'private-token': owner.token },
    })
    expect(nothing.status).toBe(404)
    expect(await nothing.json()).toEqual({ message: '404 File Not Found' })
  })

  test('a client that goes away mid-download ends git', async () => {
    const big = await fixture.commit(dir, { 'big.bin': randomBytes(8 * 1024 * 1024) }, 'A large file')
    await fixture.ok(dir, 'push', '--quiet', 'origin', 'release/1.0')
    const prefix = `${project.path}-release-1.0-${big}`
    // node:http rather than fetch: undici keeps a connection of an aborted body open, which would hold the server's close.
    await new Promise<void>((resolve, reject) => {
      const url = `${server.url}/api/v4/projects/${project.id}/repository/archive.tar?sha=release/1.0`
      const downloading = http.get(url, { headers: { 'private-token': owner.token } }, (response) => {
        expect(response.statusCode).toBe(200)
        response.once('data', () => {
          expect(processesMentioning(`--prefix=${prefix}/`)).not.toEqual([])
          downloading.destroy()
          resolve()
        })
      })
      downloading.on('error', (error) => {
        if (!downloading.destroyed) reject(error)
      })
    })
    const deadline = Date.now() + 5000
    while (processesMentioning(`--prefix=${prefix}/`).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(processesMentioning(`--prefix=${prefix}/`)).toEqual([])
  })
})
