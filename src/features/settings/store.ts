import { defaultSettings, settingRules, type SettingRule, type Settings } from '../../core/settings.js'
import type { Db } from '../../db/index.js'

export function listSettingRows(db: Db) {
  return db.selectFrom('application_settings').select(['name', 'value']).execute()
}

function fitsRule(value: unknown, rule: SettingRule): boolean {
  if (rule.type === 'weights') {
    return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every(Number.isSafeInteger)
  }
  if (rule.type === 'strings') return Array.isArray(value) && value.every((entry) => typeof entry === 'string')
  if (value === null) return (rule.type === 'integer' || rule.type === 'string') && rule.nullable === true
  if (rule.type === 'boolean') return typeof value === 'boolean'
  if (rule.type === 'integer') return Number.isSafeInteger(value)
  return typeof value === 'string' && (!rule.values || rule.values.includes(value))
}

function parseJson(text: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return null
  }
}

/** The stored settings over the defaults; rows of unknown names, or with values of the wrong type, are ignored. */
export async function readSettings(db: Db): Promise<Settings> {
  const settings: Record<string, unknown> = { ...defaultSettings }
  for (const row of await listSettingRows(db)) {
    if (!Object.hasOwn(settingRules, row.name)) continue
    const parsed = parseJson(row.value)
    if (parsed && fitsRule(parsed.value, settingRules[row.name as keyof Settings])) settings[row.name] = parsed.value
  }
  return settings as unknown as Settings
}

export async function upsertSettingRows(db: Db, values: Record<string, unknown>, now: string) {
  for (const [name, value] of Object.entries(values)) {
    await db
      .insertInto('application_settings')
      .values({ name, value: JSON.stringify(value), updated_at: now })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: JSON.stringify(value), updated_at: now }))
      .execute()
  }
}
