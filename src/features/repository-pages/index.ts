import { projectPageRoutes } from '../projects/index.js'
import type { WebRouter } from '../sessions/index.js'
import { sendArchive } from './archive.js'
import { sendRaw, showBlame, showBlob } from './blob.js'
import { showCommit, showCommits } from './commits.js'
import { showCompareForm, showComparison } from './compare.js'
import { showFindFile } from './find-file.js'
import { showBranches, showTags } from './refs.js'
import { codePage, type CodePage } from './shared.js'
import { showTree, switchRef } from './tree.js'

// The repository pages of a project, at GitLab's URLs: files, a file, its raw bytes, blame and history, commits, a
// commit, branches, tags, compare, archives and the file finder. Each is the 404 page for a visitor who may not read
// the code.

const PAGES: [string, (page: CodePage) => Promise<unknown>][] = [
  ['/-/tree', showTree],
  ['/-/tree/*', showTree],
  ['/-/blob/*', showBlob],
  ['/-/raw/*', sendRaw],
  ['/-/blame/*', showBlame],
  ['/-/commits/*', showCommits],
  ['/-/commit/:sha', showCommit],
  ['/-/branches', showBranches],
  ['/-/tags', showTags],
  ['/-/compare', showCompareForm],
  ['/-/compare/*', showComparison],
  ['/-/archive/*', sendArchive],
  ['/-/refs/switch', switchRef],
  ['/-/find_file/*', showFindFile],
]

export function registerRepositoryPages(web: WebRouter) {
  for (const [suffix, handler] of PAGES) {
    for (const route of projectPageRoutes(suffix)) web.get(route, codePage(handler))
  }
}
