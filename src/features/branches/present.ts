import { presentCommit } from '../commits/index.js'
import type { BranchJson } from './schemas.js'
import type { BranchView } from './service.js'

export interface BranchPresentOptions {
  externalUrl: string
  projectFullPath: string
}

/** Rails' path escaping of a ref in a URL: each segment escaped, slashes kept. */
function escapedRef(name: string): string {
  return name
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/%40/g, '@').replace(/%2B/g, '+').replace(/%3A/g, ':'))
    .join('/')
}

/** GL Entities::Branch. */
export function presentBranch(branch: BranchView, options: BranchPresentOptions): BranchJson {
  return {
    name: branch.name,
    commit: presentCommit(branch.commit, options),
    merged: branch.merged,
    protected: branch.isProtected,
    developers_can_push: branch.developersCanPush,
    developers_can_merge: branch.developersCanMerge,
    can_push: branch.canPush,
    default: branch.isDefault,
    web_url: `${options.externalUrl}/${options.projectFullPath}/-/tree/${escapedRef(branch.name)}`,
  }
}
