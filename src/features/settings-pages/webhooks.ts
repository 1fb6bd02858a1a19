import { Invalid } from '../../core/errors.js'
import type { BranchFilterStrategy, WebHookRow } from '../../db/schema.js'
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
  HookNotSaved,
  listHooks,
  PROJECT_HOOK_SWITCHES,
  TEST_TRIGGERS,
  testHook,
  updateHook,
  type HookInput,
  type HookSwitch,
  type TestTrigger,
} from '../webhooks/index.js'
import { executionNotice, hookOf, hookPath, projectHookParent, recentEvents, registerWebhookEventPages } from './webhook-events.js'
import { choice, flagChoice, formOf, isFormRefusal, renderSettingsPage, settingsPage, settingsPath, settingsSection } from './shared.js'

// Settings > Webhooks (GL Projects::HooksController with WebHooks::HookActions): a project's hooks listed, added,
// edited, tested and deleted through the webhooks feature, so the page refuses what POST /projects/:id/hooks refuses,
// each message beside its field. A hook's page lists its recent requests (see webhook-events.ts).

/** GL WebHook::SECRET_MASK: what the token field shows for a hook that has one; sent back unchanged, it keeps it. */
const SECRET_MASK = '************'

/** How many hooks the page lists (GitLab lists them all; a project has few). */
const HOOKS_LISTED = 100

/**
 * Each switch as GitLab's form names and explains it (GL integration_webhook_event_human_name and the form's help),
 * in its order; those svc has no events for say so.
 */
const SWITCHES: { name: HookSwitch; label: string; help: string; fires: boolean }[] = [
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

function hooksPath(loaded: LoadedProject): string {
  return settingsPath(loaded, 'webhooks')
}

function isOn(hook: WebHookRow, name: HookSwitch): boolean {
  return (hook as unknown as Record<string, unknown>)[name] === 1
}

function valuesOf(hook: WebHookRow): HookValues {
  return {
    url: hook.url,
    name: hook.name ?? '',
    description: hook.description ?? '',
    token: hook.token ? SECRET_MASK : '',
    switches: Object.fromEntries(PROJECT_HOOK_SWITCHES.map((name) => [name, isOn(hook, name)])),
    strategy: hook.branch_filter_strategy,
    branchFilter: hook.push_events_branch_filter ?? '',
    template: hook.custom_webhook_template ?? '',
    sslVerification: hook.enable_ssl_verification === 1,
  }
}

/** A new hook's form: GitLab ticks push events and SSL verification. */
const NEW_HOOK: HookValues = {
  url: '',
  name: '',
  description: '',
  token: '',
  switches: { push_events: true },
  strategy: 'all_branches',
  branchFilter: '',
  template: '',
  sslVerification: true,
}

/** The form's fields as typed (`hook[...]`); a switch is on when its last value is "1", as Rails' check_box sends it. */
function typedValues(w: WebRequest): HookValues {
  const form = formOf(w, 'hook')
  const text = (name: string) => fieldText(form, name)
  const flag = (name: string) => lastTextOf(form[name]) === '1'
  const strategy = STRATEGIES.find((s) => s.value === text('branch_filter_strategy'))?.value ?? 'all_branches'
  return {
    url: text('url'),
    name: text('name'),
    description: text('description'),
    token: text('token'),
    switches: Object.fromEntries(PROJECT_HOOK_SWITCHES.map((name) => [name, flag(name)])),
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
  loaded: LoadedProject,
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
        ${SWITCHES.map((entry) =>
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
function testMenu(loaded: LoadedProject, hook: WebHookRow, token: string, from: 'index' | 'edit'): Html {
  return html`<details class="menu test-hook">
    <summary class="button small">Test</summary>
    <form method="post" action="${hookPath(loaded, hook, '/test')}" class="menu-items">
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

function hookRow(w: WebRequest, loaded: LoadedProject, hook: WebHookRow, token: string): Html {
  const on = ['push_events', ...SWITCHES.map((entry) => entry.name)].filter((name) => isOn(hook, name as HookSwitch))
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
      ${testMenu(loaded, hook, token, 'index')}
      <a class="button small" href="${hookPath(loaded, hook, '/edit')}" aria-label="Edit ${hook.url}">Edit</a>
      ${confirmedAction({
        label: 'Delete',
        question: 'Are you sure you want to delete this webhook?',
        action: hookPath(loaded, hook),
        method: 'delete',
        csrfToken: token,
      })}
    </div>
  </li>`
}

/** GET /-/hooks: the hooks and the form to add one (open, with what was typed, when it was refused). */
async function hooksPage(w: WebRequest, loaded: LoadedProject, typed: HookValues | null = null, refusal: Refusal | null = null) {
  const token = await w.csrfToken()
  const hooks = await listHooks(w.ctx, projectHookParent(loaded), 1, HOOKS_LISTED)
  const form = hookForm(loaded, token, { action: hooksPath(loaded), method: 'post', submit: 'Add webhook' }, typed ?? NEW_HOOK, refusal)
  const list =
    hooks.rows.length === 0
      ? html`<div class="empty-state"><p>No webhooks enabled. Select trigger events above.</p></div>`
      : html`<ul class="hook-list">
          ${hooks.rows.map((hook) => hookRow(w, loaded, hook, token))}
        </ul>`
  const body = html`<h1>Webhooks</h1>
    <p class="help">
      Webhooks send notifications to web applications in response to events in a group or project. Each request carries GitLab's
      body and headers.
    </p>
    <details class="add-webhook" ${typed ? html`open` : ''}>
      <summary class="button primary">Add new webhook</summary>
      ${settingsSection('new-webhook', 'Add new webhook', '', form)}
    </details>
    ${settingsSection('webhooks-index', `Webhooks (${hooks.rows.length})`, '', list)}`
  return renderSettingsPage(
    w,
    loaded,
    { title: 'Webhooks', section: 'settings_webhooks', crumb: 'Webhooks', refused: refusal !== null },
    body,
  )
}

/** GET /-/hooks/:id/edit: the form and the hook's recent requests. */
async function editPage(w: WebRequest, loaded: LoadedProject, typed: HookValues | null = null, refusal: Refusal | null = null) {
  const hook = await hookOf(w, loaded)
  if (!hook) return w.notFound()
  const token = await w.csrfToken()
  const form = hookForm(
    loaded,
    token,
    { action: hookPath(loaded, hook), method: 'put', submit: 'Save changes' },
    typed ?? valuesOf(hook),
    refusal,
  )
  const secrets = [...Object.keys(JSON.parse(hook.url_variables) as object), ...Object.keys(JSON.parse(hook.custom_headers) as object)]
  const body = html`<div class="header-row">
      <h1>Edit webhook</h1>
      <div class="actions">${testMenu(loaded, hook, token, 'edit')}</div>
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
    ${await recentEvents(w, loaded, hook)}
    <div class="button-row">
      ${confirmedAction({
        label: 'Delete webhook',
        question: 'Are you sure you want to delete this webhook?',
        action: hookPath(loaded, hook),
        method: 'delete',
        csrfToken: token,
      })}
    </div>`
  return renderSettingsPage(
    w,
    loaded,
    { title: 'Edit webhook', section: 'settings_webhooks', crumb: 'Webhooks', refused: refusal !== null },
    body,
  )
}

/** A refusal the form shows: each of the hook's errors beside its field, anything else above the form. */
function hookRefusal(error: unknown): Refusal | null {
  if (error instanceof HookNotSaved) return refusalOf(new Invalid(error.errors), ATTRIBUTES)
  return isFormRefusal(error) ? refusalOf(error) : null
}

/** POST /-/hooks (GL HookActions#create). */
async function create(w: WebRequest, loaded: LoadedProject) {
  const values = typedValues(w)
  try {
    await createHook(w.ctx, projectHookParent(loaded), inputOf(values))
  } catch (error) {
    const refusal = hookRefusal(error)
    if (refusal) return hooksPage(w, loaded, values, refusal)
    throw error
  }
  await w.flash('notice', 'Webhook was created')
  return w.redirect(hooksPath(loaded))
}

/** PUT /-/hooks/:id (GL HookActions#update). */
async function update(w: WebRequest, loaded: LoadedProject) {
  const hook = await hookOf(w, loaded)
  if (!hook) return w.notFound()
  const values = typedValues(w)
  try {
    await updateHook(w.ctx, projectHookParent(loaded), hook.id, inputOf(values))
  } catch (error) {
    const refusal = hookRefusal(error)
    if (refusal) return editPage(w, loaded, values, refusal)
    throw error
  }
  await w.flash('notice', 'Webhook was updated')
  return w.redirect(hookPath(loaded, hook, '/edit'))
}

/** DELETE /-/hooks/:id (GL HookActions#destroy). */
async function destroy(w: WebRequest, loaded: LoadedProject) {
  const hook = await hookOf(w, loaded)
  if (!hook) return w.notFound()
  await deleteHook(w.ctx, projectHookParent(loaded), hook.id, null)
  await w.flash('notice', 'Webhook was deleted')
  return w.redirect(hooksPath(loaded))
}

/** POST /-/hooks/:id/test?trigger= (GL Projects::HooksController#test): what came back, at the top of the page it came from. */
async function test(w: WebRequest, loaded: LoadedProject) {
  const hook = await hookOf(w, loaded)
  if (!hook) return w.notFound()
  const trigger = String(w.params.trigger ?? 'push_events')
  const back = w.params.from === 'edit' ? hookPath(loaded, hook, '/edit') : hooksPath(loaded)
  if (!(TEST_TRIGGERS as readonly string[]).includes(trigger)) {
    await w.flash('alert', 'Hook execution failed: Testing not available for this hook')
    return w.redirect(back)
  }
  await executionNotice(w, () => testHook(w.ctx, projectHookParent(loaded), hook.id, trigger as TestTrigger))
  return w.redirect(back)
}

export function registerWebhookSettingsPages(web: WebRouter) {
  for (const route of projectPageRoutes('/-/hooks')) {
    web.get(
      route,
      settingsPage((w, loaded) => hooksPage(w, loaded)),
    )
    web.post(route, settingsPage(create))
  }
  for (const route of projectPageRoutes('/-/hooks/:id/edit')) {
    web.get(
      route,
      settingsPage((w, loaded) => editPage(w, loaded)),
    )
  }
  for (const route of projectPageRoutes('/-/hooks/:id')) {
    web.put(route, settingsPage(update))
    web.delete(route, settingsPage(destroy))
  }
  for (const route of projectPageRoutes('/-/hooks/:id/test')) web.post(route, settingsPage(test))
  registerWebhookEventPages(web)
}
