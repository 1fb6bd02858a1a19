import type { Kysely } from 'kysely'
import { flag, idType, timestampType, withId } from './portable.js'

// What forks, merging, deletion on jobs and repository storage moves need:
// - `pending_delete` on projects and namespaces: DELETE marks the container and a job removes rows and repositories
//   (GL Project#pending_delete); finders no longer show a marked container.
// - `repository_read_only` on every repository container: set while a storage move copies it, so pushes are refused.
// - snippets (project and personal), each with its own repository (GL @snippets hashed path).
// - group wiki repositories (GL group_wiki_repositories): the storage of a group's wiki, null until it has one.
// - repository storage moves of projects, snippets and groups (GL *_repository_storage_moves), one table with one
//   container reference set; `state` uses GitLab's numbers (1 initial … 7 cleanup failed).
// - the squash commit of a merged merge request.

export async function up(db: Kysely<any>) {
  await db.schema.alterTable('projects').addColumn('pending_delete', 'integer', flag(0)).execute()
  await db.schema.alterTable('projects').addColumn('repository_read_only', 'integer', flag(0)).execute()
  await db.schema.createIndex('projects_repository_storage_id').on('projects').columns(['repository_storage', 'id']).execute()

  await db.schema.alterTable('namespaces').addColumn('pending_delete', 'integer', flag(0)).execute()
  await db.schema.alterTable('namespaces').addColumn('wiki_repository_storage', 'text').execute()
  await db.schema.alterTable('namespaces').addColumn('wiki_repository_read_only', 'integer', flag(0)).execute()

  await db.schema.alterTable('merge_requests').addColumn('squash_commit_sha', 'text').execute()

  await withId(db, db.schema.createTable('snippets'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('file_name', 'text')
    .addColumn('content', 'text')
    .addColumn('visibility_level', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('author_id', idType(db), (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', idType(db), (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('repository_storage', 'text', (c) => c.notNull().defaultTo('default'))
    .addColumn('repository_read_only', 'integer', flag(0))
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addColumn('updated_at', timestampType(db), (c) => c.notNull())
    .execute()
  await db.schema.createIndex('snippets_project_id_id').on('snippets').columns(['project_id', 'id']).execute()
  await db.schema.createIndex('snippets_author_id_id').on('snippets').columns(['author_id', 'id']).execute()
  await db.schema.createIndex('snippets_repository_storage_id').on('snippets').columns(['repository_storage', 'id']).execute()

  await withId(db, db.schema.createTable('repository_storage_moves'))
    // 'project' | 'snippet' | 'group'; exactly the matching reference below is set.
    .addColumn('container_type', 'text', (c) => c.notNull())
    .addColumn('project_id', idType(db), (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('snippet_id', idType(db), (c) => c.references('snippets.id').onDelete('cascade'))
    .addColumn('group_id', idType(db), (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('state', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('source_storage_name', 'text', (c) => c.notNull())
    .addColumn('destination_storage_name', 'text', (c) => c.notNull())
    .addColumn('error_message', 'text')
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addColumn('updated_at', timestampType(db), (c) => c.notNull())
    .execute()
  await db.schema.createIndex('repository_storage_moves_type_id').on('repository_storage_moves').columns(['container_type', 'id']).execute()
  await db.schema.createIndex('repository_storage_moves_project_id').on('repository_storage_moves').column('project_id').execute()
  await db.schema.createIndex('repository_storage_moves_snippet_id').on('repository_storage_moves').column('snippet_id').execute()
  await db.schema.createIndex('repository_storage_moves_group_id').on('repository_storage_moves').column('group_id').execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.dropTable('repository_storage_moves').execute()
  await db.schema.dropTable('snippets').execute()
  await db.schema.alterTable('merge_requests').dropColumn('squash_commit_sha').execute()
  await db.schema.alterTable('namespaces').dropColumn('wiki_repository_read_only').execute()
  await db.schema.alterTable('namespaces').dropColumn('wiki_repository_storage').execute()
  await db.schema.alterTable('namespaces').dropColumn('pending_delete').execute()
  await db.schema.dropIndex('projects_repository_storage_id').execute()
  await db.schema.alterTable('projects').dropColumn('repository_read_only').execute()
  await db.schema.alterTable('projects').dropColumn('pending_delete').execute()
}
