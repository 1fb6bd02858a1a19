export { jobHandlers } from './deletion.js'
export { listGroups, type ListGroupsInput } from './service.js'
export { createGroup, type GroupAttributes } from './service.js'
