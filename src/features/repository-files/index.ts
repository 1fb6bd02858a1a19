/** Reads of a repository's files that pages show too: a file at a ref, its blame, and how its raw bytes are sent. */
export { readRepositoryFile, type RepositoryFile } from './service.js'
export { blameRangesOf, openBlame, type BlameLine, type BlameLines, type BlameRange } from './blame.js'
export { contentDisposition } from './present.js'
