import type { WebHookLogRow, WebHookRow } from '../../db/schema.js'
import { alertStatusOf } from './auto-disabling.js'
import {
  GROUP_HOOK_ENTITY_SWITCHES,
  PROJECT_HOOK_ENTITY_SWITCHES,
  type GroupHookJson,
  type ProjectHookJson,
  type SystemHookJson,
  type WebHookLogJson,
} from './schemas.js'

/** GL's default organization: svc has one, as every GitLab instance has at first. */
const ORGANIZATION_ID = 1

/** Secrets are shown by name only (GL `masked_url_variables`, `masked_custom_headers`). */
function keysOf(json: string): { key: string }[] {
  return Object.keys(JSON.parse(json) as object).map((key) => ({ key }))
}

/** Whether one of the hook's switches (`push_events`, `enable_ssl_verification`, …) is on. */
export function isSwitchOn(hook: WebHookRow, name: string): boolean {
  return (hook as unknown as Record<string, unknown>)[name] === 1
}

/** Entities::Hook; `withSecretNames: false` leaves out the names of URL variables and custom headers, as GitLab's project hook list does. */
function presentHookFields(hook: WebHookRow, now: Date, withSecretNames: boolean) {
  return {
    head: {
      id: hook.id,
      url: hook.url,
      name: hook.name,
      description: hook.description,
      created_at: hook.created_at,
      push_events: isSwitchOn(hook, 'push_events'),
      tag_push_events: isSwitchOn(hook, 'tag_push_events'),
      merge_requests_events: isSwitchOn(hook, 'merge_requests_events'),
      repository_update_events: isSwitchOn(hook, 'repository_update_events'),
      enable_ssl_verification: isSwitchOn(hook, 'enable_ssl_verification'),
    },
    tail: {
      alert_status: alertStatusOf(hook, now),
      disabled_until: hook.disabled_until,
      ...(withSecretNames ? { url_variables: keysOf(hook.url_variables) } : {}),
      push_events_branch_filter: hook.push_events_branch_filter,
      branch_filter_strategy: hook.branch_filter_strategy,
      custom_webhook_template: hook.custom_webhook_template,
      ...(withSecretNames ? { custom_headers: keysOf(hook.custom_headers) } : {}),
    },
  }
}

export function presentSystemHook(hook: WebHookRow, now: Date): SystemHookJson {
  const { head, tail } = presentHookFields(hook, now, true)
  return { ...head, organization_id: ORGANIZATION_ID, ...tail }
}

export function presentProjectHook(
  hook: WebHookRow,
  now: Date,
  options: { withSecretNames: boolean } = { withSecretNames: true },
): ProjectHookJson {
  const { head, tail } = presentHookFields(hook, now, options.withSecretNames)
  const switches = Object.fromEntries(PROJECT_HOOK_ENTITY_SWITCHES.map((name) => [name, isSwitchOn(hook, name)]))
  return { ...head, ...tail, project_id: hook.project_id ?? 0, ...switches } as ProjectHookJson
}

export function presentGroupHook(hook: WebHookRow, now: Date): GroupHookJson {
  const { head, tail } = presentHookFields(hook, now, true)
  const switches = Object.fromEntries(GROUP_HOOK_ENTITY_SWITCHES.map((name) => [name, isSwitchOn(hook, name)]))
  return { ...head, ...tail, group_id: hook.group_id ?? 0, ...switches } as GroupHookJson
}

/** Entities::WebHookLog: the token was redacted when the request was logged. */
export function presentHookLog(log: WebHookLogRow): WebHookLogJson {
  return {
    id: log.id,
    url: log.url,
    trigger: log.trigger,
    request_headers: JSON.parse(log.request_headers) as Record<string, unknown>,
    request_data: JSON.parse(log.request_data) as Record<string, unknown>,
    response_headers: JSON.parse(log.response_headers) as Record<string, unknown>,
    response_body: log.response_body,
    execution_duration: log.execution_duration,
    response_status: log.response_status,
    created_at: log.created_at,
  }
}
