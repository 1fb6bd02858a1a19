import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as tar from 'tar'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { listRepositories } from './repositories.js'
import { freePort, freshInstanceEnv, runSvc, startSvc, waitUntilReady } from '../../testing/cli.js'
import { GitClient, repoUrl } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import { cloneProject, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, TEST_DATABASE_URL, type TestServer } from '../../testing/server.js'
import { createTestAlertIntegration } from '../alerts/testing.js'

const KEY = '0123456789abcdef0123456789abcdef'

let server: TestServer
let git: GitClient
let alice: Person
let project: Record<string, any>
let emptyProject: Record<string, any>
let workTree: string
/** A backup taken while nothing else ran. */
let quietArchive: string
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-backup-test-'))

/** The environment `svc` needs to act on the test server's instance. */
function serverEnv(): Record<string, string> {
  return {
    SVC_DATA_DIR: server.config.dataDir,
    SVC_LOG_LEVEL: 'silent',
    ...(server.config.databaseUrl ? { SVC_DATABASE_URL: server.config.databaseUrl } : {}),
  }
}

async function notifyAlert(title: string): Promise<number> {
  const response = await fetch(`${server.url}/${project.path_with_namespace}/alerts/notify.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ title, severity: 'high' }),
  })
  await response.arrayBuffer()
  return response.status
}

/** Commits in the work tree and pushes it to `branch`; answers the commit. */
async function pushCommit(branch: string): Promise<string> {
  fs.writeFileSync(path.join(workTree, 'file.txt'), `${branch} ${Math.random()}\n`)
  await git.ok(workTree, 'add', 'file.txt')
  await git.ok(workTree, 'commit', '--quiet', '-m', branch)
  await git.ok(workTree, 'push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`)
  return (await git.ok(workTree, 'rev-parse', 'HEAD')).trim()
}

/** `git ls-remote` of a project as a map of ref name to object id. */
async function remoteRefs(baseUrl: string, fullPath: string): Promise<Map<string, string>> {
  const listed = await git.ok(git.workDir, 'ls-remote', repoUrl(baseUrl, fullPath, alice.user.username, alice.password))
  return new Map(
    listed
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t').reverse() as [string, string]),
  )
}

async function allAlertTitles(baseUrl: string): Promise<Set<string>> {
  const request = client(`${baseUrl}/api/v4`)
  const titles = new Set<string>()
  for (let page = 1; ; page++) {
    const res = await request('GET', `/projects/${project.id}/alert_management/alerts?per_page=100&page=${page}`, { token: alice.token })
    expect(res.status, res.text).toBe(200)
    for (const alert of res.body) titles.add(alert.title)
    if (res.body.length < 100) return titles
  }
}

/** Every file under `directory` with its SHA-256, to see that a refused restore wrote nothing. */
function fingerprint(directory: string): Record<string, string> {
  const found: Record<string, string> = {}
  if (!fs.existsSync(directory)) return found
  for (const name of fs.readdirSync(directory, { recursive: true }) as string[]) {
    const file = path.join(directory, name)
    if (fs.statSync(file).isFile()) found[name] = createHash('sha256').update(fs.readFileSync(file)).digest('hex')
  }
  return found
}

beforeAll(async () => {
  server = await startTestServer()
  git = new GitClient()
  alice = await createPerson(server.database.db, 'alice')
  const request = client(`${server.url}/api/v4`)
  project = await createRepositoryProject(request, alice, { name: 'Payments' })
  emptyProject = await createRepositoryProject(request, alice, { name: 'Empty', initialize_with_readme: false })
  await createTestAlertIntegration(server.database.db, project.id, KEY)
  workTree = await cloneProject(server, git, alice, project.path_with_namespace)
  const created = await runSvc(['backup', 'create'], serverEnv())
  expect(created.code, created.stderr).toBe(0)
  // GitLab's name for a backup, under the data directory by default.
  const written = /^Backup written to (\/.+\/backups\/\d+_\d{4}_\d\d_\d\d_\d+\.\d+\.\d+_svc_backup\.tar) \(/.exec(created.stdout)
  expect(written?.[1].startsWith(path.join(server.config.dataDir, 'backups'))).toBe(true)
  quietArchive = written![1]
  expect(fs.readdirSync(path.dirname(quietArchive))).toEqual([path.basename(quietArchive)])
  expect(fs.statSync(quietArchive).mode & 0o777).toBe(0o600)
})

afterAll(async () => {
  await server.close()
  git.remove()
  fs.rmSync(scratch, { recursive: true, force: true })
})

describe('svc backup create and restore', () => {
  test('a backup taken while alerts arrive and pushes land restores every acknowledged alert and every ref it began with', async () => {
    const before: string[] = []
    for (let n = 0; n < 20; n++) {
      expect(await notifyAlert(`before ${n}`)).toBe(200)
      before.push(`before ${n}`)
    }
    for (let n = 0; n < 3; n++) await pushCommit(`before-${n}`)
    const refsBefore = await remoteRefs(server.url, project.path_with_namespace)

    const archive = path.join(scratch, 'busy.tar')
    let running = true
    const backup = runSvc(['backup', 'create', '--to', archive], serverEnv()).finally(() => (running = false))
    const load = async (work: (n: number) => Promise<unknown>) => {
      let n = 0
      while (running) await work(n++)
      return n
    }
    const [created, alertsDuring, pushesDuring] = await Promise.all([
      backup,
      load(async (n) => expect(await notifyAlert(`during ${n}`)).toBe(200)),
      load((n) => pushCommit(n % 2 === 0 ? `during-${n}` : 'main')),
    ])
    expect(created.code, created.stderr).toBe(0)
    expect(created.stderr).toBe('')
    expect(created.stdout).toBe(`Backup written to ${archive} (${formatBytesOf(archive)}; 2 repositories, 1 of them empty)\n`)
    expect(alertsDuring + pushesDuring).toBeGreaterThan(0)

    const { env } = await freshInstanceEnv()
    const restored = await runSvc(['backup', 'restore', archive], env)
    expect(restored.stderr).toBe('')
    expect(restored.code).toBe(0)
    expect(restored.stdout).toMatch(/^Restored the backup of \S+ \(svc \S+\): the database and 2 repositories\n$/)

    const storage = path.join(env.SVC_DATA_DIR, 'repositories')
    const repositories = await listRepositories(storage)
    expect(repositories).toHaveLength(2)
    for (const relative of repositories)
      await git.ok(git.workDir, `--git-dir=${path.join(storage, relative)}`, 'fsck', '--strict', '--no-progress')
    const port = await freePort()
    const child = startSvc({ ...env, SVC_PORT: String(port) })
    try {
      const url = `http://127.0.0.1:${port}`
      await waitUntilReady(url, child)
      const titles = await allAlertTitles(url)
      expect(before.filter((title) => !titles.has(title))).toEqual([])
      const refsAfter = await remoteRefs(url, project.path_with_namespace)
      for (const [name, oid] of refsBefore) {
        if (name === 'HEAD' || name === 'refs/heads/main') expect(refsAfter.has(name), name).toBe(true)
        else expect([name, refsAfter.get(name)]).toEqual([name, oid])
      }
      // main moved during the backup: it holds one of the commits pushed to it, whole.
      await git.ok(workTree, 'cat-file', '-e', refsAfter.get('refs/heads/main')!)
      const emptyRefs = await remoteRefs(url, emptyProject.path_with_namespace)
      expect(emptyRefs.size).toBe(0)
      const request = client(`${url}/api/v4`)
      const shown = await request('GET', `/projects/${emptyProject.id}`, { token: alice.token })
      expect([shown.status, shown.body.empty_repo]).toEqual([200, true])
    } finally {
      child.kill('SIGKILL')
    }
  })

  test('a restore onto a target that holds anything is refused and changes nothing', async () => {
    const { env, open } = await freshInstanceEnv({ migrated: true })
    const database = await open()
    await database.close()
    const fingerprintBefore = fingerprint(env.SVC_DATA_DIR)
    const refused = await runSvc(['backup', 'restore', quietArchive], env)
    const expected = TEST_DATABASE_URL
      ? 'svc backup: the database of SVC_DATABASE_URL is not empty: restore into an empty one\n'
      : `svc backup: the data directory ${env.SVC_DATA_DIR} is not empty: restore into an empty one\n`
    expect(refused).toEqual({ code: 1, stdout: '', stderr: expected })
    expect(fingerprint(env.SVC_DATA_DIR)).toEqual(fingerprintBefore)

    const storage = fs.mkdtempSync(path.join(scratch, 'storage-'))
    fs.writeFileSync(path.join(storage, 'something'), 'kept\n')
    const { env: emptyEnv } = await freshInstanceEnv()
    const onStorage = await runSvc(['backup', 'restore', quietArchive], { ...emptyEnv, SVC_STORAGES: `default=${storage}` })
    expect(onStorage).toEqual({
      code: 1,
      stdout: '',
      stderr: `svc backup: the storage default (${storage}) is not empty: restore into an empty one\n`,
    })
    expect(fs.readdirSync(emptyEnv.SVC_DATA_DIR)).toEqual([])
    expect(fs.readdirSync(storage)).toEqual(['something'])
  })

  test('a tampered archive, or one of a newer schema, is refused before anything is written', async () => {
    const unpacked = fs.mkdtempSync(path.join(scratch, 'unpacked-'))
    await tar.x({ file: quietArchive, cwd: unpacked })
    const manifest = JSON.parse(fs.readFileSync(path.join(unpacked, 'manifest.json'), 'utf8'))
    const names: string[] = manifest.files.map((file: { name: string }) => file.name)
    const bundle = names.find((name) => name.endsWith('.bundle'))!
    const repack = async (file: string) => tar.c({ cwd: unpacked, file, portable: true }, ['manifest.json', ...names])

    const bytes = fs.readFileSync(path.join(unpacked, bundle))
    bytes[bytes.length - 30] ^= 0xff
    fs.writeFileSync(path.join(unpacked, bundle), bytes)
    const tampered = path.join(scratch, 'tampered.tar')
    await repack(tampered)
    const { env, open } = await freshInstanceEnv()
    expect(await runSvc(['backup', 'restore', tampered], env)).toEqual({
      code: 1,
      stdout: '',
      stderr: `svc backup: the archive is damaged: the checksum of ${bundle} does not match the manifest\n`,
    })
    expect(fs.readdirSync(env.SVC_DATA_DIR)).toEqual([])
    if (TEST_DATABASE_URL) {
      const database = await open()
      try {
        expect(await database.db.introspection.getTables()).toEqual([])
      } finally {
        await database.close()
      }
    }

    fs.writeFileSync(path.join(unpacked, 'manifest.json'), JSON.stringify({ ...manifest, schemaVersion: '29991231T0000_from_the_future' }))
    const newer = path.join(scratch, 'newer.tar')
    await repack(newer)
    const refused = await runSvc(['backup', 'restore', newer], env)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(
      /^svc backup: the backup's schema \(29991231T0000_from_the_future\) is newer than this svc knows \(\w+\): /,
    )
    expect(fs.readdirSync(env.SVC_DATA_DIR)).toEqual([])
  })

  test.skipIf(!TEST_DATABASE_URL)('without pg_dump a backup of PostgreSQL fails with a clear message', async () => {
    const bin = fs.mkdtempSync(path.join(scratch, 'bin-'))
    fs.symlinkSync(fs.realpathSync('/usr/bin/git'), path.join(bin, 'git'))
    const archive = path.join(scratch, 'never.tar')
    const failed = await runSvc(['backup', 'create', '--to', archive], { ...serverEnv(), PATH: bin })
    expect(failed).toEqual({
      code: 1,
      stdout: '',
      stderr: "svc backup: pg_dump is not installed: backups of a PostgreSQL database need PostgreSQL's client tools in PATH\n",
    })
    expect(fs.existsSync(archive)).toBe(false)
  })
})

function formatBytesOf(file: string): string {
  const bytes = fs.statSync(file).size
  return bytes < 1000 ? `${bytes} bytes` : bytes < 1e6 ? `${(bytes / 1e3).toFixed(1)} kB` : `${(bytes / 1e6).toFixed(1)} MB`
}
