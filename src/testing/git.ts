import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'vitest'

export interface GitRun {
  code: number
  stdout: string
  stderr: string
}

/** A scratch directory for clones and work trees, and `git` run as a user would in it: no user configuration, no prompts. */
export class GitClient {
  readonly workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-git-'))
  private sequence = 0

  /** Real `git`, asynchronously (a test server runs in the test's process). */
  run(cwd: string, ...args: string[]): Promise<GitRun> {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: this.workDir,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'Tess',
      GIT_AUTHOR_EMAIL: 'tess@example.com',
      GIT_COMMITTER_NAME: 'Tess',
      GIT_COMMITTER_EMAIL: 'tess@example.com',
      LC_ALL: 'C',
    }
    return new Promise((resolve) => {
      execFile(
        'git',
        ['-c', 'credential.helper=', '-c', 'protocol.version=2', ...args],
        { cwd, env, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => {
          const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0
          resolve({ code, stdout, stderr })
        },
      )
    })
  }

  /** Runs git and expects it to succeed; answers its standard output. */
  async ok(cwd: string, ...args: string[]): Promise<string> {
    const result = await this.run(cwd, ...args)
    expect(result.code, result.stderr).toBe(0)
    return result.stdout
  }

  /** A new path under the scratch directory (not created). */
  freshDir(): string {
    this.sequence += 1
    return path.join(this.workDir, `dir${this.sequence}`)
  }

  /** Clones `url` into a fresh directory. */
  async clone(url: string, ...options: string[]): Promise<{ run: GitRun; dir: string }> {
    const dir = this.freshDir()
    return { run: await this.run(this.workDir, 'clone', '--quiet', ...options, url, dir), dir }
  }

  remove(): void {
    fs.rmSync(this.workDir, { recursive: true, force: true })
  }
}

/** The clone URL of a project on a server, with credentials when given. */
export function repoUrl(serverUrl: string, fullPath: string, login?: string, password?: string): string {
  const url = new URL(`${serverUrl}/${fullPath}.git`)
  if (login !== undefined) url.username = encodeURIComponent(login)
  if (password !== undefined) url.password = encodeURIComponent(password)
  return url.toString()
}
