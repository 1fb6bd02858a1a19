import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession } from '../../testing/sessions.js'
import { ASSETS, CONTENT_SECURITY_POLICY } from '../../web/html.js'

let server: TestServer
let request: ReturnType<typeof client>
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
})
afterAll(() => server.close())

describe('the page layout', () => {
  test('pages link one stylesheet and one script, served for a year under their content hash', async () => {
    const page = await request('GET', '/users/sign_in')
    const [stylesheet, script] = ASSETS
    expect(stylesheet.path).toMatch(/^\/assets\/svc-[0-9a-f]{16}\.css$/)
    expect(script.path).toMatch(/^\/assets\/svc-[0-9a-f]{16}\.js$/)
    expect(page.text).toContain(`<link rel="stylesheet" href="${stylesheet.path}" />`)
    expect(page.text).toContain(`<script src="${script.path}" defer></script>`)
    expect(page.text).not.toMatch(/<style|<script>| style="/)
    for (const asset of ASSETS) {
      const res = await request('GET', asset.path)
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toBe(asset.type)
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable')
      expect(res.text).toBe(asset.body)
    }
    const session = await createTestSession(server, await createTestUser(server.database.db))
    expect((await request('GET', '/assets/svc-0000000000000000.css', { headers: { cookie: session.cookie } })).status).toBe(404)
    const favicon = await request('GET', '/favicon.ico')
    expect(favicon.status).toBe(200)
    expect(favicon.headers['content-type']).toBe('image/svg+xml')
    expect(favicon.text).toBe(ASSETS[2].body)
  })

  test('every page sends the Content-Security-Policy, which allows no inline script or style', async () => {
    const res = await request('GET', '/users/sign_in')
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https: http:; object-src 'none'; " +
        "base-uri 'self'; form-action 'self' https: http:; frame-ancestors 'self'",
    )
  })

  test('a signed-in page has the top bar: search, the new-item menu and the user menu with sign-out', async () => {
    const user = await createTestUser(server.database.db)
    const session = await createTestSession(server, user)
    const res = await request('GET', '/users/sign_in/none', { headers: { ...BROWSER, cookie: session.cookie } })
    expect(res.status).toBe(404)
    expect(res.text).toContain('<form class="search" role="search" method="get" action="/search">')
    expect(res.text).toContain('<a href="/projects/new">New project</a>')
    expect(res.text).toContain(`<li><a href="/${user.username}">Your profile</a></li>`)
    expect(res.text).toMatch(
      /<form method="post" action="\/users\/sign_out">\s*<input type="hidden" name="_method" value="delete" \/>\s*<input type="hidden" name="authenticity_token" value="[^"]+" \/>/,
    )
    expect(res.text).toContain('<a class="skip-link" href="#content">Skip to main content</a>')
  })
})

describe('a path no route serves', () => {
  test('a signed-in browser gets the 404 page in HTML', async () => {
    const user = await createTestUser(server.database.db)
    const session = await createTestSession(server, user)
    const res = await request('GET', '/no/such/page/here', { headers: { ...BROWSER, cookie: session.cookie } })
    expect(res.status).toBe(404)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(res.text).toContain('<h1>404: Page not found</h1>')
    expect(res.text).toContain('<title>Not Found · svc</title>')
  })

  test('a visitor who has not signed in is sent to sign in, and comes back to the path afterwards', async () => {
    const res = await request('GET', '/no/such/page/here', { headers: BROWSER })
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe('/users/sign_in')
  })

  test("the API's paths keep GitLab's JSON answer, whoever asks", async () => {
    for (const headers of [{}, { accept: 'application/json' }, BROWSER] as Record<string, string>[]) {
      const res = await request('GET', '/api/v4/no/such/thing', { headers })
      expect(res.status).toBe(404)
      expect(res.headers['content-type']).toBe('application/json')
      expect(res.text).toBe('{"error":"404 Not Found"}')
    }
  })

  test('an image or script the browser fetches is not where sign-in comes back to', async () => {
    const res = await request('GET', '/no/such/image.png', { headers: { accept: 'image/avif,image/webp,*/*' } })
    expect(res.status).toBe(302)
    expect(res.headers['set-cookie']).toBeUndefined()
  })
})
