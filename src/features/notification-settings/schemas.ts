import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Nullable } from '../../http/schema.js'

/** GitLab's enum values (app/models/notification_setting.rb), as stored. */
export const NOTIFICATION_LEVELS = { disabled: 0, participating: 1, watch: 2, global: 3, mention: 4, custom: 5 } as const
export type NotificationLevel = keyof typeof NOTIFICATION_LEVELS

/**
 * NotificationSetting::EMAIL_EVENTS in GitLab's order: the contract's list plus new_release and
 * change_reviewer_merge_request (spec/README.md, decided difference).
 */
export const EMAIL_EVENTS = [
  'new_release',
  'new_note',
  'new_issue',
  'reopen_issue',
  'close_issue',
  'reassign_issue',
  'issue_due',
  'new_merge_request',
  'push_to_merge_request',
  'reopen_merge_request',
  'close_merge_request',
  'reassign_merge_request',
  'change_reviewer_merge_request',
  'merge_merge_request',
  'failed_pipeline',
  'fixed_pipeline',
  'success_pipeline',
  'moved_project',
  'merge_when_pipeline_succeeds',
] as const

/** EE's extra event (ee/app/models/ee/notification_setting.rb): global and group settings, Ultimate only (spec: Notification settings). */
export const EPIC_EVENT = 'new_epic'

export type NotificationEvent = (typeof EMAIL_EVENTS)[number] | typeof EPIC_EVENT

const ALL_EVENTS: readonly NotificationEvent[] = [...EMAIL_EVENTS, EPIC_EVENT]

function eachEvent(schema: () => TSchema): Record<string, TSchema> {
  return Object.fromEntries(ALL_EVENTS.map((event) => [event, schema()]))
}

/** Every event is listed; new_epic is left out of the object when it does not apply, and the serializer then omits it. */
export const NotificationEventsJson = Type.Object(eachEvent(() => Type.Optional(Nullable(Type.Boolean()))))

/** Entities::NotificationSetting: `events` only when the level is custom. */
export const NotificationSettingJson = Type.Object({
  level: Type.String(),
  events: Type.Optional(NotificationEventsJson),
})

/** Entities::GlobalNotificationSetting. */
export const GlobalNotificationSettingJson = Type.Object({
  level: Type.String(),
  events: Type.Optional(NotificationEventsJson),
  notification_email: Type.String(),
})

export type NotificationSettingJson = Static<typeof NotificationSettingJson>
export type GlobalNotificationSettingJson = Static<typeof GlobalNotificationSettingJson>

const eventParams = eachEvent(() => Type.Optional(Type.Boolean()))

/** `level` is a plain Grape String: an unknown value is the model's 400 (lib/api/notification_settings.rb). */
export const UpdateGlobalParams = Type.Object({
  level: Type.Optional(Type.String()),
  notification_email: Type.Optional(Type.String()),
  ...eventParams,
})

export const SourceParams = Type.Object({ id: Type.String() })

export const UpdateSourceParams = Type.Object({
  id: Type.String(),
  level: Type.Optional(Type.String()),
  ...eventParams,
})

/** What a PUT changes; absent keys stay as they are. */
export interface NotificationSettingChanges {
  level?: string
  events: Partial<Record<NotificationEvent, boolean>>
}

export interface GlobalNotificationSettingChanges extends NotificationSettingChanges {
  notificationEmail?: string
}
