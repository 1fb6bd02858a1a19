import fs from 'node:fs'
import { promisify } from 'node:util'

const fdatasync = promisify(fs.fdatasync)

/**
 * Makes committed SQLite transactions durable off the event loop. SQLite runs with `synchronous = NORMAL` in WAL
 * mode, so a commit only hands its pages to the operating system (it survives `kill -9`, not a power cut); then
 * `durable()` waits until the WAL file has been flushed to disk by a sync that began after the commit. The sync runs
 * in libuv's thread pool, and every commit made while one runs shares the next: one flush serves many requests.
 * With `synchronous = FULL` each commit flushed on the event loop, which stalled every request for milliseconds.
 */
export class WalSync {
  private fd: number | null = null
  /** The sync under way, which may have begun before the latest commit. */
  private running: Promise<void> | null = null
  /** The sync that starts when the running one ends, shared by every commit made meanwhile. */
  private next: Promise<void> | null = null

  constructor(
    private readonly walPath: string,
    private readonly sync: (fd: number) => Promise<void> = fdatasync,
  ) {}

  /** Resolves once everything this process committed before the call is on disk. */
  durable(): Promise<void> {
    if (this.next) return this.next
    if (!this.running) return this.start()
    this.next = this.running.then(
      () => this.afterRunning(),
      () => this.afterRunning(),
    )
    return this.next
  }

  private afterRunning() {
    this.next = null
    return this.start()
  }

  private start(): Promise<void> {
    const running = (async () => {
      this.fd ??= fs.openSync(this.walPath, 'r')
      await this.sync(this.fd)
    })()
    this.running = running
    void running.then(
      () => this.finished(running),
      () => this.finished(running),
    )
    return running
  }

  private finished(sync: Promise<void>) {
    if (this.running === sync) this.running = null
  }

  close() {
    if (this.fd !== null) fs.closeSync(this.fd)
    this.fd = null
  }
}
