import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { webClient } from '../sessions/testing.js'

let server: TestServer
let web: ReturnType<typeof webClient>

beforeAll(async () => {
  server = await startTestServer()
  await createTestUser(server.database.db, { username: 'nina', name: 'Nina', password: 'nina-secret-1' })
  web = webClient(server.url)
  const settings = await client(server.url)('PUT', '/api/v4/application/settings', {
    token: server.rootToken,
    body: { throttle_protected_paths_enabled: false },
  })
  expect(settings.status).toBe(200)
  expect((await web.signIn('nina', 'nina-secret-1')).status).toBe(302)
})
afterAll(() => server.close())

async function post(path: string, fields: Record<string, string>, form: string) {
  const token = await web.csrfTokenFrom(form)
  return web.request('POST', path, { form: true, body: { authenticity_token: token, ...fields } })
}

describe('the new-item menu', () => {
  test('a project is created from its form, with a README, in the personal namespace', async () => {
    const form = await web.request('GET', '/projects/new')
    expect(form.status).toBe(200)
    expect(form.text).toContain('<input type="text" id="project_name" name="project[name]" value="" required />')
    const res = await post(
      '/projects',
      { 'project[name]': 'Kite', 'project[path]': 'kite', visibility: 'internal', 'project[initialize_with_readme]': '1' },
      '/projects/new',
    )
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe('/nina/kite')
    const page = await web.request('GET', '/nina/kite')
    expect(page.status).toBe(200)
    expect(page.text).toContain('<span class="badge">Internal</span>')
    expect(page.text).toMatch(/README\.md<\/a><\/h2>/)
  })

  test('a refused project comes back with the reason and the values given, and nothing is made', async () => {
    const res = await post('/projects', { 'project[name]': 'Kite', 'project[path]': 'kite', visibility: 'private' }, '/projects/new')
    expect(res.status).toBe(422)
    expect(res.text).toContain('<li>Path has already been taken</li>')
    expect(res.text).toContain('value="Kite"')
    const rows = await server.database.db.selectFrom('projects').select('id').where('path', '=', 'kite').execute()
    expect(rows).toHaveLength(1)
  })

  test('a group and a snippet are created from theirs', async () => {
    const group = await post('/groups', { 'group[name]': 'Sky charts', 'group[path]': 'sky', visibility: 'public' }, '/groups/new')
    expect(group.status, group.text.match(/<li>[^<]*<\/li>/g)?.join(' ')).toBe(302)
    expect(group.headers.location).toBe('/groups/sky')
    expect((await web.request('GET', '/groups/sky')).text).toContain('<h1>Sky charts <span class="badge">Public</span></h1>')
    const snippet = await post(
      '/-/snippets',
      {
        'personal_snippet[title]': 'Knots',
        'personal_snippet[file_name]': 'knots.txt',
        'personal_snippet[content]': 'bowline\n',
        visibility: 'private',
      },
      '/-/snippets/new',
    )
    expect(snippet.status).toBe(302)
    expect(snippet.headers.location).toMatch(/^\/-\/snippets\/\d+$/)
    expect((await web.request('GET', `${snippet.headers.location}/raw`)).text).toBe('bowline\n')
    const refused = await post('/groups', { 'group[name]': 'Sky <b>', 'group[path]': 'sky2' }, '/groups/new')
    expect(refused.status).toBe(422)
    expect(refused.text).toContain('<li>Name can contain only letters, digits')
    expect(refused.text).toContain('value="Sky &lt;b&gt;"')
    const blank = await post(
      '/-/snippets',
      { 'personal_snippet[title]': '', 'personal_snippet[file_name]': 'a.txt', 'personal_snippet[content]': 'x' },
      '/-/snippets/new',
    )
    expect(blank.status).toBe(422)
    expect(blank.text).toContain('<li>Title can&#39;t be blank</li>')
  })

  test('a visitor is sent to sign in, and a form without its token is refused', async () => {
    const visitor = await fetch(`${server.url}/projects/new`, { redirect: 'manual', headers: { accept: 'text/html' } })
    expect(visitor.status).toBe(302)
    expect(visitor.headers.get('location')).toBe('/users/sign_in')
    const forged = await web.request('POST', '/projects', { form: true, body: { 'project[name]': 'Forged' } })
    expect(forged.status).toBe(422)
    expect(forged.text).toContain('The change you requested was rejected.')
  })
})
