import fs from 'node:fs'
import path from 'node:path'
import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import type { ProjectRow } from '../../db/schema.js'
import { recordPushEvent, type PushPayload } from '../event-log/index.js'
import { noticeChange } from '../change-notices/index.js'
import { noticeSourceBranchPushes, recordVersionsAfterPush, type RefUpdate } from '../merge-requests/index.js'
import { refChangeRefusal, type RefSubject } from '../protected-refs/index.js'
import { git, pushCommitTitle, refreshRepositoryState } from '../repositories/index.js'

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/
const REF_PREFIXES = ['refs/heads/', 'refs/tags/']
/** Beyond this many loose ref files one git process reads them faster than a file read each. */
const MAX_LOOSE_REFS_READ = 64

/**
 * Every branch and tag of a repository: full ref name → object id, as `git for-each-ref refs/heads/ refs/tags/`
 * answers. Starting git costs milliseconds: while there are few loose refs they are read from the files git keeps them
 * in, loose refs first and then packed-refs (git's order: a concurrent pack-refs moves a ref into packed-refs before it
 * removes the loose file, so none is missed), a loose ref winning. The files are small and read at once: a push waits
 * no turn of a busy event loop for each.
 */
export async function readRefs(directory: string): Promise<Map<string, string>> {
  const loose = looseRefFiles(directory)
  if (loose === null) return readRefsWithGit(directory)
  const refs = new Map<string, string>()
  const symbolic = new Map<string, string>()
  for (const name of loose) {
    const content = readText(path.join(directory, name)).trim()
    if (OBJECT_ID.test(content)) refs.set(name, content)
    else if (content.startsWith('ref: ')) symbolic.set(name, content.slice(5))
  }
  for (const [name, id] of packedRefs(directory)) if (!refs.has(name) && !symbolic.has(name)) refs.set(name, id)
  for (const [name, target] of symbolic) {
    const id = refs.get(target)
    if (id) refs.set(name, id)
  }
  return new Map([...refs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/** A file's text, or '' when it is not there (a ref deleted, or packed, since it was listed). */
function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}

/** The branches and tags of packed-refs. */
function packedRefs(directory: string): Map<string, string> {
  const refs = new Map<string, string>()
  for (const line of readText(path.join(directory, 'packed-refs')).split('\n')) {
    const [id, name] = line.split(' ')
    if (name && OBJECT_ID.test(id) && REF_PREFIXES.some((prefix) => name.startsWith(prefix))) refs.set(name, id)
  }
  return refs
}

/** The loose ref files under refs/heads and refs/tags, or null when there are more than MAX_LOOSE_REFS_READ. */
function looseRefFiles(directory: string): string[] | null {
  const files: string[] = []
  const pending = ['refs/heads', 'refs/tags']
  for (let relative = pending.pop(); relative !== undefined; relative = pending.pop()) {
    let entries: fs.Dirent[] = []
    try {
      entries = fs.readdirSync(path.join(directory, relative), { withFileTypes: true })
    } catch {
      // Not there: no refs.
    }
    for (const entry of entries) {
      if (entry.isDirectory()) pending.push(`${relative}/${entry.name}`)
      else if (!entry.name.endsWith('.lock')) files.push(`${relative}/${entry.name}`)
    }
    if (files.length > MAX_LOOSE_REFS_READ) return null
  }
  return files
}

/**
 * The branches and tags a push's commands name (gitprotocol-pack(5): `<old> <new> <ref>` pkt-lines up to a flush),
 * or null when its first section is anything else (a signed push), whose changes are then found among all refs.
 */
export function pushedRefNames(section: Buffer): string[] | null {
  const names = new Set<string>()
  let at = 0
  for (;;) {
    if (at + 4 > section.length) return null
    const length = Number.parseInt(section.toString('latin1', at, at + 4), 16)
    if (length === 0) break
    if (!Number.isInteger(length) || length < 4 || at + length > section.length) return null
    const line = section
      .toString('utf8', at + 4, at + length)
      .split('\0')[0]
      .replace(/\n$/, '')
    at += length
    if (line.startsWith('shallow ')) continue
    const [from, to, name, extra] = line.split(' ')
    if (!OBJECT_ID.test(from) || !OBJECT_ID.test(to) || !name || extra !== undefined) return null
    if (REF_PREFIXES.some((prefix) => name.startsWith(prefix))) names.add(name)
  }
  return [...names]
}

/** One command of a push: the ref, its value before (null: created) and after (null: deleted). */
export interface PushCommand {
  ref: string
  from: string | null
  to: string | null
}

const ZERO_ID = /^0+$/

/**
 * The commands of a push's first section, those of a signed push's certificate too (gitprotocol-pack(5)), or null when
 * it holds anything else.
 */
export function pushCommands(section: Buffer): PushCommand[] | null {
  const commands: PushCommand[] = []
  let at = 0
  let inCertificate = false
  for (;;) {
    if (at + 4 > section.length) return null
    const length = Number.parseInt(section.toString('latin1', at, at + 4), 16)
    if (length === 0) break
    if (!Number.isInteger(length) || length < 4 || at + length > section.length) return null
    const line = section
      .toString('utf8', at + 4, at + length)
      .split('\0')[0]
      .replace(/\n$/, '')
    at += length
    if (line === 'push-cert') inCertificate = true
    if (line === 'push-cert-end') inCertificate = false
    if (line.startsWith('shallow ') || line === 'push-cert' || line === 'push-cert-end') continue
    const [from, to, ref, extra] = line.split(' ')
    const isCommand = OBJECT_ID.test(from ?? '') && OBJECT_ID.test(to ?? '') && ref !== undefined && extra === undefined
    if (!isCommand) {
      // A certificate's header and signature lines are no commands.
      if (inCertificate) continue
      return null
    }
    commands.push({ ref, from: ZERO_ID.test(from) ? null : from, to: ZERO_ID.test(to) ? null : to })
  }
  return commands
}

/** Text the checks script prints verbatim: a here-document whose end marker no message holds. */
function printed(message: string): string {
  return `cat >&2 <<'SVC_MESSAGE_END'\nGitLab: ${message.replace(/\nSVC_MESSAGE_END\n/g, '\n')}\nSVC_MESSAGE_END\nexit 1\n`
}

/**
 * The pre-receive checks of a push (GL Gitlab::Checks::ChangesAccess, as Gitaly's pre-receive hook asks GitLab), as a
 * POSIX shell script the hook runs; null when no change is refused whatever the pushed commits are. Each refused change
 * prints GitLab's message and declines the whole push. Only whether an update is forced needs the pushed objects, so
 * only that is left to git, in the hook, which sees the push's quarantined objects. Object ids are hex; messages are
 * printed from here-documents: nothing pushed is read as shell.
 */
export function pushChecksScript(subject: RefSubject, commands: PushCommand[] | null, externalUrl: string): string | null {
  if (commands === null) return printed('You are not allowed to push code to this project.')
  let script = ''
  for (const { ref, from, to } of commands) {
    if (!ref.startsWith('refs/heads/') && !ref.startsWith('refs/tags/')) continue
    if (from === null || to === null) {
      const refusal = refChangeRefusal(subject, ref, from === null ? 'create' : 'delete', 'git', externalUrl)
      if (refusal !== null) script += printed(refusal)
      continue
    }
    const pushRefusal = refChangeRefusal(subject, ref, 'push', 'git', externalUrl)
    const forceRefusal = refChangeRefusal(subject, ref, 'force-push', 'git', externalUrl)
    // GL ForcePush.force_push?: the new commit does not descend from the old (never in an empty repository).
    if (forceRefusal !== null && forceRefusal !== pushRefusal && subject.project.empty_repo !== 1) {
      script += `if ! git merge-base --is-ancestor ${from} ${to} 2>/dev/null; then\n${printed(forceRefusal)}fi\n`
    }
    if (pushRefusal !== null) script += printed(pushRefusal)
  }
  return script === '' ? null : `cat >/dev/null\n${script}`
}

/** The refs a push names, with their values before it runs; all refs when its commands could not be read. */
export interface PushStart {
  names: string[] | null
  before: Map<string, string>
}

/** What a push starts from, read from its first section before receive-pack reads it. */
export async function readPushStart(directory: string, section: Buffer): Promise<PushStart> {
  const names = pushedRefNames(section)
  if (names === null) return { names, before: await readRefs(directory) }
  const before = new Map<string, string>()
  for (const name of names) {
    const content = readText(path.join(directory, name)).trim()
    if (OBJECT_ID.test(content)) before.set(name, content)
  }
  // Loose refs first, as readRefs reads them.
  if (before.size < names.length) {
    const packed = packedRefs(directory)
    for (const name of names) if (!before.has(name) && packed.has(name)) before.set(name, packed.get(name) as string)
  }
  return { names, before }
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
    to !== undefined && count > 0 ? pushCommitTitle(await git(['log', '-1', '--format=%B', `${to}^{commit}`], { gitDir: directory })) : null
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
 * The refs its commands name are compared before and after it: only updates receive-pack actually applied are
 * recorded, whatever the client asked for.
 */
export async function recordPushes(ctx: Context, project: ProjectRow, user: User, directory: string, start: PushStart): Promise<void> {
  const after = await readRefs(directory)
  const named = start.names ?? [...new Set([...start.before.keys(), ...after.keys()])]
  const changed = named.filter((ref) => start.before.get(ref) !== after.get(ref)).sort()
  // The refs before this push: those after it with its own changes undone, so that a push running alongside into the
  // same repository is recorded once, by itself.
  const before = new Map(after)
  for (const ref of changed) {
    const id = start.before.get(ref)
    if (id === undefined) before.delete(ref)
    else before.set(ref, id)
  }
  const payloads: PushPayload[] = []
  for (const ref of changed) payloads.push(await describe(directory, ref, before.get(ref), after.get(ref), before))
  if (payloads.length > 0) {
    const at = ctx.now()
    const updates = changed.map((ref) => refUpdateOf(ref, before.get(ref), after.get(ref)))
    await ctx.db.transaction().execute(async (trx) => {
      for (const payload of payloads) await recordPushEvent(trx, { projectId: project.id, authorId: user.id, at, payload })
      // Told once the whole push is recorded: how many refs it moved decides whether push hooks run.
      for (const update of updates) await noticeChange(ctx, trx, { kind: 'push', projectId: project.id, actorId: user.id, ...update, at })
      await noticeSourceBranchPushes(ctx, trx, project, { actorId: user.id, at, updates })
    })
  }
  await refreshRepositoryState(ctx.db, ctx.config, project, {
    branches: after,
    recorded: { emptyRepo: project.empty_repo === 1, defaultBranch: project.default_branch ?? '', readmePath: project.readme_path },
  })
  // GL MergeRequests::RefreshService: a new diff version for each open merge request whose source branch moved.
  await recordVersionsAfterPush(ctx, project, changed)
  await packRefsWhenMany(directory)
}

/** A ref's update as hooks tell it: a missing value is all zeros, as git writes it. */
function refUpdateOf(ref: string, from: string | undefined, to: string | undefined): RefUpdate {
  const blank = '0'.repeat((from ?? to ?? '').length)
  return { ref, before: from ?? blank, after: to ?? blank }
}

/** Repositories whose refs this process is packing, or whose objects it is collecting: one at a time each. */
const packing = new Set<string>()
const collecting = new Set<string>()

/**
 * Housekeeping after a push, as GitLab's packs refs: once the loose ref files outnumber what a push reads one by one,
 * they go into packed-refs, which git and svc read at once. One push packs them while the others go on; another
 * process packing them meanwhile makes this one fail at once, harmlessly, rather than wait for its lock.
 */
async function packRefsWhenMany(directory: string) {
  if (packing.has(directory) || looseRefFiles(directory) !== null) return
  packing.add(directory)
  try {
    await git(['-c', 'core.packedRefsTimeout=0', 'pack-refs', '--all', '--prune'], { gitDir: directory }).catch(() => undefined)
  } finally {
    packing.delete(directory)
  }
}

/**
 * `git gc --auto`'s own measures (git-gc(1)): more than gc.auto (6,700) loose objects, estimated from the 1/256 of
 * them in objects/17, or more than gc.autoPackLimit (50) packs.
 */
const LOOSE_OBJECTS_IN_ONE_DIRECTORY = Math.floor((6_700 + 255) / 256)
const PACKS = 50

/**
 * The objects' housekeeping after a push, which receive-pack no longer does in the push's time (receive.autogc is
 * off): `git gc --auto` runs, after the answer, once the repository has what it would collect, rather than starting
 * a process after every push to find out.
 */
export async function collectGarbageWhenDue(directory: string): Promise<void> {
  if (collecting.has(directory)) return
  const names = async (relative: string) => fs.promises.readdir(path.join(directory, relative)).catch(() => [] as string[])
  const loose = (await names('objects/17')).filter((name) => /^[0-9a-f]{38}(?:[0-9a-f]{24})?$/.test(name)).length
  const packs = (await names('objects/pack')).filter((name) => name.endsWith('.pack')).length
  if (loose <= LOOSE_OBJECTS_IN_ONE_DIRECTORY && packs <= PACKS) return
  collecting.add(directory)
  try {
    await git(['gc', '--auto', '--quiet'], { gitDir: directory }).catch(() => undefined)
  } finally {
    collecting.delete(directory)
  }
}
