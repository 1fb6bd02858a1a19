export { presentMilestone, type MilestonePresentOptions } from './present.js'
export { MilestoneIssuablesParams, MilestoneJson } from './schemas.js'
export { listMilestones, showMilestone } from './service.js'
// The milestone pages create, change and count through the same services as the API.
export {
  createMilestone,
  deleteMilestone,
  InvalidMilestone,
  milestoneProgress,
  updateMilestone,
  type MilestoneProgress,
} from './service.js'
