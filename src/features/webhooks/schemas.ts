import { Type, type Static, type TBoolean, type TOptional, type TSchema } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'

// Request params (GL lib/api/project_hooks.rb, group_hooks.rb, system_hooks.rb, api/hooks/*, helpers/web_hooks_helpers.rb)
// and response entities (GL API::Entities::Hook, ProjectHook, EE GroupHook, WebHookLog, RetryWebhookEvent).

const RecordId = Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })

/** GL WebHook.branch_filter_strategies. */
export const BRANCH_FILTER_STRATEGIES = ['wildcard', 'regex', 'all_branches'] as const

/**
 * What each kind of hook can be triggered by, each a switch of its own (GL `triggerable_hooks` of ProjectHook with EE's,
 * GroupHook, SystemHook); `POST …/test/:trigger` takes the first fifteen (GL ProjectHook.triggers).
 */
export const TEST_TRIGGERS = [
  'push_events',
  'tag_push_events',
  'issues_events',
  'confidential_issues_events',
  'note_events',
  'confidential_note_events',
  'merge_requests_events',
  'job_events',
  'pipeline_events',
  'wiki_page_events',
  'deployment_events',
  'feature_flag_events',
  'releases_events',
  'emoji_events',
  'resource_access_token_events',
] as const
export type TestTrigger = (typeof TEST_TRIGGERS)[number]
export const PROJECT_HOOK_SWITCHES = [...TEST_TRIGGERS, 'milestone_events', 'vulnerability_events'] as const
export const GROUP_HOOK_SWITCHES = [...PROJECT_HOOK_SWITCHES, 'member_events', 'subgroup_events', 'project_events'] as const
export const SYSTEM_HOOK_SWITCHES = ['push_events', 'tag_push_events', 'merge_requests_events', 'repository_update_events'] as const

export type HookSwitch = (typeof GROUP_HOOK_SWITCHES | typeof SYSTEM_HOOK_SWITCHES)[number]

function switches<const N extends readonly string[]>(names: N) {
  return Object.fromEntries(names.map((name) => [name, Type.Optional(Type.Boolean())])) as { [K in N[number]]: TOptional<TBoolean> }
}

/** `url_variables` and `custom_headers`: arrays of `{key, value}`; their required members are checked by the service. */
const KeyValues = Type.Optional(Type.Array(Type.Object({ key: Type.Optional(Type.String()), value: Type.Optional(Type.String()) })))

const commonHookParams = {
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  enable_ssl_verification: Type.Optional(Type.Boolean()),
  token: Type.Optional(Type.String()),
  push_events_branch_filter: Type.Optional(Type.String()),
  custom_webhook_template: Type.Optional(Type.String()),
  branch_filter_strategy: Type.Optional(Type.Union(BRANCH_FILTER_STRATEGIES.map((name) => Type.Literal(name)))),
  url_variables: KeyValues,
  custom_headers: KeyValues,
}

function hookParams<S extends Record<string, TSchema>, const N extends readonly string[]>(
  parent: S,
  names: N,
  url: 'required' | 'optional',
) {
  return Type.Object({
    ...parent,
    url: url === 'required' ? Type.String() : Type.Optional(Type.String()),
    ...switches(names),
    ...commonHookParams,
  })
}

const projectParent = { id: Type.String() }
const hookId = { hook_id: RecordId }

export const ProjectParams = Type.Object({ ...projectParent, ...paginationParams })
export const ProjectHookParams = Type.Object({ ...projectParent, ...hookId })
export const CreateProjectHookParams = hookParams(projectParent, PROJECT_HOOK_SWITCHES, 'required')
export const UpdateProjectHookParams = hookParams({ ...projectParent, ...hookId }, PROJECT_HOOK_SWITCHES, 'optional')

export const GroupParams = Type.Object({ ...projectParent, ...paginationParams })
export const GroupHookParams = Type.Object({ ...projectParent, ...hookId })
export const CreateGroupHookParams = hookParams(projectParent, GROUP_HOOK_SWITCHES, 'required')
export const UpdateGroupHookParams = hookParams({ ...projectParent, ...hookId }, GROUP_HOOK_SWITCHES, 'optional')

export const SystemParams = Type.Object({ ...paginationParams })
export const SystemHookParams = Type.Object({ ...hookId })
export const CreateSystemHookParams = hookParams({}, SYSTEM_HOOK_SWITCHES, 'required')
export const UpdateSystemHookParams = hookParams(hookId, SYSTEM_HOOK_SWITCHES, 'optional')

/** `…/hooks/:hook_id/url_variables/:key` and `…/custom_headers/:key`, with the parent's id when there is one. */
export const HookKeyParams = Type.Object({ id: Type.Optional(Type.String()), ...hookId, key: Type.String() })
export const HookKeyValueParams = Type.Object({ id: Type.Optional(Type.String()), ...hookId, key: Type.String(), value: Type.String() })

export const TestHookParams = Type.Object({
  id: Type.String(),
  ...hookId,
  trigger: Type.Union(TEST_TRIGGERS.map((name) => Type.Literal(name))),
})

/** Rack::Utils::HTTP_STATUS_CODES and the finder's three classes (GL API::Hooks::Events). */
const STATUS_FILTERS = [
  ...[100, 101, 102, 103, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 300, 301, 302, 303, 304, 305, 307, 308].map(String),
  ...[400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 423, 424, 425, 426].map(String),
  ...[428, 429, 431, 451, 500, 501, 502, 503, 504, 505, 506, 507, 508, 510, 511].map(String),
  'successful',
  'client_failure',
  'server_failure',
]

/** GL API::Hooks::Events: at most 20 a page. */
export const MAX_EVENTS_PER_PAGE = 20

export const HookEventsParams = Type.Object({
  id: Type.Optional(Type.String()),
  ...hookId,
  status: Type.Optional(Type.Array(Type.Union(STATUS_FILTERS.map((code) => Type.Literal(code))), { commaSeparated: true })),
  page: paginationParams.page,
  per_page: Type.Integer({ minimum: 1, maximum: MAX_EVENTS_PER_PAGE, default: MAX_EVENTS_PER_PAGE }),
})

export const ResendHookEventParams = Type.Object({ id: Type.Optional(Type.String()), ...hookId, hook_log_id: RecordId })

// Response entities.

const KeyOnly = Type.Array(Type.Object({ key: Type.String() }))

const hookFields = {
  id: Type.Integer(),
  url: Type.String(),
  name: Nullable(Type.String()),
  description: Nullable(Type.String()),
  created_at: Type.String(),
  push_events: Type.Boolean(),
  tag_push_events: Type.Boolean(),
  merge_requests_events: Type.Boolean(),
  repository_update_events: Type.Boolean(),
  enable_ssl_verification: Type.Boolean(),
}
const hookTail = {
  alert_status: Type.String(),
  disabled_until: Nullable(Type.String()),
  url_variables: Type.Optional(KeyOnly),
  push_events_branch_filter: Nullable(Type.String()),
  branch_filter_strategy: Type.String(),
  custom_webhook_template: Nullable(Type.String()),
  custom_headers: Type.Optional(KeyOnly),
}
function booleans<const N extends readonly string[]>(names: N) {
  return Object.fromEntries(names.map((name) => [name, Type.Boolean()])) as { [K in N[number]]: TBoolean }
}

/** Entities::Hook as system hooks show it. */
export const SystemHookJson = Type.Object({ ...hookFields, organization_id: Type.Integer(), ...hookTail })
export type SystemHookJson = Static<typeof SystemHookJson>

/** The switches Entities::ProjectHook adds, in its order. */
export const PROJECT_HOOK_ENTITY_SWITCHES = [
  'issues_events',
  'confidential_issues_events',
  'note_events',
  'confidential_note_events',
  'pipeline_events',
  'wiki_page_events',
  'deployment_events',
  'feature_flag_events',
  'job_events',
  'releases_events',
  'milestone_events',
  'emoji_events',
  'resource_access_token_events',
  'vulnerability_events',
] as const

export const ProjectHookJson = Type.Object({
  ...hookFields,
  ...hookTail,
  project_id: Type.Integer(),
  ...booleans(PROJECT_HOOK_ENTITY_SWITCHES),
})
export type ProjectHookJson = Static<typeof ProjectHookJson>

/** The switches EE Entities::GroupHook adds, in its order. */
export const GROUP_HOOK_ENTITY_SWITCHES = [
  'issues_events',
  'confidential_issues_events',
  'note_events',
  'confidential_note_events',
  'pipeline_events',
  'wiki_page_events',
  'job_events',
  'deployment_events',
  'feature_flag_events',
  'releases_events',
  'milestone_events',
  'subgroup_events',
  'emoji_events',
  'resource_access_token_events',
  'member_events',
  'vulnerability_events',
  'project_events',
] as const

export const GroupHookJson = Type.Object({
  ...hookFields,
  ...hookTail,
  group_id: Type.Integer(),
  ...booleans(GROUP_HOOK_ENTITY_SWITCHES),
})
export type GroupHookJson = Static<typeof GroupHookJson>

const AnyObject = Type.Object({}, { additionalProperties: true })

/** Entities::WebHookLog. */
export const WebHookLogJson = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  trigger: Type.String(),
  request_headers: AnyObject,
  request_data: AnyObject,
  response_headers: AnyObject,
  response_body: Type.String(),
  execution_duration: Type.Number(),
  response_status: Type.String(),
  created_at: Type.String(),
})
export type WebHookLogJson = Static<typeof WebHookLogJson>

/** Entities::RetryWebhookEvent. */
export const RetryWebhookEventJson = Type.Object({ response_status: Type.Integer() })

/** What the system hooks' test answers: the sample it sent. */
export const SystemHookTestJson = AnyObject
