import type { Context, Log } from '../../../core/context.js'
import { TtlCache } from '../../../core/ttl-cache.js'
import type { Db } from '../../../db/index.js'
import { GroupCommitQueue } from '../../../db/group-commit.js'
import { applyEventSubmissions, type EventOutcome, type EventSubmission } from './batch.js'
import { decompress, keyOfAuthHeader, keyOfDsn, parseEnvelope, parseEvent, type Envelope, type ParsedEvent } from './parse.js'
import { activeClientKeyExists, findCollectorProject, integratedTrackingEnabled, type CollectorProject } from './store.js'

/** One event at most this size once decompressed (the tracker's `max_event_size`); a larger one is refused with 413. */
export const MAX_EVENT_BYTES = 1024 * 1024

/**
 * Projects, settings and keys looked up are reused for this long: a key deleted or deactivated, or error tracking
 * switched off, stops working within it on every node.
 */
export const CACHE_MILLIS = 1000

export type CollectorQueue = GroupCommitQueue<EventSubmission, EventOutcome>

/** One instance's error collector: the group-commit queue every request joins and its short-lived look-ups. */
export interface ErrorCollector {
  queue: CollectorQueue
  projects: TtlCache<CollectorProject | null>
  settings: TtlCache<boolean>
  keys: TtlCache<boolean>
}

/** Made once per app instance; `drain` its queue on shutdown. */
export function createErrorCollector(db: Db, log: Log, clock: () => Date): ErrorCollector {
  return {
    queue: new GroupCommitQueue<EventSubmission, EventOutcome>(db, log, clock, {
      apply: applyEventSubmissions,
      failed: { ok: false },
      what: 'error events',
    }),
    projects: new TtlCache(CACHE_MILLIS),
    settings: new TtlCache(CACHE_MILLIS),
    keys: new TtlCache(CACHE_MILLIS),
  }
}

export interface CollectorRequest {
  route: 'store' | 'envelope'
  /** The `:id` of the URL: a project id or full path. */
  id: string
  /** `sentry_key` of the query string. */
  queryKey: unknown
  authHeader: string | string[] | undefined
  contentEncoding: string | undefined
  body: Buffer
}

/**
 * What became of one collector request. `stored` also covers a request with nothing to store (transactions,
 * sessions); `not-found` is error tracking switched off or an unknown key; `invalid` carries the validation message.
 */
export type CollectorOutcome =
  | { outcome: 'stored' }
  | { outcome: 'project-not-found' }
  | { outcome: 'not-found' }
  | { outcome: 'unparsable' }
  | { outcome: 'unsupported' }
  | { outcome: 'invalid'; message: string }
  | { outcome: 'too-large' }
  | { outcome: 'not-stored' }

const PROJECT_NOT_FOUND: CollectorOutcome = { outcome: 'project-not-found' }
const NOT_FOUND: CollectorOutcome = { outcome: 'not-found' }
const UNPARSABLE: CollectorOutcome = { outcome: 'unparsable' }
const UNSUPPORTED: CollectorOutcome = { outcome: 'unsupported' }
const TOO_LARGE: CollectorOutcome = { outcome: 'too-large' }
const NOT_STORED: CollectorOutcome = { outcome: 'not-stored' }
const STORED: CollectorOutcome = { outcome: 'stored' }

/**
 * One collector request, checked in GitLab's order (GL API::ErrorTracking::Collector): project, error tracking
 * enabled and integrated, client key; then its events are stored with the other pending requests' events and the
 * request is answered once they are committed.
 */
export async function collectEvents(ctx: Context, collector: ErrorCollector, request: CollectorRequest): Promise<CollectorOutcome> {
  const project = await collector.projects.get(request.id.toLowerCase(), () => findCollectorProject(ctx.db, request.id))
  // A project marked for deletion is gone, as for every other route.
  if (!project || project.pendingDelete) return PROJECT_NOT_FOUND
  if (!(await collector.settings.get(String(project.id), () => integratedTrackingEnabled(ctx.db, project.id)))) return NOT_FOUND

  // Read lazily: the key may have to come from the envelope's own header.
  let body: Buffer | 'unparsable' | 'too-large' | null = null
  const readBody = async () => (body ??= await decompress(request.body, request.contentEncoding))
  let envelope: Envelope | null | undefined
  const readEnvelope = async () => {
    if (envelope !== undefined) return envelope
    const bytes = await readBody()
    return (envelope = typeof bytes === 'string' ? null : parseEnvelope(bytes))
  }

  // The key: `sentry_key` of the query, else of `X-Sentry-Auth`, else the user of the DSN the envelope header names
  // (what SDKs that send neither put there). None of them: GitLab's parse failure.
  let key = typeof request.queryKey === 'string' && request.queryKey !== '' ? request.queryKey : keyOfAuthHeader(request.authHeader)
  if (key === null && request.route === 'envelope') {
    const read = await readEnvelope()
    if (read) key = keyOfDsn(read.header)
    else if ((await readBody()) === 'too-large') return TOO_LARGE
  }
  if (key === null) return UNPARSABLE
  const publicKey = key
  if (!(await collector.keys.get(`${project.id}/${publicKey}`, () => activeClientKeyExists(ctx.db, project.id, publicKey))))
    return NOT_FOUND

  const bytes = await readBody()
  if (bytes === 'too-large') return TOO_LARGE
  if (bytes === 'unparsable') return UNPARSABLE
  const now = ctx.now()
  const events: ParsedEvent[] = []
  if (request.route === 'store') {
    const outcome = readEvent(bytes, now)
    if ('outcome' in outcome) return outcome
    events.push(outcome)
  } else {
    const read = await readEnvelope()
    if (!read || read.items.length === 0) return UNPARSABLE
    for (const item of read.items) {
      // Every item is read, not only the first (GitLab). Events are stored; everything else SDKs send is accepted and
      // dropped: transactions (GitLab drops them too), and sessions and client reports, which GitLab refuses with 400
      // but which SDKs such as @sentry/node send on their own: a 400 would have them log errors for nothing.
      if (item.type !== 'event') continue
      const outcome = readEvent(item.payload, now)
      if ('outcome' in outcome) return outcome
      events.push(outcome)
    }
  }
  if (events.length === 0) return STORED
  const stored = await collector.queue.submit({ projectId: project.id, events })
  return stored.ok ? STORED : NOT_STORED
}

function readEvent(bytes: Buffer, now: Date): ParsedEvent | CollectorOutcome {
  if (bytes.length > MAX_EVENT_BYTES) return TOO_LARGE
  const outcome = parseEvent(bytes.toString('utf8'), now)
  if (outcome.ok) return outcome.event
  if ('invalid' in outcome) return { outcome: 'invalid', message: outcome.invalid }
  return outcome.failure === 'unparsable' ? UNPARSABLE : UNSUPPORTED
}
