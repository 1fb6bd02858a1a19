export { presentMilestone, type MilestonePresentOptions } from './present.js'
export { MilestoneIssuablesParams, MilestoneJson } from './schemas.js'
export { showMilestone } from './service.js'
