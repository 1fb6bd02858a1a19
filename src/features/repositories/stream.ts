import { Readable } from 'node:stream'
import { startProcess, type Process } from '../../core/processes.js'
import { gitEnvironment, GitError } from './git.js'

/** Standard error kept of a streamed git command, for the log: its first bytes say what failed. */
const STDERR_KEPT = 64 * 1024

function spawnGit(directory: string, args: readonly string[]) {
  const argv = [`--git-dir=${directory}`, ...args]
  const child = startProcess('git', argv, { env: gitEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => {
    if (stderr.length < STDERR_KEPT) stderr += chunk.toString('utf8')
  })
  return { child, stdout: child.stdout!, argv, stderr: () => stderr }
}

/**
 * Runs git and hands its standard output to `read` piece by piece as it comes, so nothing holds the whole output.
 * `read` answers false once it has read enough: git is ended then and the run counts as a success.
 */
export function readGitOutput(directory: string, args: readonly string[], read: (chunk: Buffer) => boolean | void): Promise<void> {
  const { child, stdout, argv, stderr } = spawnGit(directory, args)
  return new Promise((resolve, reject) => {
    let stopped = false
    const stop = () => {
      stopped = true
      stdout.destroy()
      child.kill()
    }
    stdout.on('data', (chunk: Buffer) => {
      if (stopped) return
      try {
        if (read(chunk) === false) stop()
      } catch (error) {
        stop()
        reject(error as Error)
      }
    })
    child.on('error', reject)
    child.on('close', (code, signal) => {
      if (stopped || code === 0) resolve()
      else reject(new GitError(argv, code ?? signal, stderr()))
    })
  })
}

/**
 * Git's standard output as a stream, once git has written its first bytes (or ended with nothing to say): a git that
 * fails before writing anything rejects, so the caller can still answer an error. Destroying the stream ends git;
 * git failing later destroys the stream with the error.
 */
export function openGitOutput(directory: string, args: readonly string[]): Promise<Readable> {
  const { child, stdout, argv, stderr } = spawnGit(directory, args)
  stdout.once('close', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill()
  })
  return new Promise((resolve, reject) => {
    let opened = false
    const open = () => {
      if (opened) return
      opened = true
      resolve(stdout)
    }
    stdout.once('readable', () => {
      if (stdout.readableLength > 0) open()
    })
    child.on('error', (error) => {
      if (opened) stdout.destroy(error)
      else reject(error)
    })
    child.on('exit', (code, signal) => {
      if (code === 0) return open()
      if (opened) {
        child.once('close', () => stdout.destroy(new GitError(argv, code ?? signal, stderr())))
        return
      }
      opened = true
      // Nothing will read what it wrote; resume() would not drain it while the 'readable' listener above may still wait,
      // and its child would never close.
      stdout.destroy()
      child.once('close', () => reject(new GitError(argv, code ?? signal, stderr())))
    })
  })
}

/** Output a piped command may answer: it reads a stream and answers a line or two. */
const PIPED_OUTPUT_KEPT = 64 * 1024

/**
 * Runs `first | second` in a repository, git's output flowing from one to the other without passing through here;
 * answers what `second` writes (its first PIPED_OUTPUT_KEPT bytes). Either failing rejects.
 */
export function pipeGit(directory: string, first: readonly string[], second: readonly string[]): Promise<Buffer> {
  const writer = spawnGit(directory, first)
  const reader = startProcess('git', [`--git-dir=${directory}`, ...second], { env: gitEnvironment(), stdio: ['pipe', 'pipe', 'ignore'] })
  writer.stdout.pipe(reader.stdin!)
  // A reader that ends early (or fails) must not leave the writer blocked on a full pipe.
  reader.stdin!.on('error', () => writer.child.kill())
  const exited = (child: Process) =>
    new Promise<number | string | null>((resolve, reject) => {
      child.on('error', reject)
      child.on('close', (code, signal) => resolve(code ?? signal))
    })
  const parts: Buffer[] = []
  let length = 0
  reader.stdout!.on('data', (chunk: Buffer) => {
    if (length >= PIPED_OUTPUT_KEPT) return
    parts.push(chunk)
    length += chunk.length
  })
  return Promise.all([exited(writer.child), exited(reader)]).then(([writerCode, readerCode]) => {
    if (writerCode !== 0) throw new GitError(writer.argv, writerCode, writer.stderr())
    if (readerCode !== 0) throw new GitError(second, readerCode, '')
    return Buffer.concat(parts, length)
  })
}

/** The base64 text of a stream of bytes, piece by piece (each piece a whole number of 3-byte groups but the last). */
async function* base64Of(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let carry = Buffer.alloc(0)
  for await (const chunk of source) {
    const data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk
    const whole = data.length - (data.length % 3)
    if (whole > 0) yield Buffer.from(data.toString('base64', 0, whole), 'latin1')
    carry = Buffer.from(data.subarray(whole))
  }
  if (carry.length > 0) yield Buffer.from(carry.toString('base64'), 'latin1')
}

/**
 * The JSON text of `value` with its string field `field` (empty in `value`) holding a content's base64, written as the
 * content streams. `length` is the text's exact size in bytes, for Content-Length.
 */
export function base64JsonStream(
  value: object,
  field: string,
  content: Readable,
  contentBytes: number,
): { body: Readable; length: number } {
  const placeholder = `${JSON.stringify(field)}:""`
  const text = JSON.stringify(value)
  const at = text.indexOf(placeholder) + placeholder.length - 1
  const before = text.slice(0, at)
  const after = text.slice(at)
  async function* pieces() {
    yield Buffer.from(before, 'utf8')
    yield* base64Of(content)
    yield Buffer.from(after, 'utf8')
  }
  const length = Buffer.byteLength(before) + Math.ceil(contentBytes / 3) * 4 + Buffer.byteLength(after)
  const body = Readable.from(pieces(), { objectMode: false })
  body.once('close', () => content.destroy())
  return { body, length }
}

/** The lines of a stream (without their line feeds, or the `separator` byte), each whole, as they come. */
export async function* readLines(source: AsyncIterable<Buffer>, separator = 0x0a): AsyncGenerator<Buffer> {
  // The start of a line cut across pieces, joined once its end comes (a long line is not joined at every piece).
  let carried: Buffer[] = []
  for await (const chunk of source) {
    let start = 0
    for (let end = chunk.indexOf(separator); end >= 0; end = chunk.indexOf(separator, start)) {
      const piece = chunk.subarray(start, end)
      yield carried.length > 0 ? Buffer.concat([...carried, piece]) : piece
      carried = []
      start = end + 1
    }
    if (start < chunk.length) carried.push(chunk.subarray(start))
  }
  if (carried.length > 0) yield Buffer.concat(carried)
}

/** Ends a stream when the response it feeds closes before it is finished: the client went away. */
export function destroyOnClose(
  stream: Readable,
  response: { writableFinished: boolean; once(event: 'close', listener: () => void): unknown },
) {
  response.once('close', () => {
    if (!response.writableFinished) stream.destroy()
  })
}
