/**
 * Protected branches and tags: the rules every change of a ref obeys (API writes, merges and Git pushes), and what the
 * branch and tag entities show of them. API writes call assertMayChangeRef (GitLab's pre-receive refusal, 400); a
 * service with its own wording (GL Commits::CreateService's "You are not allowed to push into this branch") asks
 * canPushToBranch(await loadRefSubject(ctx, loaded), branch) instead; entities ask isBranchProtected, developersCan,
 * isTagProtected.
 */
export {
  assertMayChangeRef,
  loadProtection,
  loadRefSubject,
  protectDefaultBranch,
  RefChangeRefused,
  refChangeRefusalFor,
} from './protection.js'
export {
  BranchProtectionLevel,
  branchProtectionOf,
  branchProtectionOfLevel,
  levelOfBranchProtection,
  type BranchProtectionDefaults,
  type NamespaceBranchProtection,
} from './default-branch.js'
export {
  listProtectedBranches,
  listProtectedTags,
  protectBranch,
  protectBranchByLegacyApi,
  protectTag,
  unprotectBranch,
  unprotectBranchByLegacyApi,
  unprotectTag,
  updateProtectedBranch,
} from './service.js'
export type { CreateProtectedBranchParams, CreateProtectedTagParams, UpdateProtectedBranchParams } from './schemas.js'
export {
  accessLevelDescription,
  canCreateTag,
  canMergeToBranch,
  canPushToBranch,
  canUpdateBranch,
  developersCan,
  isBranchProtected,
  isTagProtected,
  refChangeRefusal,
  RefMessages,
  PROTECTED_ACCESS_LEVELS,
  type Protection,
  type ProtectedBranch,
  type ProtectedTag,
  type RefChange,
  type RefChangeOrigin,
  type RefSubject,
} from './rules.js'
