import type { Env, MarkdownIt, StateCore, Token } from 'markdown-it'
import { escapeHtml } from './escape.js'
import { splitReferences, type Reference, type ReferenceKind } from './references.js'
import { isSafeUrl, OWN_CLASS, sanitizeDocument, type SanitizeHtml, type SanitizeOptions } from './sanitize.js'

// Raw HTML is on (`html: true`), as in GitLab: the rendered document goes through sanitize-html with GitLab's allowlist
// (sanitize.ts), which also closes what a writer left open and gives links written in HTML the rules of Markdown links.
// The markup the engine writes itself (heading anchors, task list checkboxes, highlighted code, emoji, references)
// stands in the document as a placeholder while it is sanitized and goes in afterwards, unchanged; so the sanitizer
// never parses highlighted code, a reference is resolved for each reader without sanitizing again, and HTML a writer
// typed cannot pass for the engine's (a hand-written `<a class="gfm gfm-issue" data-issue="1">` loses both).

/** What a document's parse records, and what the rules read while parsing. */
export interface ParseEnv extends Env {
  referenceCounts: Map<ReferenceKind, number>
  slugs: Map<string, number>
}

/** What stands at a placeholder: the engine's markup, or a reference resolved for each reader. */
export type Slot = { html: string } | { reference: Reference }

export interface RenderEnv extends Env {
  slots: Slot[]
}

/** A placeholder holds a slot's index between two U+0000, a character no document holds (see OWN_CLASS). */
// eslint-disable-next-line no-control-regex
export const PLACEHOLDER = /\u0000(\d+)\u0000/

function placeholder(env: RenderEnv, slot: Slot): string {
  env.slots.push(slot)
  return `\u0000${env.slots.length - 1}\u0000`
}

export interface Engines {
  /** GitLab's full pipeline: descriptions, comments, READMEs. */
  full: MarkdownIt
  /** GitLab's single-line pipeline: titles (no Markdown; autolinks, emoji and references). */
  singleLine: MarkdownIt
  /** GitLab's sanitizing and link filters over a rendered document. */
  sanitize(html: string, options: SanitizeOptions): string
}

const HIGHLIGHT_LIMIT = 128 * 1024

/** GL TableOfContentsFilter: lower case, punctuation dropped, spaces as dashes, one dash for many. */
export function slugOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-')
    .replace(/-+/g, '-')
}

const TEXT_TYPES = new Set(['text', 'code_inline', 'text_special', 'emoji', 'gfm_reference'])

function textOf(inline: Token): string {
  return (inline.children ?? [])
    .filter((child) => TEXT_TYPES.has(child.type))
    .map((child) => child.content)
    .join('')
}

const CONTAINER_MARKERS: Record<string, RegExp> = {
  blockquote_open: /^[ \t]*>[ \t]?/,
  list_item_open: /^[ \t]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|$)/,
}

/** GitLab's `data-sourcepos`: line:column-line:column of the block in the source, columns counted in bytes. */
function sourcepos(lines: string[], token: Token, containers: Token[], first: Token): string | null {
  if (!token.map || !first.map) return null
  const start = first.map[0]
  const after = token.map[1]
  let end = Math.max(start, after - 1)
  while (end > start && lines[end].trim() === '') end -= 1
  const line = lines[start] ?? ''
  let offset = 0
  for (const container of containers) {
    if (container === first || !container.map || container.map[0] !== start) continue
    const marker = CONTAINER_MARKERS[container.type]?.exec(line.slice(offset))
    if (marker) offset += marker[0].length
  }
  while (offset < line.length && (line[offset] === ' ' || line[offset] === '\t')) offset += 1
  const last = (lines[end] ?? '').trimEnd()
  return `${start + 1}:${Buffer.byteLength(line.slice(0, offset)) + 1}-${end + 1}:${Math.max(1, Buffer.byteLength(last))}`
}

const DIRECTED = new Set(['paragraph_open', 'heading_open', 'bullet_list_open', 'ordered_list_open', 'blockquote_open', 'table_open'])
const POSITIONED = new Set([...DIRECTED, 'list_item_open', 'tr_open', 'hr', 'fence', 'code_block'])

/** Source positions and `dir="auto"`, heading anchors, task lists and table alignment, as GitLab marks them. */
function markBlocks(state: StateCore) {
  const lines = state.src.split('\n')
  const env = state.env as ParseEnv
  const tokens = state.tokens
  const containers: Token[] = []
  const lists: Token[] = []
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]
    if (token.type === 'blockquote_open' || token.type === 'list_item_open') containers.push(token)
    if (token.type === 'bullet_list_open' || token.type === 'ordered_list_open') lists.push(token)
    if (POSITIONED.has(token.type) && !token.hidden) {
      // A list starts where its first item does, after the markers of the containers it sits in.
      const isList = token.type === 'bullet_list_open' || token.type === 'ordered_list_open'
      const first = isList ? tokens[i + 1] : token
      const position = sourcepos(lines, token, isList ? [...containers, first] : containers, first)
      if (position) token.attrSet('data-sourcepos', position)
    }
    if (DIRECTED.has(token.type) && !token.hidden) token.attrSet('dir', 'auto')
    if (token.type === 'heading_open') addHeadingAnchor(state, tokens[i + 1], env)
    if (token.type === 'list_item_open') markTaskItem(state, tokens, i, lists[lists.length - 1])
    if (token.type === 'th_open' || token.type === 'td_open') {
      // The Content-Security-Policy refuses inline styles; GitLab writes `align` too.
      const style = token.attrGet('style')
      if (typeof style === 'string') {
        token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style')
        token.attrSet('align', style.replace('text-align:', ''))
      }
    }
    if (token.type === 'blockquote_close' || token.type === 'list_item_close') containers.pop()
    if (token.type === 'bullet_list_close' || token.type === 'ordered_list_close') lists.pop()
  }
}

function addHeadingAnchor(state: StateCore, inline: Token | undefined, env: ParseEnv) {
  if (!inline || inline.type !== 'inline' || !inline.children) return
  const slug = slugOf(textOf(inline))
  if (slug === '') return
  const seen = env.slugs.get(slug) ?? 0
  env.slugs.set(slug, seen + 1)
  const anchor = new state.Token('heading_anchor', 'a', 0)
  anchor.meta = { id: seen > 0 ? `${slug}-${seen}` : slug }
  inline.children.unshift(anchor)
}

const TASK_MARKER = /^\[([ xX])\](?=[ \t]|$)/

function markTaskItem(state: StateCore, tokens: Token[], index: number, list: Token | undefined) {
  const inline = tokens[index + 2]
  if (!list || tokens[index + 1]?.type !== 'paragraph_open' || inline?.type !== 'inline' || !inline.children) return
  const first = inline.children[0]
  const marker = first?.type === 'text' ? TASK_MARKER.exec(first.content) : null
  if (!marker) return
  first.content = first.content.slice(marker[0].length)
  const checkbox = new state.Token('task_checkbox', 'input', 0)
  checkbox.meta = { checked: marker[1] !== ' ' }
  inline.children.unshift(checkbox)
  tokens[index].attrSet('class', `${OWN_CLASS}task-list-item`)
  list.attrSet('class', `${OWN_CLASS}task-list`)
}

const SKIPPED_OPEN = /^<(?:a|code|pre)[\s>]/i
const SKIPPED_CLOSE = /^<\/(?:a|code|pre)[\s>]/i

/** Text outside links and code, in Markdown or in HTML, becomes text and reference tokens (GL ReferenceFilter skips pre, code and a). */
function findReferences(state: StateCore) {
  const env = state.env as ParseEnv
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue
    const children: Token[] = []
    let skippedDepth = 0
    for (const child of block.children) {
      if (child.type === 'link_open' || (child.type === 'html_inline' && SKIPPED_OPEN.test(child.content))) skippedDepth += 1
      if (child.type === 'link_close' || (child.type === 'html_inline' && SKIPPED_CLOSE.test(child.content))) {
        skippedDepth = Math.max(0, skippedDepth - 1)
      }
      if (child.type !== 'text' || skippedDepth > 0 || !/[#!~%@]/.test(child.content)) {
        children.push(child)
        continue
      }
      for (const part of splitReferences(child.content, env.referenceCounts)) {
        const token = new state.Token(typeof part === 'string' ? 'text' : 'gfm_reference', '', 0)
        token.level = child.level
        if (typeof part === 'string') token.content = part
        else {
          token.content = part.text
          token.meta = { reference: part }
        }
        children.push(token)
      }
    }
    block.children = children
  }
}

function positionOf(token: Token): string | null {
  const position = token.attrGet('data-sourcepos')
  return position === null ? null : String(position)
}

type RendererRule = MarkdownIt['renderer']['rules'][string]

/** A renderer rule whose markup stands as a placeholder until the document is sanitized. */
function ownMarkup(render: (token: Token) => string): RendererRule {
  return (tokens, index, _options, env) => placeholder(env as RenderEnv, { html: render(tokens[index]) })
}

const renderReference: RendererRule = (tokens, index, _options, env) =>
  placeholder(env as RenderEnv, { reference: (tokens[index].meta as { reference: Reference }).reference })

const renderEmoji = ownMarkup((token) => {
  const name = escapeHtml(token.markup)
  return `<gl-emoji title="${name}" data-name="${name}">${token.content}</gl-emoji>`
})

/** The part of highlight.js svc uses (its own types would bring the DOM's globals into the whole program). */
interface Highlighter {
  listLanguages(): string[]
  getLanguage(name: string): { aliases?: string[] } | undefined
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string }
}

type EmojiPlugin = (md: MarkdownIt, options: { shortcuts: Record<string, string> }) => void

/**
 * A package loaded from node_modules when first needed, not bundled into dist/svc.mjs: markdown-it's source holds
 * characters above U+00FF, which the bundle must not (scripts/check-bundle.mjs), and a process that never renders
 * Markdown never holds the source of these libraries.
 */
function loadAtRunTime<T>(specifier: string): Promise<T> {
  return import(specifier) as Promise<T>
}

async function createEngines(): Promise<Engines> {
  const [{ default: createMarkdownIt }, { full: emoji }, { default: hljs }, { default: sanitizeHtml }] = await Promise.all([
    loadAtRunTime<typeof import('markdown-it')>('markdown-it'),
    loadAtRunTime<{ full: EmojiPlugin }>('markdown-it-emoji'),
    loadAtRunTime<{ default: Highlighter }>('highlight.js/lib/common'),
    loadAtRunTime<{ default: SanitizeHtml }>('sanitize-html'),
  ])
  const languages = new Map<string, string>()
  for (const name of hljs.listLanguages()) {
    languages.set(name, name)
    for (const alias of hljs.getLanguage(name)?.aliases ?? []) languages.set(alias.toLowerCase(), name)
  }

  const codeBlock = (content: string, written: string, position: string | null) => {
    const language = languages.get(written.toLowerCase()) ?? null
    const code =
      language && content.length <= HIGHLIGHT_LIMIT
        ? hljs.highlight(content, { language, ignoreIllegals: true }).value
        : escapeHtml(content)
    const positionAttribute = position ? ` data-sourcepos="${escapeHtml(position)}"` : ''
    const lang = escapeHtml(written || 'plaintext')
    return (
      `<div class="gl-relative markdown-code-block js-markdown-code">\n<pre${positionAttribute} lang="${lang}" ` +
      `class="code highlight js-syntax-highlight language-${language ?? 'plaintext'}" v-pre="true"><code>${code}</code></pre>\n</div>\n`
    )
  }

  const withRules = (md: MarkdownIt) => {
    md.validateLink = isSafeUrl
    md.use(emoji, { shortcuts: {} })
    md.core.ruler.before('text_join', 'gfm_references', findReferences)
    md.renderer.rules.gfm_reference = renderReference
    md.renderer.rules.emoji = renderEmoji
    return md
  }

  const full = withRules(createMarkdownIt({ html: true, linkify: true, typographer: false }))
  full.core.ruler.push('gfm_blocks', markBlocks)
  full.renderer.rules.heading_anchor = ownMarkup((token) => {
    const id = (token.meta as { id: string }).id
    return `<a href="#${escapeHtml(encodeURIComponent(id))}" aria-hidden="true" class="anchor" id="user-content-${escapeHtml(id)}"></a>`
  })
  full.renderer.rules.task_checkbox = ownMarkup((token) => {
    const checked = (token.meta as { checked: boolean }).checked ? ' checked' : ''
    return `<task-button></task-button><input type="checkbox" class="task-list-item-checkbox"${checked} disabled>`
  })
  full.renderer.rules.fence = ownMarkup((token) => {
    const info = full.utils.unescapeAll(token.info).trim()
    return codeBlock(token.content, info.split(/\s+/)[0] ?? '', positionOf(token))
  })
  full.renderer.rules.code_block = ownMarkup((token) => codeBlock(token.content, '', positionOf(token)))

  // GitLab's single-line pipeline escapes HTML (HtmlEntityFilter) before anything else.
  const singleLine = withRules(createMarkdownIt('zero', { html: false, linkify: true }))
  singleLine.enable(['linkify'])
  return { full, singleLine, sanitize: (html, options) => sanitizeDocument(sanitizeHtml, html, options) }
}

let engines: Promise<Engines> | undefined

/** The Markdown engines, made on first use: idle processes never load markdown-it, highlight.js or sanitize-html. */
export function loadEngines(): Promise<Engines> {
  engines ??= createEngines().catch((error: unknown) => {
    engines = undefined
    throw error
  })
  return engines
}
