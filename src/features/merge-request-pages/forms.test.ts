import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Db } from '../../db/index.js'
import { createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { flashOf } from '../sessions/testing.js'

let server: TestServer
let db: Db
let api: ReturnType<typeof client>
let web: ReturnType<typeof client>
let owner: Person
let developer: Person
let reporter: Person
let ownerSession: TestSession
let developerSession: TestSession
let reporterSession: TestSession
let strangerSession: TestSession
let project: Record<string, any>
let issue: Record<string, any>
let label: Record<string, any>
let milestone: Record<string, any>
const XSS = `<script>alert("x")</script>`

interface Page {
  status: number
  text: string
  location: string | null
}

async function visit(path: string, session?: TestSession): Promise<Page> {
  const res = await web('GET', path, { headers: session ? { cookie: session.cookie, accept: 'text/html' } : { accept: 'text/html' } })
  return { status: res.status, text: res.text, location: res.headers.location ?? null }
}

/** A form's POST as a browser sends it: repeated names for lists, the session's CSRF token unless told otherwise. */
async function submit(
  session: TestSession,
  path: string,
  fields: [string, string][],
  token: string | null = session.csrfToken,
): Promise<Page> {
  const pairs = token === null ? fields : [['authenticity_token', token] as [string, string], ...fields]
  const res = await web('POST', path, {
    body: new URLSearchParams(pairs).toString(),
    headers: { cookie: session.cookie, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
  })
  return { status: res.status, text: res.text, location: res.headers.location ?? null }
}

async function call(method: string, path: string, body?: unknown, who: Person = owner) {
  const res = await api(method, path, { token: who.token, body })
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300)
  return res.body
}

function mrPath(suffix = '') {
  return `/${project.path_with_namespace}/-/merge_requests${suffix}`
}

async function branch(name: string, commits: { message: string; file: string; content: string }[], start = 'main') {
  for (const [index, commit] of commits.entries()) {
    await call('POST', `/projects/${project.id}/repository/commits`, {
      branch: name,
      ...(index === 0 ? { start_branch: start } : {}),
      commit_message: commit.message,
      actions: [{ action: 'create', file_path: commit.file, content: commit.content }],
    })
  }
}

async function mergeRequestOf(iid: number) {
  return call('GET', `/projects/${project.id}/merge_requests/${iid}`)
}

/** A new merge request through the API, between a fresh branch and main. */
async function openMergeRequest(name: string, extra: Record<string, unknown> = {}) {
  await branch(name, [{ message: `Add ${name}`, file: `${name}.txt`, content: `${name}\n` }])
  return call(
    'POST',
    `/projects/${project.id}/merge_requests`,
    { source_branch: name, target_branch: 'main', title: `Add ${name}`, ...extra },
    developer,
  )
}

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  api = client(`${server.url}/api/v4`)
  web = client(server.url)
  owner = await createPerson(db, 'mrformowner')
  developer = await createPerson(db, 'mrformdev')
  reporter = await createPerson(db, 'mrformreporter')
  project = await createRepositoryProject(api, owner, { name: 'Shop', path: 'shop', visibility: 'private' })
  await addProjectMember(db, developer, project.id, 30)
  await addProjectMember(db, reporter, project.id, 20)
  ownerSession = await createTestSession(server, owner.user)
  developerSession = await createTestSession(server, developer.user)
  reporterSession = await createTestSession(server, reporter.user)
  strangerSession = await createTestSession(server, await createTestUser(db))
  issue = await call('POST', `/projects/${project.id}/issues`, { title: 'Checkout fails' })
  label = await call('POST', `/projects/${project.id}/labels`, { name: 'bug', color: '#d9534f' })
  milestone = await call('POST', `/projects/${project.id}/milestones`, { title: 'v1' })
  await branch(`${issue.iid}-fix-checkout`, [
    { message: 'Fix the checkout\n\nThe total was wrong.', file: 'checkout.txt', content: 'total\n' },
  ])
  await branch('feature/many_things', [
    { message: 'First thing', file: 'one.txt', content: 'one\n' },
    { message: 'Second thing', file: 'two.txt', content: 'two\n' },
  ])
})
afterAll(() => server.close())

describe('the list', () => {
  test('a Developer sees New merge request; a Reporter, who may not create one, does not', async () => {
    const dev = await visit(mrPath(), developerSession)
    expect(dev.text).toContain(`<a class="button primary" href="${mrPath('/new')}">New merge request</a>`)
    const rep = await visit(mrPath(), reporterSession)
    expect(rep.status).toBe(200)
    expect(rep.text).not.toContain('New merge request')
  })
})

describe('creating a merge request', () => {
  test('without branches the page asks for them, the target defaulting to the default branch', async () => {
    const page = await visit(mrPath('/new'), developerSession)
    expect(page.status).toBe(200)
    expect(page.text).toContain('<h1>New merge request</h1>')
    expect(page.text).toContain('<button type="submit" class="primary">Compare branches and continue</button>')
    expect(page.text).toMatch(/<select id="merge_request_source_branch" name="merge_request\[source_branch\]" required>/)
    expect(page.text).toContain('<option value="feature/many_things" >feature/many_things</option>')
    expect(page.text).toMatch(/<select id="merge_request_target_branch"[^>]*>[\s\S]*?<option value="main" selected>main<\/option>/)
  })

  test('with both branches: the title and description GitLab suggests, the form, then the commits and the changes', async () => {
    const source = `${issue.iid}-fix-checkout`
    const page = await visit(mrPath(`/new?merge_request[source_branch]=${source}&merge_request[target_branch]=main`), developerSession)
    expect(page.status).toBe(200)
    expect(page.text).toContain('value="Fix the checkout"')
    expect(page.text).toContain(`The total was wrong.\n\nCloses #${issue.iid}</textarea`)
    expect(page.text).toContain(`<input type="hidden" name="merge_request[source_branch]" value="${source}" />`)
    expect(page.text).toContain(`value="${label.name}"`)
    expect(page.text).toContain(`<option value="${milestone.id}" >`)
    expect(page.text).toContain(`<option value="${developer.user.id}" >Mrformdev (@mrformdev)</option>`)
    expect(page.text).toMatch(/<h2 id="new-commits-heading">Commits <span class="badge count">1<\/span><\/h2>/)
    expect(page.text).toContain('<a class="title" href="/')
    expect(page.text).toContain('<span class="file-path">checkout.txt</span>')
    const form = page.text.indexOf('<form method="post"')
    expect(form).toBeGreaterThan(0)
    expect(page.text.indexOf('id="new-changes-heading"')).toBeGreaterThan(form)

    const several = await visit(
      mrPath('/new?merge_request[source_branch]=feature/many_things&merge_request[target_branch]=main'),
      developerSession,
    )
    expect(several.text).toContain('value="Feature/many things"')
    expect(several.text).toMatch(/Commits <span class="badge count">2<\/span>/)
  })

  test('branches that do not exist, or the same branch twice, are refused in GitLab words', async () => {
    const missing = await visit(mrPath('/new?merge_request[source_branch]=nope&merge_request[target_branch]=main'), developerSession)
    expect(missing.status).toBe(422)
    expect(missing.text).toContain('<li>Source branch &quot;nope&quot; does not exist</li>')
    const same = await visit(mrPath('/new?merge_request[source_branch]=main&merge_request[target_branch]=main'), developerSession)
    expect(same.text).toContain('<li>You can&#39;t use same project/branch for source and target</li>')
  })

  test('the form creates it through the service with labels, people, milestone and options; a refusal keeps what was typed', async () => {
    const source = 'feature/many_things'
    const fields = (title: string): [string, string][] => [
      ['merge_request[source_project_id]', String(project.id)],
      ['merge_request[source_branch]', source],
      ['merge_request[target_project_id]', String(project.id)],
      ['merge_request[target_branch]', 'main'],
      ['merge_request[title]', title],
      ['merge_request[description]', `Kept ${XSS}`],
      ['merge_request[assignee_ids][]', '0'],
      ['merge_request[assignee_ids][]', String(developer.user.id)],
      ['merge_request[reviewer_ids][]', String(owner.user.id)],
      ['merge_request[labels][]', ''],
      ['merge_request[labels][]', 'bug'],
      ['merge_request[milestone_id]', String(milestone.id)],
      ['merge_request[force_remove_source_branch]', '0'],
      ['merge_request[force_remove_source_branch]', '1'],
      ['merge_request[squash]', '0'],
    ]
    const refused = await submit(developerSession, mrPath(), fields(' '))
    expect(refused.status).toBe(422)
    expect(refused.text).toContain('<li>Title can&#39;t be blank</li>')
    expect(refused.text).toContain('<p class="field-error" id="merge_request_title_error">Title can&#39;t be blank</p>')
    expect(refused.text).toContain('Kept &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</textarea')
    expect(refused.text).not.toContain(XSS)
    expect(refused.text).toMatch(/value="bug"\s+checked/)

    const created = await submit(developerSession, mrPath(), fields(`Many things ${XSS}`))
    expect(created.status).toBe(302)
    const iid = Number(/\/merge_requests\/(\d+)$/.exec(created.location!)![1])
    const mr = await mergeRequestOf(iid)
    expect(mr).toMatchObject({
      title: `Many things ${XSS}`,
      source_branch: source,
      target_branch: 'main',
      labels: ['bug'],
      assignees: [{ username: 'mrformdev' }],
      reviewers: [{ username: 'mrformowner' }],
      milestone: { id: milestone.id },
      force_remove_source_branch: true,
      squash: false,
      author: { username: 'mrformdev' },
    })
    const shown = await visit(created.location!.replace(server.url, ''), developerSession)
    expect(shown.text).toContain('Many things &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;')
    expect(shown.text).not.toContain(XSS)

    const duplicate = await submit(developerSession, mrPath(), fields('Again'))
    expect(duplicate.status).toBe(422)
    expect(duplicate.text).toContain(`<li>Another open merge request already exists for this source branch: !${iid}</li>`)
  })

  test('a Reporter gets the 404 page, a form without its token the rejected page, a stranger the 404 page', async () => {
    expect((await visit(mrPath('/new'), reporterSession)).status).toBe(404)
    const fields: [string, string][] = [
      ['merge_request[source_branch]', 'feature/many_things'],
      ['merge_request[target_branch]', 'main'],
      ['merge_request[title]', 'Forged'],
    ]
    expect((await submit(reporterSession, mrPath(), fields)).status).toBe(404)
    const rejected = await submit(developerSession, mrPath(), fields, null)
    expect(rejected.status).toBe(422)
    expect(rejected.text).toContain('The change you requested was rejected.')
    expect((await visit(mrPath('/new'), strangerSession)).status).toBe(404)
    expect((await visit(mrPath('/new'))).location).toBe('/users/sign_in')
    const list = await call('GET', `/projects/${project.id}/merge_requests?search=Forged`)
    expect(list).toEqual([])
  })
})

describe('editing, closing and reopening', () => {
  test('the edit form shows the merge request and saves through the service; a refusal keeps the values', async () => {
    const mr = await openMergeRequest('edit-me', { labels: 'bug' })
    const form = await visit(mrPath(`/${mr.iid}/edit`), developerSession)
    expect(form.status).toBe(200)
    expect(form.text).toContain(`<h1>Edit merge request !${mr.iid}</h1>`)
    expect(form.text).toContain('value="Add edit-me"')
    expect(form.text).toMatch(/value="bug"\s+checked/)
    expect(form.text).toMatch(/<option value="main" selected>main<\/option>/)
    const edit = (title: string): [string, string][] => [
      ['_method', 'put'],
      ['merge_request[title]', title],
      ['merge_request[description]', 'Now described'],
      ['merge_request[target_branch]', 'feature/many_things'],
      ['merge_request[labels][]', ''],
      ['merge_request[milestone_id]', String(milestone.id)],
      ['merge_request[assignee_ids][]', String(owner.user.id)],
    ]
    const refused = await submit(developerSession, mrPath(`/${mr.iid}`), edit(''))
    expect(refused.status).toBe(422)
    expect(refused.text).toContain('<li>Title can&#39;t be blank</li>')
    expect(refused.text).toContain('Now described</textarea')
    expect(refused.text).toMatch(/<option value="feature\/many_things" selected>/)
    const saved = await submit(developerSession, mrPath(`/${mr.iid}`), edit('Draft: Edited'))
    expect(saved.status).toBe(302)
    expect(saved.location).toBe(mrPath(`/${mr.iid}`))
    expect(await mergeRequestOf(mr.iid)).toMatchObject({
      title: 'Draft: Edited',
      draft: true,
      description: 'Now described',
      target_branch: 'feature/many_things',
      labels: [],
      milestone: { id: milestone.id },
      assignees: [{ username: 'mrformowner' }],
    })
    const page = await visit(mrPath(`/${mr.iid}`), developerSession)
    expect(page.text).toContain('changed target branch from <code>main</code> to <code>feature/many_things</code>')
  })

  test('Close and Reopen are buttons for those who may update; a Reporter sees none and is refused', async () => {
    const mr = await openMergeRequest('close-me')
    const page = await visit(mrPath(`/${mr.iid}`), developerSession)
    expect(page.text).toContain(`<a class="button" href="${mrPath(`/${mr.iid}/edit`)}">Edit</a>`)
    expect(page.text).toContain('<input type="hidden" name="merge_request[state_event]" value="close" />')
    const reporterPage = await visit(mrPath(`/${mr.iid}`), reporterSession)
    expect(reporterPage.text).not.toContain('Close merge request')
    expect(reporterPage.text).not.toContain('/edit">Edit</a>')
    expect(reporterPage.text).not.toContain('class="mr-merge-form"')
    expect((await visit(mrPath(`/${mr.iid}/edit`), reporterSession)).status).toBe(404)
    const forged = await submit(reporterSession, mrPath(`/${mr.iid}`), [
      ['_method', 'put'],
      ['merge_request[state_event]', 'close'],
    ])
    expect(forged.status).toBe(404)
    expect((await mergeRequestOf(mr.iid)).state).toBe('opened')

    const closed = await submit(developerSession, mrPath(`/${mr.iid}`), [
      ['_method', 'put'],
      ['merge_request[state_event]', 'close'],
    ])
    expect(closed.status).toBe(302)
    expect(await mergeRequestOf(mr.iid)).toMatchObject({ state: 'closed', closed_by: { username: 'mrformdev' } })
    const closedPage = await visit(mrPath(`/${mr.iid}`), developerSession)
    expect(closedPage.text).toContain('Reopen merge request')
    expect(closedPage.text).toContain('The changes were not merged into')
    await submit(developerSession, mrPath(`/${mr.iid}`), [
      ['_method', 'put'],
      ['merge_request[state_event]', 'reopen'],
    ])
    expect((await mergeRequestOf(mr.iid)).state).toBe('opened')
  })
})

describe('comments and threads on diff lines', () => {
  let mr: Record<string, any>

  beforeAll(async () => {
    mr = await openMergeRequest('commented')
  })

  test('a comment is posted from the overview and shown there; a blank one comes back refused', async () => {
    const blank = await submit(reporterSession, mrPath(`/${mr.iid}/notes`), [['note[note]', '  ']])
    expect(blank.status).toBe(422)
    expect(blank.text).toContain('<li>Note can&#39;t be blank</li>')
    const posted = await submit(reporterSession, mrPath(`/${mr.iid}/notes`), [['note[note]', `Looks **fine** ${XSS}`]])
    expect(posted.status).toBe(302)
    expect(posted.location).toMatch(new RegExp(`${mrPath(`/${mr.iid}`)}#note_\\d+$`))
    const notes = await call('GET', `/projects/${project.id}/merge_requests/${mr.iid}/notes`)
    expect(notes[0]).toMatchObject({ body: `Looks **fine** ${XSS}`, type: null, author: { username: 'mrformreporter' } })
    const page = await visit(mrPath(`/${mr.iid}`), reporterSession)
    expect(page.text).toContain('Looks <strong>fine</strong>')
    expect(page.text).not.toContain(XSS)
    expect((await submit(developerSession, mrPath(`/${mr.iid}/notes`), [['note[note]', 'x']], null)).status).toBe(422)
    expect((await submit(strangerSession, mrPath(`/${mr.iid}/notes`), [['note[note]', 'x']])).status).toBe(404)
  })

  test('each line links to a form under it; the thread is a DiffNote with its position, shown under its line and in the overview', async () => {
    const code = `${createHash('sha1').update('commented.txt').digest('hex')}_0_1`
    const diffs = await visit(mrPath(`/${mr.iid}/diffs`), developerSession)
    expect(diffs.text).toContain(
      `<a class="add-diff-note" href="${mrPath(`/${mr.iid}/diffs?line_code=${code}#line_form_${code}`)}" title="Add a comment to this line" aria-label="Add a comment to line 1">+</a>`,
    )
    const opened = await visit(mrPath(`/${mr.iid}/diffs?line_code=${code}`), developerSession)
    expect(opened.text).toContain(`<div class="mr-line-form" id="line_form_${code}">`)
    expect(opened.text).toContain(`<input type="hidden" name="note[position][new_path]" value="commented.txt" />`)
    const hidden = (name: string) => new RegExp(`name="note\\[position\\]\\[${name}\\]" value="([^"]*)"`).exec(opened.text)![1]
    const fields: [string, string][] = [
      ['note[note]', 'Why this line?'],
      ...['base_sha', 'start_sha', 'head_sha', 'position_type', 'old_path', 'new_path', 'old_line', 'new_line'].map(
        (name) => [`note[position][${name}]`, hidden(name)] as [string, string],
      ),
      ['line_code', code],
      ['return_to', 'diffs'],
      ['view', 'inline'],
    ]
    const refused = await submit(
      developerSession,
      mrPath(`/${mr.iid}/notes`),
      fields.map(([k, v]) => [k, k === 'note[note]' ? '' : v]),
    )
    expect(refused.status).toBe(422)
    expect(refused.text).toContain(`<div class="mr-line-form" id="line_form_${code}">`)
    expect(refused.text).toContain('<li>Note can&#39;t be blank</li>')
    const posted = await submit(developerSession, mrPath(`/${mr.iid}/notes`), fields)
    expect(posted.status).toBe(302)
    expect(posted.location).toMatch(new RegExp(`/diffs#note_\\d+$`))
    const [thread] = (await call('GET', `/projects/${project.id}/merge_requests/${mr.iid}/discussions`)).filter(
      (d: any) => d.notes[0].type === 'DiffNote',
    )
    expect(thread.notes[0]).toMatchObject({
      body: 'Why this line?',
      position: {
        new_path: 'commented.txt',
        old_line: null,
        new_line: 1,
        head_sha: mr.diff_refs?.head_sha ?? thread.notes[0].position.head_sha,
      },
      resolved: false,
    })
    const after = await visit(mrPath(`/${mr.iid}/diffs`), developerSession)
    expect(after.text).toMatch(
      new RegExp(`<tr class="diff-notes-row"><td colspan="3" class="diff-notes-cell"><div class="mr-thread" id="discussion_${thread.id}">`),
    )
    expect(after.text).toContain('Why this line?')
    const overview = await visit(mrPath(`/${mr.iid}`), developerSession)
    expect(overview.text).toContain('started a thread on')
    expect(overview.text).toContain(`href="${mrPath(`/${mr.iid}/diffs`)}#discussion_${thread.id}"`)

    const reply = await submit(reporterSession, mrPath(`/${mr.iid}/notes`), [
      ['note[note]', 'Because.'],
      ['in_reply_to_discussion_id', thread.id],
      ['return_to', 'diffs'],
    ])
    expect(reply.status).toBe(302)
    const resolved = await submit(developerSession, mrPath(`/${mr.iid}/discussions/${thread.id}/resolve`), [])
    expect(resolved.status).toBe(302)
    expect(resolved.location).toBe(mrPath(`/${mr.iid}#discussion_${thread.id}`))
    const again = await call('GET', `/projects/${project.id}/merge_requests/${mr.iid}/discussions/${thread.id}`)
    expect(again.notes.map((note: any) => [note.body, note.resolved])).toEqual([
      ['Why this line?', true],
      ['Because.', true],
    ])
    const reporterView = await visit(mrPath(`/${mr.iid}`), reporterSession)
    expect(reporterView.text).toContain('Resolved by Mrformdev')
    expect(reporterView.text).not.toContain('Unresolve thread')
    expect((await submit(reporterSession, mrPath(`/${mr.iid}/discussions/${thread.id}/resolve`), [['_method', 'delete']])).status).toBe(404)
  })
})

describe('the merge widget and merging', () => {
  test('a Maintainer reads Ready to merge! and merges with the squash choice and a message; the issue it closes is closed', async () => {
    await branch('closer', [{ message: 'Close the issue', file: 'closer.txt', content: 'closer\n' }])
    const mr = await call(
      'POST',
      `/projects/${project.id}/merge_requests`,
      { source_branch: 'closer', target_branch: 'main', title: 'Closer', description: `Fixes #${issue.iid}` },
      developer,
    )
    const developerPage = await visit(mrPath(`/${mr.iid}`), developerSession)
    expect(developerPage.text).toContain('<strong>Ready to merge by members who can write to the target branch.</strong>')
    expect(developerPage.text).not.toContain('class="mr-merge-form"')
    expect((await submit(developerSession, mrPath(`/${mr.iid}/merge`), [])).status).toBe(404)
    expect((await mergeRequestOf(mr.iid)).state).toBe('opened')

    const page = await visit(mrPath(`/${mr.iid}`), ownerSession)
    expect(page.text).toContain('<strong>Ready to merge!</strong>')
    expect(page.text).toContain(
      `<p class="mr-related">Closes issue <a href="/${project.path_with_namespace}/-/issues/${issue.iid}" title="Checkout fails">#${issue.iid}</a></p>`,
    )
    expect(page.text).toContain('<label class="mr-checkbox-label" for="squash">Squash commits</label>')
    expect(page.text).toContain('<label class="mr-checkbox-label" for="should_remove_source_branch">Delete source branch</label>')
    expect(page.text).toContain(
      `Merge branch &#39;closer&#39; into &#39;main&#39;\n\nCloser\n\nSee merge request ${project.path_with_namespace}!${mr.iid}</textarea`,
    )
    const sha = /name="sha" value="([0-9a-f]{40})"/.exec(page.text)![1]
    const merged = await submit(ownerSession, mrPath(`/${mr.iid}/merge`), [
      ['sha', sha],
      ['should_remove_source_branch', '0'],
      ['should_remove_source_branch', '1'],
      ['squash', '0'],
      ['squash', '1'],
      ['commit_message', 'Merge the closer'],
      ['squash_commit_message', 'Closer, squashed'],
    ])
    expect(merged.status).toBe(302)
    const after = await mergeRequestOf(mr.iid)
    expect(after).toMatchObject({ state: 'merged', squash: true, merged_by: { username: 'mrformowner' } })
    const mergeCommit = await call('GET', `/projects/${project.id}/repository/commits/${after.merge_commit_sha}`)
    expect(mergeCommit.message).toBe('Merge the closer')
    const branches = await call('GET', `/projects/${project.id}/repository/branches?search=closer`)
    expect(branches).toEqual([])
    expect(await call('GET', `/projects/${project.id}/issues/${issue.iid}`)).toMatchObject({
      state: 'closed',
      closed_by: { username: 'mrformowner' },
    })
    const mergedPage = await visit(mrPath(`/${mr.iid}`), ownerSession)
    expect(mergedPage.text).toMatch(/Merged by\s*<a class="user-link" href="\/mrformowner">Mrformowner<\/a>/)
    expect(mergedPage.text).toContain('The changes were merged into <code class="ref-name">main</code>')
  })

  test('why it cannot be merged, in GitLab words: conflicts, a draft, a branch behind, a stale page', async () => {
    await branch('conflicting', [{ message: 'Conflict', file: 'shared.txt', content: 'theirs\n' }])
    await call('POST', `/projects/${project.id}/repository/commits`, {
      branch: 'main',
      commit_message: 'Ours',
      actions: [{ action: 'create', file_path: 'shared.txt', content: 'ours\n' }],
    })
    const conflicting = await call('POST', `/projects/${project.id}/merge_requests`, {
      source_branch: 'conflicting',
      target_branch: 'main',
      title: 'Conflicting',
    })
    const page = await visit(mrPath(`/${conflicting.iid}`), ownerSession)
    expect(page.text).toContain('<strong>Merge blocked: merge conflicts must be resolved.</strong>')
    expect(page.text).toMatch(
      /<li class="mr-check failed" data-check="conflict">\s*<span class="badge mr-check-state">Failed<\/span> Merge conflicts must be resolved./,
    )
    expect(page.text).toMatch(/<li class="mr-check passed" data-check="draft_status">/)
    expect(page.text).toMatch(/The source branch is\s*<a href="[^"]+">\d+ commits? behind<\/a>\s*the target branch./)
    expect(page.text).not.toContain('class="mr-merge-form"')

    const draft = await openMergeRequest('drafty', { title: 'Draft: not yet' })
    const draftPage = await visit(mrPath(`/${draft.iid}`), ownerSession)
    expect(draftPage.text).toContain('<strong>Merge blocked: Select Mark as ready to remove it from Draft status.</strong>')

    const moving = await openMergeRequest('moving')
    const stale = await visit(mrPath(`/${moving.iid}`), ownerSession)
    const sha = /name="sha" value="([0-9a-f]{40})"/.exec(stale.text)![1]
    await call('POST', `/projects/${project.id}/repository/commits`, {
      branch: 'moving',
      commit_message: 'Move on',
      actions: [{ action: 'create', file_path: 'moved.txt', content: 'moved\n' }],
    })
    const refused = await submit(ownerSession, mrPath(`/${moving.iid}/merge`), [['sha', sha]])
    expect(refused.status).toBe(302)
    const next = await visit(refused.location!, ownerSession)
    expect(flashOf(next.text)).toBe('New changes were added to this merge request. Review them before merging.')
    expect((await mergeRequestOf(moving.iid)).state).toBe('opened')
  })

  test('with resolved threads required, an unresolved one blocks the merge', async () => {
    await call('PUT', `/projects/${project.id}`, { only_allow_merge_if_all_discussions_are_resolved: true })
    try {
      const mr = await openMergeRequest('threaded')
      await call('POST', `/projects/${project.id}/merge_requests/${mr.iid}/discussions`, { body: 'Please look' }, reporter)
      const page = await visit(mrPath(`/${mr.iid}`), ownerSession)
      expect(page.text).toContain('<strong>Merge blocked: all threads must be resolved.</strong>')
      expect((await mergeRequestOf(mr.iid)).detailed_merge_status).toBe('discussions_not_resolved')
    } finally {
      await call('PUT', `/projects/${project.id}`, { only_allow_merge_if_all_discussions_are_resolved: false })
    }
  })
})

describe("a fork's branch into its upstream", () => {
  test('merge_request[source_project_id] compares the fork branch with the upstream and creates the merge request there', async () => {
    const forker = await createPerson(db, 'mrformforker')
    const forkerSession = await createTestSession(server, forker.user)
    const upstream = await createRepositoryProject(api, owner, { name: 'Open', path: 'open' })
    const fork = await createRepositoryProject(api, forker, { name: 'Open', path: 'open', initialize_with_readme: false })
    await db.updateTable('projects').set({ forked_from_project_id: upstream.id }).where('id', '=', fork.id).execute()
    await call(
      'POST',
      `/projects/${fork.id}/repository/commits`,
      { branch: 'improve', commit_message: 'Improve the docs', actions: [{ action: 'create', file_path: 'docs.md', content: '# Docs\n' }] },
      forker,
    )
    const newPage = `/${upstream.path_with_namespace}/-/merge_requests/new?merge_request[source_project_id]=${fork.id}&merge_request[source_branch]=improve&merge_request[target_branch]=main`
    const page = await visit(newPage, forkerSession)
    expect(page.status, /<div class="flash alert"[\s\S]*?<\/div>/.exec(page.text)?.[0]).toBe(200)
    expect(page.text).toContain(`From <code class="ref-name">${fork.path_with_namespace}:improve</code> into`)
    expect(page.text).toContain(`<input type="hidden" name="merge_request[source_project_id]" value="${fork.id}" />`)
    expect(page.text).toContain(`<input type="hidden" name="merge_request[target_project_id]" value="${upstream.id}" />`)
    expect(page.text).toContain('value="Improve the docs"')
    expect(page.text).toContain('<span class="file-path">docs.md</span>')
    const created = await submit(forkerSession, `/${upstream.path_with_namespace}/-/merge_requests`, [
      ['merge_request[source_project_id]', String(fork.id)],
      ['merge_request[source_branch]', 'improve'],
      ['merge_request[target_project_id]', String(upstream.id)],
      ['merge_request[target_branch]', 'main'],
      ['merge_request[title]', 'Improve the docs'],
      ['merge_request[description]', ''],
    ])
    expect(created.status).toBe(302)
    expect(created.location).toBe(`/${upstream.path_with_namespace}/-/merge_requests/1`)
    const mr = await call('GET', `/projects/${upstream.id}/merge_requests/1`)
    expect(mr).toMatchObject({ source_project_id: fork.id, target_project_id: upstream.id, source_branch: 'improve' })

    // Anyone signed in may read a public project's merge request; only those who may act see a button for it.
    const onlooker = `/${upstream.path_with_namespace}/-/merge_requests/1`
    const seen = await visit(onlooker, strangerSession)
    expect(seen.status).toBe(200)
    expect(seen.text).not.toContain('Close merge request')
    expect(seen.text).not.toContain('/edit">Edit</a>')
    expect(seen.text).not.toContain('class="mr-merge-form"')
    expect((await visit(`${onlooker}/edit`, strangerSession)).status).toBe(404)
    expect((await submit(strangerSession, `${onlooker}/merge`, [])).status).toBe(404)
    expect(
      (
        await submit(strangerSession, onlooker, [
          ['_method', 'put'],
          ['merge_request[state_event]', 'close'],
        ])
      ).status,
    ).toBe(404)
    expect((await call('GET', `/projects/${upstream.id}/merge_requests/1`)).state).toBe('opened')
  })
})

describe('marking as draft or ready, and rebasing', () => {
  const mergeRequestNotes = async (iid: number) => {
    const notes: { body: string; system: boolean }[] = await call('GET', `/projects/${project.id}/merge_requests/${iid}/notes?sort=asc`)
    return notes.filter((note) => note.system).map((note) => note.body)
  }

  test('Mark as ready and Mark as draft change the title prefix, with their system notes; a Reporter is offered neither', async () => {
    const mr = await openMergeRequest('unfinished', { title: 'Draft: Unfinished work' })
    const page = await visit(mrPath(`/${mr.iid}`), developerSession)
    expect(page.text).toMatch(
      /<input type="hidden" name="merge_request\[wip_event\]" value="ready" \/>\s*<button type="submit">Mark as ready<\/button>/,
    )
    expect(page.text).toMatch(/<form method="post" action="[^"]+" class="mr-mark-ready">/)
    expect(page.text).toContain('<strong>Merge blocked: Select Mark as ready to remove it from Draft status.</strong>')
    const asReporter = await visit(mrPath(`/${mr.iid}`), reporterSession)
    expect(asReporter.text).not.toContain('wip_event')

    const ready = await submit(developerSession, mrPath(`/${mr.iid}`), [
      ['_method', 'put'],
      ['merge_request[wip_event]', 'ready'],
    ])
    expect([ready.status, ready.location]).toEqual([302, mrPath(`/${mr.iid}`)])
    expect(await mergeRequestOf(mr.iid)).toMatchObject({ title: 'Unfinished work', draft: false, work_in_progress: false })
    const readyPage = await visit(mrPath(`/${mr.iid}`), developerSession)
    expect(readyPage.text).toMatch(/value="draft" \/>\s*<button type="submit">Mark as draft<\/button>/)
    expect(readyPage.text).not.toContain('class="mr-mark-ready"')

    const drafted = await submit(developerSession, mrPath(`/${mr.iid}`), [
      ['_method', 'put'],
      ['merge_request[wip_event]', 'draft'],
    ])
    expect(drafted.status).toBe(302)
    expect(await mergeRequestOf(mr.iid)).toMatchObject({ title: 'Draft: Unfinished work', draft: true })
    expect(await mergeRequestNotes(mr.iid)).toEqual(['marked this merge request as **ready**', 'marked this merge request as **draft**'])
    const refused = await submit(reporterSession, mrPath(`/${mr.iid}`), [
      ['_method', 'put'],
      ['merge_request[wip_event]', 'ready'],
    ])
    expect(refused.status).toBe(404)
    expect((await mergeRequestOf(mr.iid)).draft).toBe(true)
  })

  test('a fast-forward project offers Rebase for a branch behind; the job rebases it, or the widget says why it could not', async () => {
    // The e-mails earlier tests' changes queued go first, so that the rebase's job is the one left.
    await server.runJobs()
    await call('PUT', `/projects/${project.id}`, { merge_method: 'ff' })
    try {
      const mr = await openMergeRequest('behind')
      const clash = await openMergeRequest('clash')
      await call('POST', `/projects/${project.id}/repository/commits`, {
        branch: 'main',
        commit_message: 'Main moves on',
        actions: [
          { action: 'create', file_path: 'main-moves.txt', content: 'main\n' },
          { action: 'create', file_path: 'clash.txt', content: 'main clashes\n' },
        ],
      })
      const page = await visit(mrPath(`/${mr.iid}`), developerSession)
      expect(page.text).toContain('<strong>Merge blocked: the source branch must be rebased onto the target branch.</strong>')
      const rebaseForm = new RegExp(`<form method="post" action="${mrPath(`/${mr.iid}/rebase`)}" class="mr-rebase">`)
      expect(page.text).toMatch(rebaseForm)
      expect((await visit(mrPath(`/${mr.iid}`), reporterSession)).text).not.toMatch(rebaseForm)
      expect((await submit(reporterSession, mrPath(`/${mr.iid}/rebase`), [])).status).toBe(404)

      const queued = await submit(developerSession, mrPath(`/${mr.iid}/rebase`), [])
      expect([queued.status, queued.location]).toEqual([302, mrPath(`/${mr.iid}`)])
      const during = await visit(mrPath(`/${mr.iid}`), developerSession)
      expect(during.text).toContain('<strong>Rebase in progress</strong>')
      expect(during.text).not.toMatch(rebaseForm)
      expect(await server.runJobs()).toBe(1)
      const after = await visit(mrPath(`/${mr.iid}`), ownerSession)
      expect(after.text).toContain('<strong>Ready to merge!</strong>')
      expect(after.text).not.toContain('Rebase in progress')
      expect(after.text).toContain('class="mr-merge-form"')

      expect((await submit(developerSession, mrPath(`/${clash.iid}/rebase`), [])).status).toBe(302)
      expect(await server.runJobs()).toBe(1)
      const failed = await visit(mrPath(`/${clash.iid}`), developerSession)
      expect(failed.text).toContain(
        '<p class="flash mr-merge-error" role="alert">Rebase failed: Rebase locally, resolve all conflicts, then push the branch.</p>',
      )
      // A conflicting branch is not offered Rebase again.
      expect(failed.text).not.toMatch(new RegExp(`action="${mrPath(`/${clash.iid}/rebase`)}"`))
    } finally {
      await call('PUT', `/projects/${project.id}`, { merge_method: 'merge' })
    }
  })
})
