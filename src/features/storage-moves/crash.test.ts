import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { MAIN, freePort, freshInstanceEnv } from '../../testing/cli.js'
import { GitClient, repoUrl } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { git, hashedRepositoryPath } from '../repositories/index.js'

const gitClient = new GitClient()
const storageBase = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-crash-storages-'))
const roots = { default: path.join(storageBase, 'one'), other: path.join(storageBase, 'two') }
const children: ChildProcessWithoutNullStreams[] = []

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  gitClient.remove()
  fs.rmSync(storageBase, { recursive: true, force: true })
})

async function startServer(env: Record<string, string>, url: string): Promise<ChildProcessWithoutNullStreams> {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ...env } })
  children.push(child)
  child.stdout.resume()
  child.stderr.resume()
  for (let i = 0; i < 400; i++) {
    if (child.exitCode !== null) throw new Error('server exited')
    try {
      if ((await fetch(`${url}/-/readiness`)).status === 200) return child
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('server did not become ready')
}

/** A history big enough that copying and verifying it takes a while: many commits, and one large incompressible file. */
function historyStream(commits: number): Buffer {
  const parts: Buffer[] = []
  const big = randomBytes(24 * 1024 * 1024)
  parts.push(Buffer.from(`blob\nmark :1\ndata ${big.length}\n`), big, Buffer.from('\n'))
  for (let n = 1; n <= commits; n++) {
    const content = `file ${n}\n`
    const message = `Commit ${n}`
    parts.push(
      Buffer.from(
        `commit refs/heads/main\ncommitter Tess <tess@example.com> ${1_700_000_000 + n} +0000\ndata ${message.length}\n${message}\n` +
          (n === 1 ? 'M 100644 :1 big.bin\n' : '') +
          `M 100644 inline files/${n}.txt\ndata ${content.length}\n${content}\n`,
      ),
    )
  }
  return Buffer.concat(parts)
}

test('a server killed while a move copies restarts and finishes the move with nothing lost', { timeout: 240_000 }, async () => {
  const { env: base, open } = await freshInstanceEnv({ migrated: true })
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const token = 'svcpat-storage-move-crash-0001'
  const env = {
    ...base,
    SVC_PORT: String(port),
    SVC_ROOT_TOKEN: token,
    SVC_STORAGES: `default=${roots.default},other=${roots.other}`,
    // A dead worker's job runs again this long after its last renewal.
    SVC_JOB_LEASE_MS: '1000',
  }
  const request = client(url)
  let server = await startServer(env, url)

  const created = await request('POST', '/api/v4/projects', { token, body: { name: 'Heavy' } })
  expect(created.status, created.text).toBe(201)
  const project = created.body as { id: number; path_with_namespace: string }
  const work = gitClient.freshDir()
  await gitClient.ok(os.tmpdir(), 'init', '--quiet', '--initial-branch=main', work)
  await new Promise<void>((resolve, reject) => {
    const child = spawn('git', ['fast-import', '--quiet'], { cwd: work, env: { PATH: process.env.PATH ?? '', HOME: work } })
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`fast-import exited ${code}`))))
    child.stdin.end(historyStream(3000))
  })
  await gitClient.ok(work, 'push', '--quiet', repoUrl(url, project.path_with_namespace, 'root', token), 'main')
  const source = path.join(roots.default, hashedRepositoryPath(project.id))
  const destination = path.join(roots.other, hashedRepositoryPath(project.id))
  const pushedRefs = await git(['for-each-ref', '--format=%(objectname) %(refname)'], { gitDir: source })
  expect(pushedRefs).toMatch(/^[0-9a-f]{40} refs\/heads\/main\n$/)

  const { db, close } = await open()
  try {
    const scheduled = await request('POST', `/api/v4/projects/${project.id}/repository_storage_moves`, {
      token,
      body: { destination_storage_name: 'other' },
    })
    expect(scheduled.status, scheduled.text).toBe(201)
    const moveId = scheduled.body.id as number
    const stateOf = async () =>
      (await db.selectFrom('repository_storage_moves').select('state').where('id', '=', moveId).executeTakeFirstOrThrow()).state

    // The worker starts the move at once; kill -9 while it copies (state "started").
    const deadline = Date.now() + 30_000
    while ((await stateOf()) !== 3) {
      expect(Date.now()).toBeLessThan(deadline)
      await new Promise((r) => setTimeout(r, 2))
    }
    const exited = new Promise((resolve) => server.once('exit', resolve))
    server.kill('SIGKILL')
    await exited
    expect(await stateOf()).toBe(3)
    expect(
      await db
        .selectFrom('projects')
        .select(['repository_storage', 'repository_read_only'])
        .where('id', '=', project.id)
        .executeTakeFirst(),
    ).toEqual({
      repository_storage: 'default',
      repository_read_only: 1,
    })

    server = await startServer(env, url)
    const shown = async () =>
      (await request('GET', `/api/v4/project_repository_storage_moves/${moveId}`, { token })).body as Record<string, unknown>
    await expect.poll(async () => (await shown()).state, { timeout: 60_000, interval: 200 }).toBe('finished')
    expect((await shown()).error_message).toBeNull()

    expect(fs.existsSync(source)).toBe(false)
    expect(fs.existsSync(`${destination}.moving`)).toBe(false)
    expect(await git(['for-each-ref', '--format=%(objectname) %(refname)'], { gitDir: destination })).toBe(pushedRefs)
    await git(['fsck', '--no-progress', '--full'], { gitDir: destination })
    const project2 = await request('GET', `/api/v4/projects/${project.id}`, { token })
    expect(project2.body.repository_storage).toBe('other')

    const { run, dir } = await gitClient.clone(repoUrl(url, project.path_with_namespace, 'root', token))
    expect(run.code, run.stderr).toBe(0)
    expect(fs.statSync(path.join(dir, 'big.bin')).size).toBe(24 * 1024 * 1024)
    expect(fs.readFileSync(path.join(dir, 'files', '3000.txt'), 'utf8')).toBe('file 3000\n')
    expect((await gitClient.ok(dir, 'rev-list', '--count', 'HEAD')).trim()).toBe('3000')
    // Writable again.
    fs.writeFileSync(path.join(dir, 'after.txt'), 'after\n')
    await gitClient.ok(dir, 'add', 'after.txt')
    await gitClient.ok(dir, 'commit', '--quiet', '-m', 'After the move')
    await gitClient.ok(dir, 'push', '--quiet', 'origin', 'main')
  } finally {
    await close()
    const exited = new Promise((resolve) => server.once('exit', resolve))
    server.kill('SIGTERM')
    await exited
  }
})
