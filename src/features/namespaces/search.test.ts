import { describe, expect, test } from 'vitest'
import { containsPattern, parseSearch, trigramSimilarity } from './search.js'

describe('search terms (GL Gitlab::SQL::Pattern)', () => {
  test('words of three characters or more match anywhere; shorter queries must match whole', () => {
    expect(parseSearch('Alpha  Beta')).toEqual({ kind: 'words', words: ['alpha', 'beta'] })
    expect(parseSearch('ab cd')).toEqual({ kind: 'exact', text: 'ab cd' })
    expect(parseSearch('ab core')).toEqual({ kind: 'words', words: ['core'] })
    expect(parseSearch('"my group" x')).toEqual({ kind: 'words', words: ['my group'] })
    expect(parseSearch('   ')).toBeNull()
    expect(parseSearch(undefined)).toBeNull()
  })

  test('LIKE characters are escaped', () => {
    expect(containsPattern('50%_off\\')).toBe('%50\\%\\_off\\\\%')
  })

  test("trigram similarity is pg_trgm's", () => {
    expect(trigramSimilarity('apple', 'apple')).toBe(1)
    expect(trigramSimilarity('word', 'two words')).toBeCloseTo(0.363636, 5)
    expect(trigramSimilarity('', '')).toBe(0)
    expect(trigramSimilarity('Core', 'apple')).toBe(0)
  })
})
