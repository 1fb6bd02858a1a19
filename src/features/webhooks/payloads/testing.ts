import type { Change } from '../../../core/changes.js'
import type { Context } from '../../../core/context.js'
import type { Db } from '../../../db/index.js'
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
