import type { JobHandler } from '../../jobs/index.js'

export const jobHandlers: JobHandler[] = []
