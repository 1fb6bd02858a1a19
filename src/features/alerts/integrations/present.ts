import type { AlertIntegrationRow } from '../../../db/schema.js'
import type { IntegrationJson, PayloadAttributeMapping } from './schemas.js'
import { integrationUrl } from './urls.js'

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T
  } catch {
    return fallback
  }
}

/**
 * An integration as the API shows it to those who manage it, key included (GL HttpIntegrationType /
 * PrometheusIntegrationType). The external tracker receives nothing, so it has neither URL nor key to show.
 */
export function presentIntegration(integration: AlertIntegrationRow, externalUrl: string, projectFullPath: string): IntegrationJson {
  const tracker = integration.type === 'opsgenie'
  const mappings = parseJson<PayloadAttributeMapping[]>(integration.payload_attribute_mappings, [])
  return {
    id: integration.id,
    name: integration.name,
    active: integration.active === 1,
    type: integration.type,
    url: tracker ? null : integrationUrl(externalUrl, projectFullPath, integration),
    token: tracker ? null : integration.token,
    payload_example: parseJson<unknown>(integration.payload_example, {}),
    payload_attribute_mappings: mappings.map((m) => ({ field_name: m.field_name, path: m.path, type: m.type, label: m.label ?? null })),
    create_incident: integration.create_incident === 1,
    auto_close_incident: integration.auto_close_incident === 1,
    api_url: integration.api_url,
  }
}
