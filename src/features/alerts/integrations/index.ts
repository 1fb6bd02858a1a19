export { findActiveIntegration } from './store.js'
export { integrationUrl, LEGACY_IDENTIFIER, PROMETHEUS_IDENTIFIER } from './urls.js'
