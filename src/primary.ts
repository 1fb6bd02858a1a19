import cluster, { type Worker } from 'node:cluster'
import type { Config } from './config/index.js'
import { ANNOUNCE, ANNOUNCEMENT, type RelayedAnnouncement } from './core/announcer.js'
import type { Log } from './core/context.js'
import { Link } from './core/link.js'
import { MemoryCounter, serveCounts } from './http/throttle.js'

/**
 * V8's young generation grows to 16 MB per half under load by default; 8 MB keeps a loaded worker about 30 MB smaller
 * at no measurable cost in requests per second (a flag V8 takes only at start, so the workers are started with it).
 */
const WORKER_V8_FLAGS = ['--max-semi-space-size=8']

/**
 * glibc's malloc raises its mmap threshold (up to 32 MB) when start-up frees a large block, then keeps what is freed
 * below it: a fixed 512 KB threshold leaves an idle worker about 12 MB smaller, for a few page faults more on large
 * answers. glibc reads it only at a process's start, so the workers are given it (an operator's own value stands).
 */
const WORKER_ENV = { MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '524288' }

/** The wait before replacing a worker that died, doubled for each that dies young, up to the maximum. */
const RESTART_DELAY_MS = { min: 250, max: 10_000 }
/** A worker that served this long died of something other than its start: the next replacement waits the minimum. */
const YOUNG_MS = 10_000

/**
 * The primary process of `svc serve` with several workers (the database is prepared already). It forks
 * `config.workers` worker processes, which listen on the one port (cluster hands connections round-robin), relays
 * their announcements, keeps their rate-limit counters (without Redis), replaces a worker that dies, and on SIGTERM
 * or SIGINT stops them all (each finishes its requests in flight), then exits. It loads neither the app nor any
 * feature: its memory is the runtime's, the logger's and these few modules'.
 */
export function runPrimary(config: Config, log: Log) {
  const counter = new MemoryCounter()
  const links = new Map<Worker, Link>()
  let stopping = false
  let listened = false
  let exitCode = 0
  let restartDelayMs = RESTART_DELAY_MS.min

  const relay = (from: Worker, announcement: RelayedAnnouncement) =>
    Promise.all(
      [...links].filter(([worker]) => worker !== from).map(([, link]) => link.request(ANNOUNCEMENT, announcement).catch(() => undefined)),
    )

  const fork = () => {
    const worker = cluster.fork(WORKER_ENV)
    const link = new Link(worker)
    links.set(worker, link)
    serveCounts(link, counter)
    link.serve<RelayedAnnouncement>(ANNOUNCE, (announcement) => relay(worker, announcement))
    const startedAt = Date.now()
    worker.once('listening', () => (listened = true))
    worker.once('exit', (code, signal) => {
      links.delete(worker)
      link.close()
      if (stopping) {
        if (links.size === 0) finish()
        return
      }
      if (!listened) {
        // Before any worker listened this is a start that fails (port taken, bad storage): failing again and again helps nobody.
        log.error({ worker: worker.process.pid, code, signal }, 'a worker failed to start; stopping')
        exitCode = 1
        stop('worker failed')
        return
      }
      restartDelayMs = Date.now() - startedAt >= YOUNG_MS ? RESTART_DELAY_MS.min : Math.min(restartDelayMs * 2, RESTART_DELAY_MS.max)
      log.error({ worker: worker.process.pid, code, signal, restartInMs: restartDelayMs }, 'a worker died; replacing it')
      setTimeout(() => stopping || fork(), restartDelayMs)
    })
  }

  const finish = () => {
    log.info('stopped')
    process.exit(exitCode)
  }

  const stop = (reason: string) => {
    if (stopping) return
    stopping = true
    log.info({ signal: reason }, 'shutting down')
    // Each worker stops as a lone `svc serve` does on SIGTERM: its requests in flight finish, then it exits.
    for (const worker of links.keys()) worker.process.kill('SIGTERM')
    if (links.size === 0) finish()
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))

  cluster.setupPrimary({ execArgv: [...process.execArgv, ...WORKER_V8_FLAGS] })
  log.info({ workers: config.workers }, 'starting workers')
  for (let n = 0; n < config.workers; n++) fork()
}
