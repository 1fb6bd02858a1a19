import { jsonArray, keptJson } from '../../http/kept-json.js'
import { serializerFor } from '../../http/route.js'
import { textColorFor } from './color.js'
import { GroupLabelJson, ProjectLabelJson, type PromotedLabelJson } from './schemas.js'
import type { LabelView, PromotedLabelView } from './service.js'
import { renderDescriptionHtml } from './text.js'

/**
 * What a label shows that is rendered from its row, rendered once per row: rows read outside a transaction are kept
 * and shared (db/read-cache.ts), and a changed label is read as a new row, so its old rendering is never found again.
 */
const renderings = new WeakMap<LabelView['label'], { descriptionHtml: string; textColor: string }>()

function renderingOf(label: LabelView['label']) {
  let rendering = renderings.get(label)
  if (!rendering) {
    rendering = { descriptionHtml: renderDescriptionHtml(label.description), textColor: textColorFor(label.color) }
    renderings.set(label, rendering)
  }
  return rendering
}

// Object literals in entity order rather than spreads: lists present every label, and spreads cost several times more.

/** GL Entities::GroupLabel; the counts only when they were asked for. */
export function presentGroupLabel(view: LabelView): GroupLabelJson {
  const { label, counts } = view
  const { descriptionHtml, textColor } = renderingOf(label)
  if (!counts) {
    return {
      id: label.id,
      name: label.title,
      color: label.color,
      description: label.description,
      description_html: descriptionHtml,
      text_color: textColor,
      subscribed: view.subscribed,
    }
  }
  return {
    id: label.id,
    name: label.title,
    color: label.color,
    description: label.description,
    description_html: descriptionHtml,
    text_color: textColor,
    open_issues_count: counts.openIssues,
    closed_issues_count: counts.closedIssues,
    open_merge_requests_count: counts.openMergeRequests,
    subscribed: view.subscribed,
  }
}

/** GL Entities::ProjectLabel: the group label entity plus the priority in this project and whether the label is the project's own. */
export function presentProjectLabel(view: LabelView): ProjectLabelJson {
  const { label, counts } = view
  const { descriptionHtml, textColor } = renderingOf(label)
  if (!counts) {
    return {
      id: label.id,
      name: label.title,
      color: label.color,
      description: label.description,
      description_html: descriptionHtml,
      text_color: textColor,
      subscribed: view.subscribed,
      priority: view.priority,
      is_project_label: label.project_id !== null,
    }
  }
  return {
    id: label.id,
    name: label.title,
    color: label.color,
    description: label.description,
    description_html: descriptionHtml,
    text_color: textColor,
    open_issues_count: counts.openIssues,
    closed_issues_count: counts.closedIssues,
    open_merge_requests_count: counts.openMergeRequests,
    subscribed: view.subscribed,
    priority: view.priority,
    is_project_label: label.project_id !== null,
  }
}

/** What a label's entity shows besides its row, as a key of its kept JSON. */
function viewKey(view: LabelView): string {
  const { counts } = view
  return `${view.subscribed} ${view.priority} ${counts ? `${counts.openIssues} ${counts.closedIssues} ${counts.openMergeRequests}` : '-'}`
}

/** A page of project labels as JSON, each kept with its row (http/kept-json.ts): lists show the same labels again and again. */
export function projectLabelsJson(views: readonly LabelView[]): Buffer {
  const serialize = serializerFor(ProjectLabelJson)
  return jsonArray(views.map((view) => keptJson(view.label, viewKey(view), () => serialize(presentProjectLabel(view)))))
}

/** A page of group labels as JSON, likewise. */
export function groupLabelsJson(views: readonly LabelView[]): Buffer {
  const serialize = serializerFor(GroupLabelJson)
  return jsonArray(views.map((view) => keptJson(view.label, viewKey(view), () => serialize(presentGroupLabel(view)))))
}

export function presentPromotedLabel(view: PromotedLabelView): PromotedLabelJson {
  const { label, counts } = view
  return {
    id: label.id,
    name: label.title,
    color: label.color,
    description: label.description,
    description_html: renderingOf(label).descriptionHtml,
    open_issues_count: counts.openIssues,
    closed_issues_count: counts.closedIssues,
    open_merge_requests_count: counts.openMergeRequests,
    subscribed: view.subscribed,
  }
}
