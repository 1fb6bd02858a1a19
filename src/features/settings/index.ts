// The instance settings, read and changed as GET and PUT /application/settings do (the admin area's forms use them).
export { getSettings, updateSettings } from './service.js'
export type { SettingsCache } from './cache.js'
export type { UpdateSettingsInput } from './schemas.js'
