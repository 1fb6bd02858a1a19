// The names a text mentions with `@name` (GL User.reference_pattern), outside code, as GitLab's ReferenceExtractor
// finds them in the rendered Markdown: a user's username, or a group's full path.

const MENTION = /(?<![A-Za-z0-9_./@+-])@([A-Za-z0-9_][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_][A-Za-z0-9_.-]*)*)/g

/** Fenced blocks, indented blocks after a blank line, and inline code spans mention nobody. */
function withoutCode(text: string): string {
  return text
    .replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[^\n]*$|(?![\s\S]))/gm, '')
    .replace(/(^|\n\s*\n)((?: {4}|\t)[^\n]*(?:\n|$))+/g, '$1')
    .replace(/(`+)[\s\S]*?\1/g, '')
}

/** The lowercased names the texts mention, each once; `@all` and `@here` are no one's name. */
export function mentionedNames(texts: readonly (string | null)[]): string[] {
  const names = new Set<string>()
  for (const text of texts) {
    if (!text) continue
    for (const match of withoutCode(text).matchAll(MENTION)) {
      // A path never ends with a dot: `@anna.` mentions anna.
      const name = match[1].replace(/\.+$/, '').toLowerCase()
      if (name !== '' && name !== 'all' && name !== 'here') names.add(name)
    }
  }
  return [...names]
}
