import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import path from 'node:path'
import { describe, expect, onTestFinished, test } from 'vitest'
import { freePort, runSvc, startSvc, waitUntilReady } from '../testing/cli.js'
import { freshDatabase, TEST_DATABASE_URL } from '../testing/databases.js'
import { TEST_PASSWORD_HASH_COST } from '../testing/server.js'
import { sql } from 'kysely'
import { openDatabase, type Db } from './index.js'
import { knownMigrationNames } from './migrate.js'

const ROOT_TOKEN = 'svcpat-database-copy-root-0001'

/** An embedded instance's environment: its SQLite database and repositories in `dataDir`. */
function embeddedEnv(dataDir: string): Record<string, string> {
  return {
    SVC_DATA_DIR: dataDir,
    SVC_ROOT_PASSWORD: 'root-password-for-tests',
    SVC_ROOT_TOKEN: ROOT_TOKEN,
    SVC_LOG_LEVEL: 'silent',
    SVC_PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST),
    SVC_WORKERS: '1',
  }
}

async function start(env: Record<string, string>, port: number): Promise<ChildProcessWithoutNullStreams> {
  const child = startSvc({ ...env, SVC_PORT: String(port) })
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  await waitUntilReady(`http://127.0.0.1:${port}`, child)
  return child
}

async function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

function api(port: number) {
  return async (method: string, route: string, token: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${port}/api/v4${route}`, {
      method,
      headers: { 'private-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    return { status: response.status, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text }
  }
}

describe.skipIf(!TEST_DATABASE_URL)('svc database copy', () => {
  test("copies a stopped instance's SQLite data into an empty PostgreSQL database that svc then serves", async () => {
    // The data directory holds the SQLite database and the repositories; the PostgreSQL database starts empty.
    const fresh = await freshDatabase()
    onTestFinished(fresh.drop)
    const target = fresh.databaseUrl!
    const env = embeddedEnv(fresh.dataDir)
    const port = await freePort()
    const request = api(port)
    const embedded = await start(env, port)

    const alice = await request('POST', '/users', ROOT_TOKEN, {
      username: 'alice',
      email: 'alice@example.com',
      name: 'Alice',
      password: 'a-long-password-1',
      skip_confirmation: true,
    })
    expect(alice.status).toBe(201)
    const pat = await request('POST', `/users/${alice.body.id}/personal_access_tokens`, ROOT_TOKEN, { name: 'laptop', scopes: ['api'] })
    expect(pat.status).toBe(201)
    const token = pat.body.token as string
    // A subgroup older than its parent (moved under it), so that ids alone would not order them.
    const subgroup = await request('POST', '/groups', token, { name: 'Sub', path: 'sub' })
    expect(subgroup.status).toBe(201)
    const group = await request('POST', '/groups', token, { name: 'Team', path: 'team' })
    expect(group.status).toBe(201)
    expect((await request('POST', `/groups/${subgroup.body.id}/transfer`, token, { group_id: group.body.id })).status).toBe(201)
    const project = await request('POST', '/projects', token, { name: 'app', namespace_id: group.body.id, initialize_with_readme: true })
    expect(project.status).toBe(201)
    const projectId = project.body.id as number
    for (const [title, labels] of [
      ['First', 'bug'],
      ['Second', 'bug,ui'],
    ]) {
      expect((await request('POST', `/projects/${projectId}/issues`, token, { title, labels })).status).toBe(201)
    }
    expect((await request('PUT', `/projects/${projectId}/issues/1`, token, { state_event: 'close', confidential: true })).status).toBe(200)
    const application = await request('POST', '/applications', ROOT_TOKEN, {
      name: 'CI',
      redirect_uri: 'https://ci.example.com/cb',
      scopes: 'api',
    })
    expect(application.status).toBe(201)
    const integration = await request('POST', `/projects/${projectId}/alert_management/http_integrations`, token, {
      name: 'Monitor',
      active: true,
    })
    expect(integration.status).toBe(201)
    for (const title of ['Disk full', 'CPU hot']) {
      const alert = await fetch(integration.body.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${integration.body.token}` },
        body: JSON.stringify({ title, severity: 'high' }),
      })
      expect(alert.status).toBe(200)
    }

    const read = async () => ({
      project: await request('GET', `/projects/${projectId}`, token),
      issues: await request('GET', `/projects/${projectId}/issues?sort=asc`, token),
      labels: await request('GET', `/projects/${projectId}/labels?with_counts=true`, token),
      user: await request('GET', '/user', token),
      applications: await request('GET', '/applications', ROOT_TOKEN),
      alerts: await request('GET', `/projects/${projectId}/alert_management/alerts?sort=created_asc`, token),
      subgroups: await request('GET', `/groups/${group.body.id}/subgroups`, token),
    })
    const before = await read()
    expect(before.alerts.body).toHaveLength(2)
    expect(before.applications.body).toHaveLength(1)
    expect(before.subgroups.body.map((g: { full_path: string }) => g.full_path)).toEqual(['team/sub'])

    // A running instance holds its database open: the copy is refused and the target left alone.
    const refused = await runSvc(['database', 'copy', '--to', target], env)
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: `svc database: the SQLite database ${path.join(fresh.dataDir, 'svc.sqlite3')} is in use: stop svc (every process using this data directory) and try again\n`,
    })
    await stop(embedded)

    // Enough rows that a table goes in several batches.
    const embeddedDatabase = await openDatabase({ databaseUrl: null, dataDir: fresh.dataDir })
    const at = '2026-11-28T09:00:00.123Z'
    const events = Array.from({ length: 2500 }, (_, i) => ({
      project_id: projectId,
      author_id: alice.body.id,
      action: 1,
      target_type: null,
      target_id: null,
      created_at: at.replace('09', String(10 + (i % 10))),
    }))
    await embeddedDatabase.db.insertInto('events').values(events).execute()
    await embeddedDatabase.close()

    const copy = await runSvc(['database', 'copy', '--to', target], env)
    expect(copy.stderr).toBe('')
    expect(copy.code).toBe(0)
    const lines = copy.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe(`Migrating ${target}`)
    const perTable = new Map(lines.slice(1, -1).map((line) => line.split(': ') as [string, string]))
    for (const line of lines.slice(1, -1)) expect(line).toMatch(/^[a-z_]+: \d+ rows?$/)
    expect(
      Object.fromEntries(
        ['users', 'personal_access_tokens', 'namespaces', 'projects', 'issues', 'oauth_applications', 'alerts'].map((t) => [
          t,
          perTable.get(t),
        ]),
      ),
    ).toEqual({
      users: '3 rows',
      personal_access_tokens: '2 rows',
      namespaces: '5 rows',
      projects: '1 row',
      issues: '2 rows',
      oauth_applications: '1 row',
      alerts: '2 rows',
    })
    expect(Number.parseInt(perTable.get('events')!)).toBeGreaterThan(2500)
    // Every table is named once, each after the tables it references.
    expect([...perTable.keys()].indexOf('namespaces')).toBeLessThan([...perTable.keys()].indexOf('projects'))
    expect([...perTable.keys()].indexOf('projects')).toBeLessThan([...perTable.keys()].indexOf('issues'))
    const rows = [...perTable.values()].reduce((sum, count) => sum + Number.parseInt(count), 0)
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^Copied ${rows} rows of ${perTable.size} tables to ${target.replace(/[.?]/g, '\\$&')} in \\d+\\.\\d s\\. ` +
          'Start svc with SVC_DATABASE_URL set to it and the same SVC_DATA_DIR and SVC_STORAGES \\(the repositories stay where they are\\)$',
      ),
    )

    // Every row of every table is in the target with the same values, as svc reads them on each engine.
    const source = await openDatabase({ databaseUrl: null, dataDir: fresh.dataDir })
    const copiedDatabase = await openDatabase({ databaseUrl: target, dataDir: fresh.dataDir })
    const rowsOf = async (db: Db, table: string) =>
      (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows.map((row) => JSON.stringify(row)).sort()
    for (const table of perTable.keys()) {
      expect({ table, rows: await rowsOf(copiedDatabase.db, table) }).toEqual({ table, rows: await rowsOf(source.db, table) })
    }
    await copiedDatabase.close()
    await source.close()

    // A second copy into the same database is refused: it is no longer empty.
    const again = await runSvc(['database', 'copy', '--to', target], env)
    expect(again.code).toBe(1)
    expect(again.stderr).toBe(
      `svc database: the target database ${target} is not empty: it has ${perTable.size + 2} tables ` +
        '(account_tokens, alert_integrations, alerts, application_settings, clusters, …); copy into a new, empty database\n',
    )

    const copied = await start({ ...env, SVC_DATABASE_URL: target }, port)
    const after = await read()
    expect(after).toEqual(before)
    const readme = await fetch(`http://127.0.0.1:${port}/api/v4/projects/${projectId}/repository/files/README.md/raw?ref=main`, {
      headers: { 'private-token': token },
    })
    expect(readme.status).toBe(200)
    expect(await readme.text()).toMatch(/^# app\n/)

    // Sequences stand past the copied ids: a new issue gets the next iid and a new id.
    const issue = await request('POST', `/projects/${projectId}/issues`, token, { title: 'Third', labels: 'bug' })
    expect(issue.status).toBe(201)
    expect(issue.body.iid).toBe(3)
    expect(issue.body.id).toBe(Math.max(...before.issues.body.map((i: { id: number }) => i.id)) + 1)
    const labels = await request('GET', `/projects/${projectId}/labels?with_counts=true`, token)
    expect(labels.body.find((l: { name: string }) => l.name === 'bug').open_issues_count).toBe(2)
    const bob = await request('POST', '/users', ROOT_TOKEN, {
      username: 'bob',
      email: 'bob@example.com',
      name: 'Bob',
      password: 'a-long-password-2',
    })
    expect(bob.status).toBe(201)
    // root 1, alice 2, the alert bot 3.
    expect(bob.body.id).toBe(4)
    const third = await fetch(integration.body.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${integration.body.token}` },
      body: JSON.stringify({ title: 'Memory low' }),
    })
    expect(await third.json()).toEqual([{ iid: 3, title: 'Memory low' }])
    await stop(copied)
  })

  test('refuses a source that is not at the latest migration, and a wrong command line', async () => {
    const fresh = await freshDatabase()
    onTestFinished(fresh.drop)
    const env = embeddedEnv(fresh.dataDir)
    expect((await runSvc(['migrate'], env)).code).toBe(0)
    const { default: SQLite } = await import('better-sqlite3')
    const file = new SQLite(path.join(fresh.dataDir, 'svc.sqlite3'))
    const known = knownMigrationNames()
    file.prepare('delete from kysely_migration where name = ?').run(known.at(-1))
    file.close()

    const refused = await runSvc(['database', 'copy', '--to', fresh.databaseUrl!], env)
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `svc database: the SQLite database ${path.join(fresh.dataDir, 'svc.sqlite3')} is not at the latest migration ` +
        `(its newest is ${known.at(-2)}, this version's is ${known.at(-1)}; 1 pending): run svc migrate on it first\n`,
    })

    const usage = await runSvc(['database', 'copy', '--to', 'mysql://x/y'], env)
    expect(usage).toEqual({ code: 2, stdout: '', stderr: 'svc database: --to must be a postgres:// URL of an empty database\n' })
    const postgresAlready = await runSvc(['database', 'copy', '--to', fresh.databaseUrl!], { ...env, SVC_DATABASE_URL: fresh.databaseUrl! })
    expect(postgresAlready.stderr).toBe(
      'svc database: SVC_DATABASE_URL is set: this instance keeps its data in PostgreSQL already; unset it to copy the SQLite database of SVC_DATA_DIR\n',
    )
    // Nothing was written to the target.
    const { default: pg } = await import('pg')
    const client = new pg.Client({ connectionString: fresh.databaseUrl! })
    await client.connect()
    const tables = await client.query(`select count(*)::int as count from information_schema.tables where table_schema = 'public'`)
    await client.end()
    expect(tables.rows[0].count).toBe(0)
  })
})
