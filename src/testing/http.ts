/** A response as tests read it: status, lower-cased headers, and the body as JSON (or text). */
export interface TestResponse {
  status: number
  headers: Record<string, string>
  text: string
  body: any
}

export interface RequestOptions {
  token?: string
  headers?: Record<string, string>
  /** Sent as JSON unless `form` is set or it is already a string. */
  body?: unknown
  form?: boolean
}

/** Real HTTP to a test server. */
export function client(baseUrl: string) {
  return async function request(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token) headers['private-token'] = options.token
    let body: string | undefined
    if (options.body !== undefined) {
      if (typeof options.body === 'string') body = options.body
      else if (options.form) {
        body = new URLSearchParams(options.body as Record<string, string>).toString()
        headers['content-type'] ??= 'application/x-www-form-urlencoded'
      } else {
        body = JSON.stringify(options.body)
        headers['content-type'] ??= 'application/json'
      }
    }
    const response = await fetch(baseUrl + path, { method, headers, body, redirect: 'manual' })
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = text === '' ? null : JSON.parse(text)
    } catch {
      parsed = text
    }
    return { status: response.status, headers: Object.fromEntries(response.headers), text, body: parsed }
  }
}
