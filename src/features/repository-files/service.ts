import { createHash } from 'node:crypto'
import type { Context } from '../../core/context.js'
import { Forbidden, NotFound, Rejected } from '../../core/errors.js'
import { canPushCode, canReadCode, type LoadedProject } from '../access/index.js'
import { commitChanges, lastCommitForPath, readNamedCommit } from '../commit-actions/index.js'
import { codeDirectory, git, parseTree, readCommit, readObject, type FileChange, type ParsedCommit } from '../repositories/index.js'

// GL lib/api/files.rb and Files::CreateService, Files::UpdateService, Files::DeleteService.

/** A file as GL files.rb `blob_data` describes it, with its content. */
export interface RepositoryFile {
  name: string
  path: string
  size: number
  contentSha256: string
  ref: string
  blobId: string
  commitId: string
  lastCommitId: string
  executable: boolean
  content: Buffer
}

/** A path that names nothing in a tree: empty or `.` segments, or characters cat-file could not be asked about. */
function isReadablePath(filePath: string): boolean {
  return !/[\0\n\r]/.test(filePath) && filePath.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..')
}

/**
 * A file at a ref, as the caller may read it (GL files.rb `assign_file_vars!`): 403 without `read_code`, 404 "Commit
 * Not Found" for a ref that names no commit, 404 "File Not Found" for a path that is no file there. Content is read
 * through the repository's long-lived object reader; only the file's last commit takes a git process.
 */
export async function readRepositoryFile(
  ctx: Context,
  loaded: LoadedProject,
  filePath: string,
  ref: string | undefined,
): Promise<RepositoryFile> {
  const directory = codeDirectory(ctx, loaded)
  const commit = await readNamedCommit(directory, ref ?? 'HEAD')
  if (!commit) throw new NotFound('Commit')
  if (!isReadablePath(filePath)) throw new NotFound('File')
  const slash = filePath.lastIndexOf('/')
  const parent = slash < 0 ? `${commit.tree}` : `${commit.oid}:${filePath.slice(0, slash)}`
  const name = filePath.slice(slash + 1)
  const tree = await readObject(directory, parent)
  if (tree?.type !== 'tree') throw new NotFound('File')
  const entry = parseTree(tree.content, commit.oid.length).find((candidate) => candidate.name === name)
  if (!entry || entry.type !== 'blob') throw new NotFound('File')
  const blob = await readObject(directory, entry.oid)
  if (blob?.type !== 'blob') throw new NotFound('File')
  const lastCommitId = (await lastCommitForPath(directory, commit.oid, filePath)) ?? commit.oid
  return {
    name,
    path: filePath,
    size: blob.size,
    contentSha256: createHash('sha256').update(blob.content).digest('hex'),
    // GL `blob_data` shows the ref as given: nothing when raw was asked without one.
    ref: ref ?? '',
    blobId: blob.oid,
    commitId: commit.oid,
    lastCommitId,
    executable: entry.mode === '100755',
    content: blob.content,
  }
}

export interface BlameRange {
  commit: ParsedCommit
  lines: string[]
}

/** `git blame --porcelain` as ranges of consecutive lines from one commit (GL Gitlab::Blame#groups). */
function parseBlame(out: string): { oid: string; lines: string[] }[] {
  const ranges: { oid: string; lines: string[] }[] = []
  let current: string | null = null
  for (const line of out.split('\n')) {
    if (line.startsWith('\t')) {
      const last = ranges[ranges.length - 1]
      if (last && last.oid === current) last.lines.push(line.slice(1))
      else if (current) ranges.push({ oid: current, lines: [line.slice(1)] })
      continue
    }
    const header = /^([0-9a-f]{40}|[0-9a-f]{64}) \d+ \d+/.exec(line)
    if (header) current = header[1]
  }
  return ranges
}

/**
 * The blame of a file at a ref (GL files.rb `/blame`), optionally of lines `range.start`..`range.end` (1-based,
 * inclusive): 400 when the start is past the end, or the range past the file.
 */
export async function blameRepositoryFile(
  ctx: Context,
  loaded: LoadedProject,
  file: RepositoryFile,
  range: { start: number; end: number } | null,
): Promise<BlameRange[]> {
  const directory = codeDirectory(ctx, loaded)
  if (range && range.start > range.end) throw new Rejected('range[start] must be less than or equal to range[end]')
  const lineCount =
    file.content.length === 0 ? 0 : file.content.toString('latin1').split('\n').length - (file.content.at(-1) === 0x0a ? 1 : 0)
  // git refuses a range past the file's end, and Gitaly says so (RawBlame's OutOfRange); GitLab passes it on.
  if (range && range.end > lineCount) throw new Rejected('range is outside of the file length')
  const lines = range ? ['-L', `${range.start},${range.end}`] : []
  if (lineCount === 0) return []
  const out = await git(['--literal-pathspecs', 'blame', '--porcelain', ...lines, file.commitId, '--', file.path], { gitDir: directory })
  const commits = new Map<string, ParsedCommit>()
  const ranges: BlameRange[] = []
  for (const { oid, lines: text } of parseBlame(out)) {
    let commit = commits.get(oid)
    if (!commit) {
      commit = (await readCommit(directory, oid)) ?? undefined
      if (!commit) continue
      commits.set(oid, commit)
    }
    ranges.push({ commit, lines: text })
  }
  return ranges
}

export interface FileWrite {
  branch: string
  startBranch?: string
  message: string
  content?: Buffer
  executable?: boolean
  lastCommitId?: string
  authorName?: string
  authorEmail?: string
}

/** GL files.rb `authorize! :push_code`: plain 403, also when the repository feature is off. */
function authorizePushCode(ctx: Context, loaded: LoadedProject) {
  const allowed = ctx.caller.user && canPushCode(loaded.access, loaded.project) && canReadCode(loaded.access, loaded.project)
  if (!allowed) throw new Forbidden()
}

async function writeFile(
  ctx: Context,
  loaded: LoadedProject,
  write: FileWrite,
  changes: FileChange[],
  staleMessage: string,
  filePath: string,
) {
  authorizePushCode(ctx, loaded)
  const checks = write.lastCommitId ? [{ path: filePath, lastCommitId: write.lastCommitId, message: staleMessage }] : []
  if (write.executable !== undefined && changes[0].kind !== 'delete') {
    changes.push({ kind: 'chmod', path: filePath, executable: write.executable })
  }
  return commitChanges(ctx, loaded, {
    branch: write.branch,
    startBranch: write.startBranch ?? write.branch,
    message: write.message,
    changes,
    checks,
    authorName: write.authorName,
    authorEmail: write.authorEmail,
  })
}

/** GL Files::CreateService (with GL Repository#create_file's chmod when `execute_filemode` is given). */
export async function createRepositoryFile(ctx: Context, loaded: LoadedProject, filePath: string, write: FileWrite): Promise<void> {
  const changes: FileChange[] = [{ kind: 'create', path: filePath, content: write.content ?? Buffer.alloc(0), executable: false }]
  await writeFile(ctx, loaded, { ...write, lastCommitId: undefined }, changes, '', filePath)
}

/** GL Files::UpdateService: refuses a file changed since `lastCommitId`. */
export async function updateRepositoryFile(ctx: Context, loaded: LoadedProject, filePath: string, write: FileWrite): Promise<void> {
  const changes: FileChange[] = [{ kind: 'update', path: filePath, content: write.content ?? Buffer.alloc(0) }]
  await writeFile(
    ctx,
    loaded,
    write,
    changes,
    'You are attempting to update a file that has changed since you started editing it.',
    filePath,
  )
}

/** GL Files::DeleteService. */
export async function deleteRepositoryFile(ctx: Context, loaded: LoadedProject, filePath: string, write: FileWrite): Promise<void> {
  const changes: FileChange[] = [{ kind: 'delete', path: filePath }]
  await writeFile(
    ctx,
    loaded,
    { ...write, executable: undefined },
    changes,
    'You are attempting to delete a file that has been previously updated.',
    filePath,
  )
}
