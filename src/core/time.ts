/** ISO 8601 UTC with milliseconds, the one timestamp format stored and served. */
export function isoTimestamp(date: Date): string {
  return date.toISOString()
}

/** 'YYYY-MM-DD' of a moment, in UTC. */
export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10)
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000)
}
