// Ruby's String#strip: NUL and ASCII whitespace, nothing else.
const RUBY_STRIP = /^[\0\t\n\v\f\r ]+|[\0\t\n\v\f\r ]+$/g

const TITLE_MAX_CHARACTERS = 70
const OMISSION = '...'

/**
 * GL PushEventPayloadService#commit_title: the message up to its first line feed, stripped, then cut as Rails'
 * `truncate(70)` cuts (67 characters and "...", characters counted as Ruby counts them, by code point).
 */
export function pushCommitTitle(message: string): string {
  const end = message.indexOf('\n')
  const line = (end < 0 ? message : message.slice(0, end)).replace(RUBY_STRIP, '')
  const characters = [...line]
  if (characters.length <= TITLE_MAX_CHARACTERS) return line
  return `${characters.slice(0, TITLE_MAX_CHARACTERS - OMISSION.length).join('')}${OMISSION}`
}
