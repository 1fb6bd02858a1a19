import type { Context } from '../../core/context.js'
import type { MergeRequestRow } from '../../db/schema.js'
import type { LoadedProject } from '../access/index.js'
import { createSystemNoteOnce } from '../notes/index.js'
import { mentionedReferencesIn, mergeRequestReferenceFrom, readableIssues } from './issue-references.js'

/**
 * GL Mentionable#create_cross_references!: each issue the title or description names gets "mentioned in merge request
 * !N" once, written by the caller, for the issues the caller may read.
 */
export async function recordMentions(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<void> {
  const user = ctx.caller.user
  if (!user) return
  const references = mentionedReferencesIn(`${row.title}\n${row.description ?? ''}`, ctx.config.externalUrl)
  if (references.length === 0) return
  const issues = await readableIssues(ctx, loaded, references)
  const now = ctx.now()
  await ctx.db.transaction().execute(async (trx) => {
    for (const { loaded: issueProject, issue } of issues) {
      const body = `mentioned in merge request ${mergeRequestReferenceFrom(loaded.project, row.iid, issueProject.project)}`
      await createSystemNoteOnce(trx, { type: 'Issue', id: issue.id, projectId: issue.project_id }, user.id, body, now)
    }
  })
}
