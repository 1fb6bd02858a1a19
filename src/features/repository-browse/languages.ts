import type { Context } from '../../core/context.js'
import type { LoadedProject } from '../access/index.js'
import { findCommit, readObject, readObjectHeader, readTreeEntries, type TreeEntry } from '../repositories/index.js'
import { languageOfPath, parseLinguistRules } from './linguist.js'
import { openRepository, type BrowsedRepository } from './repository.js'

/** GL Gitlab::LanguageDetection::MAX_LANGUAGES: a project shows its five largest languages. */
const MAX_LANGUAGES = 5
/** Detections kept, by commit: a commit's languages never change. */
const DETECTIONS_KEPT = 64
const detections = new Map<string, [string, number][]>()

/** Every blob under a tree with its path (symbolic links and submodules are not code). */
async function collectBlobs(repository: BrowsedRepository, oid: string, prefix: string, into: { path: string; entry: TreeEntry }[]) {
  const entries = await readTreeEntries(repository.directory, oid)
  const subtrees: Promise<void>[] = []
  for (const entry of entries) {
    if (entry.type === 'tree') subtrees.push(collectBlobs(repository, entry.oid, `${prefix}${entry.name}/`, into))
    else if (entry.type === 'blob' && entry.mode !== '120000') into.push({ path: prefix + entry.name, entry })
  }
  await Promise.all(subtrees)
}

/** Bytes by language over a commit's files, each share in percent rounded to two places, largest first. */
async function detectLanguages(repository: BrowsedRepository, treeOid: string): Promise<[string, number][]> {
  const blobs: { path: string; entry: TreeEntry }[] = []
  await collectBlobs(repository, treeOid, '', blobs)
  const attributes = blobs.find(({ path }) => path === '.gitattributes')
  const attributesText = attributes ? ((await readObject(repository.directory, attributes.entry.oid))?.content.toString('utf8') ?? '') : ''
  const rules = parseLinguistRules(attributesText)
  const counted = blobs.flatMap(({ path, entry }) => {
    const language = languageOfPath(path, rules)
    return language ? [{ language, oid: entry.oid }] : []
  })
  const sizes = await Promise.all(counted.map(async ({ oid }) => (await readObjectHeader(repository.directory, oid))?.size ?? 0))
  const bytes = new Map<string, number>()
  counted.forEach(({ language }, index) => bytes.set(language, (bytes.get(language) ?? 0) + sizes[index]))
  const total = [...bytes.values()].reduce((sum, size) => sum + size, 0)
  if (total === 0) return []
  // Gitaly computes the share as a float32; Rails rounds it to two places.
  return [...bytes.entries()]
    .map(([language, size]): [string, number] => [language, Math.round(Math.fround((size / total) * 100) * 100) / 100])
    .sort((a, b) => b[1] - a[1])
}

/**
 * The languages of the default branch by share of bytes (GL `GET :id/languages`, Projects::RepositoryLanguagesService
 * over Gitaly's CommitLanguages): `{}` for an empty repository.
 */
export async function listLanguages(ctx: Context, loaded: LoadedProject): Promise<Record<string, number>> {
  const repository = openRepository(ctx, loaded)
  if (loaded.project.empty_repo) return {}
  const commit = await findCommit(repository.directory, loaded.project.default_branch ?? 'HEAD')
  if (!commit) return {}
  let detected = detections.get(commit.oid)
  if (!detected) {
    detected = await detectLanguages(repository, commit.tree)
    if (detections.size >= DETECTIONS_KEPT) detections.delete(detections.keys().next().value as string)
    detections.set(commit.oid, detected)
  }
  return Object.fromEntries(detected.slice(0, MAX_LANGUAGES))
}
