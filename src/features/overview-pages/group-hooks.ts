import type { LoadedGroup } from '../access/index.js'
import type { WebRequest } from '../sessions/index.js'
import {
  createHookFromForm,
  deleteHookFromForm,
  editHookPage,
  hookEventPage,
  hooksPage,
  retryHookEvent,
  testHookFromForm,
  updateHookFromForm,
  type HookPlace,
  WEBHOOKS_INTRO,
} from '../settings-pages/index.js'
import { canAdminGroupHooks } from '../webhooks/index.js'
import { groupCrumbs, groupPath, groupSidebar } from './group-frame.js'

// A group's Settings > Webhooks (GL Groups::HooksController and Groups::HookLogsController, Premium and up): the
// project's webhooks pages, for the group's hooks, in the group's layout.

/** `hooks`, `hooks/<id>`, `hooks/<id>/<action>` and `hooks/<id>/hook_logs/<log id>[/retry]` of `/groups/<path>/-/…`. */
const HOOK_PAGE = /^hooks(?:\/(\d{1,15})(?:\/(edit|test)|\/hook_logs\/(\d{1,15})(\/retry)?)?)?$/

type HookPage = 'list' | 'hook' | 'edit' | 'test' | 'log' | 'retry'

type PageAction = (w: WebRequest, place: HookPlace) => Promise<unknown>

const ACTIONS: Record<'GET' | 'POST' | 'PUT' | 'DELETE', Partial<Record<HookPage, PageAction>>> = {
  GET: { list: (w, place) => hooksPage(w, place), edit: (w, place) => editHookPage(w, place), log: hookEventPage },
  POST: { list: createHookFromForm, test: testHookFromForm, retry: retryHookEvent },
  PUT: { hook: updateHookFromForm },
  DELETE: { hook: deleteHookFromForm },
}

function groupPlace(loaded: LoadedGroup, hookId: string | undefined, logId: string | undefined): HookPlace {
  return {
    parent: { type: 'GroupHook', loaded },
    base: `${groupPath(loaded.group)}/-/hooks`,
    title: 'Webhooks',
    intro: WEBHOOKS_INTRO,
    hookId,
    logId,
    render: (w, options, body) =>
      w.render(
        {
          title: `${options.title} · ${loaded.group.full_name}`,
          sidebar: groupSidebar(loaded, 'webhooks'),
          breadcrumbs: [...groupCrumbs(loaded), { text: 'Webhooks' }],
        },
        body,
        options.refused ? 422 : 200,
      ),
  }
}

/**
 * The hooks page a group URL's page and method name: whether the caller may use it (GL `admin_web_hook`: Owners, on
 * Premium and up; and the method has a page there) and what answers it; undefined when it is not a hooks page.
 */
export function groupHookPage(
  loaded: LoadedGroup,
  page: string | undefined,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
): { allowed: boolean; answer: (w: WebRequest) => Promise<unknown> } | undefined {
  const match = HOOK_PAGE.exec(page ?? '')
  if (!match) return undefined
  const [, hookId, action, logId, retry] = match
  const which: HookPage = logId ? (retry ? 'retry' : 'log') : action ? (action as 'edit' | 'test') : hookId ? 'hook' : 'list'
  const run = ACTIONS[method][which]
  return {
    allowed: run !== undefined && canAdminGroupHooks(loaded.access),
    answer: (w) => run!(w, groupPlace(loaded, hookId, logId)),
  }
}
