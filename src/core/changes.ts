/**
 * A change that people and systems outside svc hear about: webhooks (features/webhooks) and e-mail
 * (features/notifications). The feature making the change hands it to `noticeChange` (features/change-notices)
 * inside the change's own transaction, so what is sent exists exactly when the change commits.
 *
 * A change carries ids and what changed, never whole objects: whoever tells of it reads the rest in that transaction.
 */

/** One field's value before and after, keyed by GitLab's wire name (`title`, `labels`, `assignees`, `state_id`…). */
export type FieldChanges = Record<string, { previous: unknown; current: unknown }>

export type Change =
  | {
      kind: 'issue'
      action: 'open' | 'update' | 'close' | 'reopen'
      projectId: number
      issueId: number
      actorId: number
      changes: FieldChanges
      at: Date
    }
  | {
      kind: 'merge_request'
      action: 'open' | 'update' | 'close' | 'reopen' | 'merge' | 'approved' | 'unapproved' | 'approval' | 'unapproval'
      projectId: number
      mergeRequestId: number
      actorId: number
      changes: FieldChanges
      /** The source branch's previous head when a push updated the merge request (GitLab's `oldrev`). */
      oldrev?: string
      at: Date
    }
  | { kind: 'note'; action: 'create' | 'update'; projectId: number; noteId: number; actorId: number; at: Date }
  | {
      /** One ref updated by a push (a branch, or a tag when `ref` starts with refs/tags/). */
      kind: 'push'
      projectId: number
      actorId: number
      ref: string
      before: string
      after: string
      at: Date
    }
  | {
      kind: 'member'
      action: 'add' | 'update' | 'remove'
      source: { type: 'project' | 'group'; id: number }
      userId: number
      actorId: number
      accessLevel: number
      expiresAt: string | null
      at: Date
    }
  | { kind: 'alert'; action: 'create' | 'update'; projectId: number; alertId: number; at: Date }
  | {
      kind: 'project'
      action: 'create' | 'destroy' | 'rename' | 'transfer' | 'update'
      projectId: number
      actorId: number
      oldPathWithNamespace?: string
      at: Date
    }
  | { kind: 'group'; action: 'create' | 'destroy' | 'rename'; groupId: number; actorId: number; oldFullPath?: string; at: Date }
  | { kind: 'user'; action: 'create' | 'destroy' | 'rename' | 'failed_login'; userId: number; oldUsername?: string; at: Date }

export type ChangeKind = Change['kind']
