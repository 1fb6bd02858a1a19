import { canRead, type Access } from '../../core/access.js'
import type { Context } from '../../core/context.js'
import { NotFound, ProjectMoved, RecordNotFound } from '../../core/errors.js'
import type { IssueRow, MergeRequestRow, NamespaceRow, ProjectRow } from '../../db/schema.js'
import { canReadIssue } from './policies/issue.js'
import { canReadMergeRequests } from './policies/merge-request.js'
import { groupAccess, projectAccess, type ProjectAccess } from './roles.js'
import {
  findGroupByIdOrFullPath,
  findIssueAssigneeIds,
  findIssueByIid,
  findMergeRequestByIid,
  findNamespaceById,
  findProjectByFullPath,
  findProjectById,
  findRedirectedProjectId,
} from './store.js'

/** A project with its namespace and what the caller may do there. */
export interface LoadedProject {
  project: ProjectRow
  namespace: NamespaceRow
  access: ProjectAccess
}

/** A group with what the caller may do there. */
export interface LoadedGroup {
  group: NamespaceRow
  access: Access
}

export async function withAccess(ctx: Context, project: ProjectRow): Promise<LoadedProject> {
  const [namespace] = await findNamespaceById(ctx.db, project.namespace_id)
  return { project, namespace, access: await projectAccess(ctx, project, namespace) }
}

/**
 * A project by id or full path as the caller may see it (GL helpers.rb `find_project!`): 404 "Project Not
 * Found" when it does not exist or is hidden from them. A path it had before a move, or its path written in
 * other letter case, answers ProjectMoved (GL `project_moved?`).
 */
export async function findProject(ctx: Context, idOrPath: string | number): Promise<LoadedProject> {
  const text = String(idOrPath)
  let project: ProjectRow | undefined
  if (/^\d+$/.test(text)) {
    const id = Number(text)
    project = Number.isSafeInteger(id) ? (await findProjectById(ctx.db, id))[0] : undefined
  } else {
    project = await findProjectByFullPath(ctx.db, text)
    if (!project) {
      const redirect = await findRedirectedProjectId(ctx.db, text)
      const moved = redirect?.project_id ? (await findProjectById(ctx.db, redirect.project_id))[0] : undefined
      if (moved && canRead((await withAccess(ctx, moved)).access)) throw new ProjectMoved(moved.id)
    }
  }
  // A project marked for deletion is gone for every caller (GL `Project.without_deleted`).
  if (!project || project.pending_delete) throw new NotFound('Project')
  const loaded = await withAccess(ctx, project)
  if (!canRead(loaded.access)) throw new NotFound('Project')
  if (text.includes('/') && project.full_path !== text) throw new ProjectMoved(project.id)
  return loaded
}

/** A group by id or full path as the caller may see it (GL helpers.rb `find_group!`): else 404 "Group Not Found". */
export async function findGroup(ctx: Context, idOrPath: string | number): Promise<LoadedGroup> {
  const group = await findGroupByIdOrFullPath(ctx.db, String(idOrPath))
  if (!group) throw new NotFound('Group')
  const access = await groupAccess(ctx, group)
  if (!canRead(access)) throw new NotFound('Group')
  return { group, access }
}

/** An issue of the project by iid as the caller may see it; 404 "Not found" otherwise (GL `find_project_issue`). */
export async function findIssue(ctx: Context, loaded: LoadedProject, iid: number): Promise<IssueRow> {
  const issue = await findIssueByIid(ctx.db, loaded.project.id, iid)
  if (!issue) throw new RecordNotFound()
  const assigneeIds = issue.confidential ? await findIssueAssigneeIds(ctx.db, issue.id) : []
  if (!canReadIssue(loaded.access, loaded.project, issue, assigneeIds)) throw new RecordNotFound()
  return issue
}

/** A merge request of the project by iid as the caller may see it; 404 "Not found" otherwise (GL `find_project_merge_request`). */
export async function findMergeRequest(ctx: Context, loaded: LoadedProject, iid: number): Promise<MergeRequestRow> {
  if (!canReadMergeRequests(loaded.access, loaded.project)) throw new RecordNotFound()
  const mergeRequest = await findMergeRequestByIid(ctx.db, loaded.project.id, iid)
  if (!mergeRequest) throw new RecordNotFound()
  return mergeRequest
}
