import type { Context } from '../../core/context.js'
import { Html } from '../../web/html.js'
import { renderMarkdownField, renderSingleLineField, type MarkdownOptions } from './render.js'

// GitLab Flavored Markdown, rendered once per text and reader: for pages (as Html) and for the API's `*_html` fields.
export { renderMarkdownField, renderSingleLineField, type MarkdownOptions, type RenderedMarkdown } from './render.js'

/** Markdown as page markup: pages embed it as it is, for it is escaped and sanitized by construction. */
export async function renderMarkdown(ctx: Context, text: string | null, options: MarkdownOptions = {}): Promise<Html> {
  return new Html((await renderMarkdownField(ctx, text, options)).html)
}

/** A title as page markup (GitLab's single-line pipeline). */
export async function renderMarkdownTitle(ctx: Context, text: string | null, options: MarkdownOptions = {}): Promise<Html> {
  return new Html((await renderSingleLineField(ctx, text, options)).html)
}
