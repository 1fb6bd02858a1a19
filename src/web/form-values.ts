// Reading the values of a browser's form post (Rails' field conventions), before a service checks them.

/** The texts of a repeated field (`scopes[]`): one value or several; anything but text is left out. */
export function textsOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value]
  return list.filter((item): item is string => typeof item === 'string')
}

/** The last text of a field sent more than once, as Rails takes it: a check box follows a hidden "0" of the same name. */
export function lastTextOf(value: unknown): string | undefined {
  const last = Array.isArray(value) ? value[value.length - 1] : value
  return typeof last === 'string' ? last : undefined
}

/** Whether a form's text is a real calendar day written YYYY-MM-DD (2026-02-30 is not). */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false
  const date = new Date(`${text}T00:00:00Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text
}

/** A field of a form when it was sent as text, else undefined. */
export function givenText(form: Record<string, unknown>, name: string): string | undefined {
  return typeof form[name] === 'string' ? (form[name] as string) : undefined
}

/** The text of a form field ('' when absent). */
export function fieldText(form: Record<string, unknown>, name: string): string {
  return givenText(form, name) ?? ''
}
