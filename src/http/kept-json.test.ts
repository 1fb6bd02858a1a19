import { expect, test } from 'vitest'
import { jsonArray, keptJson } from './kept-json.js'

test('JSON is kept with a frozen row by key, and made afresh for a row that is not frozen', () => {
  let made = 0
  const make = (text: string) => () => {
    made += 1
    return text
  }
  const row = Object.freeze({ id: 1 })
  const first = keptJson(row, 'a', make('{"id":1}'))
  expect(first.toString()).toBe('{"id":1}')
  expect(keptJson(row, 'a', make('not asked'))).toBe(first)
  expect(keptJson(row, 'b', make('{"id":1,"b":true}')).toString()).toBe('{"id":1,"b":true}')
  expect(made).toBe(2)
  const open = { id: 2 }
  expect(keptJson(open, 'a', make('{"id":2}')).toString()).toBe('{"id":2}')
  expect(keptJson(open, 'a', make('{"id":2,"again":true}')).toString()).toBe('{"id":2,"again":true}')
  expect(made).toBe(4)
})

test('a joined page is answered again only for the very same entities in the same order', () => {
  const [a, b, c] = ['{"id":1}', '{"id":2}', '{"id":3}'].map((json) => Buffer.from(json))
  expect(jsonArray([]).toString()).toBe('[]')
  const first = jsonArray([a, b])
  expect(first.toString()).toBe('[{"id":1},{"id":2}]')
  expect(jsonArray([a, b])).toBe(first)
  // The same first entity, then another object with the same bytes or other bytes: joined anew.
  expect(jsonArray([a, Buffer.from('{"id":2}')])).not.toBe(first)
  expect(jsonArray([a, c]).toString()).toBe('[{"id":1},{"id":3}]')
  expect(jsonArray([a, c, b]).toString()).toBe('[{"id":1},{"id":3},{"id":2}]')
  expect(jsonArray([a]).toString()).toBe('[{"id":1}]')
})
