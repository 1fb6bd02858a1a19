/**
 * Outgoing webhooks: project, group and system hooks, what a change sends them (`tellWebhooks`, one of
 * change-notices' tellers), the jobs that send it, and the use cases the API and the settings pages share.
 */
import { every, handle } from '../../jobs/index.js'
import { pruneWebhookLogs, sendDueWebhooks } from './deliveries.js'
import { PruneWebhookLogs, SendWebhooks } from './jobs.js'

export { tellWebhooks, DELIVERY_ATTEMPTS, LOG_RETENTION_MS } from './deliveries.js'
export { alertStatusOf, type AlertStatus } from './auto-disabling.js'
export { isSwitchOn } from './present.js'
export {
  authorizeHooks,
  createHook,
  deleteHook,
  findHook,
  HookNotSaved,
  listHooks,
  setHookKey,
  unsetHookKey,
  updateHook,
  type HookInput,
  type HookParent,
  type KeyValue,
} from './service.js'
export { findHookEvent, listHookEvents, resendHookEvent } from './events.js'
export type { HookOutcome } from './request.js'
export { testHook, testSystemHook } from './test-hook.js'
export { canAdminGroupHooks, canAdminProjectHooks, canAdminSystemHooks, hasGroupHooks } from './policy.js'
export {
  GROUP_HOOK_SWITCHES,
  PROJECT_HOOK_SWITCHES,
  SYSTEM_HOOK_SWITCHES,
  TEST_TRIGGERS,
  type HookSwitch,
  type TestTrigger,
} from './schemas.js'

export const jobHandlers = [
  handle(SendWebhooks, (ctx) => sendDueWebhooks(ctx)),
  handle(PruneWebhookLogs, async (ctx) => void (await pruneWebhookLogs(ctx))),
]

/**
 * Every minute, whatever is due and was not sent (a delivery held by a worker that died, one whose change committed
 * after its slot's job ran) is; the logs keep two days, and an hourly prune keeps them near that.
 */
export const periodicJobs = [every(60_000, SendWebhooks, {}), every(60 * 60_000, PruneWebhookLogs, {})]
