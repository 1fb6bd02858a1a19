import type { PushPayload } from '../event-log/index.js'
import { pushCommitTitle } from '../repositories/index.js'

/** What a change of a branch svc makes records as its push event. */
export function pushPayload(
  ref: string,
  action: PushPayload['action'],
  from: string | null,
  to: string | null,
  count: number,
  message: string | null,
) {
  return {
    commit_count: count,
    action,
    ref_type: 'branch',
    commit_from: from,
    commit_to: to,
    ref,
    commit_title: message === null ? null : pushCommitTitle(message),
  } satisfies PushPayload
}
