import { Type, type Static } from '@sinclair/typebox'
import { Nullable } from '../../http/schema.js'

// What issues and merge requests share on the wire (GL lib/api/issues.rb, merge_requests.rb, entities/*).

/** `labels=a,b` or `labels[]=a&labels[]=b` (Grape's CommaSeparatedToArray). */
export const LabelListParam = Type.Array(Type.String(), { commaSeparated: true })

/** Integers, or a comma-separated list of them (`assignee_ids`). */
export const IdListParam = Type.Array(Type.Integer({ minimum: 0 }), { commaSeparated: true })

/** `assignee_id` filters: a user id, or `None` / `Any` (any case, as IssuableFinder compares downcased). */
export const UserFilterParam = Type.String()

/** The filters both issue and merge request lists read (GL IssuableFinder params). */
export const issuableFilterParams = {
  labels: Type.Optional(LabelListParam),
  milestone: Type.Optional(Type.String()),
  iids: Type.Optional(Type.Array(Type.Integer())),
  search: Type.Optional(Type.String()),
  in: Type.Optional(Type.String()),
  author_id: Type.Optional(Type.Integer()),
  author_username: Type.Optional(Type.String()),
  assignee_id: Type.Optional(UserFilterParam),
  assignee_username: Type.Optional(Type.Array(Type.String(), { commaSeparated: true })),
  created_after: Type.Optional(Type.String({ format: 'date-time' })),
  created_before: Type.Optional(Type.String({ format: 'date-time' })),
  updated_after: Type.Optional(Type.String({ format: 'date-time' })),
  updated_before: Type.Optional(Type.String({ format: 'date-time' })),
  scope: Type.Optional(
    Type.Union(['created-by-me', 'assigned-to-me', 'created_by_me', 'assigned_to_me', 'all'].map((v) => Type.Literal(v))),
  ),
  with_labels_details: Type.Boolean({ default: false }),
}
export const IssuableFilterParams = Type.Object(issuableFilterParams)
export type IssuableFilterParams = Static<typeof IssuableFilterParams>

/** GL Entities::LabelBasic, for `with_labels_details=true`. */
export const LabelBasicJson = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  color: Type.String(),
  description: Nullable(Type.String()),
  description_html: Type.String(),
  text_color: Type.String(),
})
export type LabelBasicJson = Static<typeof LabelBasicJson>

/** GL Entities::IssuableTimeStats. */
export const TimeStatsJson = Type.Object({
  time_estimate: Type.Integer(),
  total_time_spent: Type.Integer(),
  human_time_estimate: Nullable(Type.String()),
  human_total_time_spent: Nullable(Type.String()),
})

export const TaskCompletionJson = Type.Object({ count: Type.Integer(), completed_count: Type.Integer() })

/** GL Entities::IssuableReferences. */
export const ReferencesJson = Type.Object({ short: Type.String(), relative: Type.String(), full: Type.String() })

/** Labels as titles, or as LabelBasic objects with `with_labels_details`. */
export const LabelsJson = Type.Union([Type.Array(Type.String()), Type.Array(LabelBasicJson)])
