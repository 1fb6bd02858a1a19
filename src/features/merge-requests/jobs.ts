import { Type } from '@sinclair/typebox'
import { defineJob } from '../../jobs/index.js'

/** Rebases a merge request's source branch onto its target branch for a user (GL RebaseWorker). */
export const RebaseMergeRequest = defineJob(
  'merge-requests.rebase',
  Type.Object({ mergeRequestId: Type.Integer(), userId: Type.Integer(), skipCi: Type.Boolean() }),
)
