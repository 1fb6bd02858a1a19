export { presentMilestone, type MilestonePresentOptions } from './present.js'
export { MilestoneIssuablesParams, MilestoneJson } from './schemas.js'
export { listMilestones, showMilestone } from './service.js'
