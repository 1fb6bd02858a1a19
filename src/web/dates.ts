import { html, type Html } from './html.js'

// Dates as the pages show them in tables.

/** A timestamp's day: `<time datetime="…">2026-01-02</time>`. */
export function dayElement(iso: string): Html {
  return html`<time datetime="${iso}">${iso.slice(0, 10)}</time>`
}

/** A date as GitLab's tables show it: "Jan 2, 2026". */
export function shortDate(iso: string): string {
  const date = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso)
  return date.toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' })
}

/** A `<time>` with the short date, its full time as a tooltip. */
export function shortDateElement(iso: string): Html {
  return html`<time datetime="${iso}" title="${iso}">${shortDate(iso)}</time>`
}
