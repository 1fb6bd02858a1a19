import { Conflict, DomainError, Invalid, MissingParam, Unprocessable } from '../core/errors.js'

/**
 * Rails' full messages for what a service refused, for a form to show beside itself: "Name can't be blank".
 * `attributes` names the fields as the form labels them (`{ api_url: 'API URL' }`); others are capitalised.
 */
export function formErrorsOf(error: DomainError, attributes: Record<string, string> = {}): string[] {
  const label = (attribute: string) => attributes[attribute] ?? attribute.charAt(0).toUpperCase() + attribute.slice(1).replace(/_/g, ' ')
  if (error instanceof Invalid) {
    return Object.entries(error.errors).flatMap(([attribute, list]) =>
      list.map((message) => (attribute === 'base' ? message : `${label(attribute)} ${message}`)),
    )
  }
  if (error instanceof MissingParam) return [`${label(error.attribute)} can't be blank`]
  if (error instanceof Unprocessable || error instanceof Conflict) return Array.isArray(error.detail) ? error.detail : [error.detail]
  return [error.message]
}
