import type { Context } from '../../core/context.js'
import { RecordNotFound } from '../../core/errors.js'
import type { IssueRow } from '../../db/schema.js'
import type { LoadedProject } from '../projects/index.js'
import { canReadIssue } from './policy.js'
import { findIssueAssigneeIds, findIssueByIid } from './store.js'

export { canReadIssue, canReadConfidentialIssues, canReadProjectIssues } from './policy.js'
export { findIssuesByIds, insertIssue, updateIssueRow } from './store.js'

/** An issue of the project by iid as the caller may see it; 404 "Not found" otherwise (GL `find_project_issue`). */
export async function findIssue(ctx: Context, loaded: LoadedProject, iid: number): Promise<IssueRow> {
  const issue = await findIssueByIid(ctx.db, loaded.project.id, iid)
  if (!issue) throw new RecordNotFound()
  const assigneeIds = issue.confidential ? await findIssueAssigneeIds(ctx.db, issue.id) : []
  if (!canReadIssue(loaded.access, loaded.project, issue, assigneeIds)) throw new RecordNotFound()
  return issue
}

export {
  canOpenIncidentIn,
  closeIncident,
  isOpenIncident,
  openIncident,
  type IncidentCloseReason,
  type OpenIncidentInput,
} from './incidents.js'
