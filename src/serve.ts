import { buildApp, type AppDeps } from './app.js'
import type { Config } from './config/index.js'
import { ClusterAnnouncer } from './core/announcer.js'
import { anonymous } from './core/caller.js'
import type { Log } from './core/context.js'
import { Link, type Port } from './core/link.js'
import { openDatabase, type DatabaseHandle } from './db/index.js'
import { PrimaryCounter } from './http/throttle.js'
import { jobHandlers, periodicJobs } from './background.js'
import { JobWorker } from './jobs/index.js'
import { buildContext } from './build-context.js'
import { endOfStartup } from './startup-heap.js'

/**
 * Serves HTTP and runs a job worker over a prepared database until SIGTERM or SIGINT, then finishes the requests in
 * flight and exits 0: the whole of `svc serve` with SVC_WORKERS=1, or one of its worker processes.
 */
export async function serve(config: Config, log: Log, database: DatabaseHandle, deps: Pick<AppDeps, 'announcer' | 'counter'> = {}) {
  const redis = config.redisUrl
    ? new (await import('ioredis')).Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 })
    : null
  if (redis) await redis.connect()
  const app = await buildApp({ config, database, redis, ...deps })
  await app.fastify.listen({ host: config.host, port: config.port })
  // Every node and every worker process runs a worker over the shared jobs table (DESIGN.md § Jobs); each feature
  // says what runs its jobs. Each job acts with the app's settings as they are when it starts, as requests do.
  const worker = new JobWorker({
    db: database.db,
    handlers: jobHandlers,
    periodic: periodicJobs,
    context: () => buildContext(app.parts, anonymous, log),
    leaseMs: config.jobLeaseMs,
    log,
  })
  worker.start()
  endOfStartup()

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info({ signal }, 'shutting down')
    // In-flight requests finish; new connections are refused; then storage closes.
    await app.close()
    await worker.stop()
    await database.close()
    if (redis) await redis.quit()
    log.info('stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

/**
 * One worker process of `svc serve` (see primary.ts): the primary prepared the database; without Redis, it relays
 * this worker's announcements and keeps its rate-limit counters. Node's cluster module ends a worker at once when
 * its channel to the primary closes (the primary died, even by kill -9), which frees the port for a new start.
 */
export async function serveWorker(config: Config, log: Log) {
  const primary = new Link(process as unknown as Port)
  const database = await openDatabase(config)
  await serve(config, log, database, { announcer: new ClusterAnnouncer(primary, log), counter: new PrimaryCounter(primary) })
}
