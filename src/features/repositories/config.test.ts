import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { ConfigError, loadConfig } from '../../config/index.js'

const EXPECTED = "expected comma-separated name=path pairs with unique names (letters, digits, '_', '-', '.'), one of them named default"

describe('SVC_STORAGES', () => {
  test('unset: one storage, default, under the data directory', () => {
    expect(loadConfig({ SVC_DATA_DIR: '/srv/svc' }).storages).toEqual({ default: '/srv/svc/repositories' })
  })

  test('name=path pairs in the order given; relative paths resolve from the working directory', () => {
    const config = loadConfig({ SVC_STORAGES: ' fast = /mnt/ssd/git ,default=/srv/git,old.disk=repos' })
    expect(config.storages).toEqual({ fast: '/mnt/ssd/git', default: '/srv/git', 'old.disk': path.resolve('repos') })
    expect(Object.keys(config.storages)).toEqual(['fast', 'default', 'old.disk'])
  })

  test.each(['fast=/mnt/ssd', 'default=/a,default=/b', 'default=/a,', 'default', 'default=', 'bad name=/x,default=/a'])(
    'refused with a message naming the variable: %s',
    (value) => {
      expect(() => loadConfig({ SVC_STORAGES: value })).toThrow(ConfigError)
      expect(() => loadConfig({ SVC_STORAGES: value })).toThrow(`SVC_STORAGES=${JSON.stringify(value)} is invalid: ${EXPECTED}`)
    },
  )
})
