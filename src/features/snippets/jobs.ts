import { Type } from '@sinclair/typebox'
import { defineJob } from '../../jobs/index.js'

/** Removes a deleted snippet's repository; the row is gone already, so the payload says where the repository was. */
export const RemoveSnippetRepository = defineJob(
  'snippets.remove-repository',
  Type.Object({ snippetId: Type.Integer(), storage: Type.String() }),
  { maxAttempts: 10 },
)
