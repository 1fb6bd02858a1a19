import { AccessLevel } from '../../core/access.js'
import { anonymous, isAdmin, type Caller, type User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import type { Settings } from '../../core/settings.js'
import { tokenRefusal } from '../../core/token-validity.js'
import type { FoundToken } from '../../http/authenticate.js'
import { oauthLookups } from '../oauth/index.js'
import { NotFound, ProjectMoved } from '../../core/errors.js'
import type { ProjectRow } from '../../db/schema.js'
import { randomUUID } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { projectRepositoryDirectory, repositoryExists } from '../repositories/index.js'
import { authenticateWithPassword } from '../sessions/index.js'
import { tokenLookups } from '../tokens/index.js'
import { canReadCode, findProject, type LoadedProject } from '../access/index.js'
import { loadProtection } from '../protected-refs/index.js'
import { pushChecksScript, pushCommands, readPushStart, type PushStart } from './pushes.js'

export { collectGarbageWhenDue, readPushStart, recordPushes, type PushStart } from './pushes.js'
export { RequestAbandoned, runHttpBackend, RunningBackends } from './backend.js'

/** Where the project's bare repository is. */
export function repositoryOf(ctx: Context, project: ProjectRow): string {
  return projectRepositoryDirectory(ctx.config, project)
}

/**
 * Why the caller may not run a service on a project (GL Gitlab::GitAccess), with GitLab's words for it.
 * `unauthenticated`: no usable credentials, so git should ask for some; `not-found`: no such project as the caller
 * sees it, or no repository yet; every other reason is a refusal of a known caller.
 */
export interface GitRefusal {
  reason: 'unauthenticated' | 'not-found' | 'not-allowed' | 'read-only'
  message: string
}

/** A caller allowed to run a service on a project. */
export interface GitAccess {
  loaded: LoadedProject
  user: User | null
}

// GL lib/gitlab/git_access.rb ERROR_MESSAGES.
const MESSAGES = {
  download: 'You are not allowed to download code from this project.',
  auth_upload: 'You are not allowed to upload code.',
  auth_download: 'You are not allowed to download code.',
  project_not_found: "The project you were looking for could not be found or you don't have permission to view it.",
  push_code: 'You are not allowed to push code to this project.',
  archived: "You can't push code to an archived project.",
  no_repo: 'A repository for this project does not exist yet.',
  read_only: 'The repository is temporarily read-only. Please try again later.',
}

/** A push into a repository being moved to another storage (GL GitAccess `read_only`). */
export const READ_ONLY_REFUSAL: GitRefusal = { reason: 'read-only', message: MESSAGES.read_only }

/** GL GitHttpClientController#render_access_denied. */
function accessDenied(ctx: Context): GitRefusal {
  const help = `${ctx.config.externalUrl}/help/topics/git/troubleshooting_git.md#error-on-git-fetch-http-basic-access-denied`
  return {
    reason: 'unauthenticated',
    message:
      "HTTP Basic: Access denied. If a password was provided for Git authentication, the password was incorrect or you're required " +
      `to use a token instead of a password. If a token was provided, it was either incorrect, expired, or improperly scoped. See ${help}`,
  }
}

type Ability = 'download_code' | 'push_code'

/** GL Gitlab::Auth#abilities_for_scopes: which git abilities a token's scopes give. */
function abilitiesOfScopes(scopes: readonly string[]): Set<Ability> {
  const abilities = new Set<Ability>()
  if (scopes.includes('api') || scopes.includes('read_repository') || scopes.includes('write_repository')) abilities.add('download_code')
  if (scopes.includes('api') || scopes.includes('write_repository')) abilities.add('push_code')
  return abilities
}

/**
 * An expired or revoked token, or one of an inactive user, is no credential and the password is tried instead; an
 * impersonation token while impersonation is off is a credential, refused by authenticateBasic.
 */
function usableToken(token: FoundToken | null, now: Date, settings: Settings): token is FoundToken {
  if (!token || token.user.state !== 'active') return false
  const refusal = tokenRefusal(token, now, settings)
  return refusal === null || refusal === 'impersonation_disabled'
}

interface Authenticated {
  caller: Caller
  abilities: Set<Ability>
}

/**
 * GL Gitlab::Auth.find_for_git_client: an OAuth token when the login is `oauth2`, then a personal access token with
 * any login, then the user's password (only while password_authentication_enabled_for_git is on). Null when none fits.
 */
async function authenticateBasic(ctx: Context, login: string, password: string, ip: string): Promise<Authenticated | null> {
  const now = ctx.now()
  const oauth = login === 'oauth2' && oauthLookups.findOAuthToken ? await oauthLookups.findOAuthToken(ctx.db, password) : null
  const token = usableToken(oauth, now, ctx.settings) ? oauth : await tokenLookups.findAccessToken(ctx.db, password)
  if (usableToken(token, now, ctx.settings)) {
    if (tokenRefusal(token, now, ctx.settings) === 'impersonation_disabled') return null
    await tokenLookups.recordTokenUse(ctx.db, token, now, ip)
    return {
      caller: { user: token.user, credential: { kind: token.kind, id: token.id, scopes: token.scopes }, sudoFrom: null },
      abilities: abilitiesOfScopes(token.scopes),
    }
  }
  const user = await authenticateWithPassword(ctx, login, password)
  if (!user) return null
  return { caller: { user, credential: null, sudoFrom: null }, abilities: new Set(['download_code', 'push_code']) }
}

/**
 * The project at this path as the caller may see it, or null. A path in other letter case, or one the project had
 * before a rename or transfer, leads to it (GL Gitlab::RepoPath.parse follows redirects).
 */
async function visibleProject(ctx: Context, caller: Caller, fullPath: string): Promise<LoadedProject | null> {
  const asCaller = { ...ctx, caller }
  try {
    return await findProject(asCaller, fullPath)
  } catch (error) {
    if (error instanceof ProjectMoved) return findProject(asCaller, error.projectId).catch(() => null)
    if (error instanceof NotFound) return null
    throw error
  }
}

/** The login and password of an `Authorization: Basic` header, or null. */
function basicCredentials(header: string | undefined): { login: string; password: string } | null {
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null
  if (!match) return null
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return null
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

/**
 * Who may run `service` on the project at `fullPath` (GL Repositories::GitHttpClientController#authenticate_user, then
 * Gitlab::GitAccess#check). A project's former path after a move still leads to it, as in GitLab.
 */
export async function authorizeGit(
  ctx: Context,
  fullPath: string,
  service: string | undefined,
  authorization: string | undefined,
  ip: string,
): Promise<GitAccess | GitRefusal> {
  const credentials = basicCredentials(authorization)
  if (!credentials) {
    // Anonymous download of what anyone may read (GL http_download_allowed?); everything else asks for credentials.
    const loaded = service === 'git-upload-pack' ? await visibleProject(ctx, anonymous, fullPath) : null
    if (loaded && canReadCode(loaded.access, loaded.project)) {
      if (!(await repositoryExists(repositoryOf(ctx, loaded.project)))) return { reason: 'not-found', message: MESSAGES.no_repo }
      return { loaded, user: null }
    }
    return accessDenied(ctx)
  }
  const found = await authenticateBasic(ctx, credentials.login, credentials.password, ip)
  if (!found) return accessDenied(ctx)
  // GL GitAccess#check_command_existence!: an unknown service is refused once the caller is known.
  if (service !== 'git-upload-pack' && service !== 'git-receive-pack') {
    return { reason: 'not-allowed', message: "The command you're trying to execute is not allowed." }
  }
  // GL GitAccess#check: the token's abilities are judged before the project is looked at.
  const needed = service === 'git-upload-pack' ? 'download_code' : 'push_code'
  if (!found.abilities.has(needed)) {
    return { reason: 'not-allowed', message: needed === 'download_code' ? MESSAGES.auth_download : MESSAGES.auth_upload }
  }
  const loaded = await visibleProject(ctx, found.caller, fullPath)
  if (!loaded) return { reason: 'not-found', message: MESSAGES.project_not_found }
  const { project } = loaded
  if (!(await repositoryExists(repositoryOf(ctx, project)))) return { reason: 'not-found', message: MESSAGES.no_repo }
  if (service === 'git-upload-pack') {
    if (!canReadCode(loaded.access, project)) return { reason: 'not-allowed', message: MESSAGES.download }
  } else {
    // GL GitAccess#check_push_access!: a repository being moved to another storage takes no pushes; fetches go on.
    if (project.repository_read_only === 1) return READ_ONLY_REFUSAL
    if (project.archived === 1) return { reason: 'not-allowed', message: MESSAGES.archived }
    // GL ProjectPolicy `push_code`: Developer; administrators may push anywhere.
    if (!isAdmin(found.caller) && loaded.access.level < AccessLevel.DEVELOPER) return { reason: 'not-allowed', message: MESSAGES.push_code }
  }
  return { loaded, user: found.caller.user }
}

// The pre-receive hook of every push svc serves: it runs the checks written for that push, if any (see guardPush).
const PRE_RECEIVE_HOOK = `#!/bin/sh
# svc: the protected branch and tag checks of this push, written before receive-pack read its commands.
if [ -n "$SVC_PUSH_CHECKS" ] && [ -f "$SVC_PUSH_CHECKS" ]; then exec /bin/sh "$SVC_PUSH_CHECKS"; fi
exec cat >/dev/null
`

/** The directory of svc's git hooks under the data directory, written once per process. */
const hookDirectories = new Map<string, Promise<string>>()

function hooksDirectory(dataDir: string): Promise<string> {
  let made = hookDirectories.get(dataDir)
  if (!made) {
    made = (async () => {
      const directory = path.join(dataDir, 'git-hooks')
      await fs.mkdir(path.join(directory, 'pushes'), { recursive: true })
      const hook = path.join(directory, 'pre-receive')
      // Written whole under another name, then renamed: a push never runs half a hook.
      const scratch = `${hook}.${process.pid}.${randomUUID()}`
      await fs.writeFile(scratch, PRE_RECEIVE_HOOK, { mode: 0o755 })
      await fs.rename(scratch, hook)
      return directory
    })()
    hookDirectories.set(dataDir, made)
    made.catch(() => hookDirectories.delete(dataDir))
  }
  return made
}

/** What a push runs under so that protected branches and tags are enforced (see guardPush). */
export interface PushGuard {
  /** Environment of receive-pack: svc's hooks, and where this push's checks are. */
  env: Record<string, string>
  /** Reads the push's commands, before receive-pack does, and writes the checks its pre-receive hook runs. */
  begin(section: Buffer): Promise<PushStart>
  /** Removes this push's checks once receive-pack has exited. */
  end(): Promise<void>
}

/**
 * Enforces protected branches and tags on a push as GitLab's pre-receive hook does: the commands are judged as soon as
 * they arrive, and receive-pack's pre-receive hook declines the push with GitLab's message, which git shows as
 * `remote: GitLab: …` and `[remote rejected] … (pre-receive hook declined)`; no ref changes.
 */
export async function guardPush(ctx: Context, loaded: LoadedProject, directory: string): Promise<PushGuard> {
  const hooks = await hooksDirectory(ctx.config.dataDir)
  const checks = path.join(hooks, 'pushes', `${randomUUID()}.sh`)
  let written = false
  return {
    env: { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.hooksPath', GIT_CONFIG_VALUE_0: hooks, SVC_PUSH_CHECKS: checks },
    async begin(section) {
      const [start, protection] = await Promise.all([readPushStart(directory, section), loadProtection(ctx.db, loaded.project.id)])
      const subject = {
        access: loaded.access,
        project: loaded.project,
        namespace: loaded.namespace,
        instanceBranchProtection: ctx.settings.default_branch_protection,
        protection,
      }
      const script = pushChecksScript(subject, pushCommands(section), ctx.config.externalUrl)
      if (script !== null) {
        await fs.writeFile(checks, script)
        written = true
      }
      return start
    },
    async end() {
      if (written) await fs.rm(checks, { force: true })
    },
  }
}
