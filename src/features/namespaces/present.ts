import { createHash } from 'node:crypto'
import type { NamespaceJson } from './schemas.js'
import type { NamespaceWithOwner } from './store.js'

/** Avatar URLs remembered at most; a pure function of the e-mail, so the memo only saves hashing on every user shown. */
const AVATAR_MEMO_SIZE = 10_000
const avatarUrls = new Map<string, string>()

/** Gravatar's identicon for the e-mail, as GitLab serves when no avatar was uploaded. */
export function avatarUrlOf(email: string): string {
  let url = avatarUrls.get(email)
  if (url === undefined) {
    const hash = createHash('md5').update(email.trim().toLowerCase()).digest('hex')
    url = `https://www.gravatar.com/avatar/${hash}?s=80&d=identicon`
    if (avatarUrls.size >= AVATAR_MEMO_SIZE) avatarUrls.clear()
    avatarUrls.set(email, url)
  }
  return url
}

/** What the caller may see of a group's size: only those who administer it (GL `admin_request_for_group?`). */
export interface NamespaceCounts {
  members: number
  projects: number
}

/** Entities::Namespace (NamespaceBasic first). */
export function presentNamespace(namespace: NamespaceWithOwner, externalUrl: string, counts: NamespaceCounts | undefined): NamespaceJson {
  const personal = namespace.kind === 'user'
  const json: NamespaceJson = {
    id: namespace.id,
    name: namespace.name,
    path: namespace.path,
    kind: namespace.kind,
    full_path: namespace.full_path,
    parent_id: namespace.parent_id,
    // A user namespace shows its owner's avatar; group avatars are not offered.
    avatar_url: personal && namespace.owner_email !== null ? avatarUrlOf(namespace.owner_email) : null,
    web_url: personal ? `${externalUrl}/${namespace.owner_username ?? namespace.path}` : `${externalUrl}/groups/${namespace.full_path}`,
  }
  if (counts) {
    json.members_count_with_descendants = counts.members
    // Storage is not measured yet, so no root storage statistics exist.
    json.root_repository_size = null
    json.projects_count = counts.projects
  }
  return json
}
