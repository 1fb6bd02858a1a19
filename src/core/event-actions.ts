/** Event actions and their stored numbers (GitLab Event::ACTIONS). */
export const EventAction = {
  created: 1,
  updated: 2,
  closed: 3,
  reopened: 4,
  pushed: 5,
  commented: 6,
  merged: 7,
  joined: 8,
  left: 9,
  destroyed: 10,
  expired: 11,
  approved: 12,
} as const
export type EventActionName = keyof typeof EventAction

/** Target types as stored and shown (GitLab's class names). */
export type EventTargetType = 'Issue' | 'MergeRequest' | 'Note' | 'Milestone' | 'Project' | 'Snippet' | 'User'

/** The class each `target_type` filter key names (GL Event::TARGET_TYPES). */
export const TARGET_CLASS_NAMES: Record<string, string> = {
  issue: 'Issue',
  milestone: 'Milestone',
  merge_request: 'MergeRequest',
  note: 'Note',
  project: 'Project',
  snippet: 'Snippet',
  user: 'User',
  wiki: 'WikiPage::Meta',
  design: 'DesignManagement::Design',
}
