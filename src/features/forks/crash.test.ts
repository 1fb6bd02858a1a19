import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { expect, test } from 'vitest'
import { freePort, freshInstanceEnv, startSvc, waitUntilReady } from '../../testing/cli.js'
import { GitClient, repoUrl } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { hashedRepositoryPath } from '../repositories/index.js'

const FORKS = 8
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Names under `root` (recursively) that are staging directories of fork copies. */
function stagingDirectories(root: string): string[] {
  try {
    return fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((name) => /\.git\.fork-[0-9a-f]+$/.test(name))
  } catch {
    // Missing, or a directory removed while being listed.
    return []
  }
}

test('a server killed with -9 in the middle of fork copies finishes them after a restart, with whole repositories and every row', async () => {
  const { env, open } = await freshInstanceEnv({ migrated: true })
  const storageA = path.join(env.SVC_DATA_DIR, 'storage-a')
  const storageB = path.join(env.SVC_DATA_DIR, 'storage-b')
  const port = await freePort()
  const token = `svcpat-${randomBytes(12).toString('hex')}`
  const serverEnv = {
    ...env,
    SVC_PORT: String(port),
    SVC_ROOT_TOKEN: token,
    SVC_STORAGES: `default=${storageA},second=${storageB}`,
    // A job whose worker died runs again this long after its last lease renewal.
    SVC_JOB_LEASE_MS: '1500',
  }
  const url = `http://127.0.0.1:${port}`
  const request = client(url)
  const gitClient = new GitClient()
  let child = startSvc(serverEnv)
  try {
    await waitUntilReady(url, child)
    const created = await request('POST', '/api/v4/projects', {
      token,
      body: { name: 'Big', path: 'big', visibility: 'private', initialize_with_readme: true },
    })
    expect(created.status, created.text).toBe(201)
    const source = created.body as { id: number }

    // About 48 MB that does not compress, on two branches and a tag: each fork copies all of it (another storage).
    const { run, dir } = await gitClient.clone(repoUrl(url, 'root/big', 'root', token))
    expect(run.code, run.stderr).toBe(0)
    for (let i = 0; i < 3; i++) {
      fs.writeFileSync(path.join(dir, `blob${i}.bin`), randomBytes(16 * 1024 * 1024))
      await gitClient.ok(dir, 'add', '.')
      await gitClient.ok(dir, 'commit', '--quiet', '-m', `Data ${i}`)
      if (i === 1) await gitClient.ok(dir, 'branch', 'stable')
    }
    await gitClient.ok(dir, 'tag', '-a', 'v1', '-m', 'One')
    await gitClient.ok(dir, 'push', '--quiet', 'origin', '--all')
    await gitClient.ok(dir, 'push', '--quiet', 'origin', '--tags')
    fs.rmSync(dir, { recursive: true, force: true })
    const settings = await request('PUT', '/api/v4/application/settings', {
      token,
      body: { repository_storages_weighted: { default: 0, second: 100 } },
    })
    expect(settings.status, settings.text).toBe(200)

    const forkIds: number[] = []
    for (let i = 1; i <= FORKS; i++) {
      const res = await request('POST', `/api/v4/projects/${source.id}/fork`, { token, body: { name: `Fork ${i}`, path: `fork-${i}` } })
      expect(res.status, res.text).toBe(201)
      forkIds.push(res.body.id as number)
    }

    // Killed while a copy is under way: its staging directory is being filled beside the fork's place.
    let killedDuring: { id: number; staging: string[] } | null = null
    const deadline = Date.now() + 60_000
    while (!killedDuring && Date.now() < deadline) {
      const staging = stagingDirectories(storageB)
      if (staging.length > 0) {
        child.kill('SIGKILL')
        const id = forkIds.find((forkId) => staging[0].startsWith(`${hashedRepositoryPath(forkId)}.fork-`))
        killedDuring = { id: id ?? -1, staging }
      } else {
        await sleep(1)
      }
    }
    expect(killedDuring).not.toBeNull()
    expect(forkIds).toContain(killedDuring?.id)
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)))

    const database = await open()
    try {
      const before = await database.db.selectFrom('projects').select(['id', 'import_status']).where('id', 'in', forkIds).execute()
      expect(before.find((p) => p.id === killedDuring?.id)?.import_status).toBe('started')
      expect(before.some((p) => p.import_status !== 'finished')).toBe(true)
    } finally {
      await database.close()
    }

    child = startSvc(serverEnv)
    await waitUntilReady(url, child)
    await expect
      .poll(
        async () => {
          const res = await request('GET', `/api/v4/projects/${source.id}/forks?per_page=100`, { token })
          return (res.body as { import_status: string }[]).map((p) => p.import_status)
        },
        { timeout: 90_000, interval: 250 },
      )
      .toEqual(Array(FORKS).fill('finished'))

    const sourceDir = path.join(storageA, hashedRepositoryPath(source.id))
    const refs = (directory: string) =>
      gitClient.ok(directory, '--git-dir', directory, 'for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/', 'refs/tags/')
    const expected = await refs(sourceDir)
    expect(expected.split('\n').filter(Boolean)).toHaveLength(3)
    for (const id of forkIds) {
      const directory = path.join(storageB, hashedRepositoryPath(id))
      expect(await refs(directory)).toBe(expected)
      const fsck = await gitClient.run(directory, '--git-dir', directory, 'fsck', '--strict', '--no-dangling')
      expect(fsck.code, fsck.stderr).toBe(0)
    }
    expect(stagingDirectories(storageB)).toEqual([])
    const shown = await request('GET', `/api/v4/projects/${killedDuring?.id}`, { token })
    expect(shown.body).toMatchObject({ import_status: 'finished', import_error: null, empty_repo: false, repository_storage: 'second' })

    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
    const after = await open()
    try {
      const projects = await after.db
        .selectFrom('projects')
        .select(['id', 'import_status', 'forked_from_project_id'])
        .orderBy('id')
        .execute()
      expect(projects.map((p) => [p.id, p.import_status, p.forked_from_project_id])).toEqual([
        [source.id, 'none', null],
        ...forkIds.map((id) => [id, 'finished', source.id]),
      ])
      const jobs = await after.db
        .selectFrom('jobs')
        .select(['state', 'attempts', 'payload'])
        .where('kind', '=', 'forks.copy-repository')
        .execute()
      expect(jobs).toHaveLength(FORKS)
      expect(jobs.every((job) => job.state === 'done')).toBe(true)
      const rerun = jobs.find((job) => (JSON.parse(job.payload) as { projectId: number }).projectId === killedDuring?.id)
      expect(rerun?.attempts).toBe(2)
    } finally {
      await after.close()
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    gitClient.remove()
  }
}, 240_000)
