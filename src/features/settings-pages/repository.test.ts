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
let developer: Person
let maintainerSession: TestSession
let developerSession: TestSession
let project: Record<string, any>

const PAGE = '/olivia/atlas/-/settings/repository'

async function protectedBranches(): Promise<any[]> {
  return (await api('GET', `/projects/${project.id}/protected_branches`, { token: owner.token })).body
}

async function protectedTags(): Promise<any[]> {
  return (await api('GET', `/projects/${project.id}/protected_tags`, { token: owner.token })).body
}

/** The protect-a-branch form as a browser sends it. */
function protectFields(name: string, merge = '40', push = '40', forcePush = false): [string, string][] {
  return [
    ['protected_branch[name]', name],
    ['protected_branch[merge_access_levels_attributes][][access_level]', merge],
    ['protected_branch[push_access_levels_attributes][][access_level]', push],
    ['protected_branch[allow_force_push]', '0'],
    ...(forcePush ? [['protected_branch[allow_force_push]', '1'] as [string, string]] : []),
  ]
}

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  api = client(`${server.url}/api/v4`)
  web = pages(server.url)
  owner = await createPerson(db, 'olivia')
  maintainer = await createPerson(db, 'mia')
  developer = await createPerson(db, 'dev')
  maintainerSession = await createTestSession(server, maintainer.user)
  developerSession = await createTestSession(server, developer.user)
  project = await createRepositoryProject(api, owner, { name: 'Atlas', path: 'atlas' })
  await addProjectMember(db, maintainer, project.id, AccessLevel.MAINTAINER)
  await addProjectMember(db, developer, project.id, AccessLevel.DEVELOPER)
  for (const branch of ['develop', 'release-1']) {
    const res = await api('POST', `/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch, ref: 'main' } })
    expect(res.status).toBe(201)
  }
})
afterAll(() => server.close())

describe('the repository settings page', () => {
  test('shows the default branch, the protected branches with their roles, and the protected tags', async () => {
    const res = await web.get(PAGE, maintainerSession)
    expect(res.status).toBe(200)
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(res.text).toContain('<title>Repository settings · Olivia / Atlas · svc</title>')
    expect(res.text).toContain('<a href="/olivia/atlas/-/settings/repository" aria-current="page">Repository</a>')
    expect(res.text).toContain('<form method="post" action="/olivia/atlas/-/settings/repository" class="default-branch">')
    expect(res.text).toContain('<option value="main" selected>main</option>')
    expect(res.text).toContain('<form method="post" action="/olivia/atlas/-/protected_branches" class="new-protected-branch">')
    expect(res.text).toContain('<datalist id="protected_branch_names"><option value="develop"></option><option value="main"></option>')
    // A new project's default branch is protected, Maintainers allowed to merge and push.
    expect(res.text).toContain('<h3>Protected branches (1)</h3>')
    expect(res.text).toContain('<td><code class="ref-name">main</code></td>')
    expect(res.text).toContain('<form method="post" action="/olivia/atlas/-/protected_tags" class="new-protected-tag">')
    expect(res.text).toContain('No tags are protected yet. Protect a tag above.')
  })

  test('is the 404 page for a Developer, and their forms change nothing', async () => {
    expect((await web.get(PAGE, developerSession)).status).toBe(404)
    expect((await web.post('/olivia/atlas/-/protected_branches', developerSession, protectFields('develop'))).status).toBe(404)
    expect((await web.post(PAGE, developerSession, { _method: 'put', 'project[default_branch]': 'develop' })).status).toBe(404)
    expect((await protectedBranches()).map((branch) => branch.name)).toEqual(['main'])
  })
})

describe('the default branch', () => {
  test('changes to another branch, with GitLab notice; a branch that does not exist is refused beside the field', async () => {
    const res = await web.post(PAGE, maintainerSession, { _method: 'put', 'project[default_branch]': 'develop' })
    expect([res.status, res.headers.location]).toEqual([302, PAGE])
    expect(flashOf((await web.get(PAGE, maintainerSession)).text)).toBe('Project settings were successfully updated.')
    expect((await api('GET', `/projects/${project.id}`, { token: owner.token })).body.default_branch).toBe('develop')
    const refused = await web.post(PAGE, maintainerSession, { _method: 'put', 'project[default_branch]': `x${XSS}` })
    expect(refused.status).toBe(422)
    expect(refused.text).toContain(
      '<p class="field-error" id="project_default_branch_error">Could not change HEAD: branch &#39;x&lt;script&gt;alert(1)&lt;/script&gt;&#39; does not exist</p>',
    )
    expect(refused.text).toContain('<option value="x&lt;script&gt;alert(1)&lt;/script&gt;" selected>')
    expect(refused.text).not.toContain(XSS)
    await web.post(PAGE, maintainerSession, { _method: 'put', 'project[default_branch]': 'main' })
    expect((await api('GET', `/projects/${project.id}`, { token: owner.token })).body.default_branch).toBe('main')
  })
})

describe('protected branches', () => {
  test('a Maintainer protects a wildcard with Developers allowed to merge and force push allowed; the API shows it', async () => {
    const res = await web.post('/olivia/atlas/-/protected_branches', maintainerSession, protectFields('release-*', '30', '40', true))
    expect([res.status, res.headers.location]).toEqual([302, PAGE])
    const next = await web.get(PAGE, maintainerSession)
    expect(flashOf(next.text)).toBe('Protected branch was successfully created')
    expect(next.text).toContain('<td><code class="ref-name">release-*</code></td>')
    const created = (await protectedBranches()).find((branch) => branch.name === 'release-*')
    expect(created).toMatchObject({
      allow_force_push: true,
      merge_access_levels: [{ access_level: 30, access_level_description: 'Developers + Maintainers' }],
      push_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }],
    })
    const row = new RegExp(
      `id="protected_branch_${created.id}_merge"[^>]*>\\s*<option value="40" >Maintainers</option>\\s*<option value="30" selected>`,
    )
    expect(next.text).toMatch(row)
    expect(next.text).toMatch(new RegExp(`id="protected_branch_${created.id}_force_push"[^>]*checked`))
  })

  test('a refused name comes back beside the field with what was typed, escaped', async () => {
    const taken = await web.post('/olivia/atlas/-/protected_branches', maintainerSession, protectFields('release-*', '0', '30'))
    expect(taken.status).toBe(422)
    expect(taken.text).toContain('<li>Protected branch &#39;release-*&#39; already exists</li>')
    expect(taken.text).toContain(
      '<p class="field-error" id="protected_branch_name_error">Protected branch &#39;release-*&#39; already exists</p>',
    )
    expect(taken.text).toMatch(/id="protected_branch_name"\s+name="protected_branch\[name\]"\s+value="release-\*"/)
    expect(taken.text).toMatch(
      /id="protected_branch_merge_access_level"[^>]*>\s*<option value="40" >Maintainers<\/option>\s*<option value="30" >[^<]*<\/option>\s*<option value="0" selected>/,
    )
    const hostile = await web.post('/olivia/atlas/-/protected_branches', maintainerSession, protectFields(`  `))
    expect(hostile.status).toBe(422)
    expect(hostile.text).toContain('<li>Name can&#39;t be blank</li>')
    const escaped = await web.post('/olivia/atlas/-/protected_branches', maintainerSession, protectFields(XSS))
    expect(escaped.status).toBe(302)
    const page = await web.get(PAGE, maintainerSession)
    expect(page.text).toContain('<code class="ref-name">&lt;script&gt;alert(1)&lt;/script&gt;</code>')
    expect(page.text).not.toContain(XSS)
  })

  test('a Maintainer changes who may push and merge, then unprotects; a forged form changes nothing', async () => {
    const branch = (await protectedBranches()).find((candidate) => candidate.name === 'release-*')
    const at = `/olivia/atlas/-/protected_branches/${branch.id}`
    const fields: [string, string][] = [
      ['_method', 'put'],
      ['protected_branch[merge_access_levels_attributes][][access_level]', '40'],
      ['protected_branch[push_access_levels_attributes][][access_level]', '0'],
      ['protected_branch[allow_force_push]', '0'],
    ]
    expect((await web.post(at, maintainerSession, fields, null)).status).toBe(422)
    expect((await protectedBranches()).find((candidate) => candidate.id === branch.id).push_access_levels[0].access_level).toBe(40)
    const res = await web.post(at, maintainerSession, fields)
    expect([res.status, res.headers.location]).toEqual([302, PAGE])
    expect(flashOf((await web.get(PAGE, maintainerSession)).text)).toBe("Protected branch 'release-*' was successfully updated.")
    expect((await protectedBranches()).find((candidate) => candidate.id === branch.id)).toMatchObject({
      allow_force_push: false,
      merge_access_levels: [{ access_level: 40 }],
      push_access_levels: [{ access_level: 0, access_level_description: 'No one' }],
    })
    expect((await web.post(at, developerSession, { _method: 'delete' })).status).toBe(404)
    expect((await web.post(at, maintainerSession, { _method: 'delete' }, 'forged')).status).toBe(422)
    const removed = await web.post(at, maintainerSession, { _method: 'delete' })
    expect([removed.status, removed.headers.location]).toEqual([302, PAGE])
    expect(flashOf((await web.get(PAGE, maintainerSession)).text)).toBe("Branch 'release-*' was unprotected.")
    expect((await protectedBranches()).map((candidate) => candidate.name)).not.toContain('release-*')
    expect((await web.post(at, maintainerSession, { _method: 'delete' })).status).toBe(404)
  })
})

describe('protected tags', () => {
  test('a Maintainer protects a tag pattern, sees it listed, and unprotects it', async () => {
    const res = await web.post('/olivia/atlas/-/protected_tags', maintainerSession, [
      ['protected_tag[name]', 'v*'],
      ['protected_tag[create_access_levels_attributes][][access_level]', '30'],
    ])
    expect([res.status, res.headers.location]).toEqual([302, PAGE])
    const next = await web.get(PAGE, maintainerSession)
    expect(flashOf(next.text)).toBe('Protected tag was successfully created')
    expect(next.text).toMatch(/<td><code class="ref-name">v\*<\/code><\/td>\s*<td>Developers \+ Maintainers<\/td>/)
    expect(await protectedTags()).toMatchObject([{ name: 'v*', create_access_levels: [{ access_level: 30 }] }])
    const taken = await web.post('/olivia/atlas/-/protected_tags', maintainerSession, { 'protected_tag[name]': 'v*' })
    expect(taken.status).toBe(422)
    expect(taken.text).toContain('<p class="field-error" id="protected_tag_name_error">Name has already been taken</p>')
    const tag = (await server.database.db.selectFrom('protected_tags').select('id').where('name', '=', 'v*').executeTakeFirstOrThrow()).id
    expect((await web.post(`/olivia/atlas/-/protected_tags/${tag}`, maintainerSession, { _method: 'delete' }, null)).status).toBe(422)
    const removed = await web.post(`/olivia/atlas/-/protected_tags/${tag}`, maintainerSession, { _method: 'delete' })
    expect([removed.status, removed.headers.location]).toEqual([302, PAGE])
    expect(flashOf((await web.get(PAGE, maintainerSession)).text)).toBe("Tag 'v*' was unprotected.")
    expect(await protectedTags()).toEqual([])
  })
})
