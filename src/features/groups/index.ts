export { jobHandlers } from './deletion.js'
