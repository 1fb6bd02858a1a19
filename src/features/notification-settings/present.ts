import type { GlobalNotificationSettingJson, NotificationSettingJson } from './schemas.js'
import type { GlobalNotificationSetting, NotificationSetting } from './service.js'

/** Entities::NotificationSetting: the stored value of every event of the source, only at level custom. */
export function presentNotificationSetting(setting: NotificationSetting): NotificationSettingJson {
  const json: NotificationSettingJson = { level: setting.level }
  if (setting.level === 'custom') json.events = Object.fromEntries(setting.events)
  return json
}

export function presentGlobalNotificationSetting(setting: GlobalNotificationSetting): GlobalNotificationSettingJson {
  return { ...presentNotificationSetting(setting), notification_email: setting.notificationEmail }
}
