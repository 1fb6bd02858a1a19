// What other features may use of error tracking.
export { trackerDsn } from './settings.js'
export { errorTrackingSection, updateErrorTrackingFromForm, type ErrorTrackingRefusal } from './settings-page.js'
