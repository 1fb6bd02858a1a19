import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { EventEmitter } from 'node:events'
import net from 'node:net'
import { PassThrough, type Readable, type Writable } from 'node:stream'

/**
 * A program svc runs (git): what callers use of Node's ChildProcess. Events as ChildProcess's: 'spawn', 'error',
 * 'exit' (code, signal) and 'close' (code, signal) once its output has ended too.
 */
export interface Process extends EventEmitter {
  readonly stdin: Writable | null
  readonly stdout: Readable | null
  readonly stderr: Readable | null
  readonly exitCode: number | null
  readonly signalCode: NodeJS.Signals | null
  /** Whether kill() was called. */
  readonly killed: boolean
  kill(signal?: NodeJS.Signals): boolean
  on(event: 'exit' | 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): this
  on(event: 'spawn', listener: () => void): this
  once(event: 'exit' | 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this
  once(event: 'error', listener: (error: NodeJS.ErrnoException) => void): this
  once(event: 'spawn', listener: () => void): this
}

export interface ProcessOptions {
  env: NodeJS.ProcessEnv
  cwd?: string
  /** Standard input, output and error: each a pipe (the default) or ignored. */
  stdio?: readonly ['pipe' | 'ignore', 'pipe' | 'ignore', 'pipe' | 'ignore']
}

/** What a process started for a worker may write to standard error that is kept and handed back when it exits. */
const STDERR_KEPT = 64 * 1024

/**
 * Starts `command`. In a worker process of `svc serve`, the primary process starts it (see serveProcesses): Node
 * forks the whole calling process to start a program and waits until the program has started, which blocks a
 * worker's event loop for 5–20 ms per git process under load (a worker holds 100 MB and more, the primary a tenth
 * of it), so every request the worker serves would wait too.
 */
export function startProcess(command: string, args: readonly string[], options: ProcessOptions): Process {
  const stdio = options.stdio ?? ['pipe', 'pipe', 'pipe']
  if (starter) return new StartedByPrimary(starter, command, args, { ...options, stdio })
  return spawn(command, args, { env: options.env, cwd: options.cwd, stdio: [...stdio] })
}

/** The channel to the primary process, in a worker (Node's `process` there). */
export interface PrimaryChannel {
  send(message: ProcessMessage, handle: net.Socket | undefined, options: undefined, callback: (error: Error | null) => void): boolean
  on(event: 'message', listener: (message: unknown) => void): unknown
}

/** The channel to one worker, in the primary (a cluster Worker). */
export interface WorkerChannel {
  send(message: ProcessMessage, handle: undefined, options: undefined, callback: (error: Error | null) => void): boolean
  on(event: 'message', listener: (message: unknown, handle?: unknown) => void): unknown
  on(event: 'exit', listener: () => void): unknown
}

type ProcessMessage =
  | { process: 'start'; id: number; command: string; args: readonly string[]; cwd?: string; env: NodeJS.ProcessEnv; stderr: boolean }
  | { process: 'started'; id: number }
  | { process: 'failed'; id: number; code: string; message: string }
  | { process: 'exited'; id: number; code: number | null; signal: NodeJS.Signals | null; stderr: string }
  | { process: 'kill'; id: number; signal: NodeJS.Signals }

let starter: Starter | null = null

/** From now on this worker's processes are started by the primary at the other end of `primary`. */
export function startProcessesThrough(primary: PrimaryChannel) {
  starter = new Starter(primary)
}

/**
 * Starts the programs `worker` asks for. Each arrives with one end of a socket pair the worker made, which becomes
 * the program's standard input and output: what the program writes goes straight to the worker, never through here.
 */
export function serveProcesses(worker: WorkerChannel) {
  const running = new Map<number, ChildProcess>()
  // A worker that has gone away is told nothing: the error goes to the callback rather than crashing this process.
  const tell = (message: ProcessMessage) => worker.send(message, undefined, undefined, () => {})
  worker.on('message', (message, handle) => {
    const asked = message as ProcessMessage
    if (typeof asked !== 'object' || asked === null || !('process' in asked)) return
    if (asked.process === 'kill') {
      running.get(asked.id)?.kill(asked.signal)
      return
    }
    if (asked.process !== 'start' || !(handle instanceof net.Socket)) return
    const { id } = asked
    const child = spawn(asked.command, [...asked.args], {
      env: asked.env,
      cwd: asked.cwd,
      stdio: [handle, handle, asked.stderr ? 'pipe' : 'ignore'],
    })
    // The program holds its own copy now. This one goes before this turn of the loop ends, so that it never reads
    // what is meant for the program.
    handle.destroy()
    running.set(id, child)
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_KEPT) stderr += chunk.toString('utf8')
    })
    child.once('spawn', () => tell({ process: 'started', id }))
    child.once('error', (error: NodeJS.ErrnoException) => {
      running.delete(id)
      tell({ process: 'failed', id, code: error.code ?? 'ERROR', message: error.message })
    })
    child.once('close', (code, signal) => {
      if (!running.delete(id)) return
      tell({ process: 'exited', id, code, signal, stderr })
    })
  })
  // A worker that is gone reads nothing more: what it started ends as its socket closes, unless it waits on nothing.
  worker.on('exit', () => {
    for (const child of running.values()) child.kill()
    running.clear()
  })
}

/** A worker's side: socket pairs to hand out, and the processes the primary started for it, by id. */
class Starter {
  private nextId = 1
  private readonly started = new Map<number, StartedByPrimary>()
  private readonly path = `\0svc-processes-${process.pid}-${randomBytes(6).toString('hex')}`
  private readonly server: net.Server
  private readonly listening: Promise<void>
  /** Pairs are made one at a time, so the connection the server accepts next is the one being made. */
  private pairing: Promise<unknown> = Promise.resolve()
  private accepted: ((socket: net.Socket) => void) | null = null

  constructor(private readonly primary: PrimaryChannel) {
    this.server = net.createServer((socket) => {
      const accept = this.accepted
      this.accepted = null
      if (accept) accept(socket)
      else socket.destroy()
    })
    this.server.unref()
    this.listening = new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(this.path, () => resolve())
    })
    primary.on('message', (message) => this.receive(message as ProcessMessage))
  }

  start(
    child: StartedByPrimary,
    command: string,
    args: readonly string[],
    options: ProcessOptions & { stdio: NonNullable<ProcessOptions['stdio']> },
  ) {
    const id = this.nextId++
    this.started.set(id, child)
    const failed = (error: Error) => this.settle(id, { process: 'failed', id, code: 'ERROR', message: error.message })
    this.pair().then(([ours, theirs]) => {
      child.attach(ours)
      const message: ProcessMessage = {
        process: 'start',
        id,
        command,
        args,
        cwd: options.cwd,
        env: options.env,
        stderr: options.stdio[2] === 'pipe',
      }
      this.send(message, theirs, failed)
    }, failed)
    return id
  }

  kill(id: number, signal: NodeJS.Signals) {
    this.send({ process: 'kill', id, signal }, undefined, () => {})
  }

  // A closed channel (the primary is gone, and this worker with it) is reported to `failed`, not thrown.
  private send(message: ProcessMessage, handle: net.Socket | undefined, failed: (error: Error) => void) {
    try {
      this.primary.send(message, handle, undefined, (error) => error && failed(error))
    } catch (error) {
      failed(error as Error)
    }
  }

  private pair(): Promise<[net.Socket, net.Socket]> {
    const made = this.pairing.then(async () => {
      await this.listening
      const accepted = new Promise<net.Socket>((resolve) => (this.accepted = resolve))
      const ours = net.connect(this.path)
      await new Promise<void>((resolve, reject) => {
        ours.once('connect', resolve)
        ours.once('error', reject)
      })
      return [ours, await accepted] as [net.Socket, net.Socket]
    })
    this.pairing = made.catch(() => undefined)
    return made
  }

  private receive(message: ProcessMessage) {
    if (typeof message !== 'object' || message === null || !('process' in message)) return
    if (message.process === 'started') this.started.get(message.id)?.started()
    else if (message.process === 'failed' || message.process === 'exited') this.settle(message.id, message)
  }

  private settle(id: number, message: Extract<ProcessMessage, { process: 'failed' | 'exited' }>) {
    const child = this.started.get(id)
    if (!child) return
    this.started.delete(id)
    if (message.process === 'failed') child.failed(Object.assign(new Error(message.message), { code: message.code }))
    else child.exited(message.code, message.signal, message.stderr)
  }
}

/**
 * A process the primary started for this worker. Its standard input and output are one socket, which the streams
 * here lead to once it has started: what is written before waits.
 */
class StartedByPrimary extends EventEmitter implements Process {
  readonly stdin: PassThrough | null
  readonly stdout: PassThrough | null
  readonly stderr: PassThrough | null
  exitCode: number | null = null
  signalCode: NodeJS.Signals | null = null
  killed = false
  private readonly id: number
  private socket: net.Socket | null = null
  private running = false
  private done = false
  private closed = false
  /** A kill asked for before the process started, sent once it has. */
  private killWith: NodeJS.Signals | null = null

  constructor(
    private readonly starter: Starter,
    command: string,
    args: readonly string[],
    options: ProcessOptions & { stdio: NonNullable<ProcessOptions['stdio']> },
  ) {
    super()
    const [input, output, errors] = options.stdio
    this.stdin = input === 'pipe' ? new PassThrough() : null
    this.stdout = output === 'pipe' ? new PassThrough() : null
    this.stderr = errors === 'pipe' ? new PassThrough() : null
    // A caller done reading ends the process's output, as closing a pipe's reading end does.
    this.stdout?.once('close', () => {
      if (!this.stdout?.readableEnded) this.socket?.destroy()
      this.closeWhenDone()
    })
    this.id = starter.start(this, command, args, options)
  }

  attach(socket: net.Socket) {
    this.socket = socket
    socket.on('error', () => {})
    socket.once('close', () => this.closeWhenDone())
    if (this.stdout?.destroyed) socket.destroy()
  }

  started() {
    const socket = this.socket!
    if (this.stdin) this.stdin.pipe(socket)
    else socket.end()
    if (this.stdout && !this.stdout.destroyed) socket.pipe(this.stdout)
    else socket.resume()
    this.running = true
    this.emit('spawn')
    if (this.killWith) this.starter.kill(this.id, this.killWith)
  }

  failed(error: Error) {
    this.done = true
    this.socket?.destroy()
    this.stdout?.destroy()
    this.stderr?.destroy()
    this.emit('error', error)
  }

  exited(code: number | null, signal: NodeJS.Signals | null, stderr: string) {
    this.exitCode = code
    this.signalCode = signal
    this.done = true
    this.stderr?.end(stderr)
    this.emit('exit', code, signal)
    this.closeWhenDone()
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.done) return false
    this.killed = true
    if (this.running) this.starter.kill(this.id, signal)
    else this.killWith = signal
    return true
  }

  /** 'close' comes once the process has exited and its output has all been read (or thrown away). */
  private closeWhenDone() {
    if (this.closed || (this.exitCode === null && this.signalCode === null)) return
    if ((this.socket && !this.socket.destroyed) || (this.stdout && !this.stdout.destroyed)) return
    this.closed = true
    this.emit('close', this.exitCode, this.signalCode)
  }
}
