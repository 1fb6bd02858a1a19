import { parseSetCookie } from 'cookie'
import { expect } from 'vitest'
import { client, type RequestOptions, type TestResponse } from '../../testing/http.js'
import { SESSION_COOKIE } from './service.js'

/** A browser-like client of the web pages: it keeps `_svc_session` from Set-Cookie and sends it back. */
export function webClient(baseUrl: string) {
  const request = client(baseUrl)
  const jar = {
    cookie: null as string | null,
    async request(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> {
      const headers = { ...options.headers }
      if (jar.cookie !== null && headers.cookie === undefined) headers.cookie = `${SESSION_COOKIE}=${jar.cookie}`
      const response = await request(method, path, { ...options, headers })
      const setCookie = response.headers['set-cookie']
      if (setCookie) {
        const parsed = parseSetCookie(setCookie)
        if (parsed.name === SESSION_COOKIE) {
          const expired = parsed.expires !== undefined && parsed.expires.getTime() <= Date.now()
          jar.cookie = expired || !parsed.value ? null : parsed.value
        }
      }
      return response
    },
    /** The Cookie header this client sends. */
    get cookieHeader(): string {
      return `${SESSION_COOKIE}=${jar.cookie ?? ''}`
    },
    /** The authenticity_token of the page's first form (or its csrf-token meta tag). */
    async csrfTokenFrom(path: string): Promise<string> {
      const page = await jar.request('GET', path)
      return authenticityTokenOf(page.text)
    },
    /** Opens the sign-in form and submits it; the response to the POST. */
    async signIn(login: string, password: string, extra: Record<string, string> = {}): Promise<TestResponse> {
      const token = await jar.csrfTokenFrom('/users/sign_in')
      return jar.request('POST', '/users/sign_in', {
        form: true,
        body: { authenticity_token: token, 'user[login]': login, 'user[password]': password, ...extra },
      })
    },
  }
  return jar
}

/** The hidden authenticity_token in a page, else its csrf-token meta tag. */
export function authenticityTokenOf(page: string): string {
  const match = /name="authenticity_token" value="([^"]+)"/.exec(page) ?? /<meta name="csrf-token" content="([^"]+)"/.exec(page)
  expect(match, 'a CSRF token on the page').not.toBeNull()
  return match![1]
}

/** The flash message of a page, or null. */
export function flashOf(page: string): string | null {
  const match = /<div class="flash (?:alert|notice)" role="alert">([^<]*)<\/div>/.exec(page)
  return match
    ? match[1]
        .replace(/&#39;/g, "'")
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&')
    : null
}
