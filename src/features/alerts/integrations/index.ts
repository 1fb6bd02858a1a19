export { findActiveIntegration } from './store.js'
export { integrationUrl, LEGACY_IDENTIFIER, PROMETHEUS_IDENTIFIER } from './urls.js'
export { canAdminOperations, canSendTestAlert } from './policy.js'
export {
  allIntegrations,
  createIntegration,
  customMappingAvailable,
  deleteIntegration,
  resetIntegrationToken,
  testableIntegrations,
  updateIntegration,
} from './service.js'
export { INTEGRATION_TYPES, type IntegrationType } from './schemas.js'
