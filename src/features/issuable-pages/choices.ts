import type { Context } from '../../core/context.js'
import { Forbidden } from '../../core/errors.js'
import type { LabelRow, MilestoneRow, UserRow } from '../../db/schema.js'
import { canReadMilestones, type LoadedProject } from '../access/index.js'
import { listLabels } from '../labels/index.js'
import { listAllMembers } from '../members/index.js'
import { listMilestones } from '../milestones/index.js'

// What the issue and merge request forms and filters offer to choose from: the labels the project may use (its own
// and its groups'), its milestones, and the people who may be assigned or asked to review (its members, direct and
// inherited).

/** The most choices a list offers; GitLab's dropdowns search beyond them. */
const MAX_CHOICES = 200

/** The labels available to the project, by title. */
export async function labelChoices(ctx: Context, loaded: LoadedProject): Promise<LabelRow[]> {
  const { page } = await listLabels(
    ctx,
    { kind: 'project', loaded },
    { includeAncestorGroups: true, withCounts: false, page: 1, perPage: MAX_CHOICES },
  )
  return [...page.rows]
}

/** The project's milestones, open ones first (none for a caller who may not read them). */
export async function milestoneChoices(ctx: Context, loaded: LoadedProject): Promise<MilestoneRow[]> {
  if (!canReadMilestones(loaded.access, loaded.project)) return []
  const page = await listMilestones(ctx, loaded, {
    state: null,
    iids: null,
    title: null,
    search: null,
    searchTitle: null,
    updatedBefore: null,
    updatedAfter: null,
    page: 1,
    perPage: MAX_CHOICES,
  })
  return [...page.rows].sort((a, b) => Number(a.state !== 'active') - Number(b.state !== 'active') || a.title.localeCompare(b.title))
}

/** The project's active members, direct and inherited, by name: those who may be assigned or asked to review. */
export async function peopleChoices(ctx: Context, loaded: LoadedProject): Promise<UserRow[]> {
  try {
    const { views } = await listAllMembers(ctx, { kind: 'project', ...loaded }, { showSeatInfo: false, page: 1, perPage: MAX_CHOICES })
    return views
      .map((view) => view.user)
      .filter((user) => user.state === 'active' && user.bot !== 1)
      .sort((a, b) => a.name.localeCompare(b.name))
  } catch (error) {
    if (error instanceof Forbidden) return []
    throw error
  }
}
