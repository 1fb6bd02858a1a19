import { roleName, tierIncludes, visibilityName } from '../../../core/access.js'
import type { Change } from '../../../core/changes.js'
import type { Context } from '../../../core/context.js'
import type { Db } from '../../../db/index.js'
import { findNamespaceById, findProjectById } from '../../access/index.js'
import { webhookEmail, xmlSchema } from './formats.js'
import type { HookPayload } from './index.js'
import { systemHook } from './system.js'
import { findHookUser, findMembership } from './store.js'

type MemberChange = Extract<Change, { kind: 'member' }>

// A membership added, changed or removed (GL Member#post_create_member_hook, #post_update_hook,
// #post_destroy_member_hook with Gitlab::HookData::ProjectMemberBuilder and GroupMemberBuilder).

const PROJECT_EVENTS = { add: 'user_add_to_team', update: 'user_update_for_team', remove: 'user_remove_from_team' } as const
const GROUP_EVENTS = { add: 'user_add_to_group', update: 'user_update_for_group', remove: 'user_remove_from_group' } as const

/**
 * A project's membership is heard by the system hooks only (project hooks have no member events); a group's by the
 * system hooks and, on Premium and up, as `Member Hook` by the hooks of the group and of the groups above it
 * (`member_events`, EE GroupMember#execute_hooks_for).
 */
export async function memberPayloads(ctx: Context, trx: Db, change: MemberChange): Promise<HookPayload[]> {
  const user = await findHookUser(trx, change.userId)
  if (!user) return []
  // A removed membership is told of before its row goes, so its times are still there.
  const membership = await findMembership(trx, change.source, change.userId)
  const timestamps = {
    created_at: xmlSchema(membership?.created_at ?? change.at),
    updated_at: xmlSchema(membership?.updated_at ?? change.at),
  }
  const person = { user_username: user.username, user_name: user.name, user_email: webhookEmail(user), user_id: user.id }
  if (change.source.type === 'project') {
    const [project] = await findProjectById(trx, change.source.id)
    if (!project) return []
    return [
      systemHook({
        ...timestamps,
        project_name: project.name,
        project_path: project.path,
        project_path_with_namespace: project.full_path,
        project_id: project.id,
        ...person,
        access_level: roleName(change.accessLevel),
        project_visibility: visibilityName(project.visibility_level),
        event_name: PROJECT_EVENTS[change.action],
      }),
    ]
  }
  const [group] = await findNamespaceById(trx, change.source.id)
  if (!group) return []
  const body = {
    ...timestamps,
    group_name: group.name,
    group_path: group.path,
    group_id: group.id,
    ...person,
    group_access: roleName(change.accessLevel),
    // EE adds the group's subscription plan, which only GitLab.com has.
    group_plan: null,
    // A date: Date#xmlschema is 'YYYY-MM-DD'.
    expires_at: change.expiresAt,
    event_name: GROUP_EVENTS[change.action],
  }
  const payloads = [systemHook(body)]
  if (tierIncludes(ctx.config.tier, 'premium')) {
    payloads.push({ event: 'Member Hook', trigger: 'member_events', scope: 'project', groupId: group.id, body })
  }
  return payloads
}
