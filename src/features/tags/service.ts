import type { Context } from '../../core/context.js'
import { Forbidden, NotFound, PreconditionFailed, Rejected } from '../../core/errors.js'
import type { OffsetPage } from '../../db/pagination.js'
import { noticeChange } from '../change-notices/index.js'
import { recordPushEvent } from '../event-log/index.js'
import {
  git,
  GitError,
  parseTag,
  existingCodeDirectory,
  identityOf,
  isClientRevision,
  isValidRefName,
  pushCommitTitle,
  readCommit,
  readObject,
  type ParsedCommit,
} from '../repositories/index.js'
import { canPushCode, type LoadedProject } from '../access/index.js'
import { pageOfArray } from '../commits/index.js'
import { assertMayChangeRef, isTagProtected, loadProtection } from '../protected-refs/index.js'

/** A tag as its entity shows it. */
export interface TagView {
  name: string
  /** An annotated tag's message; '' for a lightweight tag. */
  message: string
  /** The tag object of an annotated tag, else the commit. */
  target: string
  commit: ParsedCommit | null
  isProtected: boolean
  /** The tagger's date of an annotated tag; null for a lightweight one. */
  createdAt: string | null
}

export interface ListTagsInput {
  orderBy: 'name' | 'updated' | 'version'
  sort: 'asc' | 'desc'
  search?: string
  page: number
  perPage: number
}

// GL GitAccess ERROR_MESSAGES[:read_only], raised by the pre-receive hook of a repository being moved.
const READ_ONLY = 'The repository is temporarily read-only. Please try again later.'

/** A tag name git could hold and a URL can carry: no line break or NUL, which cat-file would misread. */
function isReadableTagName(name: string): boolean {
  return name !== '' && !/[\0\n\r]/.test(name)
}

/** A tag's message as GitLab shows it: without the line break git ends it with. */
function shownMessage(message: string): string {
  return message.replace(/\n$/, '')
}

async function tagViewOf(directory: string, name: string, oid: string, type: string, isProtected: boolean): Promise<TagView> {
  let message = ''
  let createdAt: string | null = null
  if (type === 'tag') {
    const object = await readObject(directory, oid)
    if (object?.type === 'tag') {
      const tag = parseTag(object.oid, object.content)
      message = shownMessage(tag.message)
      createdAt = tag.tagger?.date ?? null
    }
  }
  return { name, message, target: oid, commit: await readCommit(directory, oid), isProtected, createdAt }
}

const SORT_KEYS = { name: 'refname', updated: 'creatordate', version: 'version:refname' } as const

/** GL RefsFinder#filter_refs: `^prefix`, `suffix$`, else a substring, all ignoring case; an exact match first. */
function matchesSearch<T extends { name: string }>(names: T[], search: string | undefined): T[] {
  if (!search) return names
  const term = search.toLowerCase()
  if (term.startsWith('^')) return names.filter(({ name }) => name.toLowerCase().startsWith(term.slice(1)))
  if (term.endsWith('$')) return names.filter(({ name }) => name.toLowerCase().endsWith(term.slice(0, -1)))
  const found = names.filter(({ name }) => name.toLowerCase().includes(term))
  const exact = found.findIndex(({ name }) => name.toLowerCase() === term)
  return exact < 0 ? found : [found[exact], ...found.slice(0, exact), ...found.slice(exact + 1)]
}

/**
 * GET /projects/:id/repository/tags (GL TagsFinder): one `git for-each-ref` sorted by git (name, creator date or
 * version order), filtered, then the page's tags read through the object reader.
 */
export async function listTags(ctx: Context, loaded: LoadedProject, input: ListTagsInput): Promise<OffsetPage<TagView>> {
  const directory = await existingCodeDirectory(ctx, loaded)
  const sortKey = `${input.sort === 'desc' ? '-' : ''}${SORT_KEYS[input.orderBy]}`
  const out = await git(['for-each-ref', `--sort=${sortKey}`, '--format=%(objectname) %(objecttype) %(refname:strip=2)', 'refs/tags/'], {
    gitDir: directory,
  })
  const refs = out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [oid, type] = line.split(' ', 2)
      return { oid, type, name: line.slice(oid.length + type.length + 2) }
    })
  const page = pageOfArray(matchesSearch(refs, input.search), input.page, input.perPage)
  const protection = await loadProtection(ctx.db, loaded.project.id)
  const rows = await Promise.all(
    page.rows.map((ref) => tagViewOf(directory, ref.name, ref.oid, ref.type, isTagProtected(protection, ref.name))),
  )
  return { ...page, rows }
}

/** The tag's ref value and type, or null. */
async function findTagRef(directory: string, name: string): Promise<{ oid: string; type: string } | null> {
  if (!isReadableTagName(name)) return null
  const out = await git(['for-each-ref', '--format=%(objectname) %(objecttype) %(refname)', `refs/tags/${name}`], { gitDir: directory })
  // for-each-ref matches path prefixes too (refs/tags/v1 lists refs/tags/v1/x): the exact ref only.
  const line = out.split('\n').find((entry) => entry.endsWith(` refs/tags/${name}`) && entry.split(' ').length >= 3)
  if (!line) return null
  const [oid, type] = line.split(' ', 2)
  return { oid, type }
}

/** GET /projects/:id/repository/tags/:tag_name: 404 "Tag Not Found" when there is none. */
export async function showTag(ctx: Context, loaded: LoadedProject, name: string): Promise<TagView> {
  const directory = await existingCodeDirectory(ctx, loaded)
  const ref = await findTagRef(directory, name)
  if (!ref) throw new NotFound('Tag')
  return tagViewOf(directory, name, ref.oid, ref.type, isTagProtected(await loadProtection(ctx.db, loaded.project.id), name))
}

/** Writes an annotated tag object of `commit` by the caller, as `git tag -a` would (GL Gitaly UserCreateTag). */
async function writeTagObject(
  directory: string,
  commit: string,
  name: string,
  message: string,
  tagger: { name: string; email: string },
  at: Date,
) {
  const seconds = Math.floor(at.getTime() / 1000)
  const content = `object ${commit}\ntype commit\ntag ${name}\ntagger ${tagger.name} <${tagger.email}> ${seconds} +0000\n\n${message}\n`
  return (await git(['mktag'], { gitDir: directory, input: content })).trim()
}

/**
 * POST /projects/:id/repository/tags (GL Tags::CreateService): Developers and up; an annotated tag by the caller when
 * a message is given (stripped), else a lightweight one. The ref is created only if it still does not exist.
 */
export async function createTag(
  ctx: Context,
  loaded: LoadedProject,
  input: { name: string; ref: string; message?: string },
): Promise<TagView> {
  const directory = await existingCodeDirectory(ctx, loaded)
  const user = ctx.caller.user
  if (!user || !canPushCode(loaded.access, loaded.project)) throw new Forbidden()
  if (input.ref.trim() === '') throw new Rejected('Target is empty')
  if (!isValidRefName(input.name)) throw new Rejected('Tag name invalid')
  const commit = isClientRevision(input.ref) ? await readCommit(directory, input.ref) : null
  if (!commit) throw new Rejected(`Target ${input.ref} is invalid`)
  const fullName = `refs/tags/${input.name}`
  if (await findTagRef(directory, input.name)) throw new Rejected(`Tag ${input.name} already exists`)
  await assertMayChangeRef(ctx, loaded, fullName, 'create')
  if (loaded.project.repository_read_only === 1) throw new Rejected(READ_ONLY)
  const message = input.message?.trim() ?? ''
  const now = ctx.now()
  const target = message === '' ? commit.oid : await writeTagObject(directory, commit.oid, input.name, message, identityOf(user), now)
  try {
    // The empty old value: created only if no one made it meanwhile.
    await git(['update-ref', fullName, target, ''], { gitDir: directory })
  } catch (error) {
    if (error instanceof GitError) throw new Rejected(`Tag ${input.name} already exists`)
    throw error
  }
  await ctx.db.transaction().execute(async (trx) => {
    await recordPushEvent(trx, {
      projectId: loaded.project.id,
      authorId: user.id,
      at: now,
      payload: {
        commit_count: 1,
        action: 'created',
        ref_type: 'tag',
        commit_from: null,
        commit_to: target,
        ref: input.name,
        commit_title: pushCommitTitle(commit.message),
      },
    })
    const update = { ref: fullName, before: '0'.repeat(target.length), after: target }
    await noticeChange(ctx, trx, { kind: 'push', projectId: loaded.project.id, actorId: user.id, ...update, at: now })
  })
  const isProtected = isTagProtected(await loadProtection(ctx.db, loaded.project.id), input.name)
  return tagViewOf(directory, input.name, target, message === '' ? 'commit' : 'tag', isProtected)
}

/**
 * DELETE /projects/:id/repository/tags/:tag_name (GL Tags::DestroyService): Developers and up, unless protection
 * says otherwise; `If-Unmodified-Since` before the tagged commit's author date answers 412. The ref is removed only
 * if it still holds what was read.
 */
export async function deleteTag(ctx: Context, loaded: LoadedProject, name: string, unmodifiedSince: Date | null): Promise<void> {
  const directory = await existingCodeDirectory(ctx, loaded)
  const ref = await findTagRef(directory, name)
  if (!ref) throw new NotFound('Tag')
  const user = ctx.caller.user
  if (!user || !canPushCode(loaded.access, loaded.project)) throw new Forbidden()
  const commit = await readCommit(directory, ref.oid)
  if (unmodifiedSince && commit && new Date(commit.author.date).getTime() > unmodifiedSince.getTime()) throw new PreconditionFailed()
  const fullName = `refs/tags/${name}`
  await assertMayChangeRef(ctx, loaded, fullName, 'delete')
  if (loaded.project.repository_read_only === 1) throw new Rejected(READ_ONLY)
  try {
    await git(['update-ref', '-d', fullName, ref.oid], { gitDir: directory })
  } catch (error) {
    if (error instanceof GitError) throw new Rejected('Failed to remove tag')
    throw error
  }
  const now = ctx.now()
  await ctx.db.transaction().execute(async (trx) => {
    await recordPushEvent(trx, {
      projectId: loaded.project.id,
      authorId: user.id,
      at: now,
      payload: {
        commit_count: 0,
        action: 'removed',
        ref_type: 'tag',
        commit_from: ref.oid,
        commit_to: null,
        ref: name,
        commit_title: null,
      },
    })
    const update = { ref: fullName, before: ref.oid, after: '0'.repeat(ref.oid.length) }
    await noticeChange(ctx, trx, { kind: 'push', projectId: loaded.project.id, actorId: user.id, ...update, at: now })
  })
}
