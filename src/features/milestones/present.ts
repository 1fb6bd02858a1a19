import type { MilestoneRow } from '../../db/schema.js'
import type { MilestoneJson } from './schemas.js'

export interface MilestonePresentOptions {
  externalUrl: string
  /** Where the project lives, for web_url. */
  projectFullPath: string
  /** Today, 'YYYY-MM-DD': a milestone is expired once its due date has passed. */
  today: string
}

/** GL Entities::Milestone for a project milestone. */
export function presentMilestone(milestone: MilestoneRow, options: MilestonePresentOptions): MilestoneJson {
  return {
    id: milestone.id,
    iid: milestone.iid,
    project_id: milestone.project_id,
    title: milestone.title,
    description: milestone.description,
    state: milestone.state,
    created_at: milestone.created_at,
    updated_at: milestone.updated_at,
    due_date: milestone.due_date,
    start_date: milestone.start_date,
    expired: milestone.due_date !== null && milestone.due_date < options.today,
    web_url: `${options.externalUrl}/${options.projectFullPath}/-/milestones/${milestone.iid}`,
  }
}
