import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { defaultSettings, SETTING_NAMES } from '../../core/settings.js'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { SETTINGS_TTL_MS } from './cache.js'

let server: TestServer
let request: ReturnType<typeof client>
let userToken: string
let adminReadToken: string

const SETTINGS = '/api/v4/application/settings'

const defaultsJson = {
  id: 1,
  ...defaultSettings,
  password_authentication_enabled: true,
  signin_enabled: true,
}

const AT_LEAST_ONE = `${[...SETTING_NAMES, 'password_authentication_enabled', 'signin_enabled'].join(', ')} are missing, at least one parameter must be provided`

function put(body: unknown, token = server.rootToken) {
  return request('PUT', SETTINGS, { token, body })
}

async function currentSettings() {
  const res = await request('GET', SETTINGS, { token: server.rootToken })
  expect(res.status).toBe(200)
  return res.body
}

/** Puts the defaults back so each test starts from them. */
async function restoreDefaults() {
  const res = await put(defaultSettings)
  expect(res.status).toBe(200)
}

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const user = await createTestUser(server.database.db)
  userToken = (await createTestToken(server.database.db, user)).value
  const root = await server.database.db.selectFrom('users').select('id').where('username', '=', 'root').executeTakeFirstOrThrow()
  adminReadToken = (await createTestToken(server.database.db, root, { scopes: ['read_api'] })).value
})
afterAll(() => server.close())

describe('GET /application/settings', () => {
  test('anonymous callers get 401', async () => {
    const res = await request('GET', SETTINGS)
    expect(res.status).toBe(401)
    expect(res.headers['content-type']).toBe('application/json')
    expect(res.body).toEqual({ message: '401 Unauthorized' })
  })

  test('non-admins get 403', async () => {
    const res = await request('GET', SETTINGS, { token: userToken })
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ message: '403 Forbidden' })
  })

  test('an admin gets every setting, id first, GitLab defaults and legacy aliases', async () => {
    const res = await request('GET', SETTINGS, { token: server.rootToken })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('application/json')
    expect(res.body).toEqual(defaultsJson)
    expect(Object.keys(res.body)).toEqual(Object.keys(defaultsJson))
    expect(res.body).toMatchObject({
      throttle_authenticated_api_enabled: false,
      throttle_authenticated_api_requests_per_period: 7200,
      throttle_authenticated_api_period_in_seconds: 3600,
      throttle_unauthenticated_api_enabled: false,
      throttle_unauthenticated_api_requests_per_period: 3600,
      throttle_unauthenticated_api_period_in_seconds: 3600,
      signup_enabled: true,
      password_authentication_enabled_for_web: true,
      default_project_visibility: 'private',
      max_personal_access_token_lifetime: null,
      rate_limiting_response_text: null,
    })
  })

  test('a read_api token of an admin may read', async () => {
    const res = await request('GET', SETTINGS, { token: adminReadToken })
    expect(res.status).toBe(200)
    expect(res.body.id).toBe(1)
  })

  test('stored rows of unknown names or of the wrong type are ignored', async () => {
    const at = new Date().toISOString()
    await server.database.db
      .insertInto('application_settings')
      .values([
        { name: 'no_such_setting', value: 'true', updated_at: at },
        { name: 'signup_enabled', value: '"sometimes"', updated_at: at },
        { name: 'default_projects_limit', value: 'not json', updated_at: at },
      ])
      .execute()
    try {
      const body = await currentSettings()
      expect(body).toEqual(defaultsJson)
      expect(body).not.toHaveProperty('no_such_setting')
    } finally {
      await server.database.db.deleteFrom('application_settings').execute()
    }
  })
})

describe('PUT /application/settings', () => {
  test('anonymous callers get 401', async () => {
    const res = await request('PUT', SETTINGS, { body: { signup_enabled: false } })
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ message: '401 Unauthorized' })
  })

  test('non-admins get 403, whatever they send, and nothing changes', async () => {
    for (const body of [
      { signup_enabled: false },
      {},
      { default_projects_limit: 'many' },
      { throttle_authenticated_api_period_in_seconds: 0 },
    ]) {
      const res = await put(body, userToken)
      expect(res.status).toBe(403)
      expect(res.body).toEqual({ message: '403 Forbidden' })
    }
    expect(await currentSettings()).toEqual(defaultsJson)
  })

  test('a read_api token cannot write', async () => {
    const res = await put({ signup_enabled: false }, adminReadToken)
    expect(res.status).toBe(403)
    expect(res.body).toEqual({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api',
    })
  })

  test('no recognised param is Grape at_least_one_of', async () => {
    for (const body of [undefined, {}, { no_such_setting: true }, { id: 2 }]) {
      const res = await request('PUT', SETTINGS, { token: server.rootToken, body })
      expect(res.status).toBe(400)
      expect(res.headers['content-type']).toBe('application/json')
      expect(res.body).toEqual({ error: AT_LEAST_ONE })
    }
  })

  test('changes the given settings and answers the whole record', async () => {
    try {
      const res = await put({
        signup_enabled: false,
        throttle_authenticated_api_enabled: true,
        throttle_authenticated_api_requests_per_period: 100,
        throttle_authenticated_api_period_in_seconds: 60,
        default_project_visibility: 'internal',
        max_personal_access_token_lifetime: 30,
        rate_limiting_response_text: 'Slow down',
        unknown_param: 'ignored',
      })
      expect(res.status).toBe(200)
      const expected = {
        ...defaultsJson,
        signup_enabled: false,
        throttle_authenticated_api_enabled: true,
        throttle_authenticated_api_requests_per_period: 100,
        throttle_authenticated_api_period_in_seconds: 60,
        default_project_visibility: 'internal',
        max_personal_access_token_lifetime: 30,
        rate_limiting_response_text: 'Slow down',
      }
      expect(res.body).toEqual(expected)
      expect(Object.keys(res.body)).toEqual(Object.keys(defaultsJson))
      expect(await currentSettings()).toEqual(expected)

      // One row per given setting, its value as JSON.
      const rows = await server.database.db.selectFrom('application_settings').select(['name', 'value']).orderBy('name').execute()
      expect(rows).toEqual([
        { name: 'default_project_visibility', value: '"internal"' },
        { name: 'max_personal_access_token_lifetime', value: '30' },
        { name: 'rate_limiting_response_text', value: '"Slow down"' },
        { name: 'signup_enabled', value: 'false' },
        { name: 'throttle_authenticated_api_enabled', value: 'true' },
        { name: 'throttle_authenticated_api_period_in_seconds', value: '60' },
        { name: 'throttle_authenticated_api_requests_per_period', value: '100' },
      ])

      // null clears a nullable setting.
      const cleared = await put({ max_personal_access_token_lifetime: null, rate_limiting_response_text: null })
      expect(cleared.status).toBe(200)
      expect(cleared.body.max_personal_access_token_lifetime).toBeNull()
      expect(cleared.body.rate_limiting_response_text).toBeNull()
    } finally {
      await restoreDefaults()
    }
  })

  test('form and query params are coerced Grape-style', async () => {
    try {
      const form = await request('PUT', SETTINGS, {
        token: server.rootToken,
        form: true,
        body: { signup_enabled: 'no', default_projects_limit: '12', user_oauth_applications: '0' },
      })
      expect(form.status).toBe(200)
      expect(form.body).toMatchObject({ signup_enabled: false, default_projects_limit: 12, user_oauth_applications: false })
      const query = await request('PUT', `${SETTINGS}?can_create_group=false&minimum_password_length=10`, { token: server.rootToken })
      expect(query.status).toBe(200)
      expect(query.body).toMatchObject({ can_create_group: false, minimum_password_length: 10, default_projects_limit: 12 })
    } finally {
      await restoreDefaults()
    }
  })

  test('legacy names of password_authentication_enabled_for_web are read and shown', async () => {
    try {
      for (const name of ['signin_enabled', 'password_authentication_enabled']) {
        const off = await put({ [name]: false })
        expect(off.status).toBe(200)
        expect(off.body).toMatchObject({
          password_authentication_enabled_for_web: false,
          password_authentication_enabled: false,
          signin_enabled: false,
        })
        const on = await put({ [name]: true })
        expect(on.body.password_authentication_enabled_for_web).toBe(true)
      }
      const both = await put({ password_authentication_enabled_for_web: false, signin_enabled: false })
      expect(both.status).toBe(400)
      expect(both.body).toEqual({ error: 'password_authentication_enabled_for_web, signin_enabled are mutually exclusive' })
      expect((await currentSettings()).password_authentication_enabled_for_web).toBe(true)
    } finally {
      await restoreDefaults()
    }
  })

  test.each([
    [{ throttle_authenticated_api_period_in_seconds: 'abc' }, 'throttle_authenticated_api_period_in_seconds is invalid'],
    [{ throttle_authenticated_api_requests_per_period: '10 per minute' }, 'throttle_authenticated_api_requests_per_period is invalid'],
    [{ default_projects_limit: [1, 2] }, 'default_projects_limit is invalid'],
    [{ default_projects_limit: { a: 1 } }, 'default_projects_limit is invalid'],
    [{ default_projects_limit: 1.5 }, 'default_projects_limit is invalid'],
    [{ default_projects_limit: 99999999999 }, 'default_projects_limit is invalid'],
    [{ signup_enabled: 'maybe' }, 'signup_enabled is invalid'],
    [{ signup_enabled: ['true'] }, 'signup_enabled is invalid'],
    [{ signup_enabled: 2 }, 'signup_enabled is invalid'],
    [{ rate_limiting_response_text: ['Retry'] }, 'rate_limiting_response_text is invalid'],
    [{ default_project_visibility: 'secret' }, 'default_project_visibility does not have a valid value'],
    [{ default_project_visibility: 10 }, 'default_project_visibility does not have a valid value'],
    [
      { signup_enabled: 'maybe', default_projects_limit: 'x', throttle_unauthenticated_api_enabled: true },
      'default_projects_limit is invalid, signup_enabled is invalid',
    ],
  ])('wrong type %j is a 400 and changes nothing', async (body, error) => {
    const res = await put({ ...body, can_create_group: false })
    expect(res.status).toBe(400)
    expect(res.headers['content-type']).toBe('application/json')
    expect(res.body).toEqual({ error })
    expect(await currentSettings()).toEqual(defaultsJson)
  })

  test.each([
    [{ throttle_authenticated_api_period_in_seconds: 0 }, { throttle_authenticated_api_period_in_seconds: ['must be greater than 0'] }],
    [
      { throttle_unauthenticated_api_period_in_seconds: -60 },
      { throttle_unauthenticated_api_period_in_seconds: ['must be greater than 0'] },
    ],
    [{ throttle_authenticated_api_requests_per_period: 0 }, { throttle_authenticated_api_requests_per_period: ['must be greater than 0'] }],
    [
      { throttle_unauthenticated_api_requests_per_period: '-1' },
      { throttle_unauthenticated_api_requests_per_period: ['must be greater than 0'] },
    ],
    [{ default_projects_limit: -1 }, { default_projects_limit: ['must be greater than or equal to 0'] }],
    [{ offset_pagination_limit: -5 }, { offset_pagination_limit: ['must be greater than or equal to 0'] }],
    [{ users_get_by_id_limit: -1 }, { users_get_by_id_limit: ['must be greater than or equal to 0'] }],
    [{ minimum_password_length: 7 }, { minimum_password_length: ['must be greater than or equal to 8'] }],
    [{ minimum_password_length: 129 }, { minimum_password_length: ['must be less than or equal to 128'] }],
    [{ max_personal_access_token_lifetime: 0 }, { max_personal_access_token_lifetime: ['must be greater than 0'] }],
    [{ max_personal_access_token_lifetime: 366 }, { max_personal_access_token_lifetime: ['must be less than or equal to 365'] }],
    [{ rate_limiting_response_text: 'x'.repeat(256) }, { rate_limiting_response_text: ['is too long (maximum is 255 characters)'] }],
    [
      { throttle_authenticated_api_period_in_seconds: 0, throttle_authenticated_api_requests_per_period: -3, minimum_password_length: 1 },
      {
        minimum_password_length: ['must be greater than or equal to 8'],
        throttle_authenticated_api_period_in_seconds: ['must be greater than 0'],
        throttle_authenticated_api_requests_per_period: ['must be greater than 0'],
      },
    ],
  ])('value out of bounds %j is a 400 with GitLab messages and changes nothing', async (body, message) => {
    const rows = () => server.database.db.selectFrom('application_settings').selectAll().orderBy('name').execute()
    const before = await rows()
    const res = await put({ ...body, signup_enabled: false, throttle_authenticated_api_enabled: true })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ message })
    expect(Object.keys(res.body.message)).toEqual(Object.keys(message))
    expect(await currentSettings()).toEqual(defaultsJson)
    expect(await rows()).toEqual(before)
  })

  test('bounds are inclusive where GitLab says so', async () => {
    try {
      const res = await put({
        minimum_password_length: 128,
        max_personal_access_token_lifetime: 365,
        default_projects_limit: 0,
        throttle_authenticated_api_period_in_seconds: 1,
        rate_limiting_response_text: 'x'.repeat(255),
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ minimum_password_length: 128, max_personal_access_token_lifetime: 365, default_projects_limit: 0 })
    } finally {
      await restoreDefaults()
    }
  })
})

describe('outbound requests settings', () => {
  const ALLOWLIST = 'outbound_local_requests_whitelist'

  test("GitLab's defaults: system hooks may reach local addresses, webhooks may not, DNS answers are pinned, nothing is allowlisted", async () => {
    const body = await currentSettings()
    expect(body).toMatchObject({
      allow_local_requests_from_system_hooks: true,
      allow_local_requests_from_web_hooks_and_services: false,
      dns_rebinding_protection_enabled: true,
      outbound_local_requests_whitelist: [],
    })
  })

  test('the three switches are changed and shown', async () => {
    try {
      const res = await put({
        allow_local_requests_from_system_hooks: false,
        allow_local_requests_from_web_hooks_and_services: true,
        dns_rebinding_protection_enabled: 'false',
      })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({
        ...defaultsJson,
        allow_local_requests_from_system_hooks: false,
        allow_local_requests_from_web_hooks_and_services: true,
        dns_rebinding_protection_enabled: false,
      })
      expect(await currentSettings()).toEqual(res.body)
    } finally {
      await restoreDefaults()
    }
  })

  test('the allowlist is taken as an array or as one comma-separated string, each entry stripped, and stored as given', async () => {
    try {
      const entries = ['127.0.0.1', '10.0.0.0/8', 'hooks.internal', 'hooks.internal:8080', '[::1]:80', 'fd00::/8']
      const asArray = await put({ [ALLOWLIST]: entries })
      expect(asArray.status).toBe(200)
      expect(asArray.body[ALLOWLIST]).toEqual(entries)
      const row = await server.database.db
        .selectFrom('application_settings')
        .select('value')
        .where('name', '=', ALLOWLIST)
        .executeTakeFirstOrThrow()
      expect(JSON.parse(row.value)).toEqual(entries)

      const asString = await put({ [ALLOWLIST]: ' 192.168.0.1 ,example.test:443, a,,b,' })
      expect(asString.status).toBe(200)
      // Ruby's split keeps an empty piece between two commas and drops the trailing ones.
      expect(asString.body[ALLOWLIST]).toEqual(['192.168.0.1', 'example.test:443', 'a', '', 'b'])

      const itemsSplit = await put({ [ALLOWLIST]: ['a.test,b.test', 'c.test'] })
      expect(itemsSplit.body[ALLOWLIST]).toEqual(['a.test', 'b.test', 'c.test'])

      const form = await request('PUT', SETTINGS, {
        token: server.rootToken,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `${ALLOWLIST}[]=10.1.2.3&${ALLOWLIST}[]=hooks.test`,
      })
      expect(form.status).toBe(200)
      expect(form.body[ALLOWLIST]).toEqual(['10.1.2.3', 'hooks.test'])

      const query = await request('PUT', `${SETTINGS}?${ALLOWLIST}=one.test,two.test`, { token: server.rootToken })
      expect(query.body[ALLOWLIST]).toEqual(['one.test', 'two.test'])

      const cleared = await put({ [ALLOWLIST]: '' })
      expect(cleared.status).toBe(200)
      expect(cleared.body[ALLOWLIST]).toEqual([])
      expect((await currentSettings())[ALLOWLIST]).toEqual([])
    } finally {
      await restoreDefaults()
    }
  })

  test('1000 entries of 255 characters are the most GitLab keeps', async () => {
    try {
      const entries = Array.from({ length: 1000 }, (_, index) => `${index}.${'x'.repeat(250)}`.slice(0, 255))
      const res = await put({ [ALLOWLIST]: entries })
      expect(res.status).toBe(200)
      expect(res.body[ALLOWLIST]).toHaveLength(1000)
    } finally {
      await restoreDefaults()
    }
  })

  test.each([
    [null, ['entries cannot be nil']],
    [
      Array.from({ length: 1001 }, (_, index) => `10.0.${Math.floor(index / 256)}.${index % 256}`),
      ['is too long (maximum is 1000 entries)'],
    ],
    [['ok.test', 'x'.repeat(256)], ['entries cannot be larger than 255 characters']],
    [['bücher.example'], ['unicode domains should use IDNA encoding']],
    [['<b>hooks.test</b>'], ['entries cannot contain HTML tags']],
    [['hooks.test&amp;'], ['entries cannot contain HTML tags']],
    [
      ['ü'.repeat(256), '<i>x</i>'],
      ['entries cannot be larger than 255 characters', 'unicode domains should use IDNA encoding', 'entries cannot contain HTML tags'],
    ],
  ])('allowlist %#: GitLab refuses it with its messages and nothing changes', async (value, messages) => {
    const res = await put({ [ALLOWLIST]: value, allow_local_requests_from_web_hooks_and_services: true })
    expect(res.status).toBe(400)
    expect(res.headers['content-type']).toBe('application/json')
    expect(res.body).toEqual({ message: { [ALLOWLIST]: messages } })
    expect(await currentSettings()).toEqual(defaultsJson)
  })

  test.each([[{ a: 'b' }], [[{ a: 'b' }]]])('an allowlist of the wrong type %j is a 400', async (value) => {
    const res = await put({ [ALLOWLIST]: value })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error: `${ALLOWLIST} is invalid` })
    expect(await currentSettings()).toEqual(defaultsJson)
  })
})

describe('several nodes over one database', () => {
  test('a change through one node is seen by another: at once through Redis, else within the cache TTL', async () => {
    const other = await startTestServer({}, { sharing: server })
    const requestOther = client(other.url)
    try {
      // The other node has read the settings and, with its clock stopped, would keep its copy forever.
      other.freeze()
      expect((await requestOther('GET', '/api/v4/version')).status).toBe(401)

      const res = await put({ throttle_unauthenticated_api_enabled: true, throttle_unauthenticated_api_requests_per_period: 1 })
      expect(res.status).toBe(200)

      // The settings API reads past the cache, as GitLab's does.
      const seen = await requestOther('GET', SETTINGS, { token: server.rootToken })
      expect(seen.body).toMatchObject({ throttle_unauthenticated_api_enabled: true, throttle_unauthenticated_api_requests_per_period: 1 })

      if (other.redis) {
        // The change was announced: the other node throttles from its next request on.
        expect((await requestOther('GET', '/api/v4/version')).status).toBe(401)
        expect((await requestOther('GET', '/api/v4/version')).status).toBe(429)
      } else {
        // Its copy is still the old one until the TTL runs out.
        expect((await requestOther('GET', '/api/v4/version')).status).toBe(401)
        expect((await requestOther('GET', '/api/v4/version')).status).toBe(401)
        other.travel(SETTINGS_TTL_MS)
        expect((await requestOther('GET', '/api/v4/version')).status).toBe(401)
        expect((await requestOther('GET', '/api/v4/version')).status).toBe(429)
      }
    } finally {
      await other.close()
      await restoreDefaults()
    }
  })
})
