import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { CONTENT_SECURITY_POLICY } from '../../web/html.js'
import { flashOf } from '../sessions/testing.js'
import { pages, XSS } from './testing.js'

let server: TestServer
let api: ReturnType<typeof client>
let web: ReturnType<typeof pages>
let owner: Person
let maintainer: Person
let reporter: Person
let maintainerSession: TestSession
let reporterSession: TestSession
let project: Record<string, any>

const PAGE = '/olivia/atlas/-/settings/merge_requests'

async function settings(): Promise<Record<string, any>> {
  return (await api('GET', `/projects/${project.id}`, { token: owner.token })).body
}

/** The whole form as a browser sends it: every check box's hidden "0", then "1" for those ticked. */
function form(values: { method?: string; squash?: string; ticked?: string[]; templates?: Record<string, string> }): [string, string][] {
  const fields: [string, string][] = [['_method', 'patch']]
  fields.push(['project[merge_method]', values.method ?? 'merge'])
  for (const name of ['resolve_outdated_diff_discussions', 'printing_merge_request_link_enabled', 'remove_source_branch_after_merge']) {
    fields.push([`project[${name}]`, '0'])
    if (values.ticked?.includes(name)) fields.push([`project[${name}]`, '1'])
  }
  fields.push(['project[squash_option]', values.squash ?? 'default_off'])
  for (const name of [
    'only_allow_merge_if_pipeline_succeeds',
    'allow_merge_on_skipped_pipeline',
    'only_allow_merge_if_all_discussions_are_resolved',
  ]) {
    fields.push([`project[${name}]`, '0'])
    if (values.ticked?.includes(name)) fields.push([`project[${name}]`, '1'])
  }
  for (const name of ['merge_commit_template', 'squash_commit_template', 'suggestion_commit_message']) {
    fields.push([`project[${name}]`, values.templates?.[name] ?? ''])
  }
  return fields
}

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  api = client(`${server.url}/api/v4`)
  web = pages(server.url)
  owner = await createPerson(db, 'olivia')
  maintainer = await createPerson(db, 'mia')
  reporter = await createPerson(db, 'rey')
  maintainerSession = await createTestSession(server, maintainer.user)
  reporterSession = await createTestSession(server, reporter.user)
  project = await createRepositoryProject(api, owner, { name: 'Atlas', path: 'atlas' })
  await addProjectMember(db, maintainer, project.id, AccessLevel.MAINTAINER)
  await addProjectMember(db, reporter, project.id, AccessLevel.REPORTER)
})
afterAll(() => server.close())

describe('the merge request settings page', () => {
  test('shows the merge method, options, squash option, checks and templates as they are', async () => {
    const res = await web.get(PAGE, maintainerSession)
    expect(res.status).toBe(200)
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(res.text).toContain('<title>Merge requests settings · Olivia / Atlas · svc</title>')
    expect(res.text).toContain('<a href="/olivia/atlas/-/settings/merge_requests" aria-current="page">Merge requests</a>')
    expect(res.text).toMatch(/id="project_merge_method_merge"\s+name="project\[merge_method\]"\s+value="merge"\s+checked/)
    expect(res.text).toContain('<label for="project_merge_method_ff" class="inline-label">Fast-forward merge</label>')
    expect(res.text).toMatch(/id="project_squash_option_default_off"\s+name="project\[squash_option\]"\s+value="default_off"\s+checked/)
    expect(res.text).toContain('<input type="hidden" name="project[remove_source_branch_after_merge]" value="0" />')
    expect(res.text).toMatch(
      /id="project_remove_source_branch_after_merge"\s+name="project\[remove_source_branch_after_merge\]"\s+value="1"\s+checked/,
    )
    expect(res.text).toContain(
      '<label for="project_only_allow_merge_if_all_discussions_are_resolved" class="inline-label">All threads must be resolved</label>',
    )
  })

  test('is the 404 page for a Reporter; without merge requests it is the 404 page for everyone', async () => {
    expect((await web.get(PAGE, reporterSession)).status).toBe(404)
    expect((await web.post(PAGE, reporterSession, form({ method: 'ff' }))).status).toBe(404)
    const other = await createRepositoryProject(api, owner, { name: 'Quiet', path: 'quiet', merge_requests_access_level: 'disabled' })
    await addProjectMember(server.database.db, maintainer, other.id, AccessLevel.MAINTAINER)
    expect((await web.get('/olivia/quiet/-/settings/merge_requests', maintainerSession)).status).toBe(404)
    const sidebar = (await web.get('/olivia/quiet/edit', maintainerSession)).text
    expect(sidebar).not.toContain('/-/settings/merge_requests')
  })
})

describe('saving the merge request settings', () => {
  test('fast-forward, squash required, options and checks, templates: saved as the API shows them', async () => {
    const res = await web.post(
      PAGE,
      maintainerSession,
      form({
        method: 'ff',
        squash: 'always',
        ticked: ['resolve_outdated_diff_discussions', 'only_allow_merge_if_all_discussions_are_resolved'],
        templates: { merge_commit_template: 'Merge %{source_branch}', suggestion_commit_message: 'Apply %{suggestions_count} suggestions' },
      }),
    )
    expect([res.status, res.headers.location]).toEqual([302, PAGE])
    const next = await web.get(PAGE, maintainerSession)
    expect(flashOf(next.text)).toBe("Project 'Atlas' was successfully updated.")
    expect(next.text).toMatch(/id="project_merge_method_ff"\s+name="project\[merge_method\]"\s+value="ff"\s+checked/)
    expect(next.text).toMatch(/name="project\[merge_commit_template\]"[^>]*>Merge %\{source_branch\}<\/textarea>/)
    expect(await settings()).toMatchObject({
      merge_method: 'ff',
      squash_option: 'always',
      resolve_outdated_diff_discussions: true,
      printing_merge_request_link_enabled: false,
      remove_source_branch_after_merge: false,
      only_allow_merge_if_pipeline_succeeds: false,
      only_allow_merge_if_all_discussions_are_resolved: true,
      merge_commit_template: 'Merge %{source_branch}',
      squash_commit_template: null,
      suggestion_commit_message: 'Apply %{suggestions_count} suggestions',
    })
    const back = await web.post(PAGE, maintainerSession, form({ method: 'rebase_merge', ticked: ['remove_source_branch_after_merge'] }))
    expect(back.status).toBe(302)
    expect(await settings()).toMatchObject({
      merge_method: 'rebase_merge',
      squash_option: 'default_off',
      remove_source_branch_after_merge: true,
      only_allow_merge_if_all_discussions_are_resolved: false,
      merge_commit_template: null,
      suggestion_commit_message: null,
    })
  })

  test('a refusal keeps what was typed, escaped, with the message beside the field; nothing is saved', async () => {
    const long = `${XSS}${'x'.repeat(600)}`
    const res = await web.post(PAGE, maintainerSession, form({ method: 'ff', templates: { squash_commit_template: long } }))
    expect(res.status).toBe(422)
    expect(res.text).toContain('<li>Squash commit template is too long (maximum is 500 characters)</li>')
    expect(res.text).toContain(
      '<p class="field-error" id="project_squash_commit_template_error">Squash commit template is too long (maximum is 500 characters)</p>',
    )
    expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;xxx')
    expect(res.text).not.toContain(XSS)
    expect(res.text).toMatch(/value="ff"\s+checked/)
    expect((await settings()).merge_method).toBe('rebase_merge')
    const method = await web.post(PAGE, maintainerSession, form({ method: 'squash' }))
    expect(method.status).toBe(422)
    expect(method.text).toContain('<li>merge_method does not have a valid value</li>')
  })

  test('a form without a valid token is refused and changes nothing', async () => {
    const res = await web.post(PAGE, maintainerSession, form({ method: 'merge' }), null)
    expect(res.status).toBe(422)
    expect(res.text).toContain('The change you requested was rejected.')
    expect((await settings()).merge_method).toBe('rebase_merge')
  })
})
