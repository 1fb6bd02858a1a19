import { createHash, type Hash } from 'node:crypto'
import type { Readable, Writable } from 'node:stream'
import { startProcess, type Process } from '../../core/processes.js'
import { gitEnvironment } from './git.js'
import { openGitOutput } from './stream.js'

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag'

export interface ObjectHeader {
  oid: string
  type: ObjectType
  size: number
}

export interface GitObject extends ObjectHeader {
  content: Buffer
}

/** A blob over LARGE_BLOB_BYTES, read without keeping its bytes: what callers need of it without them. */
export interface LargeBlob extends ObjectHeader {
  type: 'blob'
  large: true
  /** The first LARGE_BLOB_HEAD_BYTES bytes: enough to tell its content type. */
  head: Buffer
  /** SHA-256 of the whole content, hex (GL files.rb `content_sha`). */
  sha256: string
}

/**
 * Blobs larger than this are not kept by the shared reader: every read of the repository waits behind the one being
 * answered, and one large blob held whole would cost its size in memory per request. Their bytes are dropped as git
 * writes them, and callers that send them stream them from a process of their own (openBlob). Small blobs, the common
 * case, take no extra round trip.
 */
export const LARGE_BLOB_BYTES = 1024 * 1024
/** Bytes kept of a large blob: Workhorse's content-type sniffing reads at most these (SVG detection). */
const LARGE_BLOB_HEAD_BYTES = 4096

/** Readers kept at most, one per repository; the least recently used one ends first. */
const MAX_READERS = 32
/** A reader idle this long ends, so idle repositories hold no process. */
const IDLE_MS = 30_000
const HEADER = /^([0-9a-f]{40}|[0-9a-f]{64}) (blob|tree|commit|tag) (\d+)$/

interface Pending {
  contents: boolean
  resolve: (value: GitObject | LargeBlob | ObjectHeader | null) => void
  reject: (error: Error) => void
}

/** A large blob's content being read past. */
interface Skipping {
  header: ObjectHeader
  /** Bytes still to come: the rest of the content and the line feed after it. */
  left: number
  head: Buffer[]
  headLength: number
  hash: Hash
  pending: Pending
}

/**
 * One long-lived `git cat-file --batch-command` over a repository, as Gitaly keeps them: every object read of the
 * repository goes through it, one at a time, instead of a process per read. Git re-reads the refs and re-scans the
 * packs it does not know on every lookup, so a reader sees pushes made after it started.
 */
class ObjectReader {
  private readonly child: Process
  private readonly input: Writable
  private readonly queue: Pending[] = []
  /** What git wrote that is not parsed yet, in the pieces it came in: joined only once a whole answer is in. */
  private parts: Buffer[] = []
  private length = 0
  /** Bytes the answer being read needs in all (a large object's content): nothing is joined before. */
  private needed = 0
  private idle: NodeJS.Timeout | null = null
  private ended = false
  private skipping: Skipping | null = null

  constructor(
    readonly directory: string,
    private readonly onEnd: (reader: ObjectReader) => void,
  ) {
    this.child = startProcess('git', [`--git-dir=${directory}`, 'cat-file', '--batch-command'], {
      env: gitEnvironment(),
      stdio: ['pipe', 'pipe', 'ignore'],
    })
    this.input = this.child.stdin!
    this.child.stdout!.on('data', (chunk: Buffer) => this.received(chunk))
    this.input.on('error', () => this.end(new Error('git cat-file went away')))
    this.child.on('error', (error) => this.end(error))
    this.child.on('exit', () => this.end(new Error('git cat-file exited')))
    this.rest()
  }

  read(revision: string, contents: boolean): Promise<GitObject | LargeBlob | ObjectHeader | null> {
    return new Promise((resolve, reject) => {
      if (this.ended) return reject(new Error('git cat-file exited'))
      if (this.idle) clearTimeout(this.idle)
      this.idle = null
      this.queue.push({ contents, resolve, reject })
      this.input.write(`${contents ? 'contents' : 'info'} ${revision}\n`)
    })
  }

  /** Whether a read waits on it. */
  get waiting(): boolean {
    return this.queue.length > 0 || this.skipping !== null
  }

  close() {
    this.end(null)
  }

  private received(chunk: Buffer) {
    let data = chunk
    if (this.skipping) {
      data = this.skip(data)
      if (this.skipping) return
    }
    if (data.length > 0) this.parts.push(data)
    this.length += data.length
    if (this.length < this.needed) return
    let buffered = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.length)
    this.needed = 0
    while (this.queue.length > 0) {
      const newline = buffered.indexOf(0x0a)
      if (newline < 0) break
      const header = HEADER.exec(buffered.toString('utf8', 0, newline))
      const pending = this.queue[0]
      if (!header || !pending.contents) {
        // `<revision> missing` or `<revision> ambiguous` (no such object), or a header asked for alone.
        buffered = buffered.subarray(newline + 1)
        this.queue.shift()
        pending.resolve(header ? { oid: header[1], type: header[2] as ObjectType, size: Number(header[3]) } : null)
        continue
      }
      const found: ObjectHeader = { oid: header[1], type: header[2] as ObjectType, size: Number(header[3]) }
      if (found.type === 'blob' && found.size > LARGE_BLOB_BYTES) {
        this.queue.shift()
        this.skipping = { header: found, left: found.size + 1, head: [], headLength: 0, hash: createHash('sha256'), pending }
        buffered = this.skip(buffered.subarray(newline + 1))
        if (this.skipping) break
        continue
      }
      const end = newline + 1 + found.size
      if (buffered.length < end + 1) {
        this.needed = end + 1
        break
      }
      const content = Buffer.from(buffered.subarray(newline + 1, end))
      buffered = buffered.subarray(end + 1)
      this.queue.shift()
      pending.resolve({ ...found, content })
    }
    this.parts = buffered.length > 0 ? [buffered] : []
    this.length = buffered.length
    if (this.queue.length === 0 && !this.skipping) this.rest()
  }

  /** Reads past the large blob being answered (hashing it, keeping its head); answers what follows it. */
  private skip(data: Buffer): Buffer {
    const skipping = this.skipping as Skipping
    const taken = Math.min(skipping.left, data.length)
    const content = data.subarray(0, Math.min(taken, skipping.left - 1))
    if (content.length > 0) {
      skipping.hash.update(content)
      if (skipping.headLength < LARGE_BLOB_HEAD_BYTES) {
        const head = Buffer.from(content.subarray(0, LARGE_BLOB_HEAD_BYTES - skipping.headLength))
        skipping.head.push(head)
        skipping.headLength += head.length
      }
    }
    skipping.left -= taken
    if (skipping.left === 0) {
      this.skipping = null
      const { header, head, headLength, hash } = skipping
      skipping.pending.resolve({ ...header, type: 'blob', large: true, head: Buffer.concat(head, headLength), sha256: hash.digest('hex') })
    }
    return data.subarray(taken)
  }

  private rest() {
    this.idle = setTimeout(() => this.end(null), IDLE_MS)
    this.idle.unref()
  }

  private end(error: Error | null) {
    if (this.ended) return
    this.ended = true
    if (this.idle) clearTimeout(this.idle)
    this.onEnd(this)
    this.input.end()
    this.child.kill()
    const waiting = this.skipping ? [this.skipping.pending, ...this.queue.splice(0)] : this.queue.splice(0)
    this.skipping = null
    for (const pending of waiting) pending.reject(error ?? new Error('git cat-file closed'))
  }
}

const readers = new Map<string, ObjectReader>()

function readerOf(directory: string): ObjectReader {
  let reader = readers.get(directory)
  if (reader) {
    // Most recently used last.
    readers.delete(directory)
    readers.set(directory, reader)
    return reader
  }
  // The least recently used idle reader makes room; while every reader is busy, the pool grows past its bound.
  if (readers.size >= MAX_READERS) [...readers.values()].find((kept) => !kept.waiting)?.close()
  reader = new ObjectReader(directory, (ended) => {
    if (readers.get(ended.directory) === ended) readers.delete(ended.directory)
  })
  readers.set(directory, reader)
  return reader
}

/** A revision cat-file reads as one line: no line breaks (callers check names and paths before). */
function checkedRevision(revision: string): string {
  if (/[\n\r\0]/.test(revision)) throw new Error('a revision with a line break')
  return revision
}

/**
 * Forms that name nothing here: reflog and upstream ones (`main@{1}`, `@{u}`) and paths relative to a working tree
 * (`main:./a`, `main:../a`), which git answers with a fatal error that ends the reader and every read waiting on it;
 * and searches of commit messages (`:/text`, `main^{/text}`), which walk the whole history.
 */
const UNREADABLE = /@\{|:\.\.?\/|^:\/|\^\{\//

/**
 * Whether a revision a client names is one Gitaly accepts (git.ValidateRevision): not empty, no leading `-` (an
 * option), no white space or control character, no `:` path scope and no `@{` reflog or upstream form; a range
 * (`a..b`) only where the caller reads ranges.
 */
export function isClientRevision(revision: string, options: { range?: boolean } = {}): boolean {
  if (revision === '' || revision.startsWith('-') || /[\0-\x20\x7f:]/.test(revision) || revision.includes('@{')) return false
  return options.range === true || !revision.includes('..')
}

/**
 * An object by any revision git understands (an object id, `refs/heads/main`, `main:path/to/file`, `<oid>^{tree}`),
 * with its content; a blob over LARGE_BLOB_BYTES answers without it (see openBlob); null when there is none.
 */
export async function readObjectOrLargeBlob(directory: string, revision: string): Promise<GitObject | LargeBlob | null> {
  if (UNREADABLE.test(checkedRevision(revision))) return null
  return (await readerOf(directory).read(revision, true)) as GitObject | LargeBlob | null
}

/**
 * An object (see readObjectOrLargeBlob) with its whole content, for callers that must hold it (trees, commits, tags,
 * a .gitattributes); a large blob's content is read again by a process of its own.
 */
export async function readObject(directory: string, revision: string): Promise<GitObject | null> {
  const object = await readObjectOrLargeBlob(directory, revision)
  if (object === null || !('large' in object)) return object
  const parts: Buffer[] = []
  for await (const part of await openBlob(directory, object.oid)) parts.push(part as Buffer)
  const content = Buffer.concat(parts)
  return { oid: object.oid, type: object.type, size: object.size, content }
}

/** The content of a blob as a stream from `git cat-file blob` (read by the object reader first); destroying it ends git. */
export function openBlob(directory: string, oid: string): Promise<Readable> {
  return openGitOutput(directory, ['cat-file', 'blob', oid])
}

/** The id, type and size of an object (see readObject), without its content; null when there is none. */
export async function readObjectHeader(directory: string, revision: string): Promise<ObjectHeader | null> {
  if (UNREADABLE.test(checkedRevision(revision))) return null
  return readerOf(directory).read(revision, false) as Promise<ObjectHeader | null>
}

/** Ends the object reader of a repository (before it is moved or removed). */
export function closeObjectReader(directory: string) {
  readers.get(directory)?.close()
}

export interface TreeEntry {
  /** As git writes it: 100644, 100755, 120000 (a symbolic link), 40000 (a tree), 160000 (a submodule's commit). */
  mode: string
  type: 'blob' | 'tree' | 'commit'
  oid: string
  name: string
}

/** The entries of a tree object, in git's order. */
export function parseTree(content: Buffer, oidLength: number): TreeEntry[] {
  const idBytes = oidLength / 2
  const entries: TreeEntry[] = []
  for (let at = 0; at < content.length;) {
    const space = content.indexOf(0x20, at)
    const nul = content.indexOf(0, space)
    if (space < 0 || nul < 0 || nul + 1 + idBytes > content.length) throw new Error('bad tree object')
    const mode = content.toString('latin1', at, space)
    const type = mode === '40000' ? 'tree' : mode === '160000' ? 'commit' : 'blob'
    entries.push({ mode, type, oid: content.toString('hex', nul + 1, nul + 1 + idBytes), name: content.toString('utf8', space + 1, nul) })
    at = nul + 1 + idBytes
  }
  return entries
}

export interface Signature {
  name: string
  email: string
  /** ISO 8601 in the person's own offset, as GitLab shows it: `2026-11-27T10:00:00.000+01:00`. */
  date: string
}

export interface ParsedCommit {
  oid: string
  tree: string
  parents: string[]
  author: Signature
  committer: Signature
  /** The whole message, subject and body, as committed. */
  message: string
}

/** `Name <email> 1700000000 +0100` as a Signature. */
export function parseSignature(text: string): Signature {
  const match = /^(.*?) ?<([^>]*)> (-?\d+) ([+-])(\d\d)(\d\d)$/.exec(text)
  if (!match) return { name: text, email: '', date: new Date(0).toISOString() }
  const [, name, email, seconds, sign, hours, minutes] = match
  const offsetMinutes = (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes))
  const local = new Date(Number(seconds) * 1000 + offsetMinutes * 60_000).toISOString().slice(0, 23)
  // GitLab shows the offset git recorded, `+00:00` too (GL Gitlab::Git::Commit#init_date_from_gitaly parses it with %z).
  return { name, email, date: `${local}${offsetMinutes === 0 ? '+00:00' : `${sign}${hours}:${minutes}`}` }
}

/** The headers and message of a commit or tag object: headers up to the first blank line (continuation lines skipped). */
function headersAndMessage(content: Buffer): { headers: [string, string][]; message: string } {
  const text = content.toString('utf8')
  const blank = text.indexOf('\n\n')
  const head = blank < 0 ? text : text.slice(0, blank)
  const headers: [string, string][] = []
  for (const line of head.split('\n')) {
    if (line.startsWith(' ')) continue // a signature's continuation
    const space = line.indexOf(' ')
    headers.push(space < 0 ? [line, ''] : [line.slice(0, space), line.slice(space + 1)])
  }
  return { headers, message: blank < 0 ? '' : text.slice(blank + 2) }
}

export function parseCommit(oid: string, content: Buffer): ParsedCommit {
  const { headers, message } = headersAndMessage(content)
  const value = (name: string) => headers.find(([key]) => key === name)?.[1] ?? ''
  return {
    oid,
    tree: value('tree'),
    parents: headers.filter(([key]) => key === 'parent').map(([, parent]) => parent),
    author: parseSignature(value('author')),
    committer: parseSignature(value('committer')),
    message,
  }
}

export interface ParsedTag {
  oid: string
  /** The object tagged, and its type. */
  object: string
  type: ObjectType
  name: string
  tagger: Signature | null
  message: string
}

export function parseTag(oid: string, content: Buffer): ParsedTag {
  const { headers, message } = headersAndMessage(content)
  const value = (name: string) => headers.find(([key]) => key === name)?.[1] ?? ''
  const tagger = value('tagger')
  return {
    oid,
    object: value('object'),
    type: value('type') as ObjectType,
    name: value('tag'),
    tagger: tagger ? parseSignature(tagger) : null,
    message,
  }
}

/** The commit a revision names (tags peeled), parsed; null when it names none. */
export async function readCommit(directory: string, revision: string): Promise<ParsedCommit | null> {
  const object = await readObject(directory, `${revision}^{commit}`)
  return object?.type === 'commit' ? parseCommit(object.oid, object.content) : null
}
