import { isUtf8 } from 'node:buffer'

// The content type GitLab Workhorse gives a raw file when Rails asks it to detect one: images, PDF, video and audio by
// their leading bytes and inline; text as `text/plain; charset=utf-8`, inline; anything else an octet-stream attachment.

const SNIFF_BYTES = 512

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
]

function startsWith(data: Buffer, bytes: number[]): boolean {
  return data.length >= bytes.length && bytes.every((byte, i) => data[i] === byte)
}

/** The detected type of a file's content and whether browsers are told to show it inline. */
export function rawContentType(content: Buffer): { type: string; disposition: 'inline' | 'attachment' } {
  const head = content.subarray(0, SNIFF_BYTES)
  for (const [bytes, type] of SIGNATURES) if (startsWith(head, bytes)) return { type, disposition: 'inline' }
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') {
    return { type: 'image/webp', disposition: 'inline' }
  }
  if (head.length >= 12 && head.toString('latin1', 4, 8) === 'ftyp') return { type: 'video/mp4', disposition: 'inline' }
  // A multi-byte character cut at the sniffed length is still text.
  const cut = head.length === SNIFF_BYTES ? [0, 1, 2, 3] : [0]
  const text = !head.includes(0) && cut.some((bytes) => isUtf8(head.subarray(0, head.length - bytes)))
  return text
    ? { type: 'text/plain; charset=utf-8', disposition: 'inline' }
    : { type: 'application/octet-stream', disposition: 'attachment' }
}
