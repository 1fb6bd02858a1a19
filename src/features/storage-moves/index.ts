import { handle, type JobHandler } from '../../jobs/index.js'
import { MoveRepositoryStorage, ScheduleBulkStorageMoves } from './jobs.js'
import { runStorageMove, scheduleMovesOnStorage } from './service.js'

export { isProjectRepositoryReadOnly, requestProjectStorageMove } from './service.js'
export { beginRepositoryPush } from './pushes.js'

export const jobHandlers: JobHandler[] = [
  handle(MoveRepositoryStorage, (ctx, payload) => runStorageMove(ctx, payload.moveId)),
  handle(ScheduleBulkStorageMoves, (ctx, payload) =>
    scheduleMovesOnStorage(ctx, payload.containerType, payload.sourceStorageName, payload.destinationStorageName),
  ),
]
