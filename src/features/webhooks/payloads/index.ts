import type { Change } from '../../../core/changes.js'
import type { Context } from '../../../core/context.js'
import type { Db } from '../../../db/index.js'
import { alertPayloads } from './alert.js'
import { issuePayloads } from './issue.js'
import { memberPayloads } from './member.js'
import { mergeRequestPayloads } from './merge-request.js'
import { notePayloads } from './note.js'
import { pushPayloads } from './push.js'
import { systemPayloads } from './system.js'

/** A hook's switch, by GitLab's column name; `system` is what every system hook receives (project_create, user_create…). */
export type HookTrigger =
  | 'push_events'
  | 'tag_push_events'
  | 'issues_events'
  | 'confidential_issues_events'
  | 'note_events'
  | 'confidential_note_events'
  | 'merge_requests_events'
  | 'member_events'
  | 'project_events'
  | 'subgroup_events'
  | 'alert_events'
  | 'repository_update_events'
  | 'system'

/** What one change sends to the hooks that listen for it, as GitLab sends it. */
export interface HookPayload {
  /** `X-Gitlab-Event`: `Push Hook`, `Issue Hook`, `System Hook`… (a system hook hears every event as `System Hook`). */
  event: string
  trigger: HookTrigger
  /** Which hooks hear it: the project's and its groups' hooks, or only the system hooks. */
  scope: 'project' | 'system'
  /**
   * When a group's hooks hear it rather than a project's (its members, its subgroups): that group, whose hooks and
   * whose ancestors' hooks hear it.
   */
  groupId?: number
  /** The pushed branch's name, for `push_events_branch_filter`; absent when the event is not a branch push. */
  branch?: string
  body: Record<string, unknown>
}

/**
 * The payloads a change sends, read in the change's transaction `trx` (the change is written, not yet committed).
 * Answers none for a change that no hook hears of.
 */
export async function hookPayloadsOf(ctx: Context, trx: Db, change: Change): Promise<HookPayload[]> {
  switch (change.kind) {
    case 'push':
      return pushPayloads(ctx, trx, change)
    case 'issue':
      return issuePayloads(ctx, trx, change)
    case 'merge_request':
      return mergeRequestPayloads(ctx, trx, change)
    case 'note':
      return notePayloads(ctx, trx, change)
    case 'member':
      return memberPayloads(ctx, trx, change)
    case 'alert':
      return alertPayloads(ctx, trx, change)
    case 'project':
    case 'group':
    case 'user':
      return systemPayloads(ctx, trx, change)
    default:
      void ctx
      void trx
      return []
  }
}
