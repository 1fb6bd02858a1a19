import { client, type TestResponse } from '../../testing/http.js'
import type { TestServer } from '../../testing/server.js'
import type { TestSession } from '../../testing/sessions.js'

/** A browser's view of the settings pages: GET with the session's cookie, forms posted with its token as fields. */
export function settingsClient(server: TestServer) {
  const request = client(server.url)
  return {
    get(session: TestSession | null, path: string): Promise<TestResponse> {
      return request('GET', path, { headers: session ? { cookie: session.cookie, accept: 'text/html' } : { accept: 'text/html' } })
    },
    /**
     * A form's POST: `fields` in order (a name may repeat, as checkboxes do), the session's authenticity token first
     * unless `token` says otherwise (null: none), Rails' `_method` when given.
     */
    submit(
      session: TestSession,
      path: string,
      fields: [string, string][],
      options: { method?: 'put' | 'delete' | 'patch'; token?: string | null } = {},
    ): Promise<TestResponse> {
      const token = options.token === undefined ? session.csrfToken : options.token
      const form: [string, string][] = [...(token === null ? [] : [['authenticity_token', token] as [string, string]]), ...fields]
      if (options.method) form.unshift(['_method', options.method])
      return request('POST', path, {
        headers: { cookie: session.cookie, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      })
    },
  }
}
