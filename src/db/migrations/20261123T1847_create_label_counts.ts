import { sql, type Kysely } from 'kysely'
import { idType, isPostgres } from './portable.js'

// Per label and project, how many open and closed issues (confidential ones apart) and open merge requests carry
// the label, kept by triggers on every write to issues, merge requests and their label links: label lists with
// counts read a few counter rows instead of counting every linked issue on each request.
// Decrements are plain UPDATEs (never inserts), so a cascade that already removed the counter row is harmless.

const COUNT_COLUMNS = ['open_issues', 'closed_issues', 'open_confidential_issues', 'closed_confidential_issues', 'open_merge_requests']

/** The five counter deltas of one issue row (alias `row`) as a select list. */
function issueDeltas(row: string): string {
  return [
    `case when ${row}.state = 'opened' and ${row}.confidential = 0 then 1 else 0 end as open_issues`,
    `case when ${row}.state = 'closed' and ${row}.confidential = 0 then 1 else 0 end as closed_issues`,
    `case when ${row}.state = 'opened' and ${row}.confidential <> 0 then 1 else 0 end as open_confidential_issues`,
    `case when ${row}.state = 'closed' and ${row}.confidential <> 0 then 1 else 0 end as closed_confidential_issues`,
    '0 as open_merge_requests',
  ].join(', ')
}

function mergeRequestDeltas(row: string): string {
  const zeros = COUNT_COLUMNS.slice(0, 4).map((c) => `0 as ${c}`)
  return [...zeros, `case when ${row}.state = 'opened' then 1 else 0 end as open_merge_requests`].join(', ')
}

/** Adds the deltas selected by `select` (label_id, project_id and the five deltas, named as the columns), creating counter rows as needed. */
function increment(select: string): string {
  const sets = COUNT_COLUMNS.map((c) => `${c} = label_counts.${c} + excluded.${c}`).join(', ')
  return `insert into label_counts (label_id, project_id, ${COUNT_COLUMNS.join(', ')}) ${select} on conflict (label_id, project_id) do update set ${sets}`
}

/** Subtracts the deltas selected by `select` from existing counter rows. */
function decrement(select: string): string {
  const sets = COUNT_COLUMNS.map((c) => `${c} = label_counts.${c} - d.${c}`).join(', ')
  return `update label_counts set ${sets} from (${select}) as d where label_counts.label_id = d.label_id and label_counts.project_id = d.project_id`
}

interface Trigger {
  name: string
  timing: 'before' | 'after'
  event: string
  table: string
  when?: string
  statements: string[]
}

const TRIGGERS: Trigger[] = [
  {
    name: 'label_counts_issue_link_added',
    timing: 'after',
    event: 'insert',
    table: 'issue_labels',
    statements: [
      increment(`select NEW.label_id as label_id, i.project_id as project_id, ${issueDeltas('i')} from issues i where i.id = NEW.issue_id`),
    ],
  },
  {
    // When the issue itself is being deleted it is already gone here; its own trigger has subtracted it.
    name: 'label_counts_issue_link_removed',
    timing: 'after',
    event: 'delete',
    table: 'issue_labels',
    statements: [
      decrement(`select OLD.label_id as label_id, i.project_id as project_id, ${issueDeltas('i')} from issues i where i.id = OLD.issue_id`),
    ],
  },
  {
    name: 'label_counts_issue_link_changed',
    timing: 'after',
    event: 'update',
    table: 'issue_labels',
    statements: [
      decrement(`select OLD.label_id as label_id, i.project_id as project_id, ${issueDeltas('i')} from issues i where i.id = OLD.issue_id`),
      increment(`select NEW.label_id as label_id, i.project_id as project_id, ${issueDeltas('i')} from issues i where i.id = NEW.issue_id`),
    ],
  },
  {
    name: 'label_counts_issue_changed',
    timing: 'after',
    event: 'update',
    table: 'issues',
    when: 'OLD.state <> NEW.state or OLD.confidential <> NEW.confidential or OLD.project_id <> NEW.project_id',
    statements: [
      decrement(
        `select l.label_id as label_id, OLD.project_id as project_id, ${issueDeltas('OLD')} from issue_labels l where l.issue_id = OLD.id`,
      ),
      increment(
        `select l.label_id as label_id, NEW.project_id as project_id, ${issueDeltas('NEW')} from issue_labels l where l.issue_id = NEW.id`,
      ),
    ],
  },
  {
    name: 'label_counts_issue_removed',
    timing: 'before',
    event: 'delete',
    table: 'issues',
    statements: [
      decrement(
        `select l.label_id as label_id, OLD.project_id as project_id, ${issueDeltas('OLD')} from issue_labels l where l.issue_id = OLD.id`,
      ),
    ],
  },
  {
    name: 'label_counts_merge_request_link_added',
    timing: 'after',
    event: 'insert',
    table: 'merge_request_labels',
    statements: [
      increment(
        `select NEW.label_id as label_id, m.project_id as project_id, ${mergeRequestDeltas('m')} from merge_requests m where m.id = NEW.merge_request_id`,
      ),
    ],
  },
  {
    name: 'label_counts_merge_request_link_removed',
    timing: 'after',
    event: 'delete',
    table: 'merge_request_labels',
    statements: [
      decrement(
        `select OLD.label_id as label_id, m.project_id as project_id, ${mergeRequestDeltas('m')} from merge_requests m where m.id = OLD.merge_request_id`,
      ),
    ],
  },
  {
    name: 'label_counts_merge_request_link_changed',
    timing: 'after',
    event: 'update',
    table: 'merge_request_labels',
    statements: [
      decrement(
        `select OLD.label_id as label_id, m.project_id as project_id, ${mergeRequestDeltas('m')} from merge_requests m where m.id = OLD.merge_request_id`,
      ),
      increment(
        `select NEW.label_id as label_id, m.project_id as project_id, ${mergeRequestDeltas('m')} from merge_requests m where m.id = NEW.merge_request_id`,
      ),
    ],
  },
  {
    name: 'label_counts_merge_request_changed',
    timing: 'after',
    event: 'update',
    table: 'merge_requests',
    when: 'OLD.state <> NEW.state or OLD.project_id <> NEW.project_id',
    statements: [
      decrement(
        `select l.label_id as label_id, OLD.project_id as project_id, ${mergeRequestDeltas('OLD')} from merge_request_labels l where l.merge_request_id = OLD.id`,
      ),
      increment(
        `select l.label_id as label_id, NEW.project_id as project_id, ${mergeRequestDeltas('NEW')} from merge_request_labels l where l.merge_request_id = NEW.id`,
      ),
    ],
  },
  {
    name: 'label_counts_merge_request_removed',
    timing: 'before',
    event: 'delete',
    table: 'merge_requests',
    statements: [
      decrement(
        `select l.label_id as label_id, OLD.project_id as project_id, ${mergeRequestDeltas('OLD')} from merge_request_labels l where l.merge_request_id = OLD.id`,
      ),
    ],
  },
]

export async function up(db: Kysely<any>) {
  const id = idType(db)
  let table = db.schema
    .createTable('label_counts')
    .addColumn('label_id', id, (c) => c.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
  for (const column of COUNT_COLUMNS) table = table.addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
  await table.addPrimaryKeyConstraint('label_counts_pkey', ['label_id', 'project_id']).execute()
  await db.schema.createIndex('label_counts_project_id').on('label_counts').column('project_id').execute()

  // What exists already, one summed row per label and project.
  const sums = (deltas: string) =>
    deltas
      .split(', ')
      .map((delta) => delta.replace(/ as (\w+)$/, (_, column: string) => `) as ${column}`))
      .map((delta) => `sum(${delta}`)
      .join(', ')
  await sql
    .raw(
      increment(
        `select l.label_id as label_id, i.project_id as project_id, ${sums(issueDeltas('i'))} from issue_labels l join issues i on i.id = l.issue_id where true group by l.label_id, i.project_id`,
      ),
    )
    .execute(db)
  await sql
    .raw(
      increment(
        `select l.label_id as label_id, m.project_id as project_id, ${sums(mergeRequestDeltas('m'))} from merge_request_labels l join merge_requests m on m.id = l.merge_request_id where true group by l.label_id, m.project_id`,
      ),
    )
    .execute(db)

  const postgres = isPostgres(db)
  for (const trigger of TRIGGERS) {
    const timing = `${trigger.timing} ${trigger.event} on ${trigger.table}`
    if (postgres) {
      const result = trigger.timing === 'before' ? 'OLD' : 'null'
      await sql
        .raw(
          `create function ${trigger.name}() returns trigger language plpgsql as $$ begin ${trigger.statements.join('; ')}; return ${result}; end $$`,
        )
        .execute(db)
      const when = trigger.when ? ` when (${trigger.when})` : ''
      await sql.raw(`create trigger ${trigger.name} ${timing} for each row${when} execute function ${trigger.name}()`).execute(db)
    } else {
      const when = trigger.when ? ` when ${trigger.when}` : ''
      await sql.raw(`create trigger ${trigger.name} ${timing} for each row${when} begin ${trigger.statements.join('; ')}; end`).execute(db)
    }
  }
}

export async function down(db: Kysely<any>) {
  const postgres = isPostgres(db)
  for (const trigger of TRIGGERS) {
    await sql.raw(`drop trigger ${trigger.name}${postgres ? ` on ${trigger.table}` : ''}`).execute(db)
    if (postgres) await sql.raw(`drop function ${trigger.name}()`).execute(db)
  }
  await db.schema.dropTable('label_counts').execute()
}
