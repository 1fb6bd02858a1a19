import type { ParsedCommit } from '../repositories/index.js'
import type { BlameRangeJson, FileJson } from './schemas.js'

/** What GL files.rb `blob_data` holds of a file (everything but its content). */
export interface FileFacts {
  name: string
  path: string
  size: number
  contentSha256: string
  ref: string
  blobId: string
  commitId: string
  lastCommitId: string
  executable: boolean
}

/** GL files.rb `blob_data` with the content, base64-encoded. */
export function presentFile(file: FileFacts & { content: Buffer }): FileJson {
  return {
    file_name: file.name,
    file_path: file.path,
    size: file.size,
    encoding: 'base64',
    content_sha256: file.contentSha256,
    ref: file.ref,
    blob_id: file.blobId,
    commit_id: file.commitId,
    last_commit_id: file.lastCommitId,
    execute_filemode: file.executable,
    content: file.content.toString('base64'),
  }
}

/**
 * GL files.rb `set_http_headers(blob_data)`: `X-Gitlab-<Field-Name>` per field, values as text. Values are sent as
 * their UTF-8 bytes, as Rack sends them (Node only writes Latin-1 header values).
 */
export function fileHeaders(file: FileFacts): Record<string, string> {
  const bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1')
  return {
    'X-Gitlab-File-Name': bytes(file.name),
    'X-Gitlab-File-Path': bytes(file.path),
    'X-Gitlab-Size': String(file.size),
    'X-Gitlab-Encoding': 'base64',
    'X-Gitlab-Content-Sha256': file.contentSha256,
    'X-Gitlab-Ref': bytes(file.ref),
    'X-Gitlab-Blob-Id': file.blobId,
    'X-Gitlab-Commit-Id': file.commitId,
    'X-Gitlab-Last-Commit-Id': file.lastCommitId,
    'X-Gitlab-Execute-Filemode': String(file.executable),
  }
}

/** Text of a streamed JSON answer gathered before it is written: one write per line would cost more than the line. */
const JSON_PIECE_CHARS = 64 * 1024

/**
 * The JSON text of a blame's ranges (presentBlameRange of each), written as the lines come: a blame of any size is
 * never held whole.
 */
export async function* blameJsonOf(
  lines: AsyncIterable<{ commit: ParsedCommit; line: string }> | Iterable<{ commit: ParsedCommit; line: string }>,
): AsyncGenerator<string> {
  let piece = '['
  let current: string | null = null
  for await (const { commit, line } of lines) {
    if (commit.oid !== current) {
      const { commit: commitJson } = presentBlameRange({ commit, lines: [] })
      piece += `${current === null ? '' : ']},'}{"commit":${JSON.stringify(commitJson)},"lines":[${JSON.stringify(line)}`
      current = commit.oid
    } else piece += `,${JSON.stringify(line)}`
    if (piece.length >= JSON_PIECE_CHARS) {
      yield piece
      piece = ''
    }
  }
  yield `${piece}${current === null ? '' : ']}'}]`
}

/** GL Entities::BlameRange with Entities::BlameRangeCommit. */
export function presentBlameRange(range: { commit: ParsedCommit; lines: string[] }): BlameRangeJson {
  const { commit } = range
  return {
    commit: {
      id: commit.oid,
      parent_ids: commit.parents,
      message: commit.message,
      authored_date: commit.author.date,
      author_name: commit.author.name,
      author_email: commit.author.email,
      committed_date: commit.committer.date,
      committer_name: commit.committer.name,
      committer_email: commit.committer.email,
    },
    lines: range.lines,
  }
}

// ActionDispatch::Http::ContentDisposition: an ASCII `filename` with others as `?`, and the UTF-8 `filename*`.
const TRADITIONAL_ESCAPED = /[^ A-Za-z0-9!#$+.^_`|~-]/g
const RFC_5987_ESCAPED = /[^A-Za-z0-9!#$&+.^_`|~-]/g

function percentEscape(text: string, pattern: RegExp): string {
  return text.replace(pattern, (char) =>
    [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  )
}

/** A Content-Disposition as Rails formats it: `inline; filename="a.txt"; filename*=UTF-8''a.txt`. */
export function contentDisposition(disposition: 'inline' | 'attachment', fileName: string): string {
  // eslint-disable-next-line no-control-regex
  const ascii = fileName.replace(/[^\x00-\x7f]/gu, '?')
  return `${disposition}; filename="${percentEscape(ascii, TRADITIONAL_ESCAPED)}"; filename*=UTF-8''${percentEscape(fileName, RFC_5987_ESCAPED)}`
}
