import { html, type Html } from './html.js'

/** timeago.js's steps from one unit to the next: seconds, minutes, hours, days, weeks, months (365/7/12 weeks), years. */
const STEPS = [60, 60, 24, 7, 365 / 7 / 12, 12]
const UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'year']

/**
 * How long ago (or how far ahead) `at` is from `now`, in the words GitLab's pages show (timeago.js with GitLab's
 * English strings): `just now` under a minute, then `1 minute ago`, `3 days ago`, `2 years ago`; `in 3 days` ahead.
 */
export function timeAgoText(at: Date, now: Date): string {
  const seconds = (now.getTime() - at.getTime()) / 1000
  let value = Math.abs(seconds)
  let unit = 0
  for (; unit < STEPS.length && value >= STEPS[unit]; unit++) value /= STEPS[unit]
  value = Math.floor(value)
  if (unit === 0) return seconds >= 0 ? 'just now' : value > 9 ? `in ${value} seconds` : 'right now'
  const amount = value > 1 ? `${value} ${UNITS[unit]}s` : `1 ${UNITS[unit]}`
  return seconds >= 0 ? `${amount} ago` : `in ${amount}`
}

/** A date as GitLab's time-ago tooltip shows it: the words, the exact time in its title. */
export function timeAgo(iso: string, now: Date): Html {
  const at = new Date(iso)
  return html`<time datetime="${iso}" title="${at.toISOString().replace('T', ' ').slice(0, 19)} UTC">${timeAgoText(at, now)}</time>`
}
