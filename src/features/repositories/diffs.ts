import { execFile } from 'node:child_process'
import { gitEnvironment, GitError } from './git.js'

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

function gitBuffer(gitDir: string, args: readonly string[]): Promise<Buffer> {
  const argv = [`--git-dir=${gitDir}`, ...args]
  return new Promise((resolve, reject) => {
    execFile('git', argv, { env: gitEnvironment(), maxBuffer: 512 * 1024 * 1024, encoding: 'buffer' }, (error, stdout, stderr) => {
      if (error) reject(new GitError(argv, (error as NodeJS.ErrnoException).code ?? null, stderr.toString('utf8')))
      else resolve(stdout)
    })
  })
}

interface RawEntry {
  aMode: string
  bMode: string
  status: string
  oldPath: string
  newPath: string
}

/** Reads `-z --raw` entries from the start of the output; answers them and where the patches begin. */
function parseRaw(out: Buffer): { entries: RawEntry[]; patchesAt: number } {
  const entries: RawEntry[] = []
  let at = 0
  while (at < out.length && out[at] === 0x3a /* ':' */) {
    const headerEnd = out.indexOf(0, at)
    const [aMode, bMode, , , status] = out.toString('latin1', at + 1, headerEnd).split(' ')
    const firstEnd = out.indexOf(0, headerEnd + 1)
    const first = out.toString('utf8', headerEnd + 1, firstEnd)
    at = firstEnd + 1
    let second = first
    if (status.startsWith('R') || status.startsWith('C')) {
      const secondEnd = out.indexOf(0, at)
      second = out.toString('utf8', at, secondEnd)
      at = secondEnd + 1
    }
    entries.push({ aMode, bMode, status, oldPath: first, newPath: second })
  }
  // A NUL separates the raw part from the patches.
  if (out[at] === 0) at += 1
  return { entries, patchesAt: at }
}

const DIFF_HEADER = Buffer.from('diff --git ')

/** The patch sections, one per `diff --git` header, in output order. */
function splitPatches(out: Buffer, from: number): Buffer[] {
  const sections: Buffer[] = []
  let start = out.indexOf(DIFF_HEADER, from)
  while (start >= 0) {
    let next = out.indexOf(DIFF_HEADER, start + 1)
    // Only a header at the start of a line begins a section; hunk lines always start with ' ', '+', '-' or '\'.
    while (next > 0 && out[next - 1] !== 0x0a) next = out.indexOf(DIFF_HEADER, next + 1)
    sections.push(out.subarray(start, next < 0 ? out.length : next))
    start = next
  }
  return sections
}

interface PatchBody {
  text: Buffer
  binary: boolean
  additions: number
  deletions: number
  lines: number
}

/** The part GitLab shows of a section: from the first hunk, or git's binary notice; with its line counts. */
function patchBodyOf(section: Buffer): PatchBody {
  let at = 0
  while (at < section.length) {
    const end = section.indexOf(0x0a, at)
    const lineEnd = end < 0 ? section.length : end
    if (section[at] === 0x40 /* '@' */ && section[at + 1] === 0x40) break
    if (section.subarray(at, at + 13).toString('latin1') === 'Binary files ') {
      return { text: section.subarray(at), binary: true, additions: 0, deletions: 0, lines: 0 }
    }
    at = lineEnd + 1
  }
  if (at >= section.length) return { text: Buffer.alloc(0), binary: false, additions: 0, deletions: 0, lines: 0 }
  const text = section.subarray(at)
  let additions = 0
  let deletions = 0
  let lines = 0
  for (let line = 0; line < text.length;) {
    const first = text[line]
    if (first === 0x2b /* + */) additions += 1
    else if (first === 0x2d /* - */) deletions += 1
    lines += 1
    const end = text.indexOf(0x0a, line)
    line = end < 0 ? text.length : end + 1
  }
  return { text, binary: false, additions, deletions, lines }
}

function fileOf(entry: RawEntry, body: PatchBody): FileDiff {
  const newFile = entry.status === 'A'
  const deletedFile = entry.status === 'D'
  const tooLarge = body.text.length > DIFF_MAX_PATCH_BYTES
  return {
    oldPath: entry.oldPath,
    newPath: entry.newPath,
    aMode: newFile ? '0' : entry.aMode.replace(/^0+(?=.)/, ''),
    bMode: deletedFile ? '0' : entry.bMode.replace(/^0+(?=.)/, ''),
    newFile,
    renamedFile: entry.status.startsWith('R'),
    deletedFile,
    diff: tooLarge ? '' : body.text.toString('utf8'),
    binary: body.binary,
    tooLarge,
    collapsed: false,
    additions: body.additions,
    deletions: body.deletions,
  }
}

export interface DiffOptions {
  /** Apply GitLab's limits (files, lines, bytes); the raw diff of an MR version applies none. */
  limits?: boolean
}

/**
 * The diff between two commits (`from` null: a root commit against nothing), with GitLab's rename detection, read by
 * one `git diff-tree` run. A type change (a file becoming a symbolic link) is two entries, a deletion and a creation,
 * as git writes two patches for it.
 */
export async function diffBetween(directory: string, from: string | null, to: string, options: DiffOptions = {}): Promise<DiffResult> {
  const revisions = from === null ? ['--root', to] : [from, to]
  const out = await gitBuffer(directory, [
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
  ])
  const { entries, patchesAt } = parseRaw(out)
  const sections = splitPatches(out, patchesAt)
  const limits = options.limits !== false
  const files: FileDiff[] = []
  let overflow = false
  let lines = 0
  let bytes = 0
  let section = 0
  for (const entry of entries) {
    const parts =
      entry.status === 'T'
        ? [
            { ...entry, status: 'D', bMode: '000000' },
            { ...entry, status: 'A', aMode: '000000' },
          ]
        : [entry]
    for (const part of parts) {
      const body = patchBodyOf(sections[section] ?? Buffer.alloc(0))
      section += 1
      const file = fileOf(part, body)
      lines += body.lines
      bytes += file.diff.length
      if (limits && (files.length >= DIFF_MAX_FILES || lines > DIFF_MAX_LINES || bytes > DIFF_MAX_BYTES)) {
        overflow = true
        break
      }
      files.push(file)
    }
    if (overflow) break
  }
  return { files, overflow }
}

/** GL Gitlab::Git::Diff#unidiff: the patch with its `---`/`+++` lines, as `git diff` writes them. */
export function unifiedDiffOf(file: FileDiff): string {
  if (file.diff === '' || file.binary) return file.diff
  const oldHeader = file.newFile ? '/dev/null' : `a/${file.oldPath}`
  const newHeader = file.deletedFile ? '/dev/null' : `b/${file.newPath}`
  return `--- ${oldHeader}\n+++ ${newHeader}\n${file.diff}`
}

/** The lines a commit adds and removes against its first parent (GL CommitStats), read by one `git diff-tree --numstat`. */
export async function diffStats(directory: string, from: string | null, to: string): Promise<{ additions: number; deletions: number }> {
  const revisions = from === null ? ['--root', to] : [from, to]
  const out = (await gitBuffer(directory, ['diff-tree', '-r', '--numstat', RENAME_THRESHOLD, '--no-commit-id', ...revisions])).toString(
    'utf8',
  )
  let additions = 0
  let deletions = 0
  for (const line of out.split('\n')) {
    const [added, removed] = line.split('\t')
    // Binary files count `-`: no lines.
    if (/^\d+$/.test(added)) additions += Number(added)
    if (/^\d+$/.test(removed)) deletions += Number(removed)
  }
  return { additions, deletions }
}

/** The whole patch between two commits as `git diff --full-index` writes it (GL raw_diffs, Gitaly RawDiff). */
export async function rawPatchBetween(directory: string, from: string, to: string): Promise<Buffer> {
  return gitBuffer(directory, ['diff', '--full-index', '--no-color', '--no-ext-diff', '--no-textconv', from, to])
}
