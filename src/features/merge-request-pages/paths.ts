import type { LoadedProject } from '../access/index.js'
import { projectPath } from '../projects/index.js'

// Where the merge request pages are, at GitLab's URLs.

export function mergeRequestsPath(loaded: LoadedProject, suffix = ''): string {
  return projectPath(loaded, `/-/merge_requests${suffix}`)
}

export function mergeRequestPath(loaded: LoadedProject, iid: number, tab = ''): string {
  return projectPath(loaded, `/-/merge_requests/${iid}${tab}`)
}

/** A ref name in a path: each part encoded, the slashes kept. */
export function encodeRef(ref: string): string {
  return ref.split('/').map(encodeURIComponent).join('/')
}
