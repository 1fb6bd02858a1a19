// The content type GitLab Workhorse gives a raw file when Rails asks it to detect one (`Gitlab-Workhorse-Detect-Content-
// Type`): a few types by their leading bytes, SVG told apart, text of any kind as `text/plain; charset=utf-8`; images
// (not SVG), text, video and PDF inline, anything else an attachment.

const SNIFF_BYTES = 512
const TEXT_PLAIN = 'text/plain; charset=utf-8'

const SIGNATURES: [number[], string][] = [
  [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'image/png'],
  [[0xff, 0xd8, 0xff], 'image/jpeg'],
  [[0x47, 0x49, 0x46, 0x38, 0x37, 0x61], 'image/gif'],
  [[0x47, 0x49, 0x46, 0x38, 0x39, 0x61], 'image/gif'],
  [[0x42, 0x4d], 'image/bmp'],
  [[0x00, 0x00, 0x01, 0x00], 'image/x-icon'],
  [[0x25, 0x50, 0x44, 0x46, 0x2d], 'application/pdf'],
  [[0x4f, 0x67, 0x67, 0x53, 0x00], 'application/ogg'],
  [[0x49, 0x44, 0x33], 'audio/mpeg'],
  [[0x1f, 0x8b, 0x08], 'application/x-gzip'],
  [[0x50, 0x4b, 0x03, 0x04], 'application/zip'],
]

function startsWith(data: Buffer, bytes: number[]): boolean {
  return data.length >= bytes.length && bytes.every((byte, i) => data[i] === byte)
}

/** An XML or SVG document whose root element is `<svg`. */
function isSvg(data: Buffer): boolean {
  const stripped = data
    .toString('utf8', 0, Math.min(data.length, 4096))
    .replace(/^\uFEFF/, '')
    .replace(/<\?xml[\s\S]*?\?>/g, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<!DOCTYPE[^>[]*(\[[\s\S]*?\])?[^>]*>/gi, '')
    .trimStart()
  return /^<svg[\s>/]/i.test(stripped)
}

/** Go's "binary data byte" of the WHATWG sniffing algorithm, which Workhorse's detection uses. */
function isBinaryByte(byte: number): boolean {
  return byte <= 0x08 || byte === 0x0b || (byte >= 0x0e && byte <= 0x1a) || (byte >= 0x1c && byte <= 0x1f)
}

function detectedType(content: Buffer): string {
  if (isSvg(content)) return 'image/svg+xml'
  const head = content.subarray(0, SNIFF_BYTES)
  for (const [bytes, type] of SIGNATURES) if (startsWith(head, bytes)) return type
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') return 'image/webp'
  if (head.length >= 12 && head.toString('latin1', 4, 8) === 'ftyp') return 'video/mp4'
  return head.some(isBinaryByte) ? 'application/octet-stream' : TEXT_PLAIN
}

/** The detected type of a file's content and whether browsers are told to show it inline. */
export function rawContentType(content: Buffer): { type: string; disposition: 'inline' | 'attachment' } {
  const type = detectedType(content)
  const inline = type !== 'image/svg+xml' && /^(image\/|text\/|video\/)|^application\/pdf/.test(type)
  return { type, disposition: inline ? 'inline' : 'attachment' }
}
