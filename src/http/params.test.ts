import { Type } from '@sinclair/typebox'
import { describe, expect, test } from 'vitest'
import { MissingParam, ParamError } from '../core/errors.js'
import { parseParams } from './params.js'

const schema = Type.Object({
  name: Type.String(),
  count: Type.Optional(Type.Integer({ minimum: 0 })),
  active: Type.Optional(Type.Boolean()),
  sort: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }),
  tags: Type.Optional(Type.Array(Type.String())),
  scopes: Type.Optional(Type.Array(Type.String(), { commaSeparated: true })),
  since: Type.Optional(Type.String({ format: 'date' })),
  at: Type.Optional(Type.String({ format: 'date-time' })),
  priority: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  labels: Type.Optional(Type.Object({ color: Type.Optional(Type.String()) })),
})

function errorOf(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  return null
}

describe('parseParams', () => {
  test('coerces strings as Grape does and fills defaults; unknown params are dropped', () => {
    expect(parseParams(schema, { name: 'a', count: '12', active: 'True', extra: 'x' })).toEqual({
      name: 'a',
      count: 12,
      active: true,
      sort: 'desc',
    })
  })

  test('accepts every dry-types boolean spelling and refuses others', () => {
    for (const word of ['1', 'true', 'True', 'TRUE', 't', 'yes', 'on', 'y'])
      expect(parseParams(schema, { name: 'a', active: word }).active).toBe(true)
    for (const word of ['0', 'false', 'False', 'FALSE', 'f', 'no', 'off', 'n'])
      expect(parseParams(schema, { name: 'a', active: word }).active).toBe(false)
    expect(parseParams(schema, { name: 'a', active: false }).active).toBe(false)
    expect(errorOf(() => parseParams(schema, { name: 'a', active: 'maybe' }))).toEqual(new ParamError('active is invalid'))
  })

  test('reports the first missing required param with the contract body', () => {
    const error = errorOf(() => parseParams(schema, { count: '1' }))
    expect(error).toBeInstanceOf(MissingParam)
    expect((error as MissingParam).attribute).toBe('name')
  })

  test('joins type failures in declaration order', () => {
    const error = errorOf(() => parseParams(schema, { name: 'a', count: 'many', sort: 'sideways' }))
    expect(error).toEqual(new ParamError('count is invalid, sort does not have a valid value'))
  })

  test('refuses arrays and objects where scalars are expected', () => {
    expect(errorOf(() => parseParams(schema, { name: ['a', 'b'] }))).toEqual(new ParamError('name is invalid'))
    expect(errorOf(() => parseParams(schema, { name: { a: 1 } }))).toEqual(new ParamError('name is invalid'))
  })

  test('refuses integers out of range and below a minimum', () => {
    expect(errorOf(() => parseParams(schema, { name: 'a', count: '99999999999999' }))).toEqual(new ParamError('count is invalid'))
    expect(errorOf(() => parseParams(schema, { name: 'a', count: '-1' }))).toEqual(new ParamError('count does not have a valid value'))
    expect(errorOf(() => parseParams(schema, { name: 'a', count: 1.5 }))).toEqual(new ParamError('count is invalid'))
  })

  test('reads arrays from a[]=, JSON arrays, indexed hashes and comma-separated strings where declared', () => {
    expect(parseParams(schema, { name: 'a', tags: ['x', 'y'] }).tags).toEqual(['x', 'y'])
    expect(parseParams(schema, { name: 'a', tags: { 0: 'x', 1: 'y' } }).tags).toEqual(['x', 'y'])
    expect(parseParams(schema, { name: 'a', scopes: 'api,read_user' }).scopes).toEqual(['api', 'read_user'])
    expect(errorOf(() => parseParams(schema, { name: 'a', tags: 'x' }))).toEqual(new ParamError('tags is invalid'))
  })

  test('checks dates and datetimes, normalising datetimes to UTC', () => {
    expect(parseParams(schema, { name: 'a', since: '2026-02-28' }).since).toBe('2026-02-28')
    expect(errorOf(() => parseParams(schema, { name: 'a', since: '2026-02-30' }))).toEqual(new ParamError('since is invalid'))
    expect(parseParams(schema, { name: 'a', at: '2026-11-23T10:00:00+02:00' }).at).toBe('2026-11-23T08:00:00.000Z')
    expect(errorOf(() => parseParams(schema, { name: 'a', at: 'yesterday' }))).toEqual(new ParamError('at is invalid'))
  })

  test('null clears a nullable param and blank means not given', () => {
    expect(parseParams(schema, { name: 'a', priority: null }).priority).toBeNull()
    expect(parseParams(schema, { name: 'a', priority: '' }).priority).toBeUndefined()
    expect(parseParams(schema, { name: 'a', count: '' }).count).toBeUndefined()
    expect(parseParams(schema, { name: '' }).name).toBe('')
  })

  test('names nested hash params with brackets', () => {
    expect(parseParams(schema, { name: 'a', labels: { color: 'red', other: 1 } }).labels).toEqual({ color: 'red' })
    expect(errorOf(() => parseParams(schema, { name: 'a', labels: { color: ['r'] } }))).toEqual(new ParamError('labels[color] is invalid'))
  })
})
