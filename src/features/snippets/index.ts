import type { Context } from '../../core/context.js'
import type { SnippetRow } from '../../db/schema.js'
import { handle, type JobHandler } from '../../jobs/index.js'
import { RemoveSnippetRepository } from './jobs.js'
import { presentBasicSnippet } from './present.js'
import type { BasicSnippetJson } from './schemas.js'
import { buildSnippetViews, removeDeletedSnippetRepository, snippetPresentOptions } from './service.js'

export { findSnippet, type LoadedSnippet } from './service.js'
export { snippetRepositoryDirectory } from './repository.js'
export { findSnippetsByIds } from './store.js'

/** GL Entities::BasicSnippet's response schema: the snippet a storage move embeds. */
export { BasicSnippetJson } from './schemas.js'

/** The snippets as a storage move embeds them (GL Entities::BasicSnippet), in the order given, for the caller of `ctx`. */
export async function presentSnippetsForMoves(ctx: Context, snippets: readonly SnippetRow[]): Promise<BasicSnippetJson[]> {
  const options = snippetPresentOptions(ctx)
  return (await buildSnippetViews(ctx, snippets)).map((view) => presentBasicSnippet(view, options))
}

/** One snippet as a storage move embeds it (GL Entities::BasicSnippet). */
export async function presentSnippetForMove(ctx: Context, snippet: SnippetRow): Promise<BasicSnippetJson> {
  return (await presentSnippetsForMoves(ctx, [snippet]))[0]
}

export const jobHandlers: JobHandler[] = [
  handle(RemoveSnippetRepository, (ctx, { snippetId, storage }) => removeDeletedSnippetRepository(ctx, snippetId, storage)),
]

// The snippet pages read snippets and their files as the API does.
export { buildSnippetView, createSnippet, findProjectSnippet, readSnippetContent, readSnippetFile } from './service.js'
// The snippet lists and forms list, change and delete through the API's services.
export {
  buildSnippetViews,
  deleteSnippet,
  listProjectSnippets,
  listSnippets,
  updateSnippet,
  type SnippetListScope,
  type UpdateSnippetInput,
} from './service.js'
export type { SnippetView } from './present.js'
export type { SnippetFileAction } from './schemas.js'
export { sendSnippetContent, sendSnippetFile } from './raw.js'
