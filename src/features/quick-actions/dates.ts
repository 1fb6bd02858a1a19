// The dates `/due` understands, as GitLab reads them with Chronic (in the future when a date could be either): an ISO
// date, today, tomorrow, yesterday, "in 2 days", "3 weeks from now", next week, a weekday ("friday", "this friday",
// "next friday"), a month and day ("December 31st", "31 December", "Dec 31, 2027"), and 12/31/2027.

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']
const UNITS: Record<string, 'day' | 'week' | 'month' | 'year'> = {
  day: 'day',
  days: 'day',
  week: 'week',
  weeks: 'week',
  month: 'month',
  months: 'month',
  year: 'year',
  years: 'year',
}
const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
}

/** A calendar day in UTC. */
interface Day {
  year: number
  month: number
  day: number
}

function dayOf(date: Date): Day {
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() }
}

/** The day, or null when it does not exist (February 30th). */
function validDay(year: number, month: number, day: number): Day | null {
  if (month < 1 || month > 12 || day < 1 || year < 1 || year > 9999) return null
  const date = new Date(Date.UTC(year, month - 1, day))
  if (date.getUTCMonth() !== month - 1) return null
  return { year, month, day }
}

function addDays(from: Day, days: number): Day {
  return dayOf(new Date(Date.UTC(from.year, from.month - 1, from.day + days)))
}

function addMonths(from: Day, months: number): Day {
  const total = from.year * 12 + (from.month - 1) + months
  const year = Math.floor(total / 12)
  const month = (total % 12) + 1
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate()
  return { year, month, day: Math.min(from.day, last) }
}

function shift(from: Day, count: number, unit: 'day' | 'week' | 'month' | 'year'): Day {
  switch (unit) {
    case 'day':
      return addDays(from, count)
    case 'week':
      return addDays(from, count * 7)
    case 'month':
      return addMonths(from, count)
    case 'year':
      return addMonths(from, count * 12)
  }
}

function compare(a: Day, b: Day): number {
  return a.year - b.year || a.month - b.month || a.day - b.day
}

function monthIndex(word: string): number | null {
  const lower = word.toLowerCase().replace(/\.$/, '')
  if (lower.length < 3) return null
  const index = MONTHS.findIndex((name) => name.startsWith(lower) && (lower.length >= 3 || name === lower))
  return index === -1 ? null : index + 1
}

function weekdayIndex(word: string): number | null {
  const lower = word.toLowerCase()
  if (lower.length < 3) return null
  const index = WEEKDAYS.findIndex((name) => name.startsWith(lower))
  return index === -1 ? null : index
}

function countOf(word: string): number | null {
  if (/^\d{1,4}$/.test(word)) return Number(word)
  return NUMBER_WORDS[word.toLowerCase()] ?? null
}

/** A month and day without a year: this year's, or next year's once this year's has passed. */
function upcoming(today: Day, month: number, day: number): Day | null {
  const thisYear = validDay(today.year, month, day)
  if (thisYear && compare(thisYear, today) >= 0) return thisYear
  return validDay(today.year + 1, month, day) ?? validDay(today.year + 4 - (today.year % 4), month, day)
}

/** `/due`'s argument as a YYYY-MM-DD day, relative to `now` (UTC); null when it names no date. */
export function parseDueDate(text: string, now: Date): string | null {
  const day = parseDay(text.trim().replace(/\s+/g, ' '), dayOf(now))
  if (!day) return null
  return `${String(day.year).padStart(4, '0')}-${String(day.month).padStart(2, '0')}-${String(day.day).padStart(2, '0')}`
}

function parseDay(text: string, today: Day): Day | null {
  const lower = text.toLowerCase().replace(/,/g, '')
  let match = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(lower) ?? /^(\d{4})\/(\d{1,2})\/(\d{1,2})$/.exec(lower)
  if (match) return validDay(Number(match[1]), Number(match[2]), Number(match[3]))
  match = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(lower)
  if (match) return validDay(Number(match[3]), Number(match[1]), Number(match[2]))
  if (lower === 'today' || lower === 'now') return today
  if (lower === 'tomorrow') return addDays(today, 1)
  if (lower === 'yesterday') return addDays(today, -1)
  match = /^in (\S+) (\S+)$/.exec(lower) ?? /^(\S+) (\S+) from (?:now|today)$/.exec(lower)
  if (match) {
    const count = countOf(match[1])
    const unit = UNITS[match[2]]
    return count !== null && unit ? shift(today, count, unit) : null
  }
  match = /^(\S+) (\S+) ago$/.exec(lower)
  if (match) {
    const count = countOf(match[1])
    const unit = UNITS[match[2]]
    return count !== null && unit ? shift(today, -count, unit) : null
  }
  match = /^next (week|month|year)$/.exec(lower)
  if (match) return shift(today, 1, match[1] as 'week' | 'month' | 'year')
  match = /^(?:(this|next) )?([a-z]+)$/.exec(lower)
  if (match) {
    const weekday = weekdayIndex(match[2])
    if (weekday !== null) {
      const current = new Date(Date.UTC(today.year, today.month - 1, today.day)).getUTCDay()
      const ahead = (weekday - current + 7) % 7 || 7
      return addDays(today, ahead)
    }
  }
  // "December 31st", "Dec 31 2027", "31 December", "31st of December 2027".
  const words = lower
    .replace(/\b(\d{1,2})(?:st|nd|rd|th)\b/g, '$1')
    .replace(/\bof\b/g, ' ')
    .split(' ')
    .filter(Boolean)
  if (words.length === 2 || words.length === 3) {
    const [first, second, third] = words
    const year = third !== undefined && /^\d{4}$/.test(third) ? Number(third) : null
    if (third !== undefined && year === null) return null
    let month = monthIndex(first)
    let dayText = second
    if (month === null) {
      month = monthIndex(second)
      dayText = first
    }
    if (month === null || !/^\d{1,2}$/.test(dayText)) return null
    return year === null ? upcoming(today, month, Number(dayText)) : validDay(year, month, Number(dayText))
  }
  return null
}

const SHORT_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** A YYYY-MM-DD day as GitLab's messages write it (`strftime('%b %-d, %Y')`): "Dec 1, 2026". */
export function shortDate(date: string): string {
  const [year, month, day] = date.split('-').map(Number)
  return `${SHORT_MONTHS[month - 1]} ${day}, ${year}`
}
