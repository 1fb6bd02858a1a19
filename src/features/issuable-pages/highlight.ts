import { escapeHtml, Html } from '../../web/html.js'

// Syntax highlighting of files and diffs by highlight.js, line by line: a block is highlighted whole (so strings and
// comments spanning lines keep their colour), then cut into lines, each closing the spans it opened and reopening them
// on the next. highlight.js escapes the text it returns, so its markup is safe to embed.

type Highlighter = typeof import('highlight.js/lib/common').default

let loading: Promise<{ hljs: Highlighter; languages: Map<string, string> }> | null = null

/** highlight.js and its languages by name, alias and file extension, loaded on first use. */
function load() {
  loading ??= import('highlight.js/lib/common').then(({ default: hljs }) => {
    const languages = new Map<string, string>()
    for (const name of hljs.listLanguages()) {
      languages.set(name, name)
      for (const alias of hljs.getLanguage(name)?.aliases ?? []) languages.set(alias.toLowerCase(), name)
    }
    return { hljs, languages }
  })
  return loading
}

// Names and extensions that highlight.js's aliases do not cover.
const FILE_NAMES: Record<string, string> = { dockerfile: 'dockerfile', makefile: 'makefile', gemfile: 'ruby', rakefile: 'ruby' }
const EXTENSIONS: Record<string, string> = {
  mjs: 'javascript',
  cjs: 'javascript',
  mts: 'typescript',
  cts: 'typescript',
  yml: 'yaml',
  htm: 'xml',
}

/** Above this many characters a block is shown plain: highlighting it would cost more than it is worth. */
const HIGHLIGHT_LIMIT = 512 * 1024

/** The highlight.js language of a file by its name, or null for plain text. */
export async function languageOf(fileName: string): Promise<string | null> {
  const { languages } = await load()
  const base = fileName.slice(fileName.lastIndexOf('/') + 1).toLowerCase()
  if (FILE_NAMES[base]) return FILE_NAMES[base]
  const dot = base.lastIndexOf('.')
  if (dot < 0) return null
  const extension = base.slice(dot + 1)
  return EXTENSIONS[extension] ?? languages.get(extension) ?? null
}

const TAG = /<\/?span[^>]*>/g

/** Cuts highlighted markup into lines whose spans are balanced. */
function splitLines(markup: string): string[] {
  const lines: string[] = []
  const open: string[] = []
  for (const raw of markup.split('\n')) {
    let line = open.join('')
    let last = 0
    for (const match of raw.matchAll(TAG)) {
      line += raw.slice(last, match.index) + match[0]
      last = match.index + match[0].length
      if (match[0].startsWith('</')) open.pop()
      else open.push(match[0])
    }
    line += raw.slice(last) + '</span>'.repeat(open.length)
    lines.push(line)
  }
  return lines
}

/** The lines of `code` highlighted as `language` (null: escaped only), one Html per line, without their line ends. */
export async function highlightLines(code: string, language: string | null): Promise<Html[]> {
  if (language === null || code.length > HIGHLIGHT_LIMIT) return code.split('\n').map((line) => new Html(escapeHtml(line)))
  const { hljs } = await load()
  return splitLines(hljs.highlight(code, { language, ignoreIllegals: true }).value).map((line) => new Html(line))
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
