export { NOTIFICATION_LEVELS, EMAIL_EVENTS, type NotificationLevel, type NotificationEvent } from './schemas.js'
export {
  getGlobalNotificationSetting,
  listSourceNotificationSettings,
  updateGlobalNotificationSetting,
  updateSourceNotificationSetting,
  type GlobalNotificationSetting,
  type NotificationSetting,
} from './service.js'
export type { NotificationSettingChanges } from './schemas.js'
