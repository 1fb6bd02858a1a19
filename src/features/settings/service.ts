import type { Context } from '../../core/context.js'
import { Invalid } from '../../core/errors.js'
import {
  SETTING_NAMES,
  settingRules,
  settingsRecordErrors,
  storageWeightsOf,
  stringListOf,
  weightsOfEveryStorage,
  type SettingRule,
  type Settings,
} from '../../core/settings.js'
import { isoTimestamp } from '../../core/time.js'
import type { SettingsCache } from './cache.js'
import { authorizeAdmin } from '../../core/caller.js'
import type { UpdateSettingsInput } from './schemas.js'
import { readSettings, upsertSettingRows } from './store.js'

/** GitLab's ActiveRecord message for a value outside a setting's bounds, or null when it fits. */
function violation(value: unknown, rule: SettingRule): string | null {
  if (value === null || rule.type === 'boolean' || rule.type === 'weights' || rule.type === 'strings') return null
  if (rule.type === 'integer' && typeof value === 'number') {
    if (rule.greaterThan !== undefined && !(value > rule.greaterThan)) return `must be greater than ${rule.greaterThan}`
    if (rule.greaterThanOrEqualTo !== undefined && value < rule.greaterThanOrEqualTo) {
      return `must be greater than or equal to ${rule.greaterThanOrEqualTo}`
    }
    if (rule.lessThanOrEqualTo !== undefined && value > rule.lessThanOrEqualTo)
      return `must be less than or equal to ${rule.lessThanOrEqualTo}`
  }
  if (rule.type === 'string' && typeof value === 'string' && rule.maxLength !== undefined && [...value].length > rule.maxLength) {
    return `is too long (maximum is ${rule.maxLength} characters)`
  }
  if (rule.type === 'string' && typeof value === 'string' && rule.check) return rule.check(value)
  return null
}

/** The settings an update sets, with the legacy password names folded into the current one. */
function changesOf(input: UpdateSettingsInput): Partial<Settings> {
  const changes: Record<string, unknown> = {}
  for (const name of SETTING_NAMES) if (input[name] !== undefined) changes[name] = input[name]
  const legacy = input.signin_enabled ?? input.password_authentication_enabled
  if (legacy !== undefined) changes.password_authentication_enabled_for_web = legacy
  return changes as Partial<Settings>
}

/** The settings as stored, read past this node's cache as GitLab's API does (current_without_cache). */
export async function getSettings(ctx: Context): Promise<Settings> {
  authorizeAdmin(ctx.caller)
  return shown(ctx, await readSettings(ctx.db))
}

/** Storage weights list every configured storage and only those (GL `repository_storages_with_default_weight`). */
function shown(ctx: Context, settings: Settings): Settings {
  const storages = Object.keys(ctx.config.storages)
  return { ...settings, repository_storages_weighted: weightsOfEveryStorage(settings.repository_storages_weighted, storages) }
}

/** Validates every given setting, writes them in one transaction, then makes every node drop its copy. */
export async function updateSettings(ctx: Context, cache: SettingsCache, input: UpdateSettingsInput): Promise<Settings> {
  authorizeAdmin(ctx.caller)
  const changes = changesOf(input)
  const errors: Record<string, string[]> = {}
  for (const [name, value] of Object.entries(changes)) {
    const rule = settingRules[name as keyof Settings]
    if (rule.type === 'strings') {
      const entries = stringListOf(value)
      const messages = rule.check(entries)
      if (messages.length > 0) errors[name] = messages
      // Stored as the split list, as GitLab stores what CommaSeparatedToArray made of the param.
      Object.assign(changes, { [name]: entries })
      continue
    }
    const message = violation(value, rule)
    if (message) errors[name] = [message]
  }
  if (changes.repository_storages_weighted !== undefined) {
    const { weights, errors: messages } = storageWeightsOf(changes.repository_storages_weighted, Object.keys(ctx.config.storages))
    if (messages.length > 0) errors.repository_storages_weighted = messages
    changes.repository_storages_weighted = weights
  }
  const recordErrors = settingsRecordErrors({ ...(await readSettings(ctx.db)), ...changes })
  for (const [name, messages] of Object.entries(recordErrors)) errors[name] ??= messages
  if (Object.keys(errors).length > 0) throw new Invalid(errors)
  const settings = await ctx.db.transaction().execute(async (trx) => {
    await upsertSettingRows(trx, changes, isoTimestamp(ctx.now()))
    return readSettings(trx)
  })
  await cache.announceChange()
  return shown(ctx, settings)
}
