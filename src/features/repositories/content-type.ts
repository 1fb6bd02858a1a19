/**
 * The content type and disposition GitLab Workhorse gives a raw blob when Rails asks it to detect them
 * (`Gitlab-Workhorse-Detect-Content-Type`): Go's http.DetectContentType over the first 512 bytes, SVG told apart,
 * every text type sent as `text/plain; charset=utf-8`, and only images (not SVG), text, video and PDF inline.
 */

const SNIFF_BYTES = 512
const TEXT_PLAIN = 'text/plain; charset=utf-8'

interface Signature {
  test(data: Buffer): boolean
  type: string
}

function startsWith(prefix: string | number[]): (data: Buffer) => boolean {
  const bytes = typeof prefix === 'string' ? Buffer.from(prefix, 'latin1') : Buffer.from(prefix)
  return (data) => data.length >= bytes.length && data.subarray(0, bytes.length).equals(bytes)
}

/** Bytes matched with a mask, as Go's maskedSig. */
function masked(mask: number[], pattern: number[]): (data: Buffer) => boolean {
  return (data) => {
    if (data.length < pattern.length) return false
    for (let i = 0; i < pattern.length; i++) if ((data[i] & mask[i]) !== pattern[i]) return false
    return true
  }
}

const HTML_TAGS = [
  '<!DOCTYPE HTML',
  '<HTML',
  '<HEAD',
  '<SCRIPT',
  '<IFRAME',
  '<H1',
  '<DIV',
  '<FONT',
  '<TABLE',
  '<A',
  '<STYLE',
  '<TITLE',
  '<B',
  '<BODY',
  '<BR',
  '<P',
  '<!--',
]

/** Go's htmlSig: after leading white space, a tag (any case) followed by a space or `>`. */
function isHtml(data: Buffer): boolean {
  const text = data.toString('latin1').replace(/^[\t\n\f\r ]+/, '')
  const upper = text.toUpperCase()
  return HTML_TAGS.some((tag) => {
    if (!upper.startsWith(tag)) return false
    const next = upper.charCodeAt(tag.length)
    return next === 0x20 || next === 0x3e
  })
}

function isMp4(data: Buffer): boolean {
  if (data.length < 12) return false
  const boxSize = data.readUInt32BE(0)
  if (data.length < boxSize || boxSize % 4 !== 0) return false
  if (data.toString('latin1', 4, 8) !== 'ftyp') return false
  for (let at = 8; at < boxSize; at += 4) {
    if (at === 12) continue
    if (data.toString('latin1', at, at + 3) === 'mp4') return true
  }
  return false
}

const SIGNATURES: Signature[] = [
  { test: isHtml, type: 'text/html; charset=utf-8' },
  {
    test: (data) =>
      data
        .toString('latin1')
        .replace(/^[\t\n\f\r ]+/, '')
        .startsWith('<?xml'),
    type: 'text/xml; charset=utf-8',
  },
  { test: startsWith('%PDF-'), type: 'application/pdf' },
  { test: startsWith('%!PS-Adobe-'), type: 'application/postscript' },
  { test: startsWith([0xfe, 0xff]), type: 'text/plain; charset=utf-16be' },
  { test: startsWith([0xff, 0xfe]), type: 'text/plain; charset=utf-16le' },
  { test: startsWith([0xef, 0xbb, 0xbf]), type: TEXT_PLAIN },
  { test: startsWith([0x00, 0x00, 0x01, 0x00]), type: 'image/x-icon' },
  { test: startsWith([0x00, 0x00, 0x02, 0x00]), type: 'image/x-icon' },
  { test: startsWith('BM'), type: 'image/bmp' },
  { test: startsWith('GIF87a'), type: 'image/gif' },
  { test: startsWith('GIF89a'), type: 'image/gif' },
  {
    test: masked(
      [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
      [...Buffer.from('RIFF'), 0, 0, 0, 0, ...Buffer.from('WEBPVP')],
    ),
    type: 'image/webp',
  },
  { test: startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), type: 'image/png' },
  { test: startsWith([0xff, 0xd8, 0xff]), type: 'image/jpeg' },
  {
    test: masked(
      [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff],
      [...Buffer.from('FORM'), 0, 0, 0, 0, ...Buffer.from('AIFF')],
    ),
    type: 'audio/aiff',
  },
  { test: startsWith('ID3'), type: 'audio/mpeg' },
  { test: startsWith([0x4f, 0x67, 0x67, 0x53, 0x00]), type: 'application/ogg' },
  { test: startsWith([0x4d, 0x54, 0x68, 0x64, 0x00, 0x00, 0x00, 0x06]), type: 'audio/midi' },
  {
    test: masked(
      [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff],
      [...Buffer.from('RIFF'), 0, 0, 0, 0, ...Buffer.from('AVI ')],
    ),
    type: 'video/avi',
  },
  {
    test: masked(
      [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff],
      [...Buffer.from('RIFF'), 0, 0, 0, 0, ...Buffer.from('WAVE')],
    ),
    type: 'audio/wave',
  },
  { test: isMp4, type: 'video/mp4' },
  { test: startsWith([0x1a, 0x45, 0xdf, 0xa3]), type: 'video/webm' },
  { test: startsWith([0x00, 0x61, 0x73, 0x6d]), type: 'application/wasm' },
  { test: startsWith([0x1f, 0x8b, 0x08]), type: 'application/x-gzip' },
  { test: startsWith([0x50, 0x4b, 0x03, 0x04]), type: 'application/zip' },
  { test: startsWith([0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x00]), type: 'application/x-rar-compressed' },
  { test: startsWith([0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x01, 0x00]), type: 'application/x-rar-compressed' },
  { test: startsWith('wOFF'), type: 'font/woff' },
  { test: startsWith('wOF2'), type: 'font/woff2' },
]

/** Go's "binary data byte" of the WHATWG sniffing algorithm. */
function isBinaryByte(byte: number): boolean {
  return byte <= 0x08 || byte === 0x0b || (byte >= 0x0e && byte <= 0x1a) || (byte >= 0x1c && byte <= 0x1f)
}

/** Workhorse's svg.Is: an XML or SVG document whose root element is `<svg`. */
function isSvg(data: Buffer): boolean {
  const text = data.toString('utf8', 0, Math.min(data.length, 4096))
  const stripped = text
    .replace(/^\uFEFF/, '')
    .replace(/<\?xml[\s\S]*?\?>/g, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<!DOCTYPE[^>[]*(\[[\s\S]*?\])?[^>]*>/gi, '')
    .trimStart()
  return /^<svg[\s>/]/i.test(stripped)
}

/** Go's http.DetectContentType. */
function detectContentType(data: Buffer): string {
  const head = data.subarray(0, SNIFF_BYTES)
  for (const signature of SIGNATURES) if (signature.test(head)) return signature.type
  return head.some(isBinaryByte) ? 'application/octet-stream' : TEXT_PLAIN
}

/** The content type Workhorse sends a blob with. */
export function blobContentType(data: Buffer): string {
  if (isSvg(data)) return 'image/svg+xml'
  const type = detectContentType(data)
  // Text of any kind (HTML, XML) is sent as plain text, so that it is never rendered.
  return type.startsWith('text/') ? TEXT_PLAIN : type
}

/** Inline for images other than SVG, text, video and PDF; anything else downloads. */
export function blobDisposition(contentType: string): 'inline' | 'attachment' {
  if (contentType === 'image/svg+xml') return 'attachment'
  return /^(image\/|text\/|video\/)|application\/pdf/.test(contentType) ? 'inline' : 'attachment'
}
