import type { WebRouter } from '../sessions/index.js'
import { registerAccessTokenSettingsPages } from './access-tokens.js'
import { registerGeneralSettingsPages } from './general.js'
import { registerMemberPages } from './members.js'
import { registerMergeRequestSettingsPages } from './merge-requests.js'
import { registerRepositorySettingsPages } from './repository.js'
import { registerWebhookSettingsPages } from './webhooks.js'

/** A project's settings pages (GL Projects::Settings and ProjectsController#edit), at GitLab's URLs. */
export function registerSettingsPages(web: WebRouter) {
  registerGeneralSettingsPages(web)
  registerWebhookSettingsPages(web)
  registerRepositorySettingsPages(web)
  registerMergeRequestSettingsPages(web)
  registerAccessTokenSettingsPages(web)
  registerMemberPages(web)
}

// The settings pages' form parts, for the group settings pages to look and read forms the same way.
export { formOf, givenText, settingsSection, visibilityChoices, visibilityOfField } from './shared.js'
// The members page's table, invitation form and actions, which a group's members page shares.
export {
  changeMemberFromForm,
  inviteForm,
  inviteMemberFromForm,
  listedMembers,
  membersTable,
  removeMemberFromForm,
  type MembersView,
  type Refused as RefusedMemberForm,
} from './members.js'
// The webhooks pages, which a group's webhooks pages and the admin area's system hooks share.
export {
  createHookFromForm,
  deleteHookFromForm,
  editHookPage,
  hooksPage,
  testHookFromForm,
  updateHookFromForm,
  WEBHOOKS_INTRO,
} from './webhooks.js'
export { hookEventPage, retryHookEvent, type HookPlace } from './webhook-events.js'
