import { AccessLevel } from '../../core/access.js'
import { isAdmin } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import { canPushCode, type ProjectAccess } from '../access/index.js'
import { branchProtectionOf, isDefaultBranchProtected, type NamespaceBranchProtection } from './default-branch.js'

// What protected branches and tags allow (GL ProtectedRef, ProtectedRefAccess, Gitlab::UserAccess, and the branch and
// tag checks of lib/gitlab/checks), as pure functions of the project's rules and the caller's access.

/** GL ProtectedRefAccess levels: No one, Developers + Maintainers, Maintainers, Administrators. */
export const PROTECTED_ACCESS_LEVELS: readonly number[] = [0, 30, 40, 60]
const ADMIN_ACCESS = 60

/** One access level of a protected ref: a role, a user or a group. */
export interface RefAccessLevel {
  id: number
  accessLevel: number
  userId: number | null
  groupId: number | null
}

export interface ProtectedBranch {
  id: number
  name: string
  allowForcePush: boolean
  codeOwnerApprovalRequired: boolean
  push: RefAccessLevel[]
  merge: RefAccessLevel[]
  unprotect: RefAccessLevel[]
}

export interface ProtectedTag {
  id: number
  name: string
  create: RefAccessLevel[]
}

/** A project's protected branches and tags. */
export interface Protection {
  branches: ProtectedBranch[]
  tags: ProtectedTag[]
}

/** Who asks, on which project (and its namespace, for the default branch protection), under which rules. */
export interface RefSubject {
  access: ProjectAccess
  project: ProjectRow
  namespace: NamespaceBranchProtection | null
  /** The instance's default branch protection level, for a namespace without its own. */
  instanceBranchProtection: number
  protection: Protection
}

/** GL ProtectedRefAccess#humanize. */
export function accessLevelDescription(level: RefAccessLevel): string {
  if (level.accessLevel === AccessLevel.NONE) return 'No one'
  if (level.accessLevel === AccessLevel.DEVELOPER) return 'Developers + Maintainers'
  if (level.accessLevel === AccessLevel.MAINTAINER) return 'Maintainers'
  if (level.accessLevel === ADMIN_ACCESS) return 'Administrators'
  return 'Maintainers'
}

/** GL RefMatcher: the exact name, or a wildcard whose `*` stands for any characters, `/` included. */
export function refNameMatches(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name
  const expression = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*?')
  return new RegExp(`^${expression}$`, 's').test(name)
}

export function matchingBranches(protection: Protection, name: string): ProtectedBranch[] {
  return protection.branches.filter((branch) => refNameMatches(branch.name, name))
}

export function matchingTags(protection: Protection, name: string): ProtectedTag[] {
  return protection.tags.filter((tag) => refNameMatches(tag.name, name))
}

/**
 * GL ProtectedBranch.protected?: a rule names or matches the branch; in an empty repository every branch is while the
 * namespace's default branch protection guards the first push.
 */
export function isBranchProtected(subject: RefSubject, name: string): boolean {
  if (
    subject.project.empty_repo === 1 &&
    isDefaultBranchProtected(branchProtectionOf(subject.namespace, subject.instanceBranchProtection).defaults)
  )
    return true
  return matchingBranches(subject.protection, name).length > 0
}

export function isTagProtected(protection: Protection, name: string): boolean {
  return matchingTags(protection, name).length > 0
}

/** GL ProtectedRefAccess#check_access: nobody for No one, administrators for any role, else the role or the user. */
function allows(access: ProjectAccess, level: RefAccessLevel): boolean {
  const user = access.caller.user
  if (!user) return false
  if (level.userId !== null) return level.userId === user.id
  if (level.groupId !== null) return false
  if (level.accessLevel === AccessLevel.NONE) return false
  // GL ProtectedRefAccess#check_access: administrators pass every role level.
  if (isAdmin(access.caller)) return true
  if (level.accessLevel === ADMIN_ACCESS) return false
  return access.level >= level.accessLevel
}

function isMaintainer(access: ProjectAccess): boolean {
  return isAdmin(access.caller) || (access.caller.user !== null && access.level >= AccessLevel.MAINTAINER)
}

/**
 * GL ProtectedBranch.protected_ref_accessible_to?: Maintainers (and administrators) make an empty project's first branch;
 * Developers too when the default branch protection lets them push it first.
 */
function branchAccessibleTo(subject: RefSubject, name: string, action: 'push' | 'merge'): boolean {
  if (subject.project.empty_repo === 1) {
    if (isMaintainer(subject.access)) return true
    const isDeveloper = subject.access.caller.user !== null && subject.access.level === AccessLevel.DEVELOPER
    if (isDeveloper && branchProtectionOf(subject.namespace, subject.instanceBranchProtection).defaults.developer_can_initial_push)
      return true
  }
  return matchingBranches(subject.protection, name).some((branch) => branch[action].some((level) => allows(subject.access, level)))
}

/** GL Gitlab::UserAccess#can_push_to_branch?. */
export function canPushToBranch(subject: RefSubject, name: string): boolean {
  if (!canPushCode(subject.access, subject.project)) return false
  return !isBranchProtected(subject, name) || branchAccessibleTo(subject, name, 'push')
}

/** GL Gitlab::UserAccess#can_merge_to_branch?. */
export function canMergeToBranch(subject: RefSubject, name: string): boolean {
  if (!canPushCode(subject.access, subject.project)) return false
  return !isBranchProtected(subject, name) || branchAccessibleTo(subject, name, 'merge')
}

/** GL MergeRequest#can_be_merged_by? (Gitlab::UserAccess#can_update_branch?): may push to, or merge into, the target. */
export function canUpdateBranch(subject: RefSubject, name: string): boolean {
  return canPushToBranch(subject, name) || canMergeToBranch(subject, name)
}

/** GL Gitlab::UserAccess#can_delete_branch?: a protected branch needs a Maintainer. */
export function canDeleteBranch(subject: RefSubject, name: string): boolean {
  if (!canPushCode(subject.access, subject.project)) return false
  return !isBranchProtected(subject, name) || isMaintainer(subject.access)
}

/** GL ProtectedBranch.developers_can?: a rule for the branch lets Developers do it. */
export function developersCan(protection: Protection, action: 'push' | 'merge', name: string): boolean {
  return matchingBranches(protection, name).some((branch) => branch[action].some((level) => level.accessLevel === AccessLevel.DEVELOPER))
}

/** GL Gitlab::UserAccess#can_create_tag?: a protected tag needs its create level; others need Developer (admin_tag). */
export function canCreateTag(subject: RefSubject, name: string): boolean {
  if (!canPushCode(subject.access, subject.project)) return false
  const matching = matchingTags(subject.protection, name)
  if (matching.length === 0) return true
  return matching.some((tag) => tag.create.some((level) => allows(subject.access, level)))
}

/** A change of a branch or tag, as protection rules judge it. */
export type RefChange = 'push' | 'force-push' | 'delete' | 'create' | 'merge'

/** Where a change comes from: the API and pages (GL protocol `web`) or a Git client. */
export type RefChangeOrigin = 'web' | 'git'

// GL lib/gitlab/checks/branch_check.rb, tag_check.rb and git_access.rb.
export const RefMessages = {
  pushCode: 'You are not allowed to push code to this project.',
  deleteDefaultBranch: 'The default branch of a project cannot be deleted.',
  forcePushProtectedBranch: 'You are not allowed to force push code to a protected branch on this project.',
  deleteProtectedBranch:
    'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
  deleteProtectedBranchNonWeb: 'You can only delete protected branches using the web interface.',
  mergeProtectedBranch: 'You are not allowed to merge code into protected branches on this project.',
  pushProtectedBranch: 'You are not allowed to push code to protected branches on this project.',
  createProtectedBranch: 'You are not allowed to create protected branches on this project.',
  createProtectedBranchNonWeb: 'You can only create protected branches using the web interface and API.',
  prohibitedHexBranchName: 'You cannot create a branch with a 40-character hexadecimal branch name.',
  updateProtectedTag: 'Protected tags cannot be updated.',
  deleteProtectedTag:
    'You are not allowed to delete protected tags from this project. Only a project maintainer or owner can delete a protected tag.',
  deleteProtectedTagNonWeb: 'You can only delete protected tags using the web interface.',
  createProtectedTag: 'You are not allowed to create this tag as it is protected.',
  defaultBranchCollision: 'You cannot use default branch name to create a tag',
  prohibitedTagName: 'You cannot create a tag with a prohibited pattern.',
  prohibitedShaTagName: 'You cannot create a tag with a SHA-1 or SHA-256 tag name.',
} as const

/** GL BranchCheck#empty_project_push_message, with the project's members page. */
function emptyProjectPushMessage(project: ProjectRow, externalUrl: string): string {
  return (
    `\nA default branch (e.g. main) does not yet exist for ${project.full_path}\n` +
    'Ask a project Owner or Maintainer to create a default branch:\n\n' +
    `  ${externalUrl}/${project.full_path}/-/project_members\n\n`
  )
}

/**
 * Why the caller may not make `change` to `ref` (a full ref name), in GitLab's words, or null when they may. The caller
 * is assumed to have passed the project's own push check; refs outside refs/heads and refs/tags are not judged here.
 */
export function refChangeRefusal(
  subject: RefSubject,
  ref: string,
  change: RefChange,
  origin: RefChangeOrigin,
  externalUrl: string,
): string | null {
  if (!canPushCode(subject.access, subject.project)) return RefMessages.pushCode
  if (ref.startsWith('refs/heads/')) return branchRefusal(subject, ref.slice('refs/heads/'.length), change, origin, externalUrl)
  if (ref.startsWith('refs/tags/')) return tagRefusal(subject, ref.slice('refs/tags/'.length), change, origin)
  return null
}

function branchRefusal(subject: RefSubject, name: string, change: RefChange, origin: RefChangeOrigin, externalUrl: string): string | null {
  const { project } = subject
  if (change === 'delete' && name === project.default_branch) return RefMessages.deleteDefaultBranch
  if (change !== 'delete' && /^[0-9a-fA-F]{40}(?:-\/|\/|$)/.test(name)) return RefMessages.prohibitedHexBranchName
  if (!isBranchProtected(subject, name)) return null
  // GL ForcePush.force_push?: nothing is forced into an empty repository.
  const forced = change === 'force-push' && project.empty_repo !== 1
  if (forced && !matchingBranches(subject.protection, name).some((branch) => branch.allowForcePush)) {
    return RefMessages.forcePushProtectedBranch
  }
  if (change === 'merge') {
    return canUpdateBranch(subject, name) ? null : RefMessages.mergeProtectedBranch
  }
  if (project.empty_repo === 1 || change === 'push' || change === 'force-push') {
    if (canPushToBranch(subject, name)) return null
    return project.empty_repo === 1 ? emptyProjectPushMessage(project, externalUrl) : RefMessages.pushProtectedBranch
  }
  if (change === 'create') {
    if (canPushToBranch(subject, name)) return null
    if (!canMergeToBranch(subject, name)) return RefMessages.createProtectedBranch
    return origin === 'web' ? null : RefMessages.createProtectedBranchNonWeb
  }
  if (!canDeleteBranch(subject, name)) return RefMessages.deleteProtectedBranch
  return origin === 'web' ? null : RefMessages.deleteProtectedBranchNonWeb
}

function tagRefusal(subject: RefSubject, name: string, change: RefChange, origin: RefChangeOrigin): string | null {
  if (change === 'create' && name === subject.project.default_branch) return RefMessages.defaultBranchCollision
  if (change !== 'delete') {
    if (name.startsWith('refs/tags/')) return RefMessages.prohibitedTagName
    if (/^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})/.test(name)) return RefMessages.prohibitedShaTagName
  }
  if (!isTagProtected(subject.protection, name)) return null
  if (change === 'push' || change === 'force-push' || change === 'merge') return RefMessages.updateProtectedTag
  if (change === 'delete') {
    if (!isMaintainer(subject.access)) return RefMessages.deleteProtectedTag
    if (origin !== 'web') return RefMessages.deleteProtectedTagNonWeb
  }
  return canCreateTag(subject, name) ? null : RefMessages.createProtectedTag
}
