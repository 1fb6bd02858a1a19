import type { Context } from '../../core/context.js'
import type { IssueRow, ProjectRow } from '../../db/schema.js'
import { canReadIssue, findIssueAssigneeIds, findIssueByIid, findProject, type LoadedProject } from '../access/index.js'

// Issues a merge request names: those its description or commit messages close with GitLab's default closing pattern
// (Gitlab::ClosingIssueExtractor with the default `issue_closing_pattern`), and those its title and description mention.

const PATH = String.raw`[A-Za-z0-9_.][A-Za-z0-9_.\-]*(?:\/[A-Za-z0-9_.][A-Za-z0-9_.\-]*)*`
/** GL Issue.reference_pattern (`#1`, `project#1`, `group/project#1`) or a link (the extractor keeps links to this instance's issues). */
const ISSUE_REF = String.raw`(?:https?:\/\/[^\s<>"']+|(?<![A-Za-z0-9_.\/\-])(?:${PATH})?#\d+(?![A-Za-z0-9_]))`

/**
 * GitLab's default `issue_closing_pattern` with `%{issue_ref}` filled in: a keyword (Close, Closes, Closed, Closing, Fix,
 * Fixes, Fixed, Fixing, Resolve, Resolves, Resolved, Resolving, Implement, Implements, Implemented, Implementing, their
 * first letter in either case), an optional colon, then references joined by commas and "and".
 */
const CLOSING_STATEMENT = new RegExp(
  String.raw`\b(?:(?:[Cc]los(?:e[sd]?|ing)|\b[Ff]ix(?:e[sd]|ing)?|\b[Rr]esolv(?:e[sd]?|ing)|\b[Ii]mplement(?:s|ed|ing)?)(?::?) +(?:(?:issues? +)?${ISSUE_REF}(?:(?: *,? +and +| *,? *)?)|(?:[A-Z][A-Z0-9_]+-\d+))+)`,
  'g',
)

const REFERENCE = new RegExp(String.raw`(https?:\/\/[^\s<>"']+)|(?<![A-Za-z0-9_.\/\-])(${PATH})?#(\d+)(?![A-Za-z0-9_])`, 'g')

/** An issue as written: its project's path (null for the merge request's project) and iid. */
interface IssueReference {
  path: string | null
  iid: number
}

/** The issue a link to this instance names (`…/group/project/-/issues/5`, with or without `/-`), else null. */
function linkedIssue(link: string, externalUrl: string): IssueReference | null {
  let url: URL
  let base: URL
  try {
    url = new URL(link.replace(/[.,;:!?)\]]+$/, ''))
    base = new URL(externalUrl)
  } catch {
    return null
  }
  if (url.host.toLowerCase() !== base.host.toLowerCase()) return null
  const prefix = base.pathname.replace(/\/+$/, '')
  if (!url.pathname.startsWith(`${prefix}/`)) return null
  const match = /^\/(.+?)(?:\/-)?\/issues\/(\d+)\/?$/.exec(url.pathname.slice(prefix.length))
  return match ? { path: decodeURIComponent(match[1]), iid: Number(match[2]) } : null
}

/** The issue references in a text, in order, each once. */
function referencesIn(text: string, externalUrl: string): IssueReference[] {
  const found = new Map<string, IssueReference>()
  for (const match of text.matchAll(REFERENCE)) {
    const reference = match[1] ? linkedIssue(match[1], externalUrl) : { path: match[2] ?? null, iid: Number(match[3]) }
    if (reference && Number.isSafeInteger(reference.iid)) found.set(`${reference.path ?? ''}#${reference.iid}`, reference)
  }
  return [...found.values()]
}

/** GL ClosingIssueExtractor#closed_by_message: the references inside the closing statements of a message. */
export function closingReferencesIn(message: string, externalUrl: string): IssueReference[] {
  const statements = [...message.matchAll(CLOSING_STATEMENT)].map((match) => match[0])
  return referencesIn(statements.join(' '), externalUrl)
}

/** What a title or description mentions: its issue references outside code (GL ReferenceExtractor reads rendered Markdown). */
export function mentionedReferencesIn(text: string, externalUrl: string): IssueReference[] {
  const withoutCode = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '')
  return referencesIn(withoutCode, externalUrl)
}

/** An issue the caller may read, with its project as the caller sees it. */
export interface ReadableIssue {
  loaded: LoadedProject
  issue: IssueRow
}

/**
 * The issues references name, as the caller may read them (GL ReferenceExtractor#issues): a path without a slash is a
 * project of the merge request's namespace, none is the merge request's project. Unreadable and missing ones drop out.
 */
export async function readableIssues(
  ctx: Context,
  project: LoadedProject,
  references: readonly IssueReference[],
): Promise<ReadableIssue[]> {
  const projects = new Map<string, LoadedProject | null>([[project.project.full_path.toLowerCase(), project]])
  const issues = new Map<number, ReadableIssue>()
  for (const reference of references) {
    const path =
      reference.path === null
        ? project.project.full_path
        : reference.path.includes('/')
          ? reference.path
          : `${project.namespace.full_path}/${reference.path}`
    const key = path.toLowerCase()
    if (!projects.has(key)) projects.set(key, await findProject(ctx, path).catch(() => null))
    const loaded = projects.get(key)
    if (!loaded) continue
    const issue = await findIssueByIid(ctx.db, loaded.project.id, reference.iid)
    if (!issue || issues.has(issue.id)) continue
    const assigneeIds = issue.confidential ? await findIssueAssigneeIds(ctx.db, issue.id) : []
    if (canReadIssue(loaded.access, loaded.project, issue, assigneeIds)) issues.set(issue.id, { loaded, issue })
  }
  return [...issues.values()]
}

/** GL Referable#to_reference(from): `!1` in its own project, `project!1` beside it in one namespace, else the full path. */
export function mergeRequestReferenceFrom(project: ProjectRow, iid: number, from: ProjectRow): string {
  if (project.id === from.id) return `!${iid}`
  if (project.namespace_id === from.namespace_id) return `${project.path}!${iid}`
  return `${project.full_path}!${iid}`
}
