// GitLab's reference patterns (Issue, MergeRequest, Label, Milestone and User `reference_pattern`), found in the
// text of a Markdown document. Text inside code and links never gets here: the caller passes only plain text.

export type ReferenceKind = 'user' | 'issue' | 'merge_request' | 'label' | 'milestone'

export interface Reference {
  kind: ReferenceKind
  /** The reference as written, such as `group/project#12` or `~"to do"`. */
  text: string
  /** The project path written before the reference (`group/project` or a sibling's `project`); null for the context's. */
  projectPath: string | null
  /** An issue's, merge request's or milestone's iid, or a label's id. */
  number: number | null
  /** A label's or milestone's title, or a user's or group's path. */
  name: string | null
}

const SEGMENT = String.raw`[A-Za-z0-9_.][A-Za-z0-9_.\-]*`
const PROJECT = String.raw`(?<![A-Za-z0-9_.\/\-])(?:(?<path>${SEGMENT}(?:\/${SEGMENT})*))?`
const END_OF_NUMBER = String.raw`(?![A-Za-z0-9_])`

const PATTERNS: readonly [ReferenceKind, RegExp][] = [
  ['user', new RegExp(String.raw`(?<![A-Za-z0-9_.\/@+\-])@(?<name>[A-Za-z0-9_][A-Za-z0-9_.\-]*(?:\/[A-Za-z0-9_][A-Za-z0-9_.\-]*)*)`, 'g')],
  ['issue', new RegExp(String.raw`${PROJECT}#(?<number>\d+)${END_OF_NUMBER}`, 'g')],
  ['merge_request', new RegExp(String.raw`${PROJECT}!(?<number>\d+)${END_OF_NUMBER}`, 'g')],
  [
    'label',
    new RegExp(
      String.raw`${PROJECT}~(?:(?<number>\d+)${END_OF_NUMBER}|(?<name>[A-Za-z0-9_\-?.&]+(?:::[A-Za-z0-9_\-?.&]+)*)(?<![.?])|"(?<quoted>[^"\n]+)")`,
      'g',
    ),
  ],
  ['milestone', new RegExp(String.raw`${PROJECT}%(?:(?<number>\d+)${END_OF_NUMBER}|(?<name>[^"\s<]+\b)|"(?<quoted>[^"\n]+)")`, 'g')],
]

/** GitLab's Banzai::Filter::FILTER_ITEM_LIMIT: at most this many references of one kind are looked up per document. */
export const REFERENCE_LIMIT = 1000

function referenceOf(kind: ReferenceKind, match: RegExpExecArray): Reference {
  const groups = match.groups ?? {}
  const number = groups.number === undefined ? null : Number(groups.number)
  if (kind === 'user') {
    // A path never ends with a dot: `@anna.` mentions anna.
    const name = groups.name.replace(/\.+$/, '')
    return { kind, text: `@${name}`, projectPath: null, number: null, name }
  }
  return {
    kind,
    text: match[0],
    projectPath: groups.path ?? null,
    number: Number.isSafeInteger(number) ? number : null,
    name: groups.name ?? groups.quoted ?? null,
  }
}

/** The text split into plain strings and references, in order. */
export function splitReferences(text: string, counts: Map<ReferenceKind, number>): (string | Reference)[] {
  let parts: (string | Reference)[] = [text]
  for (const [kind, pattern] of PATTERNS) {
    const next: (string | Reference)[] = []
    for (const part of parts) {
      if (typeof part !== 'string') {
        next.push(part)
        continue
      }
      let last = 0
      pattern.lastIndex = 0
      for (let match = pattern.exec(part); match; match = pattern.exec(part)) {
        const count = counts.get(kind) ?? 0
        if (count >= REFERENCE_LIMIT) break
        const reference = referenceOf(kind, match)
        if (reference.number === null && reference.name === null) continue
        counts.set(kind, count + 1)
        if (match.index > last) next.push(part.slice(last, match.index))
        next.push(reference)
        last = match.index + reference.text.length
        pattern.lastIndex = last
      }
      if (last < part.length) next.push(part.slice(last))
    }
    parts = next
  }
  return parts
}

/** The key of a reference's resolution: the same text of the same kind is the same thing in one document. */
export function referenceKey(reference: Reference): string {
  return `${reference.kind} ${reference.text}`
}
