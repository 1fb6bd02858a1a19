export { jobHandlers } from './deletion.js'
export { listGroups, type ListGroupsInput } from './service.js'
