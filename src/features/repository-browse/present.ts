import type { BlobJson, ContributorJson, TreeObjectJson } from './schemas.js'

/** GL Entities::TreeObject: git writes a tree's mode `40000`, GitLab shows six digits. */
export function presentTreeObject(item: { oid: string; name: string; type: string; path: string; mode: string }): TreeObjectJson {
  return { id: item.oid, name: item.name, type: item.type, path: item.path, mode: item.mode.length < 6 ? `0${item.mode}` : item.mode }
}

export function presentBlob(blob: { oid: string; size: number; content: Buffer }): BlobJson {
  return { size: blob.size, encoding: 'base64', content: blob.content.toString('base64'), sha: blob.oid }
}

/** GL Entities::Contributor: GitLab counts no additions or deletions. */
export function presentContributor(contributor: { name: string; email: string; commits: number }): ContributorJson {
  return { name: contributor.name, email: contributor.email, commits: contributor.commits, additions: 0, deletions: 0 }
}
