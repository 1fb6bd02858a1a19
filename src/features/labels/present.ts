import { textColorFor } from './color.js'
import type { GroupLabelJson, ProjectLabelJson, PromotedLabelJson } from './schemas.js'
import type { LabelView, PromotedLabelView } from './service.js'
import { renderDescriptionHtml } from './text.js'

function basicOf(view: LabelView) {
  const { label } = view
  return {
    id: label.id,
    name: label.title,
    color: label.color,
    description: label.description,
    description_html: renderDescriptionHtml(label.description),
    text_color: textColorFor(label.color),
  }
}

function countsOf(view: LabelView) {
  if (!view.counts) return {}
  return {
    open_issues_count: view.counts.openIssues,
    closed_issues_count: view.counts.closedIssues,
    open_merge_requests_count: view.counts.openMergeRequests,
  }
}

/** GL Entities::GroupLabel. */
export function presentGroupLabel(view: LabelView): GroupLabelJson {
  return { ...basicOf(view), ...countsOf(view), subscribed: view.subscribed }
}

/** GL Entities::ProjectLabel: the group label entity plus the priority in this project and whether the label is the project's own. */
export function presentProjectLabel(view: LabelView): ProjectLabelJson {
  return { ...presentGroupLabel(view), priority: view.priority, is_project_label: view.label.project_id !== null }
}

export function presentPromotedLabel(view: PromotedLabelView): PromotedLabelJson {
  const { label, counts } = view
  return {
    id: label.id,
    name: label.title,
    color: label.color,
    description: label.description,
    description_html: renderDescriptionHtml(label.description),
    open_issues_count: counts.openIssues,
    closed_issues_count: counts.closedIssues,
    open_merge_requests_count: counts.openMergeRequests,
    subscribed: view.subscribed,
  }
}
