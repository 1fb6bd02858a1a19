import type { Db } from '../../db/index.js'
import type { LabelRow, NamespaceRow, ProjectRow } from '../../db/schema.js'
import { findAvailableLabelsByTitles, insertProjectLabelOnce, replaceLabelLinks, type LabelledType } from './store.js'

export { textColorFor } from './color.js'
export { canAdminLabels } from './policy.js'
export { renderDescriptionHtml } from './text.js'

/** The colour of labels created without one (GL Label::DEFAULT_COLOR). */
export const DEFAULT_LABEL_COLOR = '#6699cc'

/** The groups whose labels a project in `namespace` may use: every group from the root down to its own. */
export function ancestorGroupIds(namespace: NamespaceRow): number[] {
  if (namespace.kind !== 'group') return []
  return namespace.traversal_ids
    .split('/')
    .filter((part) => part !== '')
    .map(Number)
}

/** Labels available to the project with one of these exact titles; the project's own win over a group's of the same title. */
export async function findLabelsByTitles(
  db: Db,
  project: ProjectRow,
  namespace: NamespaceRow,
  titles: readonly string[],
): Promise<LabelRow[]> {
  const rows = await findAvailableLabelsByTitles(db, project.id, ancestorGroupIds(namespace), titles)
  const byTitle = new Map<string, LabelRow>()
  for (const row of rows) if (!byTitle.has(row.title) || row.project_id !== null) byTitle.set(row.title, row)
  return titles.flatMap((title) => byTitle.get(title) ?? [])
}

/**
 * GL Labels::FindOrCreateService for `labels=` on issues and merge requests: titles that name no available label
 * become new project labels when `mayCreate` (the caller may admin labels); otherwise they are skipped.
 */
export async function findOrCreateLabelsByTitles(
  trx: Db,
  project: ProjectRow,
  namespace: NamespaceRow,
  titles: readonly string[],
  options: { mayCreate: boolean; at: Date },
): Promise<LabelRow[]> {
  const unique = [...new Set(titles)]
  const found = await findLabelsByTitles(trx, project, namespace, unique)
  if (!options.mayCreate) return found
  const known = new Set(found.map((label) => label.title))
  const at = options.at.toISOString()
  for (const title of unique) {
    if (known.has(title)) continue
    found.push(
      await insertProjectLabelOnce(trx, { title, color: DEFAULT_LABEL_COLOR, project_id: project.id, created_at: at, updated_at: at }),
    )
  }
  return found
}

/** Puts labels on an issue or merge request and takes others off; call it inside the transaction of the change. */
export async function relabel(
  trx: Db,
  labelled: { type: LabelledType; id: number },
  change: { add: readonly number[]; remove: readonly number[] },
): Promise<void> {
  await replaceLabelLinks(trx, labelled.type, labelled.id, change.add, change.remove)
}

// The labels page lists them as the API does.
export { listLabels, type LabelParent, type LabelView } from './service.js'
export {
  createLabel,
  deleteLabel,
  listLabelsByPriority,
  prioritizeLabels,
  showLabel,
  subscribeToLabel,
  unprioritizeLabel,
  updateLabel,
} from './service.js'
