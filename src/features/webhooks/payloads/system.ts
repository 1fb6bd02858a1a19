import { tierIncludes, visibilityName } from '../../../core/access.js'
import type { Change } from '../../../core/changes.js'
import type { Context } from '../../../core/context.js'
import { isoDate } from '../../../core/time.js'
import type { Db } from '../../../db/index.js'
import type { NamespaceRow, ProjectRow } from '../../../db/schema.js'
import { findNamespaceById, findProjectById } from '../../access/index.js'
import { webhookEmail, xmlSchema } from './formats.js'
import type { HookPayload } from './index.js'
import { findDirectOwners, findHookUser } from './store.js'

// The system hooks' bodies for projects, groups and users (GL SystemHooksService with Gitlab::HookData::ProjectBuilder,
// GroupBuilder and UserBuilder; doc/administration/system_hooks.md), and what a group's hooks hear of the projects
// and subgroups made and deleted in it (EE `project_events` and `subgroup_events`, Premium and up).

type ProjectChange = Extract<Change, { kind: 'project' }>
type GroupChange = Extract<Change, { kind: 'group' }>
type UserChange = Extract<Change, { kind: 'user' }>

/** What every system hook hears, whatever its switches: `X-Gitlab-Event: System Hook`. */
export function systemHook(body: Record<string, unknown>): HookPayload {
  return { event: 'System Hook', trigger: 'system', scope: 'system', body }
}

function timestamps(row: { created_at: string; updated_at: string }) {
  return { created_at: xmlSchema(row.created_at), updated_at: xmlSchema(row.updated_at) }
}

/**
 * ProjectBuilder's `owners`: a group's project lists the group's own Owners, in membership order; a personal project the
 * users holding its Owner role, by id, with the namespace's holder.
 */
async function ownersOf(ctx: Context, trx: Db, project: ProjectRow, namespace: NamespaceRow) {
  const today = isoDate(ctx.now())
  if (namespace.kind === 'group') {
    const owners = await findDirectOwners(trx, { type: 'group', id: namespace.id }, today)
    return owners.map((user) => ({ name: user.name, email: webhookEmail(user) }))
  }
  const owners = await findDirectOwners(trx, { type: 'project', id: project.id }, today)
  const holder = namespace.owner_id === null ? undefined : await findHookUser(trx, namespace.owner_id)
  if (holder && !owners.some((user) => user.id === holder.id)) owners.push(holder)
  return owners.sort((a, b) => a.id - b.id).map((user) => ({ name: user.name, email: webhookEmail(user) }))
}

async function projectPayloads(ctx: Context, trx: Db, change: ProjectChange): Promise<HookPayload[]> {
  const [project] = await findProjectById(trx, change.projectId)
  const namespace = project && (await findNamespaceById(trx, project.namespace_id))[0]
  if (!project || !namespace) return []
  const body = {
    event_name: `project_${change.action}`,
    ...timestamps(project),
    name: project.name,
    path: project.path,
    path_with_namespace: project.full_path,
    project_id: project.id,
    project_namespace_id: project.namespace_id,
    owners: await ownersOf(ctx, trx, project, namespace),
    project_visibility: visibilityName(project.visibility_level),
  }
  // The system hooks still get the deprecated owner: a group's project names the group, with no e-mail.
  const holder = namespace.kind === 'user' && namespace.owner_id !== null ? await findHookUser(trx, namespace.owner_id) : undefined
  const system: Record<string, unknown> = {
    ...body,
    owner_name: namespace.kind === 'group' ? namespace.name : (holder?.name ?? null),
    owner_email: holder ? webhookEmail(holder) : '',
  }
  if (change.action === 'rename' || change.action === 'transfer') system.old_path_with_namespace = change.oldPathWithNamespace ?? null
  const payloads = [systemHook(system)]
  // EE Projects::CreateService and DestroyService#execute_hooks: the project's groups hear it, without the old owner.
  if (
    (change.action === 'create' || change.action === 'destroy') &&
    namespace.kind === 'group' &&
    tierIncludes(ctx.config.tier, 'premium')
  ) {
    payloads.push({ event: 'Project Hook', trigger: 'project_events', scope: 'project', body })
  }
  return payloads
}

async function groupPayloads(ctx: Context, trx: Db, change: GroupChange): Promise<HookPayload[]> {
  const [group] = await findNamespaceById(trx, change.groupId)
  if (!group) return []
  const data = { name: group.name, path: group.path, full_path: group.full_path, group_id: group.id }
  const system: Record<string, unknown> = { ...timestamps(group), event_name: `group_${change.action}`, ...data }
  if (change.action === 'rename') {
    const oldFullPath = change.oldFullPath ?? group.full_path
    system.old_path = oldFullPath.slice(oldFullPath.lastIndexOf('/') + 1)
    system.old_full_path = oldFullPath
  }
  const payloads = [systemHook(system)]
  // EE Group#execute_subgroup_hooks: the parent's hooks and those above it hear of a subgroup made or deleted.
  const parent = group.parent_id === null ? undefined : (await findNamespaceById(trx, group.parent_id))[0]
  if (parent && change.action !== 'rename' && tierIncludes(ctx.config.tier, 'premium')) {
    payloads.push({
      event: 'Subgroup Hook',
      trigger: 'subgroup_events',
      scope: 'project',
      groupId: parent.id,
      body: {
        ...timestamps(group),
        event_name: `subgroup_${change.action}`,
        ...data,
        parent_group_id: parent.id,
        parent_name: parent.name,
        parent_path: parent.path,
        parent_full_path: parent.full_path,
      },
    })
  }
  return payloads
}

async function userPayloads(trx: Db, change: UserChange): Promise<HookPayload[]> {
  const user = await findHookUser(trx, change.userId)
  if (!user) return []
  const body: Record<string, unknown> = {
    ...timestamps(user),
    event_name: `user_${change.action}`,
    name: user.name,
    // System hooks are the administrator's: they show the user's own address.
    email: user.email,
    user_id: user.id,
    username: user.username,
  }
  if (change.action === 'rename') body.old_username = change.oldUsername ?? null
  if (change.action === 'failed_login') body.state = user.state
  return [systemHook(body)]
}

/** A project's, group's or user's change, as the system hooks (and a group's hooks) hear it. */
export function systemPayloads(ctx: Context, trx: Db, change: ProjectChange | GroupChange | UserChange): Promise<HookPayload[]> {
  if (change.kind === 'project') return projectPayloads(ctx, trx, change)
  if (change.kind === 'group') return groupPayloads(ctx, trx, change)
  return userPayloads(trx, change)
}
