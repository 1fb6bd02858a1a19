import type { Db } from '../../db/index.js'
import type { LabelRow, MilestoneRow, UserRow } from '../../db/schema.js'
import { findAssigneesOf, findLabelsOf, findMilestonesByIds, findUserNotesCounts, hasNoteBy, type IssuableType } from './store.js'

// What the Issue and MergeRequest entities show of each issuable's labels, assignees, milestone and comments.

export interface IssuableParts {
  labels: LabelRow[]
  assignees: UserRow[]
  milestone: MilestoneRow | null
  userNotesCount: number
}

/** The parts of a page of issues or merge requests, by id, in four queries. */
export async function issuablePartsOf(
  db: Db,
  type: IssuableType,
  rows: readonly { id: number; milestone_id: number | null }[],
): Promise<Map<number, IssuableParts>> {
  const ids = rows.map((row) => row.id)
  const [labels, assignees, notes, milestones] = await Promise.all([
    findLabelsOf(db, type, ids),
    findAssigneesOf(db, type, ids),
    findUserNotesCounts(db, type, ids),
    findMilestonesByIds(db, [...new Set(rows.flatMap((row) => (row.milestone_id === null ? [] : [row.milestone_id])))]),
  ])
  const milestoneById = new Map(milestones.map((milestone) => [milestone.id, milestone]))
  return new Map(
    rows.map((row) => [
      row.id,
      {
        labels: labels.get(row.id) ?? [],
        assignees: assignees.get(row.id) ?? [],
        milestone: row.milestone_id === null ? null : (milestoneById.get(row.milestone_id) ?? null),
        userNotesCount: notes.get(row.id) ?? 0,
      },
    ]),
  )
}

/** An issue's or merge request's labels and assignees as they are now; read them inside the transaction that changes them. */
export async function currentLabelsAndAssignees(
  trx: Db,
  type: IssuableType,
  id: number,
): Promise<{ labels: LabelRow[]; assignees: UserRow[] }> {
  const labels = (await findLabelsOf(trx, type, [id])).get(id) ?? []
  const assignees = (await findAssigneesOf(trx, type, [id])).get(id) ?? []
  return { labels, assignees }
}

/** Whether the user commented on the issue or merge request (a participant, so subscribed by default). */
export function hasCommented(db: Db, type: IssuableType, id: number, userId: number): Promise<boolean> {
  return hasNoteBy(db, type, id, userId)
}
