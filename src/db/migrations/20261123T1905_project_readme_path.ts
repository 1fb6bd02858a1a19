import { sql, type Kysely } from 'kysely'

// The path of the README on the default branch, recorded when the repository changes, so that `readme_url` is read
// from the row instead of the repository. Until now only `initialize_with_readme` wrote commits, so every non-empty
// repository has its README.md.

export async function up(db: Kysely<any>) {
  await db.schema.alterTable('projects').addColumn('readme_path', 'text').execute()
  await sql`update projects set readme_path = 'README.md' where empty_repo = 0`.execute(db)
}

export async function down(db: Kysely<any>) {
  await db.schema.alterTable('projects').dropColumn('readme_path').execute()
}
