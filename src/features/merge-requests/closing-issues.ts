import type { Context } from '../../core/context.js'
import type { MergeRequestRow } from '../../db/schema.js'
import type { LoadedProject } from '../access/index.js'
import { closeIssueViaMergeRequest } from '../issues/index.js'
import { closingReferencesIn, mergeRequestReferenceFrom, readableIssues, type ReadableIssue } from './issue-references.js'
import { listMergeRequestCommits } from './review.js'

/**
 * GL MergeRequest#closes_issues and ClosingIssueExtractor: the issues its description and its commits' messages close,
 * as the caller may read them; never those of a project that turned off `autoclose_referenced_issues`, nor those of the
 * project the merge request's project was forked from.
 */
export async function closingIssuesOf(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<ReadableIssue[]> {
  const commits = await listMergeRequestCommits(ctx, loaded, row)
  const messages = [row.description ?? '', ...commits.map((commit) => commit.message)]
  const references = messages.flatMap((message) => closingReferencesIn(message, ctx.config.externalUrl))
  const issues = await readableIssues(ctx, loaded, references)
  return issues.filter(
    ({ loaded: issueProject }) =>
      issueProject.project.autoclose_referenced_issues === 1 && loaded.project.forked_from_project_id !== issueProject.project.id,
  )
}

/**
 * GL MergeRequests::PostMergeService#close_issues: once merged into the project's default branch, the issues it
 * closes are closed by the merging user, each with "closed via merge request !N".
 */
export async function closeIssuesAfterMerge(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<void> {
  if (row.target_branch !== loaded.project.default_branch) return
  for (const { loaded: issueProject, issue } of await closingIssuesOf(ctx, loaded, row)) {
    await closeIssueViaMergeRequest(ctx, issueProject, issue, mergeRequestReferenceFrom(loaded.project, row.iid, issueProject.project))
  }
}
