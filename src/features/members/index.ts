export { insertMember, replaceWithOwnerMember } from './store.js'
