import type { WebRequest, WebRouter } from '../sessions/index.js'
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
} from '../settings-pages/index.js'
import { adminPage, renderAdminPage } from './layout.js'

// System hooks (GL Admin::HooksController and Admin::HookLogsController): the project's webhooks pages, for the
// instance's system hooks, in the admin area.

const HOOKS_PATH = '/admin/hooks'

function systemPlace(w: WebRequest): HookPlace {
  return {
    parent: { type: 'SystemHook' },
    base: HOOKS_PATH,
    title: 'System hooks',
    intro:
      'System hooks are called on events of the whole instance: projects, groups, users and memberships made, renamed or removed, and, as their switches say, pushes, tag pushes, merge requests and repository updates.',
    hookId: w.params.id,
    logId: w.params.log_id,
    render: (w, options, body) =>
      renderAdminPage(
        w,
        {
          title: options.title,
          section: 'hooks',
          crumbs: [{ text: 'System hooks', href: HOOKS_PATH }],
          status: options.refused ? 422 : 200,
        },
        body,
      ),
  }
}

function atSystem(page: (w: WebRequest, place: HookPlace) => Promise<unknown>) {
  return adminPage((w) => page(w, systemPlace(w)))
}

export function registerAdminHookPages(web: WebRouter) {
  web.get(
    HOOKS_PATH,
    atSystem((w, place) => hooksPage(w, place)),
  )
  web.post(HOOKS_PATH, atSystem(createHookFromForm))
  web.get(
    `${HOOKS_PATH}/:id/edit`,
    atSystem((w, place) => editHookPage(w, place)),
  )
  web.put(`${HOOKS_PATH}/:id`, atSystem(updateHookFromForm))
  web.delete(`${HOOKS_PATH}/:id`, atSystem(deleteHookFromForm))
  web.post(`${HOOKS_PATH}/:id/test`, atSystem(testHookFromForm))
  web.get(`${HOOKS_PATH}/:id/hook_logs/:log_id`, atSystem(hookEventPage))
  web.post(`${HOOKS_PATH}/:id/hook_logs/:log_id/retry`, atSystem(retryHookEvent))
}
