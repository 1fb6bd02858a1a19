import { presentCommit, type CommitPresentOptions } from '../commits/index.js'
import type { TagJson } from './schemas.js'
import type { TagView } from './service.js'

/** GL Entities::Tag. svc has no releases; `protected` is what the protected tags say. */
export function presentTag(tag: TagView, options: CommitPresentOptions): TagJson {
  return {
    name: tag.name,
    message: tag.message,
    target: tag.target,
    commit: tag.commit ? presentCommit(tag.commit, options) : null,
    release: null,
    protected: tag.isProtected,
    created_at: tag.createdAt,
  }
}
