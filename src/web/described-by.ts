import { html, type Html } from './html.js'
import type { Refusal } from './form-errors.js'

/** `aria-describedby` for a field, naming the ids given (its help, its error) in order; nothing when there are none. */
export function describedBy(...ids: (string | false | null | undefined)[]): Html {
  const present = ids.filter((id): id is string => typeof id === 'string' && id !== '')
  return present.length > 0 ? html`aria-describedby="${present.join(' ')}"` : html``
}

/** The id of a field's error (see fieldError) when the refusal names that field, for describedBy. */
export function errorIdOf(refusal: Refusal | null, attribute: string, id: string): string | undefined {
  return refusal?.byField[attribute] ? `${id}_error` : undefined
}
