import type { WebHookRow, WebHookType } from '../../db/schema.js'
import type { HookPayload } from './payloads/index.js'
import { GROUP_HOOK_SWITCHES, PROJECT_HOOK_SWITCHES, SYSTEM_HOOK_SWITCHES } from './schemas.js'

// Which hooks hear a payload (GL TriggerableHooks, ActiveHookFilter, SystemHooksService).

/** GL TriggerableHooks::AVAILABLE_TRIGGERS inverted: a switch's hook name, the log's `trigger`. */
export const HOOK_NAMES: Record<string, string> = {
  repository_update_events: 'repository_update_hooks',
  push_events: 'push_hooks',
  tag_push_events: 'tag_push_hooks',
  issues_events: 'issue_hooks',
  confidential_note_events: 'confidential_note_hooks',
  confidential_issues_events: 'confidential_issue_hooks',
  note_events: 'note_hooks',
  merge_requests_events: 'merge_request_hooks',
  job_events: 'job_hooks',
  pipeline_events: 'pipeline_hooks',
  wiki_page_events: 'wiki_page_hooks',
  deployment_events: 'deployment_hooks',
  feature_flag_events: 'feature_flag_hooks',
  releases_events: 'release_hooks',
  member_events: 'member_hooks',
  subgroup_events: 'subgroup_hooks',
  emoji_events: 'emoji_hooks',
  resource_access_token_events: 'resource_access_token_hooks',
  milestone_events: 'milestone_hooks',
  vulnerability_events: 'vulnerability_hooks',
  project_events: 'project_hooks',
}

/** What each kind of hook can be triggered by: its switches. */
const TRIGGERS: Record<WebHookType, ReadonlySet<string>> = {
  ProjectHook: new Set(PROJECT_HOOK_SWITCHES),
  GroupHook: new Set(GROUP_HOOK_SWITCHES),
  SystemHook: new Set(SYSTEM_HOOK_SWITCHES),
}

/** Whether a kind of hook has a switch for `trigger` (GL `hook.class.triggers`). */
export function hasTrigger(type: WebHookType, trigger: string): boolean {
  return TRIGGERS[type].has(trigger)
}

/** The hook name GitLab logs a request under: every system hook's is `system_hooks`. */
export function hookNameOf(hook: Pick<WebHookRow, 'type'>, trigger: string): string {
  return hook.type === 'SystemHook' ? 'system_hooks' : (HOOK_NAMES[trigger] ?? trigger)
}

/** GL WebHookService.hook_to_event: a system hook hears everything as `System Hook`. */
export function eventOf(hook: Pick<WebHookRow, 'type'>, payloadEvent: string): string {
  return hook.type === 'SystemHook' ? 'System Hook' : payloadEvent
}

/** GL RefMatcher: the exact name, or a wildcard whose `*` stands for any characters, `/` included. */
function wildcardMatches(filter: string, name: string): boolean {
  if (!filter.includes('*')) return filter === name
  const expression = filter
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*?')
  return new RegExp(`^${expression}$`, 's').test(name)
}

/** GL ActiveHookFilter#matches_branch?: an empty filter passes every push; a regex that does not compile none. */
export function branchFilterMatches(
  hook: Pick<WebHookRow, 'push_events_branch_filter' | 'branch_filter_strategy'>,
  branch: string | undefined,
): boolean {
  const filter = hook.push_events_branch_filter
  if (filter === null || filter.trim() === '') return true
  if (hook.branch_filter_strategy === 'all_branches') return true
  if (branch === undefined) return false
  if (hook.branch_filter_strategy === 'wildcard') return wildcardMatches(filter, branch)
  try {
    return new RegExp(filter, 'u').test(branch)
  } catch {
    return false
  }
}

/**
 * Whether `hook` hears `payload`. A system-scope payload reaches system hooks only: `system` events every one, the
 * rest by switch. A project-scope payload reaches the project's and groups' hooks by switch, and system hooks by
 * their four switches; a branch push also passes the hook's branch filter.
 */
export function hears(hook: WebHookRow, payload: HookPayload): boolean {
  if (payload.scope === 'system') {
    if (hook.type !== 'SystemHook') return false
    if (payload.trigger === 'system') return true
  }
  if (!TRIGGERS[hook.type].has(payload.trigger)) return false
  if ((hook as unknown as Record<string, unknown>)[payload.trigger] !== 1) return false
  return payload.trigger !== 'push_events' || branchFilterMatches(hook, payload.branch)
}

/** GL WebHookService.hook_to_event: `issue_hooks` → `Issue Hook`. */
export function hookEventName(hookName: string): string {
  return hookName
    .replace(/_hooks$/, '_hook')
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ')
}
