/** One end of a process's IPC channel: a cluster worker's `process`, or the primary's handle on one worker. */
export interface Port {
  send(message: LinkMessage, sendHandle: undefined, options: undefined, callback: (error: Error | null) => void): boolean
  on(event: 'message', listener: (message: unknown) => void): unknown
}

type LinkMessage =
  | { svc: 'ask'; id: number; kind: string; body: unknown }
  | { svc: 'answer'; id: number; value: unknown }
  | { svc: 'answer'; id: number; error: string }

type Handler = (body: never) => unknown

/** How long a question waits for its answer: a stuck or dying process must not hold requests up. */
const ANSWER_TIMEOUT_MS = 2000

/**
 * Questions and answers between the primary process and one worker: either end asks (`request`) what the other
 * `serve`s, and each answer finds its question by id.
 */
export class Link {
  private nextId = 1
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void; timer: NodeJS.Timeout }>()
  private readonly handlers = new Map<string, Handler>()

  constructor(private readonly port: Port) {
    port.on('message', (message) => this.receive(message as LinkMessage))
  }

  /** Asks the other end; rejects when it cannot be reached, refuses, or does not answer in time. */
  request(kind: string, body: unknown): Promise<unknown> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.settle(id, { error: `no answer to ${kind}` }), ANSWER_TIMEOUT_MS)
      timer.unref()
      this.waiting.set(id, { resolve, reject, timer })
      this.send({ svc: 'ask', id, kind, body }, (error) => this.settle(id, { error: error.message }))
    })
  }

  /** Answers the other end's questions of `kind` with what `handler` returns. */
  serve<B>(kind: string, handler: (body: B) => unknown) {
    this.handlers.set(kind, handler as Handler)
  }

  /** Fails every question still waiting: the other end is gone. */
  close() {
    for (const id of [...this.waiting.keys()]) this.settle(id, { error: 'the other process is gone' })
  }

  private receive(message: LinkMessage) {
    if (typeof message !== 'object' || message === null || !('svc' in message)) return
    if (message.svc === 'answer') {
      this.settle(message.id, message)
      return
    }
    const handler = this.handlers.get(message.kind)
    const id = message.id
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`nothing answers ${message.kind}`)
        return handler(message.body as never)
      })
      .then(
        (value) => this.send({ svc: 'answer', id, value: value ?? null }),
        (error: unknown) => this.send({ svc: 'answer', id, error: error instanceof Error ? error.message : String(error) }),
      )
  }

  private settle(id: number, outcome: { value: unknown } | { error: string }) {
    const waiting = this.waiting.get(id)
    if (!waiting) return
    this.waiting.delete(id)
    clearTimeout(waiting.timer)
    if ('error' in outcome) waiting.reject(new Error(outcome.error))
    else waiting.resolve(outcome.value)
  }

  // A closed channel is reported to the callback rather than thrown or emitted as an unhandled 'error'.
  private send(message: LinkMessage, failed: (error: Error) => void = () => {}) {
    try {
      this.port.send(message, undefined, undefined, (error) => {
        if (error) failed(error)
      })
    } catch (error) {
      failed(error instanceof Error ? error : new Error(String(error)))
    }
  }
}
