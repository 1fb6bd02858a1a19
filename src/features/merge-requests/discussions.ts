import type { Context } from '../../core/context.js'
import { BadRequest } from '../../core/errors.js'
import type { MergeRequestRow } from '../../db/schema.js'
import type { LoadedProject } from '../access/index.js'
import { diffLinesOf } from '../diff-view/index.js'
import { newDiscussionId, type NoteThread } from '../notes/index.js'
import { projectRepositoryDirectory } from '../repositories/index.js'
import { listMergeRequestVersions } from './review.js'
import { versionDiff } from './versions.js'

// Threads on a merge request's diff lines (GL DiffNote with a text Gitlab::Diff::Position): the position names one of
// the merge request's versions by its three commits, a file by its paths, and a line by its old and new numbers.

/** A position as the API's `position[...]` params and the changes page's form give it. */
export interface DiffPositionInput {
  baseSha: string | null
  startSha: string
  headSha: string
  positionType: string
  oldPath?: string
  newPath?: string
  oldLine?: number | null
  newLine?: number | null
}

/** GL DiffNote's validation when the position names no line of the diff (`line_code` then stays empty). */
const NO_SUCH_LINE = 'Note {:line_code=>["can\'t be blank", "must be a valid line code"]}'

/**
 * The thread a new DiffNote starts at `position`: the version whose diff refs it names, the file by its paths, and a
 * line of that file's diff (an added line by its new number, a removed one by its old, an unchanged one by either or
 * both). GitLab's position JSON is stored with the paths the diff has and GitLab's line code.
 */
export async function diffNoteThread(
  ctx: Context,
  loaded: LoadedProject,
  row: MergeRequestRow,
  position: DiffPositionInput,
): Promise<NoteThread> {
  if (position.positionType !== 'text') throw new BadRequest(NO_SUCH_LINE)
  const oldLine = position.oldLine ?? null
  const newLine = position.newLine ?? null
  if ((oldLine === null && newLine === null) || (!position.oldPath && !position.newPath)) {
    throw new BadRequest('Note {:position=>["is incomplete"]}')
  }
  const versions = await listMergeRequestVersions(ctx, loaded, row)
  const version = versions.find(
    (candidate) =>
      candidate.head_commit_sha === position.headSha &&
      candidate.start_commit_sha === position.startSha &&
      (position.baseSha === null || candidate.base_commit_sha === position.baseSha),
  )
  if (!version) throw new BadRequest(NO_SUCH_LINE)
  const diff = await versionDiff(projectRepositoryDirectory(ctx.config, loaded.project), version)
  const file = diff.files.find(
    (candidate) =>
      (!position.newPath || candidate.newPath === position.newPath) && (!position.oldPath || candidate.oldPath === position.oldPath),
  )
  const line = file
    ? diffLinesOf(file).find((candidate) => {
        if (oldLine !== null && newLine !== null) return candidate.oldLine === oldLine && candidate.newLine === newLine
        if (newLine !== null) return candidate.newLine === newLine && candidate.kind !== 'removed'
        return candidate.oldLine === oldLine && candidate.kind !== 'added'
      })
    : undefined
  if (!file || !line) throw new BadRequest(NO_SUCH_LINE)
  const json = {
    base_sha: version.base_commit_sha,
    start_sha: version.start_commit_sha,
    head_sha: version.head_commit_sha,
    old_path: file.oldPath,
    new_path: file.newPath,
    position_type: 'text',
    old_line: oldLine,
    new_line: newLine,
    line_range: null,
  }
  return { type: 'DiffNote', discussionId: newDiscussionId(), position: JSON.stringify(json), lineCode: line.lineCode }
}
