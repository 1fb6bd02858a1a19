import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { PassThrough, type Readable } from 'node:stream'
import { gitEnvironment } from '../repositories/index.js'

/** A CGI request to `git http-backend` for one repository. */
export interface BackendRequest {
  /** The bare repository's directory. */
  directory: string
  method: string
  /** `/info/refs`, `/git-upload-pack` or `/git-receive-pack`. */
  pathInfo: string
  query: string
  headers: Record<string, string | string[] | undefined>
  remoteUser: string | null
  remoteAddr: string
  body: Readable | null
}

/** The backend's answer: status, headers and a body that is still streaming. */
export interface BackendResponse {
  status: number
  headers: [string, string][]
  body: Readable
  /** Settles once the process has exited; true when it exited cleanly. */
  exited: Promise<boolean>
}

/** How long a backend asked to end (SIGTERM) may take before it is killed. */
const TERMINATE_GRACE_MS = 5_000
/** How long a closing server lets backends whose request has arrived finish before it ends them. */
const CLOSE_GRACE_MS = 10_000

/** Every backend of this process: however it exits, none is left behind (git passes SIGTERM on to the service it runs). */
const everyBackend = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of everyBackend) child.kill('SIGTERM')
})

/** Ends a backend with SIGTERM, and with SIGKILL should it still run after the grace period. */
function terminate(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null || child.killed) return
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), TERMINATE_GRACE_MS).unref()
  child.once('exit', () => clearTimeout(timer))
}

/** The backends one server runs, with their request bodies, so that closing the server ends them. */
export class RunningBackends {
  private readonly running = new Map<ChildProcess, { body: Readable | null; gone: Promise<void> }>()

  add(child: ChildProcess, body: Readable | null): void {
    // A backend that failed to start never exits: its error ends it here.
    const gone = new Promise<void>((resolve) => {
      child.once('exit', () => resolve())
      child.once('error', () => resolve())
    })
    this.running.set(child, { body, gone })
    everyBackend.add(child)
    void gone.then(() => {
      this.running.delete(child)
      everyBackend.delete(child)
    })
  }

  /**
   * Drops the requests still arriving, which ends their backends and lets their connections close; gives the others
   * CLOSE_GRACE_MS to finish, then ends them. Settles once all are gone.
   */
  async close(): Promise<void> {
    const running = [...this.running.values()]
    for (const { body } of running) if (body && !body.readableEnded) body.destroy()
    const timer = setTimeout(() => {
      for (const child of this.running.keys()) terminate(child)
    }, CLOSE_GRACE_MS)
    await Promise.all(running.map(({ gone }) => gone))
    clearTimeout(timer)
  }
}

/** The request's body ended before all of it arrived: its caller went away. */
export class RequestAbandoned extends Error {
  constructor() {
    super('the git client went away before its request arrived')
  }
}

function headerValue(headers: BackendRequest['headers'], name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}

/**
 * Runs `git http-backend` as a CGI program (git-http-backend(1)): the request goes to its standard input as it arrives,
 * and its output is split into the CGI header block and the body, which is passed on as the backend writes it.
 * A gzip-encoded request body is the backend's to inflate (HTTP_CONTENT_ENCODING), as git sends large fetches.
 */
export function runHttpBackend(request: BackendRequest, backends: RunningBackends): Promise<BackendResponse> {
  if (request.body?.destroyed && !request.body.readableEnded) return Promise.reject(new RequestAbandoned())
  const env: Record<string, string> = {
    ...gitEnvironment(),
    GIT_PROJECT_ROOT: path.dirname(request.directory),
    PATH_INFO: `/${path.basename(request.directory)}${request.pathInfo}`,
    PATH_TRANSLATED: `${request.directory}${request.pathInfo}`,
    GIT_HTTP_EXPORT_ALL: '1',
    // Pushing is refused by the backend for anonymous callers unless enabled; access was checked before.
    GIT_HTTP_RECEIVE_PACK: '1',
    GATEWAY_INTERFACE: 'CGI/1.1',
    REQUEST_METHOD: request.method,
    QUERY_STRING: request.query,
    REMOTE_ADDR: request.remoteAddr,
  }
  if (request.remoteUser) env.REMOTE_USER = request.remoteUser
  const contentType = headerValue(request.headers, 'content-type')
  if (contentType) env.CONTENT_TYPE = contentType
  const contentLength = headerValue(request.headers, 'content-length')
  if (contentLength) env.CONTENT_LENGTH = contentLength
  const encoding = headerValue(request.headers, 'content-encoding')
  if (encoding) env.HTTP_CONTENT_ENCODING = encoding
  const protocol = headerValue(request.headers, 'git-protocol')
  if (protocol) env.GIT_PROTOCOL = protocol

  const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] })
  const exited = new Promise<boolean>((resolve) => {
    child.on('close', (code) => resolve(code === 0))
    child.on('error', () => resolve(false))
  })
  backends.add(child, request.body)
  child.stderr.resume()
  child.stdin.on('error', () => {})
  let abandoned = false
  if (request.body) {
    const body = request.body
    // git http-backend spins forever on a body shorter than CONTENT_LENGTH, and waits forever on one never finished:
    // a body that closes before it has all arrived (its caller went away) ends the backend.
    body.once('close', () => {
      if (body.readableEnded) return
      abandoned = true
      terminate(child)
    })
    body.pipe(child.stdin)
  } else child.stdin.end()

  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0)
    const body = new PassThrough()
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk])
      const end = head.indexOf('\r\n\r\n')
      const endLf = head.indexOf('\n\n')
      const [at, length] = end >= 0 && (endLf < 0 || end < endLf) ? [end, 4] : [endLf, 2]
      if (at < 0) return
      child.stdout.off('data', onData)
      child.stdout.off('end', onEnd)
      const headers: [string, string][] = []
      let status = 200
      for (const line of head.subarray(0, at).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':')
        if (colon <= 0) continue
        const name = line.slice(0, colon).trim()
        const value = line.slice(colon + 1).trim()
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500
        else headers.push([name, value])
      }
      body.write(head.subarray(at + length))
      child.stdout.pipe(body)
      resolve({ status, headers, body, exited })
    }
    const onEnd = () => reject(abandoned ? new RequestAbandoned() : new Error('git http-backend ended without headers'))
    child.stdout.on('data', onData)
    child.stdout.on('end', onEnd)
    child.on('error', reject)
  })
}
