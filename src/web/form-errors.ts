import { Conflict, DomainError, Invalid, MissingParam, Unprocessable } from '../core/errors.js'
import { html, type Html } from './html.js'

// A refused form comes back with what was typed and the service's reasons: every message in a list above the form
// (GitLab's #error_explanation), and each field's own messages beside it.

/** What a service's refusal says, for a form: full messages, and the messages of each field by its attribute. */
export interface Refusal {
  messages: string[]
  byField: Record<string, string[]>
}

/**
 * Rails' full messages for what a service refused: "Name can't be blank". `attributes` names the fields as the form
 * labels them (`{ api_url: 'API URL' }`); others are capitalised.
 */
export function refusalOf(error: DomainError, attributes: Record<string, string> = {}): Refusal {
  const label = (attribute: string) => attributes[attribute] ?? attribute.charAt(0).toUpperCase() + attribute.slice(1).replace(/_/g, ' ')
  if (error instanceof Invalid) {
    const byField: Record<string, string[]> = {}
    for (const [attribute, list] of Object.entries(error.errors)) {
      if (attribute !== 'base') byField[attribute] = list.map((message) => `${label(attribute)} ${message}`)
    }
    const messages = Object.entries(error.errors).flatMap(([attribute, list]) => (attribute === 'base' ? list : byField[attribute]))
    return { messages, byField }
  }
  if (error instanceof MissingParam) {
    const message = `${label(error.attribute)} can't be blank`
    return { messages: [message], byField: { [error.attribute]: [message] } }
  }
  if (error instanceof Unprocessable || error instanceof Conflict) {
    return { messages: Array.isArray(error.detail) ? error.detail : [error.detail], byField: {} }
  }
  return { messages: [error.message], byField: {} }
}

/** The full messages of a refusal (see refusalOf). */
export function formErrorsOf(error: DomainError, attributes: Record<string, string> = {}): string[] {
  return refusalOf(error, attributes).messages
}

/** What a refused form says above itself. */
export function errorList(errors: readonly string[]): Html {
  if (errors.length === 0) return html``
  return html`<div class="flash alert" role="alert" id="error_explanation">
    <p>The form has ${errors.length === 1 ? 'an error' : `${errors.length} errors`}:</p>
    <ul>
      ${errors.map((error) => html`<li>${error}</li>`)}
    </ul>
  </div>`
}

/** A field's own messages, to place right after its input (give the input `aria-describedby="<id>_error"`). */
export function fieldError(refusal: Refusal | null, attribute: string, id: string): Html {
  const messages = refusal?.byField[attribute] ?? []
  if (messages.length === 0) return html``
  return html`<p class="field-error" id="${id}_error">${messages.join(', ')}</p>`
}
