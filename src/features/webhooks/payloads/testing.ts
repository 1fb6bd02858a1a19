import { createHash } from 'node:crypto'
import type { Change } from '../../../core/changes.js'
import type { Context } from '../../../core/context.js'
import type { Db } from '../../../db/index.js'
import { vi } from 'vitest'
import type { TestServer } from '../../../testing/server.js'
import type { HookPayload } from './index.js'

/** A change a test saw noticed, with the payloads it sends as read in the change's own transaction. */
export interface Noticed {
  change: Change
  payloads: HookPayload[]
}

type ChangeNotices = { noticeChange(ctx: Context, trx: Db, change: Change): Promise<void> }

/**
 * The change-notices module, keeping every change it hands on in `seen` with its payloads. A test file installs it with
 * `vi.mock('<path>/change-notices/index.js', async (original) => keepingNotices(await original(), seen))`.
 */
export function keepingNotices<T extends ChangeNotices>(original: T, seen: Noticed[]): T {
  return {
    ...original,
    async noticeChange(ctx: Context, trx: Db, change: Change) {
      await original.noticeChange(ctx, trx, change)
      // Read when a change comes, not when the mock is made: the builders import features that notice changes.
      const { hookPayloadsOf } = await import('./index.js')
      seen.push({ change, payloads: await hookPayloadsOf(ctx, trx, change) })
    },
  }
}

/** Empties `seen`, answering what it held. */
export function takeNoticed(seen: Noticed[]): Noticed[] {
  return seen.splice(0, seen.length)
}

/** GL Project#hook_attrs of a project on a test server, as a body shows it. */
export function expectedHookProject(
  externalUrl: string,
  project: {
    id: number
    name: string
    description: string | null
    full_path: string
    visibility_level: number
    default_branch: string | null
  },
  namespaceName: string,
) {
  const webUrl = `${externalUrl}/${project.full_path}`
  const sshUrl = `git@127.0.0.1:${project.full_path}.git`
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    web_url: webUrl,
    avatar_url: null,
    git_ssh_url: sshUrl,
    git_http_url: `${webUrl}.git`,
    namespace: namespaceName,
    visibility_level: project.visibility_level,
    path_with_namespace: project.full_path,
    default_branch: project.default_branch,
    ci_config_path: null,
    homepage: webUrl,
    url: sshUrl,
    ssh_url: sshUrl,
    http_url: `${webUrl}.git`,
  }
}

/** GL User#hook_attrs, as a body shows it. */
export function expectedHookUser(user: { id: number; name: string; username: string; email: string; public_email: string | null }) {
  const hash = createHash('md5').update(user.email.trim().toLowerCase()).digest('hex')
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    avatar_url: `https://www.gravatar.com/avatar/${hash}?s=80&d=identicon`,
    email: user.public_email || '[REDACTED]',
  }
}

/** Ruby's Time#to_s in UTC, as bodies write times: '2026-11-20 10:00:00 UTC'. */
export function utc(at: Date | string): string {
  return `${new Date(at).toISOString().slice(0, 19).replace('T', ' ')} UTC`
}

/**
 * A test server whose app sees the test file's `vi.mock` of change-notices: test files share their worker's modules,
 * so the app is loaded again first.
 */
export async function startNoticingServer(): Promise<TestServer> {
  vi.resetModules()
  const { startTestServer } = await import('../../../testing/server.js')
  return startTestServer()
}
