import type { ApiRouter } from '../../http/route.js'

export function registerNotificationSettingRoutes(api: ApiRouter) {
  void api
}
