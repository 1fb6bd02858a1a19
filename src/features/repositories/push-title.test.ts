import { describe, expect, test } from 'vitest'
import { pushCommitTitle } from './push-title.js'

describe('push event commit titles', () => {
  test.each([
    ['Add a file\n\nWith a body', 'Add a file'],
    ['  spaced out \t\n', 'spaced out'],
    ['\n\nbody only', ''],
    ['', ''],
    ['carriage\rreturn kept\nnext', 'carriage\rreturn kept'],
    ['windows line\r\nnext', 'windows line'],
    ['\u00a0non-breaking spaces stay\u00a0', '\u00a0non-breaking spaces stay\u00a0'],
    ['\0nul\0', 'nul'],
    ['x'.repeat(70), 'x'.repeat(70)],
    ['x'.repeat(71), `${'x'.repeat(67)}...`],
    ['😀'.repeat(70), '😀'.repeat(70)],
    [`${'😀'.repeat(71)}\nbody`, `${'😀'.repeat(67)}...`],
  ])('%j has the title %j', (message, title) => {
    expect(pushCommitTitle(message)).toBe(title)
  })
})
