import type { Readable } from 'node:stream'
import { createHash } from 'node:crypto'
import type { Context } from '../../core/context.js'
import { Forbidden, NotFound } from '../../core/errors.js'
import { canPushCode, canReadCode, type LoadedProject } from '../access/index.js'
import { commitChanges, lastCommitForPath } from '../commit-actions/index.js'
import { codeDirectory, findCommit, findTreeEntry, openBlob, readObjectOrLargeBlob, type FileChange } from '../repositories/index.js'

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
  /** The content; null for a blob over LARGE_BLOB_BYTES, whose bytes are only streamed (`open`). */
  content: Buffer | null
  /** The first bytes of the content, enough to tell its type. */
  head: Buffer
  /** The whole content as a stream from git. */
  open: () => Promise<Readable>
}

/** A path that names nothing in a tree: empty or `.` segments, or characters cat-file could not be asked about. */
function isReadablePath(filePath: string): boolean {
  return !/[\0\n\r]/.test(filePath) && filePath.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..')
}

/**
 * A file at a ref, as the caller may read it (GL files.rb `assign_file_vars!`): 403 without `read_code`, 404 "Commit
 * Not Found" for a ref that names no commit, 404 "File Not Found" for a path that is no file there. Content is read
 * through the repository's long-lived object reader, the path walked through kept trees; only the file's last commit
 * takes a git process.
 */
export async function readRepositoryFile(
  ctx: Context,
  loaded: LoadedProject,
  filePath: string,
  ref: string | undefined,
): Promise<RepositoryFile> {
  const directory = codeDirectory(ctx, loaded)
  const commit = await findCommit(directory, ref ?? 'HEAD')
  if (!commit) throw new NotFound('Commit')
  if (!isReadablePath(filePath)) throw new NotFound('File')
  const entry = await findTreeEntry(directory, commit.tree, filePath.split('/'))
  if (!entry || entry.type !== 'blob') throw new NotFound('File')
  const name = entry.name
  const blob = await readObjectOrLargeBlob(directory, entry.oid)
  if (blob?.type !== 'blob') throw new NotFound('File')
  const [content, head, contentSha256] =
    'large' in blob ? [null, blob.head, blob.sha256] : [blob.content, blob.content, createHash('sha256').update(blob.content).digest('hex')]
  const lastCommitId = (await lastCommitForPath(directory, commit.oid, filePath)) ?? commit.oid
  return {
    name,
    path: filePath,
    size: blob.size,
    contentSha256,
    // GL `blob_data` shows the ref as given: nothing when raw was asked without one.
    ref: ref ?? '',
    blobId: blob.oid,
    commitId: commit.oid,
    lastCommitId,
    executable: entry.mode === '100755',
    content,
    head,
    open: () => openBlob(directory, blob.oid),
  }
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
