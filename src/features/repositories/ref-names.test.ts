import { spawnSync } from 'node:child_process'
import { describe, expect, test } from 'vitest'
import { isReadableRefName, isValidRefName, isWellFormedRef } from './ref-names.js'

// GL spec/lib/gitlab/git_ref_validator_spec.rb, and what git-check-ref-format(1) adds.
const ACCEPTED = [
  'feature/new',
  'implement_@all',
  'my_new_feature',
  'my-branch',
  '#1',
  'feature/refs/heads/foo',
  'refs/tags/v1',
  'a./b',
  'x@y',
  'ünïcode/ブランチ',
  'a'.repeat(64),
  'v1.0',
]

const REFUSED = [
  '',
  'HEAD',
  '@',
  'feature/~new/',
  'feature/^new/',
  'feature/:new/',
  'feature/?new/',
  'feature/*new/',
  'feature/[new/',
  'feature/new/',
  'feature/new.',
  'feature@{',
  'feature\\new',
  'feature//new',
  'feature new',
  'refs/heads/',
  'refs/remotes/',
  'refs/heads/feature',
  'refs/remotes/origin',
  '-',
  '-branch',
  '+foo:bar',
  'foo:bar',
  '.tag',
  'a/.b',
  'x.lock',
  'a/x.lock/b',
  'a..b',
  '/a',
  'a\tb',
  'a\u007fb',
  'a\nb',
  'a\u0000b',
]

function gitAccepts(ref: string): boolean {
  return spawnSync('git', ['check-ref-format', ref]).status === 0
}

describe('ref names', () => {
  test.each(ACCEPTED)('GitLab accepts %j for a new branch or tag', (name) => {
    expect(isValidRefName(name)).toBe(true)
    expect(isReadableRefName(name)).toBe(true)
  })

  test.each(REFUSED)('GitLab refuses %j for a new branch or tag', (name) => {
    expect(isValidRefName(name)).toBe(false)
  })

  test('a full ref name is well formed exactly when git check-ref-format says so', () => {
    const names = [...ACCEPTED, ...REFUSED].filter((name) => !name.includes('\0'))
    for (const name of names) {
      const ref = `refs/heads/${name}`
      expect(isWellFormedRef(ref), ref).toBe(gitAccepts(ref))
    }
  })

  test('a name read as a branch may be HEAD or carry a refs/ prefix, but never reads as an option', () => {
    expect(['HEAD', 'refs/heads/main', '@'].map(isReadableRefName)).toEqual([true, true, true])
    expect(['-main', 'a..b', 'x@{1}', ''].map(isReadableRefName)).toEqual([false, false, false, false])
  })
})
