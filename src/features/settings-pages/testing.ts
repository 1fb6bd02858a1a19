import { client, type TestResponse } from '../../testing/http.js'
import type { TestSession } from '../../testing/sessions.js'

// What the settings pages' tests share: a browser's form posts, field pairs in order (a checkbox's hidden "0" then its
// "1", `scopes[]` repeated), with or without the session's CSRF token.

export type Fields = [string, string][] | Record<string, string>

function encoded(fields: Fields): string {
  return new URLSearchParams(Array.isArray(fields) ? fields : Object.entries(fields)).toString()
}

export function pages(baseUrl: string) {
  const request = client(baseUrl)
  return {
    /** A page as a browser asks for it, signed in as `session` (or not at all). */
    get(path: string, session: TestSession | null): Promise<TestResponse> {
      return request('GET', path, { headers: session ? { cookie: session.cookie, accept: 'text/html' } : { accept: 'text/html' } })
    },
    /** A form's POST; `token` null sends none (a forged form), a string sends that one. */
    post(path: string, session: TestSession, fields: Fields, token: string | null = session.csrfToken): Promise<TestResponse> {
      const pairs: [string, string][] = Array.isArray(fields) ? [...fields] : Object.entries(fields)
      if (token !== null) pairs.unshift(['authenticity_token', token])
      return request('POST', path, {
        headers: { cookie: session.cookie, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
        body: encoded(pairs),
      })
    },
  }
}

export const XSS = '<script>alert(1)</script>'
