import { Invalid } from '../../core/errors.js'
import type { BranchFilterStrategy, WebHookRow, WebHookType } from '../../db/schema.js'
import { confirmedAction } from '../../web/confirm.js'
import { describedBy, errorIdOf } from '../../web/described-by.js'
import { errorList, fieldError, refusalOf, type Refusal } from '../../web/form-errors.js'
import { fieldText, lastTextOf } from '../../web/form-values.js'
import { csrfField, html, type Html } from '../../web/html.js'
import type { LoadedProject } from '../access/index.js'
import { projectPageRoutes } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import {
  alertStatusOf,
  createHook,
  deleteHook,
  GROUP_HOOK_SWITCHES,
  PROJECT_HOOK_SWITCHES,
  SYSTEM_HOOK_SWITCHES,
  HookNotSaved,
  isSwitchOn,
  listHooks,
  TEST_TRIGGERS,
  testHook,
  testSystemHook,
  updateHook,
  type HookInput,
  type HookSwitch,
  type TestTrigger,
} from '../webhooks/index.js'
import { executionNotice, hookEventPage, hookOf, hookPath, recentEvents, retryHookEvent, type HookPlace } from './webhook-events.js'
import { choice, flagChoice, formOf, isFormRefusal, renderSettingsPage, settingsPage, settingsPath, settingsSection } from './shared.js'

// Settings > Webhooks (GL Projects::HooksController with WebHooks::HookActions): a project's hooks listed, added,
// edited, tested and deleted through the webhooks feature, so the page refuses what POST /projects/:id/hooks refuses,
// each message beside its field. A hook's page lists its recent requests (see webhook-events.ts).

/** GL WebHook::SECRET_MASK: what the token field shows for a hook that has one; sent back unchanged, it keeps it. */
const SECRET_MASK = '************'

/** What a project's or group's hooks page says of them (GL shared/web_hooks/_title_and_docs). */
export const WEBHOOKS_INTRO =
  "Webhooks send notifications to web applications in response to events in a group or project. Each request carries GitLab's body and headers."

/** How many hooks the page lists (GitLab lists them all; a project has few). */
const HOOKS_LISTED = 100

/**
 * Each switch as GitLab's form names and explains it (GL integration_webhook_event_human_name and the form's help),
 * in its order; those svc has no events for say so. Each kind of hook offers those the API takes for it.
 */
const SWITCHES: { name: HookSwitch; label: string; help: string; fires: boolean }[] = [
  {
    name: 'repository_update_events',
    label: 'Repository update events',
    help: 'A repository is updated: a push, a merge, a branch or a tag made or removed.',
    fires: true,
  },
  { name: 'tag_push_events', label: 'Tag push events', help: 'A new tag is pushed to the repository.', fires: true },
  { name: 'note_events', label: 'Comments', help: 'A comment is made or edited on an issue or merge request.', fires: true },
  {
    name: 'confidential_note_events',
    label: 'Confidential comments',
    help: 'A comment is made or edited on a confidential issue.',
    fires: true,
  },
  { name: 'issues_events', label: 'Issues events', help: 'An issue is created, updated, closed, or reopened.', fires: true },
  {
    name: 'confidential_issues_events',
    label: 'Confidential issues events',
    help: 'A confidential issue is created, updated, closed, or reopened.',
    fires: true,
  },
  { name: 'member_events', label: 'Member events', help: 'A group member joins, leaves or changes role.', fires: true },
  { name: 'project_events', label: 'Project events', help: 'A project is created or removed in the group.', fires: true },
  { name: 'subgroup_events', label: 'Subgroup events', help: 'A subgroup is created or removed in the group.', fires: true },
  { name: 'merge_requests_events', label: 'Merge request events', help: 'A merge request is created, updated, or merged.', fires: true },
  { name: 'job_events', label: 'Job events', help: "A job's status changes.", fires: false },
  { name: 'pipeline_events', label: 'Pipeline events', help: "A pipeline's status changes.", fires: false },
  { name: 'wiki_page_events', label: 'Wiki page events', help: 'A wiki page is created or updated.', fires: false },
  { name: 'deployment_events', label: 'Deployment events', help: 'A deployment starts, finishes, fails, or is canceled.', fires: false },
  { name: 'feature_flag_events', label: 'Feature flag events', help: 'A feature flag is turned on or off.', fires: false },
  { name: 'releases_events', label: 'Releases events', help: 'A release is created, updated, or deleted.', fires: false },
  { name: 'milestone_events', label: 'Milestone events', help: 'A milestone is created, closed, reopened, or deleted.', fires: false },
  { name: 'emoji_events', label: 'Emoji events', help: 'An emoji is awarded or revoked.', fires: false },
  {
    name: 'resource_access_token_events',
    label: 'Resource access token events',
    help: 'An access token is going to expire in the next 7 days.',
    fires: false,
  },
  { name: 'vulnerability_events', label: 'Vulnerability events', help: 'A vulnerability is created or updated.', fires: false },
]

const SWITCH_LABELS: Record<string, string> = { push_events: 'Push events', ...Object.fromEntries(SWITCHES.map((s) => [s.name, s.label])) }

const STRATEGIES: { value: BranchFilterStrategy; label: string; help: string }[] = [
  { value: 'all_branches', label: 'All branches', help: '' },
  { value: 'wildcard', label: 'Wildcard pattern', help: 'Wildcards such as *-stable or production/* are supported.' },
  { value: 'regex', label: 'Regular expression', help: 'A regular expression the branch name must match.' },
]

/** How the form names the fields whose messages go beside them (Rails' human attribute names). */
const ATTRIBUTES = { url: 'URL', push_events_branch_filter: 'Push events branch filter' }

/** What the form holds: a hook's values, or what was typed. */
interface HookValues {
  url: string
  name: string
  description: string
  token: string
  switches: Partial<Record<HookSwitch, boolean>>
  strategy: BranchFilterStrategy
  branchFilter: string
  template: string
  sslVerification: boolean
}

/** The switches of each kind of hook, as the API takes them. */
const SWITCHES_OF: Record<WebHookType, readonly HookSwitch[]> = {
  ProjectHook: PROJECT_HOOK_SWITCHES,
  GroupHook: GROUP_HOOK_SWITCHES,
  SystemHook: SYSTEM_HOOK_SWITCHES,
}

function switchesOf(place: HookPlace) {
  return SWITCHES.filter((entry) => SWITCHES_OF[place.parent.type].includes(entry.name))
}

function switchNames(place: HookPlace): HookSwitch[] {
  return ['push_events', ...switchesOf(place).map((entry) => entry.name)]
}

function valuesOf(place: HookPlace, hook: WebHookRow): HookValues {
  return {
    url: hook.url,
    name: hook.name ?? '',
    description: hook.description ?? '',
    token: hook.token ? SECRET_MASK : '',
    switches: Object.fromEntries(switchNames(place).map((name) => [name, isSwitchOn(hook, name)])),
    strategy: hook.branch_filter_strategy,
    branchFilter: hook.push_events_branch_filter ?? '',
    template: hook.custom_webhook_template ?? '',
    sslVerification: hook.enable_ssl_verification === 1,
  }
}

/** A new hook's form: GitLab ticks push events (repository updates for a system hook) and SSL verification. */
function newHookValues(place: HookPlace): HookValues {
  return {
    url: '',
    name: '',
    description: '',
    token: '',
    switches: place.parent.type === 'SystemHook' ? { repository_update_events: true } : { push_events: true },
    strategy: 'all_branches',
    branchFilter: '',
    template: '',
    sslVerification: true,
  }
}

/** The form's fields as typed (`hook[...]`); a switch is on when its last value is "1", as Rails' check_box sends it. */
function typedValues(w: WebRequest, place: HookPlace): HookValues {
  const form = formOf(w, 'hook')
  const text = (name: string) => fieldText(form, name)
  const flag = (name: string) => lastTextOf(form[name]) === '1'
  const strategy = STRATEGIES.find((s) => s.value === text('branch_filter_strategy'))?.value ?? 'all_branches'
  return {
    url: text('url'),
    name: text('name'),
    description: text('description'),
    token: text('token'),
    switches: Object.fromEntries(switchNames(place).map((name) => [name, flag(name)])),
    strategy,
    branchFilter: text('push_events_branch_filter'),
    template: text('custom_webhook_template'),
    sslVerification: flag('enable_ssl_verification'),
  }
}

/** What the service is asked to save; the mask in the token field keeps the hook's token (GL HookActions#hook_params). */
function inputOf(values: HookValues): HookInput {
  return {
    url: values.url,
    name: values.name,
    description: values.description,
    token: values.token === SECRET_MASK ? undefined : values.token,
    switches: values.switches,
    enableSslVerification: values.sslVerification,
    branchFilterStrategy: values.strategy,
    pushEventsBranchFilter: values.branchFilter,
    customWebhookTemplate: values.template,
  }
}

function textField(options: {
  name: string
  label: string
  value: string
  refusal: Refusal | null
  help?: Html | string
  type?: 'text' | 'url' | 'password'
  required?: boolean
}): Html {
  const id = `hook_${options.name}`
  const helpId = options.help ? `${id}_help` : undefined
  return html`<label for="${id}">${options.label}</label>
    <input
      type="${options.type ?? 'text'}"
      id="${id}"
      name="hook[${options.name}]"
      value="${options.value}"
      ${options.required ? html`required` : ''}
      ${options.type === 'password' ? html`autocomplete="new-password"` : ''}
      ${describedBy(errorIdOf(options.refusal, options.name, id), helpId)}
    />
    ${fieldError(options.refusal, options.name, id)} ${options.help ? html`<p class="help" id="${helpId}">${options.help}</p>` : ''}`
}

function pushEventsChoice(values: HookValues, refusal: Refusal | null): Html {
  const filterId = 'hook_push_events_branch_filter'
  return html`${flagChoice({
    name: 'hook[push_events]',
    checked: values.switches.push_events === true,
    label: 'Push events',
    help: 'A push is made to the repository.',
    id: 'hook_push_events',
  })}
    <fieldset class="choices branch-filter">
      <legend>Branches a push is heard from</legend>
      ${STRATEGIES.map((strategy) =>
        choice({
          type: 'radio',
          name: 'hook[branch_filter_strategy]',
          value: strategy.value,
          checked: values.strategy === strategy.value,
          label: strategy.label,
          help: strategy.help,
          id: `hook_branch_filter_strategy_${strategy.value}`,
        }),
      )}
      <label for="${filterId}">Branch filter</label>
      <input
        type="text"
        id="${filterId}"
        name="hook[push_events_branch_filter]"
        value="${values.branchFilter}"
        ${describedBy(errorIdOf(refusal, 'push_events_branch_filter', filterId))}
      />
      ${fieldError(refusal, 'push_events_branch_filter', filterId)}
    </fieldset>`
}

function hookForm(
  place: HookPlace,
  token: string,
  target: { action: string; method: 'post' | 'put'; submit: string },
  values: HookValues,
  refusal: Refusal | null,
): Html {
  return html`${refusal ? errorList(refusal.messages) : ''}
    <form method="post" action="${target.action}" class="hook-form">
      ${csrfField(token)} ${target.method === 'put' ? html`<input type="hidden" name="_method" value="put" />` : ''}
      ${textField({
        name: 'url',
        label: 'URL',
        value: values.url,
        refusal,
        type: 'url',
        required: true,
        help: 'URL must be percent-encoded if it contains one or more special characters.',
      })}
      ${textField({ name: 'name', label: 'Name (optional)', value: values.name, refusal })}
      <label for="hook_description">Description (optional)</label>
      <textarea id="hook_description" name="hook[description]" rows="3" maxlength="2048" ${describedBy(errorIdOf(refusal, 'description', 'hook_description'))}>
${values.description}</textarea
      >
      ${fieldError(refusal, 'description', 'hook_description')}
      ${textField({
        name: 'token',
        label: 'Secret token',
        value: values.token,
        refusal,
        type: 'password',
        help: html`Used to validate received payloads. Sent with the request in the <code>X-Gitlab-Token</code> HTTP header.`,
      })}
      <fieldset class="choices hook-triggers">
        <legend>Trigger</legend>
        ${pushEventsChoice(values, refusal)}
        ${switchesOf(place).map((entry) =>
          flagChoice({
            name: `hook[${entry.name}]`,
            checked: values.switches[entry.name] === true,
            label: entry.label,
            help: entry.fires ? entry.help : `${entry.help} svc has no such events yet, so this never fires.`,
            id: `hook_${entry.name}`,
          }),
        )}
      </fieldset>
      <label for="hook_custom_webhook_template">Custom webhook template (optional)</label>
      <textarea
        id="hook_custom_webhook_template"
        name="hook[custom_webhook_template]"
        rows="4"
        maxlength="4096"
        ${describedBy(errorIdOf(refusal, 'custom_webhook_template', 'hook_custom_webhook_template'), 'hook_custom_webhook_template_help')}
      >
${values.template}</textarea
      >
      ${fieldError(refusal, 'custom_webhook_template', 'hook_custom_webhook_template')}
      <p class="help" id="hook_custom_webhook_template_help">
        The body sent instead of GitLab's, with <code>{{object_kind}}</code> and other fields of the event filled in.
      </p>
      <fieldset class="choices">
        <legend>SSL verification</legend>
        ${flagChoice({
          name: 'hook[enable_ssl_verification]',
          checked: values.sslVerification,
          label: 'Enable SSL verification',
          id: 'hook_enable_ssl_verification',
        })}
      </fieldset>
      <div class="button-row"><button type="submit" class="primary">${target.submit}</button></div>
    </form>`
}

/** GitLab's Test menu: one button per trigger a project hook can be tested with, each posting its `trigger`. */
function testMenu(place: HookPlace, hook: WebHookRow, token: string, from: 'index' | 'edit'): Html {
  // A system hook has one test, its sample (as POST /hooks/:id sends it).
  if (place.parent.type === 'SystemHook') {
    return html`<form method="post" action="${hookPath(place, hook, '/test')}" class="inline test-hook">
      ${csrfField(token)}<input type="hidden" name="from" value="${from}" /><button type="submit" class="small">Test</button>
    </form>`
  }
  return html`<details class="menu test-hook">
    <summary class="button small">Test</summary>
    <form method="post" action="${hookPath(place, hook, '/test')}" class="menu-items">
      ${csrfField(token)}<input type="hidden" name="from" value="${from}" />
      ${TEST_TRIGGERS.map((trigger) => html`<button type="submit" name="trigger" value="${trigger}">${SWITCH_LABELS[trigger]}</button>`)}
    </form>
  </details>`
}

/** GL _hook.html.haml's badge for a hook that auto-disabling stopped. */
function disabledBadge(hook: WebHookRow, now: Date): Html {
  const status = alertStatusOf(hook, now)
  if (status === 'disabled') return html`<span class="badge danger">Failed to connect</span>`
  if (status === 'temporarily_disabled') return html`<span class="badge warning">Fails to connect</span>`
  return html``
}

function hookRow(w: WebRequest, place: HookPlace, hook: WebHookRow, token: string): Html {
  const on = switchNames(place).filter((name) => isSwitchOn(hook, name))
  return html`<li class="hook" id="hook_${hook.id}">
    <div class="hook-summary">
      <strong class="hook-url">${hook.url}</strong> ${disabledBadge(hook, w.ctx.now())}
      ${hook.name ? html`<div>${hook.name}</div>` : ''}
      <div class="hook-badges">
        ${on.map((name) => html`<span class="badge">${SWITCH_LABELS[name]}</span> `)}
        <span class="badge">SSL Verification: ${hook.enable_ssl_verification === 1 ? 'enabled' : 'disabled'}</span>
      </div>
    </div>
    <div class="button-row">
      ${testMenu(place, hook, token, 'index')}
      <a class="button small" href="${hookPath(place, hook, '/edit')}" aria-label="Edit ${hook.url}">Edit</a>
      ${confirmedAction({
        label: 'Delete',
        question: 'Are you sure you want to delete this webhook?',
        action: hookPath(place, hook),
        method: 'delete',
        csrfToken: token,
      })}
    </div>
  </li>`
}

/** GET <base>: the hooks and the form to add one (open, with what was typed, when it was refused). */
export async function hooksPage(w: WebRequest, place: HookPlace, typed: HookValues | null = null, refusal: Refusal | null = null) {
  const token = await w.csrfToken()
  const hooks = await listHooks(w.ctx, place.parent, 1, HOOKS_LISTED)
  const form = hookForm(place, token, { action: place.base, method: 'post', submit: 'Add webhook' }, typed ?? newHookValues(place), refusal)
  const list =
    hooks.rows.length === 0
      ? html`<div class="empty-state"><p>No webhooks enabled. Select trigger events above.</p></div>`
      : html`<ul class="hook-list">
          ${hooks.rows.map((hook) => hookRow(w, place, hook, token))}
        </ul>`
  const body = html`<h1>${place.title}</h1>
    <p class="help">${place.intro}</p>
    <details class="add-webhook" ${typed ? html`open` : ''}>
      <summary class="button primary">Add new webhook</summary>
      ${settingsSection('new-webhook', 'Add new webhook', '', form)}
    </details>
    ${settingsSection('webhooks-index', `${place.title} (${hooks.rows.length})`, '', list)}`
  return place.render(w, { title: place.title, refused: refusal !== null }, body)
}

/** GET <base>/:id/edit: the form and the hook's recent requests. */
export async function editHookPage(w: WebRequest, place: HookPlace, typed: HookValues | null = null, refusal: Refusal | null = null) {
  const hook = await hookOf(w, place)
  if (!hook) return w.notFound()
  const token = await w.csrfToken()
  const form = hookForm(
    place,
    token,
    { action: hookPath(place, hook), method: 'put', submit: 'Save changes' },
    typed ?? valuesOf(place, hook),
    refusal,
  )
  const secrets = [...Object.keys(JSON.parse(hook.url_variables) as object), ...Object.keys(JSON.parse(hook.custom_headers) as object)]
  const body = html`<div class="header-row">
      <h1>Edit webhook</h1>
      <div class="actions">${testMenu(place, hook, token, 'edit')}</div>
    </div>
    ${disabledBadge(hook, w.ctx.now())}
    ${settingsSection('edit-webhook', hook.name ?? hook.url, '', form)}
    ${
      secrets.length > 0
        ? html`<p class="help">
          URL variables and custom headers (${secrets.join(', ')}) are kept as they are; they are set through the API.
        </p>`
        : ''
    }
    ${await recentEvents(w, place, hook)}
    <div class="button-row">
      ${confirmedAction({
        label: 'Delete webhook',
        question: 'Are you sure you want to delete this webhook?',
        action: hookPath(place, hook),
        method: 'delete',
        csrfToken: token,
      })}
    </div>`
  return place.render(w, { title: 'Edit webhook', refused: refusal !== null }, body)
}

/** A refusal the form shows: each of the hook's errors beside its field, anything else above the form. */
function hookRefusal(error: unknown): Refusal | null {
  if (error instanceof HookNotSaved) return refusalOf(new Invalid(error.errors), ATTRIBUTES)
  return isFormRefusal(error) ? refusalOf(error) : null
}

/** POST <base> (GL HookActions#create). */
export async function createHookFromForm(w: WebRequest, place: HookPlace) {
  const values = typedValues(w, place)
  try {
    await createHook(w.ctx, place.parent, inputOf(values))
  } catch (error) {
    const refusal = hookRefusal(error)
    if (refusal) return hooksPage(w, place, values, refusal)
    throw error
  }
  await w.flash('notice', 'Webhook was created')
  return w.redirect(place.base)
}

/** PUT <base>/:id (GL HookActions#update). */
export async function updateHookFromForm(w: WebRequest, place: HookPlace) {
  const hook = await hookOf(w, place)
  if (!hook) return w.notFound()
  const values = typedValues(w, place)
  try {
    await updateHook(w.ctx, place.parent, hook.id, inputOf(values))
  } catch (error) {
    const refusal = hookRefusal(error)
    if (refusal) return editHookPage(w, place, values, refusal)
    throw error
  }
  await w.flash('notice', 'Webhook was updated')
  return w.redirect(hookPath(place, hook, '/edit'))
}

/** DELETE <base>/:id (GL HookActions#destroy). */
export async function deleteHookFromForm(w: WebRequest, place: HookPlace) {
  const hook = await hookOf(w, place)
  if (!hook) return w.notFound()
  await deleteHook(w.ctx, place.parent, hook.id, null)
  await w.flash('notice', 'Webhook was deleted')
  return w.redirect(place.base)
}

/** POST <base>/:id/test?trigger= (GL Projects::HooksController#test and Groups::HooksController#test): what came back, at the top of the page it came from. */
export async function testHookFromForm(w: WebRequest, place: HookPlace) {
  const hook = await hookOf(w, place)
  if (!hook) return w.notFound()
  const trigger = String(w.params.trigger ?? 'push_events')
  const back = w.params.from === 'edit' ? hookPath(place, hook, '/edit') : place.base
  const { parent } = place
  if (parent.type === 'SystemHook') {
    await executionNotice(w, async () => (await testSystemHook(w.ctx, hook.id)).outcome)
  } else if ((TEST_TRIGGERS as readonly string[]).includes(trigger)) {
    await executionNotice(w, () => testHook(w.ctx, parent, hook.id, trigger as TestTrigger))
  } else {
    await w.flash('alert', 'Hook execution failed: Testing not available for this hook')
  }
  return w.redirect(back)
}

/** The project's hooks pages, in its settings' layout. */
function projectPlace(w: WebRequest, loaded: LoadedProject): HookPlace {
  return {
    parent: { type: 'ProjectHook', loaded },
    base: settingsPath(loaded, 'webhooks'),
    title: 'Webhooks',
    intro: WEBHOOKS_INTRO,
    hookId: w.params.id,
    logId: w.params.log_id,
    render: (w, options, body) => renderSettingsPage(w, loaded, { ...options, section: 'settings_webhooks', crumb: 'Webhooks' }, body),
  }
}

function atProject(page: (w: WebRequest, place: HookPlace) => Promise<unknown>) {
  return settingsPage((w, loaded) => page(w, projectPlace(w, loaded)))
}

export function registerWebhookSettingsPages(web: WebRouter) {
  for (const route of projectPageRoutes('/-/hooks')) {
    web.get(
      route,
      atProject((w, place) => hooksPage(w, place)),
    )
    web.post(route, atProject(createHookFromForm))
  }
  for (const route of projectPageRoutes('/-/hooks/:id/edit')) {
    web.get(
      route,
      atProject((w, place) => editHookPage(w, place)),
    )
  }
  for (const route of projectPageRoutes('/-/hooks/:id')) {
    web.put(route, atProject(updateHookFromForm))
    web.delete(route, atProject(deleteHookFromForm))
  }
  for (const route of projectPageRoutes('/-/hooks/:id/test')) web.post(route, atProject(testHookFromForm))
  for (const route of projectPageRoutes('/-/hooks/:id/hook_logs/:log_id')) web.get(route, atProject(hookEventPage))
  for (const route of projectPageRoutes('/-/hooks/:id/hook_logs/:log_id/retry')) web.post(route, atProject(retryHookEvent))
}
