import type { Context } from '../../core/context.js'
import { outboundRulesFor } from '../../core/outbound-http.js'
import { Forbidden, MissingParam, NotFound, PreconditionFailed, RecordNotFound, Rejected, Unprocessable } from '../../core/errors.js'
import { toSentence } from '../../core/sentence.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { BranchFilterStrategy, NewWebHookRow, WebHookRow, WebHookType, WebHookUpdate } from '../../db/schema.js'
import type { LoadedGroup, LoadedProject } from '../access/index.js'
import { canAdminGroupHooks, canAdminProjectHooks, canAdminSystemHooks } from './policy.js'
import type { HookSwitch } from './schemas.js'
import { deleteHookRow, findHookOf, insertHook, selectHooksOf, updateHookRow, type HookOwner } from './store.js'
import { interpolatedUrl } from './urls.js'
import { fullMessages, squish, validateHook, type HookAttributes, type HookErrors } from './validation.js'

// Project, group and system hooks (GL API::ProjectHooks, EE API::GroupHooks, API::SystemHooks with
// API::Helpers::WebHooksHelpers, WebHooks::CreateService and the model's callbacks).

/** Whose hooks a request is about, as the route found it. */
export type HookParent =
  { type: 'ProjectHook'; loaded: LoadedProject } | { type: 'GroupHook'; loaded: LoadedGroup } | { type: 'SystemHook' }

/**
 * A hook that could not be saved: `errors` by attribute (for pages), and the API's answer, which GitLab words
 * differently on create and update: 422 with a sentence, or with the errors by attribute.
 */
export class HookNotSaved extends Unprocessable {
  constructor(
    readonly errors: HookErrors,
    detail: string | HookErrors,
  ) {
    super(typeof detail === 'string' ? detail : 'Invalid')
    // The error renderer answers `{"message": detail}`: GitLab's render_validation_error! when it is by attribute.
    Object.assign(this, { detail })
  }
}

/** `{key, value}` pairs as the API takes them (GL `url_variables` and `custom_headers`). */
export interface KeyValue {
  key?: string
  value?: string
}

/** What a create or update may set; absent fields stay as they are (GL `declared_params(include_missing: false)`). */
export interface HookInput {
  url?: string
  token?: string
  name?: string
  description?: string
  switches: Partial<Record<HookSwitch, boolean>>
  enableSslVerification?: boolean
  pushEventsBranchFilter?: string
  branchFilterStrategy?: BranchFilterStrategy
  customWebhookTemplate?: string
  urlVariables?: KeyValue[]
  customHeaders?: KeyValue[]
}

function ownerOf(parent: HookParent): HookOwner {
  if (parent.type === 'ProjectHook') return { type: 'ProjectHook', projectId: parent.loaded.project.id }
  if (parent.type === 'GroupHook') return { type: 'GroupHook', groupId: parent.loaded.group.id }
  return { type: 'SystemHook' }
}

/** GL `read_web_hook`/`admin_web_hook`: Maintainers of a project, Owners of a group, administrators for system hooks. */
export function authorizeHooks(ctx: Context, parent: HookParent): void {
  const allowed =
    parent.type === 'ProjectHook'
      ? canAdminProjectHooks(parent.loaded.access)
      : parent.type === 'GroupHook'
        ? canAdminGroupHooks(parent.loaded.access)
        : canAdminSystemHooks(ctx.caller)
  if (!allowed) throw new Forbidden()
}

/** One of the parent's hooks; 404 "Not found" as GitLab's `find`. */
export async function findHook(ctx: Context, parent: HookParent, hookId: number): Promise<WebHookRow> {
  authorizeHooks(ctx, parent)
  const hook = await findHookOf(ctx.db, ownerOf(parent), hookId)
  if (!hook) throw new RecordNotFound()
  return hook
}

export function listHooks(ctx: Context, parent: HookParent, page: number, perPage: number): Promise<OffsetPage<WebHookRow>> {
  authorizeHooks(ctx, parent)
  return fetchOffsetPage(ctx.db, selectHooksOf(ctx.db, ownerOf(parent)), page, perPage)
}

function keyValues(pairs: KeyValue[] | undefined, name: string): Record<string, string> | undefined {
  if (!pairs || pairs.length === 0) return undefined
  const out: Record<string, string> = {}
  pairs.forEach((pair, index) => {
    if (pair.key === undefined) throw new MissingParam(`${name}[${index}][key]`)
    if (pair.value === undefined) throw new MissingParam(`${name}[${index}][value]`)
    out[pair.key] = pair.value
  })
  return out
}

function parseObject(text: string): Record<string, string> {
  return JSON.parse(text) as Record<string, string>
}

function attributesOf(hook: Pick<WebHookRow, keyof WebHookRow>): HookAttributes {
  return {
    url: hook.url,
    token: hook.token,
    urlVariables: parseObject(hook.url_variables),
    customHeaders: parseObject(hook.custom_headers),
    name: hook.name,
    description: hook.description,
    pushEventsBranchFilter: hook.push_events_branch_filter,
    branchFilterStrategy: hook.branch_filter_strategy,
    customWebhookTemplate: hook.custom_webhook_template,
  }
}

/** GL set_branch_filter_nil and the wildcard validator's squish, as the model saves the filter. */
function savedBranchFilter(filter: string | null, strategy: BranchFilterStrategy): string | null {
  if (strategy === 'all_branches') return null
  return strategy === 'wildcard' && filter !== null ? squish(filter) : filter
}

function localRequestsAllowed(ctx: Context, type: WebHookType) {
  return outboundRulesFor(ctx.settings, type === 'SystemHook' ? 'system' : 'web')
}

/** WebHooks::CreateService's answers when a new hook is invalid. */
function createRefusal(errors: HookErrors): HookNotSaved {
  if (errors.url) return new HookNotSaved(errors, 'Invalid url given')
  if (errors.push_events_branch_filter) return new HookNotSaved(errors, 'Invalid branch filter given')
  if (errors.custom_headers) return new HookNotSaved(errors, 'Custom headers must be a valid json schema')
  return new HookNotSaved(errors, toSentence(fullMessages(errors)))
}

/** WebHooksHelpers#save_hook's answers when a changed hook is invalid. */
function updateRefusal(errors: HookErrors): HookNotSaved {
  if (errors.url) return new HookNotSaved(errors, 'Invalid url given')
  if (errors.push_events_branch_filter) return new HookNotSaved(errors, 'Invalid branch filter given')
  if (errors.custom_headers) return new HookNotSaved(errors, 'Custom headers validation failed')
  return new HookNotSaved(errors, errors)
}

function switchColumns(switches: HookInput['switches']): Partial<Record<HookSwitch, number>> {
  return Object.fromEntries(Object.entries(switches).map(([name, on]) => [name, on ? 1 : 0]))
}

/** Adds a hook (GL WebHooks::CreateService): system hooks listen for repository updates unless told otherwise. */
export async function createHook(ctx: Context, parent: HookParent, input: HookInput): Promise<WebHookRow> {
  authorizeHooks(ctx, parent)
  const urlVariables = keyValues(input.urlVariables, 'url_variables') ?? {}
  const customHeaders = keyValues(input.customHeaders, 'custom_headers') ?? {}
  const strategy = input.branchFilterStrategy ?? 'wildcard'
  const attributes: HookAttributes = {
    url: input.url ?? '',
    token: input.token ?? null,
    urlVariables,
    customHeaders,
    name: input.name ?? null,
    description: input.description ?? null,
    pushEventsBranchFilter: savedBranchFilter(input.pushEventsBranchFilter ?? null, strategy),
    branchFilterStrategy: strategy,
    customWebhookTemplate: input.customWebhookTemplate ?? null,
  }
  const errors = await validateHook(attributes, localRequestsAllowed(ctx, parent.type))
  if (Object.keys(errors).length > 0) throw createRefusal(errors)
  const at = ctx.now().toISOString()
  const row: NewWebHookRow = {
    type: parent.type,
    project_id: parent.type === 'ProjectHook' ? parent.loaded.project.id : null,
    group_id: parent.type === 'GroupHook' ? parent.loaded.group.id : null,
    url: attributes.url,
    token: attributes.token,
    url_variables: JSON.stringify(urlVariables),
    custom_headers: JSON.stringify(customHeaders),
    name: attributes.name,
    description: attributes.description,
    ...(parent.type === 'SystemHook' ? { push_events: 0, repository_update_events: 1 } : {}),
    ...switchColumns(input.switches),
    push_events_branch_filter: attributes.pushEventsBranchFilter,
    branch_filter_strategy: strategy,
    custom_webhook_template: attributes.customWebhookTemplate,
    created_at: at,
    updated_at: at,
  }
  if (input.enableSslVerification !== undefined) row.enable_ssl_verification = input.enableSslVerification ? 1 : 0
  return insertHook(ctx.db, row)
}

function interpolates(url: string, variables: Record<string, string>): string | null {
  try {
    return interpolatedUrl(url, variables)
  } catch {
    return null
  }
}

/**
 * The hook as `changes` leave it once the model's callbacks ran (GL WebHooks::Hook before_validation on update): a new
 * URL drops the token unless one is given; a different destination drops the URL variables it kept (so that secrets
 * are entered again for it) and the custom headers.
 */
function afterCallbacks(hook: WebHookRow, changes: Partial<HookAttributes>, tokenGiven: boolean): HookAttributes {
  const before = attributesOf(hook)
  const after: HookAttributes = { ...before, ...changes }
  const urlChanged = after.url !== before.url
  if (urlChanged && !tokenGiven) after.token = null
  const destinationChanged = () => interpolates(before.url, before.urlVariables) !== interpolates(after.url, after.urlVariables)
  const oldVariables = Object.entries(before.urlVariables)
  if (oldVariables.length > 0 && destinationChanged()) {
    const keptKey = oldVariables.some(([key]) => Object.hasOwn(after.urlVariables, key))
    const keptPair = oldVariables.some(([key, value]) => after.urlVariables[key] === value)
    if (keptKey || (urlChanged && keptPair)) after.urlVariables = {}
  }
  const now = interpolates(after.url, after.urlVariables)
  if (now !== null && now !== interpolates(before.url, before.urlVariables)) after.customHeaders = {}
  after.pushEventsBranchFilter = savedBranchFilter(after.pushEventsBranchFilter, after.branchFilterStrategy)
  return after
}

/** Validates and saves `attributes` (with other columns); answers the errors instead when it may not be saved. */
async function saveHook(
  ctx: Context,
  hook: WebHookRow,
  attributes: HookAttributes,
  columns: WebHookUpdate,
): Promise<{ hook: WebHookRow } | { errors: HookErrors }> {
  const errors = await validateHook(attributes, localRequestsAllowed(ctx, hook.type))
  if (Object.keys(errors).length > 0) return { errors }
  const saved = await updateHookRow(ctx.db, hook.id, {
    ...columns,
    url: attributes.url,
    token: attributes.token,
    url_variables: JSON.stringify(attributes.urlVariables),
    custom_headers: JSON.stringify(attributes.customHeaders),
    name: attributes.name,
    description: attributes.description,
    push_events_branch_filter: attributes.pushEventsBranchFilter,
    branch_filter_strategy: attributes.branchFilterStrategy,
    custom_webhook_template: attributes.customWebhookTemplate,
    updated_at: ctx.now().toISOString(),
  })
  return { hook: saved }
}

/** Edits a hook (GL WebHooksHelpers#update_hook); URL variables and custom headers given are merged into the hook's. */
export async function updateHook(ctx: Context, parent: HookParent, hookId: number, input: HookInput): Promise<WebHookRow> {
  const hook = await findHook(ctx, parent, hookId)
  const changes: Partial<HookAttributes> = {}
  if (input.url !== undefined) changes.url = input.url
  if (input.token !== undefined) changes.token = input.token
  if (input.name !== undefined) changes.name = input.name
  if (input.description !== undefined) changes.description = input.description
  if (input.pushEventsBranchFilter !== undefined) changes.pushEventsBranchFilter = input.pushEventsBranchFilter
  if (input.branchFilterStrategy !== undefined) changes.branchFilterStrategy = input.branchFilterStrategy
  if (input.customWebhookTemplate !== undefined) changes.customWebhookTemplate = input.customWebhookTemplate
  const variables = keyValues(input.urlVariables, 'url_variables')
  if (variables) changes.urlVariables = { ...parseObject(hook.url_variables), ...variables }
  const headers = keyValues(input.customHeaders, 'custom_headers')
  if (headers) changes.customHeaders = { ...parseObject(hook.custom_headers), ...headers }
  const columns: WebHookUpdate = switchColumns(input.switches)
  if (input.enableSslVerification !== undefined) columns.enable_ssl_verification = input.enableSslVerification ? 1 : 0
  if (Object.keys(changes).length === 0 && Object.keys(columns).length === 0) throw new Rejected('No parameters provided')
  const result = await saveHook(ctx, hook, afterCallbacks(hook, changes, input.token !== undefined), columns)
  if ('errors' in result) throw updateRefusal(result.errors)
  return result.hook
}

/** Removes a hook, its pending deliveries and its logs (GL WebHooks::DestroyService), unless it changed after `unmodifiedSince`. */
export async function deleteHook(ctx: Context, parent: HookParent, hookId: number, unmodifiedSince: Date | null): Promise<void> {
  const hook = await findHook(ctx, parent, hookId)
  if (unmodifiedSince && Math.floor(Date.parse(hook.updated_at) / 1000) > Math.floor(unmodifiedSince.getTime() / 1000)) {
    throw new PreconditionFailed()
  }
  await deleteHookRow(ctx.db, hook.id)
}

type KeyedList = 'urlVariables' | 'customHeaders'

const KEYED_LISTS = {
  urlVariables: { column: 'url_variables', missing: 'URL variable', unsetRefusal: 'Could not unset variable' },
  customHeaders: { column: 'custom_headers', missing: 'Custom header', unsetRefusal: 'Could not unset custom header' },
} as const

/** Sets one URL variable or custom header (GL API::Hooks::UrlVariables, CustomHeaders `PUT :key`). */
export async function setHookKey(
  ctx: Context,
  parent: HookParent,
  hookId: number,
  list: KeyedList,
  key: string,
  value: string,
): Promise<void> {
  const hook = await findHook(ctx, parent, hookId)
  const values = { ...parseObject(hook[KEYED_LISTS[list].column]), [key]: value }
  const result = await saveHook(ctx, hook, afterCallbacks(hook, { [list]: values }, false), {})
  if ('errors' in result) throw new HookNotSaved(result.errors, 'Illegal key or value')
}

/** Removes one URL variable or custom header; 404 when the hook has none of that name. */
export async function unsetHookKey(ctx: Context, parent: HookParent, hookId: number, list: KeyedList, key: string): Promise<void> {
  const hook = await findHook(ctx, parent, hookId)
  const { column, missing, unsetRefusal } = KEYED_LISTS[list]
  const values = parseObject(hook[column])
  if (!Object.hasOwn(values, key)) throw new NotFound(missing)
  delete values[key]
  const result = await saveHook(ctx, hook, afterCallbacks(hook, { [list]: values }, false), {})
  if ('errors' in result) throw new HookNotSaved(result.errors, unsetRefusal)
}
