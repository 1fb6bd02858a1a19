// The raw HTML GitLab keeps in Markdown (GL Banzai::Filter::SanitizationFilter over BaseSanitizationFilter and
// HTML::Pipeline::SanitizationFilter's allowlist), applied by sanitize-html to the whole rendered document, so that
// tags a writer opens and never closes are closed inside it and closing tags it never opened are dropped. Links and
// images, written in Markdown or in HTML alike, then get GitLab's later filters: relative links of a repository file
// point into the repository (RelativeLinkFilter) and links elsewhere open apart (ExternalLinkFilter).

/** Where relative links of a repository file point: `/-/blob/<ref>/<dir>/...`, and images at `/-/raw/...`. */
export interface LinkBase {
  /** The project's URL path, such as `/group/project`. */
  projectPath: string
  ref: string
  /** The file's path in the repository; its links are relative to its folder. */
  path: string
}

export interface SanitizeOptions {
  /** The instance's host: links elsewhere open with rel="nofollow noreferrer noopener". */
  instanceHost: string | null
  base: LinkBase | null
}

/**
 * Starts a class the engine writes itself (task lists). No document holds U+0000 (markdown-it reads it as U+FFFD, and
 * so does an HTML parser in `&#0;`), so a class a writer typed never carries it and is dropped.
 */
export const OWN_CLASS = '\u0000'

const ALLOWED_SCHEMES = new Set(['http', 'https', 'mailto', 'ftp'])

/**
 * Only relative URLs and the schemes above. Browsers drop control characters and spaces inside a scheme, so the
 * check does too, after undoing the percent-encoding markdown-it applies before it asks.
 */
export function isSafeUrl(url: string): boolean {
  let decoded = url
  try {
    decoded = decodeURIComponent(url)
  } catch {
    // A lone % stays as written.
  }
  // eslint-disable-next-line no-control-regex
  const compact = decoded.replace(/[\u0000-\u0020\u007f-\u009f]/g, '')
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(compact)
  return scheme === null || ALLOWED_SCHEMES.has(scheme[1].toLowerCase())
}

function resolveRelative(url: string, base: LinkBase, raw: boolean): string {
  if (url === '' || url.startsWith('#') || url.startsWith('//') || /^[a-z][a-z0-9+.-]*:/i.test(url)) return url
  const split = url.search(/[?#]/)
  const path = split === -1 ? url : url.slice(0, split)
  const suffix = split === -1 ? '' : url.slice(split)
  const folder = path.startsWith('/') ? [] : base.path.split('/').slice(0, -1)
  const segments: string[] = []
  for (const segment of [...folder, ...path.split('/')]) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') segments.pop()
    else segments.push(segment)
  }
  const view = raw ? 'raw' : path.endsWith('/') || segments.length === 0 ? 'tree' : 'blob'
  const ref = base.ref.split('/').map(encodeURIComponent).join('/')
  return `${base.projectPath}/-/${view}/${ref}${segments.length > 0 ? '/' : ''}${segments.join('/')}${suffix}`
}

function isExternal(href: string, instanceHost: string | null): boolean {
  const match = /^(?:https?:)?\/\/([^/?#]+)/i.exec(href)
  return match !== null && match[1].toLowerCase() !== instanceHost
}

// HTML::Pipeline::SanitizationFilter's elements, with span, details, summary, abbr (GitLab) and section (footnotes).
const ELEMENTS = [
  ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'h7', 'h8', 'br', 'b', 'i', 'strong', 'em', 'a', 'pre', 'code', 'img', 'tt'],
  ...['div', 'ins', 'del', 'sup', 'sub', 'p', 'ol', 'ul', 'table', 'thead', 'tbody', 'tfoot', 'blockquote'],
  ...['dl', 'dt', 'dd', 'kbd', 'q', 'samp', 'var', 'hr', 'ruby', 'rt', 'rp', 'li', 'tr', 'td', 'th', 's', 'strike'],
  ...['summary', 'details', 'caption', 'figure', 'figcaption', 'abbr', 'bdo', 'cite', 'dfn', 'mark', 'small', 'span'],
  ...['time', 'wbr', 'section'],
]

// Its attributes on every element, less `name` (GitLab keeps that on links only), with CommonMark's data-sourcepos.
const ON_ALL = [
  ...['abbr', 'accept', 'accept-charset', 'accesskey', 'action', 'align', 'alt', 'aria-describedby', 'aria-hidden'],
  ...['aria-label', 'aria-labelledby', 'axis', 'border', 'cellpadding', 'cellspacing', 'char', 'charoff', 'charset'],
  ...['checked', 'clear', 'cols', 'colspan', 'color', 'compact', 'coords', 'datetime', 'dir', 'disabled', 'enctype'],
  ...['for', 'frame', 'headers', 'height', 'hreflang', 'hspace', 'ismap', 'label', 'lang', 'maxlength', 'media'],
  ...['method', 'multiple', 'nohref', 'noshade', 'nowrap', 'open', 'prompt', 'readonly', 'rel', 'rev', 'rows'],
  ...['rowspan', 'rules', 'scope', 'selected', 'shape', 'size', 'span', 'start', 'summary', 'tabindex', 'target'],
  ...['title', 'type', 'usemap', 'valign', 'value', 'vspace', 'width', 'itemprop', 'data-sourcepos', 'data-escaped-char'],
]

const ATTRIBUTES: Record<string, string[]> = {
  '*': ON_ALL,
  a: ['href', 'name', 'id', 'class', 'data-footnote-ref', 'data-footnote-backref', 'data-footnote-backref-idx'],
  img: ['src', 'longdesc', 'data-diagram', 'data-diagram-src'],
  div: ['itemscope', 'itemtype'],
  blockquote: ['cite'],
  del: ['cite'],
  ins: ['cite'],
  q: ['cite'],
  span: ['data-math-style', 'data-escaped-chars'],
  code: ['data-math-style'],
  pre: ['data-canonical-lang', 'data-lang-params', 'data-math-style', 'data-mermaid-style', 'data-kroki-style'],
  table: ['data-table-fields', 'data-table-filter', 'data-table-markdown'],
  section: ['data-footnotes'],
  li: ['id', 'class'],
  ul: ['class'],
  ol: ['class'],
}

const URL_ATTRIBUTES = ['href', 'src', 'cite', 'longdesc']
const LISTS = new Set(['ul', 'ol'])
const TABLE_PARTS = new Set(['thead', 'tbody', 'tfoot', 'tr', 'td', 'th'])
/** A name no allowlist holds: the element goes, its content stays. */
const UNWRAPPED = 'svc-unwrapped'
const TABLE_ALIGNMENT = /text-align:\s*(center|left|right)/

type Attributes = Record<string, string>

/** The part of sanitize-html svc uses. */
export interface SanitizeHtmlOptions {
  allowedTags: string[]
  allowedAttributes: Record<string, string[]>
  allowedEmptyAttributes: string[]
  allowedSchemes: string[]
  allowedSchemesAppliedToAttributes: string[]
  allowProtocolRelative: boolean
  disallowedTagsMode: 'discard'
  transformTags: Record<string, (tagName: string, attribs: Attributes) => { tagName: string; attribs: Attributes }>
  onOpenTag: (name: string) => void
  onCloseTag: (name: string) => void
}
export type SanitizeHtml = (html: string, options: SanitizeHtmlOptions) => string

/** GL SanitizationFilter#remove_id_attributes: ids of heading anchors and footnotes only. */
function keepsId(tagName: string, attribs: Attributes): boolean {
  const id = attribs.id
  if (tagName === 'li') return id.startsWith('fn-')
  return id.startsWith('fnref-') || (attribs.class === 'anchor' && id.startsWith('user-content-'))
}

/** The attributes of one element as GitLab keeps them, in the order written, with the link rules after. */
function cleanAttributes(tagName: string, attribs: Attributes, options: SanitizeOptions): Attributes {
  const cleaned: Attributes = {}
  for (const [name, value] of Object.entries(attribs)) {
    if (name === 'class') {
      // The engine's own classes, and a link's `anchor` (GL remove_unsafe_link_class).
      if (value.startsWith(OWN_CLASS)) cleaned.class = value.slice(OWN_CLASS.length)
      else if (tagName === 'a' && value === 'anchor') cleaned.class = value
    } else if (name === 'id') {
      if (keepsId(tagName, attribs)) cleaned.id = value
    } else if (name === 'style') {
      // GitLab keeps only a table cell's alignment; the Content-Security-Policy refuses inline styles, so it becomes `align`.
      const alignment = tagName === 'th' || tagName === 'td' ? TABLE_ALIGNMENT.exec(value) : null
      if (alignment && attribs.align === undefined) cleaned.align = alignment[1]
    } else if (URL_ATTRIBUTES.includes(name) && !isSafeUrl(value)) {
      continue
    } else if (tagName === 'a' && (name === 'rel' || name === 'target')) {
      // GL BaseSanitizationFilter.remove_rel keeps rel="license" only; ExternalLinkFilter decides the rest below.
      if (name === 'target' || value === 'license') cleaned[name] = value
    } else if (options.base && ((tagName === 'a' && name === 'href') || (tagName === 'img' && name === 'src'))) {
      cleaned[name] = resolveRelative(value, options.base, tagName === 'img')
    } else {
      cleaned[name] = value
    }
  }
  if (tagName === 'a' && cleaned.href !== undefined && isExternal(cleaned.href, options.instanceHost)) {
    delete cleaned.rel
    delete cleaned.target
    cleaned.rel = 'nofollow noreferrer noopener'
    cleaned.target = '_blank'
  }
  return cleaned
}

/** A document's HTML as GitLab keeps it; `sanitizeHtml` is the sanitize-html module, loaded when first needed. */
export function sanitizeDocument(sanitizeHtml: SanitizeHtml, html: string, options: SanitizeOptions): string {
  // How many lists and tables are open around the element being cleaned, as the parser sees them.
  const open = { lists: 0, tables: 0 }
  const count = (name: string, step: number) => {
    if (LISTS.has(name)) open.lists += step
    else if (name === 'table') open.tables += step
  }
  const sanitized = sanitizeHtml(html, {
    allowedTags: ELEMENTS,
    allowedAttributes: ATTRIBUTES,
    allowedEmptyAttributes: ['alt', 'href'],
    allowedSchemes: [...ALLOWED_SCHEMES],
    allowedSchemesAppliedToAttributes: URL_ATTRIBUTES,
    allowProtocolRelative: true,
    disallowedTagsMode: 'discard',
    onOpenTag: (name) => count(name, 1),
    onCloseTag: (name) => count(name, -1),
    transformTags: {
      '*': (tagName, attribs) => {
        // HTML::Pipeline drops list items outside a list and table parts outside a table, keeping their content.
        if ((tagName === 'li' && open.lists === 0) || (TABLE_PARTS.has(tagName) && open.tables === 0))
          return { tagName: UNWRAPPED, attribs: {} }
        return { tagName, attribs: cleanAttributes(tagName, attribs, options) }
      },
    },
  })
  // sanitize-html closes void elements as XHTML does; markdown-it and GitLab write `<br>` and `<img ...>`. Text and
  // attribute values have every `>` escaped, so ` />` is only ever the end of such a tag.
  return sanitized.replaceAll(' />', '>')
}
