import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox'
import { Nullable } from '../../http/schema.js'
import { ParamError } from '../../core/errors.js'
import { SETTING_NAMES, settingRules, type SettingRule, type Settings } from '../../core/settings.js'

/** Old names of password_authentication_enabled_for_web, still read and written by GitLab (lib/api/settings.rb). */
export const LEGACY_PASSWORD_NAMES = ['password_authentication_enabled', 'signin_enabled'] as const

function nullable(schema: TSchema, rule: SettingRule): TSchema {
  return (rule.type === 'integer' || rule.type === 'string') && rule.nullable ? Nullable(schema) : schema
}

/** Grape param type of a setting: integers and booleans coerced; bounds are model validations, checked later. */
function paramSchema(rule: SettingRule): TSchema {
  if (rule.type === 'boolean') return Type.Boolean()
  // Any hash; its values are coerced and checked by the service (GL HashOfIntegerValues).
  if (rule.type === 'weights') return Type.Object({}, { additionalProperties: Type.Unknown() })
  // An array or one comma-separated string, split by the service; null reaches the model, which refuses it.
  if (rule.type === 'strings') return Type.Union([Type.Array(Type.String()), Type.String(), Type.Null()])
  if (rule.type === 'integer') return nullable(Type.Integer(), rule)
  if (rule.values) return nullable(Type.Union(rule.values.map((value) => Type.Literal(value))), rule)
  return nullable(Type.String(), rule)
}

function valueSchema(rule: SettingRule): TSchema {
  if (rule.type === 'boolean') return Type.Boolean()
  if (rule.type === 'weights') return Type.Object({}, { additionalProperties: Type.Integer() })
  if (rule.type === 'strings') return Type.Array(Type.String())
  if (rule.type === 'integer') return nullable(Type.Integer(), rule)
  return nullable(Type.String(), rule)
}

function settingsObject(schemaOf: (rule: SettingRule) => TSchema): Record<string, TSchema> {
  return Object.fromEntries(SETTING_NAMES.map((name) => [name, schemaOf(settingRules[name])]))
}

/** PUT params: every setting, all optional, plus the legacy names. */
export const UpdateSettingsParams = Type.Object({
  ...settingsObject((rule) => Type.Optional(paramSchema(rule))),
  password_authentication_enabled: Type.Optional(Type.Boolean()),
  signin_enabled: Type.Optional(Type.Boolean()),
}) as TObject<Record<string, TSchema>>

export type UpdateSettingsInput = Partial<Settings> & { password_authentication_enabled?: boolean; signin_enabled?: boolean }

/** GitLab's ApplicationSetting entity: `id` first, the settings, then the legacy aliases. */
export const SettingsJson = Type.Object({
  id: Type.Integer(),
  ...settingsObject(valueSchema),
  password_authentication_enabled: Type.Boolean(),
  signin_enabled: Type.Boolean(),
})

export type SettingsJson = Static<typeof SettingsJson>

const PARAM_NAMES: readonly string[] = [...SETTING_NAMES, ...LEGACY_PASSWORD_NAMES]
const EXCLUSIVE_NAMES = ['password_authentication_enabled_for_web', ...LEGACY_PASSWORD_NAMES]

/**
 * The PUT's param groups, judged like Grape on which keys were sent: the new and legacy password names
 * are mutually exclusive, and at least one setting must be given (GL lib/api/settings.rb).
 */
export function checkSettingsParamGroups(raw: Record<string, unknown>) {
  const exclusive = EXCLUSIVE_NAMES.filter((name) => Object.hasOwn(raw, name))
  if (exclusive.length > 1) throw new ParamError(`${exclusive.join(', ')} are mutually exclusive`)
  if (!PARAM_NAMES.some((name) => Object.hasOwn(raw, name))) {
    throw new ParamError(`${PARAM_NAMES.join(', ')} are missing, at least one parameter must be provided`)
  }
}
