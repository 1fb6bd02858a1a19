import { Type } from '@sinclair/typebox'
import { defineJob } from '../../jobs/index.js'

/** Removes events past the retention period (spec § Limits: 3 years); runs hourly. */
export const RemoveExpiredEvents = defineJob('events.remove-expired', Type.Object({}))
