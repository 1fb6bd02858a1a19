export { insertMember } from './store.js'
