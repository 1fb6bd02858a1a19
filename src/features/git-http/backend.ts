import { PassThrough, Readable, type Writable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import { startProcess, type Process } from '../../core/processes.js'
import { gitEnvironment } from '../repositories/index.js'

/** A smart HTTP request for one repository: its ref advertisement (`info/refs`) or the exchange itself (a POST). */
export interface BackendRequest {
  /** The bare repository's directory. */
  directory: string
  service: 'git-upload-pack' | 'git-receive-pack'
  /** True for `info/refs`: only the refs and capabilities. */
  advertise: boolean
  headers: Record<string, string | string[] | undefined>
  remoteUser: string | null
  remoteAddr: string
  body: Readable | null
  /** More environment for the service, e.g. the hooks that judge a push. */
  env?: Record<string, string>
  /**
   * Called with the request's first section (a push's commands, up to the first flush packet) before the service
   * reads any of it; the service waits for the answer.
   */
  beforeCommands?: (section: Buffer) => Promise<void>
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

/** Every backend of this process: however it exits, none is left behind. */
const everyBackend = new Set<Process>()
process.on('exit', () => {
  for (const child of everyBackend) child.kill('SIGTERM')
})

/** Ends a backend with SIGTERM, and with SIGKILL should it still run after the grace period. */
function terminate(child: Process): void {
  if (child.exitCode !== null || child.signalCode !== null || child.killed) return
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), TERMINATE_GRACE_MS).unref()
  child.once('exit', () => clearTimeout(timer))
}

/** The backends one server runs, with their request bodies, so that closing the server ends them. */
export class RunningBackends {
  private readonly running = new Map<Process, { body: Readable | null; gone: Promise<void> }>()

  add(child: Process, body: Readable | null): void {
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

// git-http-backend(1) hdr_nocache: every smart HTTP answer says not to keep it.
const NO_CACHE: [string, string][] = [
  ['Expires', 'Fri, 01 Jan 1980 00:00:00 GMT'],
  ['Pragma', 'no-cache'],
  ['Cache-Control', 'no-cache, max-age=0, must-revalidate'],
]

/** pkt-line framing (gitprotocol-common(5)): four hex digits of length, the length included. */
function packetLine(text: string): Buffer {
  return Buffer.from(`${(Buffer.byteLength(text) + 4).toString(16).padStart(4, '0')}${text}`)
}

/** The highest `version=N` of a Git-Protocol header, as git's determine_protocol_version_server reads GIT_PROTOCOL. */
function protocolVersion(protocol: string | undefined): number {
  let version = 0
  for (const item of (protocol ?? '').split(':')) {
    const match = /^version=(\d+)$/.exec(item)
    if (match) version = Math.max(version, Number(match[1]))
  }
  return version
}

/**
 * Git options of the services svc runs. GitLab's Gitaly sets the same on receive-pack
 * (internal/git/command_description.go): no `gc --auto` after each push, as svc schedules the repository's
 * housekeeping itself; and no refs of alternates for the connectivity check, where the only alternate is the
 * repository itself (a push's objects wait in a quarantine directory) and `--all` lists its refs already.
 */
const SERVICE_CONFIG: Record<BackendRequest['service'], string[]> = {
  // Gitaly hides the refs svc keeps for itself: merge request versions' commits (refs/keep-around/) and temporary ones.
  'git-upload-pack': ['-c', 'uploadpack.hideRefs=refs/keep-around/', '-c', 'uploadpack.hideRefs=refs/tmp/'],
  'git-receive-pack': [
    '-c',
    'receive.autogc=false',
    '-c',
    'core.alternateRefsCommand=exit 0 #',
    // Pushes cannot touch them either, nor the merge requests' head refs (a `git push --mirror` would delete them).
    '-c',
    'receive.hideRefs=refs/keep-around/',
    '-c',
    'receive.hideRefs=refs/merge-requests/',
    '-c',
    'receive.hideRefs=refs/tmp/',
  ],
}

/** Beyond this much a first section is not waited for whole: its service reads it as it comes. */
const MAX_HELD_BYTES = 16 * 1024 * 1024
/** git-http-backend(1) http.maxRequestBuffer: the most of an upload-pack request it keeps before passing it on. */
const MAX_REQUEST_BUFFER_BYTES = 10 * 1024 * 1024

/**
 * Feeds `source` to `target`. With `hold`, the first section (up to a flush packet) waits for `hold` first. With
 * `whole`, nothing goes before all has arrived, as git-http-backend(1) buffers an upload-pack request: upload-pack
 * answers as soon as it reads something it refuses, and would end before the request has.
 */
function feed(source: Readable, target: Writable, options: { hold?: (section: Buffer) => Promise<void>; whole: boolean }): void {
  const { hold, whole } = options
  if (!hold && !whole) {
    source.pipe(target)
    return
  }
  let held = Buffer.alloc(0)
  const release = () => {
    source.off('data', onData)
    source.off('end', release)
    source.pause()
    ;(hold ?? (async () => {}))(held).then(
      () => {
        target.write(held)
        if (source.readableEnded) target.end()
        else source.pipe(target)
      },
      () => target.destroy(),
    )
  }
  const onData = (chunk: Buffer) => {
    held = Buffer.concat([held, chunk])
    if (whole) {
      if (held.length <= MAX_REQUEST_BUFFER_BYTES) return
      // Too large to keep: the service fails, as the backend did ("request was larger than our maximum size").
      source.off('data', onData)
      source.off('end', release)
      source.resume()
      target.destroy()
    } else if (held.length > MAX_HELD_BYTES || firstSectionEnd(held) >= 0) release()
  }
  source.on('data', onData)
  source.on('end', release)
}

/** Where the first section of pkt-lines ends (after its flush packet), or -1 while it has not all arrived. */
function firstSectionEnd(data: Buffer): number {
  for (let at = 0; at + 4 <= data.length;) {
    const length = Number.parseInt(data.toString('latin1', at, at + 4), 16)
    if (!Number.isInteger(length) || (length > 0 && length < 4)) return data.length
    if (length === 0) return at + 4
    at += length
  }
  return -1
}

/**
 * Runs the service as `git http-backend` would (git-http-backend(1)), without it: `git upload-pack` or
 * `git receive-pack` with `--stateless-rpc`, the request going to its standard input as it arrives (inflated when
 * gzip-encoded, as git sends large fetches), its output passed on as it is written, behind the headers the backend
 * writes.
 */
export function runHttpBackend(request: BackendRequest, backends: RunningBackends): Promise<BackendResponse> {
  if (request.body?.destroyed && !request.body.readableEnded) return Promise.reject(new RequestAbandoned())
  const name = request.service.slice('git-'.length)
  if (!request.advertise) {
    // git-http-backend(1) check_content_type.
    const expected = `application/x-git-${name}-request`
    const actual = headerValue(request.headers, 'content-type') ?? ''
    if (actual !== expected) {
      request.body?.resume()
      return Promise.resolve({
        status: 415,
        headers: NO_CACHE,
        body: Readable.from([Buffer.from(`Expected POST with Content-Type '${expected}', but received '${actual}' instead.\n`)]),
        exited: Promise.resolve(true),
      })
    }
  }
  const protocol = headerValue(request.headers, 'git-protocol')
  // What git-http-backend(1) run_service gives the service.
  const user = request.remoteUser || 'anonymous'
  const env: Record<string, string> = {
    ...gitEnvironment(),
    GIT_COMMITTER_NAME: user,
    GIT_COMMITTER_EMAIL: `${user}@http.${request.remoteAddr || '(none)'}`,
  }
  if (protocol) env.GIT_PROTOCOL = protocol
  Object.assign(env, request.env)
  const args = [...SERVICE_CONFIG[request.service], name, '--stateless-rpc', ...(request.advertise ? ['--advertise-refs'] : []), '.']
  const child = startProcess('git', args, { cwd: request.directory, env, stdio: ['pipe', 'pipe', 'ignore'] })
  const stdin = child.stdin!
  const stdout = child.stdout!
  const exited = new Promise<boolean>((resolve) => {
    child.on('close', (code) => resolve(code === 0))
    child.on('error', () => resolve(false))
  })
  backends.add(child, request.body)
  stdin.on('error', () => {})
  let abandoned = false
  if (request.body) {
    const body = request.body
    // A body that closes before it has all arrived (its caller went away) ends the service, which would wait for it.
    body.once('close', () => {
      if (body.readableEnded) return
      abandoned = true
      terminate(child)
    })
    const encoding = headerValue(request.headers, 'content-encoding')
    let input: Readable = body
    if (encoding === 'gzip' || encoding === 'x-gzip') {
      const inflate = createGunzip()
      // A body that does not inflate ends the service's input: it fails, as the backend did ("error inflating request").
      inflate.on('error', () => stdin.destroy())
      input = body.pipe(inflate)
    }
    feed(input, stdin, { hold: request.beforeCommands, whole: request.service === 'git-upload-pack' })
  } else stdin.end()

  const headers: [string, string][] = [
    ...NO_CACHE,
    ['Content-Type', `application/x-git-${name}-${request.advertise ? 'advertisement' : 'result'}`],
  ]
  return new Promise((resolve, reject) => {
    child.once('spawn', () => {
      if (abandoned) return reject(new RequestAbandoned())
      let body: Readable = stdout
      // git-http-backend(1) get_info_refs: protocol v2 starts with the capabilities, older ones with the service.
      if (request.advertise && protocolVersion(protocol) !== 2) {
        const out = new PassThrough()
        out.write(Buffer.concat([packetLine(`# service=${request.service}\n`), Buffer.from('0000')]))
        stdout.pipe(out)
        body = out
      }
      resolve({ status: 200, headers, body, exited })
    })
    child.once('error', reject)
  })
}
