import { canRead } from '../../core/access.js'
import type { Context } from '../../core/context.js'
import {
  canReadIssue,
  canReadMergeRequests,
  canReadMilestones,
  findGroup,
  findIssueAssigneeIds,
  findIssueByIid,
  findMergeRequestByIid,
  findProject,
  type LoadedGroup,
  type LoadedProject,
} from '../access/index.js'
import { escapeHtml } from './escape.js'
import { referenceKey, type Reference } from './references.js'
import { findLabelsForReferences, findMilestonesForReferences, findNamespacesByLowerFullPaths } from './store.js'

/** Where a document is shown: references without a project path are the project's (or, for users, anyone's). */
export interface ReferenceContext {
  project?: LoadedProject
  group?: LoadedGroup
}

/** Each reference's link by referenceKey; a reference the reader may not see has none and stays text. */
export type Resolutions = Map<string, string>

type Attributes = [string, string | number | boolean | null][]

function tag(attributes: Attributes): string {
  return attributes
    .filter(([, value]) => value !== null)
    .map(([name, value]) => ` ${name}="${escapeHtml(String(value))}"`)
    .join('')
}

/** GL ReferenceFilter#data_attribute and AbstractReferenceFilter#data_attributes_for, in GitLab's order. */
function dataAttributes(type: string, reference: Reference, own: Attributes): Attributes {
  return [
    ['data-reference-type', type],
    ['data-original', reference.text],
    ['data-link', false],
    ['data-link-reference', false],
    ...own,
    ['data-container', 'body'],
    ['data-placement', 'top'],
  ]
}

/** The lower-case full path a reference's project path names, relative to the namespace of the context. */
function fullPathOf(reference: Reference, context: ReferenceContext): string | null {
  const base = context.project?.namespace.full_path ?? context.group?.group.full_path ?? null
  if (reference.projectPath === null) return context.project ? context.project.project.full_path.toLowerCase() : null
  if (reference.projectPath.includes('/')) return reference.projectPath.toLowerCase()
  return base === null ? null : `${base}/${reference.projectPath}`.toLowerCase()
}

async function loadProjects(ctx: Context, paths: Iterable<string>, context: ReferenceContext): Promise<Map<string, LoadedProject | null>> {
  const projects = new Map<string, LoadedProject | null>()
  if (context.project) projects.set(context.project.project.full_path.toLowerCase(), context.project)
  await Promise.all(
    [...new Set(paths)]
      .filter((path) => !projects.has(path))
      .map(async (path) => {
        // Hidden, missing and moved projects alike leave their references as text.
        projects.set(path, await findProject(ctx, path).catch(() => null))
      }),
  )
  return projects
}

function stateSuffix(state: string): string {
  // GL IssuableStateFilter: closed and merged issuables say so after their reference.
  return state === 'closed' || state === 'merged' ? ` (${state})` : ''
}

async function resolveIssue(ctx: Context, loaded: LoadedProject, reference: Reference): Promise<string | null> {
  const { project } = loaded
  const issue = await findIssueByIid(ctx.db, project.id, reference.number as number)
  if (!issue) return null
  const assigneeIds = issue.confidential ? await findIssueAssigneeIds(ctx.db, issue.id) : []
  if (!canReadIssue(loaded.access, project, issue, assigneeIds)) return null
  const attributes = tag([
    ['href', `${ctx.config.externalUrl}/${project.full_path}/-/issues/${issue.iid}`],
    ...dataAttributes('issue', reference, [
      ['data-project', project.id],
      ['data-issue', issue.id],
      ['data-project-path', project.full_path],
      ['data-iid', issue.iid],
      ['data-issue-type', issue.issue_type],
    ]),
    ['title', issue.title],
    ['class', 'gfm gfm-issue'],
  ])
  return `<a${attributes}>${escapeHtml(reference.text + stateSuffix(issue.state))}</a>`
}

async function resolveMergeRequest(ctx: Context, loaded: LoadedProject, reference: Reference): Promise<string | null> {
  const { project } = loaded
  if (!canReadMergeRequests(loaded.access, project)) return null
  const mergeRequest = await findMergeRequestByIid(ctx.db, project.id, reference.number as number)
  if (!mergeRequest) return null
  const attributes = tag([
    ['href', `${ctx.config.externalUrl}/${project.full_path}/-/merge_requests/${mergeRequest.iid}`],
    ...dataAttributes('merge_request', reference, [
      ['data-project', project.id],
      ['data-merge-request', mergeRequest.id],
      ['data-project-path', project.full_path],
      ['data-iid', mergeRequest.iid],
    ]),
    ['title', mergeRequest.title],
    ['class', 'gfm gfm-merge_request'],
  ])
  return `<a${attributes}>${escapeHtml(reference.text + stateSuffix(mergeRequest.state))}</a>`
}

async function resolveLabels(ctx: Context, loaded: LoadedProject, references: Reference[], resolutions: Resolutions) {
  const { project, namespace } = loaded
  if (!canRead(loaded.access)) return
  const titles = references.filter((r) => r.name !== null).map((r) => r.name as string)
  const ids = references.filter((r) => r.number !== null).map((r) => r.number as number)
  const labels = await findLabelsForReferences(ctx.db, project.id, namespace.traversal_ids, { titles, ids })
  for (const reference of references) {
    // A project's own label wins over a group's of the same title (GL LabelsFinder orders them so).
    const candidates = labels.filter((label) =>
      reference.number !== null ? label.id === reference.number : label.title === reference.name,
    )
    const label = candidates.find((candidate) => candidate.project_id !== null) ?? candidates[0]
    if (!label) continue
    const attributes = tag([
      ['href', `${ctx.config.externalUrl}/${project.full_path}/-/issues?label_name[]=${encodeURIComponent(label.title)}`],
      ...dataAttributes('label', reference, [
        ['data-project', project.id],
        ['data-label', label.id],
      ]),
      ['title', label.description ?? ''],
      ['class', 'gfm gfm-label has-tooltip gl-link gl-label-link'],
    ])
    // GitLab paints the label's colour with an inline style, which the Content-Security-Policy refuses: a dot of it
    // instead, as the pages' label badges show it.
    const dot =
      '<svg class="label-dot" width="10" height="10" viewBox="0 0 10 10" aria-hidden="true" focusable="false">' +
      `<circle cx="5" cy="5" r="5" fill="${escapeHtml(label.color)}" /></svg>`
    const link = `<a${attributes}>${dot}<span class="gl-label-text">${escapeHtml(label.title)}</span></a>`
    resolutions.set(referenceKey(reference), `<span class="gl-label gl-label-sm">${link}</span>`)
  }
}

async function resolveMilestones(ctx: Context, loaded: LoadedProject, references: Reference[], resolutions: Resolutions) {
  const { project } = loaded
  if (!canReadMilestones(loaded.access, project)) return
  const titles = references.filter((r) => r.name !== null).map((r) => r.name as string)
  const iids = references.filter((r) => r.number !== null).map((r) => r.number as number)
  const milestones = await findMilestonesForReferences(ctx.db, project.id, { titles, iids })
  for (const reference of references) {
    const milestone = milestones.find((m) => (reference.number !== null ? m.iid === reference.number : m.title === reference.name))
    if (!milestone) continue
    const attributes = tag([
      ['href', `${ctx.config.externalUrl}/${project.full_path}/-/milestones/${milestone.iid}`],
      ...dataAttributes('milestone', reference, [
        ['data-project', project.id],
        ['data-milestone', milestone.id],
      ]),
      ['class', 'gfm gfm-milestone has-tooltip'],
    ])
    resolutions.set(referenceKey(reference), `<a${attributes}>${escapeHtml(milestone.title)}</a>`)
  }
}

/** GL UserReferenceFilter: `@path` names a user (their profile) or a group the reader may see. */
async function resolveUsers(ctx: Context, references: Reference[], resolutions: Resolutions) {
  const paths = [...new Set(references.map((r) => (r.name as string).toLowerCase()))]
  const namespaces = await findNamespacesByLowerFullPaths(ctx.db, paths)
  const byPath = new Map(namespaces.map((n) => [n.full_path.toLowerCase(), n]))
  for (const reference of references) {
    const namespace = byPath.get((reference.name as string).toLowerCase())
    if (!namespace) continue
    let href: string
    let own: Attributes
    let title: string
    if (namespace.kind === 'user') {
      if (namespace.username === null || namespace.owner_id === null) continue
      href = `${ctx.config.externalUrl}/${namespace.username}`
      own = [['data-user', namespace.owner_id]]
      title = namespace.owner_name ?? namespace.username
    } else {
      const group = await findGroup(ctx, namespace.id).catch(() => null)
      if (!group) continue
      href = `${ctx.config.externalUrl}/groups/${group.group.full_path}`
      own = [['data-group', group.group.id]]
      title = group.group.full_name
    }
    const attributes = tag([
      ['href', href],
      ['data-reference-type', 'user'],
      ...own,
      ['data-container', 'body'],
      ['data-placement', 'top'],
      ['class', 'gfm gfm-project_member js-user-link'],
      ['title', title],
    ])
    resolutions.set(referenceKey(reference), `<a${attributes}>${escapeHtml(reference.text)}</a>`)
  }
}

/** Links for the references the reader may see, each looked up once, with the finders and policies of access. */
export async function resolveReferences(ctx: Context, references: readonly Reference[], context: ReferenceContext): Promise<Resolutions> {
  const resolutions: Resolutions = new Map()
  const unique = [...new Map(references.map((r) => [referenceKey(r), r])).values()]
  const users = unique.filter((r) => r.kind === 'user')
  const inProjects = unique
    .filter((r) => r.kind !== 'user')
    .map((reference) => ({ reference, path: fullPathOf(reference, context) }))
    .filter((entry): entry is { reference: Reference; path: string } => entry.path !== null)
  const projects = await loadProjects(
    ctx,
    inProjects.map((entry) => entry.path),
    context,
  )
  const byProject = new Map<LoadedProject, Reference[]>()
  for (const { reference, path } of inProjects) {
    const loaded = projects.get(path)
    if (!loaded) continue
    byProject.set(loaded, [...(byProject.get(loaded) ?? []), reference])
  }
  const work: Promise<unknown>[] = [users.length > 0 ? resolveUsers(ctx, users, resolutions) : Promise.resolve()]
  for (const [loaded, list] of byProject) {
    for (const reference of list) {
      if (reference.kind === 'issue' || reference.kind === 'merge_request') {
        const resolve = reference.kind === 'issue' ? resolveIssue : resolveMergeRequest
        work.push(
          resolve(ctx, loaded, reference).then((html) => {
            if (html !== null) resolutions.set(referenceKey(reference), html)
          }),
        )
      }
    }
    const labels = list.filter((r) => r.kind === 'label')
    if (labels.length > 0) work.push(resolveLabels(ctx, loaded, labels, resolutions))
    const milestones = list.filter((r) => r.kind === 'milestone')
    if (milestones.length > 0) work.push(resolveMilestones(ctx, loaded, milestones, resolutions))
  }
  await Promise.all(work)
  return resolutions
}
