import fs from 'node:fs/promises'
import path from 'node:path'
import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import type { ProjectRow } from '../../db/schema.js'
import { recordPushEvent, type PushPayload } from '../event-log/index.js'
import { git, refreshRepositoryState } from '../repositories/index.js'

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/
const REF_PREFIXES = ['refs/heads/', 'refs/tags/']
/** Beyond this many loose ref files one git process reads them faster than a file read each. */
const MAX_LOOSE_REFS_READ = 64

/**
 * Every branch and tag of a repository: full ref name → object id, as `git for-each-ref refs/heads/ refs/tags/`
 * answers. A push reads them twice, and starting git costs milliseconds: while there are few loose refs they are read
 * from the files git keeps them in (packed-refs, and loose refs, which win).
 */
export async function readRefs(directory: string): Promise<Map<string, string>> {
  const loose = await looseRefFiles(directory)
  if (loose === null) return readRefsWithGit(directory)
  const refs = new Map<string, string>()
  const packed = await fs.readFile(path.join(directory, 'packed-refs'), 'utf8').catch(() => '')
  for (const line of packed.split('\n')) {
    const [id, name] = line.split(' ')
    if (name && OBJECT_ID.test(id) && REF_PREFIXES.some((prefix) => name.startsWith(prefix))) refs.set(name, id)
  }
  const symbolic = new Map<string, string>()
  for (const name of loose) {
    const content = (await fs.readFile(path.join(directory, name), 'utf8').catch(() => '')).trim()
    if (OBJECT_ID.test(content)) refs.set(name, content)
    else if (content.startsWith('ref: ')) symbolic.set(name, content.slice(5))
  }
  for (const [name, target] of symbolic) {
    const id = refs.get(target)
    if (id) refs.set(name, id)
  }
  return new Map([...refs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/** The loose ref files under refs/heads and refs/tags, or null when there are more than MAX_LOOSE_REFS_READ. */
async function looseRefFiles(directory: string): Promise<string[] | null> {
  const files: string[] = []
  const pending = ['refs/heads', 'refs/tags']
  for (let relative = pending.pop(); relative !== undefined; relative = pending.pop()) {
    const entries = await fs.readdir(path.join(directory, relative), { withFileTypes: true }).catch(() => [])
    for (const entry of entries) {
      if (entry.isDirectory()) pending.push(`${relative}/${entry.name}`)
      else if (!entry.name.endsWith('.lock')) files.push(`${relative}/${entry.name}`)
    }
    if (files.length > MAX_LOOSE_REFS_READ) return null
  }
  return files
}

async function readRefsWithGit(directory: string): Promise<Map<string, string>> {
  const out = await git(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/', 'refs/tags/'], { gitDir: directory })
  const refs = new Map<string, string>()
  for (const line of out.split('\n')) {
    const space = line.indexOf(' ')
    if (space > 0) refs.set(line.slice(space + 1), line.slice(0, space))
  }
  return refs
}

/** GL PushEventPayloadService#commit_title: the first line, stripped, cut to 70 characters as Rails' `truncate` does. */
export function commitTitle(message: string): string {
  const line = message.split('\n', 1)[0].trim()
  return line.length > 70 ? `${line.slice(0, 67)}...` : line
}

async function describe(directory: string, ref: string, from: string | undefined, to: string | undefined, before: Map<string, string>) {
  const isTag = ref.startsWith('refs/tags/')
  const action: PushPayload['action'] = from === undefined ? 'created' : to === undefined ? 'removed' : 'pushed'
  let count = 0
  if (to !== undefined && isTag) {
    // GL Git::TagHooksService: a tag push carries the one commit the tag points at.
    count = 1
  } else if (to !== undefined) {
    // A new branch counts the commits no ref had before; an updated one those since its old tip (GL Git::BranchHooksService).
    // A branch made at a commit another ref already names brings none: no need to ask git.
    const known = from === undefined && [...before.values()].includes(to)
    const exclude = from === undefined ? ['--not', ...before.values()] : ['--not', from]
    count = known ? 0 : Number((await git(['rev-list', '--count', to, ...exclude], { gitDir: directory })).trim())
  }
  const title =
    to !== undefined && count > 0 ? commitTitle(await git(['log', '-1', '--format=%B', `${to}^{commit}`], { gitDir: directory })) : null
  return {
    commit_count: count,
    action,
    ref_type: isTag ? 'tag' : 'branch',
    commit_from: from ?? null,
    commit_to: to ?? null,
    ref: ref.replace(/^refs\/(heads|tags)\//, ''),
    commit_title: title,
  } satisfies PushPayload
}

/**
 * Records one push event per branch or tag a push changed, then the repository state the project shows.
 * The changes are read by comparing the refs before and after the push rather than by parsing the commands sent:
 * only updates receive-pack actually applied are recorded, whatever the client asked for.
 */
export async function recordPushes(
  ctx: Context,
  project: ProjectRow,
  user: User,
  directory: string,
  before: Map<string, string>,
): Promise<void> {
  const after = await readRefs(directory)
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((ref) => before.get(ref) !== after.get(ref)).sort()
  const payloads: PushPayload[] = []
  for (const ref of changed) payloads.push(await describe(directory, ref, before.get(ref), after.get(ref), before))
  if (payloads.length > 0) {
    const at = ctx.now()
    await ctx.db.transaction().execute(async (trx) => {
      for (const payload of payloads) await recordPushEvent(trx, { projectId: project.id, authorId: user.id, at, payload })
    })
  }
  await refreshRepositoryState(ctx.db, ctx.config, project, {
    branches: after,
    recorded: { emptyRepo: project.empty_repo === 1, defaultBranch: project.default_branch ?? '', readmePath: project.readme_path },
  })
  await packRefsWhenMany(directory)
}

/**
 * Housekeeping after a push, as GitLab's packs refs: once the loose ref files outnumber what a push reads one by one,
 * they go into packed-refs, which git and svc read at once. Another push packing them meanwhile makes this one fail,
 * harmlessly.
 */
async function packRefsWhenMany(directory: string) {
  if ((await looseRefFiles(directory)) !== null) return
  await git(['pack-refs', '--all', '--prune'], { gitDir: directory }).catch(() => undefined)
}
