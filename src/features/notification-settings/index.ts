export { NOTIFICATION_LEVELS, EMAIL_EVENTS, type NotificationLevel, type NotificationEvent } from './schemas.js'
