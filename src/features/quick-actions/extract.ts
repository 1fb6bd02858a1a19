// Finding quick actions in a text (GL Gitlab::QuickActions::Extractor): a line that starts with `/name` and an
// optional argument is a command, unless it sits in a code block, a run of inline code, an HTML block or a `>>>`
// quote; the command lines leave the text.

/** One command as written: its name in lower case, and its argument when it has one. */
export interface ExtractedCommand {
  name: string
  arg: string | null
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

const cache = new Map<string, RegExp>()

/** GL Extractor#commands_regex, with Ruby's `m` (dot matches newlines) as JavaScript's `s` and its line anchors as `m`. */
function commandsRegex(names: readonly string[]): RegExp {
  const key = names.join('|')
  let regex = cache.get(key)
  if (!regex) {
    const union = names.map(escapeRegExp).join('|')
    regex = new RegExp(
      [
        '(?<code>^```.+?\\n```$)',
        '(?<inlineCode>^.*`\\n*.+?\\n*`$)',
        '(?<html>^<[^>]+?>\\n.+?\\n<\\/[^>]+?>$)',
        '(?<quote>^>>>.+?\\n>>>$)',
        `(?:^\\/(?<cmd>${union})(?:[ ](?<arg>[^\\n]*))?(?:\\s*\\n|$))`,
      ].join('|'),
      'gims',
    )
    cache.set(key, regex)
  }
  regex.lastIndex = 0
  return regex
}

/**
 * The text without its command lines (carriage returns dropped, trailing white space trimmed) and the commands in
 * the order written (GL Extractor#extract_commands).
 */
export function extractCommands(text: string, names: readonly string[]): { content: string; commands: ExtractedCommand[] } {
  const commands: ExtractedCommand[] = []
  const content = text.replace(/\r/g, '').replace(commandsRegex(names), (...match) => {
    const groups = match[match.length - 1] as Record<string, string | undefined>
    if (groups.cmd === undefined) return match[0] as string
    const arg = groups.arg?.trim() ?? ''
    commands.push({ name: groups.cmd.toLowerCase(), arg: arg === '' ? null : arg })
    return ''
  })
  return { content: content.trimEnd(), commands }
}
