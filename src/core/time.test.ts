import { expect, test } from 'vitest'
import { isoDate } from './time.js'

test("isoDate answers each moment's UTC day, also when days alternate and before 1970", () => {
  const moments = [
    '2026-11-27T23:59:59.999Z',
    '2026-11-28T00:00:00.000Z',
    '2026-11-27T00:00:00.000Z',
    '1969-12-31T23:59:59.000Z',
    '1970-01-01T00:00:00.000Z',
  ]
  expect(moments.map((moment) => isoDate(new Date(moment)))).toEqual(['2026-11-27', '2026-11-28', '2026-11-27', '1969-12-31', '1970-01-01'])
  expect(() => isoDate(new Date('not a date'))).toThrow(RangeError)
})
