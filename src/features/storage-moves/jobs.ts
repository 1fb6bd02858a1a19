import { Type } from '@sinclair/typebox'
import { defineJob } from '../../jobs/index.js'

/** Copies a container's repositories to the move's destination, switches the container to it and removes the source. */
export const MoveRepositoryStorage = defineJob('storage-moves.move', Type.Object({ moveId: Type.Integer() }))

/** Schedules a move for every container of one type on the source storage (GL *ScheduleBulkRepositoryShardMovesWorker). */
export const ScheduleBulkStorageMoves = defineJob(
  'storage-moves.schedule-bulk',
  Type.Object({
    containerType: Type.Union([Type.Literal('project'), Type.Literal('snippet'), Type.Literal('group')]),
    sourceStorageName: Type.String(),
    destinationStorageName: Type.Union([Type.String(), Type.Null()]),
  }),
)
