import type { Kysely } from 'kysely'
import { flag, idType, timestampType, withId } from './portable.js'

// Protected branches and tags of a project (GL protected_branches, protected_tags) with their access levels:
// - a protected branch's push, merge and unprotect levels in one table, `kind` telling them apart
//   (GL protected_branch_push_access_levels, _merge_, _unprotect_);
// - a protected tag's create levels (GL protected_tag_create_access_levels).
// `name` is a branch or tag name or a wildcard such as `release/*`, unique per project.
// A group's default branch protection (GL namespaces.default_branch_protection and namespace_settings'
// default_branch_protection_defaults, JSON): null for the instance's default.

export async function up(db: Kysely<any>) {
  await db.schema.alterTable('namespaces').addColumn('default_branch_protection', 'integer').execute()
  await db.schema.alterTable('namespaces').addColumn('default_branch_protection_defaults', 'text').execute()

  await withId(db, db.schema.createTable('protected_branches'))
    .addColumn('project_id', idType(db), (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('allow_force_push', 'integer', flag(0))
    .addColumn('code_owner_approval_required', 'integer', flag(0))
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addColumn('updated_at', timestampType(db), (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('protected_branches_project_id_name')
    .on('protected_branches')
    .columns(['project_id', 'name'])
    .unique()
    .execute()

  await withId(db, db.schema.createTable('protected_branch_access_levels'))
    .addColumn('protected_branch_id', idType(db), (c) => c.notNull().references('protected_branches.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('access_level', 'integer', (c) => c.notNull())
    .addColumn('user_id', idType(db), (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('group_id', idType(db), (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addColumn('updated_at', timestampType(db), (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('protected_branch_access_levels_branch_kind')
    .on('protected_branch_access_levels')
    .columns(['protected_branch_id', 'kind', 'id'])
    .execute()

  await withId(db, db.schema.createTable('protected_tags'))
    .addColumn('project_id', idType(db), (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addColumn('updated_at', timestampType(db), (c) => c.notNull())
    .execute()
  await db.schema.createIndex('protected_tags_project_id_name').on('protected_tags').columns(['project_id', 'name']).unique().execute()

  await withId(db, db.schema.createTable('protected_tag_create_access_levels'))
    .addColumn('protected_tag_id', idType(db), (c) => c.notNull().references('protected_tags.id').onDelete('cascade'))
    .addColumn('access_level', 'integer', (c) => c.notNull())
    .addColumn('user_id', idType(db), (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('group_id', idType(db), (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addColumn('updated_at', timestampType(db), (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('protected_tag_create_access_levels_tag')
    .on('protected_tag_create_access_levels')
    .columns(['protected_tag_id', 'id'])
    .execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.dropTable('protected_tag_create_access_levels').execute()
  await db.schema.dropTable('protected_tags').execute()
  await db.schema.dropTable('protected_branch_access_levels').execute()
  await db.schema.dropTable('protected_branches').execute()
  await db.schema.alterTable('namespaces').dropColumn('default_branch_protection_defaults').execute()
  await db.schema.alterTable('namespaces').dropColumn('default_branch_protection').execute()
}
