import type { Readable } from 'node:stream'
import { openGitOutput, pipeGit, readGitOutput } from './stream.js'

/** One changed file between two trees, as GitLab's Gitlab::Git::Diff holds it. */
export interface FileDiff {
  oldPath: string
  newPath: string
  /** Octal modes as git writes them; '0' for a side that does not exist. */
  aMode: string
  bMode: string
  newFile: boolean
  renamedFile: boolean
  deletedFile: boolean
  /** The patch from its first `@@` (or git's `Binary files … differ` line); '' when cut as too large. */
  diff: string
  binary: boolean
  tooLarge: boolean
  collapsed: boolean
  additions: number
  deletions: number
}

export interface DiffResult {
  files: FileDiff[]
  /** Files were left out because the whole diff passed GitLab's limits. */
  overflow: boolean
}

// GL ApplicationSetting diff_max_files, diff_max_lines and diff_max_patch_bytes defaults, and
// Gitlab::Git::DiffCollection.limits (max_bytes: 5 KiB a file on average).
export const DIFF_MAX_FILES = 1_000
export const DIFF_MAX_LINES = 50_000
export const DIFF_MAX_BYTES = DIFF_MAX_FILES * 5 * 1024
export const DIFF_MAX_PATCH_BYTES = 200 * 1024

/** GitLab's rename detection threshold (Gitaly diffs with --find-renames=30%). */
const RENAME_THRESHOLD = '-M30%'

interface RawEntry {
  aMode: string
  bMode: string
  status: string
  oldPath: string
  newPath: string
}

/** The files a raw entry stands for: a type change (a file becoming a symbolic link) is a deletion and a creation. */
function partsOf(entry: RawEntry): RawEntry[] {
  if (entry.status !== 'T') return [entry]
  return [
    { ...entry, status: 'D', bMode: '000000' },
    { ...entry, status: 'A', aMode: '000000' },
  ]
}

interface PatchBody {
  /** The shown text in the pieces it came in; emptied once it passes DIFF_MAX_PATCH_BYTES. */
  parts: Buffer[]
  bytes: number
  binary: boolean
  additions: number
  deletions: number
  lines: number
}

const emptyBody = (): PatchBody => ({ parts: [], bytes: 0, binary: false, additions: 0, deletions: 0, lines: 0 })

function fileOf(entry: RawEntry, body: PatchBody): FileDiff {
  const newFile = entry.status === 'A'
  const deletedFile = entry.status === 'D'
  const tooLarge = body.bytes > DIFF_MAX_PATCH_BYTES
  return {
    oldPath: entry.oldPath,
    newPath: entry.newPath,
    aMode: newFile ? '0' : entry.aMode.replace(/^0+(?=.)/, ''),
    bMode: deletedFile ? '0' : entry.bMode.replace(/^0+(?=.)/, ''),
    newFile,
    renamedFile: entry.status.startsWith('R'),
    deletedFile,
    diff: tooLarge ? '' : Buffer.concat(body.parts, body.bytes).toString('utf8'),
    binary: body.binary,
    tooLarge,
    collapsed: false,
    additions: body.additions,
    deletions: body.deletions,
  }
}

/** Raw entries kept: one past the files a diff may show is enough to know it overflows. */
const RAW_ENTRIES_KEPT = DIFF_MAX_FILES + 1
/** Bytes of a line's start that tell what the line is (`Binary files ` is the longest prefix looked for). */
const LINE_HEAD_BYTES = 13
const DIFF_HEADER = Buffer.from('diff --git ')
const BINARY_NOTICE = Buffer.from('Binary files ')

type LineKind = 'section' | 'hunk' | 'binary' | 'other'

/**
 * Reads `git diff-tree -r -z --raw -p` output as it comes: the raw entries first (NUL-separated), then one patch
 * section per file, each from a `diff --git` line. Only what a file may show is kept, and the reading stops as soon
 * as GitLab's limits say the diff overflows.
 */
export class DiffReader {
  readonly files: FileDiff[] = []
  overflow = false
  private readonly parts: RawEntry[] = []
  private inPatches = false
  /** The unfinished raw record (a path cut between two pieces). */
  private carry: Buffer = Buffer.alloc(0)
  private pendingHeader: string[] | null = null
  private pendingPaths: string[] = []
  private section = -1
  private mode: 'header' | 'body' | 'binary' = 'header'
  private body: PatchBody = emptyBody()
  private lines = 0
  private bytes = 0
  /** The start of the line being read, while it is too short to tell what it is. */
  private readonly head = Buffer.alloc(LINE_HEAD_BYTES)
  private headLength = 0
  /** What the line being read is; null at the start of a line. */
  private kind: LineKind | null = null

  /** Reads a piece of output; false once the rest is not needed. */
  push(chunk: Buffer): boolean {
    let at = 0
    if (!this.inPatches) {
      at = this.readRaw(chunk)
      if (!this.inPatches) return true
    }
    return this.readPatches(chunk, at)
  }

  /** The output ended: the last section, and any file git wrote no section for, are done. */
  finish(): void {
    if (this.overflow) return
    if (this.kind === null && this.headLength > 0) {
      const head = Buffer.from(this.head.subarray(0, this.headLength))
      if (!this.startLine(head)) return
      this.take(head)
    }
    if (this.section >= 0 && !this.endSection()) return
    for (let next = Math.max(this.section + 1, 0); next < this.parts.length; next += 1) {
      this.section = next
      this.body = emptyBody()
      if (!this.endSection()) return
    }
  }

  /** Reads raw records from `chunk`; answers where the patches begin in it (once they do). */
  private readRaw(chunk: Buffer): number {
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk
    const carried = this.carry.length
    let at = 0
    while (at < data.length) {
      if (this.pendingHeader === null) {
        // A NUL after the last record, or anything else than a record, begins the patches.
        if (data[at] !== 0x3a /* ':' */) {
          if (data[at] === 0) at += 1
          this.inPatches = true
          this.carry = Buffer.alloc(0)
          // Whatever was carried was a whole record already read: the patches begin inside this chunk.
          return Math.max(at - carried, 0)
        }
      }
      const end = data.indexOf(0, at)
      if (end < 0) break
      if (this.pendingHeader === null) {
        this.pendingHeader = data.toString('latin1', at + 1, end).split(' ')
        this.pendingPaths = []
      } else {
        this.pendingPaths.push(data.toString('utf8', at, end))
        const status = this.pendingHeader[4]
        if (this.pendingPaths.length === (status.startsWith('R') || status.startsWith('C') ? 2 : 1)) this.keepEntry()
      }
      at = end + 1
    }
    this.carry = Buffer.from(data.subarray(at))
    return chunk.length
  }

  private keepEntry() {
    const [aMode, bMode, , , status] = this.pendingHeader as string[]
    const [first, second = first] = this.pendingPaths
    this.pendingHeader = null
    if (this.parts.length < RAW_ENTRIES_KEPT) this.parts.push(...partsOf({ aMode, bMode, status, oldPath: first, newPath: second }))
  }

  private readPatches(chunk: Buffer, from: number): boolean {
    let at = from
    while (at < chunk.length) {
      if (this.kind === null) {
        const newline = chunk.indexOf(0x0a, at)
        const available = (newline < 0 ? chunk.length : newline + 1) - at
        if (this.headLength === 0 && available >= LINE_HEAD_BYTES) {
          if (!this.startLine(chunk.subarray(at, at + LINE_HEAD_BYTES))) return false
        } else {
          const taken = Math.min(available, LINE_HEAD_BYTES - this.headLength)
          chunk.copy(this.head, this.headLength, at, at + taken)
          this.headLength += taken
          at += taken
          const lineEnded = chunk[at - 1] === 0x0a
          if (this.headLength < LINE_HEAD_BYTES && !lineEnded) continue
          const head = Buffer.from(this.head.subarray(0, this.headLength))
          this.headLength = 0
          if (!this.startLine(head)) return false
          this.take(head)
          if (lineEnded) this.kind = null
          continue
        }
      }
      const newline = chunk.indexOf(0x0a, at)
      const end = newline < 0 ? chunk.length : newline + 1
      this.take(chunk.subarray(at, end))
      at = end
      if (newline >= 0) this.kind = null
    }
    return true
  }

  /** Tells what a line is from its first bytes and counts it; false once the diff overflows. */
  private startLine(head: Buffer): boolean {
    if (head.subarray(0, DIFF_HEADER.length).equals(DIFF_HEADER)) {
      if (this.section >= 0 && !this.endSection()) return false
      this.section += 1
      this.mode = 'header'
      this.body = emptyBody()
      this.kind = 'section'
      // One file past the limit overflows whatever it holds.
      if (this.files.length >= DIFF_MAX_FILES) return this.overflowed()
      return true
    }
    if (this.mode === 'header') {
      if (head[0] === 0x40 /* '@' */ && head[1] === 0x40) this.mode = 'body'
      else if (head.subarray(0, BINARY_NOTICE.length).equals(BINARY_NOTICE)) {
        this.mode = 'binary'
        this.body.binary = true
      }
    }
    if (this.mode === 'body') {
      this.body.lines += 1
      if (head[0] === 0x2b /* '+' */) this.body.additions += 1
      else if (head[0] === 0x2d /* '-' */) this.body.deletions += 1
      if (this.lines + this.body.lines > DIFF_MAX_LINES) return this.overflowed()
      this.kind = 'hunk'
    } else this.kind = this.mode === 'binary' ? 'binary' : 'other'
    return true
  }

  /** Keeps the bytes of a shown line, up to what a file may show. */
  private take(bytes: Buffer) {
    if (this.kind !== 'hunk' && this.kind !== 'binary') return
    const body = this.body
    if (body.bytes > DIFF_MAX_PATCH_BYTES) return
    body.bytes += bytes.length
    if (body.bytes > DIFF_MAX_PATCH_BYTES) body.parts = []
    else body.parts.push(bytes)
  }

  /** The section read is a file; false when it overflows the diff. */
  private endSection(): boolean {
    const part = this.parts[this.section]
    if (part === undefined) return true
    const file = fileOf(part, this.body)
    this.lines += this.body.lines
    this.bytes += file.diff.length
    if (this.files.length >= DIFF_MAX_FILES || this.lines > DIFF_MAX_LINES || this.bytes > DIFF_MAX_BYTES) return this.overflowed()
    this.files.push(file)
    return true
  }

  private overflowed(): false {
    this.overflow = true
    return false
  }
}

/**
 * The diff between two commits (`from` null: a root commit against nothing), with GitLab's rename detection, read by
 * one `git diff-tree` run as it writes. It is cut where GitLab cuts the diffs it stores for a merge request version
 * (MergeRequestDiff#save_diffs with Commit.max_diff_options): views without limits (`access_raw_diffs`, a version's
 * whole diff) read those stored files, so no caller reads past them; a file's patch past DIFF_MAX_PATCH_BYTES is
 * always cut as too large (GL Gitlab::Git::Diff#prune_diff_if_eligible). A type change (a file becoming a symbolic
 * link) is two entries, a deletion and a creation, as git writes two patches for it.
 */
export async function diffBetween(directory: string, from: string | null, to: string): Promise<DiffResult> {
  const revisions = from === null ? ['--root', to] : [from, to]
  const reader = new DiffReader()
  await readGitOutput(
    directory,
    [
      'diff-tree',
      '-r',
      '-z',
      '--raw',
      '-p',
      RENAME_THRESHOLD,
      '--full-index',
      '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      '--no-commit-id',
      ...revisions,
    ],
    (chunk) => reader.push(chunk),
  )
  reader.finish()
  return { files: reader.files, overflow: reader.overflow }
}

/** GL Gitlab::Git::Diff#unidiff: the patch with its `---`/`+++` lines, as `git diff` writes them. */
export function unifiedDiffOf(file: FileDiff): string {
  if (file.diff === '' || file.binary) return file.diff
  const oldHeader = file.newFile ? '/dev/null' : `a/${file.oldPath}`
  const newHeader = file.deletedFile ? '/dev/null' : `b/${file.newPath}`
  return `--- ${oldHeader}\n+++ ${newHeader}\n${file.diff}`
}

/**
 * The lines a commit adds and removes against its first parent (GL CommitStats), read by one `git diff-tree --numstat`
 * line by line as git writes it.
 */
export async function diffStats(directory: string, from: string | null, to: string): Promise<{ additions: number; deletions: number }> {
  const revisions = from === null ? ['--root', to] : [from, to]
  let additions = 0
  let deletions = 0
  let carry = ''
  const count = (line: string) => {
    const [added, removed] = line.split('\t', 2)
    // Binary files count `-`: no lines.
    if (/^\d+$/.test(added)) additions += Number(added)
    if (/^\d+$/.test(removed)) deletions += Number(removed)
  }
  await readGitOutput(directory, ['diff-tree', '-r', '--numstat', RENAME_THRESHOLD, '--no-commit-id', ...revisions], (chunk) => {
    const lines = (carry + chunk.toString('latin1')).split('\n')
    carry = lines.pop() ?? ''
    for (const line of lines) count(line)
  })
  count(carry)
  return { additions, deletions }
}

/**
 * The whole patch between two commits as `git diff --full-index` writes it (GL raw_diffs, Gitaly RawDiff), as a
 * stream to send on as it comes; destroying it ends git.
 */
export function rawPatchBetween(directory: string, from: string, to: string): Promise<Readable> {
  return openGitOutput(directory, ['diff', '--full-index', '--no-color', '--no-ext-diff', '--no-textconv', from, to])
}

/**
 * `git patch-id --stable` of the patch between two commits (Gitaly GetPatchID); null for an empty patch. The patch
 * goes from `git diff-tree` into `git patch-id` through a pipe, so no patch is held here whatever its size.
 */
export function patchIdBetween(directory: string, from: string, to: string): Promise<string | null> {
  const args = ['diff-tree', '-p', '--full-index', '--no-color', '--no-ext-diff', from, to]
  return pipeGit(directory, args, ['patch-id', '--stable']).then((out) => out.toString('utf8').split(' ')[0] || null)
}
