import type { Context } from '../../core/context.js'
import { loadEngines, PLACEHOLDER, type ParseEnv, type RenderEnv } from './engine.js'
import { escapeHtml } from './escape.js'
import { referenceKey, type Reference } from './references.js'
import { resolveReferences, type ReferenceContext } from './resolve.js'
import type { LinkBase } from './sanitize.js'

/** Where a document is shown, and for repository files where their relative links point. */
export interface MarkdownOptions extends ReferenceContext {
  /** The file a README or other Markdown file was read from: relative links resolve in its folder at `ref`. */
  base?: { ref: string; path: string }
}

export interface RenderedMarkdown {
  html: string
  /** Whether the HTML shows references, and so depends on who reads it and on the rows they name. */
  dependsOnReader: boolean
}

type Mode = 'full' | 'single-line'

/**
 * A document rendered and sanitized once: its HTML cut at each reference, which alone depends on the reader. `pieces`
 * holds one more string than `references`, the HTML before, between and after them.
 */
interface Prepared {
  pieces: string[]
  references: Reference[]
}

// Parsed documents by mode, link scope and text: a description is parsed once, not on every request that shows it.
const MAX_PREPARED = 512
const MAX_PREPARED_CHARS = 512 * 1024
const MAX_KEPT_TEXT = 64 * 1024
const prepared = new Map<string, Prepared>()
let preparedChars = 0

function keep(key: string, document: Prepared) {
  if (key.length > MAX_KEPT_TEXT) return
  prepared.set(key, document)
  preparedChars += key.length
  for (const [oldKey] of prepared) {
    if (prepared.size <= MAX_PREPARED && preparedChars <= MAX_PREPARED_CHARS) break
    prepared.delete(oldKey)
    preparedChars -= oldKey.length
  }
}

function hostOf(externalUrl: string): string | null {
  try {
    return new URL(externalUrl).host.toLowerCase()
  } catch {
    return null
  }
}

function linkBaseOf(ctx: Context, options: MarkdownOptions): LinkBase | null {
  if (!options.base || !options.project) return null
  const prefix = new URL(ctx.config.externalUrl).pathname.replace(/\/+$/, '')
  return { projectPath: `${prefix}/${options.project.project.full_path}`, ref: options.base.ref, path: options.base.path }
}

async function prepare(ctx: Context, mode: Mode, text: string, options: MarkdownOptions): Promise<Prepared> {
  const base = linkBaseOf(ctx, options)
  const scope = base ? `${base.projectPath}\n${base.ref}\n${base.path}` : ''
  const key = `${mode}\n${ctx.config.externalUrl}\n${scope}\n${text}`
  const found = prepared.get(key)
  if (found) {
    // Most recently used last: the oldest entries go first.
    prepared.delete(key)
    prepared.set(key, found)
    return found
  }
  const engines = await loadEngines()
  const md = mode === 'full' ? engines.full : engines.singleLine
  const env: ParseEnv = { referenceCounts: new Map(), slugs: new Map() }
  const tokens = mode === 'full' ? md.parse(text, env) : md.parseInline(text, env)
  const rendered: RenderEnv = { slots: [] }
  const html = engines.sanitize(md.renderer.render(tokens, md.options, rendered), { instanceHost: hostOf(ctx.config.externalUrl), base })
  // Splitting at the placeholders leaves the HTML at even indexes and a slot's index at odd ones.
  const parts = html.split(new RegExp(PLACEHOLDER, 'g'))
  const document: Prepared = { pieces: [parts[0]], references: [] }
  for (let i = 1; i < parts.length; i += 2) {
    const slot = rendered.slots[Number(parts[i])]
    if ('html' in slot) document.pieces[document.pieces.length - 1] += slot.html + parts[i + 1]
    else {
      document.references.push(slot.reference)
      document.pieces.push(parts[i + 1])
    }
  }
  const last = document.pieces.length - 1
  if (document.pieces[last].endsWith('\n')) document.pieces[last] = document.pieces[last].slice(0, -1)
  keep(key, document)
  return document
}

async function render(ctx: Context, mode: Mode, text: string | null, options: MarkdownOptions): Promise<RenderedMarkdown> {
  if (!text) return { html: '', dependsOnReader: false }
  const { pieces, references } = await prepare(ctx, mode, text, options)
  if (references.length === 0) return { html: pieces[0], dependsOnReader: false }
  const resolutions = await resolveReferences(ctx, references, options)
  let html = pieces[0]
  references.forEach((reference, i) => {
    html += (resolutions.get(referenceKey(reference)) ?? escapeHtml(reference.text)) + pieces[i + 1]
  })
  return { html, dependsOnReader: true }
}

/**
 * GitLab Flavored Markdown as HTML for the reader of `ctx` (GL `markdown_field` with the full pipeline): headings with
 * anchors, tables, task lists, highlighted code, autolinks, emoji, and references to what the reader may see.
 */
export function renderMarkdownField(ctx: Context, text: string | null, options: MarkdownOptions = {}): Promise<RenderedMarkdown> {
  return render(ctx, 'full', text, options)
}

/** GitLab's single-line pipeline (titles): the text escaped, with autolinks, emoji and references. */
export function renderSingleLineField(ctx: Context, text: string | null, options: MarkdownOptions = {}): Promise<RenderedMarkdown> {
  return render(ctx, 'single-line', text, options)
}
