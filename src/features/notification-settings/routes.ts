import type { ApiRouter } from '../../http/route.js'
import { presentGlobalNotificationSetting, presentNotificationSetting } from './present.js'
import {
  EMAIL_EVENTS,
  EPIC_EVENT,
  GlobalNotificationSettingJson,
  NotificationSettingJson,
  SourceParams,
  UpdateGlobalParams,
  UpdateSourceParams,
  type NotificationEvent,
  type NotificationSettingChanges,
} from './schemas.js'
import {
  getGlobalNotificationSetting,
  getSourceNotificationSetting,
  updateGlobalNotificationSetting,
  updateSourceNotificationSetting,
} from './service.js'

const EVENT_NAMES: readonly NotificationEvent[] = [...EMAIL_EVENTS, EPIC_EVENT]

function changesOf(input: Record<string, unknown>): NotificationSettingChanges {
  const events: NotificationSettingChanges['events'] = {}
  for (const event of EVENT_NAMES) if (typeof input[event] === 'boolean') events[event] = input[event]
  return { level: typeof input.level === 'string' ? input.level : undefined, events }
}

/** GL lib/api/notification_settings.rb: every route needs a signed-in user. */
export function registerNotificationSettingRoutes(api: ApiRouter) {
  api.get('/notification_settings', { response: { 200: GlobalNotificationSettingJson } }, async (request) => {
    return presentGlobalNotificationSetting(await getGlobalNotificationSetting(request.ctx))
  })

  api.put('/notification_settings', { params: UpdateGlobalParams, response: { 200: GlobalNotificationSettingJson } }, async (request) => {
    const changes = { ...changesOf(request.input), notificationEmail: request.input.notification_email }
    return presentGlobalNotificationSetting(await updateGlobalNotificationSetting(request.ctx, changes))
  })

  for (const [path, kind] of [
    ['groups', 'group'],
    ['projects', 'project'],
  ] as const) {
    api.get(`/${path}/:id/notification_settings`, { params: SourceParams, response: { 200: NotificationSettingJson } }, async (request) => {
      return presentNotificationSetting(await getSourceNotificationSetting(request.ctx, kind, request.input.id))
    })

    api.put(
      `/${path}/:id/notification_settings`,
      { params: UpdateSourceParams, response: { 200: NotificationSettingJson } },
      async (request) => {
        const changes = changesOf(request.input)
        return presentNotificationSetting(await updateSourceNotificationSetting(request.ctx, kind, request.input.id, changes))
      },
    )
  }
}
