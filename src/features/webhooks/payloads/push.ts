import type { Change } from '../../../core/changes.js'
import type { Context } from '../../../core/context.js'
import type { Db } from '../../../db/index.js'
import { withAccess } from '../../access/index.js'
import { avatarUrlOf } from '../../namespaces/index.js'
import { isBranchProtected, isTagProtected, loadRefSubject } from '../../protected-refs/index.js'
import { git, parseTag, projectRepositoryDirectory, readObject, type ParsedCommit } from '../../repositories/index.js'
import { commitAt, commitFileChanges, commitHookAttrs, findHookProject, projectHookAttrs, type HookProject } from './common.js'
import type { HookPayload } from './index.js'
import { findHookUserRow } from './issuable-store.js'
import { findRefsPushedWith } from './push-store.js'

// A branch or a tag pushed, created or deleted (GL Git::BranchHooksService and Git::TagHooksService with
// Gitlab::DataBuilder::Push; PostReceive's repository_update for the system hooks, Gitlab::DataBuilder::Repository).

type PushChange = Extract<Change, { kind: 'push' }>

/** GL Gitlab::DataBuilder::Push: the newest 20 commits go in a push's body, oldest first. */
const COMMITS_SHOWN = 20

const isBlank = (oid: string) => /^0+$/.test(oid)

/**
 * GL ApplicationSetting#push_event_hooks_limit (3): a push that creates, updates or removes more branches (or tags)
 * than this at once runs no push hooks for them (Git::ProcessRefChangesService#execute_project_hooks?).
 */
const PUSH_EVENT_HOOKS_LIMIT = 3

/** A ref a push moved, as its push event recorded it. */
type PushedRef = Awaited<ReturnType<typeof findRefsPushedWith>>[number]

const fullRefOf = (pushed: PushedRef) => `${pushed.ref_type === 'tag' ? 'refs/tags/' : 'refs/heads/'}${pushed.ref}`

/** Whether the push moved more refs of this kind, the same way, than push hooks are run for. */
function isOverHooksLimit(pushed: readonly PushedRef[], change: PushChange, isTag: boolean): boolean {
  const action = isBlank(change.before) ? 'created' : isBlank(change.after) ? 'removed' : 'pushed'
  const alike = pushed.filter((ref) => ref.ref_type === (isTag ? 'tag' : 'branch') && ref.action === action)
  return alike.length > PUSH_EVENT_HOOKS_LIMIT
}

/**
 * GL PostReceive#after_project_changes_hooks: `repository_update` is one body for every ref a push moved, told with
 * the first of them (a change no push event records, such as a hook's test, stands alone).
 */
function repositoryUpdateChanges(pushed: readonly PushedRef[], change: PushChange) {
  if (pushed.length === 0) return [{ before: change.before, after: change.after, ref: change.ref }]
  if (fullRefOf(pushed[0]) !== change.ref) return null
  const blank = '0'.repeat(change.before.length)
  return pushed.map((ref) => ({ before: ref.commit_from ?? blank, after: ref.commit_to ?? blank, ref: fullRefOf(ref) }))
}

/** The newest commits of `range` (git rev-list arguments), oldest first, and how many it holds. */
async function commitsOf(directory: string, range: string[]): Promise<{ oids: string[]; count: number }> {
  const [listed, counted] = await Promise.all([
    git(['rev-list', `--max-count=${COMMITS_SHOWN}`, ...range], { gitDir: directory }),
    git(['rev-list', '--count', ...range], { gitDir: directory }),
  ])
  return { oids: listed.split('\n').filter(Boolean).reverse(), count: Number(counted.trim()) }
}

/**
 * GL Git::BranchHooksService#limited_commits and #commits_count: a new default branch brings all its commits, another
 * new branch those its default branch lacks, an update those since its old head; a removal none.
 */
async function branchCommits(directory: string, change: PushChange, branch: string, defaultBranch: string | null) {
  if (isBlank(change.after)) return { oids: [], count: 0 }
  if (!isBlank(change.before)) return commitsOf(directory, [change.after, '--not', change.before])
  if (defaultBranch === null || defaultBranch === branch) return commitsOf(directory, [change.after])
  const defaultHead = await commitAt(directory, `refs/heads/${defaultBranch}`)
  return commitsOf(directory, defaultHead ? [change.after, '--not', defaultHead.oid] : [change.after])
}

/**
 * GL Git::TagHooksService: the tag as it is now, if it still names what was pushed; its message ('' for a lightweight
 * tag, as Gitaly reads one) and the commit it points at.
 */
async function pushedTag(directory: string, change: PushChange) {
  if (isBlank(change.after)) return null
  const current = (await git(['for-each-ref', '--format=%(objectname)', change.ref], { gitDir: directory })).trim()
  if (current !== change.after) return null
  const object = await readObject(directory, change.after)
  const message = object?.type === 'tag' ? parseTag(object.oid, object.content).message.replace(/\n$/, '') : ''
  return { message, commit: await commitAt(directory, change.after) }
}

/** GL Project#protected_for?: whether a protected branch or tag rule covers the ref. */
async function isRefProtected(ctx: Context, trx: Db, source: HookProject, ref: string): Promise<boolean> {
  const loaded = await withAccess({ ...ctx, db: trx }, source.project)
  // The repository has the pushed ref by now: an empty repository's blanket protection is over.
  const subject = { ...(await loadRefSubject({ ...ctx, db: trx }, loaded)), project: { ...source.project, empty_repo: 0 } }
  if (ref.startsWith('refs/tags/')) return isTagProtected(subject.protection, ref.slice('refs/tags/'.length))
  return isBranchProtected(subject, ref.slice('refs/heads/'.length))
}

/**
 * What a push of one ref sends: `Push Hook` (a branch, for `push_events` and the hooks' branch filter) or
 * `Tag Push Hook` (`tag_push_events`), heard by the project's hooks and by the system hooks with that switch, and
 * `repository_update` for the system hooks alone.
 */
export async function pushPayloads(ctx: Context, trx: Db, change: PushChange): Promise<HookPayload[]> {
  const source = await findHookProject(trx, change.projectId)
  const actor = await findHookUserRow(trx, change.actorId)
  if (!source || !actor) return []
  const { externalUrl } = ctx.config
  const directory = projectRepositoryDirectory(ctx.config, source.project)
  const isTag = change.ref.startsWith('refs/tags/')
  const name = change.ref.replace(/^refs\/(heads|tags)\//, '')
  const project = projectHookAttrs(source, externalUrl)
  const pushed = await findRefsPushedWith(trx, { projectId: change.projectId, authorId: change.actorId, at: change.at })
  const updates = repositoryUpdateChanges(pushed, change)
  const repositoryUpdate: HookPayload[] = updates
    ? [
        {
          event: 'System Hook',
          trigger: 'repository_update_events',
          scope: 'system',
          body: {
            event_name: 'repository_update',
            user_id: actor.id,
            user_name: actor.name,
            user_email: actor.email,
            user_avatar: avatarUrlOf(actor.email),
            project_id: source.project.id,
            project,
            changes: updates,
            refs: updates.map((update) => update.ref),
          },
        },
      ]
    : []
  if (isOverHooksLimit(pushed, change, isTag)) return repositoryUpdate
  let commits: ParsedCommit[] = []
  let count: number
  let message: string | null = null
  let checkoutSha: string | null = isBlank(change.after) ? null : change.after
  if (isTag) {
    const tag = await pushedTag(directory, change)
    message = tag?.message ?? null
    checkoutSha = tag?.commit?.oid ?? null
    commits = tag?.commit ? [tag.commit] : []
    count = commits.length
  } else {
    const listed = await branchCommits(directory, change, name, source.project.default_branch)
    count = listed.count
    for (const oid of listed.oids) {
      const commit = await commitAt(directory, oid)
      if (commit) commits.push(commit)
    }
  }
  const commitAttrs = []
  for (const commit of commits)
    commitAttrs.push({ ...commitHookAttrs(commit, project.web_url), ...(await commitFileChanges(directory, commit)) })
  const type = isTag ? 'tag_push' : 'push'
  const body = {
    object_kind: type,
    event_name: type,
    before: change.before,
    after: change.after,
    ref: change.ref,
    ref_protected: await isRefProtected(ctx, trx, source, change.ref),
    checkout_sha: checkoutSha,
    message,
    user_id: actor.id,
    user_name: actor.name,
    user_username: actor.username,
    user_email: actor.public_email,
    user_avatar: avatarUrlOf(actor.email),
    project_id: source.project.id,
    project,
    commits: commitAttrs,
    total_commits_count: count,
    push_options: {},
    repository: {
      name: project.name,
      url: project.url,
      description: project.description,
      homepage: project.homepage,
      git_http_url: project.git_http_url,
      git_ssh_url: project.git_ssh_url,
      visibility_level: project.visibility_level,
    },
  }
  const trigger = isTag ? 'tag_push_events' : 'push_events'
  const branch = isTag ? {} : { branch: name }
  // The project's hooks and the system hooks with the same switch hear the same body (as `System Hook`).
  return [{ event: isTag ? 'Tag Push Hook' : 'Push Hook', trigger, scope: 'project', ...branch, body }, ...repositoryUpdate]
}
