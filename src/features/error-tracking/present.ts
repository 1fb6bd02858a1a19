import type { ErrorTrackingClientKeyRow, ErrorTrackingSettingsRow } from '../../db/schema.js'
import type { ClientKeyJson, SettingsJson } from './schemas.js'
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
