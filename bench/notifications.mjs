// E-mail notifications of one change, computed and queued in the change's transaction, on the embedded default (SQLite,
// fresh data dir): a new issue in a project that 1,000 members watch (target < 100 ms), and one with nobody to tell.
// Runs the built modules in this process (noticeChange inside a transaction rolled back after each run, so every run
// sees the same data). Prints figures only. Run alone with `node bench/notifications.mjs` after `npm run build`, or
// through `npm run bench`.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { format, percentile, printTable, root } from './common.mjs'

const WATCHERS = Number(process.env.BENCH_NOTIFICATION_WATCHERS ?? 1_000)
const RUNS = Number(process.env.BENCH_NOTIFICATION_RUNS ?? 30)
const WARMUP = 3

const load = (file) => import(pathToFileURL(path.join(root, 'dist', file)).href)

class RolledBack extends Error {}

/** A group with a public project, its author, `watchers` Developers whose project setting is Watch, and one issue. */
async function seed(db, watchers) {
  const at = new Date().toISOString()
  const group = await db
    .insertInto('namespaces')
    .values({
      kind: 'group',
      name: 'Team',
      path: 'team',
      full_path: 'team',
      full_name: 'Team',
      visibility_level: 20,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  await db
    .updateTable('namespaces')
    .set({ traversal_ids: `${group.id}/` })
    .where('id', '=', group.id)
    .execute()
  const project = await db
    .insertInto('projects')
    .values({
      namespace_id: group.id,
      name: 'Rocket',
      path: 'rocket',
      full_path: 'team/rocket',
      full_name: 'Team / Rocket',
      visibility_level: 20,
      last_activity_at: at,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  const users = []
  for (let start = 0; start <= watchers; start += 500) {
    const rows = Array.from({ length: Math.min(500, watchers + 1 - start) }, (_, i) => ({
      username: `watcher${start + i}`,
      email: `watcher${start + i}@example.com`,
      name: `Watcher ${start + i}`,
      created_at: at,
      updated_at: at,
    }))
    users.push(...(await db.insertInto('users').values(rows).returning('id').execute()).map((row) => row.id))
  }
  const [author, ...watching] = users
  for (let start = 0; start < watching.length; start += 500) {
    const ids = watching.slice(start, start + 500)
    await db
      .insertInto('members')
      .values(ids.map((id) => ({ user_id: id, project_id: project.id, access_level: 30, created_at: at, updated_at: at })))
      .execute()
    await db
      .insertInto('notification_settings')
      .values(ids.map((id) => ({ user_id: id, source_type: 'Project', source_id: project.id, level: 2, created_at: at, updated_at: at })))
      .execute()
  }
  await db
    .insertInto('members')
    .values({ user_id: author, project_id: project.id, access_level: 30, created_at: at, updated_at: at })
    .execute()
  const issue = await db
    .insertInto('issues')
    .values({
      project_id: project.id,
      iid: 1,
      author_id: author,
      title: 'Engine stalls',
      description: 'It **stalls** at 3000 rpm.',
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { projectId: project.id, issueId: issue.id, authorId: author }
}

/** Milliseconds each run of the change's notifications takes inside its transaction, and the mails one run queues. */
async function measure(db, ctx, noticeChange, change) {
  const times = []
  let queued = 0
  for (let run = 0; run < WARMUP + RUNS; run++) {
    try {
      await db.transaction().execute(async (trx) => {
        const started = performance.now()
        await noticeChange({ ...ctx, db: trx }, trx, change)
        if (run >= WARMUP) times.push(performance.now() - started)
        queued = Number(
          (
            await trx
              .selectFrom('mail_outbox')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        )
        throw new RolledBack()
      })
    } catch (error) {
      if (!(error instanceof RolledBack)) throw error
    }
  }
  return { times: times.sort((a, b) => a - b), queued }
}

export async function benchNotifications() {
  const { loadConfig } = await load('config/index.js')
  const { openDatabase } = await load('db/index.js')
  const { migrateToLatest } = await load('db/migrate.js')
  const { defaultSettings } = await load('core/settings.js')
  const { InstanceMemo } = await load('core/instance-memo.js')
  const { addTeller, noticeChange } = await load('features/change-notices/index.js')
  const { tellNotifications } = await load('features/notifications/index.js')
  // As the composition root (app.ts) does: the e-mails alone, without the webhooks' teller.
  addTeller(tellNotifications)
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-notifications-'))
  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent' })
  const database = await openDatabase(config)
  try {
    await migrateToLatest(database.db)
    const seeded = await seed(database.db, WATCHERS)
    const silent = { info() {}, warn() {}, error() {}, debug() {} }
    const ctx = {
      db: database.db,
      caller: { user: null, credential: null, sudoFrom: null },
      config,
      settings: { ...defaultSettings },
      log: silent,
      now: () => new Date(),
      memo: new InstanceMemo(),
    }
    const change = (actorId) => ({
      kind: 'issue',
      action: 'open',
      projectId: seeded.projectId,
      issueId: seeded.issueId,
      actorId,
      changes: {},
      at: new Date(),
    })
    const watched = await measure(database.db, ctx, noticeChange, change(seeded.authorId))
    // Nobody watches: the same issue in a project whose watchers all turned their setting to Disabled.
    await database.db.updateTable('notification_settings').set({ level: 0 }).execute()
    const quiet = await measure(database.db, ctx, noticeChange, change(seeded.authorId))
    console.log(`\nnotifications of a new issue, ${RUNS} runs each, SQLite (target: ${WATCHERS} watchers < 100 ms)`)
    printTable([
      ['project', 'mails queued', 'p50 ms', 'p95 ms', 'max ms'],
      ...[
        [`${WATCHERS} watchers`, watched],
        ['nobody to tell', quiet],
      ].map(([name, { times, queued }]) => [
        name,
        String(queued),
        format(percentile(times, 0.5), 1),
        format(percentile(times, 0.95), 1),
        format(times[times.length - 1], 1),
      ]),
    ])
  } finally {
    await database.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchNotifications()
