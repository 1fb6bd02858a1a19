import { Html } from './html.js'

// Syntax highlighting on the server by highlight.js, for files, snippets and diffs: a text is highlighted whole (a
// comment or a string that spans lines keeps its colour), then cut into lines, each closing the spans it opened and
// opening them again on the next. highlight.js escapes the text it returns, so its markup is safe to embed.

/** The part of highlight.js svc uses (its own types would bring the DOM's globals into the whole program). */
interface Highlighter {
  getLanguage(name: string): { aliases?: string[] } | undefined
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string }
}

/**
 * Above this size a file is shown without highlighting, as GitLab shows large files plainly: highlight.js reads about
 * a kilobyte a millisecond, and a file view stays within 50 ms of server time.
 */
export const HIGHLIGHT_MAX_BYTES = 32 * 1024

// Loaded from node_modules when first needed (never bundled): idle processes never hold it.
const HIGHLIGHT_JS = 'highlight.js/lib/common'
let loading: Promise<Highlighter> | null = null

function highlighter(): Promise<Highlighter> {
  loading ??= (import(HIGHLIGHT_JS) as Promise<{ default: Highlighter }>).then((module) => module.default)
  return loading
}

// File names and extensions whose language highlight.js's own aliases do not name.
const BY_NAME: Record<string, string> = {
  dockerfile: 'dockerfile',
  makefile: 'makefile',
  gnumakefile: 'makefile',
  gemfile: 'ruby',
  rakefile: 'ruby',
  'cmakelists.txt': 'cmake',
  '.gitignore': 'bash',
  '.bashrc': 'bash',
  '.gitlab-ci.yml': 'yaml',
}
const BY_EXTENSION: Record<string, string> = {
  mjs: 'javascript',
  cjs: 'javascript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'typescript',
  jsx: 'javascript',
  yml: 'yaml',
  htm: 'xml',
  vue: 'xml',
  svg: 'xml',
  gemspec: 'ruby',
  h: 'c',
  hpp: 'cpp',
  cc: 'cpp',
  mk: 'makefile',
  toml: 'ini',
}

function languageIn(hljs: Highlighter, fileName: string): string | null {
  const lower = fileName.slice(fileName.lastIndexOf('/') + 1).toLowerCase()
  const named = BY_NAME[lower]
  if (named) return named
  const dot = lower.lastIndexOf('.')
  if (dot < 0) return null
  const extension = lower.slice(dot + 1)
  const language = BY_EXTENSION[extension] ?? extension
  return hljs.getLanguage(language) ? language : null
}

/** The lines of a text; a final line feed ends the last line and starts none. */
export function linesOf(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line))
}

/**
 * The lines of a text, escaped: the whole text at once by the same replacements escapeHtml makes (a pass per
 * character kind is several times faster than a callback per character on a large file).
 */
function escapedLines(text: string): Html[] {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
  return linesOf(escaped).map((line) => new Html(line))
}

/** highlight.js markup cut into lines: every line closes the spans still open at its end and the next opens them again. */
function splitMarkup(markup: string): string[] {
  const lines: string[] = []
  const open: string[] = []
  let line = ''
  let at = 0
  const tags = /<span[^>]*>|<\/span>|\n/g
  for (let match = tags.exec(markup); match; match = tags.exec(markup)) {
    line += markup.slice(at, match.index)
    at = match.index + match[0].length
    if (match[0] === '\n') {
      lines.push(line + '</span>'.repeat(open.length))
      line = open.join('')
    } else if (match[0] === '</span>') {
      open.pop()
      line += match[0]
    } else {
      open.push(match[0])
      line += match[0]
    }
  }
  line += markup.slice(at)
  lines.push(line)
  return lines
}

/** Highlighted lines by blob, a file's lines never changing: bounded by their characters, the oldest go first. */
const KEPT_CHARS = 16 * 1024 * 1024
const kept = new Map<string, Html[]>()
let keptChars = 0

function keep(key: string, lines: Html[], chars: number) {
  kept.set(key, lines)
  keptChars += chars
  for (const [oldKey, oldLines] of kept) {
    if (keptChars <= KEPT_CHARS) break
    kept.delete(oldKey)
    keptChars -= oldLines.reduce((sum, line) => sum + line.text.length, 0)
  }
}

/** A file's lines as markup, highlighted when its language is known and it is small enough; plain (escaped) otherwise. */
export async function highlightedLines(
  fileName: string,
  text: string,
  blobId: string | null,
): Promise<{ lines: Html[]; language: string | null; tooLarge: boolean }> {
  const lines = linesOf(text)
  const tooLarge = text.length > HIGHLIGHT_MAX_BYTES
  const plain = () => ({ lines: escapedLines(text), language: null, tooLarge })
  if (tooLarge) return plain()
  const hljs = await highlighter()
  const language = languageIn(hljs, fileName)
  if (!language) return plain()
  const key = blobId ? `${blobId}\0${language}` : null
  const known = key ? kept.get(key) : undefined
  if (known) return { lines: known, language, tooLarge }
  const markup = hljs.highlight(lines.join('\n'), { language, ignoreIllegals: true }).value
  const highlighted = splitMarkup(markup).map((line) => new Html(line))
  // An empty text highlights to one empty line, which the file does not have.
  const result = highlighted.slice(0, lines.length)
  if (key) keep(key, result, markup.length)
  return { lines: result, language, tooLarge }
}

/** The highlight.js language of a file by its name, or null (shown plain). */
export async function languageOf(fileName: string): Promise<string | null> {
  return languageIn(await highlighter(), fileName)
}

/** The lines of `code` highlighted as `language` (null: escaped only), one Html per line, without their line ends. */
export async function highlightLines(code: string, language: string | null): Promise<Html[]> {
  if (language === null || code.length > HIGHLIGHT_MAX_BYTES) return escapedLines(`${code}\n`)
  const hljs = await highlighter()
  return splitMarkup(hljs.highlight(code, { language, ignoreIllegals: true }).value).map((line) => new Html(line))
}

/**
 * Wraps characters `start` to `end` of a highlighted line's text in `<tag>`, closing and reopening it around the
 * highlighting's own tags so that the markup stays well nested (GL Gitlab::Diff::InlineDiffMarker).
 */
export function markRange(line: Html, start: number, end: number, tag: 'ins' | 'del'): Html {
  if (start >= end) return line
  const text = line.text
  let out = ''
  let position = 0
  let inside = false
  for (let i = 0; i < text.length;) {
    if (text[i] === '<') {
      const close = text.indexOf('>', i) + 1
      if (inside) out += `</${tag}>`
      out += text.slice(i, close)
      if (inside) out += `<${tag}>`
      i = close
      continue
    }
    if (position === start && !inside) {
      out += `<${tag}>`
      inside = true
    }
    const length = text[i] === '&' ? text.indexOf(';', i) + 1 - i : 1
    out += text.slice(i, i + length)
    i += length
    position += 1
    if (position === end && inside) {
      out += `</${tag}>`
      inside = false
    }
  }
  if (inside) out += `</${tag}>`
  return new Html(out.replace(new RegExp(`<${tag}></${tag}>`, 'g'), ''))
}
