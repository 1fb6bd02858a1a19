export { jobHandlers } from './deletion.js'
export { listGroups, type ListGroupsInput } from './service.js'
export { createGroup, type GroupAttributes } from './service.js'
// The group settings page acts through the same use cases as the groups API.
export { deleteGroup, transferGroup, updateGroup } from './service.js'
