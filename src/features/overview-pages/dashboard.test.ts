import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession } from '../../testing/sessions.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

/** The part of the dashboard under the heading with this id, up to the end of its section. */
function section(text: string, headingId: string): string {
  const start = text.indexOf(`<h2 id="${headingId}">`)
  expect(start).toBeGreaterThan(-1)
  return text.slice(start, text.indexOf('</section>', start))
}

describe('the dashboard', () => {
  test('lists the open merge requests waiting for your review apart from those assigned to you, each once', async () => {
    const api = client(`${server.url}/api/v4`)
    const author = await createPerson(server.database.db, 'ada')
    const reviewer = await createPerson(server.database.db, 'rui')
    const project = await createRepositoryProject(api, author, { name: 'Engine', path: 'engine', visibility: 'private' })
    await addProjectMember(server.database.db, reviewer, project.id, 30)
    const create = (title: string, sourceBranch: string, body: Record<string, unknown>) =>
      api('POST', `/projects/${project.id}/merge_requests`, {
        token: author.token,
        body: { title, source_branch: sourceBranch, target_branch: 'main', ...body },
      })
    await create('Faster <gears>', 'gears', { reviewer_ids: [reviewer.user.id] })
    await create('Assigned only', 'assigned', { assignee_ids: [reviewer.user.id] })
    const closed = await create('Closed review', 'closed', { reviewer_ids: [reviewer.user.id] })
    await api('PUT', `/projects/${project.id}/merge_requests/${closed.body.iid}`, { token: author.token, body: { state_event: 'close' } })

    const session = await createTestSession(server, reviewer.user)
    const res = await client(server.url)('GET', '/', { headers: { cookie: session.cookie, accept: 'text/html' } })
    expect(res.status).toBe(200)
    const reviews = section(res.text, 'reviews-heading')
    expect(reviews).toContain('<h2 id="reviews-heading">Merge requests for you to review</h2>')
    expect(reviews).toContain('<a class="title" href="/ada/engine/-/merge_requests/1">Faster &lt;gears&gt;</a>')
    expect(reviews.match(/class="title"/g)).toHaveLength(1)
    const assigned = section(res.text, 'mrs-heading')
    expect(assigned).toContain('<a class="title" href="/ada/engine/-/merge_requests/2">Assigned only</a>')
    expect(assigned.match(/class="title"/g)).toHaveLength(1)

    const authorSession = await createTestSession(server, author.user)
    const own = await client(server.url)('GET', '/', { headers: { cookie: authorSession.cookie, accept: 'text/html' } })
    expect(section(own.text, 'reviews-heading')).toContain('<p class="empty">No open merge requests wait for your review.</p>')
  })
})
