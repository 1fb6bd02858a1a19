import { unifiedDiffOf, type FileDiff, type ParsedCommit } from '../repositories/index.js'
import type { CommitDetailJson, CommitJson, CommitStatsJson, DiffJson } from './schemas.js'

export interface CommitPresentOptions {
  externalUrl: string
  /** The full path of the project the commit is shown in, for web_url. */
  projectFullPath: string
  /** Read the message's trailers (GL shows them only when a list asks with `trailers=true`; else `{}`). */
  withTrailers?: boolean
}

export interface CommitDetailPresentOptions extends CommitPresentOptions {
  projectId: number
  /** Left out when null (`stats=false`). */
  stats: CommitStatsJson | null
}

/** GL Commit.truncate_sha: 8 characters. */
export function shortCommitId(oid: string): string {
  return oid.slice(0, 8)
}

/** GL Commit#full_title: the message's first line, or "No commit message" when the message is blank. */
export function commitTitle(message: string): string {
  if (message.trim() === '') return 'No commit message'
  return message.split(/[\r\n]/, 1)[0]
}

const TRAILER = /^([A-Za-z0-9][A-Za-z0-9-]*)\s*:\s*(.*)$/

/**
 * The trailers of a message as git reads them: its last paragraph when every line of it is `Key: value` (or the
 * indented continuation of one), continuations unfolded. Keys keep their spelling and order.
 */
export function parseTrailers(message: string): [string, string][] {
  const paragraphs = message.replace(/\s+$/, '').split(/\n[ \t]*\n/)
  if (paragraphs.length < 2) return []
  const lines = paragraphs[paragraphs.length - 1].split('\n')
  const trailers: [string, string][] = []
  for (const line of lines) {
    if (/^[ \t]/.test(line) && trailers.length > 0) {
      const last = trailers[trailers.length - 1]
      last[1] = `${last[1]} ${line.trim()}`.trim()
      continue
    }
    const match = TRAILER.exec(line)
    if (!match) return []
    trailers.push([match[1], match[2].trim()])
  }
  return trailers
}

function trailersOf(message: string): Pick<CommitJson, 'trailers' | 'extended_trailers'> {
  const trailers: Record<string, string> = {}
  const extended: Record<string, string[]> = {}
  for (const [key, value] of parseTrailers(message)) {
    trailers[key] = value
    ;(extended[key] ??= []).push(value)
  }
  return { trailers, extended_trailers: extended }
}

/** GL Entities::Commit. created_at is the committer's date, as GitLab's Commit#created_at. */
export function presentCommit(commit: ParsedCommit, options: CommitPresentOptions): CommitJson {
  const { trailers, extended_trailers } = options.withTrailers ? trailersOf(commit.message) : { trailers: {}, extended_trailers: {} }
  return {
    id: commit.oid,
    short_id: shortCommitId(commit.oid),
    created_at: commit.committer.date,
    parent_ids: commit.parents,
    title: commitTitle(commit.message),
    message: commit.message,
    author_name: commit.author.name,
    author_email: commit.author.email,
    authored_date: commit.author.date,
    committer_name: commit.committer.name,
    committer_email: commit.committer.email,
    committed_date: commit.committer.date,
    trailers,
    extended_trailers,
    web_url: `${options.externalUrl}/${options.projectFullPath}/-/commit/${commit.oid}`,
  }
}

/** GL Entities::CommitDetail: the commit entity, its stats, and null pipeline status (svc runs no CI). */
export function presentCommitDetail(commit: ParsedCommit, options: CommitDetailPresentOptions): CommitDetailJson {
  return {
    ...presentCommit(commit, options),
    ...(options.stats ? { stats: options.stats } : {}),
    status: null,
    project_id: options.projectId,
    last_pipeline: null,
  }
}

/** GL Entities::Diff of one file; `unidiff` adds the `---`/`+++` lines (GL `unidiff=true`). */
export function presentDiff(file: FileDiff, unidiff: boolean): DiffJson {
  return {
    diff: unidiff ? unifiedDiffOf(file) : file.diff,
    collapsed: file.collapsed,
    too_large: file.tooLarge,
    new_path: file.newPath,
    old_path: file.oldPath,
    a_mode: file.aMode,
    b_mode: file.bMode,
    new_file: file.newFile,
    renamed_file: file.renamedFile,
    deleted_file: file.deletedFile,
    generated_file: false,
  }
}
