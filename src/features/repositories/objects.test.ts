import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { GitClient } from '../../testing/git.js'
import { createHash } from 'node:crypto'
import {
  closeObjectReader,
  LARGE_BLOB_BYTES,
  openBlob,
  parseSignature,
  parseTree,
  readCommit,
  readObject,
  readObjectHeader,
  readObjectOrLargeBlob,
} from './objects.js'

const gitClient = new GitClient()
const directory = path.join(gitClient.workDir, 'objects.git')

afterAll(() => closeObjectReader(directory))

async function commitIn(work: string, file: string, content: string, message: string, date: string): Promise<string> {
  fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true })
  fs.writeFileSync(path.join(work, file), content)
  await gitClient.ok(work, 'add', '.')
  await gitClient.ok(work, 'commit', '-q', '--date', date, '-m', message)
  return (await gitClient.ok(work, 'rev-parse', 'HEAD')).trim()
}

describe('object reader', () => {
  test('reads blobs, trees and commits through one process, and sees later pushes', async () => {
    await gitClient.ok(gitClient.workDir, 'init', '-q', '--bare', '--initial-branch=main', directory)
    const work = path.join(gitClient.workDir, 'work')
    await gitClient.ok(gitClient.workDir, 'clone', '-q', directory, work)
    const first = await commitIn(work, 'docs/a b.txt', 'hello\n', 'First\n\nBody line', '2026-01-02T03:04:05+05:30')
    await gitClient.ok(work, 'push', '-q', 'origin', 'main')

    const blob = await readObject(directory, 'main:docs/a b.txt')
    expect(blob?.type).toBe('blob')
    expect(blob?.content.toString()).toBe('hello\n')
    expect(await readObjectHeader(directory, 'main:docs/a b.txt')).toEqual({ oid: blob?.oid, type: 'blob', size: 6 })
    expect(await readObject(directory, 'main:missing')).toBeNull()
    expect(await readObject(directory, 'no-such-branch')).toBeNull()

    const root = await readObject(directory, 'main^{tree}')
    expect(parseTree(root!.content, 40)).toEqual([
      { mode: '40000', type: 'tree', oid: expect.stringMatching(/^[0-9a-f]{40}$/), name: 'docs' },
    ])

    const commit = await readCommit(directory, 'main')
    expect(commit).toMatchObject({
      oid: first,
      parents: [],
      author: { name: 'Tess', email: 'tess@example.com', date: '2026-01-02T03:04:05.000+05:30' },
      message: 'First\n\nBody line\n',
    })

    // A push after the reader started: new objects and the moved branch are read at once.
    const second = await commitIn(work, 'b.txt', 'two\n', 'Second', '2026-01-03T00:00:00Z')
    await gitClient.ok(work, 'push', '-q', 'origin', 'main')
    await gitClient.ok(work, 'gc', '-q')
    expect((await readCommit(directory, 'main'))?.parents).toEqual([first])
    expect((await readCommit(directory, second))?.author.date).toBe('2026-01-03T00:00:00.000+00:00')
  })

  test('reads an object larger than many pipe chunks, between small reads', async () => {
    const work = path.join(gitClient.workDir, 'work')
    const big = Buffer.alloc(3 * 1024 * 1024 + 7, 'abcdefghij')
    await commitIn(work, 'big.bin', big.toString(), 'Big', '2026-01-04T00:00:00Z')
    await gitClient.ok(work, 'push', '-q', 'origin', 'main')
    const [before, read, after] = await Promise.all([
      readObject(directory, 'main:b.txt'),
      readObject(directory, 'main:big.bin'),
      readObjectHeader(directory, 'main:b.txt'),
    ])
    expect(before?.content.toString()).toBe('two\n')
    expect(read?.size).toBe(big.length)
    expect(read?.content.equals(big)).toBe(true)
    expect(after).toEqual({ oid: before?.oid, type: 'blob', size: 4 })
  })

  test('a blob over LARGE_BLOB_BYTES answers its size, head and SHA-256 without its bytes; its bytes stream from git', async () => {
    const work = path.join(gitClient.workDir, 'work')
    const big = Buffer.alloc(3 * 1024 * 1024 + 7, 'abcdefghij')
    const edge = Buffer.alloc(LARGE_BLOB_BYTES, 'z')
    await commitIn(work, 'edge.bin', edge.toString(), 'Edge', '2026-01-05T00:00:00Z')
    await gitClient.ok(work, 'push', '-q', 'origin', 'main')
    const [before, large, atLimit, after] = await Promise.all([
      readObjectOrLargeBlob(directory, 'main:b.txt'),
      readObjectOrLargeBlob(directory, 'main:big.bin'),
      readObjectOrLargeBlob(directory, 'main:edge.bin'),
      readObjectOrLargeBlob(directory, 'main:b.txt'),
    ])
    expect(before).toMatchObject({ type: 'blob', size: 4, content: Buffer.from('two\n') })
    expect(large).toEqual({
      oid: expect.stringMatching(/^[0-9a-f]{40}$/),
      type: 'blob',
      size: big.length,
      large: true,
      head: big.subarray(0, 4096),
      sha256: createHash('sha256').update(big).digest('hex'),
    })
    expect(atLimit && 'content' in atLimit && atLimit.content.equals(edge)).toBe(true)
    expect(after).toEqual(before)
    const parts: Buffer[] = []
    for await (const part of await openBlob(directory, large!.oid)) parts.push(part as Buffer)
    expect(Buffer.concat(parts).equals(big)).toBe(true)
  })

  test('refuses a revision with a line break; reflog, upstream, relative and search forms name nothing, and the reader lives on', async () => {
    await expect(readObject(directory, 'main\ncontents main')).rejects.toThrow('line break')
    expect(
      await Promise.all(
        ['main@{1}', '@{upstream}', 'main@{u}', 'main:./b.txt', 'main:../x', ':/Second', 'main^{/Second}'].map((revision) =>
          readObject(directory, revision),
        ),
      ),
    ).toEqual(Array(7).fill(null))
    expect((await readObjectHeader(directory, 'main'))?.type).toBe('commit')
  })

  test('parses signatures with negative offsets', () => {
    expect(parseSignature('Bo B <bo@example.com> 1700000000 -0730')).toEqual({
      name: 'Bo B',
      email: 'bo@example.com',
      date: '2023-11-14T14:43:20.000-07:30',
    })
  })
})
