import { expect, test } from 'vitest'
import { mentionedNames } from './mentions.js'
import { listIdOf, sanitizeName, senderAddress } from './messages.js'

test('List-Id names the project by id, its path reversed and dotted, and the host, in at most 255 characters', () => {
  expect(listIdOf({ id: 42, fullPath: 'Space/Rocket_Engine' }, 'gitlab.example.com')).toBe('42.rocket-engine.space.gitlab.example.com')
  const deep = Array.from({ length: 40 }, (_, n) => `group${n}`).join('/')
  const id = listIdOf({ id: 7, fullPath: deep }, 'gitlab.example.com')
  expect(id.length).toBeLessThanOrEqual(255)
  expect(id).toMatch(/^7\.group39\.group38\..*\.\.\.gitlab\.example\.com$/)
  expect(listIdOf({ id: 7, fullPath: 'a/b' }, 'h'.repeat(252))).toBe(`7...${'h'.repeat(252)}`)
})

test('mentions are @names outside code, each once, lowercased; @all and addresses are no mentions', () => {
  const text = [
    'Thanks @Ada and @grace.hopper. and @space/rocket-team!',
    'Not `@inline`, not mail@example.com, not @all.',
    '```',
    '@fenced',
    '```',
    '',
    '    @indented',
    '@ada again',
  ].join('\n')
  expect(mentionedNames([text, null])).toEqual(['ada', 'grace.hopper', 'space/rocket-team'])
})

test('the sender shows the actor before the instance address, quoted; a name that reads as an address loses its dots', () => {
  expect(senderAddress({ name: 'Ada "Countess" Lovelace', username: 'ada' }, 'gitlab@example.com')).toBe(
    '"Ada \\"Countess\\" Lovelace (@ada)" <gitlab@example.com>',
  )
  expect(sanitizeName('evil.example.com')).toBe('evil_example_com')
  expect(sanitizeName('Ada Lovelace')).toBe('Ada Lovelace')
})
