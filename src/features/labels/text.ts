// Label titles and descriptions as GitLab stores and renders them (GL app/models/label.rb `sanitize_value`,
// `cache_markdown_field :description, pipeline: :single_line`).

// Elements whose content Sanitize drops with them (Sanitize::Config::DEFAULT remove_contents).
const DROPPED_WITH_CONTENT = /<(script|style|iframe|math|noembed|noframes|noscript|plaintext|svg|xmp)\b[^>]*>[\s\S]*?(<\/\1\s*>|$)/gi
// Block elements Sanitize replaces by a space so words on either side stay apart (Sanitize whitespace_elements).
const BLOCK_TAG =
  /<\/?(address|article|aside|blockquote|br|dd|div|dl|dt|footer|h[1-6]|header|hgroup|hr|li|nav|ol|p|pre|section|ul)\b[^>]*>/gi
const ANY_TAG = /<\/?[A-Za-z][^>]*>|<!--[\s\S]*?-->|<![^>]*>/g

/** The entities CGI.unescapeHTML decodes: &amp; &lt; &gt; &quot; &#39; &apos; and numeric ones. */
function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, (entity, name: string) => {
    const lower = name.toLowerCase()
    if (lower === 'amp') return '&'
    if (lower === 'lt') return '<'
    if (lower === 'gt') return '>'
    if (lower === 'quot') return '"'
    if (lower === 'apos') return "'"
    const code = lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10)
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity
  })
}

/** GL Label#sanitize_value (`CGI.unescapeHTML(Sanitize.clean(value))`): markup removed, entities decoded; blank values kept as given. */
export function sanitizeLabelText(value: string): string {
  if (value.trim() === '') return value
  return unescapeHtml(value.replace(DROPPED_WITH_CONTENT, '').replace(BLOCK_TAG, ' ').replace(ANY_TAG, ''))
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

// GL Banzai::Filter::AutolinkFilter LINK_PATTERN: a scheme, `://`, then anything up to white space or `<`,
// without trailing punctuation.
const LINK = /\b[a-z][a-z0-9+.-]*:\/\/[^\s<>]+/gi
const TRAILING_PUNCTUATION = /[?!.,:;'"]+$/

function trimLink(url: string): string {
  let trimmed = url.replace(TRAILING_PUNCTUATION, '')
  // A closing parenthesis belongs to the link only when the link opened one.
  while (trimmed.endsWith(')') && (trimmed.match(/\(/g)?.length ?? 0) < (trimmed.match(/\)/g)?.length ?? 0)) {
    trimmed = trimmed.slice(0, -1).replace(TRAILING_PUNCTUATION, '')
  }
  return trimmed
}

/**
 * `description_html`: GitLab renders label descriptions with its single-line pipeline, which has no Markdown
 * step (no `<p>`, no `data-sourcepos`): the text HTML-escaped (quotes stay as they are, as Nokogiri writes text
 * nodes) and URLs turned into external links (AutolinkFilter, ExternalLinkFilter). A missing description renders
 * as "" (Banzai::Renderer.cacheless_render of blank text). Emoji and references are left as text.
 */
export function renderDescriptionHtml(description: string | null): string {
  if (description === null || description.trim() === '') return description ?? ''
  let html = ''
  let last = 0
  for (const match of description.matchAll(LINK)) {
    const url = trimLink(match[0])
    if (!/^[a-z][a-z0-9+.-]*:\/\/./i.test(url)) continue
    html += escapeHtml(description.slice(last, match.index))
    const escaped = escapeHtml(url).replace(/"/g, '&quot;')
    html += `<a href="${escaped}" rel="nofollow noreferrer noopener" target="_blank">${escapeHtml(url)}</a>`
    last = match.index + url.length
  }
  return html + escapeHtml(description.slice(last))
}
