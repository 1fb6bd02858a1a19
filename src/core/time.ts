/** ISO 8601 UTC with milliseconds, the one timestamp format stored and served. */
export function isoTimestamp(date: Date): string {
  return date.toISOString()
}

const DAY_MS = 86_400_000
let lastDay = NaN
let lastText = ''

/** 'YYYY-MM-DD' of a moment, in UTC; the last day's text is kept, as access checks ask for today's on every request. */
export function isoDate(date: Date): string {
  const day = Math.floor(date.getTime() / DAY_MS)
  if (day !== lastDay) {
    lastText = date.toISOString().slice(0, 10)
    lastDay = day
  }
  return lastText
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000)
}
