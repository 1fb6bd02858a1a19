import { PassThrough, type Readable } from 'node:stream'
import type { Context } from '../../core/context.js'
import { startProcess, type Process } from '../../core/processes.js'
import { NotFound } from '../../core/errors.js'
import type { LoadedProject } from '../access/index.js'
import { findCommit, findTreeEntry, gitEnvironment } from '../repositories/index.js'
import { openRepository, pathSegments, refOrDefault } from './repository.js'

/** The formats of GL Gitlab::PathRegex.archive_formats_regex, as `archive.<format>` names them. */
export const ARCHIVE_FORMATS = ['zip', 'tar', 'tar.gz', 'tgz', 'gz', 'tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2'] as const

type GitFormat = 'zip' | 'tar' | 'tar.gz' | 'tar.bz2'

/** GL Gitlab::Workhorse#archive_format and Repository#archive_file_path: anything unknown is a gzipped tar. */
function gitFormatOf(format: string | undefined): GitFormat {
  switch ((format ?? 'tar.gz').toLowerCase()) {
    case 'zip':
      return 'zip'
    case 'tar':
      return 'tar'
    case 'tar.bz2':
    case 'tbz':
    case 'tbz2':
    case 'tb2':
    case 'bz2':
      return 'tar.bz2'
    default:
      return 'tar.gz'
  }
}

export interface ArchiveRequest {
  sha?: string
  format?: string
  path?: string
  excludePaths: string[]
}

export interface Archive {
  /** `<project path>-<ref>-<sha>[-<path>].<extension>`, also the archive's top directory without the extension. */
  fileName: string
  contentType: 'application/zip' | 'application/octet-stream'
  /** The archive's bytes as git writes them; destroying it ends git. */
  body: Readable
}

/** The first bytes git writes, or its failure before it wrote any. */
function firstOutput(child: Process): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const stdout = child.stdout!
    const onData = (chunk: Buffer) => {
      stdout.pause()
      stdout.off('data', onData)
      resolve(chunk)
    }
    stdout.on('data', onData)
    child.on('close', () => resolve(null))
    child.on('error', () => resolve(null))
  })
}

/**
 * An archive of the repository at a ref (GL `send_git_archive` with `append_sha: true`, served by Workhorse from
 * Gitaly's GetArchive, which runs `git archive`): streamed as git writes it, bzip2 through the `bzip2` program.
 * A ref that names no commit, or a path the commit lacks, is `404 File Not Found`.
 */
export async function openArchive(ctx: Context, loaded: LoadedProject, request: ArchiveRequest): Promise<Archive> {
  const repository = openRepository(ctx, loaded)
  const ref = refOrDefault(repository, request.sha)
  const commit = await findCommit(repository.directory, ref)
  if (!commit) throw new NotFound('File')
  const segments = pathSegments(request.path)
  if (!segments || (segments.length > 0 && !(await findTreeEntry(repository.directory, commit.tree, segments)))) throw new NotFound('File')
  const excludes = request.excludePaths.map((path) => pathSegments(path))
  if (excludes.some((segments) => segments === null || segments.length === 0)) throw new NotFound('File')

  const format = gitFormatOf(request.format)
  const path = segments.join('/')
  // GL Gitlab::Git::Repository#archive_prefix.
  // The path as asked for, slashes made dashes (`src/` gives `src-`).
  const asked = request.path ? [request.path.replaceAll('/', '-')] : []
  const prefix = [loaded.project.path, ref.replaceAll('/', '-'), commit.oid, ...asked].join('-')
  const pathspecs = [
    ...(path || excludes.length > 0 ? [path ? `:(literal)${path}` : '.'] : []),
    ...excludes.map((segments) => `:(exclude,literal)${segments!.join('/')}`),
  ]
  const child = startProcess(
    'git',
    [
      `--git-dir=${repository.directory}`,
      '-c',
      'tar.tar.bz2.command=bzip2 -c',
      'archive',
      `--format=${format}`,
      `--prefix=${prefix}/`,
      commit.oid,
      ...(pathspecs.length > 0 ? ['--', ...pathspecs] : []),
    ],
    { env: gitEnvironment(), stdio: ['ignore', 'pipe', 'ignore'] },
  )
  const first = await firstOutput(child)
  if (first === null) throw new NotFound('File')
  const body = new PassThrough()
  body.write(first)
  child.stdout!.pipe(body)
  child.stdout!.resume()
  // A caller that goes away ends git (and bzip2 under it), which would otherwise write into a closed pipe.
  body.on('close', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill()
  })
  child.on('close', (code) => {
    if (code !== 0) body.destroy(new Error(`git archive failed (${code ?? 'signal'})`))
  })
  return { fileName: `${prefix}.${format}`, contentType: format === 'zip' ? 'application/zip' : 'application/octet-stream', body }
}
