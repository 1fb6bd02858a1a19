import type { LabelRow, NamespaceRow, ProjectRow } from '../../db/schema.js'
import { renderDescriptionHtml, textColorFor } from '../labels/index.js'
import type { LabelBasicJson } from './schemas.js'

/** GL Entities::LabelBasic. */
export function presentLabelBasic(label: LabelRow): LabelBasicJson {
  return {
    id: label.id,
    name: label.title,
    color: label.color,
    description: label.description,
    description_html: renderDescriptionHtml(label.description),
    text_color: textColorFor(label.color),
  }
}

/** Labels sorted by title, as titles or as LabelBasic (`with_labels_details`). */
export function presentLabels(labels: readonly LabelRow[], withDetails: boolean): string[] | LabelBasicJson[] {
  const sorted = [...labels].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0))
  return withDetails ? sorted.map(presentLabelBasic) : sorted.map((label) => label.title)
}

// GL TaskList: list items that start with [ ], [x] or [~] (inapplicable items count as neither).
const TASK_PATTERN = /^[ \t]*(?:[-+*]|\d+[.)])[ \t]+\[([ xX~])\][ \t]/gm

/** GL Taskable#task_completion_status. */
export function taskCompletionOf(description: string | null): { count: number; completed_count: number } {
  let count = 0
  let completed = 0
  for (const match of (description ?? '').matchAll(TASK_PATTERN)) {
    if (match[1] === '~') continue
    count += 1
    if (match[1] !== ' ') completed += 1
  }
  return { count, completed_count: completed }
}

/** GL Entities::IssuableTimeStats without time tracking: nothing estimated or spent. */
export const NO_TIME_STATS = { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null }

/**
 * GL Entities::IssuableReferences: `relative` is written from where the list was asked (a project: bare; a group:
 * the project's path, or full path outside that group; nowhere: bare, as Project#to_reference_base answers nil).
 */
export function referencesOf(
  sigil: '#' | '!',
  iid: number,
  project: ProjectRow,
  from: { kind: 'project' } | { kind: 'group'; group: NamespaceRow } | { kind: 'none' },
) {
  const short = `${sigil}${iid}`
  let relative = short
  if (from.kind === 'group') {
    relative = project.namespace_id === from.group.id ? `${project.path}${short}` : `${project.full_path}${short}`
  }
  return { short, relative, full: `${project.full_path}${short}` }
}
