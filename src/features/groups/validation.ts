import { nameErrors, namespacePathErrors } from '../namespaces/index.js'

// The model rules of a group beyond the shared path and name validators (GL app/models/namespace.rb, group.rb).

/** Groups may sit at most this many levels below a top-level group (GL Namespace::NUMBER_OF_ANCESTORS_ALLOWED). */
export const NUMBER_OF_ANCESTORS_ALLOWED = 20

/** New and renamed paths must also be valid OCI repository paths (GL Gitlab::Regex.oci_repository_path_regex). */
const OCI_REPOSITORY_PATH = /^[a-zA-Z0-9]+(?:[._-][a-zA-Z0-9]+)*$/
export const OCI_PATH_MESSAGE =
  "can only include non-accented letters, digits, '_', '-' and '.'. It must not start with '-', '_', or '.', nor end with '-', '_', '.', '.git', or '.atom'."
const MIN_PATH_LENGTH = 2

/** Validation errors by attribute, kept in the order GitLab's model adds them. */
export class GroupErrors {
  readonly errors: Record<string, string[]> = {}

  add(attribute: string, messages: string | string[]) {
    const list = Array.isArray(messages) ? messages : [messages]
    if (list.length === 0) return
    ;(this.errors[attribute] ??= []).push(...list)
  }

  get any(): boolean {
    return Object.keys(this.errors).length > 0
  }
}

/** Errors of a new or changed group path: length, OCI format, namespace format and reserved words, minimum length. */
export function groupPathErrors(path: string, options: { topLevel: boolean }): string[] {
  const shared = namespacePathErrors(path, options)
  if (path === '') return shared
  const tooLong = shared.filter((m) => m.startsWith('is too long'))
  const errors = [...tooLong]
  if (!OCI_REPOSITORY_PATH.test(path)) errors.push(OCI_PATH_MESSAGE)
  errors.push(...shared.filter((m) => !tooLong.includes(m)))
  if ([...path].length < MIN_PATH_LENGTH) errors.push(`is too short (minimum is ${MIN_PATH_LENGTH} characters)`)
  return errors
}

/** Presence and length of a name come first; its format is a Group rule GitLab checks last. */
export function splitNameErrors(name: string): { presence: string[]; format: string[] } {
  const errors = nameErrors(name, 'group')
  const presence = errors.filter((m) => m === "can't be blank" || m.startsWith('is too long'))
  return { presence, format: errors.filter((m) => !presence.includes(m)) }
}
