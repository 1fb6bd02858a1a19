import { randomBytes } from 'node:crypto'
import type { User } from '../core/caller.js'
import { digestToken, generateToken, hashPassword } from '../core/secrets.js'
import type { Db } from '../db/index.js'
import { allocateInternalId } from '../db/internal-ids.js'
import type { IssueRow, LabelRow, MergeRequestRow, MilestoneRow, NamespaceRow, NewUserRow, ProjectRow, TokenRow } from '../db/schema.js'
import { insertToken } from '../features/tokens/store.js'
import { visibilityLevel, type VisibilityName } from '../core/access.js'
import { insertMember } from '../features/members/store.js'
import { createPersonalNamespace, findPersonalNamespace } from '../features/namespaces/index.js'
import { insertNamespace } from '../features/namespaces/store.js'
import { insertProject } from '../features/projects/store.js'
import { insertUser } from '../features/users/store.js'
import { TEST_PASSWORD_HASH_COST } from './server.js'

let sequence = 0

/** A user with unique username and e-mail; password `password123` unless given. */
export async function createTestUser(db: Db, overrides: Partial<NewUserRow> & { password?: string } = {}): Promise<User> {
  sequence += 1
  const suffix = `${sequence}${randomBytes(3).toString('hex')}`
  const { password, ...rest } = overrides
  const at = new Date().toISOString()
  const passwordDigest = await hashPassword(password ?? 'password123', TEST_PASSWORD_HASH_COST)
  return db.transaction().execute(async (trx) => {
    const user = await insertUser(trx, {
      username: `user${suffix}`,
      email: `user${suffix}@example.com`,
      name: `User ${suffix}`,
      password_digest: passwordDigest,
      confirmed_at: at,
      created_at: at,
      updated_at: at,
      ...rest,
    })
    await createPersonalNamespace(trx, user)
    return user
  })
}

export interface TestToken {
  row: TokenRow
  /** The plaintext value, as a client sends it. */
  value: string
}

/** A personal (or impersonation) access token of `user`. */
export async function createTestToken(
  db: Db,
  user: Pick<User, 'id'>,
  options: { scopes?: string[]; expiresAt?: string | null; impersonation?: boolean; revoked?: boolean; name?: string } = {},
): Promise<TestToken> {
  const value = generateToken()
  const at = new Date().toISOString()
  const row = await insertToken(db, {
    user_id: user.id,
    name: options.name ?? 'test token',
    token_digest: digestToken(value),
    scopes: JSON.stringify(options.scopes ?? ['api']),
    impersonation: options.impersonation ? 1 : 0,
    revoked: options.revoked ? 1 : 0,
    expires_at: options.expiresAt ?? null,
    created_at: at,
    updated_at: at,
  })
  return { row, value }
}

/** Many users at once, without passwords, for tests of large lists. */
export async function createManyTestUsers(db: Db, count: number): Promise<void> {
  const at = new Date().toISOString()
  const batch = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`
  for (let start = 0; start < count; start += 500) {
    const rows = Array.from({ length: Math.min(500, count - start) }, (_, i) => {
      const n = `${batch}x${start + i}`
      return { username: `bulk${n}`, email: `bulk${n}@example.com`, name: `Bulk ${n}`, created_at: at, updated_at: at }
    })
    await db.insertInto('users').values(rows).execute()
  }
}

/** A group, top-level or below `parent`; public unless told. */
export async function createTestGroup(
  db: Db,
  options: { path?: string; name?: string; parent?: NamespaceRow; visibility?: VisibilityName } = {},
): Promise<NamespaceRow> {
  sequence += 1
  const path = options.path ?? `group${sequence}${randomBytes(3).toString('hex')}`
  const name = options.name ?? path
  const at = new Date().toISOString()
  return insertNamespace(
    db,
    {
      kind: 'group',
      name,
      path,
      full_path: options.parent ? `${options.parent.full_path}/${path}` : path,
      full_name: options.parent ? `${options.parent.full_name} / ${name}` : name,
      parent_id: options.parent?.id ?? null,
      visibility_level: visibilityLevel(options.visibility ?? 'public'),
      created_at: at,
      updated_at: at,
    },
    options.parent ?? null,
  )
}

/** A project in a group or in a user's personal namespace (whose owner becomes its Owner member); public unless told. */
export async function createTestProject(
  db: Db,
  options: { namespace?: NamespaceRow; owner?: Pick<User, 'id'>; path?: string; name?: string; visibility?: VisibilityName } = {},
): Promise<ProjectRow> {
  sequence += 1
  const namespace = options.namespace ?? (options.owner ? await findPersonalNamespace(db, options.owner.id) : undefined)
  if (!namespace) throw new Error('createTestProject needs a namespace or an owner')
  const path = options.path ?? `project${sequence}${randomBytes(3).toString('hex')}`
  const name = options.name ?? path
  const at = new Date().toISOString()
  const project = await insertProject(db, {
    namespace_id: namespace.id,
    name,
    path,
    full_path: `${namespace.full_path}/${path}`,
    full_name: `${namespace.full_name} / ${name}`,
    visibility_level: visibilityLevel(options.visibility ?? 'public'),
    creator_id: namespace.owner_id ?? options.owner?.id ?? null,
    last_activity_at: at,
    created_at: at,
    updated_at: at,
  })
  if (namespace.kind === 'user' && namespace.owner_id !== null) {
    await addTestMember(db, { user: { id: namespace.owner_id }, project, accessLevel: 50 })
  }
  return project
}

/** A direct membership of a user in a group or a project. */
export async function addTestMember(
  db: Db,
  options: { user: Pick<User, 'id'>; group?: NamespaceRow; project?: ProjectRow; accessLevel: number; expiresAt?: string | null },
) {
  const at = new Date().toISOString()
  return insertMember(db, {
    user_id: options.user.id,
    namespace_id: options.group?.id ?? null,
    project_id: options.project?.id ?? null,
    access_level: options.accessLevel,
    expires_at: options.expiresAt ?? null,
    created_at: at,
    updated_at: at,
  })
}

/** A label of a project or a group. */
export async function createTestLabel(
  db: Db,
  options: { project?: ProjectRow; group?: NamespaceRow; title?: string; color?: string; description?: string | null },
): Promise<LabelRow> {
  sequence += 1
  const at = new Date().toISOString()
  return db
    .insertInto('labels')
    .values({
      title: options.title ?? `label${sequence}`,
      color: options.color ?? '#6699cc',
      description: options.description ?? null,
      project_id: options.project?.id ?? null,
      group_id: options.group?.id ?? null,
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** A project milestone with the next iid. */
export async function createTestMilestone(
  db: Db,
  options: { project: ProjectRow; title?: string; state?: 'active' | 'closed'; dueDate?: string | null },
): Promise<MilestoneRow> {
  sequence += 1
  const at = new Date().toISOString()
  return db.transaction().execute(async (trx) =>
    trx
      .insertInto('milestones')
      .values({
        project_id: options.project.id,
        iid: await allocateInternalId(trx, options.project.id, 'milestones'),
        title: options.title ?? `milestone${sequence}`,
        description: null,
        state: options.state ?? 'active',
        due_date: options.dueDate ?? null,
        created_at: at,
        updated_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
  )
}

/** An issue with the next iid, its labels and assignees; opened unless told. */
export async function createTestIssue(
  db: Db,
  options: {
    project: ProjectRow
    author: Pick<User, 'id'>
    title?: string
    description?: string | null
    state?: 'opened' | 'closed'
    confidential?: boolean
    issueType?: 'issue' | 'incident'
    labels?: LabelRow[]
    assignees?: Pick<User, 'id'>[]
    milestone?: MilestoneRow
    createdAt?: Date
  },
): Promise<IssueRow> {
  sequence += 1
  const at = (options.createdAt ?? new Date()).toISOString()
  return db.transaction().execute(async (trx) => {
    const issue = await trx
      .insertInto('issues')
      .values({
        project_id: options.project.id,
        iid: await allocateInternalId(trx, options.project.id, 'issues'),
        author_id: options.author.id,
        title: options.title ?? `Issue ${sequence}`,
        description: options.description ?? null,
        state: options.state ?? 'opened',
        confidential: options.confidential ? 1 : 0,
        issue_type: options.issueType ?? 'issue',
        milestone_id: options.milestone?.id ?? null,
        closed_at: options.state === 'closed' ? at : null,
        created_at: at,
        updated_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    for (const label of options.labels ?? [])
      await trx.insertInto('issue_labels').values({ issue_id: issue.id, label_id: label.id }).execute()
    for (const user of options.assignees ?? [])
      await trx.insertInto('issue_assignees').values({ issue_id: issue.id, user_id: user.id }).execute()
    return issue
  })
}

/** A merge request inside one project with the next iid and its labels; opened unless told. */
export async function createTestMergeRequest(
  db: Db,
  options: {
    project: ProjectRow
    author: Pick<User, 'id'>
    title?: string
    state?: 'opened' | 'closed' | 'merged' | 'locked'
    sourceBranch?: string
    targetBranch?: string
    labels?: LabelRow[]
    assignees?: Pick<User, 'id'>[]
    createdAt?: Date
    /** When a merged one was merged; its creation time unless given. */
    mergedAt?: Date
  },
): Promise<MergeRequestRow> {
  sequence += 1
  const at = (options.createdAt ?? new Date()).toISOString()
  return db.transaction().execute(async (trx) => {
    const mergeRequest = await trx
      .insertInto('merge_requests')
      .values({
        project_id: options.project.id,
        source_project_id: options.project.id,
        iid: await allocateInternalId(trx, options.project.id, 'merge_requests'),
        author_id: options.author.id,
        title: options.title ?? `Merge request ${sequence}`,
        description: null,
        state: options.state ?? 'opened',
        source_branch: options.sourceBranch ?? `feature-${sequence}`,
        target_branch: options.targetBranch ?? 'main',
        merged_at: options.state === 'merged' ? (options.mergedAt?.toISOString() ?? at) : null,
        closed_at: options.state === 'closed' ? at : null,
        created_at: at,
        updated_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    for (const label of options.labels ?? [])
      await trx.insertInto('merge_request_labels').values({ merge_request_id: mergeRequest.id, label_id: label.id }).execute()
    for (const user of options.assignees ?? [])
      await trx.insertInto('merge_request_assignees').values({ merge_request_id: mergeRequest.id, user_id: user.id }).execute()
    return mergeRequest
  })
}
