import { startProcess } from '../../core/processes.js'

/** A git command that failed: its arguments, exit code and standard error, for the log. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly code: number | string | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed (${code ?? 'signal'}): ${stderr.trim()}`)
  }
}

/** Output a git command answers at most: more ends it with an error. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024

export interface GitOptions {
  /** The repository (`--git-dir`); absent for commands that take none, such as `init`. */
  gitDir?: string
  /** Written to the command's standard input. */
  input?: string | Buffer
  /** Extra environment, e.g. author and committer identity. */
  env?: Record<string, string>
}

/** A commit's author or committer. */
export interface GitIdentity {
  name: string
  email: string
}

/** A name or email as Gitaly writes it into a commit or tag: without the angle brackets and line breaks git refuses there. */
export function identityText(text: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  return (text ?? '').replace(/[<>\0-\x1f]/g, '').trim()
}

/** A user as the author or committer of what svc writes for them. */
export function identityOf(user: { name: string; username: string; email: string; commit_email: string | null }): GitIdentity {
  return { name: identityText(user.name) || user.username, email: identityText(user.commit_email ?? user.email) }
}

/** The environment that makes git write a commit by these people at this time (whole seconds, UTC). */
export function commitEnvironment(author: GitIdentity, committer: GitIdentity, at: Date): Record<string, string> {
  const date = `${Math.floor(at.getTime() / 1000)} +0000`
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email,
    GIT_COMMITTER_DATE: date,
  }
}

/** The environment of every git process: the user's and the system's configuration ignored, no prompts. */
export function gitEnvironment(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/nonexistent',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
  }
}

/**
 * Runs the real `git` binary without a shell. The user's and the system's configuration are ignored so that every
 * repository is written the same way whatever the machine has in ~/.gitconfig or /etc/gitconfig.
 */
export function git(args: readonly string[], options: GitOptions = {}): Promise<string> {
  const argv = options.gitDir ? [`--git-dir=${options.gitDir}`, ...args] : [...args]
  const env = { ...gitEnvironment(), ...options.env }
  return new Promise((resolve, reject) => {
    const child = startProcess('git', argv, { env })
    const stdout: Buffer[] = []
    let length = 0
    let failure: string | null = null
    child.stdout!.on('data', (chunk: Buffer) => {
      length += chunk.length
      if (length <= MAX_OUTPUT_BYTES) stdout.push(chunk)
      else if (failure === null) {
        failure = 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER'
        child.kill()
      }
    })
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_OUTPUT_BYTES) stderr += chunk.toString('utf8')
    })
    child.on('error', (error: NodeJS.ErrnoException) => reject(new GitError(argv, error.code ?? null, stderr)))
    child.on('close', (code, signal) => {
      if (failure === null && code === 0) resolve(Buffer.concat(stdout).toString('utf8'))
      else reject(new GitError(argv, failure ?? code ?? signal, stderr))
    })
    child.stdin!.on('error', () => {})
    child.stdin!.end(options.input)
  })
}

/** How many commits `to` brings that `from` did not have. */
export async function countNewCommits(directory: string, to: string, from: string): Promise<number> {
  return Number((await git(['rev-list', '--count', to, '--not', from], { gitDir: directory })).trim())
}

/** Whether `ancestor` is `descendant` or one of its ancestors (false when either is missing here). */
export async function isAncestor(directory: string, ancestor: string, descendant: string): Promise<boolean> {
  try {
    await git(['merge-base', '--is-ancestor', ancestor, descendant], { gitDir: directory })
    return true
  } catch (error) {
    if (error instanceof GitError) return false
    throw error
  }
}
