import SQLite from 'better-sqlite3'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { withRowsOfOneShape } from './rows.js'

// Rows built by withRowsOfOneShape must equal better-sqlite3's own, whatever the columns are called.
let file: SQLite.Database

beforeAll(() => {
  file = new SQLite(':memory:')
  file.exec(`create table t (id integer primary key, name text, "__proto__" text, "a b" text)`)
  file.exec(`insert into t (id, name, "__proto__", "a b") values (1, 'one', 'p1', 'x'), (2, 'two', null, 'y')`)
})
afterAll(() => file.close())

const queries = [
  'select id, name from t order by id',
  `select id, name, "a b" from t order by id`,
  // Same-named columns: the last one wins.
  'select id, name, id * 10 as id from t order by id',
  'select count(*) from t',
]

test.each(queries)('all, get and iterate answer the rows better-sqlite3 answers: %s', (query) => {
  const shaped = withRowsOfOneShape(file.prepare(query))
  const plain = file.prepare(query)
  expect(shaped.all()).toStrictEqual(plain.all())
  expect(shaped.get()).toStrictEqual(plain.get())
  expect([...shaped.iterate()]).toStrictEqual([...plain.iterate()])
})

// better-sqlite3 itself makes such a column the row's prototype.
test('a `__proto__` column is a field, not the prototype', () => {
  const row = withRowsOfOneShape(file.prepare('select * from t where id = 1')).get() as Record<string, unknown>
  expect(Object.getPrototypeOf(row)).toBe(Object.prototype)
  expect(Object.keys(row)).toEqual(['id', 'name', '__proto__', 'a b'])
  expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe('p1')
})

test('no row is undefined from get, and writing statements are left as they are', () => {
  expect(withRowsOfOneShape(file.prepare('select * from t where id = 99')).get()).toBeUndefined()
  const insert = withRowsOfOneShape(file.prepare(`insert into t (id, name) values (3, 'three')`))
  expect(insert.run().changes).toBe(1)
})
