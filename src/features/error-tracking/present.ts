import type {
  ErrorTrackingClientKeyRow,
  ErrorTrackingErrorEventRow,
  ErrorTrackingErrorRow,
  ErrorTrackingSettingsRow,
} from '../../db/schema.js'
import { ERROR_STATUSES, type ErrorDetails } from './errors.js'
import type { ClientKeyJson, DetailedErrorJson, ErrorEventJson, ErrorJson, SettingsJson } from './schemas.js'
import { payloadString, stackTraceOf } from './stacktrace.js'
import { trackerDsn, trackerExternalUrl, trackerProjectName } from './settings.js'

export function presentSettings(settings: ErrorTrackingSettingsRow): SettingsJson {
  const externalUrl = trackerExternalUrl(settings)
  return {
    active: settings.enabled === 1,
    project_name: trackerProjectName(settings),
    tracker_external_url: externalUrl,
    sentry_external_url: externalUrl,
    api_url: settings.api_url,
    integrated: settings.integrated === 1,
  }
}

export function presentClientKey(key: ErrorTrackingClientKeyRow, externalUrl: string): ClientKeyJson {
  const dsn = trackerDsn(externalUrl, key.public_key, key.project_id)
  return { id: key.id, active: key.active === 1, public_key: key.public_key, tracker_dsn: dsn, sentry_dsn: dsn }
}

/** Ruby's `truncate(64)`: longer titles keep 61 characters and "...". */
function truncated(text: string, length = 64): string {
  const chars = Array.from(text)
  return chars.length <= length ? text : `${chars.slice(0, length - 3).join('')}...`
}

/**
 * Whether the group is one of message events, whose name is the message's first 255 characters and description its
 * first 1024 (ingest/parse.ts): the description is the name, or goes on from a name cut at 255 characters.
 */
function isMessageGroup(error: ErrorTrackingErrorRow): boolean {
  if (error.description === error.name) return true
  return error.description.startsWith(error.name) && Array.from(error.name).length === 255
}

/**
 * GL ErrorTracking::Error#title: "<name> <description>", or the name alone. A message event, which svc accepts and
 * GitLab does not (spec README), is titled by its message once.
 */
export function errorTitle(error: ErrorTrackingErrorRow): string {
  if (isMessageGroup(error)) return error.description
  return error.description ? `${error.name} ${error.description}` : error.name
}

export function errorPagePath(fullPath: string, errorId: number): string {
  return `/${fullPath}/-/error_tracking/${errorId}/details`
}

export interface ErrorPresentOptions {
  externalUrl: string
  projectFullPath: string
}

/** GL ErrorTracking::Error#to_sentry_error; external_url is the error's page in svc. */
export function presentError(error: ErrorTrackingErrorRow, options: ErrorPresentOptions): ErrorJson {
  return {
    id: error.id,
    title: truncated(errorTitle(error)),
    message: error.description,
    culprit: error.actor,
    platform: error.platform === '' ? null : error.platform,
    status: ERROR_STATUSES[error.status] ?? 'unresolved',
    count: error.events_count,
    first_seen: error.first_seen_at,
    last_seen: error.last_seen_at,
    external_url: `${options.externalUrl}${errorPagePath(options.projectFullPath, error.id)}`,
  }
}

export function presentDetailedError(details: ErrorDetails, options: ErrorPresentOptions): DetailedErrorJson {
  return {
    ...presentError(details.error, options),
    external_base_url: `${options.externalUrl}/${options.projectFullPath}`,
    first_release_version: details.firstReleaseVersion,
    last_release_version: details.lastReleaseVersion,
    integrated: true,
  }
}

export function presentErrorEvent(event: ErrorTrackingErrorEventRow): ErrorEventJson {
  return {
    id: event.id,
    error_id: event.error_id,
    description: event.description,
    environment: event.environment,
    level: event.level,
    platform: payloadString(event.payload, 'platform'),
    release: payloadString(event.payload, 'release'),
    occurred_at: event.occurred_at,
    stack_trace_entries: stackTraceOf(event.payload),
  }
}
