// Who among the people an event concerns receives its e-mail: GitLab's NotificationRecipient#notifiable? for each
// (user, type, reason) the builders add, then NotificationRecipients::Builder::Base#notification_recipients, which keeps
// one entry a user, the one with the most telling reason.

/** How a user came to be considered (GL NotificationRecipient types): their level decides whether that is enough. */
export type RecipientType = 'participating' | 'mention' | 'watch' | 'custom' | 'subscription'

/** GL NotificationReason: why the e-mail was sent, in `X-GitLab-NotificationReason`; null for watchers and participants. */
export type NotificationReason = 'own_activity' | 'assigned' | 'review_requested' | 'mentioned' | 'subscribed'

/** GL NotificationReason::REASON_PRIORITY: the first reason a user has wins. */
const REASON_PRIORITY: readonly NotificationReason[] = ['own_activity', 'assigned', 'review_requested', 'mentioned', 'subscribed']

/** GL NotificationSetting::EXCLUDED_WATCHER_EVENTS: too frequent for Watch, which still gets them as a participant. */
const EXCLUDED_WATCHER_EVENTS: ReadonlySet<string> = new Set(['push_to_merge_request', 'issue_due', 'success_pipeline'])

/** Events the Participate level receives even without taking part (GL NotificationRecipient#participating_custom_action?). */
const PARTICIPATING_EVENTS: ReadonlySet<string> = new Set(['failed_pipeline', 'fixed_pipeline', 'moved_project'])

export interface Candidate {
  userId: number
  type: RecipientType
  reason: NotificationReason | null
}

/** What the rules need to know of one candidate user. */
export interface CandidateFacts {
  /** May receive notifications (GL `receive_notifications`: active, no bot) and read what the e-mail is about. */
  hasAccess: boolean
  /** The level that applies: the project's, else the closest group's that is not Global, else the user's global one. */
  level: number
  /** The events of that setting (read when it is Custom). */
  events: Readonly<Record<string, unknown>>
  /** Unsubscribed from the issue or merge request itself. */
  unsubscribed: boolean
}

/** The stored level numbers (GL NotificationSetting.levels). */
export const Level = { disabled: 0, participating: 1, watch: 2, global: 3, mention: 4, custom: 5 } as const

export interface Audience {
  /** The event's name among the custom events (GL `custom_action`): `new_issue`, `close_merge_request`, `new_note`… */
  customAction: string
  /** Who acted, left out unless they asked for their own activity (svc has no such preference); null to keep them. */
  actorId: number | null
  /** The project (or its groups) turned e-mail off: nobody receives anything. */
  emailsDisabled: boolean
}

function isSuitableLevel(candidate: Candidate, facts: CandidateFacts, customAction: string): boolean {
  const participatingOrMention = candidate.type === 'participating' || candidate.type === 'mention'
  switch (facts.level) {
    case Level.mention:
      return candidate.type === 'mention'
    case Level.participating:
      return PARTICIPATING_EVENTS.has(customAction) || participatingOrMention
    case Level.custom:
      return facts.events[customAction] === true || participatingOrMention
    case Level.watch:
      return !EXCLUDED_WATCHER_EVENTS.has(customAction)
    default:
      return false
  }
}

/** GL NotificationRecipient#notifiable? for one entry. */
export function isNotifiable(candidate: Candidate, facts: CandidateFacts | undefined, audience: Audience): boolean {
  if (!facts || !facts.hasAccess || audience.emailsDisabled) return false
  if (audience.actorId !== null && candidate.userId === audience.actorId) return false
  // Even a user whose notifications are disabled receives what they explicitly subscribed to.
  if (candidate.type === 'subscription') return !facts.unsubscribed
  if (!isSuitableLevel(candidate, facts, audience.customAction)) return false
  // Unsubscribing silences everything but mentions.
  return candidate.type === 'mention' || !facts.unsubscribed
}

function priorityOf(reason: NotificationReason | null): number {
  const index = reason === null ? -1 : REASON_PRIORITY.indexOf(reason)
  return index === -1 ? REASON_PRIORITY.length + 1 : index
}

/** The recipients: the notifiable entries, one a user with their most telling reason, in the order users first appear. */
export function pickRecipients(
  candidates: readonly Candidate[],
  factsOf: ReadonlyMap<number, CandidateFacts>,
  audience: Audience,
): { userId: number; reason: NotificationReason | null }[] {
  const chosen = new Map<number, NotificationReason | null>()
  for (const candidate of candidates) {
    if (!isNotifiable(candidate, factsOf.get(candidate.userId), audience)) continue
    const known = chosen.get(candidate.userId)
    if (known === undefined || priorityOf(candidate.reason) < priorityOf(known)) chosen.set(candidate.userId, candidate.reason)
  }
  return [...chosen].map(([userId, reason]) => ({ userId, reason }))
}
