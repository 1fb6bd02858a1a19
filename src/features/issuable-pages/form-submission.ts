import { Forbidden } from '../../core/errors.js'
import type { Refusal } from '../../web/form-errors.js'
import type { WebRequest } from '../sessions/index.js'

/**
 * Saves a label, milestone or snippet form through its service: a refusal `refusalOf` recognises shows the form again,
 * a Forbidden is the 404 page (the page never offered what the service refuses), any other error propagates; once
 * saved, `saved` answers.
 */
export async function submitForm<T>(
  w: WebRequest,
  save: () => Promise<T>,
  outcome: {
    refusalOf: (error: unknown) => Refusal | null
    showRefused: (refusal: Refusal) => Promise<unknown>
    saved: (result: T) => unknown
  },
): Promise<unknown> {
  let result: T
  try {
    result = await save()
  } catch (error) {
    const refusal = outcome.refusalOf(error)
    if (refusal) return outcome.showRefused(refusal)
    if (error instanceof Forbidden) return w.notFound()
    throw error
  }
  return outcome.saved(result)
}
