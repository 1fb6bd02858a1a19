import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { NoteJson } from '../notes/index.js'
import { UserBasicJson } from '../users/index.js'
import { EventAction } from '../../core/event-actions.js'

/** The `target_type` filter's keys (GL Event::TARGET_TYPES). */
export const TARGET_TYPE_KEYS = ['issue', 'milestone', 'merge_request', 'note', 'project', 'snippet', 'user', 'wiki', 'design'] as const
export type TargetTypeKey = (typeof TARGET_TYPE_KEYS)[number]

const literals = (values: readonly string[]) => Type.Union(values.map((value) => Type.Literal(value)))

// GL EventsHelpers `event_filter_params` and `sort_params`.
const eventFilters = {
  action: Type.Optional(literals(Object.keys(EventAction))),
  target_type: Type.Optional(literals(TARGET_TYPE_KEYS)),
  before: Type.Optional(Type.String({ format: 'date' })),
  after: Type.Optional(Type.String({ format: 'date' })),
  sort: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }),
  ...paginationParams,
}

export const ListOwnEventsParams = Type.Object({ scope: Type.Optional(Type.String()), ...eventFilters })
export type ListOwnEventsParams = Static<typeof ListOwnEventsParams>

export const ListUserEventsParams = Type.Object({ id: Type.String(), ...eventFilters })
export type ListUserEventsParams = Static<typeof ListUserEventsParams>

export const ListProjectEventsParams = Type.Object({
  id: Type.String(),
  ...eventFilters,
  // Keyset pages by id, beside GitLab's offset pages.
  pagination: Type.Optional(Type.Union([Type.Literal('offset'), Type.Literal('keyset')])),
  cursor: Type.Optional(Type.String()),
})
export type ListProjectEventsParams = Static<typeof ListProjectEventsParams>

const NullableInteger = Type.Union([Type.Integer(), Type.Null()])
const NullableString = Type.Union([Type.String(), Type.Null()])

/**
 * GL API::Entities::Event, with the contract's `title` (always null) and, in project lists, `data` (null) on note
 * events (spec § Contribution event), placed where GitLab's documented responses show them.
 */
export const EventJson = Type.Object({
  id: Type.Integer(),
  title: Type.Null(),
  project_id: NullableInteger,
  action_name: Type.String(),
  target_id: NullableInteger,
  target_iid: NullableInteger,
  target_type: NullableString,
  author_id: Type.Integer(),
  data: Type.Optional(Type.Null()),
  target_title: NullableString,
  created_at: Type.String(),
  note: Type.Optional(NoteJson),
  author: Type.Optional(UserBasicJson),
  push_data: Type.Optional(
    Type.Object({
      commit_count: Type.Integer(),
      action: Type.String(),
      ref_type: Type.String(),
      commit_from: NullableString,
      commit_to: NullableString,
      ref: Type.String(),
      commit_title: NullableString,
      ref_count: NullableInteger,
    }),
  ),
  imported: Type.Boolean(),
  imported_from: Type.String(),
  author_username: NullableString,
})
export type EventJson = Static<typeof EventJson>

export const EventListResponse = Type.Array(EventJson)
