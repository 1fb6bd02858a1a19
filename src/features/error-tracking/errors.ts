import type { Context } from '../../core/context.js'
import { NotFound } from '../../core/errors.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { ErrorTrackingErrorEventRow, ErrorTrackingErrorRow } from '../../db/schema.js'
import { authorizeReadErrors, authorizeUpdateErrors } from './policy.js'
import { payloadString } from './stacktrace.js'
import { findError, selectErrorEvents, selectErrors, updateErrorStatus, type ErrorFilter } from './store.js'
import { type LoadedProject } from '../access/index.js'

// Browsing integrated errors. GitLab offers this only through GraphQL (Project.sentryErrors, sentryDetailedError,
// sentryErrorStackTrace, Mutation.sentryErrorUpdate); svc offers the same over REST.

/** GL ErrorTracking::Error status enum. */
export const ERROR_STATUSES = ['unresolved', 'resolved', 'ignored'] as const
export type ErrorStatusName = (typeof ERROR_STATUSES)[number]

export const ERROR_SORTS = ['last_seen', 'first_seen', 'frequency'] as const
export type ErrorSortName = (typeof ERROR_SORTS)[number]

const ORDER: Record<ErrorSortName, ErrorFilter['order']> = {
  last_seen: 'last_seen_at',
  first_seen: 'first_seen_at',
  frequency: 'events_count',
}

export interface ListErrorsInput {
  status?: ErrorStatusName
  search?: string
  sort?: ErrorSortName
  page: number
  perPage: number
}

/**
 * The project's errors of one status (GL ErrorTracking::ListIssuesService: unresolved unless asked, sorted by last seen
 * unless asked; every sort is newest or most first, GL ErrorTracking::Error.sort_by_attribute), optionally those whose
 * name, description or culprit contains the search term.
 */
export function listErrors(ctx: Context, loaded: LoadedProject, input: ListErrorsInput): Promise<OffsetPage<ErrorTrackingErrorRow>> {
  authorizeReadErrors(loaded.access, loaded.project)
  const filter: ErrorFilter = {
    status: ERROR_STATUSES.indexOf(input.status ?? 'unresolved'),
    search: input.search?.trim() || undefined,
    order: ORDER[input.sort ?? 'last_seen'],
  }
  return fetchOffsetPage(ctx.db, selectErrors(ctx.db, loaded.project.id, filter), input.page, input.perPage)
}

async function errorOf(ctx: Context, loaded: LoadedProject, errorId: number): Promise<ErrorTrackingErrorRow> {
  const error = Number.isSafeInteger(errorId) ? await findError(ctx.db, loaded.project.id, errorId) : undefined
  if (!error) throw new NotFound('Error')
  return error
}

export interface ErrorDetails {
  error: ErrorTrackingErrorRow
  firstReleaseVersion: string | null
  lastReleaseVersion: string | null
}

/** An error with the releases of its first and latest events (GL ErrorTracking::Error#to_sentry_detailed_error). */
export async function showError(ctx: Context, loaded: LoadedProject, errorId: number): Promise<ErrorDetails> {
  authorizeReadErrors(loaded.access, loaded.project)
  const error = await errorOf(ctx, loaded, errorId)
  const newest = await selectErrorEvents(ctx.db, error.id).select('payload').limit(1).executeTakeFirst()
  const oldest = await ctx.db
    .selectFrom('error_tracking_error_events')
    .select('payload')
    .where('error_id', '=', error.id)
    .orderBy('occurred_at', 'asc')
    .orderBy('id', 'asc')
    .limit(1)
    .executeTakeFirst()
  return {
    error,
    firstReleaseVersion: oldest ? payloadString(oldest.payload, 'release') : null,
    lastReleaseVersion: newest ? payloadString(newest.payload, 'release') : null,
  }
}

/** Resolves, ignores or reopens an error (GL ErrorTracking::IssueUpdateService, `update_sentry_issue`: Developer and up). */
export async function updateError(ctx: Context, loaded: LoadedProject, errorId: number, status: ErrorStatusName): Promise<ErrorDetails> {
  authorizeUpdateErrors(loaded.access, loaded.project)
  const error = await errorOf(ctx, loaded, errorId)
  const value = ERROR_STATUSES.indexOf(status)
  if (error.status !== value) await updateErrorStatus(ctx.db, error.id, value, ctx.now().toISOString())
  return showError(ctx, loaded, errorId)
}

/** An error's events, newest first. */
export async function listErrorEvents(
  ctx: Context,
  loaded: LoadedProject,
  errorId: number,
  page: number,
  perPage: number,
): Promise<OffsetPage<ErrorTrackingErrorEventRow>> {
  authorizeReadErrors(loaded.access, loaded.project)
  const error = await errorOf(ctx, loaded, errorId)
  return fetchOffsetPage(ctx.db, selectErrorEvents(ctx.db, error.id), page, perPage)
}
