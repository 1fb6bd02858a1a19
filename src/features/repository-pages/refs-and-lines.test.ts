import { describe, expect, test } from 'vitest'
import { highlightedLines, HIGHLIGHT_MAX_BYTES, linesOf } from '../../web/highlight.js'
import { splitRefAndPath } from './shared.js'

describe('splitRefAndPath (GL ExtractsRef#extract_ref)', () => {
  const refs = { branches: ['main', 'feature/x', 'feature/x-2', 'release'], tags: ['v1.0', 'release/2026/q1'] }

  test('the longest prefix that names a branch or tag is the ref', () => {
    expect(splitRefAndPath('main', refs)).toEqual({ ref: 'main', path: '' })
    expect(splitRefAndPath('main/', refs)).toEqual({ ref: 'main', path: '' })
    expect(splitRefAndPath('main/src/app.ts', refs)).toEqual({ ref: 'main', path: 'src/app.ts' })
    expect(splitRefAndPath('feature/x/lib/a.rb', refs)).toEqual({ ref: 'feature/x', path: 'lib/a.rb' })
    expect(splitRefAndPath('feature/x-2/a', refs)).toEqual({ ref: 'feature/x-2', path: 'a' })
    expect(splitRefAndPath('release/2026/q1/notes.md', refs)).toEqual({ ref: 'release/2026/q1', path: 'notes.md' })
    expect(splitRefAndPath('release/notes.md', refs)).toEqual({ ref: 'release', path: 'notes.md' })
  })

  test('a full object id first is the ref; otherwise the first segment is', () => {
    const sha = 'a'.repeat(40)
    expect(splitRefAndPath(`${sha}/src`, refs)).toEqual({ ref: sha, path: 'src' })
    expect(splitRefAndPath('abc1234/src/app.ts', refs)).toEqual({ ref: 'abc1234', path: 'src/app.ts' })
    expect(splitRefAndPath('feature/y/a', refs)).toEqual({ ref: 'feature', path: 'y/a' })
  })
})

describe('highlightedLines', () => {
  test('a comment spanning lines keeps its colour on each line, every line closing what it opens', async () => {
    const { lines, language } = await highlightedLines('a.ts', '/* one\ntwo */\nconst x = "<b>"\n', 'blob-1')
    expect(language).toBe('ts')
    expect(lines.map((line) => line.text)).toEqual([
      '<span class="hljs-comment">/* one</span>',
      '<span class="hljs-comment">two */</span>',
      '<span class="hljs-keyword">const</span> x = <span class="hljs-string">&quot;&lt;b&gt;&quot;</span>',
    ])
  })

  test('unknown languages and large files are escaped, not highlighted', async () => {
    expect((await highlightedLines('notes.unknown', '<b>&\n', null)).lines.map((line) => line.text)).toEqual(['&lt;b&gt;&amp;'])
    const big = `${'x = 1\n'.repeat(HIGHLIGHT_MAX_BYTES / 6 + 1)}`
    const result = await highlightedLines('big.py', big, null)
    expect(result.tooLarge).toBe(true)
    expect(result.lines[0].text).toBe('x = 1')
  })

  test('lines: a final line feed ends the last line; carriage returns go', () => {
    expect(linesOf('')).toEqual([])
    expect(linesOf('a\r\nb')).toEqual(['a', 'b'])
    expect(linesOf('a\n\n')).toEqual(['a', ''])
  })
})
