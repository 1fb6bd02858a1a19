import { describe, expect, test } from 'vitest'
import { parseDueDate, shortDate } from './dates.js'
import { extractCommands } from './extract.js'

const NAMES = ['close', 'label', 'labels', 'assign', 'due']

describe('finding commands', () => {
  test('takes command lines out of the text, in order, with their arguments', () => {
    expect(extractCommands('Looks broken.\n/label ~bug ~"needs review"\n/assign me\n\nThanks', NAMES)).toEqual({
      content: 'Looks broken.\nThanks',
      commands: [
        { name: 'label', arg: '~bug ~"needs review"' },
        { name: 'assign', arg: 'me' },
      ],
    })
  })

  test('a text of commands alone leaves nothing; names are read in any case; carriage returns go', () => {
    expect(extractCommands('/CLOSE\r\n/Labels ~bug\r\n', NAMES)).toEqual({
      content: '',
      commands: [
        { name: 'close', arg: null },
        { name: 'labels', arg: '~bug' },
      ],
    })
  })

  test('commands in code blocks, inline code, HTML blocks and >>> quotes stay text; unknown commands stay text', () => {
    const text = '```\n/close\n```\n<details>\n/close\n</details>\n>>>\n/close\n>>>\n/closed\n/unknown thing\nsay `/close`'
    expect(extractCommands(text, NAMES)).toEqual({ content: text, commands: [] })
  })

  test('a command must start its line', () => {
    expect(extractCommands('please /close this', NAMES).commands).toEqual([])
  })
})

describe('due dates as GitLab reads them', () => {
  // A Wednesday.
  const now = new Date('2026-11-25T15:00:00.000Z')

  test.each([
    ['2026-12-01', '2026-12-01'],
    ['2027/01/05', '2027-01-05'],
    ['12/31/2026', '2026-12-31'],
    ['today', '2026-11-25'],
    ['tomorrow', '2026-11-26'],
    ['in 2 days', '2026-11-27'],
    ['in two weeks', '2026-12-09'],
    ['in 1 month', '2026-12-25'],
    ['3 days from now', '2026-11-28'],
    ['next week', '2026-12-02'],
    ['friday', '2026-11-27'],
    ['this Friday', '2026-11-27'],
    ['next wednesday', '2026-12-02'],
    ['December 31st', '2026-12-31'],
    ['Dec 31, 2027', '2027-12-31'],
    ['31 December', '2026-12-31'],
    ['January 5th', '2027-01-05'],
  ])('%s', (text, date) => {
    expect(parseDueDate(text, now)).toBe(date)
  })

  test.each(['soon', '2026-02-30', 'in many days', '', 'the 5th'])('"%s" is no date', (text) => {
    expect(parseDueDate(text, now)).toBeNull()
  })

  test('messages write the day as "Dec 1, 2026"', () => {
    expect(shortDate('2026-12-01')).toBe('Dec 1, 2026')
  })
})
