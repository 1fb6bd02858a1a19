import type { Context } from '../../core/context.js'
import { toSentence } from '../../core/sentence.js'
import type { IssueRow, LabelRow, MergeRequestRow, MilestoneRow, UserRow } from '../../db/schema.js'
import {
  canSetIssueMetadata,
  canSetMergeRequestMetadata,
  canUpdateIssue,
  canUpdateMergeRequest,
  type LoadedProject,
} from '../access/index.js'
import { listLabels } from '../labels/index.js'
import { listMilestones } from '../milestones/index.js'
import { findUsersByUsernames } from '../users/index.js'
import { parseDueDate, shortDate } from './dates.js'
import { extractCommands, type ExtractedCommand } from './extract.js'

// What the quick actions of an issue's or a merge request's description or comment do (GL
// QuickActions::InterpretService with IssuableActions, IssueAndMergeRequestActions, IssueActions and
// MergeRequestActions): each command checks its condition against the issue or merge request as it is, then records
// its change; nothing is written here.

interface TargetParts {
  loaded: LoadedProject
  labels: readonly LabelRow[]
  assignees: readonly UserRow[]
  milestone: MilestoneRow | null
}

/** An issue as the commands see it before they run. */
export interface IssueTarget extends TargetParts {
  type: 'Issue'
  /** Null while the issue is being created (commands that need a saved issue are then not available). */
  issue: IssueRow | null
}

/** What /merge, /approve and /unapprove ask of a merge request, read by the merge requests feature. */
export interface MergeRequestReviewState {
  /** GL MergeOrchestrationService#can_merge?: the caller may merge it, and it is mergeable now. */
  mayMerge: boolean
  /** GL `diff_head_sha`. */
  headSha: string | null
  /** GL MergeRequest#eligible_for_approval_by? and #eligible_for_unapproval_by?. */
  mayApprove: boolean
  mayUnapprove: boolean
}

/** A merge request as the commands see it before they run. */
export interface MergeRequestTarget extends TargetParts {
  type: 'MergeRequest'
  /** Null while the merge request is being created. */
  mergeRequest: MergeRequestRow | null
  reviewers: readonly UserRow[]
  /** Read only when a command needs it: it looks at the repository. */
  reviewState(): Promise<MergeRequestReviewState>
}

/** The issue or merge request the commands act on. */
export type QuickActionTarget = IssueTarget | MergeRequestTarget

/** What the request says besides the text (GL quick action `params`). */
export interface QuickActionOptions {
  /** The source branch's head when the comment was written: /merge merges only that (GL `merge_request_diff_head_sha`). */
  mergeRequestDiffHeadSha?: string
}

/** The changes the commands ask for, in the order they were first asked (GL `@updates`). */
export interface QuickActionUpdates {
  addLabelIds?: number[]
  removeLabelIds?: number[]
  labelIds?: number[]
  assigneeIds?: number[]
  milestoneId?: number | null
  stateEvent?: 'close' | 'reopen'
  dueDate?: string | null
  title?: string
  confidential?: boolean
  discussionLocked?: boolean
  reviewerIds?: number[]
  /** GL `wip_event`. */
  wipEvent?: 'draft' | 'ready'
  /** The head commit to merge (GL `merge`). */
  merge?: string
}

export interface Interpretation {
  /** The text without its command lines. */
  content: string
  /** How many commands were written (GL `commands_executed_count`), available or not. */
  commandCount: number
  updates: QuickActionUpdates
  /** The labels the updates name, by id, so that they can be applied by title. */
  labelsById: Map<number, LabelRow>
  /** What the commands did, one sentence each, joined by spaces (GL `execution_messages_for`). */
  message: string
  /** /approve and /unapprove, which GitLab runs at once rather than as an update (so not in `commands_changes`). */
  approval?: 'approve' | 'unapprove'
}

/** GL Gitlab::QuickActions::UsersExtractor::MAX_QUICK_ACTION_USERS. */
const MAX_USERS = 100

/** A command's argument that could not be read; its message ends "Could not apply <name> command. ...". */
class ParseFailure extends Error {}

/** Every name the extractor looks for, aliases included. */
const COMMAND_NAMES = [
  'close',
  'reopen',
  'title',
  'label',
  'labels',
  'unlabel',
  'remove_label',
  'relabel',
  'assign',
  'unassign',
  'milestone',
  'remove_milestone',
  'due',
  'remove_due_date',
  'confidential',
  'lock',
  'unlock',
  'draft',
  'ready',
  'assign_reviewer',
  'reviewer',
  'unassign_reviewer',
  'remove_reviewer',
  'merge',
  'approve',
  'unapprove',
]

const ALIASES: Record<string, string> = {
  labels: 'label',
  remove_label: 'unlabel',
  reviewer: 'assign_reviewer',
  remove_reviewer: 'unassign_reviewer',
}

/** GL Label#to_reference(format: :name). */
function labelReference(label: LabelRow): string {
  return label.title.includes('"') ? `~${label.id}` : `~"${label.title}"`
}

/** GL Milestone#to_reference (by name). */
function milestoneReference(milestone: MilestoneRow): string {
  return milestone.title.includes('"') ? `%${milestone.iid}` : `%"${milestone.title}"`
}

function plural(count: number, noun: string): string {
  return count === 1 ? noun : `${noun}s`
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)]
}

/** What one run of the interpreter knows: the target, the caller's rights, and lookups made once. */
class Interpreter {
  readonly updates: QuickActionUpdates = {}
  readonly executionMessages = new Map<string, string>()
  readonly labelsById = new Map<number, LabelRow>()
  approval: 'approve' | 'unapprove' | undefined
  private availableLabels: Promise<LabelRow[]> | null = null
  private projectMilestones: Promise<MilestoneRow[]> | null = null
  private review: Promise<MergeRequestReviewState> | null = null
  readonly maySetMetadata: boolean
  readonly mayUpdate: boolean
  /** Several assignees, and several reviewers, are paid tiers' (GL `allows_multiple_assignees?`, `allows_multiple_reviewers?`). */
  readonly multipleAssignees: boolean

  constructor(
    readonly ctx: Context,
    readonly target: QuickActionTarget,
    readonly options: QuickActionOptions,
  ) {
    const { access, project } = target.loaded
    const assigneeIds = target.assignees.map((user) => user.id)
    if (target.type === 'Issue') {
      this.maySetMetadata = ctx.caller.user !== null && canSetIssueMetadata(access, project)
      this.mayUpdate = target.issue !== null && canUpdateIssue(access, project, target.issue, assigneeIds)
    } else {
      this.maySetMetadata = ctx.caller.user !== null && canSetMergeRequestMetadata(access, project)
      this.mayUpdate = target.mergeRequest !== null && canUpdateMergeRequest(access, project, target.mergeRequest, assigneeIds)
    }
    this.multipleAssignees = ctx.config.tier !== 'free'
  }

  /** The issue's or merge request's row; null while it is being created. */
  get row(): IssueRow | MergeRequestRow | null {
    return this.target.type === 'Issue' ? this.target.issue : this.target.mergeRequest
  }

  get persisted(): boolean {
    return this.row !== null
  }

  /** GL `open?`: a locked merge request is open too. */
  get isOpen(): boolean {
    return this.row !== null && (this.row.state === 'opened' || this.row.state === 'locked')
  }

  /** "issue" or "merge request" (GL `target_issuable_name`). */
  get noun(): string {
    return this.target.type === 'Issue' ? 'issue' : 'merge request'
  }

  get mergeRequest(): MergeRequestTarget | null {
    return this.target.type === 'MergeRequest' ? this.target : null
  }

  get issue(): IssueRow | null {
    return this.target.type === 'Issue' ? this.target.issue : null
  }

  get isDraft(): boolean {
    return this.mergeRequest?.mergeRequest?.draft === 1
  }

  reviewState(): Promise<MergeRequestReviewState> {
    this.review ??= this.mergeRequest!.reviewState()
    return this.review
  }

  labels(): Promise<LabelRow[]> {
    this.availableLabels ??= listLabels(
      this.ctx,
      { kind: 'project', loaded: this.target.loaded },
      { includeAncestorGroups: true, withCounts: false, page: 1, perPage: 10_000 },
    ).then((result) => [...result.page.rows])
    return this.availableLabels
  }

  milestones(): Promise<MilestoneRow[]> {
    this.projectMilestones ??= listMilestones(this.ctx, this.target.loaded, {
      state: null,
      iids: null,
      title: null,
      search: null,
      searchTitle: null,
      updatedBefore: null,
      updatedAfter: null,
      page: 1,
      perPage: 10_000,
    }).then((page) => [...page.rows])
    return this.projectMilestones
  }

  /** GL InterpretService#find_labels: `~label` references, else plain names when the text has no `~`. */
  async findLabels(text: string): Promise<LabelRow[]> {
    const available = await this.labels()
    // The project's own label wins over a group's of the same title.
    const byTitle = new Map<string, LabelRow>()
    for (const label of available) if (!byTitle.has(label.title) || label.project_id !== null) byTitle.set(label.title, label)
    const byId = new Map(available.map((label) => [label.id, label]))
    const found: LabelRow[] = []
    // GL Label.reference_pattern: ~12 (an id), ~name or ~"a name".
    for (const match of text.matchAll(/~(?:(\d+)(?!\S\w)\b|([A-Za-z0-9_\-?.&]+)(?<![.?])|"(.+?)")/g)) {
      const label = match[1] !== undefined ? byId.get(Number(match[1])) : byTitle.get(match[2] ?? match[3])
      if (label) found.push(label)
    }
    if (!text.includes('~')) {
      for (const match of text.matchAll(/"([^"]+)"|([^ ]+)/g)) {
        const label = byTitle.get(match[1] ?? match[2])
        if (label) found.push(label)
      }
    }
    const labels = unique(found)
    for (const label of labels) this.labelsById.set(label.id, label)
    return labels
  }

  /** GL UsersExtractor: `me`, and users by username with or without `@`, separated by spaces, commas or "and". */
  async findUsers(text: string): Promise<UserRow[]> {
    const args = unique(
      text
        .split(/\s|,/)
        .map((word) => word.trim())
        .filter((word) => word !== ''),
    ).filter((word) => word !== 'and')
    if (args.length === 0) return []
    const references = args.filter((word) => word !== 'me').map((word) => word.replace(/\\_/g, '_'))
    if (references.length > MAX_USERS) {
      throw new ParseFailure(`Too many references. Quick actions are limited to at most ${MAX_USERS} user references`)
    }
    const users: UserRow[] = []
    if (args.includes('me') && this.ctx.caller.user) users.push(this.ctx.caller.user)
    users.push(...(await findUsersByUsernames(this.ctx.db, unique(references.map((reference) => reference.replace(/^@/, ''))))))
    if (users.length > MAX_USERS) throw new ParseFailure(`Too many users found. Quick actions are limited to at most ${MAX_USERS} users`)
    const found = new Set(users.map((user) => user.username.toLowerCase()))
    const missing = references
      .filter((reference) => !found.has(reference.toLowerCase().replace(/^@/, '')))
      .map((reference) => `'${reference}'`)
    if (missing.length > 0) throw new ParseFailure(`Failed to find users for ${toSentence(missing)}`)
    return users
  }

  /** GL `extract_references(param, :milestone).first || find_milestones(title: param)`: `%3`, `%name`, `%"a name"`, or a title. */
  async findMilestone(text: string): Promise<MilestoneRow | null> {
    const milestones = await this.milestones()
    const match = /%(?:(\d+)\b|"([^"]+)"|([^"\s<]+))/.exec(text)
    if (match) {
      const found =
        match[1] !== undefined
          ? milestones.find((milestone) => milestone.iid === Number(match[1]))
          : milestones.find((milestone) => milestone.title === (match[2] ?? match[3]))
      if (found) return found
    }
    return milestones.find((milestone) => milestone.title === text.trim()) ?? null
  }

  async hasActiveMilestones(): Promise<boolean> {
    return (await this.milestones()).some((milestone) => milestone.state === 'active')
  }

  assigneeSentence(users: readonly UserRow[]): string {
    return toSentence((this.multipleAssignees ? users : users.slice(0, 1)).map((user) => `@${user.username}`))
  }

  /** The reviewers as the commands so far leave them (GL `@updates[:reviewer_ids] ||= reviewers`). */
  currentReviewerIds(): number[] {
    return this.updates.reviewerIds ?? this.mergeRequest!.reviewers.map((user) => user.id)
  }

  addIds(key: 'addLabelIds' | 'removeLabelIds' | 'labelIds', ids: readonly number[]) {
    this.updates[key] = unique([...(this.updates[key] ?? []), ...ids])
  }
}

/**
 * One command (GL CommandDefinition): for which targets it is, whether it is available now, what it changes, and what
 * it says it did. `run` and `message` get the argument as written, or null; an argument that cannot be read throws a
 * ParseFailure.
 */
interface Command {
  name: string
  /** GL `types`; both when absent. */
  type?: QuickActionTarget['type']
  available(it: Interpreter): boolean | Promise<boolean>
  run(it: Interpreter, arg: string | null): Promise<void> | void
  message(it: Interpreter, arg: string | null): Promise<string | null> | string | null
}

const COMMANDS: Command[] = [
  {
    name: 'close',
    available: (it) => it.isOpen && it.mayUpdate,
    run: (it) => void (it.updates.stateEvent = 'close'),
    message: (it) => `Closed this ${it.noun}.`,
  },
  {
    name: 'reopen',
    available: (it) => it.row?.state === 'closed' && it.mayUpdate,
    run: (it) => void (it.updates.stateEvent = 'reopen'),
    message: (it) => `Reopened this ${it.noun}.`,
  },
  {
    name: 'title',
    available: (it) => it.persisted && it.mayUpdate,
    run: (it, arg) => {
      if (arg !== null) it.updates.title = arg
    },
    message: (_it, arg) => (arg === null ? null : `Changed the title to "${arg}".`),
  },
  {
    name: 'label',
    available: async (it) => it.maySetMetadata && (await it.labels()).length > 0,
    run: async (it, arg) => {
      if (arg === null) return
      const labels = await it.findLabels(arg)
      if (labels.length === 0) return
      it.addIds(
        'addLabelIds',
        labels.map((label) => label.id),
      )
      it.executionMessages.set('label', `Added ${labels.map(labelReference).join(' ')} ${plural(labels.length, 'label')}.`)
    },
    message: (it) => it.executionMessages.get('label') ?? '',
  },
  {
    name: 'unlabel',
    available: (it) => it.persisted && it.target.labels.length > 0 && it.maySetMetadata,
    run: async (it, arg) => {
      let references: string[] = []
      if (arg !== null) {
        const labels = await it.findLabels(arg)
        references = labels.map(labelReference)
        if (labels.length > 0)
          it.addIds(
            'removeLabelIds',
            labels.map((label) => label.id),
          )
      } else {
        it.updates.labelIds = []
      }
      it.executionMessages.set(
        'unlabel',
        references.length > 0 ? `Removed ${references.join(' ')} ${plural(references.length, 'label')}.` : 'Removed all labels.',
      )
    },
    message: (it) => it.executionMessages.get('unlabel') ?? '',
  },
  {
    name: 'relabel',
    available: (it) => it.persisted && it.target.labels.length > 0 && it.maySetMetadata,
    run: async (it, arg) => {
      if (arg === null) return
      const labels = await it.findLabels(arg)
      if (labels.length === 0) return
      it.addIds(
        'labelIds',
        labels.map((label) => label.id),
      )
      it.executionMessages.set(
        'relabel',
        `Replaced all labels with ${labels.map(labelReference).join(' ')} ${plural(labels.length, 'label')}.`,
      )
    },
    message: (it) => it.executionMessages.get('relabel') ?? '',
  },
  {
    name: 'assign',
    available: (it) => it.maySetMetadata,
    run: async (it, arg) => {
      if (arg === null) return
      const users = await it.findUsers(arg)
      if (users.length === 0) return
      it.updates.assigneeIds = it.multipleAssignees
        ? unique([...(it.updates.assigneeIds ?? it.target.assignees.map((user) => user.id)), ...users.map((user) => user.id)])
        : [users[0].id]
    },
    message: async (it, arg) => {
      const users = arg === null ? [] : await it.findUsers(arg)
      return users.length === 0 ? 'Failed to assign a user because no user was found.' : `Assigned ${it.assigneeSentence(users)}.`
    },
  },
  {
    name: 'unassign',
    available: (it) => it.persisted && it.target.assignees.length > 0 && it.maySetMetadata,
    run: async (it, arg) => {
      const users = arg !== null && it.multipleAssignees ? await it.findUsers(arg) : []
      if (users.length > 0) {
        const removed = new Set(users.map((user) => user.id))
        it.updates.assigneeIds = (it.updates.assigneeIds ?? it.target.assignees.map((user) => user.id)).filter((id) => !removed.has(id))
      } else {
        it.updates.assigneeIds = []
      }
    },
    message: async (it, arg) => {
      const users = arg !== null && it.multipleAssignees ? await it.findUsers(arg) : []
      const removed = users.length > 0 ? users : it.target.assignees
      return `Removed ${plural(removed.length, 'assignee')} ${toSentence(removed.map((user) => `@${user.username}`))}.`
    },
  },
  {
    name: 'milestone',
    available: async (it) => it.maySetMetadata && (await it.hasActiveMilestones()),
    run: async (it, arg) => {
      const milestone = arg === null ? null : await it.findMilestone(arg)
      if (milestone) it.updates.milestoneId = milestone.id
    },
    message: async (it, arg) => {
      const milestone = arg === null ? null : await it.findMilestone(arg)
      return milestone ? `Set the milestone to ${milestoneReference(milestone)}.` : null
    },
  },
  {
    name: 'remove_milestone',
    available: (it) => it.persisted && it.target.milestone !== null && it.maySetMetadata,
    run: (it) => void (it.updates.milestoneId = null),
    message: (it) => `Removed ${milestoneReference(it.target.milestone!)} milestone.`,
  },
  {
    name: 'due',
    type: 'Issue',
    available: (it) => it.maySetMetadata,
    run: (it, arg) => {
      if (arg === null) return
      const date = parseDueDate(arg, it.ctx.now())
      if (date) it.updates.dueDate = date
      else it.executionMessages.set('due', 'Failed to set due date because the date format is invalid.')
    },
    message: (it, arg) => {
      if (arg === null) return null
      const date = parseDueDate(arg, it.ctx.now())
      return it.executionMessages.get('due') ?? (date ? `Set the due date to ${shortDate(date)}.` : null)
    },
  },
  {
    name: 'remove_due_date',
    type: 'Issue',
    available: (it) => it.issue !== null && it.issue.due_date !== null && it.maySetMetadata,
    run: (it) => void (it.updates.dueDate = null),
    message: () => 'Removed the due date.',
  },
  {
    name: 'confidential',
    type: 'Issue',
    available: (it) => it.issue?.confidential !== 1 && it.maySetMetadata,
    run: (it) => void (it.updates.confidential = true),
    message: () => 'Made this issue confidential.',
  },
  {
    name: 'lock',
    available: (it) => it.persisted && it.row!.discussion_locked !== 1 && it.maySetMetadata,
    run: (it) => void (it.updates.discussionLocked = true),
    message: () => 'Locked the discussion.',
  },
  {
    name: 'unlock',
    available: (it) => it.persisted && it.row!.discussion_locked === 1 && it.maySetMetadata,
    run: (it) => void (it.updates.discussionLocked = false),
    message: () => 'Unlocked the discussion.',
  },
  {
    name: 'draft',
    type: 'MergeRequest',
    available: (it) => !it.persisted || it.mayUpdate,
    run: (it) => void (it.updates.wipEvent = 'draft'),
    message: (it) => (it.isDraft ? "No change to this merge request's draft status." : 'Marked this merge request as a draft.'),
  },
  {
    name: 'ready',
    type: 'MergeRequest',
    available: (it) => !it.persisted || it.mayUpdate,
    run: (it) => {
      if (it.isDraft) it.updates.wipEvent = 'ready'
    },
    message: (it) => (it.isDraft ? 'Marked this merge request as ready.' : "No change to this merge request's draft status."),
  },
  {
    name: 'assign_reviewer',
    type: 'MergeRequest',
    available: (it) => it.maySetMetadata,
    run: async (it, arg) => {
      const users = arg === null ? [] : await it.findUsers(arg)
      if (users.length === 0) return
      it.updates.reviewerIds = it.multipleAssignees ? unique([...it.currentReviewerIds(), ...users.map((user) => user.id)]) : [users[0].id]
    },
    message: async (it, arg) => {
      const users = arg === null ? [] : await it.findUsers(arg)
      if (users.length === 0) return 'Failed to assign a reviewer because no user was specified.'
      const added = it.multipleAssignees ? users : users.slice(0, 1)
      return `Assigned ${toSentence(added.map((user) => `@${user.username}`))} as ${plural(added.length, 'reviewer')}.`
    },
  },
  {
    name: 'unassign_reviewer',
    type: 'MergeRequest',
    available: (it) => (it.mergeRequest!.reviewers.length > 0 || (it.updates.reviewerIds ?? []).length > 0) && it.maySetMetadata,
    run: async (it, arg) => {
      const users = arg !== null && it.multipleAssignees ? await it.findUsers(arg) : []
      const removed = new Set(users.map((user) => user.id))
      it.updates.reviewerIds = users.length > 0 ? it.currentReviewerIds().filter((id) => !removed.has(id)) : []
    },
    message: async (it, arg) => {
      const users = arg !== null && it.multipleAssignees ? await it.findUsers(arg) : []
      const removed = users.length > 0 ? users : it.mergeRequest!.reviewers
      return `Removed ${plural(removed.length, 'reviewer')} ${toSentence(removed.map((user) => `@${user.username}`))}.`
    },
  },
  {
    name: 'merge',
    type: 'MergeRequest',
    available: async (it) => it.persisted && (await it.reviewState()).mayMerge,
    run: async (it) => {
      const sha = it.options.mergeRequestDiffHeadSha
      if (sha && sha === (await it.reviewState()).headSha) it.updates.merge = sha
    },
    message: async (it) => {
      const sha = it.options.mergeRequestDiffHeadSha
      if (!sha) return 'The `/merge` quick action requires the SHA of the head of the branch.'
      if (sha !== (await it.reviewState()).headSha) return 'Branch has been updated since the merge was requested.'
      return 'Merged this merge request.'
    },
  },
  {
    name: 'approve',
    type: 'MergeRequest',
    available: async (it) => it.persisted && it.row!.state !== 'merged' && (await it.reviewState()).mayApprove,
    run: (it) => void (it.approval = 'approve'),
    message: () => 'Approved the current merge request.',
  },
  {
    name: 'unapprove',
    type: 'MergeRequest',
    available: async (it) => it.persisted && it.row!.state !== 'merged' && (await it.reviewState()).mayUnapprove,
    run: (it) => void (it.approval = 'unapprove'),
    message: () => 'Unapproved the current merge request.',
  },
]

const COMMAND_BY_NAME = new Map(COMMANDS.map((command) => [command.name, command]))

function commandOf(extracted: ExtractedCommand): Command | undefined {
  return COMMAND_BY_NAME.get(ALIASES[extracted.name] ?? extracted.name)
}

/** GL CommandDefinition#available?: a command of the target's type whose condition holds now. */
async function isAvailable(it: Interpreter, command: Command): Promise<boolean> {
  return (command.type === undefined || command.type === it.target.type) && (await command.available(it))
}

/** GL CommandDefinition#execute_message: "Could not apply <name> command." when the command is not available now. */
async function messageOf(it: Interpreter, command: Command, arg: string | null): Promise<string | null> {
  if (!(await isAvailable(it, command))) return `Could not apply ${command.name} command.`
  try {
    return await command.message(it, arg)
  } catch (error) {
    if (error instanceof ParseFailure) return `Could not apply ${command.name} command. ${error.message}.`
    throw error
  }
}

/** Whether the text may hold a command at all, so that most texts skip the work. */
export function mayHoldQuickActions(text: string | null | undefined): boolean {
  return typeof text === 'string' && /(^|\n)\//.test(text)
}

/**
 * The commands of `text` for the issue or merge request (GL InterpretService#execute): the text without them, the
 * changes they ask for and what they say; a caller who is not signed in runs none.
 */
export async function interpretQuickActions(
  ctx: Context,
  target: QuickActionTarget,
  text: string,
  options: QuickActionOptions = {},
): Promise<Interpretation> {
  const none: Interpretation = { content: text, commandCount: 0, updates: {}, labelsById: new Map(), message: '' }
  if (!ctx.caller.user || !mayHoldQuickActions(text)) return none
  const { content, commands } = extractCommands(text, COMMAND_NAMES)
  if (commands.length === 0) return { ...none, content }
  const it = new Interpreter(ctx, target, options)
  for (const extracted of commands) {
    const command = commandOf(extracted)
    if (!command || !(await isAvailable(it, command))) continue
    try {
      await command.run(it, extracted.arg)
    } catch (error) {
      if (!(error instanceof ParseFailure)) throw error
    }
  }
  const messages: string[] = []
  for (const extracted of commands) {
    const command = commandOf(extracted)
    const message = command ? await messageOf(it, command, extracted.arg) : null
    if (message) messages.push(message)
  }
  return {
    content,
    commandCount: commands.length,
    updates: it.updates,
    labelsById: it.labelsById,
    message: messages.join(' '),
    approval: it.approval,
  }
}

const WIRE_NAMES: Record<keyof QuickActionUpdates, string> = {
  addLabelIds: 'add_label_ids',
  removeLabelIds: 'remove_label_ids',
  labelIds: 'label_ids',
  assigneeIds: 'assignee_ids',
  milestoneId: 'milestone_id',
  stateEvent: 'state_event',
  dueDate: 'due_date',
  title: 'title',
  confidential: 'confidential',
  discussionLocked: 'discussion_locked',
  reviewerIds: 'reviewer_ids',
  wipEvent: 'wip_event',
  merge: 'merge',
}

/** The changes as a note's `commands_changes` shows them (GL `note.commands_changes`, the update params). */
export function presentCommandsChanges(updates: QuickActionUpdates): Record<string, unknown> {
  return Object.fromEntries(Object.entries(updates).map(([key, value]) => [WIRE_NAMES[key as keyof QuickActionUpdates], value]))
}
