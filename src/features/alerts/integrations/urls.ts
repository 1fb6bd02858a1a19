/** The endpoint identifier of the single Free-tier HTTP endpoint that predates named integrations. */
export const LEGACY_IDENTIFIER = 'legacy'
/** The endpoint identifier of a project's Prometheus integration. */
export const PROMETHEUS_IDENTIFIER = 'legacy-prometheus'
/** The name part of an HTTP integration's URL when its name gives no slug (GL HttpIntegration::DEFAULT_NAME_SLUG). */
export const DEFAULT_NAME_SLUG = 'http-endpoint'

/**
 * GL Gitlab::Utils.slugify: lower-cased, anything but [a-z0-9] becomes '-', at most 63 characters, no leading or
 * trailing '-'.
 */
export function slugify(text: string): string {
  const replaced = text.toLowerCase().replace(/[^a-z0-9]/gu, '-')
  return Array.from(replaced)
    .slice(0, 63)
    .join('')
    .replace(/^-+|-+$/g, '')
}

/** What a URL is made from: the integration's name and endpoint identifier. */
export interface IntegrationUrlParts {
  name: string
  endpoint_identifier: string
}

/**
 * The webhook URL an integration shows (GL AlertManagement::HttpIntegration#url): the Prometheus integration posts to
 * `…/prometheus/alerts/notify.json`, the legacy endpoint to `…/alerts/notify.json`, every other one to
 * `…/alerts/notify/<slug of name>/<endpoint identifier>.json`.
 */
export function integrationUrl(externalUrl: string, projectFullPath: string, integration: IntegrationUrlParts): string {
  const base = `${externalUrl.replace(/\/+$/, '')}/${projectFullPath}`
  if (integration.endpoint_identifier === PROMETHEUS_IDENTIFIER) return `${base}/prometheus/alerts/notify.json`
  if (integration.endpoint_identifier === LEGACY_IDENTIFIER) return `${base}/alerts/notify.json`
  const slug = slugify(integration.name) || DEFAULT_NAME_SLUG
  return `${base}/alerts/notify/${slug}/${integration.endpoint_identifier}.json`
}
