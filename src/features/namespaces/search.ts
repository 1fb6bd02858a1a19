// How namespace and group searches read a query (GL lib/gitlab/sql/pattern.rb `fuzzy_arel_match`, Namespace.search).

/** Shorter words match nothing partially; a query made only of them must equal the column (GL MIN_CHARS_FOR_PARTIAL_MATCHING). */
export const MIN_CHARS_FOR_PARTIAL_MATCHING = 3

/** A search as SQL applies it: every word within the column (case-insensitively), or the whole query equal to it. */
export type SearchTerms = { kind: 'words'; words: string[] } | { kind: 'exact'; text: string }

/** The terms of a search query; null when it is blank and filters nothing. Quoted phrases count as one word. */
export function parseSearch(query: string | undefined): SearchTerms | null {
  if (query === undefined) return null
  let text = query.trim().replace(/\s+/g, ' ')
  if (text === '') return null
  const whole = text
  const quoted = text.match(/"[^"]+"/g) ?? []
  for (const phrase of quoted) text = text.replace(phrase, '')
  const words = [...text.split(' ').filter((w) => w !== ''), ...quoted.map((q) => q.slice(1, -1))].filter(
    (w) => [...w].length >= MIN_CHARS_FOR_PARTIAL_MATCHING,
  )
  return words.length > 0 ? { kind: 'words', words: words.map((w) => w.toLowerCase()) } : { kind: 'exact', text: whole }
}

/** A LIKE pattern matching `word` anywhere, with LIKE's own characters escaped by `\`. */
export function containsPattern(word: string): string {
  return `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

function trigramsOf(text: string): Set<string> {
  const grams = new Set<string>()
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word === '') continue
    const padded = `  ${word} `
    const chars = [...padded]
    for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars.slice(i, i + 3).join(''))
  }
  return grams
}

/** pg_trgm's `similarity(a, b)`: shared trigrams over all trigrams of both, 0 when neither has any. */
export function trigramSimilarity(a: string, b: string): number {
  const left = trigramsOf(a)
  const right = trigramsOf(b)
  if (left.size === 0 && right.size === 0) return 0
  let shared = 0
  for (const gram of left) if (right.has(gram)) shared += 1
  return shared / (left.size + right.size - shared)
}
