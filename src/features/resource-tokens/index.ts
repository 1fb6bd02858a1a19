/** Project and group access tokens, for the settings pages: the API's own use cases, rules and wording. */
export {
  createResourceToken,
  findTokenResource,
  listResourceTokens,
  revokeResourceToken,
  showResourceToken,
  type ResourceToken,
  type TokenResource,
} from './service.js'
