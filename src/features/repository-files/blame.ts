import type { Readable } from 'node:stream'
import type { Context } from '../../core/context.js'
import { Rejected } from '../../core/errors.js'
import type { LoadedProject } from '../access/index.js'
import { codeDirectory, openGitOutput, readCommit, readLines, type ParsedCommit } from '../repositories/index.js'
import type { RepositoryFile } from './service.js'

/** One line of a blame and the commit it last changed in. */
export interface BlameLine {
  commit: ParsedCommit
  line: string
}

/** A blame's lines, in order. */
export type BlameLines = AsyncIterable<BlameLine> | Iterable<BlameLine>

/** Consecutive lines from one commit (GL Gitlab::Blame#groups). */
export interface BlameRange {
  commit: ParsedCommit
  lines: string[]
}

const PORCELAIN_HEADER = /^([0-9a-f]{40}|[0-9a-f]{64}) \d+ \d+/

/**
 * The blame of a file at a ref (GL files.rb `/blame`), optionally of lines `range.start`..`range.end` (1-based,
 * inclusive): 400 when the start is past the end, or the range past the file. The lines come as `git blame
 * --porcelain` writes them, so a blame of any size is never held whole here.
 */
export async function openBlame(
  ctx: Context,
  loaded: LoadedProject,
  file: RepositoryFile,
  range: { start: number; end: number } | null,
): Promise<BlameLines> {
  const directory = codeDirectory(ctx, loaded)
  if (range && range.start > range.end) throw new Rejected('range[start] must be less than or equal to range[end]')
  // git refuses a range past the file's end, and Gitaly says so (RawBlame's OutOfRange); GitLab passes it on.
  const lineCount = file.content !== null ? lineCountOf([file.content]) : range ? await lineCountOf(await file.open()) : null
  if (range && lineCount !== null && range.end > lineCount) throw new Rejected('range is outside of the file length')
  if (lineCount === 0) return []
  const lines = range ? ['-L', `${range.start},${range.end}`] : []
  const output = await openGitOutput(directory, ['--literal-pathspecs', 'blame', '--porcelain', ...lines, file.commitId, '--', file.path])
  return blameLinesOf(directory, output)
}

/** The lines of a content, the last one counted without its line feed too; a large one is counted as it streams. */
function lineCountOf(content: Buffer[]): number
function lineCountOf(content: AsyncIterable<Buffer>): Promise<number>
function lineCountOf(content: Iterable<Buffer> | AsyncIterable<Buffer>): number | Promise<number> {
  let newlines = 0
  let last = 0x0a
  const count = (piece: Buffer) => {
    for (let at = piece.indexOf(0x0a); at >= 0; at = piece.indexOf(0x0a, at + 1)) newlines += 1
    if (piece.length > 0) last = piece[piece.length - 1]
  }
  const total = () => newlines + (last === 0x0a ? 0 : 1)
  if (Symbol.iterator in content) {
    for (const piece of content) count(piece)
    return total()
  }
  return (async () => {
    for await (const piece of content) count(piece)
    return total()
  })()
}

async function* blameLinesOf(directory: string, output: Readable): AsyncGenerator<BlameLine> {
  const commits = new Map<string, ParsedCommit | null>()
  let current: string | null = null
  for await (const line of readLines(output)) {
    if (line[0] === 0x09 /* '\t' */) {
      if (current === null) continue
      let commit = commits.get(current)
      if (commit === undefined) {
        commit = await readCommit(directory, current)
        commits.set(current, commit)
      }
      if (commit) yield { commit, line: line.toString('utf8', 1) }
      continue
    }
    const header = PORCELAIN_HEADER.exec(line.toString('latin1', 0, 160))
    if (header) current = header[1]
  }
}

/** The lines of a blame as ranges of consecutive lines from one commit. */
export async function blameRangesOf(lines: BlameLines): Promise<BlameRange[]> {
  const ranges: BlameRange[] = []
  for await (const { commit, line } of lines) {
    const last = ranges[ranges.length - 1]
    if (last && last.commit.oid === commit.oid) last.lines.push(line)
    else ranges.push({ commit, lines: [line] })
  }
  return ranges
}
