import type { Change } from '../../core/changes.js'
import type { Context } from '../../core/context.js'
import { Unprocessable } from '../../core/errors.js'
import type { ProjectRow } from '../../db/schema.js'
import { findProjectById } from '../access/index.js'
import { projectRepositoryDirectory, readBranchHead } from '../repositories/index.js'
import { eventOf, hasTrigger, HOOK_NAMES, hookEventName } from './matching.js'
import { hookPayloadsOf } from './payloads/index.js'
import { executeAndRecord, newRequestKeys, type HookOutcome } from './request.js'
import type { TestTrigger } from './schemas.js'
import { findHook, type HookParent } from './service.js'
import { findFirstNonEmptyProjectId, findNewestIdIn } from './store.js'

// A hook's test: GL TestHooks::ProjectService and GroupService with Integrations::ProjectTestData, and the system
// hooks' test of API::SystemHooks.

const BLANK_SHA = '0'.repeat(40)
/** What `POST /hooks/:hook_id` sends to a system hook (GL API::SystemHooks). */
const SYSTEM_HOOK_TEST_DATA = {
  event_name: 'project_create',
  name: 'Ruby',
  path: 'ruby',
  project_id: 1,
  owner_name: 'Someone',
  owner_email: 'example@gitlabhq.com',
}

/** No sample for this trigger: GL Integrations::ProjectTestData's `no_data_error`. */
class NoTestData extends Error {}

async function firstProjectPayload(ctx: Context, change: Change): Promise<Record<string, unknown> | null> {
  const payloads = await hookPayloadsOf(ctx, ctx.db, change)
  return payloads.find((payload) => payload.scope === 'project')?.body ?? null
}

/** GL Integrations::ProjectTestData: the newest issue, merge request or note of the project, or a push of its default branch. */
async function sampleData(ctx: Context, project: ProjectRow, trigger: TestTrigger): Promise<Record<string, unknown> | null> {
  const actorId = ctx.caller.user?.id ?? 0
  const at = ctx.now()
  switch (trigger) {
    case 'push_events':
    case 'tag_push_events': {
      const branch = project.default_branch
      const head = branch ? await readBranchHead(projectRepositoryDirectory(ctx.config, project), branch) : null
      if (!branch || !head) throw new NoTestData('Ensure the project has at least one commit.')
      // GL Push.build_sample: a tag sample names the default branch under refs/tags/.
      const ref = `${trigger === 'tag_push_events' ? 'refs/tags/' : 'refs/heads/'}${branch}`
      return firstProjectPayload(ctx, { kind: 'push', projectId: project.id, actorId, ref, before: BLANK_SHA, after: head, at })
    }
    case 'note_events': {
      const noteId = await findNewestIdIn(ctx.db, 'notes', project.id)
      if (noteId === undefined) throw new NoTestData('Ensure the project has notes.')
      return firstProjectPayload(ctx, { kind: 'note', action: 'create', projectId: project.id, noteId, actorId, at })
    }
    case 'issues_events':
    case 'confidential_issues_events': {
      const issueId = await findNewestIdIn(ctx.db, 'issues', project.id)
      if (issueId === undefined) throw new NoTestData('Ensure the project has issues.')
      return firstProjectPayload(ctx, { kind: 'issue', action: 'open', projectId: project.id, issueId, actorId, changes: {}, at })
    }
    case 'merge_requests_events': {
      const mergeRequestId = await findNewestIdIn(ctx.db, 'merge_requests', project.id)
      if (mergeRequestId === undefined) throw new NoTestData('Ensure the project has merge requests.')
      return firstProjectPayload(ctx, {
        kind: 'merge_request',
        action: 'open',
        projectId: project.id,
        mergeRequestId,
        actorId,
        changes: {},
        at,
      })
    }
    case 'job_events':
      throw new NoTestData('Ensure the project has CI jobs.')
    case 'pipeline_events':
      throw new NoTestData('Ensure the project has CI pipelines.')
    case 'wiki_page_events':
      throw new NoTestData('Ensure the wiki is enabled and has pages.')
    case 'deployment_events':
      throw new NoTestData('Ensure the project has deployments.')
    case 'releases_events':
      throw new NoTestData('Ensure the project has releases.')
    case 'emoji_events':
      if ((await findNewestIdIn(ctx.db, 'notes', project.id)) === undefined) throw new NoTestData('Ensure the project has notes.')
      return null
    default:
      return null
  }
}

/**
 * Sends a project or group hook the sample of `trigger`, whether or not the hook is disabled, and answers what came
 * back (GL TestHooks::ProjectService): a 2xx or 3xx re-enables the hook.
 */
export async function testHook(
  ctx: Context,
  parent: HookParent & { type: 'ProjectHook' | 'GroupHook' },
  hookId: number,
  trigger: TestTrigger,
): Promise<HookOutcome> {
  const hook = await findHook(ctx, parent, hookId)
  let project: ProjectRow | undefined
  if (parent.type === 'ProjectHook') project = parent.loaded.project
  else {
    const projectId = await findFirstNonEmptyProjectId(ctx.db, parent.loaded.group.id)
    project = projectId === undefined ? undefined : (await findProjectById(ctx.db, projectId))[0]
    if (!project) throw new Unprocessable('Ensure the group has a project with commits.')
  }
  if (!hasTrigger(hook.type, trigger)) throw new Unprocessable('Testing not available for this hook')
  let data: Record<string, unknown> | null
  try {
    data = await sampleData(ctx, project, trigger)
  } catch (error) {
    if (error instanceof NoTestData) throw new Unprocessable(error.message)
    throw error
  }
  if (!data || Object.keys(data).length === 0) throw new Unprocessable('Testing not available for this hook')
  const hookName = HOOK_NAMES[trigger]!
  const sent = await executeAndRecord(ctx, hook, { data, hookName, event: eventOf(hook, hookEventName(hookName)), ...newRequestKeys() })
  return { status: sent.status, message: sent.message }
}

/** `POST /hooks/:hook_id`: sends the system hooks' sample; answers it, and what came back. */
export async function testSystemHook(ctx: Context, hookId: number): Promise<{ data: Record<string, unknown>; outcome: HookOutcome }> {
  const hook = await findHook(ctx, { type: 'SystemHook' }, hookId)
  const data = { ...SYSTEM_HOOK_TEST_DATA }
  const sent = await executeAndRecord(ctx, hook, { data, hookName: 'system_hooks', event: 'System Hook', ...newRequestKeys() })
  return { data, outcome: { status: sent.status, message: sent.message } }
}
