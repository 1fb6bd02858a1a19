// What other features may use of error tracking.
export { trackerDsn } from './settings.js'
