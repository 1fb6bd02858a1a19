/** Reads of a repository that pages show too: trees, blobs, archives, contributors, languages. */
export { ARCHIVE_FORMATS, openArchive, type Archive, type ArchiveRequest } from './archive.js'
export { readBlob, type FoundBlob } from './blobs.js'
export { listContributors, type Contributor, type ContributorsQuery } from './contributors.js'
export { listLanguages } from './languages.js'
export { languageOfPath, parseLinguistRules, type LinguistRule } from './linguist.js'
export { findMergeBase } from './merge-base.js'
export { openRepository, pathSegments, refOrDefault, type BrowsedRepository } from './repository.js'
export {
  listTree,
  openTree,
  treeKeysetPage,
  treeOffsetPage,
  type TreeItem,
  type TreeKeysetPage,
  type TreeListing,
  type TreeOffsetPage,
  type TreeQuery,
} from './tree.js'
