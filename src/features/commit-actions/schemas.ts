import { Type, type Static } from '@sinclair/typebox'

// Request params (GL lib/api/commits.rb). `:id` is a project id or URL-encoded full path; `:sha` a commit id, branch or tag.

/** POST /projects/:id/repository/commits; `actions` are checked one by one with GitLab's messages (see routes.ts). */
export const CreateCommitParams = Type.Object({
  id: Type.String(),
  branch: Type.String(),
  commit_message: Type.String(),
  actions: Type.Array(Type.Unknown()),
  start_branch: Type.Optional(Type.String()),
  start_sha: Type.Optional(Type.String()),
  start_project: Type.Optional(Type.String()),
  author_email: Type.Optional(Type.String()),
  author_name: Type.Optional(Type.String()),
  stats: Type.Boolean({ default: true }),
  force: Type.Boolean({ default: false }),
})
export type CreateCommitParams = Static<typeof CreateCommitParams>

export const CherryPickParams = Type.Object({
  id: Type.String(),
  sha: Type.String(),
  branch: Type.String(),
  dry_run: Type.Boolean({ default: false }),
  message: Type.Optional(Type.String()),
})

export const RevertParams = Type.Object({
  id: Type.String(),
  sha: Type.String(),
  branch: Type.String(),
  dry_run: Type.Boolean({ default: false }),
})

/** A dry run that would succeed. */
export const DryRunJson = Type.Object({ dry_run: Type.Literal('success') })
