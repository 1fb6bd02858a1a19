/**
 * Who may see what: the caller's roles (visibility × membership with inheritance × admin × tier), the policies of
 * every resource, the loaders that find one resource as the caller may see it, and the finders' conditions that
 * every list applies. Scopes are checked per route.
 */
export * from './roles.js'
export * from './loaders.js'
export * from './policies/project.js'
export * from './policies/group.js'
export * from './policies/issue.js'
export * from './policies/merge-request.js'
export * from './policies/milestone.js'
export * from './policies/note.js'
export * from './policies/snippet.js'
export * from './policies/event.js'
export * from './finders/projects.js'
export * from './finders/groups.js'
export * from './finders/issuables.js'
export * from './finders/snippets.js'

// Read models: rows found by id for lists and embeds, whoever may see them; callers decide with the policies above.
export {
  findIssueAssigneeIds,
  findIssueByIid,
  findMergeRequestByIid,
  findNamespaceById,
  findNamespacesByIds,
  findProjectById,
  findProjectsByIds,
  findRedirectedProjectId,
  selectAuthorizedGroupIds,
} from './store.js'
